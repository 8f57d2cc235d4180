"""Tests of the cumulative-loss PAC-Bayes certificates (OpenReview hWw269fPov): oracles, validity, accounting."""

import math

import numpy as np
import pytest
import torch
from torch.distributions import Independent, Normal, kl_divergence

from iclr26.decision.pac_bayes_continual import (
    BayesLinear,
    BayesMLP,
    EWCLearner,
    GaussianGibbsLinReg,
    ReplayLearner,
    SGLDGibbs,
    VILearner,
    catoni_bound,
    cumulative_bound,
    eq3_bound_fn,
    kl_diag_gauss,
    kl_full_gauss,
    lambda_grid,
    linreg_tasks,
    mc_correction,
    oracle_rhs,
    permuted_digits,
    running_bound,
    seen_before,
    split_delta,
    split_digits,
)
from iclr26.decision.pac_bayes_continual.claim_check import certificate_decider, oracle_decider
from iclr26.decision.pac_bayes_continual.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from tests.conformance.bad_inputs.pac_bayes_continual import CASES


# (1) KL of diagonal Gaussians -------------------------------------------------------------------------------------
def test_kl_diag_gauss_matches_torch_and_is_zero_on_identical():
    g = torch.Generator().manual_seed(0)
    mu_q, mu_p = (
        torch.randn(5, 3, generator=g, dtype=torch.float64),
        torch.randn(5, 3, generator=g, dtype=torch.float64),
    )
    sd_q = torch.rand(5, 3, generator=g, dtype=torch.float64) + 0.1
    sd_p = torch.rand(5, 3, generator=g, dtype=torch.float64) + 0.1
    ref = kl_divergence(Independent(Normal(mu_q, sd_q), 2), Independent(Normal(mu_p, sd_p), 2))
    assert torch.allclose(kl_diag_gauss(mu_q, sd_q, mu_p, sd_p), ref, rtol=1e-12)
    assert kl_diag_gauss(mu_q.numpy(), sd_q.numpy(), mu_p.numpy(), sd_p.numpy()) == pytest.approx(
        float(ref), 1e-12
    )
    assert float(kl_diag_gauss(mu_q, sd_q, mu_q, sd_q)) == 0.0
    assert kl_diag_gauss(mu_q.numpy(), sd_q.numpy(), mu_p.numpy(), 0.5) == pytest.approx(
        float(
            kl_divergence(
                Independent(Normal(mu_q, sd_q), 2), Independent(Normal(mu_p, 0.5 * torch.ones(5, 3)), 2)
            )
        )
    )


def test_bayes_mlp_kl_to_equals_kl_of_flattened_parameters():
    g = torch.Generator().manual_seed(1)
    q, p = BayesMLP((4, 6, 3), init_sd=0.2, generator=g), BayesMLP((4, 6, 3), init_sd=0.1, generator=g)
    with torch.no_grad():
        for prm in q.parameters():
            prm.add_(0.1 * torch.randn(prm.shape, generator=g))

    def flat(net):
        mu = torch.cat([torch.cat([la.weight_mu.flatten(), la.bias_mu]) for la in net.layers]).double()
        sd = torch.cat([torch.cat([la.weight_sd.flatten(), la.bias_sd]) for la in net.layers]).double()
        return mu, sd

    with torch.no_grad():
        (mq, sq), (mp, sp) = flat(q), flat(p)
    assert float(q.kl_to(p).detach()) == pytest.approx(float(kl_diag_gauss(mq, sq, mp, sp)), rel=1e-5)
    assert float(q.kl_to(q.frozen_copy()).detach()) == pytest.approx(0.0, abs=1e-6)


def test_kl_full_gauss_reduces_to_diagonal():
    mu_q, mu_p = np.array([0.3, -1.0]), np.array([0.0, 0.5])
    sd_q, sd_p = np.array([0.4, 1.3]), np.array([1.0, 0.7])
    full = kl_full_gauss(mu_q, np.diag(sd_q**2), mu_p, np.diag(sd_p**2))
    assert full == pytest.approx(kl_diag_gauss(mu_q, sd_q, mu_p, sd_p), rel=1e-12)


def test_local_reparameterisation_has_the_exact_marginal():
    g = torch.Generator().manual_seed(2)
    layer = BayesLinear(3, 2, init_sd=0.3, generator=g)
    x = torch.tensor([[0.5, -1.0, 2.0]])
    with torch.no_grad():
        loc = layer(x.repeat(20000, 1), generator=g)
        wts = torch.cat([layer(x, local=False, generator=g) for _ in range(3000)])
        mean = layer(x, sample=False)[0]
        var = ((x**2) @ (layer.weight_sd**2).T + layer.bias_sd**2)[0]
    assert torch.allclose(loc.mean(0), mean, atol=0.02) and torch.allclose(loc.var(0), var, rtol=0.04)
    assert torch.allclose(wts.mean(0), mean, atol=0.05) and torch.allclose(wts.var(0), var, rtol=0.1)


# (2) Gibbs posterior closed form -----------------------------------------------------------------------------------
def test_gibbs_update_equals_brute_force_grid_posterior_1d():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((7, 1)), rng.standard_normal(7)
    lam, mu0, a0 = 3.0, 0.4, 2.0
    g = GaussianGibbsLinReg(1, lam=lam, prior_mean=np.array([mu0]), prior_precision=np.array([[a0]])).update(
        X, y
    )
    h = np.linspace(-8, 8, 400_001)
    logp = -0.5 * a0 * (h - mu0) ** 2 - lam * ((y[None, :] - h[:, None] * X[None, :, 0]) ** 2).mean(1)
    w = np.exp(logp - logp.max())
    w /= np.trapezoid(w, h)
    mean = np.trapezoid(w * h, h)
    var = np.trapezoid(w * (h - mean) ** 2, h)
    assert abs(g.mean[0] - mean) < 1e-6 and abs(g.cov[0, 0] - var) < 1e-6


def test_sequential_gibbs_is_the_pooled_bayesian_posterior():
    rng = np.random.default_rng(1)
    d, sigma = 4, 0.3
    tasks = [(rng.standard_normal((m, d)), rng.standard_normal(m)) for m in (5, 9, 3)]
    g = GaussianGibbsLinReg(d, noise_sd=sigma)
    for X, y in tasks:
        g.update(X, y)
    X, y = np.concatenate([t[0] for t in tasks]), np.concatenate([t[1] for t in tasks])
    prec = np.eye(d) + X.T @ X / sigma**2
    assert np.allclose(g.precision, prec) and np.allclose(g.mean, np.linalg.solve(prec, X.T @ y / sigma**2))
    h = g.sample(200_000, rng)
    emp = np.mean((y[None] - h @ X.T) ** 2)
    assert g.empirical_risk(X, y) == pytest.approx(emp, rel=0.01)


def test_sgld_converges_to_single_task_gibbs_and_forgets_old_tasks():
    rng = np.random.default_rng(2)
    d = 3
    Xa, Xb = rng.standard_normal((50, d)), rng.standard_normal((50, d))
    ya, yb = Xa @ np.ones(d), Xb @ -np.ones(d)
    s = SGLDGibbs(d, noise_sd=1.0, n_particles=400, step_size=5e-3, n_steps=400, seed=0)
    s.update(Xa, ya)
    ref = GaussianGibbsLinReg(d, lam=25.0, prior_precision=1e-9 * np.eye(d)).update(Xa, ya)
    assert np.allclose(s.mean, ref.mean, atol=0.05)
    assert np.allclose(np.cov(s.particles.T), ref.cov, atol=0.01)
    s.update(Xb, yb)  # the warm start is forgotten: only the last task counts
    assert np.allclose(s.mean, -np.ones(d), atol=0.1)


# (3) monotonicity --------------------------------------------------------------------------------------------------
def test_bound_decreases_in_m_and_increases_in_kl_and_risk():
    emp, kls = np.array([0.1, 0.3, 0.2]), np.array([10.0, 5.0, 20.0])
    by_m = [cumulative_bound(emp, kls, m, 0.05, lambdas=lambda_grid(100))[0] for m in (50, 100, 400, 1600)]
    assert all(a > b for a, b in zip(by_m, by_m[1:]))
    by_kl = [cumulative_bound(emp, kls * c, 400, 0.05)[0] for c in (0.0, 1.0, 3.0, 10.0)]
    assert all(a < b for a, b in zip(by_kl, by_kl[1:]))
    assert cumulative_bound(emp + 0.1, kls, 400, 0.05)[0] == pytest.approx(
        cumulative_bound(emp, kls, 400, 0.05)[0] + 0.1
    )


# (4) validity by simulation ----------------------------------------------------------------------------------------
def _bernoulli_tasks(reps=2000, T=8, m=20, H=6, beta=15.0, seed=0):
    """Gibbs posteriors over a finite H on Bernoulli-loss tasks: per repetition (emp, true, kl) of shape (T,)."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.3, 0.7, size=(T, H))
    q = np.full((reps, H), 1.0 / H)
    emp, true, kl = (np.zeros((reps, T)) for _ in range(3))
    for t in range(T):
        lhat = (rng.random((reps, m, H)) < p[t]).mean(1)
        new = q * np.exp(-beta * lhat)
        new /= new.sum(1, keepdims=True)
        emp[:, t], true[:, t] = (new * lhat).sum(1), new @ p[t]
        kl[:, t] = (new * np.log(new / q)).sum(1)
        q = new
    return emp, true, kl, m


def test_bound_is_valid_by_simulation():
    delta = 0.1
    emp, true, kl, m = _bernoulli_tasks()
    bounds = np.array([cumulative_bound(e, k, m, delta)[0] for e, k in zip(emp, kl)])
    assert np.mean(true.mean(1) > bounds) <= delta
    # sabotage: the empirical Gibbs risk alone is no certificate; the simulation catches it
    assert np.mean(true.mean(1) > emp.mean(1)) > 3 * delta
    # and a bound without the Hoeffding term is violated more often than delta allows
    broken = np.array(
        [emp_i.mean() + (k.sum() + math.log(20 / delta)) / (100 * len(k)) for emp_i, k in zip(emp, kl)]
    )
    assert np.mean(true.mean(1) > broken) > delta


# (5) union-bound accounting ----------------------------------------------------------------------------------------
def test_delta_is_split_over_the_grids_exactly():
    emp, kls, m, delta = np.array([0.2, 0.1, 0.15]), np.array([30.0, 4.0, 8.0]), 400, 0.05
    grid = lambda_grid(m)
    assert grid.size == 20 and np.allclose(grid[1:] / grid[:-1], grid[1] / grid[0])
    b, lam = cumulative_bound(emp, kls, m, delta)
    by_hand = [emp.mean() + (kls.sum() + math.log(20 / delta)) / (lm * 3) + lm / (8 * m) for lm in grid]
    assert b == pytest.approx(min(by_hand), rel=1e-12) and lam == grid[int(np.argmin(by_hand))]
    assert running_bound(emp, kls, m, delta)[-1] == pytest.approx(b, rel=1e-12)
    assert running_bound(emp, kls, m, delta)[0] == pytest.approx(
        cumulative_bound(emp[:1], kls[:1], m, delta)[0]
    )
    # EWC: one s from a grid of 5 -> delta / (|Lambda| x |S|) per point
    b5, _ = cumulative_bound(emp, kls, m, split_delta(delta, 5))
    assert b5 == pytest.approx(
        min(emp.mean() + (kls.sum() + math.log(100 / delta)) / (lm * 3) + lm / (8 * m) for lm in grid)
    )
    assert split_delta(0.05, 20, 5) == pytest.approx(0.05 / 100)
    # Monte Carlo slack: one-sided Hoeffding with a union over the horizons
    assert mc_correction(4000, 60, 0.01) == pytest.approx(math.sqrt(math.log(6000) / 8000))
    assert mc_correction(4000, 60, 0.01, K=2.0) == pytest.approx(2 * mc_correction(4000, 60, 0.01))


def test_single_lambda_uses_full_delta_and_bound_fn_is_pluggable():
    emp, kls = np.array([0.2, 0.3]), np.array([1.0, 2.0])
    b, lam = cumulative_bound(emp, kls, 100, 0.05, lambdas=[50.0])
    assert lam == 50.0 and b == pytest.approx(catoni_bound(emp, kls, 100, 0.05, 1.0, 50.0))
    fn = eq3_bound_fn(lambda m, T, K: 0.01)
    b3, _ = cumulative_bound(emp, kls, 100, 0.05, lambdas=[1.0], bound_fn=fn)
    s = 1 / (2 * math.sqrt(2))
    assert b3 == pytest.approx(0.25 + s * 3.0 + 0.01 + s * (1 + math.log(20)))


def test_mc_slack_covers_the_monte_carlo_error():
    q = BayesMLP((4, 5, 3), init_sd=0.5, generator=torch.Generator().manual_seed(3))
    X, y = torch.randn(30, 4, generator=torch.Generator().manual_seed(4)), torch.arange(30) % 3
    g = torch.Generator().manual_seed(5)
    exact = q.gibbs_error(X, y, 4000, g)
    with torch.no_grad():
        wrong = (q(X.repeat(600, 1), generator=g).argmax(1) != y.repeat(600)).double()
    ests = wrong.reshape(300, 2 * 30).mean(1).numpy()  # 300 independent 2-pass estimates
    slack = mc_correction(2 * 30, 1, 0.05)
    assert np.mean(ests + slack < exact - 0.01) <= 0.05
    assert np.mean(ests < exact - 0.01) > 0.05  # without the slack the estimate undershoots too often


# learners, tasks, oracle -------------------------------------------------------------------------------------------
def test_ewc_penalty_and_fisher_match_a_manual_computation():
    e = EWCLearner((4, 5, 3), ewc_lambda=2.0, epochs=1, seed=0)
    X, y = torch.randn(6, 4, generator=torch.Generator().manual_seed(0)), torch.tensor([0, 1, 2, 0, 1, 2])
    fisher = e.empirical_fisher(X, y)
    manual = [torch.zeros_like(p) for p in e.model.parameters()]
    for i in range(6):
        e.model.zero_grad()
        torch.nn.functional.cross_entropy(e.model(X[i : i + 1]), y[i : i + 1]).backward()
        for acc, p in zip(manual, e.model.parameters()):
            acc += p.grad**2 / 6
    assert all(torch.allclose(a, b, atol=1e-7) for a, b in zip(fisher, manual))
    assert float(e.penalty().detach()) == 0.0
    e.fit_task(X, y)
    with torch.no_grad():
        next(e.model.parameters()).add_(0.1)
    expected = 0.5 * 2.0 * float((e.fisher[0] * 0.01).sum())
    assert float(e.penalty().detach()) == pytest.approx(expected, rel=1e-5)
    assert float(EWCLearner((4, 5, 3), ewc_lambda=0.0).penalty().detach()) == 0.0


def test_learners_train_and_vi_kl_is_the_kl_to_the_previous_posterior():
    tasks = split_digits(2, seed=0)
    g = torch.Generator().manual_seed(0)
    vi = VILearner((64, 16, 2), prior_sd=0.1, lr=1e-2, epochs=3, seed=0)
    X, y = tasks[0].sample(100, g)
    before = vi.posterior.gibbs_error(X, y, 5, g)
    prior = vi.prior
    kl = vi.fit_task(X, y)
    assert kl == pytest.approx(float(vi.posterior.kl_to(prior).detach()), rel=1e-6) and kl > 0
    assert vi.posterior.gibbs_error(X, y, 5, g) < before
    assert float(vi.prior.kl_to(vi.posterior)) == 0.0  # P_(t+1) = Q_t
    rep = ReplayLearner((64, 16, 2), buffer_per_task=7, lr=1e-2, epochs=3, seed=0)
    rep.fit_task(X, y)
    rep.fit_task(*tasks[1].sample(100, g))
    assert len(rep.buffer_y) == 14 and rep.error(tasks[0].X, tasks[0].y) < 0.5


def test_digit_task_families():
    perm = permuted_digits(3, seed=1)
    assert torch.equal(perm[0].X.sort(1).values, perm[1].X.sort(1).values)
    assert not torch.equal(perm[0].X, perm[1].X) and len(perm[0].y) == 1400 and len(perm[0].y_hold) == 397
    split = split_digits(7, seed=1)
    assert [t.name for t in split][5] == "split01" and set(split[2].y.tolist()) == {0, 1}
    X, y = perm[2].sample(50, torch.Generator().manual_seed(0))
    assert X.shape == (50, 64) and y.shape == (50,)


def test_oracle_rhs_and_gibbs_risk():
    rng = np.random.default_rng(0)
    tasks = linreg_tasks("alternating", "overparam", 6, rng)
    rhs, seen = oracle_rhs(tasks), seen_before(tasks)
    assert np.isnan(rhs[0]) and seen.tolist() == [False, False, True, True, True, True]
    assert np.allclose(rhs[seen], 0.01)  # h* fits every seen task exactly: only the noise remains
    assert rhs[1] == pytest.approx(
        float(tasks[1].w @ tasks[1].w) + 0.01
    )  # nothing known about B's coordinates
    limited = linreg_tasks("switch", "limited", 4, rng)
    wa, wb = limited[0].w, limited[2].w
    assert oracle_rhs(limited)[3] == pytest.approx(
        float(((2 * wa + wb) / 3 - wb) @ ((2 * wa + wb) / 3 - wb)) + 0.01
    )
    mean, cov = rng.standard_normal(10), np.diag(rng.uniform(0.1, 0.5, 10))
    h = rng.multivariate_normal(mean, cov, size=200_000)
    assert limited[0].gibbs_risk(mean, cov) == pytest.approx(float(np.mean(limited[0].risk(h))), rel=0.01)


# claim checks ------------------------------------------------------------------------------------------------------
def _rows(cul, bound, rel):
    return [
        {
            "perm_vi_cul": c,
            "perm_vi_bound": b,
            **{f"reg_overparam_{s}_relgap": r for s in ("iid", "alternating", "switch")},
        }
        for c, b, r in zip(cul, bound, rel)
    ]


def test_certificate_decider_outcomes():
    dec = certificate_decider()
    good = _rows([0.30, 0.31, 0.29], [0.45, 0.46, 0.44], [0.01, 0.02, 0.015])
    assert dec(good).outcome is Outcome.SUPPORTED
    assert dec(_rows([0.30, 0.50, 0.29], [0.45, 0.46, 0.44], [0.01] * 3)).outcome is Outcome.NOT_SUPPORTED
    assert dec(_rows([0.30, 0.31, 0.29], [0.95, 1.02, 0.9], [0.01] * 3)).outcome is Outcome.NOT_SUPPORTED
    assert dec(_rows([0.30, 0.31, 0.29], [0.7, 0.72, 0.69], [0.01] * 3)).outcome is Outcome.INCONCLUSIVE
    assert (
        dec(_rows([0.30, 0.31, 0.29], [0.45, 0.46, 0.44], [0.2, 0.25, 0.3])).outcome is Outcome.INCONCLUSIVE
    )


def test_oracle_decider_outcomes():
    dec = oracle_decider()
    assert dec(_rows([0] * 3, [1] * 3, [0.01, 0.02, 0.0])).outcome is Outcome.SUPPORTED
    assert dec(_rows([0] * 3, [1] * 3, [0.2, 0.25, 0.3])).outcome is Outcome.NOT_SUPPORTED
    assert dec(_rows([0] * 3, [1] * 3, [0.05, 0.09, 0.15])).outcome is Outcome.INCONCLUSIVE


CLAIMS = {c.id: c for c in EXPERIMENT.claims}


def test_a_certificate_equal_to_the_loss_is_not_supported():
    """The suite's sabotage (certificate := the loss it certifies) must not pass: zero slack is inconclusive."""
    tight = _rows([0.30, 0.31, 0.29], [0.30, 0.46, 0.44], [0.01] * 3)
    assert certificate_decider()(tight).outcome is Outcome.INCONCLUSIVE
    split = CLAIMS["split-certificate"]
    rows = [{"split_vi_cul": c, "split_vi_bound": b} for c, b in ((0.03, 0.24), (0.035, 0.25), (0.04, 0.23))]
    assert split.judge(rows).outcome is Outcome.SUPPORTED
    assert (
        split.judge([{**r, "split_vi_bound": r["split_vi_cul"]} for r in rows]).outcome
        is Outcome.INCONCLUSIVE
    )
    assert (
        split.judge([{**r, "split_vi_bound": 1.0} for r in rows]).outcome is Outcome.NOT_SUPPORTED
    )  # vacuous
    violated = [dict(r) for r in rows]
    violated[1]["split_vi_cul"] = 0.3
    assert split.judge(violated).outcome is Outcome.NOT_SUPPORTED


def test_preconditions_vi_learned():
    good = _rows([0.30, 0.31, 0.29], [0.45, 0.46, 0.44], [0.01, 0.02, 0.015])
    claim = CLAIMS["cul-certificate"]
    assert not claim.unmet(good) and claim.judge(good).outcome is Outcome.SUPPORTED
    # the quick run's VI: (1/T) CuL 0.574 learned, but a vacuous certificate: a real not supported
    learned_vacuous = _rows([0.57, 0.58, 0.57], [1.05, 1.06, 1.05], [0.01] * 3)
    assert claim.judge(learned_vacuous).outcome is Outcome.NOT_SUPPORTED
    untrained = _rows([0.88, 0.89, 0.9], [0.95, 0.96, 0.97], [0.01] * 3)  # near chance 0.9
    assert claim.decide(untrained).outcome is Outcome.SUPPORTED  # a free pass for a near-chance learner
    assert claim.judge(untrained).outcome is Outcome.NOT_REPRODUCED
    split = CLAIMS["split-certificate"]
    near_chance = [{"split_vi_cul": 0.48, "split_vi_bound": 0.6} for _ in range(3)]
    assert split.decide(near_chance).outcome is Outcome.SUPPORTED  # a free, meaningless pass ...
    assert split.judge(near_chance).outcome is Outcome.NOT_REPRODUCED  # ... which the precondition blocks
    seq = CLAIMS["sequential-prior-tighter"]
    row = {
        "perm_vi_naive_bound": 2.7,
        "perm_vi_bound": 1.05,
        "split_vi_naive_bound": 1.2,
        "split_vi_bound": 0.24,
    }
    rows = [
        {**row, "perm_vi_cul": 0.57 + 0.01 * i, "split_vi_cul": 0.03, "perm_vi_bound": 1.05 + 0.01 * i}
        for i in range(3)
    ]
    assert seq.judge(rows).outcome is Outcome.SUPPORTED
    assert seq.judge([{**r, "perm_vi_cul": 0.85} for r in rows]).outcome is Outcome.NOT_REPRODUCED


def test_bad_input_cases_raise():
    for call, exc, words in CASES:
        with pytest.raises(exc) as info:
            call()
        assert all(w in str(info.value) for w in words), (words, str(info.value))
