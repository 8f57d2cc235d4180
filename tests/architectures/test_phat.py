"""Tests of PHAT (arXiv 2602.00654): buckets vs an independent periodogram, fold layouts, modulation index,
the fast attention vs its loop reference (outputs and gradients), bucket isolation, fusion weights."""

import math

import numpy as np
import pytest
import torch

from iclr26.architectures.phat import (
    PHAT,
    PNAttention,
    detect_periods,
    fold,
    naive_pna,
    periodic_distance,
    periodic_modulation_index,
    unfold,
)
from iclr26.architectures.phat.claim_check import relative_gain_decider
from iclr26.harness.claims import Outcome


def _periodogram_period(x: np.ndarray) -> int:
    """Slow DFT by definition (no FFT) of windows x (B, L), batch-averaged amplitude, DC excluded."""
    L = x.shape[1]
    t = np.arange(L)
    amps = [np.abs((x * np.exp(-2j * np.pi * f * t / L)).sum(1)).mean() for f in range(1, L // 2 + 1)]
    return round(L / (1 + int(np.argmax(amps))))


@pytest.mark.parametrize("P", [4, 8, 12, 24])
def test_pure_sinusoid_gets_its_period(P):
    L = 96
    t = torch.arange(L, dtype=torch.float64)
    x = torch.sin(2 * math.pi * t / P + 0.3)[None, :, None].repeat(2, 1, 3)
    periods, weights = detect_periods(x, 1, 48)
    assert periods.shape == (1, 3) and torch.all(periods == P)
    assert torch.all(weights == 1)


def test_buckets_match_independent_periodogram():
    g = torch.Generator().manual_seed(0)
    L, C = 96, 5
    t = torch.arange(L, dtype=torch.float64)
    cols = [torch.sin(2 * math.pi * t / p) for p in (12, 24, 48, 8, 32)]
    x = torch.stack(cols, -1)[None] + 0.3 * torch.randn(3, L, C, generator=g, dtype=torch.float64)
    periods, _ = detect_periods(x, 1, 200)
    for c in range(C):
        assert int(periods[0, c]) == _periodogram_period(x[:, :, c].numpy())
    assert periods[0].tolist() == [12, 24, 48, 8, 32]


def test_long_periods_map_to_horizon_and_weights_softmax():
    L = 64
    t = torch.arange(L, dtype=torch.float64)
    x = (torch.sin(2 * math.pi * t / L) + 0.5 * torch.sin(2 * math.pi * t / 8))[None, :, None]
    periods, w = detect_periods(x, 2, 16)
    assert periods[:, 0].tolist() == [16, 8]
    assert torch.allclose(w.sum(1), torch.ones(1, 1, dtype=w.dtype))


@pytest.mark.parametrize("layout", ["paper", "code"])
@pytest.mark.parametrize(("F", "P"), [(12, 4), (10, 4), (7, 7), (5, 8)])
def test_fold_unfold_identity(layout, F, P):
    z = torch.randn(2, F, 3)
    Z = fold(z, P, layout)
    assert Z.shape == (2, P, math.ceil(F / P), 3)
    assert torch.equal(unfold(Z, F, layout), z)


def test_paper_layout_is_phase_aligned():
    z = torch.arange(10.0).view(1, 10, 1)
    Z = fold(z, 4, "paper")
    for o in range(4):
        for n in range(3):
            want = n * 4 + o
            assert Z[0, o, n, 0] == (want if want < 10 else 0)


@pytest.mark.parametrize("P", [1, 2, 5, 8])
def test_periodic_distance(P):
    d = periodic_distance(P)
    assert torch.equal(d, d.T) and torch.all(d.diagonal() == 0) and int(d.max()) == P // 2


def test_modulation_monotone_for_equal_logits():
    P = 8
    idx = periodic_modulation_index(P, cyclic=True)
    dist = periodic_distance(P)
    sp = math.log(2.0)  # softplus(0)
    for e, sign in ((0, -1), (1, 1)):
        logit = -(idx[..., e].sum(1)) * sp  # all logits 0: l~[i, j] = -sum_s softplus(0) I[i, s, j]
        w = torch.softmax(logit, -1)
        for i in range(P):
            order = torch.argsort(dist[i], stable=True)
            ws, ds = w[i, order], dist[i, order]
            for a in range(P - 1):
                if ds[a + 1] > ds[a]:
                    assert sign * (ws[a + 1] - ws[a]) >= -1e-7


def test_non_cyclic_uses_positive_set_twice():
    idx = periodic_modulation_index(5, cyclic=False)
    assert torch.equal(idx[..., 0], idx[..., 1])


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 6, 1), (1, 4, 2)])
@pytest.mark.parametrize(
    "flags", [{}, {"negative": False, "aligned": False}, {"modulation": False, "head_norm": False}]
)
def test_fast_attention_matches_loop_reference(shape, flags):
    torch.manual_seed(0)
    attn = PNAttention(16, 4, **flags).double()
    z1 = torch.randn(*shape, 16, dtype=torch.float64, requires_grad=True)
    z2 = z1.detach().clone().requires_grad_(True)
    out1, out2 = attn(z1), naive_pna(attn, z2)
    assert torch.allclose(out1, out2, atol=1e-10)
    g = torch.randn_like(out1)
    grads1 = torch.autograd.grad(out1, [z1, *attn.parameters()], g)
    grads2 = torch.autograd.grad(out2, [z2, *attn.parameters()], g)
    for a, b in zip(grads1, grads2):
        assert torch.allclose(a, b, atol=1e-10)


def test_plain_softmax_limit():
    torch.manual_seed(1)
    attn = PNAttention(
        8, 2, modulation=False, negative=False, aligned=False, lambda_residual=False, head_norm=False
    )
    z = torch.randn(2, 6, 3, 8)
    q, k, v, _ = attn.projections(z)
    out = torch.zeros(2, 6, 3, 1, 8)
    for n in range(3):
        s = torch.einsum("bid,bjd->bij", q[:, :, n, 0, :, 0], k[:, :, n, 0, :, 0])
        out[:, :, n, 0] = torch.softmax(s, -1) @ v[:, :, n, 0]
    assert torch.allclose(attn(z), attn.out(out.flatten(-2)), atol=1e-6)


def test_constant_lambda_rows_sum():
    c = 0.3
    attn = PNAttention(8, 4)
    with torch.no_grad():
        attn.gate.weight.zero_()
        attn.gate.bias.fill_(math.log(c / (1 - c)))
    q, k, _, lam = attn.projections(torch.randn(2, 5, 3, 8))
    A = attn.offset_weights(q, k, lam)
    assert torch.allclose(A.sum(2), torch.full_like(A.sum(2), 1 - c), atol=1e-6)


def _two_bucket_input():
    t = torch.arange(48, dtype=torch.float32)
    cols = [torch.sin(2 * math.pi * t / p) for p in (8, 8, 12, 12)]
    return torch.stack(cols, -1)[None].repeat(3, 1, 1) + 0.05 * torch.randn(3, 48, 4)


def test_buckets_are_isolated_and_fusion_weight_one():
    torch.manual_seed(0)
    model = PHAT(48, 16, 4, d_model=8, n_heads=2, top_k=1, dropout=0.0)
    x = _two_bucket_input().requires_grad_(True)
    buckets = model.buckets(model.revin.normalize(x)[0])
    assert sorted((p, i.tolist()) for _, p, i, _ in buckets) == [(8, [0, 1]), (12, [2, 3])]
    assert all(torch.all(w == 1) for *_, w in buckets)
    model(x)[..., :2].sum().backward()
    assert torch.all(x.grad[..., 2:] == 0) and x.grad[..., :2].abs().sum() > 0


@pytest.mark.parametrize("mode", ["period", "shared", "independent"])
def test_shape_and_gradient_reaches_every_parameter(mode):
    torch.manual_seed(0)
    model = PHAT(48, 20, 4, d_model=8, n_heads=2, top_k=1, bucket_mode=mode)
    out = model(_two_bucket_input())
    assert out.shape == (3, 20, 4)
    out.pow(2).mean().backward()
    missing = [n for n, p in model.named_parameters() if p.grad is None or not torch.isfinite(p.grad).all()]
    assert not missing
    assert all(
        p.grad.abs().sum() > 0 for n, p in model.named_parameters() if "blocks" in n and "bias" not in n
    )


def test_claim_rule_three_ways():
    rule = relative_gain_decider("m", ("b1", "b2"))

    def rows(ratios):
        return [{"m": r, "b1": 1.0, "b2": 1.2} for r in ratios]

    assert rule(rows([0.8, 0.82, 0.79])).outcome is Outcome.SUPPORTED
    assert rule(rows([1.0, 1.02, 1.01])).outcome is Outcome.NOT_SUPPORTED
    assert rule(rows([0.99, 1.0, 0.985])).outcome is Outcome.NOT_SUPPORTED  # no meaningful gain
    assert rule(rows([0.97, 0.975, 0.98])).outcome is Outcome.INCONCLUSIVE  # small but real gain
    assert rule(rows([0.7, 1.2, 0.8])).outcome is Outcome.INCONCLUSIVE
