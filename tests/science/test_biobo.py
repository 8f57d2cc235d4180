"""Oracle tests of the BioBO reproduction (arXiv 2509.19988)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.stats import hypergeom
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern
from statsmodels.stats.multitest import multipletests

from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.science.biobo import (
    BioBO,
    EAGreedy,
    ExactGP,
    PiBO,
    RandomSelector,
    benjamini_hochberg,
    biobo_decider,
    efficiency_gain,
    enrichment_prior,
    labels_to_recall,
    make_perturbation_landscape,
    ora_hypergeom,
    upper_confidence_bound,
)
from iclr26.science.biobo.claim_check import GAIN_BAR, labels_at_rstar
from iclr26.science.biobo.experiment import EXPERIMENT


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


@pytest.fixture(scope="module")
def land():
    return make_perturbation_landscape(3, n_genes=200, n_pathways=20)


# ---------------------------------------------------------------- ORA and prior


def _random_ora(seed: int):
    rng = np.random.default_rng(seed)
    bg = rng.choice(300, size=120, replace=False)
    hits = bg[:15]
    pw = {
        f"P{j}": set(rng.choice(300, size=int(rng.integers(5, 60)), replace=False).tolist())
        for j in range(25)
    }
    pw["P0"] |= set(hits[:8].tolist())  # one clearly enriched pathway
    return hits, bg, pw


def test_ora_pvalues_equal_scipy_hypergeom():
    hits, bg, pw = _random_ora(0)
    t = ora_hypergeom(hits, bg, pw)
    bgs, hs = set(bg.tolist()), set(hits.tolist())
    for name, p in zip(t["pathway"], t["p"]):
        k, size = len(pw[name] & hs), len(pw[name] & bgs)
        ref = hypergeom.sf(k - 1, len(bgs), size, len(hs)) if size else 1.0
        assert abs(p - ref) <= 1e-12
    assert t.loc[t["pathway"] == "P0", "p"].item() < 1e-4


def test_bh_matches_statsmodels():
    p = np.random.default_rng(1).random(40) ** 3
    assert np.allclose(benjamini_hochberg(p), multipletests(p, method="fdr_bh")[1], atol=1e-14)
    hits, bg, pw = _random_ora(2)
    t = ora_hypergeom(hits, bg, pw)
    assert np.allclose(t["q"], multipletests(t["p"], method="fdr_bh")[1], atol=1e-14)


def test_prior_in_unit_interval_and_uniform_without_enrichment():
    hits, bg, pw = _random_ora(0)
    t = ora_hypergeom(hits, bg, pw)
    pi, src = enrichment_prior(t, pw, 300, return_source=True)
    assert np.all(pi > 0) and np.all(pi <= 1) and np.isclose(pi.max(), 1.0)
    enriched = t[t["q"] < 0.25].sort_values("p")
    best = enriched["pathway"].iloc[0]  # the most significant pathway sets pi = 1 for all its genes
    assert all(src[g] == best and pi[g] == 1.0 for g in pw[best])
    none = t.assign(q=1.0)
    assert np.array_equal(enrichment_prior(none, pw, 300), np.ones(300))
    unannotated = set(range(300)) - set().union(*pw.values())
    if unannotated:
        assert pi[min(unannotated)] == pytest.approx(0.1 / (0.1 + (-np.log10(t["p"].min()))))


# ---------------------------------------------------------------- pi-BO


def test_pibo_beta_zero_is_base_ranking_and_decays():
    g = torch.Generator().manual_seed(0)
    alpha = torch.randn(50, generator=g, dtype=torch.float64)
    pi = torch.rand(50, generator=g, dtype=torch.float64).clamp_min(1e-3)
    base = torch.argsort(alpha, descending=True)
    p0 = PiBO(lambda x: alpha, pi, beta=0.0, n=1)
    assert torch.equal(torch.argsort(p0(torch.arange(50)), descending=True), base)
    shifted = alpha - alpha.min()
    big = PiBO(lambda x: alpha, pi, beta=5.0, n=10**9)(torch.arange(50))
    assert torch.allclose(big, shifted, rtol=1e-7)
    strong = PiBO(lambda x: alpha, pi, beta=5.0, n=1)(torch.arange(50))
    assert torch.allclose(strong, shifted * pi**5.0)
    assert not torch.equal(torch.argsort(strong, descending=True), base)


def test_biobo_beta_zero_equals_plain_multimodal(land):
    rng = np.random.default_rng(0)
    obs = rng.choice(200, 20, replace=False)
    a = BioBO(land.embeddings, land.pathways, beta=0.0, fit_iters=5).suggest(obs, land.y[obs], 10)
    b = BioBO(land.embeddings, land.pathways, use_prior=False, fit_iters=5).suggest(obs, land.y[obs], 10)
    assert np.array_equal(a, b)


# ---------------------------------------------------------------- GP


def test_gp_posterior_matches_sklearn():
    rng = np.random.default_rng(0)
    x, y, xs = rng.normal(size=(30, 3)), rng.normal(size=30), rng.normal(size=(40, 3))
    ls, s2, noise = [0.7, 1.3, 2.0], 1.7, 0.05
    gp = ExactGP([3])
    gp.set_hyperparameters([ls], [s2], noise, mean=0.0)
    gp.condition(x, y)
    mean, var = gp.posterior(xs)
    k = ConstantKernel(s2, "fixed") * Matern(length_scale=ls, length_scale_bounds="fixed", nu=2.5)
    sk = GaussianProcessRegressor(k, alpha=noise, optimizer=None, normalize_y=True).fit(x, y)
    m_ref, sd_ref = sk.predict(xs, return_std=True)
    assert np.allclose(mean.numpy(), m_ref, atol=1e-8)
    assert np.allclose(var.numpy(), sd_ref**2, atol=1e-8)


def _matern_np(a, b, ls, s2):
    r = np.sqrt((((a[:, None, :] - b[None, :, :]) / ls) ** 2).sum(-1))
    return s2 * (1 + np.sqrt(5) * r + 5 * r**2 / 3) * np.exp(-np.sqrt(5) * r)


def test_additive_gp_posterior_matches_closed_form_after_fit():
    rng = np.random.default_rng(1)
    x, xs = rng.normal(size=(25, 5)), rng.normal(size=(15, 5))
    y = np.sin(x[:, 0]) + x[:, 3] ** 2 + 0.1 * rng.normal(size=25)
    gp = ExactGP([2, 3]).fit(x, y, iters=20)
    h = gp.hyperparameters()
    before = ExactGP([2, 3]).condition(x, y).neg_mll()
    assert gp.neg_mll() < before  # the fit improves the marginal likelihood

    def k(a, b):
        return _matern_np(
            a[:, :2], b[:, :2], np.array(h["lengthscales"][0]), h["outputscales"][0]
        ) + _matern_np(a[:, 2:], b[:, 2:], np.array(h["lengthscales"][1]), h["outputscales"][1])

    mu, sd = y.mean(), y.std()
    ys = (y - mu) / sd - h["mean"]
    kinv = np.linalg.inv(k(x, x) + h["noise"] * np.eye(25))
    m_ref = (h["mean"] + k(xs, x) @ kinv @ ys) * sd + mu
    v_ref = (np.diag(k(xs, xs)) - np.einsum("ij,jk,ik->i", k(xs, x), kinv, k(xs, x))) * sd**2
    mean, var = gp.posterior(xs)
    assert np.allclose(mean.numpy(), m_ref, atol=1e-8)
    assert np.allclose(var.numpy(), v_ref, atol=1e-8)
    _, cov = gp.posterior(xs, full_cov=True)
    assert np.allclose(np.diag(cov.numpy()), v_ref, atol=1e-8)


# ---------------------------------------------------------------- selection


@pytest.mark.parametrize("acq", ["ucb", "ei", "ts"])
def test_batch_unique_requested_size_and_deterministic(land, acq):
    obs = np.random.default_rng(1).choice(200, 20, replace=False)
    picks = []
    for _ in range(2):
        bo = BioBO(land.embeddings, land.pathways, acq=acq, fit_iters=5, seed=4)
        new = bo.suggest(obs, land.y[obs], 12)
        obs2 = np.concatenate([obs, new])
        new2 = bo.suggest(obs2, land.y[obs2], 12)
        picks.append(np.concatenate([new, new2]))
    for p in picks:
        assert len(p) == 24 and len(set(p.tolist())) == 24 and not set(p.tolist()) & set(obs.tolist())
    assert np.array_equal(picks[0], picks[1])
    ex = bo.explain()
    assert set(ex.columns) >= {"cycle", "pathway", "p", "q", "overlap"} and (ex["q"] < 0.25).all()
    assert len(bo.explain_genes()) == 24


def test_baselines_pick_valid_batches(land):
    obs = np.arange(30)
    for sel in (RandomSelector(200, 0), EAGreedy(land.pathways, 200)):
        new = sel.suggest(obs, land.y[obs], 170)
        assert sorted(new.tolist()) == list(range(30, 200))


def test_landscape_deterministic_and_corrupted():
    a = make_perturbation_landscape(5, n_genes=300, n_pathways=15)
    b = make_perturbation_landscape(5, n_genes=300, n_pathways=15)
    assert np.array_equal(a.y, b.y) and a.pathways == b.pathways
    assert a.pathways != a.true_pathways and a.info["n_dropped"] > 0
    c = make_perturbation_landscape(5, n_genes=300, n_pathways=15, annotation_noise=0.0, signal="none")
    assert c.pathways == c.true_pathways
    d = make_perturbation_landscape(5, n_genes=300, n_pathways=15, signal="none")
    # the control shuffles the pathway effects across genes: same total, no excess in the causal pathways
    assert np.isclose(a.y.sum(), d.y.sum()) and not np.allclose(a.y, d.y)
    causal = sorted(set().union(*(a.true_pathways[p] for p in a.causal)))
    assert a.y[causal].mean() > d.y[causal].mean()
    assert np.all(np.isfinite(c.y))


def test_pathway_gene_not_in_pool_warns_with_count(land):
    pw = dict(land.pathways)
    pw["bad"] = {5, 10_000, -1}
    with pytest.warns(UserWarning, match="dropped 2 pathway gene ids"):
        bo = BioBO(land.embeddings, pw)
    assert bo.pathways["bad"] == {5}


def test_ucb_convention():
    m, v = torch.tensor([0.0, 1.0], dtype=torch.float64), torch.tensor([4.0, 1.0], dtype=torch.float64)
    assert torch.allclose(upper_confidence_bound(m, v, 2.0), m + np.sqrt(2.0) * v.sqrt())


# ---------------------------------------------------------------- claim check


def test_efficiency_gain_and_labels():
    labels = [30, 60, 90, 120]
    assert labels_to_recall(labels, [0.0, 0.2, 0.5, 0.6], 0.5) == 90
    assert np.isnan(labels_to_recall(labels, [0.0, 0.2, 0.3, 0.4], 0.5))
    assert efficiency_gain(labels, [0.1, 0.5, 0.6, 0.6], [0.0, 0.1, 0.3, 0.5]) == pytest.approx(1 - 60 / 120)
    assert efficiency_gain(labels, [0, 0, 0, 0], [0.1, 0.2, 0.3, 0.5]) == 0.0


def _rows(g, c, base=100.0):
    """Per-seed gains g (pathway) and c (control) as stored labels at r*: L_biobo = (1 - gain) L_conv."""
    return [
        {
            "pathway_rstar_labels_biobo": (1 - a) * base,
            "pathway_rstar_labels_conv": base,
            "control_rstar_labels_biobo": (1 - b) * base,
            "control_rstar_labels_conv": base,
        }
        for a, b in zip(g, c)
    ]


def test_labels_at_rstar_give_the_gain():
    labels = [30, 60, 90, 120]
    a, b = [0.1, 0.5, 0.6, 0.6], [0.0, 0.1, 0.3, 0.5]
    la, lb = labels_at_rstar(labels, a, b)
    assert (la, lb) == (60, 120) and 1 - la / lb == efficiency_gain(labels, a, b)
    assert labels_at_rstar(labels, [0, 0, 0, 0], b) == (30, 30)  # r* = 0: gain 0, as the brief defines it


def test_decider_three_outcomes():
    d = biobo_decider()
    assert d(_rows([0.3, 0.35, 0.4, 0.3], [0.0, 0.05, -0.05, 0.0])).outcome == Outcome.SUPPORTED
    assert d(_rows([-0.1, 0.0, 0.05, -0.05], [0.0] * 4)).outcome == Outcome.NOT_SUPPORTED
    assert d(_rows([0.3, 0.4, 0.35, 0.3], [-0.3, -0.4, -0.2, -0.3])).outcome == Outcome.NOT_SUPPORTED
    assert d(_rows([0.1, 0.15, 0.12, 0.1], [0.0] * 4)).outcome == Outcome.NOT_SUPPORTED  # interval < 20%
    assert d(_rows([0.05, 0.3, 0.1, 0.25], [0.0] * 4)).outcome == Outcome.INCONCLUSIVE
    assert d(_rows([0.3, 0.4, 0.35, 0.3], [-0.15] * 4)).outcome == Outcome.INCONCLUSIVE  # control in between
    assert d(_rows([0.3], [0.0])).outcome == Outcome.INCONCLUSIVE
    # sabotage: BioBO's labels replaced by conventional BO's -> gain 0 -> not supported
    same = [
        {**r, "pathway_rstar_labels_biobo": r["pathway_rstar_labels_conv"]}
        for r in _rows([0.3] * 4, [0.0] * 4)
    ]
    assert d(same).outcome == Outcome.NOT_SUPPORTED


def test_a_negative_mean_gain_with_a_wide_interval_is_no_longer_a_refutation():
    """The brief refuted on mean gain <= 0; now the whole interval must lie below the claimed 20%."""
    d = biobo_decider()
    verdict = d(_rows([0.58, -0.8, 0.25, -0.6, -0.5, 0.73], [0.0] * 6))
    assert verdict.estimate <= 0 and verdict.interval[1] > GAIN_BAR
    assert verdict.outcome == Outcome.INCONCLUSIVE


def test_ea_ablation_rule():
    claim = next(c for c in EXPERIMENT.claims if c.id == "biobo-ea-over-multimodal")
    la, lb = "pathway_rstar_mm_labels_biobo", "pathway_rstar_mm_labels_multimodal"

    def rows(gains):
        return [{la: (1 - g) * 100.0, lb: 100.0} for g in gains]

    assert claim.judge(rows([0.1, 0.15, 0.05, 0.12])).outcome == Outcome.SUPPORTED
    assert claim.judge(rows([-0.1, -0.15, -0.05, -0.12])).outcome == Outcome.NOT_SUPPORTED
    assert claim.judge(rows([0.1, -0.15, 0.05, -0.12])).outcome == Outcome.INCONCLUSIVE


def test_sabotage_broken_ora_fails_oracle():
    """A p-value without the -1 (P(X > k) instead of P(X >= k)) disagrees with scipy: the oracle can fail."""
    hits, bg, pw = _random_ora(0)
    t = ora_hypergeom(hits, bg, pw)
    hs, bgs = set(hits.tolist()), set(bg.tolist())
    row = t[t["pathway"] == "P0"].iloc[0]
    wrong = hypergeom.sf(len(pw["P0"] & hs), len(bgs), len(pw["P0"] & bgs), len(hs))
    assert abs(row["p"] - wrong) > 1e-12
    assert isinstance(t, pd.DataFrame)
