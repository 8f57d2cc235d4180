"""Tests of MeanCache (arXiv 2601.19961): estimator closed forms, exactness limits, PSSP DP vs brute force."""

import itertools

import numpy as np
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.inference.meancache import (
    MeanCacheSampler,
    estimate_edge_costs,
    euler_sample,
    force_compute,
    path_cost,
    pssp_brute_force,
    pssp_schedule,
    shifted_sigmas,
    taylorseer_sample,
    teacache_sample,
    tune_teacache,
    uniform_schedule,
)
from iclr26.inference.meancache.claim_check import meancache_decider
from iclr26.inference.meancache.sampler import CacheLog
from tests.conformance.bad_inputs.meancache import CASES


def nonlinear_v(z, t, cond):
    return torch.tanh(z) * (1 + t) - 0.3 * z * t**2 + (0.0 if cond is None else cond)


def linear_field(a, b):
    return lambda z, t, cond: torch.full_like(z, a + b * t)


@pytest.fixture
def z0():
    return torch.randn(5, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)


def test_all_compute_is_bit_exact_euler(z0):
    sig = shifted_sigmas(20)
    ref, n_ref = euler_sample(nonlinear_v, sig, z0, 0.1)
    z, nfe = MeanCacheSampler(nonlinear_v, sig, [True] * 20, [3] * 20).sample(z0, 0.1)
    assert torch.equal(z, ref) and nfe == n_ref == 20


def test_k1_is_plain_reuse(z0):
    sig = shifted_sigmas(12)
    sched = [True, False, False, True, False, True, False, False, False, True, True, False]
    s = MeanCacheSampler(nonlinear_v, sig, sched, [1] * 12)
    z, nfe = s.sample(z0, None)
    zz, v = z0, None
    for i in range(12):
        if sched[i]:
            v = nonlinear_v(zz, sig[i], None)
        zz = zz + (sig[i + 1] - sig[i]) * v
    assert torch.equal(z, zz) and nfe == sum(sched)
    for n in range(1, len(s.log.v) + 1):
        log = CacheLog(s.log.z_before[:n], s.log.z_after[:n], s.log.sig[:n], s.log.sig_next[:n], s.log.v[:n])
        span = log.sig[-1] - log.sig_next[-1]
        scale = float(torch.finfo(torch.float64).eps) * float(log.z_after[-1].abs().max() + 1) / span**2
        assert float(log.jvp_hat(1).abs().max()) < 16 * scale  # float64 round-off of (z + dt v - z) / dt - v


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_jvp_closed_form_linear_field(k, z0):
    a, b, n = 0.7, -1.9, 10
    sig = list(np.linspace(1.0, 0.0, n + 1))
    sched = [True] * 7 + [False] * 3
    s = MeanCacheSampler(linear_field(a, b), sig, sched, [k] * n)
    s.sample(z0)
    log = s.log
    cut = CacheLog(log.z_before[:7], log.z_after[:7], log.sig[:7], log.sig_next[:7], log.v[:7])
    assert torch.allclose(cut.jvp_hat(k), torch.full_like(z0, -b * (k - 1) / (2 * k)), rtol=0, atol=1e-12)


def test_first_skip_error_decreases_with_k(z0):
    a, b, n = 0.3, 2.5, 12
    sig = list(np.linspace(1.0, 0.0, n + 1))
    errs = []
    for k in range(1, 7):
        sched = [True] * 7 + [False] + [True] * 4
        s = MeanCacheSampler(linear_field(a, b), sig, sched, [k] * n)
        s.sample(z0)
        errs.append(float((s.log.v[7] - (a + b * sig[7])).abs().max()))
    assert all(e2 < e1 for e1, e2 in zip(errs, errs[1:])), errs


def test_taylorseer_exact_on_linear_field_and_teacache_zero_threshold(z0):
    sig = shifted_sigmas(15)
    v = linear_field(0.4, 1.3)
    ref, _ = euler_sample(v, sig, z0)
    sched = [True, True, False, False, True] + [False] * 9 + [True]
    z, nfe = taylorseer_sample(v, sig, sched, z0)
    assert nfe == 4 and torch.allclose(z, ref, atol=1e-12)
    ref2, _ = euler_sample(nonlinear_v, sig, z0)
    z2, nfe2 = teacache_sample(nonlinear_v, sig, z0, None, threshold=0.0)
    assert nfe2 == 15 and torch.equal(z2, ref2)
    _, _, nfe3 = tune_teacache(nonlinear_v, sig, z0, None, 6)
    assert 2 <= nfe3 <= 6


def _random_costs(n, n_k, seed):
    rng = np.random.default_rng(seed)
    gap = np.abs(np.arange(n + 1)[None, :, None] - np.arange(n + 1)[:, None, None])
    c = rng.uniform(0, 1, (n + 1, n + 1, n_k)) * gap
    c[rng.uniform(size=c.shape) < 0.1] = np.inf
    for i in range(n):
        c[i, i + 1] = rng.uniform(0, 0.05, n_k)
    return c


@pytest.mark.parametrize("n,seed", [(n, s) for n in (2, 5, 8, 10) for s in range(3)])
def test_pssp_equals_brute_force(n, seed):
    c = _random_costs(n, 3, seed)
    for budget, gamma in itertools.product(range(2, n + 1), (1.0, 2.0, 3.0)):
        steps, kps = pssp_schedule(c, budget, gamma)
        _, best = pssp_brute_force(c, budget, gamma)
        assert steps[0] == 0 and len(steps) <= budget and steps == sorted(set(steps))
        assert len(kps) == n and all(kps[s] == 0 for s in steps)
        assert path_cost(c, steps, gamma) == pytest.approx(best, rel=1e-12, abs=1e-15)
        for a, b in zip([*steps, n], [*steps, n][1:]):  # K is the argmin over K on each edge
            for s in range(a + 1, b):
                assert kps[s] == int(np.argmin(c[a, b])) + 1


def test_gamma_one_is_min_plain_sum():
    c = _random_costs(7, 2, 11)
    nodes_all = range(1, 7)
    for budget in range(2, 8):
        steps, _ = pssp_schedule(c, budget, 1.0)
        best = min(
            sum(c[a, b].min() for a, b in zip([0, *m], [*m, 7]))
            for r in range(budget)
            for m in itertools.combinations(nodes_all, r)
        )
        assert path_cost(c, steps, 1.0) == pytest.approx(best)


def test_peak_suppression_prefers_two_small_edges():
    c = np.full((4, 4), np.inf)
    c[0, 1], c[1, 3] = 0.0, 1.0  # one peak: plain sum 1.0, squared 1.0
    c[0, 2], c[2, 3] = 0.55, 0.55  # two medium edges: plain sum 1.1, squared 0.605
    assert pssp_schedule(c, 2, 1.0)[0] == [0, 1]
    assert pssp_schedule(c, 2, 2.0)[0] == [0, 2]


def test_forced_steps_and_edge_costs_match_sampler(z0):
    sig = shifted_sigmas(10)
    c = estimate_edge_costs(nonlinear_v, sig, z0, [1, 2, 3])
    assert c.shape == (11, 11, 3)
    assert np.all(c[np.arange(10), np.arange(1, 11)] == 0)
    assert np.isinf(c[0, 5, 1]) and np.isinf(c[1, 5, 2]) and np.isfinite(c[2, 5, 2])
    ref, _ = euler_sample(nonlinear_v, sig, z0)
    # edge (2 -> 10) with K = 3 from the reference history == the sampler computing 0..2 and skipping the rest
    s = MeanCacheSampler(nonlinear_v, sig, [True] * 3 + [False] * 7, [3] * 10)
    z, nfe = s.sample(z0)
    assert nfe == 3
    assert c[2, 10, 2] == pytest.approx(float((z - ref).abs().sum() / ref.abs().sum()), rel=1e-12)
    f = force_compute(c, (0, 1, 2, 9))
    steps, kps = pssp_schedule(f, 6, 2.0, K_values=[1, 2, 3])
    assert {0, 1, 2, 9} <= set(steps) and len(steps) <= 6
    assert all(k <= s for s, k in enumerate(kps))  # K never exceeds the history
    assert sum(uniform_schedule(10, 4)) == 4  # K never exceeds the history


def _claim_rows(gains, fd_ratio=1.0, task="digits", ref_acc=1.0, sw_ratio=0.1):
    rows = []
    for g in gains:
        r = {"digits_ref_acc": ref_acc, "mixture_ref_sw_over_noise": sw_ratio}
        for m, v in (("reuse", 32.0), ("taylorseer", 39.0), ("teacache", 38.0)):
            r[f"{task}_b12_{m}_psnr"] = v
            r[f"{task}_b12_{m}_fd"] = 10.0 + (m == "reuse")
        r[f"{task}_b12_meancache_psnr"] = 39.0 + g
        r[f"{task}_b12_meancache_fd"] = 10.0 * fd_ratio  # against TaylorSeer's, the best-PSNR baseline
        rows.append(r)
    return rows


def test_sabotage_decider_rejects_failing_metrics():
    dec = meancache_decider("digits", 12)
    bad = _claim_rows((-0.5, 0.2, -0.1))
    assert dec(bad).outcome is Outcome.NOT_SUPPORTED
    small = _claim_rows((0.5, 0.55, 0.6))
    assert dec(small).outcome is Outcome.INCONCLUSIVE
    fd_worse = _claim_rows((2.0, 2.1, 2.2), fd_ratio=1.2)
    assert dec(fd_worse).outcome is Outcome.INCONCLUSIVE
    good = _claim_rows((2.0, 2.1, 2.2))
    assert dec(good).outcome is Outcome.SUPPORTED
    # a baseline's PSNR in MeanCache's place can never be supported
    rows = [{**r, "digits_b12_meancache_psnr": r["digits_b12_taylorseer_psnr"]} for r in good]
    assert dec(rows).outcome is Outcome.NOT_SUPPORTED


def test_interval_reaching_zero_is_not_a_refutation():
    dec = meancache_decider("digits", 12)
    wide = dec(_claim_rows((-0.5, 1.5, 3.0)))  # lower end <= 0 but the interval also reaches 1 dB
    assert wide.interval[0] <= 0 and wide.interval[1] >= 1.0
    assert wide.outcome is Outcome.INCONCLUSIVE  # the old rule said not supported


def test_preconditions_flow_models_learned():
    from iclr26.inference.meancache.experiment import EXPERIMENT

    digits, mixture = EXPERIMENT.claims
    assert digits.judge(_claim_rows((2.0, 2.1, 2.2))).outcome is Outcome.SUPPORTED  # learned: a real verdict
    assert digits.judge(_claim_rows((2.0, 2.1, 2.2), ref_acc=0.15)).outcome is Outcome.NOT_REPRODUCED
    mix = _claim_rows((-8.0, -8.5, -9.0), task="mixture")
    assert mixture.judge(mix).outcome is Outcome.NOT_SUPPORTED
    assert mixture.judge(_claim_rows((1.0, 1.1, 1.2), task="mixture")).outcome is Outcome.SUPPORTED
    assert mixture.judge(_claim_rows((1.0, 1.1, 1.2), task="mixture", sw_ratio=0.95)).outcome is (
        Outcome.NOT_REPRODUCED
    )


@pytest.mark.parametrize("case", range(len(CASES)))
def test_bad_inputs(case):
    fn, exc, words = CASES[case]
    with pytest.raises(exc) as info:
        fn()
    for w in words:
        assert w in str(info.value)
