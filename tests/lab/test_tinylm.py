"""Tests for iclr26.lab.tinylm: determinism, learning, the atomic cache, both architectures, generation."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import shutil

import pytest
import torch

from iclr26.lab import tinylm
from iclr26.lab.tinylm import (
    SMOKE_CONFIG,
    TinyLMCacheError,
    TinyLMConfig,
    build_model,
    cache_path,
    config_hash,
    corpus_splits,
    evaluate_loss,
    load_or_train,
    perplexity,
    train_tiny_lm,
    unigram_loss,
)

TINY = SMOKE_CONFIG
PROMPT = "Return the"


@pytest.fixture(scope="module")
def cached(tmp_path_factory) -> dict:
    """One tiny model per architecture, trained into a module-wide cache directory."""
    root = tmp_path_factory.mktemp("cache")
    configs = {arch: dataclasses.replace(TINY, arch=arch) for arch in ("llama", "gpt2")}
    return {"root": root, "configs": configs, "lms": {a: load_or_train(c, root) for a, c in configs.items()}}


def _logits(lm, text: str = PROMPT + " value of the object.") -> torch.Tensor:
    ids = lm.tokenizer(text, return_tensors="pt").input_ids
    with torch.no_grad():
        return lm.model(input_ids=ids).logits


# ------------------------------------------------------------------------------------------------ config


@pytest.mark.parametrize(
    "field, value",
    [
        ("arch", "mamba"),
        ("corpus", "wikipedia"),
        ("tokenizer", "wordpiece"),
        ("vocab_size", 100),
        ("d_model", 0),
        ("n_layers", 1.5),
        ("n_heads", 3),
        ("d_ff", 0),
        ("seq_len", 1),
        ("batch_size", True),
        ("steps", 0),
        ("lr", 0.0),
        ("lr", float("nan")),
        ("warmup", -1),
        ("weight_decay", -0.1),
        ("seed", -1),
        ("corpus_chars", None),
    ],
)
def test_bad_config_values_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(TINY, **{field: value})


def test_warmup_longer_than_steps_rejected():
    with pytest.raises(ValueError, match="warmup"):
        dataclasses.replace(TINY, steps=10, warmup=20)


def test_llama_needs_even_head_size():
    with pytest.raises(ValueError, match="n_heads"):
        TinyLMConfig(arch="llama", d_model=30, n_heads=2)
    TinyLMConfig(arch="gpt2", d_model=30, n_heads=2)  # gpt2 has no rotary embedding


def test_config_hash_stable_and_sensitive():
    h = config_hash(TINY)
    assert h == config_hash(dataclasses.replace(TINY))
    assert len(h) == 16 and int(h, 16) >= 0
    assert h != config_hash(dataclasses.replace(TINY, seed=1))
    assert h != config_hash(dataclasses.replace(TINY, lr=TINY.lr * 1.01))
    with pytest.raises(dataclasses.FrozenInstanceError):
        TINY.seed = 3  # type: ignore[misc]


def test_ff_width_defaults():
    assert TinyLMConfig(arch="gpt2", d_model=64).ff_width == 256
    assert TinyLMConfig(arch="llama", d_model=96).ff_width == 256
    assert TinyLMConfig(arch="llama", d_model=128).ff_width % 8 == 0
    assert TinyLMConfig(d_ff=100).ff_width == 100


def test_cache_path_honours_argument_then_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "env"))
    assert cache_path(TINY) == tmp_path / "env" / "tinylm" / config_hash(TINY)
    assert cache_path(TINY, tmp_path / "arg") == tmp_path / "arg" / "tinylm" / config_hash(TINY)


# ------------------------------------------------------------------------------------------------- model


@pytest.mark.parametrize("arch, class_name", [("llama", "LlamaForCausalLM"), ("gpt2", "GPT2LMHeadModel")])
def test_build_model_seeded_without_touching_global_rng(arch, class_name):
    cfg = dataclasses.replace(TINY, arch=arch)
    state = torch.get_rng_state()
    a, b = build_model(cfg, 300), build_model(cfg, 300)
    assert torch.equal(state, torch.get_rng_state())
    assert type(a).__name__ == class_name
    assert a.get_input_embeddings().weight.shape == (300, 32)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    c = build_model(dataclasses.replace(cfg, seed=1), 300)
    assert not torch.equal(a.get_input_embeddings().weight, c.get_input_embeddings().weight)


# -------------------------------------------------------------------------------------------- training


def test_training_is_deterministic_and_reports_progress(cached):
    calls = []
    lm = train_tiny_lm(TINY, progress=lambda step, total, loss: calls.append((step, total, loss)))
    reference = cached["lms"]["llama"]
    assert lm.history == reference.history
    assert lm.val_loss == reference.val_loss
    ours, theirs = lm.model.state_dict(), reference.model.state_dict()
    assert ours.keys() == theirs.keys()
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
    assert calls == [(step, TINY.steps, loss) for step, loss in lm.history]


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_loss_decreases(cached, arch):
    lm = cached["lms"][arch]
    losses = [loss for _, loss in lm.history]
    assert [step for step, _ in lm.history] == list(range(1, TINY.steps + 1))
    assert losses[0] > math.log(len(lm.tokenizer)) - 0.5  # starts near uniform
    assert sum(losses[-5:]) / 5 < losses[0] - 1.0
    assert lm.val_loss < losses[0] - 1.0
    assert not lm.model.training


def test_char_tokenizer_and_arithmetic_corpus():
    cfg = dataclasses.replace(TINY, corpus="arithmetic", tokenizer="char", steps=10)
    lm = train_tiny_lm(cfg)
    assert len(lm.tokenizer) < 60  # digits, some letters and symbols, specials
    assert math.isfinite(lm.val_loss)


def test_too_small_corpus_is_reported():
    with pytest.raises(ValueError, match="corpus_chars"):
        train_tiny_lm(dataclasses.replace(TINY, corpus_chars=200, seq_len=512))


# ---------------------------------------------------------------------------------------------- cache


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_cache_round_trip_loads_without_training(cached, arch, monkeypatch):
    cfg, trained = cached["configs"][arch], cached["lms"][arch]

    def fail(*args, **kwargs):
        raise AssertionError("load_or_train retrained a cached model")

    monkeypatch.setattr(tinylm.cache, "train_tiny_lm", fail)
    loaded = load_or_train(cfg, cached["root"])
    assert loaded.path == trained.path == cache_path(cfg, cached["root"])
    assert type(loaded.model) is type(trained.model)
    assert loaded.history == trained.history and loaded.val_loss == trained.val_loss
    assert loaded.config == cfg
    assert torch.equal(_logits(loaded), _logits(trained))
    sample = corpus_splits(cfg)["test"][:2000]
    assert loaded.tokenizer.encode(sample) == trained.tokenizer.encode(sample)
    meta = json.loads((loaded.path / "meta.json").read_text())
    assert meta["config"] == dataclasses.asdict(cfg)


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_generate_works_and_matches_after_loading(cached, arch):
    trained = cached["lms"][arch]
    loaded = load_or_train(cached["configs"][arch], cached["root"])
    ids = trained.tokenizer(PROMPT, return_tensors="pt").input_ids
    out = trained.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, do_sample=False)
    assert out.shape[0] == 1 and ids.shape[1] < out.shape[1] <= ids.shape[1] + 8
    assert torch.equal(out[:, : ids.shape[1]], ids)
    again = loaded.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, do_sample=False)
    assert torch.equal(out, again)
    assert isinstance(loaded.tokenizer.decode(out[0]), str)


def test_no_temporary_directories_left(cached):
    names = [p.name for p in (cached["root"] / "tinylm").iterdir()]
    assert sorted(names) == sorted(config_hash(c) for c in cached["configs"].values())


def test_leftover_temporary_directory_is_ignored(cached, tmp_path, monkeypatch):
    cfg = cached["configs"]["llama"]
    monkeypatch.setattr(tinylm.cache, "train_tiny_lm", lambda cfg, progress=None: cached["lms"]["llama"])
    final = cache_path(cfg, tmp_path)
    leftover = final.parent / f".{final.name}.tmp-crashed"
    leftover.mkdir(parents=True)
    (leftover / "config.json").write_text("{ half written")
    lm = load_or_train(cfg, tmp_path)
    assert lm.path == final and (final / "meta.json").is_file()
    assert torch.equal(_logits(lm), _logits(cached["lms"]["llama"]))
    assert torch.equal(_logits(load_or_train(cfg, tmp_path)), _logits(lm))


def test_crash_while_saving_leaves_no_entry(cached, tmp_path, monkeypatch):
    cfg = cached["configs"]["llama"]
    monkeypatch.setattr(tinylm.cache, "train_tiny_lm", lambda cfg, progress=None: cached["lms"]["llama"])

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(cached["lms"]["llama"].tokenizer, "save_pretrained", crash)
    with pytest.raises(OSError, match="disk full"):
        load_or_train(cfg, tmp_path)
    assert list((tmp_path / "tinylm").iterdir()) == []


def test_concurrent_writer_that_finished_first_wins(cached, tmp_path, monkeypatch):
    cfg = cached["configs"]["gpt2"]
    final = cache_path(cfg, tmp_path)

    def train_while_another_process_finishes(cfg, progress=None):
        shutil.copytree(cached["lms"]["gpt2"].path, final)
        return cached["lms"]["gpt2"]

    monkeypatch.setattr(tinylm.cache, "train_tiny_lm", train_while_another_process_finishes)
    lm = load_or_train(cfg, tmp_path)
    assert lm.path == final
    assert [p.name for p in final.parent.iterdir()] == [final.name]
    assert torch.equal(_logits(load_or_train(cfg, tmp_path)), _logits(lm))


def test_corrupt_entry_names_the_directory(cached, tmp_path):
    cfg = cached["configs"]["llama"]
    final = cache_path(cfg, tmp_path)
    shutil.copytree(cached["lms"]["llama"].path, final)
    (final / "model.safetensors").unlink()
    with pytest.raises(TinyLMCacheError, match=re.escape(str(final))):
        load_or_train(cfg, tmp_path)
    shutil.rmtree(final)
    shutil.copytree(cached["lms"]["llama"].path, final)
    (final / "meta.json").write_text("{}")
    with pytest.raises(TinyLMCacheError, match="meta.json"):
        load_or_train(cfg, tmp_path)


# ------------------------------------------------------------------------------------------ evaluation


def test_evaluate_loss_and_perplexity(cached):
    lm = cached["lms"]["llama"]
    text = corpus_splits(TINY)["test"]
    loss = evaluate_loss(lm.model, lm.tokenizer, text, seq_len=32, max_windows=8)
    assert math.isclose(perplexity(lm.model, lm.tokenizer, text, 32, 8), math.exp(loss))
    assert loss < math.log(len(lm.tokenizer))
    assert loss != evaluate_loss(lm.model, lm.tokenizer, text, seq_len=32, max_windows=None)
    short = evaluate_loss(lm.model, lm.tokenizer, "Return the value.", seq_len=64)
    assert math.isfinite(short)
    with pytest.raises(ValueError, match="text"):
        evaluate_loss(lm.model, lm.tokenizer, "", seq_len=32)
    with pytest.raises(ValueError, match="seq_len"):
        evaluate_loss(lm.model, lm.tokenizer, text, seq_len=1)


def test_evaluate_loss_matches_model_loss(cached):
    lm = cached["lms"]["gpt2"]
    ids = lm.tokenizer(corpus_splits(TINY)["val"], return_tensors="pt").input_ids[:, :32]
    text = lm.tokenizer.decode(ids[0])
    with torch.no_grad():
        expected = lm.model(input_ids=ids, labels=ids).loss.item()
    assert math.isclose(evaluate_loss(lm.model, lm.tokenizer, text, seq_len=32), expected, rel_tol=1e-5)


def test_unigram_loss():
    from iclr26.lab.corpora import train_tokenizer

    tok = train_tokenizer("aab", kind="char")
    p = torch.tensor([2 / 3, 1 / 3], dtype=torch.float64)
    assert math.isclose(unigram_loss(tok, "aab" * 10), float(-(p * p.log()).sum()), rel_tol=1e-9)
