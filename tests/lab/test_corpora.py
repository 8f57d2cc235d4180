"""Tests for iclr26.lab.corpora: deterministic offline text, splits, the registry and the tokenizers."""

from __future__ import annotations

import ast
import re
import sysconfig
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from iclr26.lab import corpora
from iclr26.lab.corpora import (
    ARITHMETIC_STYLES,
    SPECIAL_TOKENS,
    ArithmeticProblem,
    arithmetic_problems,
    arithmetic_text,
    chunk_text,
    get_corpus,
    list_corpora,
    register_corpus,
    split_text,
    stdlib_files,
    stdlib_text,
    train_tokenizer,
)

# ------------------------------------------------------------------------------------------- stdlib text


def test_stdlib_files_sorted_and_filtered():
    files = stdlib_files()
    assert files == sorted(files)
    assert "json/decoder.py" in files
    excluded = {"site-packages", "test", "tests", "idlelib", "lib2to3", "tkinter", "turtledemo", "ensurepip"}
    assert not any(set(Path(f).parts[:-1]) & excluded for f in files)


def test_stdlib_text_deterministic_and_exact_length():
    text = stdlib_text(max_chars=20_000)
    assert len(text) == 20_000
    assert text == stdlib_text(max_chars=20_000)
    assert stdlib_text(max_chars=50_000).startswith(text)
    assert "\r" not in text


def test_stdlib_text_starts_with_first_file():
    first = Path(sysconfig.get_paths()["stdlib"]) / stdlib_files()[0]
    source = first.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n").strip("\n")
    assert stdlib_text(max_chars=len(source)) == source


def test_docstrings_only_keeps_docstrings():
    text = stdlib_text(max_chars=30_000, docstrings_only=True)
    assert len(text) == 30_000
    assert text != stdlib_text(max_chars=30_000)
    root = Path(sysconfig.get_paths()["stdlib"])
    for rel in stdlib_files():
        module_doc = ast.get_docstring(ast.parse((root / rel).read_text(encoding="utf-8", errors="replace")))
        if module_doc:
            assert text.startswith(module_doc[:1000])
            break


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "100"])
def test_stdlib_text_rejects_bad_max_chars(bad):
    with pytest.raises(ValueError, match="max_chars"):
        stdlib_text(max_chars=bad)


# ---------------------------------------------------------------------------------------------- splitting


def _numbered_lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(n))


def test_chunk_text_covers_text_at_line_boundaries():
    text = _numbered_lines(500)
    chunks = chunk_text(text, chunk_chars=100)
    assert "".join(chunks) == text
    assert all(chunk.endswith("\n") for chunk in chunks)
    assert all(len(chunk) >= 100 for chunk in chunks[:-1])


def test_split_text_disjoint_covering_deterministic():
    text = _numbered_lines(2000)
    parts = split_text(text, chunk_chars=200, seed=3)
    assert set(parts) == {"train", "val", "test"}
    lines = {name: part.splitlines() for name, part in parts.items()}
    assert not set(lines["train"]) & set(lines["val"])
    assert not set(lines["train"]) & set(lines["test"])
    assert not set(lines["val"]) & set(lines["test"])
    assert sorted(sum(lines.values(), [])) == sorted(text.splitlines())
    assert parts == split_text(text, chunk_chars=200, seed=3)
    assert parts != split_text(text, chunk_chars=200, seed=4)
    assert 0.8 < len(parts["train"]) / len(text) < 0.95
    assert all(parts[name] for name in parts)


def test_split_text_keeps_chunk_order_within_a_split():
    text = _numbered_lines(1000)
    numbers = [int(line.split()[1]) for line in split_text(text, chunk_chars=50)["train"].splitlines()]
    assert numbers == sorted(numbers)


@pytest.mark.parametrize(
    "fractions", [(0.9, 0.1), (0.5, 0.5, 0.5), (1.0, 0.0, 0.0), (1.2, -0.1, -0.1), (0.8, 0.1, "0.1")]
)
def test_split_text_rejects_bad_fractions(fractions):
    with pytest.raises(ValueError, match="fractions"):
        split_text(_numbered_lines(100), fractions=fractions)


def test_split_text_rejects_too_short_text():
    with pytest.raises(ValueError, match="chunk"):
        split_text("one line\n", chunk_chars=100)


# ------------------------------------------------------------------------------------------ arithmetic


def test_arithmetic_problem_phrasings():
    p = ArithmeticProblem(37, 45, "+")
    assert p.text("qa") == "Q: 37+45= A: 82"
    assert p.text("question") == "What is 37 plus 45? Answer: 82"
    assert p.text("equation") == "37 + 45 = 82"
    assert p.text("instruction") == "Add 37 and 45. The sum is 82."
    assert ArithmeticProblem(9, 4, "-").text("instruction") == "Subtract 4 from 9. The difference is 5."
    assert ArithmeticProblem(6, 7, "*").answer == 42
    with pytest.raises(ValueError, match="style"):
        p.prompt("poem")
    with pytest.raises(ValueError, match="op"):
        ArithmeticProblem(1, 2, "/")


_ANSWER_PATTERNS = [
    r"Q: (\d+)([-+*])(\d+)= A: (-?\d+)",
    r"What is (\d+) (plus|minus|times) (\d+)\? Answer: (-?\d+)",
    r"(\d+) ([-+*]) (\d+) = (-?\d+)",
    r"(?:Add|Subtract|Multiply) (\d+) (and|from|by) (\d+)\. The (?:sum|difference|product) is (-?\d+)\.",
]


def _check_line(line: str) -> str:
    for style, pattern in zip(ARITHMETIC_STYLES, _ANSWER_PATTERNS):
        match = re.fullmatch(pattern, line)
        if match:
            a, word, b, answer = match.groups()
            a, b, answer = int(a), int(b), int(answer)
            if word == "from":  # "Subtract b from a"
                a, b = b, a
            op = {"plus": "+", "minus": "-", "times": "*", "and": "+", "from": "-", "by": "*"}.get(word, word)
            assert ArithmeticProblem(a, b, op).answer == answer, line
            return style
    raise AssertionError(f"unrecognised line {line!r}")


def test_arithmetic_corpus_answers_are_correct_in_every_style():
    text = get_corpus("arithmetic", max_chars=20_000, ops=("+", "-", "*"), seed=5)
    styles = {_check_line(line) for line in text.splitlines()}
    assert styles == set(ARITHMETIC_STYLES)


def test_arithmetic_corpus_deterministic_and_whole_lines():
    text = arithmetic_text(max_chars=5_003, seed=1)
    assert text == arithmetic_text(max_chars=5_003, seed=1)
    assert text != arithmetic_text(max_chars=5_003, seed=2)
    assert 4_900 < len(text) <= 5_003
    assert text.endswith("\n")
    assert all(int(line.split()[-1].rstrip(".")) >= 0 for line in text.splitlines())


def test_arithmetic_text_lines_match_problems():
    problems = arithmetic_problems(50, seed=7)
    lines = arithmetic_text(n_problems=50, seed=7, styles=("qa",)).splitlines()
    assert lines == [p.text("qa") for p in problems]


@pytest.mark.parametrize(
    "kwargs, name",
    [({"ops": ("/",)}, "ops"), ({"styles": ("limerick",)}, "styles"), ({"max_operand": 0}, "max_operand")],
)
def test_arithmetic_rejects_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        arithmetic_text(n_problems=3, **kwargs)


# -------------------------------------------------------------------------------------------- registry


def test_registry_ships_three_corpora():
    assert {"stdlib", "stdlib-docstrings", "arithmetic"} <= set(list_corpora())
    assert get_corpus("stdlib", max_chars=1000) == stdlib_text(max_chars=1000)
    assert get_corpus("stdlib-docstrings", max_chars=1000) == stdlib_text(
        max_chars=1000, docstrings_only=True
    )


def test_unknown_corpus_lists_valid_names():
    for error in (KeyError, ValueError):
        with pytest.raises(error, match="stdlib-docstrings"):
            get_corpus("wikipedia")


def test_unknown_keyword_lists_accepted_ones():
    with pytest.raises(TypeError, match="max_chars"):
        get_corpus("stdlib", seed=3)


def test_register_corpus(monkeypatch):
    monkeypatch.setattr(corpora.registry, "_CORPORA", dict(corpora.registry._CORPORA))

    @register_corpus("abc-test")
    def abc(max_chars=None, repeat=3):
        return ("abc\n" * repeat)[:max_chars]

    assert "abc-test" in list_corpora()
    assert get_corpus("abc-test", repeat=2) == "abc\nabc\n"
    with pytest.raises(ValueError, match="already registered"):
        register_corpus("abc-test")(lambda max_chars=None: "")
    with pytest.raises(ValueError, match="max_chars"):
        register_corpus("no-max-chars")(lambda: "")


# ------------------------------------------------------------------------------------------ tokenizers

_TRICKY = "def f(x):\n\treturn x  # 10 ± 1 %, naïve café 日本語 🙂\r\n  \n\n'quoted' \"double\" don't ."


@pytest.fixture(scope="module")
def training_text() -> str:
    return stdlib_text(max_chars=60_000)


def test_bpe_round_trips_and_is_deterministic(training_text):
    tok = train_tokenizer(training_text, vocab_size=600)
    for text in (_TRICKY, training_text[:5000], " leading space", ""):
        assert tok.decode(tok.encode(text)) == text
    assert len(tok) == 600
    assert (
        tok.backend_tokenizer.to_str()
        == train_tokenizer(training_text, vocab_size=600).backend_tokenizer.to_str()
    )
    assert len(tok.encode(training_text[:5000])) < 5000 / 2  # merges compress code


def test_special_tokens_have_fixed_ids(training_text):
    for tok in (train_tokenizer(training_text, vocab_size=300), train_tokenizer(training_text, kind="char")):
        assert [tok.bos_token, tok.eos_token, tok.pad_token, tok.unk_token] == list(SPECIAL_TOKENS.values())
        assert [tok.bos_token_id, tok.eos_token_id, tok.pad_token_id, tok.unk_token_id] == [0, 1, 2, 3]
        assert tok.encode("a b") == tok("a b")["input_ids"]  # no special tokens added when encoding
        assert tok.bos_token_id not in tok.encode("a b")


def test_char_tokenizer_one_token_per_character(training_text):
    tok = train_tokenizer(training_text, kind="char")
    assert len(tok) == len(set(training_text)) + len(SPECIAL_TOKENS)
    sample = training_text[1000:3000]
    assert len(tok.encode(sample)) == len(sample)
    assert tok.decode(tok.encode(sample)) == sample
    assert tok.convert_ids_to_tokens(tok.encode("\u2603")) == [SPECIAL_TOKENS["unk_token"]]


def test_tokenizer_save_load_round_trip(training_text, tmp_path):
    for kind in ("bpe", "char"):
        tok = train_tokenizer(training_text, vocab_size=400, kind=kind)
        tok.save_pretrained(tmp_path / kind)
        loaded = AutoTokenizer.from_pretrained(tmp_path / kind)
        sample = training_text[:3000]
        assert loaded.encode(sample) == tok.encode(sample)
        assert loaded.decode(loaded.encode(sample)) == sample
        assert loaded.pad_token_id == tok.pad_token_id


@pytest.mark.parametrize(
    "kwargs, name",
    [({"kind": "wordpiece"}, "kind"), ({"vocab_size": 100}, "vocab_size"), ({"text": ""}, "text")],
)
def test_train_tokenizer_rejects_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        train_tokenizer(**({"text": "hello world"} | kwargs))
