"""The generic training loop: seeded, evaluates on schedule, stops on divergence; SwiGLU FFN plugs in."""

import math

import pytest
import torch
from torch import nn

from iclr26.lab.tasks import mqar
from iclr26.lab.training import sequence_loss, train_cached, train_loop
from iclr26.lab.transformer import Transformer, swiglu_mlp


def mqar_loss(model, gen):
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen))
    x, y = mqar(8, 16, 2, 16, seed=seed)
    return sequence_loss(model(x), y)


def make():
    return Transformer(
        vocab_size=16, seq_len=16, d_model=16, n_layers=1, n_heads=2, ffn=swiglu_mlp, init_seed=0
    )


def test_loop_is_deterministic_and_evaluates_on_schedule():
    def ev(m):
        x, y = mqar(16, 16, 2, 16, seed=999)
        return {"loss": float(sequence_loss(m(x), y))}

    a = train_loop(make(), mqar_loss, steps=10, lr=3e-3, seed=1, eval_fn=ev, eval_every=4)
    b = train_loop(make(), mqar_loss, steps=10, lr=3e-3, seed=1, eval_fn=ev, eval_every=4)
    assert a.losses == b.losses and a.evals == b.evals
    assert a.eval_steps == [0, 4, 8, 10] and len(a.losses) == 10


def test_divergence_stops_the_run():
    model = nn.Linear(2, 1)

    def loss_fn(m, gen):
        return m(torch.randn(4, 2, generator=gen)).sum() * float("nan")

    res = train_loop(model, loss_fn, steps=5, lr=0.1, seed=0)
    assert res.diverged and res.losses == []


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="steps"):
        train_loop(nn.Linear(1, 1), lambda m, g: m.weight.sum(), steps=0, lr=0.1, seed=0)
    with pytest.raises(ValueError, match="lr"):
        train_loop(nn.Linear(1, 1), lambda m, g: m.weight.sum(), steps=1, lr=-1.0, seed=0)
    assert math.isfinite(sequence_loss(torch.zeros(1, 2, 3), torch.tensor([[0, -100]])).item())
    for name, kwargs in [
        ("lr", {"lr": float("inf")}),
        ("lr", {"lr": float("nan")}),
        ("weight_decay", {"lr": 0.1, "weight_decay": -1.0}),
        ("warmup_frac", {"lr": 0.1, "warmup_frac": 1.5}),
        ("grad_clip", {"lr": 0.1, "grad_clip": 0.0}),
        ("eval_every", {"lr": 0.1, "eval_every": 0}),
    ]:
        with pytest.raises(ValueError, match=name):
            train_loop(nn.Linear(1, 1), lambda m, g: m.weight.sum(), steps=1, seed=0, **kwargs)


def test_train_cached_equals_train_loop_and_loads_without_retraining(tmp_path, monkeypatch):
    from dataclasses import dataclass

    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path))

    @dataclass(frozen=True)
    class Cfg:
        width: int = 4

    def build(cfg, seed):
        return _seeded_linear(cfg.width, seed)

    calls = []

    def loss_fn(m, gen):
        calls.append(1)
        x = torch.randn(8, 4, generator=gen)
        return ((m(x) - x.sum(1, keepdim=True)) ** 2).mean()

    ref = build(Cfg(), 3)
    train_loop(ref, loss_fn, steps=5, lr=0.1, seed=3, description="ref")
    calls.clear()
    first = train_cached("test_train_cached", Cfg(), 3, build, loss_fn, steps=5, lr=0.1)
    assert len(calls) == 5 and not first.training
    for a, b in zip(first.state_dict().values(), ref.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    calls.clear()
    again = train_cached("test_train_cached", Cfg(), 3, build, loss_fn, steps=5, lr=0.1)
    assert calls == []  # loaded from the cache, not retrained
    for a, b in zip(again.state_dict().values(), ref.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="seed"):
        train_cached("test_train_cached", Cfg(), -1, build, loss_fn, steps=5, lr=0.1)


def _seeded_linear(width: int, seed: int) -> nn.Linear:
    torch.manual_seed(seed)
    return nn.Linear(width, 1)
