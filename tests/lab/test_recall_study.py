"""lab.recall_study: the recall-training template of the mixer papers (HDLA, SWAX, BAM; LLA's Study B)."""

import pytest
import torch
from torch import nn

from iclr26.lab.recall_study import (
    answer_accuracy,
    eval_curve,
    loss_curve,
    matched_width,
    n_params,
    predict_tokens,
    seeded_batches,
    train_on_task,
)
from iclr26.lab.tasks import IGNORE_INDEX, mqar
from iclr26.lab.training import sequence_loss, train_loop
from iclr26.lab.transformer import Transformer


def _model(seed: int = 0) -> Transformer:
    return Transformer(32, 16, 16, 1, 2, init_seed=seed)


def test_seeded_batches_draw_the_seed_from_the_generator():
    seen = []
    sample = seeded_batches(lambda s: seen.append(s) or s, low=100, high=110)
    gen = torch.Generator().manual_seed(3)
    draws = [sample(gen) for _ in range(50)]
    assert draws == seen and all(100 <= s < 110 for s in draws)
    gen2 = torch.Generator().manual_seed(3)
    assert [sample(gen2) for _ in range(50)] == draws


def test_train_on_task_is_train_loop_on_the_sequence_loss():
    """Bit for bit the hand-written loss_fn the papers had: same losses, same evaluations, same weights."""
    make = lambda s: mqar(4, 16, 2, 32, seed=s)  # noqa: E731
    a, b = _model(), _model()
    val = mqar(8, 16, 2, 32, seed=5)
    res_a = train_on_task(
        a,
        seeded_batches(make, low=10**6),
        steps=6,
        lr=3e-3,
        seed=1,
        eval_fn=lambda m: {"acc": answer_accuracy(m, *val)},
        eval_every=2,
        weight_decay=0.1,
    )

    def loss_fn(m, gen):
        tokens, targets = make(int(torch.randint(10**6, 2**31 - 1, (1,), generator=gen)))
        return sequence_loss(m(tokens), targets)

    res_b = train_loop(
        b,
        loss_fn,
        steps=6,
        lr=3e-3,
        seed=1,
        eval_fn=lambda m: {"acc": answer_accuracy(m, *val)},
        eval_every=2,
        weight_decay=0.1,
    )
    assert res_a.losses == res_b.losses and res_a.evals == res_b.evals and res_a.eval_steps == [0, 2, 4, 6]
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert loss_curve(res_a).x == [1, 2, 3, 4, 5, 6] and loss_curve(res_a).y == res_a.losses
    curve = eval_curve(res_a, "acc", "validation accuracy")
    assert curve.x == [0, 2, 4, 6] and curve.ylabel == "validation accuracy"
    assert eval_curve(res_a, "acc").ylabel == "acc"


def test_answer_accuracy_counts_only_scored_positions():
    model = _model()
    tokens, targets = mqar(6, 16, 2, 32, seed=2)
    pred = predict_tokens(model, tokens, chunk=4)
    assert pred.shape == tokens.shape and pred.device.type == "cpu"
    mask = targets != IGNORE_INDEX
    want = float((pred[mask] == targets[mask]).double().mean())
    assert answer_accuracy(model, tokens, targets, chunk=5) == pytest.approx(want, abs=0)
    perfect = torch.where(mask, pred, torch.full_like(targets, IGNORE_INDEX))
    assert answer_accuracy(model, tokens, perfect) == 1.0
    assert answer_accuracy(model, tokens, torch.full_like(targets, IGNORE_INDEX)) == 0.0


def test_predict_tokens_restores_the_mode_and_matches_one_batch():
    model = _model()
    tokens, _ = mqar(7, 16, 2, 32, seed=4)
    model.train()
    chunked = predict_tokens(model, tokens, chunk=3)
    assert model.training
    model.eval()
    with torch.no_grad():
        assert torch.equal(chunked, model(tokens).argmax(-1))


def test_matched_width_reaches_the_target_within_tolerance():
    def build(w: int) -> nn.Module:
        return nn.Sequential(nn.Linear(8, w), nn.Linear(w, 8))

    target = n_params(build(20))
    assert matched_width(build, target, start=7) == (20, target)
    with pytest.raises(ValueError, match="within 0%"):
        matched_width(build, target + 10, start=7, tolerance=0.0)
    with pytest.raises(ValueError, match="do not grow"):
        matched_width(lambda w: nn.Linear(3, 3), 100, start=4)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: seeded_batches(3), TypeError, ["make", "callable"]),
        (lambda: seeded_batches(int, low=5, high=5), ValueError, ["high", ">= 6"]),
        (lambda: seeded_batches(int, low=-1), ValueError, ["low", ">= 0"]),
        (lambda: train_on_task(_model(), None, steps=1, lr=1e-3, seed=0), TypeError, ["sample", "callable"]),
        (lambda: predict_tokens(_model(), torch.zeros(2, 3), chunk=1), TypeError, ["tokens", "integer"]),
        (lambda: predict_tokens(_model(), torch.zeros(2, 3).long(), chunk=0), ValueError, ["chunk", ">= 1"]),
        (
            lambda: answer_accuracy(_model(), torch.zeros(2, 3).long(), torch.zeros(2, 4).long()),
            ValueError,
            ["targets", "shape"],
        ),
        (lambda: matched_width(lambda w: nn.Linear(2, w), 0, 1), ValueError, ["target", ">= 1"]),
        (
            lambda: matched_width(lambda w: nn.Linear(2, w), 10, 1, tolerance=float("nan")),
            ValueError,
            ["tolerance"],
        ),
    ],
)
def test_bad_input_is_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert all(w in str(info.value) for w in words)
