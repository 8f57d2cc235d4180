"""The worded-arithmetic corpus and the speculative-decoding draft/target pair built on it."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from iclr26.lab.corpora import (
    STEP_FORMS,
    WordedProblem,
    get_corpus,
    parse_answer,
    worded_arithmetic_text,
    worded_problems,
)
from iclr26.lab.threads import limited_threads
from iclr26.lab.tinylm.pairs import PAIR_BUDGETS, DraftTargetPair, draft_target_pair, pair_configs
from iclr26.lab.tinylm.training import corpus_splits

_STEP = {
    "equation": r"^(\d+)([+-])(\d+)=(\d+)$",
    "gives": r"^(\d+)([+-])(\d+) gives (\d+)$",
    "words": r"^(\d+) (plus|minus) (\d+) is (\d+)$",
}


def _check_step(text: str) -> int:
    """Parse one step in any of the forms, check its arithmetic, return its result."""
    for pattern in _STEP.values():
        m = re.match(pattern, text)
        if m:
            x, op, y, r = int(m[1]), m[2], int(m[3]), int(m[4])
            assert r == (x + y if op in ("+", "plus") else x - y), text
            return r
    m = re.match(r"^(\d+)=(\d+)-(\d+)$", text)  # subtraction, result first
    assert m, text
    assert int(m[1]) == int(m[2]) - int(m[3]), text
    return int(m[1])


def _check_line(line: str) -> None:
    m = re.match(r"^Q: (\d+(?:[+-]\d+)+)=\? A: (.*)\. Answer: (-?\d+)$", line)
    assert m, line
    expected = eval(m[1])  # digits and +/- only, matched above
    steps = re.split(r", then |, |; ", m[2])
    results = [_check_step(s) for s in steps]
    assert results[-1] == expected == int(m[3]) == parse_answer(line)
    assert len(steps) == m[1].count("+") + m[1].count("-")


def test_every_wording_of_every_step_is_correct_arithmetic() -> None:
    for p in worded_problems(60, seed=5, max_steps=3):
        assert min(p.partials()) >= 0
        for forms in itertools.product(STEP_FORMS, repeat=len(p.ops)):
            line = p.prompt() + p.solution(forms, (", then ", "; "))
            _check_line(line)


def test_corpus_lines_are_checkable_deterministic_and_mixed_with_text() -> None:
    text = worded_arithmetic_text(max_chars=60_000)
    assert text == get_corpus("worded-arithmetic", max_chars=60_000)
    assert len(text) <= 60_000 and text.endswith("\n")
    lines = text.splitlines()
    problems = [line for line in lines if line.startswith("Q: ")]
    for line in problems:
        _check_line(line)
    prose = sum(len(line) + 1 for line in lines if not line.startswith("Q: ")) / len(text)
    assert 0.05 < prose < 0.25  # about text_fraction = 0.15
    wordings = {re.sub(r"\d+", "N", line.split(" A: ")[1]) for line in problems}
    assert len(wordings) > 20  # steps really are worded in many ways
    assert worded_arithmetic_text(max_chars=5_000, text_fraction=0.0).count("Q: ") == sum(
        1 for line in worded_arithmetic_text(max_chars=5_000, text_fraction=0.0).splitlines()
    )


def test_first_corpus_problems_are_worded_problems_seed_0() -> None:
    lines = worded_arithmetic_text(n_problems=5, text_fraction=0.0).splitlines()
    assert [line.split(" A:")[0] + " A:" for line in lines] == [p.prompt() for p in worded_problems(5)]


def test_parse_answer_and_text() -> None:
    p = WordedProblem((30, 4, 10), ("-", "+"))
    assert p.answer == 36 and p.partials() == [26, 36]
    assert parse_answer(p.text(random.Random(0))) == 36
    assert parse_answer("Answer: -3 and Answer: 4") == -3


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: WordedProblem((1, 2), ("*",)), ["ops"]),
        (lambda: WordedProblem((1,), ()), ["len(operands)"]),
        (
            lambda: WordedProblem((1, 2), ("+",)).solution(("equation", "words")),
            ["forms", "one form per step"],
        ),
        (lambda: worded_arithmetic_text(max_chars=100, text_fraction=1.0), ["text_fraction"]),
        (lambda: worded_problems(3, max_steps=0), ["max_steps"]),
        (lambda: pair_configs("huge"), ["budget"]),
    ],
)
def test_bad_input(call, words) -> None:
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value)


def test_pair_configs_share_corpus_and_tokenizer_and_the_target_is_bigger() -> None:
    for budget in PAIR_BUDGETS:
        t, d = pair_configs(budget)
        assert (t.corpus, t.corpus_chars, t.tokenizer) == (d.corpus, d.corpus_chars, d.tokenizer)
        assert t.d_model * t.n_layers > d.d_model * d.n_layers and t.steps > d.steps


def test_smoke_pair_shares_a_tokenizer_and_heldout_problems_are_unseen() -> None:
    with limited_threads(1):  # tiny models: a second thread only adds hand-off cost (40x slower under load)
        pair = draft_target_pair("smoke", cache=False)
    assert isinstance(pair, DraftTargetPair)
    assert pair.tokenizer.get_vocab() == pair.drafter.tokenizer.get_vocab()
    train = corpus_splits(pair.target.config)["train"]
    problems = pair.heldout(20, seed=2)
    assert len(set(problems)) == 20 and all(p.prompt() not in train for p in problems)
    with pytest.raises(ValueError, match="seed"):
        pair.heldout(3, seed=0)
