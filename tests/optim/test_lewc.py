"""Oracle tests of LEWC (arXiv 2510.08023): merging, calibration, barriers, LEWC fit, weight matching, claims."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.harness.claims import Outcome
from iclr26.optim.lewc import (
    barrier,
    calibrate_temperature,
    lewc_fit,
    linear_path_expansion,
    lmc_curve,
    make_mlp,
    merge_linear,
    permute_hidden_units,
    weight_matching,
    weight_matching_permute,
)
from iclr26.optim.lewc.experiment import EXPERIMENT
from iclr26.optim.lewc.tasks import gmm_task


def _mlp(width: int = 32, seed: int = 0, bn: bool = False) -> nn.Sequential:
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for a, b in ((6, width), (width, width)):
        layers += [nn.Linear(a, b)] + ([nn.BatchNorm1d(b)] if bn else []) + [nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(width, 4))


def _randomise_bn(net: nn.Module, seed: int) -> nn.Module:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen))
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.weight.copy_(torch.randn(m.num_features, generator=gen))
    return net.eval()


def test_merge_endpoints_are_exact_copies():
    a, b = _mlp(seed=0, bn=True), _mlp(seed=1, bn=True)
    for lam, ref in ((0.0, a), (1.0, b)):
        merged = merge_linear(a, b, lam)
        for name, t in merged.state_dict().items():
            assert torch.equal(t, ref.state_dict()[name]), name


def test_merge_interpolates_every_parameter():
    a, b = _mlp(seed=0), _mlp(seed=1)
    merged = merge_linear(a, b, 0.3)
    for (name, t), ta, tb in zip(
        merged.state_dict().items(), a.state_dict().values(), b.state_dict().values()
    ):
        torch.testing.assert_close(t, 0.7 * ta + 0.3 * tb, rtol=0, atol=1e-6, msg=name)


def test_barrier_of_a_model_with_itself_is_exactly_zero():
    net = make_mlp(6, 4, 2, seed=3)
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(200, 6, generator=gen), torch.randint(0, 4, (200,), generator=gen)
    for calibrate in (True, False):
        out = lmc_curve(net, net, {"test": (x, y), "cal": (x, y)}, calibrate=calibrate)
        assert out["barrier_loss"] == 0.0 and out["barrier_loss_raw"] == 0.0 and out["barrier_acc"] == 0.0
        assert len(set(out["loss"])) == 1


def test_barrier_against_hand_computed_values():
    assert barrier([1.0, 2.5, 3.0], [0.0, 0.5, 1.0]) == pytest.approx(0.5)
    assert barrier([0.9, 0.5, 0.7], [0.0, 0.5, 1.0], higher_is_better=True) == pytest.approx(0.3)


def test_calibration_recovers_planted_temperature():
    gen = torch.Generator().manual_seed(1)
    z = 2.0 * torch.randn(20_000, 10, generator=gen, dtype=torch.float64)
    y = torch.multinomial(torch.softmax(z, 1), 1, generator=gen).squeeze(1)  # labels ~ softmax(z)
    for t0 in (0.25, 1.0, 3.0):
        t_hat = calibrate_temperature(z / t0, y)  # logits z / T0 need T = 1 / T0 to recover softmax(z)
        assert abs(t_hat * t0 - 1.0) < 0.05, (t0, t_hat)


@pytest.mark.parametrize("depth", [1, 3, 4])
def test_deep_linear_expansion_is_exact(depth):
    gen = torch.Generator().manual_seed(depth)
    mats_a = [torch.randn(5, 5, generator=gen, dtype=torch.float64) for _ in range(depth)]
    mats_b = [torch.randn(5, 5, generator=gen, dtype=torch.float64) for _ in range(depth)]
    lam = 0.35
    product = torch.eye(5, dtype=torch.float64)
    for a, b in zip(mats_a, mats_b):
        product = ((1 - lam) * a + lam * b) @ product
    a_path, b_path, cross = linear_path_expansion(mats_a, mats_b, lam)
    torch.testing.assert_close(a_path + b_path + cross, product, rtol=1e-12, atol=1e-12)
    ref_a = torch.linalg.multi_dot(mats_a[::-1]) if depth > 1 else mats_a[0]
    torch.testing.assert_close(a_path, (1 - lam) ** depth * ref_a)
    if depth == 1:
        assert float(cross.abs().max()) == 0.0


def test_lewc_fit_first_layer_is_exact_and_matches_prediction():
    a, b = _mlp(seed=0), _mlp(seed=1)
    fits = lewc_fit(a, b, 0.3, torch.randn(64, 6))
    assert [f.layer for f in fits] == [1, 2, 3]
    first = fits[0]  # h^(1) is affine in the weights: exactly (1 - lambda) h_A + lambda h_B
    assert first.c_a == pytest.approx(0.7, abs=1e-6) and first.c_b == pytest.approx(
        0.3, abs=1e-6
    )  # float32 net
    assert first.r2 == pytest.approx(1.0, abs=1e-9)
    assert fits[2].pred_a == pytest.approx(0.7**3) and fits[2].pred_b == pytest.approx(0.3**3)


def test_lewc_fit_on_deep_linear_net_with_orthogonal_paths():
    """Block-diagonal A and B acting on disjoint coordinates: cross terms vanish, LEWC holds exactly."""

    def net(block: int) -> nn.Sequential:
        layers = [nn.Linear(4, 4, bias=False) for _ in range(3)]
        with torch.no_grad():
            for lin in layers:
                w = torch.zeros(4, 4)
                w[2 * block : 2 * block + 2, 2 * block : 2 * block + 2] = torch.randn(2, 2)
                lin.weight.copy_(w)
        return nn.Sequential(*layers)

    torch.manual_seed(0)
    fits = lewc_fit(net(0), net(1), 0.4, torch.randn(32, 4))
    for f in fits:
        assert f.c_a == pytest.approx(f.pred_a, abs=1e-6) and f.c_b == pytest.approx(f.pred_b, abs=1e-6)
        assert f.r2 == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("bn", [False, True])
def test_permuted_model_computes_the_same_function(bn):
    net = _randomise_bn(_mlp(width=48, seed=2, bn=bn), 5)
    gen = torch.Generator().manual_seed(0)
    perms = [torch.randperm(48, generator=gen).numpy() for _ in range(2)]
    x = torch.randn(128, 6, generator=gen)
    torch.testing.assert_close(permute_hidden_units(net, perms)(x), net(x), rtol=0, atol=1e-6)
    other = _randomise_bn(_mlp(width=48, seed=3, bn=bn), 6)
    torch.testing.assert_close(weight_matching_permute(other, net)(x), net(x), rtol=0, atol=1e-6)


def test_weight_matching_recovers_a_planted_permutation():
    net = _mlp(width=40, seed=4)
    gen = torch.Generator().manual_seed(1)
    perms = [torch.randperm(40, generator=gen).numpy() for _ in range(2)]
    found = weight_matching(net, permute_hidden_units(net, perms))
    for p, q in zip(perms, found):
        np.testing.assert_array_equal(p[q], np.arange(40))


def test_weight_matching_reduces_the_weight_distance():
    a, b = _mlp(width=64, seed=0), _mlp(width=64, seed=1)
    pb = weight_matching_permute(a, b)

    def dist(m):
        return sum(float(((p - q) ** 2).sum().detach()) for p, q in zip(a.parameters(), m.parameters()))

    assert dist(pb) < dist(b)


def test_batchnorm_reset_recomputes_statistics():
    a, b = _mlp(seed=0, bn=True), _mlp(seed=1, bn=True)
    x = torch.randn(256, 6)
    merged = merge_linear(a, b, 0.5, reset_bn_loader=[x[:128], x[128:]])
    with torch.no_grad():
        pre = merged[0](x)  # the first Linear's output feeds the first BatchNorm
    torch.testing.assert_close(merged[1].running_mean, pre.mean(0), rtol=1e-5, atol=1e-5)
    assert not merged.training


def test_gmm_task_is_seeded_and_not_separable():
    s1, s2 = gmm_task(3, sizes=(200, 50, 50)), gmm_task(3, sizes=(200, 50, 50))
    assert torch.equal(s1.x_train, s2.x_train) and s1.n_classes == 20 and s1.dim == 50


def _rows(b_wmax: float, b_wmin: float, r2_max: float = 0.97, gap: float = 0.0, n: int = 3) -> list[dict]:
    rows = []
    for i in range(n):
        eps = 0.002 * (i - 1)
        row = {
            "gmm_wmax_barrier_cal": b_wmax + eps,
            "gmm_wmin_barrier_cal": b_wmin + eps,
            "gmm_wmax_r2_out": r2_max + eps,
            "gmm_wmin_r2_out": 0.5 + eps,
            "gmm_wmax_acc_ensemble": 0.8 + gap,
            "gmm_wmax_acc_merged": 0.8 + eps,
            "gmm_wmin_acc_endpoints": 0.6,
            "gmm_wmax_acc_endpoints": 0.8,
            "gmm_wmax_barrier_raw": 2 * (b_wmax + eps) + 0.1 + eps,
            "gmm_wmax_barrier_cal_x2": 2 * (b_wmax + eps),
        }
        rows.append(row)
    return rows


def test_claim_can_pass_and_fail():
    claim = next(c for c in EXPERIMENT.claims if c.id == "lewc-lmc-gmm")
    assert claim.judge(_rows(0.01, 0.5)).outcome is Outcome.SUPPORTED
    # sabotage: the widest models' barrier equals the narrowest's (width does not help) -> refuted
    assert claim.judge(_rows(0.5, 0.5)).outcome is Outcome.NOT_SUPPORTED
    # the barrier falls but the LEWC fit is poor -> not supported either way: inconclusive
    assert claim.judge(_rows(0.01, 0.5, r2_max=0.6)).outcome is Outcome.INCONCLUSIVE
    # untrained models (endpoint accuracy at chance 1/20): not reproduced, whatever the rule says
    untrained = [r | {"gmm_wmin_acc_endpoints": 0.05} for r in _rows(0.01, 0.5)]
    assert claim.judge(untrained).outcome is Outcome.NOT_REPRODUCED
    untrained_wide = [r | {"gmm_wmax_acc_endpoints": 0.1} for r in _rows(0.5, 0.5)]
    assert claim.judge(untrained_wide).outcome is Outcome.NOT_REPRODUCED


def test_barrier_interval_containing_zero_refutes_only_when_the_claimed_decrease_is_excluded():
    claim = next(c for c in EXPERIMENT.claims if c.id == "lewc-lmc-gmm")
    noisy = _rows(0.3, 0.5)
    for r, d in zip(noisy, (-0.05, 0.0, 0.05)):  # B(wmax) - B(wmin): the interval contains 0
        r["gmm_wmax_barrier_cal"] = r["gmm_wmin_barrier_cal"] + d
    # B(wmax) - 0.2 B(wmin) ~ 0.35, 0.4, 0.45 (interval above 0): the 5x decrease is excluded -> refuted
    assert claim.judge(noisy).outcome is Outcome.NOT_SUPPORTED
    for r, d in zip(noisy, (-0.45, -0.1, 0.05)):  # contains 0, and B(wmax) - 0.2 B(wmin) = 0.0, 0.3, 0.45
        r["gmm_wmax_barrier_cal"] = r["gmm_wmin_barrier_cal"] + d
    assert claim.judge(noisy).outcome is Outcome.INCONCLUSIVE  # was not supported before rule (b)


def test_calibration_claim_can_fail():
    claim = next(c for c in EXPERIMENT.claims if c.id == "lewc-calibration-matters")
    assert claim.judge(_rows(0.01, 0.5)).outcome is Outcome.SUPPORTED
    rows = [r | {"gmm_wmax_barrier_raw": 0.01 * i} for i, r in enumerate(_rows(0.2, 0.5))]
    assert claim.judge(rows).outcome is Outcome.NOT_SUPPORTED
    assert EXPERIMENT.devices == ("cpu", "cuda")


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: merge_linear(_mlp(width=8), _mlp(width=16), 0.5), ["shape mismatch"]),
        (lambda: merge_linear(_mlp(), _mlp(), 1.5), ["lambda", "[0, 1]"]),
        (lambda: calibrate_temperature(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long)), ["empty"]),
        (lambda: lewc_fit(_mlp(), _mlp(bn=True), 0.5, torch.randn(4, 6)), ["mismatch"]),
    ],
)
def test_bad_input(call, words):
    with pytest.raises(ValueError) as info:
        call()
    assert all(w in str(info.value) for w in words)
