"""Oracle tests of local linear attention (arXiv 2510.01450): closed form, limits, external references."""

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge
from statsmodels.nonparametric.kernel_regression import KernelReg

from iclr26.attention.lla import (
    LocalLinearAttention,
    global_ridge,
    linear_attention,
    lla,
    lla_mixer,
    lla_weights,
    local_linear_attention,
    nadaraya_watson,
    ridge_coefficients,
)
from iclr26.attention.lla.claim_check import (
    LEARNED_PRECONDITION,
    lla_claim_decider,
    study_a_decider,
    study_b_decider,
)
from iclr26.attention.lla.experiment import CLAIM_DRAWS, EXPERIMENT, LLAConfig
from iclr26.attention.lla.study_a import BASELINES, FAMILIES
from iclr26.attention.lla.study_b import InContextRegressor, StudyBConfig
from iclr26.harness.claims import Outcome
from iclr26.lab.flex import attention, causal
from iclr26.lab.transformer import Transformer

F64 = torch.float64


def rand(*shape, seed=0, dtype=F64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def qkv(b=2, h=2, t=13, d=3, dv=2, seed=0, dtype=F64):
    return (
        rand(b, h, t, d, seed=seed, dtype=dtype),
        rand(b, h, t, d, seed=seed + 1, dtype=dtype),
        rand(b, h, t, dv, seed=seed + 2, dtype=dtype),
    )


@pytest.mark.parametrize("kernel", ["exp_dot", "rbf", "uniform"])
def test_corrected_weights_sum_to_one_and_go_negative(kernel):
    q, k, _ = qkv(t=17)
    a = lla_weights(q, k, lam=0.5, kernel=kernel)
    torch.testing.assert_close(a.sum(-1), torch.ones(a.shape[:-1], dtype=F64), rtol=0, atol=1e-10)
    assert (a < 0).any(), "LLA weights should have some negative mass"
    assert torch.all(a.triu(1) == 0), "causal weights above the diagonal must be exactly zero"


def test_huge_ridge_is_softmax_attention():
    q, k, v = qkv(t=11, d=4)
    out = local_linear_attention(q, k, v, lam=1e12)
    ref = attention(q, k, v, mask_mod=causal, backend="dense")
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-6)


def test_uniform_kernel_tiny_ridge_is_least_squares_with_intercept():
    n, m, d = 20, 5, 3
    k, v, q = rand(n, d, seed=1).numpy(), rand(n, 2, seed=2).numpy(), rand(m, d, seed=3).numpy()
    design = np.hstack([np.ones((n, 1)), k])
    coef = np.linalg.lstsq(design, v, rcond=None)[0]
    expected = np.hstack([np.ones((m, 1)), q]) @ coef
    out = local_linear_attention(
        *(torch.from_numpy(x)[None, None] for x in (q, k, v)),
        lam=1e-10,
        kernel="uniform",
        ridge="const",
        causal=False,
    )[0, 0]
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-8)


def test_streamed_ridge_undoes_the_running_max_shift():
    scores = rand(3, 40, 40, seed=4) + 50.0
    naive = 2 * 0.7 / torch.exp(scores).sum(-1)
    for block in (1, 7, 16, 40):
        streamed = ridge_coefficients(scores, 0.7, "scaled", block_size=block)
        torch.testing.assert_close(streamed, naive, rtol=1e-10, atol=0)
    torch.testing.assert_close(ridge_coefficients(scores, 0.7, "scaled"), naive, rtol=1e-12, atol=0)


def test_sabotage_forgetting_the_shift_breaks_the_ridge():
    """A streamed ridge that forgets exp(-m_i) (2 lam / omega~) is off by e^{m}: the oracle catches it."""
    scores = rand(2, 30, 30, seed=5) + 50.0
    naive = ridge_coefficients(scores, 1.0, "scaled")
    shifted = torch.exp(scores - scores.amax(-1, keepdim=True)).sum(-1)
    broken = 2.0 / shifted
    assert not torch.allclose(broken, naive, rtol=1e-3)


def test_exact_on_affine_data_where_softmax_is_not():
    d, t = 3, 12
    k = rand(1, 1, t, d, seed=6)
    q = rand(1, 1, t, d, seed=7)
    a_mat, c = rand(2, d, seed=8), rand(2, seed=9)
    v = k @ a_mat.T + c
    out = local_linear_attention(q, k, v, lam=1e-13, ridge="const")
    target = q @ a_mat.T + c
    torch.testing.assert_close(out[..., d:, :], target[..., d:, :], rtol=0, atol=1e-8)
    soft = attention(q, k, v, mask_mod=causal, backend="dense")
    assert (soft[..., d:, :] - target[..., d:, :]).abs().max() > 1e-2


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("d", [1, 2])
def test_rbf_local_linear_matches_statsmodels_kernelreg(d):
    n, m, bw = 60, 7, 0.8
    rng = np.random.default_rng(d)
    x = rng.normal(size=(n, d))
    y = np.sin(2 * x).sum(1) + 0.1 * rng.normal(size=n)
    xq = rng.normal(size=(m, d))
    for reg, ours in (("ll", "lla"), ("lc", "nw")):
        kr = KernelReg(y, x, var_type="c" * d, reg_type=reg, bw=[bw] * d)
        expected = kr.fit(xq)[0]
        xt, yt, qt = torch.from_numpy(x), torch.from_numpy(y)[:, None], torch.from_numpy(xq)
        if ours == "lla":
            got = lla(qt, xt, yt, lam=1e-12, kernel="rbf", bandwidth=bw, ridge="const")[:, 0]
        else:
            got = nadaraya_watson(qt, xt, yt, kernel="rbf", bandwidth=bw)[:, 0]
        np.testing.assert_allclose(got.numpy(), expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("t", [1, 13, 29])
@pytest.mark.parametrize(
    ("kernel", "ridge", "is_causal"),
    [("exp_dot", "scaled", True), ("rbf", "scaled", False), ("uniform", "const", True)],
)
def test_blockwise_and_cg_equal_the_materialised_form(t, kernel, ridge, is_causal):
    q, k, v = qkv(t=t, d=3, seed=10)
    opts = {"lam": 0.3, "kernel": kernel, "ridge": ridge, "causal": is_causal}
    ref = local_linear_attention(q, k, v, **opts)
    for dtype, tol in ((F64, 1e-10), (torch.float32, 1e-4)):
        args = [x.to(dtype) for x in (q, k, v)]
        for solver in ("cholesky", "cg"):
            for block in (None, 4, 8, 64):
                out = local_linear_attention(*args, **opts, solver=solver, block_size=block)
                assert out.dtype == dtype
                torch.testing.assert_close(out.to(F64), ref, rtol=0, atol=tol)


def test_causality_future_values_do_not_leak():
    q, k, v = qkv(t=15)
    base = local_linear_attention(q, k, v, lam=1.0)
    for i in (0, 6, 13):
        v2, k2 = v.clone(), k.clone()
        v2[..., i + 1 :, :] += 5 * rand(*v2[..., i + 1 :, :].shape, seed=11)
        k2[..., i + 1 :, :] += 5 * rand(*k2[..., i + 1 :, :].shape, seed=12)
        for block in (None, 4):
            out = local_linear_attention(q, k2, v2, lam=1.0, block_size=block)
            torch.testing.assert_close(out[..., : i + 1, :], base[..., : i + 1, :], rtol=0, atol=1e-12)


def test_first_position_returns_first_value():
    q, k, v = qkv(t=6)
    for kernel in ("exp_dot", "rbf", "uniform"):
        out = local_linear_attention(q, k, v, lam=1e-3, kernel=kernel)
        torch.testing.assert_close(out[..., 0, :], v[..., 0, :], rtol=0, atol=1e-14)


def test_gradcheck_float64():
    q, k, v = (x.requires_grad_() for x in qkv(b=1, h=1, t=5, d=2, dv=2, seed=13))
    lam = torch.tensor([0.7], dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda q, k, v, lam: local_linear_attention(q, k, v, lam=lam), (q, k, v, lam)
    )
    assert torch.autograd.gradcheck(
        lambda q, k, v: local_linear_attention(q, k, v, lam=0.5, kernel="rbf", block_size=2), (q, k, v)
    )


def test_estimators_match_references():
    k, v, q = rand(4, 30, 3, seed=14), rand(4, 30, 2, seed=15), rand(4, 6, 3, seed=16)
    ridge_ref = np.stack(
        [Ridge(alpha=2.0).fit(k[b].numpy(), v[b].numpy()).predict(q[b].numpy()) for b in range(4)]
    )
    np.testing.assert_allclose(global_ridge(q, k, v, lam=2.0).numpy(), ridge_ref, atol=1e-10)
    manual = torch.einsum("bnv,bnd,bmd->bmv", v, k, q) / 30
    torch.testing.assert_close(linear_attention(q, k, v), manual)
    # LLA with a huge ridge is the Nadaraya-Watson estimator with the same kernel
    torch.testing.assert_close(
        lla(q, k, v, lam=1e12, bandwidth=0.9), nadaraya_watson(q, k, v, bandwidth=0.9), rtol=0, atol=1e-8
    )


def test_layer_in_the_shared_transformer_learns_lam_per_head():
    layer = LocalLinearAttention(8, n_heads=2, lam_init=1.0)
    torch.testing.assert_close(layer.lam, torch.ones(2))
    model = Transformer(7, 10, 8, 2, 2, mixer=lla_mixer, init_seed=0)
    logits = model(torch.randint(0, 7, (2, 10), generator=torch.Generator().manual_seed(0)))
    logits.sum().backward()
    theta = model.blocks[0].attn.theta
    assert logits.shape == (2, 10, 7) and theta.grad is not None and theta.grad.abs().sum() > 0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"lam": -1.0}, "lam"),
        ({"lam": 0.0}, "singular"),
        ({"lam": 1.0, "bandwidth": 0.0}, "bandwidth"),
        ({"lam": 1.0, "solver": "cg", "cg_maxiter": 0}, "cg_maxiter"),
        ({"lam": 1.0, "kernel": "cosine"}, "kernel"),
    ],
)
def test_bad_arguments_raise(kwargs, words):
    q, k, v = qkv(t=3)
    with pytest.raises(ValueError, match=words):
        local_linear_attention(q, k, v, **kwargs)


FAMS = ("f1", "f2", "f3")
BASES = ("nw", "ridge")  # the last one is the best baseline in claim_rows


def claim_rows(lla_factor, b_ratio, seeds=3, draws=10, trivial=1.0, fams=FAMS, bases=BASES):
    """Hand-made per-seed metrics: LLA's Study A MSE = factor x the best baseline's; Study B ratio per seed."""
    rng = np.random.default_rng(0)
    rows = []
    for s in range(seeds):
        row = {"b_lla_mse": 0.5 * b_ratio[s], "b_softmax_mse": 0.5}
        row["b_best_mse_to_trivial"] = min(row["b_lla_mse"], row["b_softmax_mse"]) / trivial
        for f, fac in zip(fams, lla_factor):
            for r in range(draws):
                base = 0.1 * np.exp(rng.normal(scale=0.1))
                row[f"claimA_{f}_{bases[-1]}_mse_{r:02d}"] = base
                for other in bases[:-1]:
                    row[f"claimA_{f}_{other}_mse_{r:02d}"] = 3 * base
                row[f"claimA_{f}_lla_mse_{r:02d}"] = fac * base * np.exp(rng.normal(scale=0.05))
        rows.append(row)
    return rows


def test_claim_decider_supported_not_supported_inconclusive():
    decide = lla_claim_decider(FAMS, BASES, 10)
    good = claim_rows((0.5, 0.6, 1.5), (0.8, 0.7, 0.85))
    assert decide(good).outcome == Outcome.SUPPORTED
    assert study_a_decider(FAMS, BASES, 10)(good).outcome == Outcome.SUPPORTED
    assert study_b_decider()(good).outcome == Outcome.SUPPORTED
    # sabotage: LLA worse than the best baseline in two families -> not supported
    assert decide(claim_rows((1.5, 1.4, 0.5), (0.8, 0.7, 0.85))).outcome == Outcome.NOT_SUPPORTED
    # softmax better by >= 10% -> not supported whatever Study A says
    assert decide(claim_rows((0.5, 0.6, 0.5), (1.2, 1.3, 1.15))).outcome == Outcome.NOT_SUPPORTED
    # Study A wins, Study B too close to call -> inconclusive
    assert decide(claim_rows((0.5, 0.6, 0.5), (0.95, 1.02, 0.93))).outcome == Outcome.INCONCLUSIVE


def test_study_a_declares_every_draw_it_reads_and_one_seed_is_judged():
    dec = study_a_decider(FAMS, BASES, 10)
    assert len(dec.metrics) == 3 * 3 * 10
    rows = claim_rows((0.5, 0.6, 1.5), (0.8, 0.7, 0.85))
    assert dec(rows[:1]).outcome == Outcome.SUPPORTED  # 10 pooled draws give the interval
    missing = [{k: v for k, v in r.items() if not k.endswith("_mse_09")} for r in rows]
    assert dec(missing).outcome == Outcome.INCONCLUSIVE and "missing" in dec(missing).explanation
    # sabotage: LLA's draws replaced by the best baseline's (ridge) in every family -> never supported
    same = [
        {
            **r,
            **{
                f"claimA_{f}_lla_mse_{i:02d}": r[f"claimA_{f}_ridge_mse_{i:02d}"]
                for f in FAMS
                for i in range(10)
            },
        }
        for r in rows
    ]
    assert dec(same).outcome is not Outcome.SUPPORTED


def test_study_b_claims_are_not_reproduced_when_neither_model_learned():
    claims = {c.id: c for c in EXPERIMENT.claims}
    for cid in ("lla-beats-baselines", "study-b-in-context-regression"):
        claim = claims[cid]

        def rows(*args, **kw):
            return claim_rows(*args, fams=FAMILIES, bases=BASELINES, **kw)

        assert LEARNED_PRECONDITION in claim.preconditions
        # neither model beat the zero predictor: Study B cannot speak, even with a 2x gap
        untrained = rows((0.5, 0.6, 0.5), (2.1, 2.0, 2.05), trivial=0.5)
        verdict = claim.judge(untrained)
        assert verdict.outcome is Outcome.NOT_REPRODUCED and "b_best_mse_to_trivial" in verdict.explanation
        # learned: real verdicts both ways
        assert claim.judge(rows((0.5, 0.6, 1.5), (0.8, 0.7, 0.85))).outcome is Outcome.SUPPORTED
        assert claim.judge(rows((0.5, 0.6, 0.5), (1.2, 1.3, 1.15))).outcome is Outcome.NOT_SUPPORTED
    assert not claims["study-a-test-time-regression"].preconditions  # Study A trains nothing


def test_every_budget_has_the_claims_number_of_draws():
    assert all(cfg.a_draws == CLAIM_DRAWS for cfg in EXPERIMENT.configs.values())
    with pytest.raises(ValueError, match="a_draws"):
        LLAConfig(a_draws=3)


@pytest.mark.parametrize("tokens", ["pair", "interleaved"])
def test_study_b_prediction_never_sees_its_own_target(tokens):
    cfg = StudyBConfig(d_x=4, n_pairs=6, d_model=16, n_heads=2, tokens=tokens)
    model = InContextRegressor(cfg, "lla", init_seed=0)
    xs, ys = torch.randn(3, 6, 4), torch.randn(3, 6, 1)
    moved = ys.clone()
    moved[:, 3] += 5.0
    base, after = model(xs, ys), model(xs, moved)
    assert base.shape == (3, 6)
    assert torch.equal(base[:, :4], after[:, :4])  # y_3 reaches no prediction up to y_3's own
    assert (base[:, 4:] - after[:, 4:]).abs().max() > 0  # and does reach the later ones


def test_study_b_rejects_an_unknown_tokenisation():
    with pytest.raises(ValueError, match="tokens"):
        StudyBConfig(tokens="triples")
