"""Correctness tests of KLAS (arXiv 2605.29259): stitching, least squares, KL, FLOPs, selection, claim check."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.harness.claims import Outcome
from iclr26.inference.klas import (
    StitchedNet,
    candidate_flops,
    cka_similarity_matrix,
    count_flops,
    fit_stitch_ls,
    kl_similarity_matrix,
    linear_cka,
    make_anchor,
    pareto_auc,
    select_stitches,
    snnet_scores,
)
from iclr26.inference.klas.claim_check import FAMILIES, MAX_STITCHES, klas_decider


def _identity(d: int) -> nn.Linear:
    lin = nn.Linear(d, d)
    with torch.no_grad():
        lin.weight.copy_(torch.eye(d))
        lin.bias.zero_()
    return lin


@pytest.fixture(scope="module")
def x() -> torch.Tensor:
    return torch.rand(64, 64, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("family", ["mixer", "cnn"])
def test_self_stitch_identity_reproduces_model(family, x):
    m = make_anchor(family, 16, 3, seed=1).eval()
    for i in range(4):
        net = StitchedNet(m, m, i, i, _identity(16))
        torch.testing.assert_close(net(x), m(x), rtol=0, atol=1e-6)


def test_least_squares_recovers_linear_map():
    g = torch.Generator().manual_seed(0)
    ha = torch.randn(500, 7, dtype=torch.float64, generator=g)
    w = torch.randn(5, 7, dtype=torch.float64, generator=g)
    b = torch.randn(5, dtype=torch.float64, generator=g)
    s = fit_stitch_ls(ha, ha @ w.T + b, ridge=0.0)
    assert torch.allclose(s.weight, w, atol=1e-6) and torch.allclose(s.bias, b, atol=1e-6)


def test_kl_nonnegative_and_zero_on_self_diagonal(x):
    m = make_anchor("mixer", 8, 3, seed=2).double().eval()
    kl = kl_similarity_matrix(m, m, x.double()[:64], ridge=0.0)
    assert kl.shape == (3, 3) and np.all(kl >= 0)
    assert np.all(np.diag(kl) < 1e-6)
    head = kl_similarity_matrix(
        m, m, [(x.double()[:32], None), (x.double()[32:], None)], variant="head", ridge=0.0
    )
    assert np.all(head >= 0) and np.all(np.diag(head) < 1e-6)


def test_flops_monotone_and_match_stitched_net(x):
    a = make_anchor("mixer", 16, 4, seed=3).eval()
    b = make_anchor("mixer", 32, 4, seed=4).eval()
    ex = x[:1]
    f = candidate_flops(a, b, ex)
    assert np.all(np.diff(f, axis=0) >= 0)  # non-decreasing in i
    assert np.all(np.diff(f, axis=1) <= 0)  # non-increasing in j
    net = StitchedNet(a, b, 2, 3, nn.Linear(16, 32))
    assert net.flops(ex) == f[1, 2]
    fa, fb = count_flops(a, ex), count_flops(b, ex)
    s_flops = count_flops(nn.Linear(16, 32), a.embed(ex))
    for i in range(1, 5):
        assert fa <= f[i - 1, i - 1] - s_flops <= fb


def test_select_one_per_bin_covers_nonempty_bins():
    rng = np.random.default_rng(0)
    kl = rng.random((6, 6))
    fl = rng.uniform(0, 10, (6, 6))
    sel = select_stitches(kl, fl, 5, (2.0, 9.0))
    bins = [min(4, int((fl[rc] - 2.0) / 1.4)) for rc in sel]
    assert len(bins) == len(set(bins))
    inside = (fl >= 2) & (fl <= 9)
    nonempty = {min(4, int((v - 2.0) / 1.4)) for v in fl[inside]}
    assert set(bins) == nonempty
    for rc, b in zip(sel, bins):  # the minimum within its bin
        in_bin = inside & (np.minimum(4, ((fl - 2.0) / 1.4).astype(int)) == b)
        assert kl[rc] == kl[in_bin].min()


def test_baselines_and_auc():
    sn = snnet_scores(6, 6, window=1)
    assert np.all(np.isnan(sn[0, 3:])) and sn[2, 2] == 0
    g = np.random.default_rng(1).normal(size=(100, 5))
    assert (
        abs(linear_cka(g, g @ np.diag([1, 2, 3, 4, 5.0])) - linear_cka(g, g @ np.diag([1, 2, 3, 4, 5.0])))
        == 0
    )
    assert linear_cka(g, 3 * g) == pytest.approx(1.0)
    assert pareto_auc([0, 10], [0.5, 0.9], 0, 10) == pytest.approx(0.5)
    assert pareto_auc([0, 5, 10], [0.5, 0.8, 0.9], 0, 10) == pytest.approx(0.25 + 0.4)


def test_cka_matrix_self_diagonal_is_one(x):
    m = make_anchor("cnn", 8, 2, seed=5).eval()
    c = cka_similarity_matrix(m, m, x)
    assert np.allclose(np.diag(c), 1.0)


def _rows(
    gain_sn: float, gain_rand: float, rho_sign: float, n: int = 3, room: float = 5.0, sd: float = 0.001
) -> list[dict[str, float]]:
    rng = np.random.default_rng(0)
    rows = []
    for _s in range(n):
        r: dict[str, float] = {}
        for f in FAMILIES:
            r[f"auc_snnet_{f}"] = 0.9
            r[f"auc_klas_{f}"] = 0.9 + gain_sn + sd * rng.normal()
            r[f"auc_random_{f}"] = r[f"auc_klas_{f}"] - gain_rand
            r[f"anchor_acc_min_{f}"] = 0.8
            r[f"anchor_gain_over_centroid_{f}"] = 0.05
            r[f"anchor_tradeoff_z_{f}"] = 6.0
            r[f"stitch_room_z_{f}"] = room
            kl = rng.random(20)
            for k in range(MAX_STITCHES):
                r[f"prem_{f}_{k}_kl"] = kl[k] if k < 20 else float("nan")
                r[f"prem_{f}_{k}_res"] = rho_sign * kl[k] + 0.01 * rng.normal() if k < 20 else float("nan")
        rows.append(r)
    return rows


def test_decider_sabotage_and_support():
    d = klas_decider()
    assert d(_rows(0.05, 0.05, -1.0)).outcome is Outcome.SUPPORTED
    assert d(_rows(-0.05, -0.05, +1.0)).outcome is Outcome.NOT_SUPPORTED
    assert d(_rows(0.05, -0.05, -1.0)).outcome is Outcome.INCONCLUSIVE  # loses to random
    assert d(_rows(0.05, 0.05, float("nan"))).outcome is not Outcome.SUPPORTED  # no premise data
    # the interval of the SN-Net gain reaches 0 but also positive gains: no refutation (the old rule refuted)
    assert d(_rows(0.0, 0.05, +1.0, sd=0.01)).outcome is Outcome.INCONCLUSIVE


def test_decider_reads_only_declared_metrics():
    rows = _rows(0.05, 0.05, -1.0)
    declared = set(klas_decider().metrics)
    assert klas_decider()([{k: v for k, v in r.items() if k in declared} for r in rows]).outcome is (
        Outcome.SUPPORTED
    )


def test_preconditions_degenerate_family_is_not_reproduced():
    from iclr26.inference.klas.experiment import EXPERIMENT

    claim = EXPERIMENT.claims[0]
    assert claim.judge(_rows(0.05, 0.05, -1.0)).outcome is Outcome.SUPPORTED  # room to stitch: a real verdict
    assert claim.judge(_rows(-0.05, -0.05, +1.0)).outcome is Outcome.NOT_SUPPORTED
    # the Mixer family of the quick run: the anchors leave no room (z = 0.5-0.8 < 2) -> not reproduced
    rows = _rows(0.0, -0.001, +0.0)
    rows = [{**r, "stitch_room_z_mixer": 0.6} for r in rows]
    assert claim.judge(rows).outcome is Outcome.NOT_REPRODUCED
    untrained = [{**r, "anchor_acc_min_cnn": 0.12} for r in _rows(0.05, 0.05, -1.0)]
    assert claim.judge(untrained).outcome is Outcome.NOT_REPRODUCED
    # the earlier CNN anchors (8 constant-lr epochs): the best one below the nearest-centroid baseline
    under = [{**r, "anchor_gain_over_centroid_cnn": -0.03} for r in _rows(0.05, 0.05, -1.0)]
    assert claim.judge(under).outcome is Outcome.NOT_REPRODUCED
    # the earlier Mixer widths 16/32/64: no accuracy-FLOPs trade-off among the anchors
    flat = [{**r, "anchor_tradeoff_z_mixer": 0.6} for r in _rows(0.05, 0.05, -1.0)]
    assert claim.judge(flat).outcome is Outcome.NOT_REPRODUCED


def test_nearest_centroid_baseline_and_onecycle_schedule():
    from iclr26.inference.klas import digits_data, nearest_centroid_accuracy, train_anchor

    d = digits_data(seed=0)
    acc = nearest_centroid_accuracy(d)
    assert 0.5 < acc < 1.0  # a trivial but far-above-chance baseline on digits
    torch.manual_seed(0)
    m = train_anchor(
        make_anchor("mixer", 8, 2, seed=0), d.x_train[:256], d.y_train[:256], 2, 0, schedule="onecycle"
    )
    assert not m.training
    with pytest.raises(ValueError, match="schedule"):
        train_anchor(
            make_anchor("mixer", 8, 1, seed=0), d.x_train[:64], d.y_train[:64], 1, 0, schedule="cosine"
        )


def test_noisy_digits_are_seeded_independent_draws():
    from sklearn.datasets import load_digits

    from iclr26.inference.klas import noisy_digits_data

    a, b = noisy_digits_data(3, 200, 100), noisy_digits_data(3, 200, 100)
    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_test, b.y_test)
    assert a.x_train.shape == (200, 64) and a.x_test.shape == (100, 64)
    assert not torch.equal(a.x_train, noisy_digits_data(4, 200, 100).x_train)
    # no noise, no shift: every example is one of the bundled digits with its own label
    clean = noisy_digits_data(0, 50, 20, noise=0.0, shift=0)
    xs, ys = load_digits(return_X_y=True)
    pool = torch.tensor(xs / 16.0, dtype=torch.float32)
    for xi, yi in zip(clean.x_test, clean.y_test):
        hit = (pool == xi).all(1)
        assert hit.any() and int(yi) in set(ys[hit.numpy()].tolist())
    # a shift keeps the pixels of a digit, moved by at most one pixel (zero fill)
    shifted = noisy_digits_data(0, 50, 20, noise=0.0, shift=1)
    assert float(shifted.x_train.sum(1).min()) > 0 and float(shifted.x_train.max()) <= 1.0


def test_bad_inputs(x):
    a = make_anchor("mixer", 8, 3, seed=0)
    with pytest.raises(ValueError, match=r"^i \(at most anchor_a's depth\) must be an int >= 0 and <= 3"):
        StitchedNet(a, a, 4, 1, nn.Linear(8, 8))
    with pytest.raises(ValueError, match=r"^j \(at most anchor_b's depth\) must be an int >= 0 and <= 3"):
        StitchedNet(a, a, 1, -1, nn.Linear(8, 8))
    with pytest.raises(ValueError, match="head classes"):
        StitchedNet(a, make_anchor("mixer", 8, 3, seed=0, n_classes=5), 1, 1, nn.Linear(8, 8))
    with pytest.warns(UserWarning, match="underdetermined"):
        s = fit_stitch_ls(torch.randn(5, 8), torch.randn(5, 4), ridge=0.0)
    assert all(math.isfinite(v) for v in s.weight.flatten().tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_stitch_ls(torch.randn(50, 8), torch.randn(50, 4), ridge=0.0)
    with pytest.raises(ValueError, match="variant"):
        kl_similarity_matrix(a, a, x, variant="cos")
