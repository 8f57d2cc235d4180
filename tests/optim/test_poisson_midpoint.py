"""Oracle tests of PLMC (arXiv 2506.07614): the brief's correctness properties, the claim check, bad input."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
import torch

from iclr26.harness import Outcome
from iclr26.optim.poisson_midpoint import (
    BayesLogReg,
    GaussianTarget,
    OverdampedScheme,
    SeparableLogCosh,
    TargetLaw1D,
    UnderdampedScheme,
    gelbrich_w2,
    lmc,
    noise_floor,
    plmc,
    rlmc,
    rlmc_underdamped,
    sliced_w2,
    ulmc,
    underdamped_matrices,
    w2_empirical_1d,
    w2_exact_1d,
)
from iclr26.optim.poisson_midpoint.backend import make_backend
from iclr26.optim.poisson_midpoint.baselines import exponential_step
from iclr26.optim.poisson_midpoint.claim_check import matched_pair, plmc_claim_decider, usable_slope
from iclr26.optim.poisson_midpoint.driver import Drift
from iclr26.optim.poisson_midpoint.plmc import EventNoise, EventRound, plmc_jump_step, plmc_loop_step
from iclr26.optim.poisson_midpoint.schemes import _x_variance_factor
from iclr26.optim.poisson_midpoint.strong_error import coupled_strong_errors

LOGCOSH = SeparableLogCosh(2, 2.0)
SCHEMES = [OverdampedScheme(), UnderdampedScheme(gamma=2.0, u=1.0)]


def _drift(scheme, X, backend="numpy"):
    rng = torch.Generator() if backend == "torch" else np.random.default_rng(0)
    return Drift(LOGCOSH.grad, scheme.drift, make_backend(X, rng), X.shape[0])


def _state(scheme, rng, n, d=2):
    x = rng.standard_normal((n, d))
    return scheme.init_state(x, rng.standard_normal((n, d))) if scheme.name == "underdamped" else x


def _fine_noise(scheme, rng, K, n, d, delta):
    return np.stack([scheme.noise(rng.standard_normal(scheme.noise_shape(n, d)), delta) for _ in range(K)])


def _events_from_loop_noise(scheme, noise, H, h):
    """The event-jump randomness equal to the loop's: noise accumulated between events by the exact flow."""
    K, n = H.shape
    delta = h / K
    by_rank = defaultdict(list)
    final = np.zeros_like(noise[0])
    for c in range(n):
        acc, rank = np.zeros_like(noise[0, c]), 0
        for i in range(K):
            if H[i, c]:
                by_rank[rank].append((c, i * delta, acc))
                acc, rank = np.zeros_like(acc), rank + 1
            acc = scheme.propagate(acc[None], delta)[0] + noise[i, c]  # acc <- A acc + Gamma Z_i
        final[c] = acc
    rounds = [
        EventRound(
            np.array([e[0] for e in by_rank[r]]),
            np.array([e[1] for e in by_rank[r]]),
            np.stack([e[2] for e in by_rank[r]]),
        )
        for r in sorted(by_rank)
    ]
    return EventNoise(rounds, final)


def _to_torch(events):
    return EventNoise(
        [
            EventRound(torch.as_tensor(r.chains), torch.as_tensor(r.times), torch.as_tensor(r.noise))
            for r in events.rounds
        ],
        torch.as_tensor(events.final_noise),
    )


# ---------------------------------------------------------------- the brief's oracles


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.name)
def test_k1_equals_lmc_for_a_non_gaussian_f(scheme):
    rng = np.random.default_rng(0)
    X = _state(scheme, rng, 64)
    noise = _fine_noise(scheme, rng, 1, 64, 2, 0.3)
    H = np.ones((1, 64), bool)  # K = 1: H_0 = 1 always and Xr_0 = X, so the correction vanishes
    ref = exponential_step(_drift(scheme, X), scheme, X, 0.3, noise[0])
    loop = plmc_loop_step(_drift(scheme, X), scheme, X, 0.3, 1, noise, H)
    jump = plmc_jump_step(
        _drift(scheme, X), scheme, X, 0.3, 1, _events_from_loop_noise(scheme, noise, H, 0.3)
    )
    np.testing.assert_allclose(loop, ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(jump, ref, rtol=0, atol=1e-14)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.name)
def test_loop_and_event_jump_agree_under_shared_randomness(scheme, backend):
    rng = np.random.default_rng(1)
    n, K, h = 300, 8, 0.25
    X_loop = X_jump = _state(scheme, rng, n)
    calls = {"loop": 0, "jump": 0}
    for _ in range(3):
        noise = _fine_noise(scheme, rng, K, n, 2, h / K)
        H = rng.random((K, n)) < 0.3  # many chains with several events; the identity holds for any H
        events = _events_from_loop_noise(scheme, noise, H, h)
        if backend == "torch":
            X_loop, X_jump = torch.as_tensor(X_loop), torch.as_tensor(X_jump)
            noise, H, events = torch.as_tensor(noise), torch.as_tensor(H), _to_torch(events)
        d_loop, d_jump = _drift(scheme, X_loop, backend), _drift(scheme, X_jump, backend)
        X_loop = plmc_loop_step(d_loop, scheme, X_loop, h, K, noise, H)
        X_jump = plmc_jump_step(d_jump, scheme, X_jump, h, K, events)
        calls["loop"] += int(d_loop.calls.sum())
        calls["jump"] += int(d_jump.calls.sum())
        X_loop, X_jump = np.asarray(X_loop), np.asarray(X_jump)
    assert np.max(np.abs(X_loop - X_jump)) < 1e-12
    assert calls["loop"] == calls["jump"]


@pytest.mark.parametrize("K", [1, 4, None])
def test_event_jump_draws_events_with_the_loops_law(K):
    n = 40_000
    _, calls = plmc(np.zeros_like, np.zeros((n, 1)), 0.3, 1, np.random.default_rng(15), K=K)
    events = calls - 1  # Binomial(K, 1/K), or Poisson(1) for K=None
    p0 = math.exp(-1.0) if K is None else (1 - 1 / K) ** K
    assert abs(np.mean(events == 0) - p0) <= 4 * math.sqrt(p0 * (1 - p0) / n)
    var = 1.0 if K is None else 1 - 1 / K
    assert abs(events.var() - var) < 0.05


@pytest.mark.parametrize("overdamped", [True, False])
def test_loop_and_event_jump_agree_in_distribution(overdamped):
    n, target = 40_000, GaussianTarget([[0.5]])
    out = [
        plmc(
            target.grad,
            np.zeros((n, 1)),
            0.3,
            6,
            np.random.default_rng(seed),
            K=4,
            form=form,
            overdamped=overdamped,
        )[0]
        for seed, form in ((16, "loop"), (17, "jump"))
    ]
    var = [x.var(ddof=1) for x in out]
    se = math.hypot(*var) * math.sqrt(2 / (n - 1))
    assert abs(var[0] - var[1]) < 4 * se
    assert abs(out[0].mean() - out[1].mean()) < 4 * math.sqrt(sum(var) / n)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(K=8),
        dict(K=8, form="loop"),
        dict(K=None),
        dict(K=8, overdamped=False),
        dict(K=None, overdamped=False),
    ],
)
def test_mean_gradient_calls_per_coarse_step_is_two(kwargs):
    n, n_steps = 20_000, 4
    _, calls = plmc(lambda x: x, np.zeros((n, 1)), 0.1, n_steps, np.random.default_rng(2), **kwargs)
    per_step = calls / n_steps
    se = per_step.std(ddof=1) / math.sqrt(n)
    assert abs(per_step.mean() - 2.0) < 3 * se


@pytest.mark.parametrize(
    "sampler",
    [lmc, rlmc, lambda *a: plmc(*a, K=8), lambda *a: plmc(*a, K=8, form="loop"), lambda *a: plmc(*a, K=None)],
    ids=["lmc", "rlmc", "plmc-jump", "plmc-loop", "plmc-poisson"],
)
@pytest.mark.parametrize("n_steps", [1, 3])
def test_zero_drift_gives_brownian_motion_for_overdamped_schemes(sampler, n_steps):
    n, h = 40_000, 0.1
    x, _ = sampler(np.zeros_like, np.zeros((n, 1)), h, n_steps, np.random.default_rng(3))
    var = 2 * h * n_steps  # Var sqrt(2) W(t) = 2t
    assert abs(x.mean()) < 3 * math.sqrt(var / n)
    assert abs(x.var(ddof=1) - var) < 3 * var * math.sqrt(2 / (n - 1))


@pytest.mark.parametrize("h", [0.2, 0.5])
def test_lmc_stationary_variance_matches_closed_form_on_a_gaussian(h):
    n = 100_000
    target = GaussianTarget([[1.0]])
    x, _ = lmc(target.grad, np.zeros((n, 1)), h, round(16 / h), np.random.default_rng(4))
    var = 1.0 / (target.alpha * (1.0 - target.alpha * h / 2.0))  # x' = (1 - h) x + sqrt(2h) z
    assert abs(x.var(ddof=1) - var) < 3 * var * math.sqrt(2 / (n - 1))


def test_underdamped_matrices_match_a_fine_euler_simulation_of_the_frozen_force_sde():
    delta, g, u, force = 0.5, 2.0, 1.0, 0.7
    A, G, Gamma = underdamped_matrices(delta, gamma=g, u=u)
    m, steps = 4000, 10_000
    dt = delta / steps
    rng = np.random.default_rng(5)
    x, v = np.full(m, 0.3), np.full(m, -0.2)
    for _ in range(steps):  # dx = v dt, dv = (-g v + force) dt + sqrt(2 g u) dB
        x, v = x + v * dt, v + (-g * v + force) * dt + math.sqrt(2 * g * u * dt) * rng.standard_normal(m)
    mean = A @ np.array([0.3, -0.2]) + G * force
    cov = Gamma @ Gamma.T
    sample = np.stack([x, v])
    se_mean = np.sqrt(np.diag(cov) / m)
    assert np.all(np.abs(sample.mean(axis=1) - mean) < 4 * se_mean + 1e-3)
    emp = np.cov(sample)
    se_cov = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / m)
    assert np.all(np.abs(emp - cov) < 4 * se_cov + 1e-3)
    assert Gamma[0, 1] == 0.0


def test_underdamped_flow_composes_exactly_and_variance_series_matches_closed_form():
    s, t = 0.13, 0.29
    A_s, G_s, Gm_s = underdamped_matrices(s)
    A_t, G_t, Gm_t = underdamped_matrices(t)
    A_st, G_st, Gm_st = underdamped_matrices(s + t)
    np.testing.assert_allclose(A_s @ A_t, A_st, atol=1e-14)
    np.testing.assert_allclose(A_s @ G_t + G_s, G_st, atol=1e-14)
    np.testing.assert_allclose(A_s @ Gm_t @ Gm_t.T @ A_s.T + Gm_s @ Gm_s.T, Gm_st @ Gm_st.T, atol=1e-13)
    z = np.array([0.009, 0.0099])
    closed = z + 2 * np.expm1(-z) - 0.5 * np.expm1(-2 * z)
    np.testing.assert_allclose(_x_variance_factor(z), closed, rtol=1e-8)


def test_scheme_operations_match_their_matrices():
    rng = np.random.default_rng(6)
    scheme = UnderdampedScheme(1.5, 0.7)
    A, G, Gamma = scheme.matrices(0.2)
    X, b, Z = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2, 3))
    np.testing.assert_allclose(scheme.propagate(X, 0.2), np.einsum("ij,njd->nid", A, X), atol=1e-15)
    np.testing.assert_allclose(scheme.force(b, 0.2), G[None, :, None] * b[:, None], atol=1e-15)
    np.testing.assert_allclose(scheme.noise(Z, 0.2), np.einsum("ij,njd->nid", Gamma, Z), atol=1e-15)
    per_chain = scheme.propagate(X, np.full(5, 0.2))  # per-chain step lengths broadcast the same way
    np.testing.assert_allclose(per_chain, scheme.propagate(X, 0.2), atol=1e-15)


def test_coupled_paths_are_exact_without_force():
    out = coupled_strong_errors(
        np.zeros_like,
        np.zeros((20, 1)),
        np.ones((20, 1)),
        [0.2, 0.1],
        0.4,
        4,
        np.random.default_rng(7),
        max_ref_step=1 / 64,
    )
    assert max(out.plmc.values()) < 1e-12 and max(out.ulmc.values()) < 1e-12


def test_torch_backend_runs_every_sampler():
    x0 = torch.zeros((500, 1), dtype=torch.float64)
    for sampler, kw in [
        (lmc, {}),
        (rlmc, {}),
        (ulmc, {}),
        (rlmc_underdamped, {}),
        (plmc, dict(K=None)),
        (plmc, dict(K=4, overdamped=False, form="loop")),
    ]:
        x, calls = sampler(LOGCOSH.grad, x0.repeat(1, 2), 0.1, 3, torch.Generator().manual_seed(0), **kw)
        assert x.shape == (500, 2) and x.dtype == torch.float64 and torch.isfinite(x).all()
        assert calls.shape == (500,)


# ---------------------------------------------------------------- targets and W2 tools


@pytest.mark.parametrize(
    "target",
    [
        GaussianTarget.with_condition_number(3, 10.0, np.random.default_rng(8)),
        SeparableLogCosh(3, 2.0),
        BayesLogReg.synthetic(50, 3, np.random.default_rng(9), prior_var=2.0),
    ],
    ids=["gaussian", "logcosh", "logreg"],
)
def test_target_gradients_match_finite_differences_and_torch(target):
    x = np.random.default_rng(10).standard_normal((4, 3))
    eps = 1e-6
    fd = np.stack(
        [(target.potential(x + eps * e) - target.potential(x - eps * e)) / (2 * eps) for e in np.eye(3)], 1
    )
    np.testing.assert_allclose(target.grad(x), fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(target.grad(torch.as_tensor(x)).numpy(), target.grad(x), atol=1e-12)
    assert 0 < target.alpha <= target.L


def test_exact_1d_w2_gelbrich_and_sliced_on_gaussians():
    law = TargetLaw1D(lambda x: -0.5 * x**2, -12.0, 12.0)
    assert abs(law.mean) < 1e-9 and abs(law.second_moment - 1.0) < 1e-7
    x = 0.3 + 1.2 * np.random.default_rng(11).standard_normal(400_000)
    expected = math.hypot(0.3, 0.2)  # W2(N(0.3, 1.44), N(0, 1))
    assert abs(w2_exact_1d(x, law) - expected) < 0.01
    assert abs(gelbrich_w2(x[:, None], np.zeros(1), np.eye(1)) - expected) < 0.01
    y = np.random.default_rng(12).standard_normal((1000, 1))
    assert abs(sliced_w2(y + 0.5, y) - 0.5) < 1e-9
    assert w2_empirical_1d(y, y + 0.25) == pytest.approx(0.25)


def test_noise_floor_shrinks_like_one_over_sqrt_n():
    law = SeparableLogCosh(1, 2.0).marginal()
    rng = np.random.default_rng(13)
    small, large = (noise_floor(law.sample, n, rng, n_pairs=8) for n in (2_000, 50_000))
    assert 2.5 < small / large < 8.0  # sqrt(25) = 5, up to the log factors of unbounded laws


# ---------------------------------------------------------------- the claim check


def test_usable_slope_and_matched_pair():
    slope, n = usable_slope([1, 2, 4, 8], [0.8, 0.4, 0.2, 0.05], floor=0.06)
    assert n == 3 and slope == pytest.approx(-1.0)
    assert math.isnan(usable_slope([1, 2], [1.0, 0.01], floor=0.1)[0])
    assert matched_pair([0.32, 0.16, 0.08, 0.04]) == (0.32, 0.16)


def _rows(plmc_slope, plmc_w2, n_usable=4, n=5):
    rng = np.random.default_rng(14)
    rows = []
    for _ in range(n):
        row = {}
        for s in ("over", "under"):
            row |= {
                f"slope_{s}_lmc": -1.0 + 0.05 * rng.standard_normal(),
                f"n_usable_{s}_lmc": 4.0,
                f"w2_matched_{s}_lmc": 0.1 * (1 + 0.02 * rng.standard_normal()),
                f"slope_{s}_plmc": plmc_slope + 0.05 * rng.standard_normal(),
                f"n_usable_{s}_plmc": n_usable,
                f"w2_matched_{s}_plmc": plmc_w2 * (1 + 0.02 * rng.standard_normal()),
            }
        rows.append(row)
    return rows


def test_claim_decider_supports_a_clear_effect_and_fails_when_plmc_is_lmc():
    decide = plmc_claim_decider()
    assert decide(_rows(plmc_slope=-2.0, plmc_w2=0.02)).outcome is Outcome.SUPPORTED
    sabotaged = [
        row | {k.replace("_lmc", "_plmc"): v for k, v in row.items() if k.endswith("_lmc")}
        for row in _rows(plmc_slope=-2.0, plmc_w2=0.02)
    ]  # LMC's numbers in place of PLMC's
    assert decide(sabotaged).outcome is Outcome.NOT_SUPPORTED


def test_claim_decider_is_inconclusive_below_three_points_or_without_the_cost_matched_gain():
    decide = plmc_claim_decider()
    assert decide(_rows(plmc_slope=-2.0, plmc_w2=0.02, n_usable=2.0)).outcome is Outcome.INCONCLUSIVE
    assert decide(_rows(plmc_slope=-2.0, plmc_w2=0.09)).outcome is Outcome.INCONCLUSIVE
    assert decide(_rows(plmc_slope=-1.3, plmc_w2=0.02)).outcome is Outcome.INCONCLUSIVE


def test_an_interval_reaching_zero_refutes_only_when_it_excludes_the_claimed_half():
    decide = plmc_claim_decider()
    # slope(LMC) - slope(PLMC) spread widely around 0.2: the interval reaches 0 and also holds 0.5 -> inconclusive
    wide = _rows(plmc_slope=-1.2, plmc_w2=0.02)
    for row, d in zip(wide, (-0.6, 1.0, -0.2, 0.9, 0.1)):
        row["slope_over_plmc"] = row["slope_over_lmc"] - d
    assert decide(wide).outcome is Outcome.INCONCLUSIVE  # was not supported before
    # tight around 0: the interval reaches 0 and lies below 0.5 -> not supported
    assert decide(_rows(plmc_slope=-1.0, plmc_w2=0.02)).outcome is Outcome.NOT_SUPPORTED
    # a NaN slope (fewer than 2 usable points) leaves that setting inconclusive, the other still refutes
    rows = _rows(plmc_slope=-1.0, plmc_w2=0.02)
    rows[0] |= {"slope_under_plmc": math.nan, "n_usable_under_plmc": 1.0}
    assert decide(rows).outcome is Outcome.NOT_SUPPORTED


# ---------------------------------------------------------------- bad input

SAMPLERS = [lmc, ulmc, rlmc, rlmc_underdamped, plmc, lambda *a, **k: plmc(*a, overdamped=False, **k)]


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("h", [0.0, -0.1, float("nan"), float("inf")])
def test_non_positive_step_is_rejected(sampler, h):
    with pytest.raises(ValueError, match="h must be"):
        sampler(lambda x: x, np.zeros((3, 1)), h, 2, np.random.default_rng(0))


@pytest.mark.parametrize("K", [0, -3, 1.5, True])
def test_bad_K_is_rejected(K):
    with pytest.raises(ValueError, match=r"^K \(or None, the continuous Poisson limit\) must be an int >= 1"):
        plmc(lambda x: x, np.zeros((3, 1)), 0.1, 2, np.random.default_rng(0), K=K)
    with pytest.raises(ValueError, match="K=None"):
        plmc(lambda x: x, np.zeros((3, 1)), 0.1, 2, np.random.default_rng(0), K=None, form="loop")


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_non_finite_gradients_are_rejected(sampler):
    with pytest.raises(ValueError, match="grad_F returned non-finite"):
        sampler(lambda x: x * np.nan, np.zeros((3, 1)), 0.1, 2, np.random.default_rng(0))


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_x0_shape_mismatch_is_rejected(sampler):
    with pytest.raises(ValueError, match="x0"):
        sampler(LOGCOSH.grad, np.zeros((3, 1)), 0.1, 2, np.random.default_rng(0))  # target has d = 2
    with pytest.raises(ValueError, match="x0"):
        sampler(lambda x: x, np.zeros(3), 0.1, 2, np.random.default_rng(0))


def test_other_bad_arguments_name_themselves():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="v0"):
        ulmc(lambda x: x, np.zeros((3, 1)), 0.1, 2, rng, v0=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="rng"):
        lmc(lambda x: x, np.zeros((3, 1)), 0.1, 2, torch.Generator())
    with pytest.raises(ValueError, match="form"):
        plmc(lambda x: x, np.zeros((3, 1)), 0.1, 2, rng, form="fast")
    with pytest.raises(ValueError, match="n_steps"):
        lmc(lambda x: x, np.zeros((3, 1)), 0.1, -1, rng)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_step_beyond_stability_warns_but_runs(sampler):
    with pytest.warns(RuntimeWarning, match="2/L"):
        x, _ = sampler(lambda x: x, np.zeros((3, 1)), 0.5, 1, np.random.default_rng(0), L=5.0)
    assert x.shape == (3, 1)
