"""The speculative-decoding family template (iclr26.lab.speculative_bench): tallies, grading, the pair helpers."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from iclr26.lab.corpora import parse_answer
from iclr26.lab.speculative import DecodeStats, ExactMatchVerifier, SamplingVerifier, speculative_decode
from iclr26.lab.speculative_bench import (
    MethodTally,
    Prompt,
    answer_of,
    continuation_nll,
    decode_prompts,
    heldout_prompts,
    line_end,
    load_pair,
    majority_answer,
)


@pytest.fixture(scope="module")
def models():
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=24, n_embd=16, n_layer=1, n_head=2, n_positions=64)
    return GPT2LMHeadModel(cfg).eval(), GPT2LMHeadModel(cfg).eval()


PROMPTS = [Prompt(torch.tensor([[1, 2, 3]])), Prompt(torch.tensor([[4, 5]])), Prompt(torch.tensor([[6]]))]


def test_tally_pools_tokens_and_forwards_over_prompts(models):
    target, drafter = models

    def exact(p, seed):
        return speculative_decode(target, drafter, p.ids, ExactMatchVerifier(), gamma=3, max_new_tokens=7)

    tally = decode_prompts(PROMPTS, {"exact": exact})["exact"]
    runs = [exact(p, 0) for p in PROMPTS]
    assert [o.tolist() for o in tally.outputs] == [ids.tolist() for ids, _ in runs]
    assert tally.emitted == sum(st.emitted for _, st in runs) == 21
    assert tally.target_forwards == sum(st.target_forwards for _, st in runs)
    assert tally.tau == tally.emitted / tally.target_forwards  # pooled, not a mean of per-prompt ratios
    assert len(tally.wall) == 3 and all(w >= 0 for w in tally.wall)
    assert tally.accuracy == 0.0  # no pair: nothing is graded right


def test_methods_run_prompt_by_prompt_with_each_prompts_seed(models):
    target, drafter = models
    calls = []

    def method(name):
        def run(p, seed):
            calls.append((name, p.length, seed))
            return speculative_decode(
                target, drafter, p.ids, SamplingVerifier(), gamma=2, max_new_tokens=4, seed=seed
            )

        return run

    tallies = decode_prompts(PROMPTS, {"a": method("a"), "b": method("b")}, seeds=[11, 12, 13])
    assert calls == [("a", 3, 11), ("b", 3, 11), ("a", 2, 12), ("b", 2, 12), ("a", 1, 13), ("b", 1, 13)]
    # the same seed gives the same sampled continuation, whichever method slot ran it
    assert [o.tolist() for o in tallies["a"].outputs] == [o.tolist() for o in tallies["b"].outputs]
    with pytest.raises(ValueError, match="one seed per prompt"):
        decode_prompts(PROMPTS, {"a": method("a")}, seeds=[1, 2])


def test_a_method_without_stats_adds_no_forwards():
    tally = decode_prompts(PROMPTS, {"copy": lambda p, seed: (p.ids, None)})["copy"]
    assert tally.emitted == tally.target_forwards == 0
    assert math.isnan(tally.tau)
    assert tally.stats == [None, None, None]


class _Chars:
    """A character tokenizer over a fixed alphabet (the part of the interface the template uses)."""

    alphabet = "\nAnswer: 0123456789Q?"

    def decode(self, ids):
        return "".join(self.alphabet[i] for i in ids)

    def encode(self, text):
        return [self.alphabet.index(c) for c in text]

    def convert_tokens_to_ids(self, token):
        return self.alphabet.index(token)


def test_grading_reads_the_first_line_after_the_prompt():
    tok = _Chars()
    pair = SimpleNamespace(tokenizer=tok)
    prompt_ids = tok.encode("Q?")
    right = torch.tensor([prompt_ids + tok.encode(" Answer: 7\nAnswer: 8")])
    late = torch.tensor([prompt_ids + tok.encode(" 3\nAnswer: 7")])  # the answer is on the next line
    assert answer_of(pair, right, len(prompt_ids)) == 7
    assert answer_of(pair, late, len(prompt_ids)) is None
    assert line_end(pair) == 0
    prompts = [Prompt(torch.tensor([prompt_ids]), 7), Prompt(torch.tensor([prompt_ids]), 7)]
    prompts.append(Prompt(torch.tensor([prompt_ids])))  # no answer: never graded right
    outs = iter([right, late, right])
    tally = decode_prompts(prompts, {"m": lambda p, seed: (next(outs), None)}, pair=pair)["m"]
    assert tally.correct == [1.0, 0.0, 0.0]
    assert tally.accuracy == pytest.approx(1 / 3)


def test_continuation_nll_is_the_mean_nll_of_the_emitted_tokens(models):
    target, _ = models
    ids = torch.tensor([[3, 1, 4, 1, 5, 9, 2]])
    with torch.no_grad():
        logp = torch.log_softmax(target(ids).logits[0].double(), -1)
    manual = -sum(float(logp[t - 1, ids[0, t]]) for t in range(3, 7)) / 4
    assert continuation_nll(target, ids, 3) == pytest.approx(manual, rel=1e-12)


def test_median_wall_and_empty_tally():
    assert MethodTally(wall=[3.0, 1.0, 2.0]).median_wall == 2.0
    empty = MethodTally()
    assert math.isnan(empty.accuracy) and math.isnan(empty.median_wall) and math.isnan(empty.tau)
    assert isinstance(DecodeStats().emitted, int)


def test_pair_helpers_on_the_smoke_pair(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path))
    target, drafter, pair = load_pair("smoke", "cpu")
    assert not target.training and not drafter.training
    prompts = heldout_prompts(pair, 3, seed=5)
    problems = pair.heldout(3, seed=5)
    assert [p.answer for p in prompts] == [q.answer for q in problems]
    assert [pair.tokenizer.decode(p.ids[0].tolist()) for p in prompts] == [q.prompt() for q in problems]
    assert pair.tokenizer.decode([line_end(pair)]) == "\n"
    train = pair.target.config
    from iclr26.lab.tinylm import corpus_splits

    answers = [parse_answer(line) for line in corpus_splits(train)["train"].splitlines()]
    answers = [a for a in answers if a is not None]
    best = majority_answer(pair)
    assert answers.count(best) == max(answers.count(a) for a in set(answers))
