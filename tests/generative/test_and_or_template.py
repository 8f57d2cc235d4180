"""Tests of the AND-OR template: score = sum of term evidence, moment matching, pursuit, expansion, prescription."""

import numpy as np
import pytest

from iclr26.generative.and_or_template import (
    LABELLED_PARADIGMS,
    TERMS,
    AndOrTemplate,
    CompositionRenderer,
    Part,
    fit_lambdas,
    geometry,
    pursue,
    rating,
    sample_scene,
    term_features,
)
from iclr26.generative.and_or_template.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = [p for p in LABELLED_PARADIGMS for _ in range(60)]
    X = [sample_scene(p, rng) for p in y]
    return X, y, rng


@pytest.fixture(scope="module")
def model(data):
    X, y, _ = data
    return AndOrTemplate(n_ref=2000, n_branches=4).fit(X, y)


def test_score_is_sum_of_term_evidence(model, data):
    X, _, _ = data
    for s in X[::37]:
        ev = model.evidence(s)
        assert model.score(s) == pytest.approx(sum(ev.values()), abs=1e-10)
        tree = model.parse(s)
        assert tree.score == pytest.approx(model.score(s), abs=1e-10)
        assert sum(t["evidence"] for t in tree.terms) == pytest.approx(tree.score, abs=1e-10)


def test_moment_matching_on_reference_sample(model):
    n_checked = 0
    for br in model.branches_:
        # per-term tilted mean E_q[h exp(lambda h)] / Z on the fixed reference sample = the data mean
        w = np.exp(br.lam * model.h_ref_[:, br.terms])
        tilted = (model.h_ref_[:, br.terms] * w).mean(0) / w.mean(0)
        assert br.log_z == pytest.approx(np.log(w.mean(0)), abs=1e-9)
        ok = ~br.clipped
        assert np.abs(tilted[ok] - br.data_mean[ok]).max(initial=0) < 1e-6
        n_checked += int(ok.sum())
    assert n_checked >= 10


def test_fit_lambdas_toy_matches_moments():
    rng = np.random.default_rng(1)
    h = rng.random((5000, 3))
    target = np.array([0.2, 0.5, 0.8])
    lam, log_z, gain, clipped = fit_lambdas(h, target)
    w = np.exp(lam * h)
    assert ((h * w).mean(0) / w.mean(0)) == pytest.approx(target, abs=1e-6)
    assert abs(lam[1]) < 0.05 and lam[0] < 0 < lam[2]
    assert np.all(gain >= -1e-12) and not clipped.any()
    lam0, lz0, g0, _ = fit_lambdas(h, h.mean(0))  # data = q: lambda = 0, evidence 0
    assert (
        np.allclose(lam0, 0, atol=1e-8) and np.allclose(lz0, 0, atol=1e-8) and np.allclose(g0, 0, atol=1e-10)
    )


def test_lambda_zero_contributes_nothing(model, data):
    X, _, _ = data
    br = model.branches_[0]
    h = term_features(geometry(X[:5]))
    lam = br.lam.copy()
    lam[0] = 0.0
    z = np.log(np.exp(lam * model.h_ref_[:, br.terms]).mean(0))
    assert z[0] == 0.0
    assert np.allclose((h[:, br.terms] * lam - z)[:, 0], 0.0)


def test_score_invariant_to_part_order(model):
    rng = np.random.default_rng(3)
    for p in ("diagonal", "frame", "amateur"):
        s = sample_scene(p, rng)
        assert model.score(s[::-1]) == pytest.approx(model.score(s), abs=1e-12)


def test_block_pursuit_recovers_planted_template():
    rng = np.random.default_rng(2)
    X = [
        [
            Part(
                "subject",
                float(np.clip(0.7 + rng.normal(0, 0.01), 0, 1)),
                float(np.clip(0.3 + rng.normal(0, 0.01), 0, 1)),
                0.25,
            )
        ]
        for _ in range(80)
    ]
    m = AndOrTemplate(n_branches=1, n_ref=2000).fit(X)
    names = [TERMS[k].name for k in m.branches_[0].terms]
    assert names[0] == "subject:pos(0.7,0.3)"
    assert "subject:scale(0.25)" in names
    # local mutual exclusivity: no two selected terms strongly correlated under q
    t = m.branches_[0].terms
    c = np.abs(m.corr_ref_[np.ix_(t, t)]) - np.eye(len(t))
    assert c.max() <= m.rho


def test_k1_em_is_single_template_pursuit(data):
    X, y, _ = data
    sub = [x for x, lab in zip(X, y) if lab == "centred"]
    m = AndOrTemplate(n_branches=1, n_ref=2000).fit(sub)
    idx, lam, *_ = pursue(term_features(geometry(sub)), m.h_ref_, m.corr_ref_, m.penalty, m.rho, m.max_terms)
    assert len(m.branches_) == 1
    assert np.array_equal(m.branches_[0].terms, idx) and np.allclose(m.branches_[0].lam, lam)


def test_paradigm_prediction(model, data):
    _, _, rng = data
    for p in LABELLED_PARADIGMS:
        test = [sample_scene(p, rng) for _ in range(10)]
        assert np.mean(np.array(model.predict(test)) == p) >= 0.8


def test_prescription_never_lowers_score(model):
    rng = np.random.default_rng(5)
    n_given = 0
    for _ in range(30):
        s = sample_scene("amateur", rng)
        for pr in model.prescribe(s, k=2):
            n_given += 1
            after = pr.apply(s)
            assert model.score(after) >= model.score(s)
            assert model.score(after) - model.score(s) == pytest.approx(pr.predicted_gain, abs=1e-9)
    assert n_given > 0


def test_expansion_adds_branch_for_unseen_paradigm(model, data):
    X, y, rng = data
    U = [sample_scene(p, rng) for p in ("golden", "thirds", "centred") for _ in range(60)]
    m = AndOrTemplate(n_ref=2000, n_branches=4).fit(X, y, unlabeled=U)
    assert len(m.branches_) > m.n_labelled_branches_
    pred = np.array(m.predict(U))
    new = np.char.startswith(pred.astype(str), "expanded")
    assert new[:60].mean() >= 0.7 and not new[60:].any()


def test_renderer_deterministic_and_rating():
    rng = np.random.default_rng(0)
    s = sample_scene("horizon", rng)
    r = CompositionRenderer(32)
    assert np.array_equal(np.asarray(r.render(s)), np.asarray(r.render(s)))
    assert rating([Part("subject", 1 / 3, 1 / 3, 0.2)]) > rating([Part("subject", 0.05, 0.9, 0.2)])


def test_claims_can_pass_and_fail():
    good = {
        "ari": 0.95,
        "paradigm_acc": 0.9,
        "spearman_template_200": 0.7,
        "spearman_cnn_200": 0.4,
        "prescription_raise_frac": 0.9,
        "expansion_purity": 0.9,
        "expansion_recall": 0.8,
    }
    rows = [{k: v + 0.002 * i for k, v in good.items()} for i in range(3)]
    claim = EXPERIMENT.claims[0]
    assert claim.judge(rows).outcome is Outcome.SUPPORTED
    bad = [{**r, "spearman_cnn_200": r["spearman_template_200"] + 0.1} for r in rows]
    assert claim.judge(bad).outcome is Outcome.NOT_SUPPORTED
    weak_a = [{**r, "ari": 0.3} for r in rows]
    assert claim.judge(weak_a).outcome is Outcome.INCONCLUSIVE
