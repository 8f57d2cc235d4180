"""Correctness tests for FACT (arXiv 2507.05644): closed forms, autograd oracles, estimators, the claim check."""

import math

import numpy as np
import pytest
import scipy.linalg
import torch
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import check_estimator

from iclr26.harness.claims import Outcome
from iclr26.optim.fact_nfa import (
    RFM,
    FactRFM,
    FactRFMClassifier,
    RFMClassifier,
    agop_matrix,
    fact_matrix,
    feature_agreement,
    gaussian_kernel,
    kernel_fact_and_agop,
    kernel_input_gradients,
    laplace_kernel,
    psd_power,
    rfm_iterates,
    update_features,
)
from iclr26.optim.fact_nfa.claim_check import fact_claim_decider
from iclr26.optim.fact_nfa.experiment import EXPERIMENT, FactNfaConfig, _e2, modular_addition


def half_mse(out, y):
    return 0.5 * ((out - y) ** 2).sum(1).mean()


def tiny_net(d=4, width=6, out=2, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(d, width), torch.nn.Tanh(), torch.nn.Linear(width, out)
    ).double()


def rel(a, b):
    return float(torch.linalg.norm(a - b) / torch.linalg.norm(b))


def test_fact_exact_on_closed_form_ridge():
    """(1) Ridge linear regression in closed form: W^T W equals the FACT matrix to 1e-10 (float64)."""
    g = torch.Generator().manual_seed(0)
    n, d, k, lam = 50, 5, 3, 0.1
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    Y = torch.randn(n, k, generator=g, dtype=torch.float64)
    # (1/n) sum (W x - y) x^T + lam W = 0  =>  W = (Y^T X / n)(X^T X / n + lam I)^{-1}
    W = torch.linalg.solve((X.T @ X / n + lam * torch.eye(d, dtype=torch.float64)).T, (Y.T @ X / n).T).T
    model = torch.nn.Sequential(torch.nn.Linear(d, k, bias=False)).double()
    with torch.no_grad():
        model[0].weight.copy_(W)
    for form in ("raw", "symmetric"):
        assert rel(fact_matrix(model, "0", X, Y, half_mse, lam, form=form), W.T @ W) < 1e-10
    # (F F^T)^{1/2}: W^T W has rank 3 < 5, and the square root of round-off-sized eigenvalues is ~1e-9
    assert rel(fact_matrix(model, "0", X, Y, half_mse, lam, form="sqrt"), W.T @ W) < 1e-7


def test_fact_holds_after_lbfgs_on_tanh_net():
    """(2) A 2-layer tanh net optimised by L-BFGS to ||grad|| < 1e-9 in float64: FACT rel. error < 1e-5, both layers."""
    g = torch.Generator().manual_seed(1)
    X = torch.randn(40, 3, generator=g, dtype=torch.float64)
    Y = torch.sin(X[:, :1]) + 0.1 * torch.randn(40, 1, generator=g, dtype=torch.float64)
    net, lam = tiny_net(3, 6, 1, seed=1), 5e-2
    names = [n for n, _ in net.named_parameters()]
    shapes = [p.shape for p in net.parameters()]

    def objective(flat):
        params, i = {}, 0
        for name, shape in zip(names, shapes):
            params[name] = flat[i : i + shape.numel()].reshape(shape)
            i += shape.numel()
        out = torch.func.functional_call(net, params, (X,))
        return half_mse(out, Y) + 0.5 * lam * (
            params["0.weight"].square().sum() + params["2.weight"].square().sum()
        )

    flat = torch.cat([p.detach().reshape(-1) for p in net.parameters()]).requires_grad_(True)
    opt = torch.optim.LBFGS(
        [flat],
        max_iter=2000,
        tolerance_grad=1e-11,
        tolerance_change=0.0,
        history_size=50,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = objective(flat)
        loss.backward()
        return loss

    opt.step(closure)
    theta = flat.detach()
    assert float(torch.func.grad(objective)(theta).norm()) < 1e-9
    torch.nn.utils.vector_to_parameters(theta, net.parameters())
    for layer in ("0", "2"):
        W = net[int(layer)].weight.detach()
        assert rel(fact_matrix(net, layer, X, Y, half_mse, lam), W.T @ W) < 1e-5


def test_agop_of_linear_function_is_outer_product():
    """(3) f(x) = w^T x: AGOP = w w^T, and AGOP^{1/2} = w w^T / ||w||."""
    w = torch.tensor([[1.0, -2.0, 0.5]], dtype=torch.float64)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1, bias=False)).double()
    with torch.no_grad():
        model[0].weight.copy_(w)
    X = torch.randn(7, 3, dtype=torch.float64)
    assert torch.allclose(agop_matrix(model, "0", X), w.T @ w, atol=1e-12)
    assert torch.allclose(agop_matrix(model, "0", X, 0.5), w.T @ w / w.norm(), atol=1e-8)


def test_hooks_match_brute_force_autograd():
    """(4) FACT and AGOP from hooks equal per-example autograd on a tiny net split by hand."""
    net, lam = tiny_net(), 0.05
    X = torch.randn(9, 4, dtype=torch.float64)
    Y = torch.randn(9, 2, dtype=torch.float64)
    fact_ref = torch.zeros(6, 6, dtype=torch.float64)
    agop_ref = torch.zeros(6, 6, dtype=torch.float64)
    for x, y in zip(X, Y):
        h = torch.tanh(net[0](x)).detach().requires_grad_(True)
        out = net[2](h)
        (r,) = torch.autograd.grad(0.5 * ((out - y) ** 2).sum(), h)  # r_i = dl_i / dh_i
        fact_ref -= torch.outer(r, h.detach()) / (len(X) * lam)
        J = torch.autograd.functional.jacobian(lambda hh: net[2](hh), h.detach())
        agop_ref += J.T @ J / len(X)
    assert torch.allclose(fact_matrix(net, "2", X, Y, half_mse, lam), fact_ref, atol=1e-12)
    assert torch.allclose(agop_matrix(net, "2", X), agop_ref, atol=1e-12)
    # first layer: J_i = d f / d x_i through tanh, brute force
    J0 = torch.stack([torch.autograd.functional.jacobian(net, x) for x in X])
    assert torch.allclose(agop_matrix(net, "0", X), torch.einsum("nki,nkj->ij", J0, J0) / len(X), atol=1e-12)


def test_weight_sharing_sums_over_uses():
    """A layer applied at several positions per example: FACT sums over its uses, as in the closed form."""
    lin = torch.nn.Linear(3, 3, bias=False).double()
    model = torch.nn.Sequential(lin, torch.nn.Tanh(), torch.nn.Flatten(), torch.nn.Linear(12, 1)).double()
    X = torch.randn(5, 4, 3, dtype=torch.float64)
    Y = torch.randn(5, 1, dtype=torch.float64)
    h = X.detach()
    z = lin(h).detach().requires_grad_(True)
    out = model[3](model[2](torch.tanh(z)))
    (gz,) = torch.autograd.grad(half_mse(out, Y), z)
    ref = -(lin.weight.detach().T @ (gz.reshape(-1, 3).T @ h.reshape(-1, 3))) / 0.1
    assert torch.allclose(fact_matrix(model, "0", X, Y, half_mse, 0.1), ref, atol=1e-12)
    assert agop_matrix(model, "0", X).shape == (3, 3)


def test_feature_agreement_and_psd_power():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 5))
    A = A @ A.T
    pearson, cosine = feature_agreement(A, 3 * A + 0.0)
    assert pearson == pytest.approx(1.0) and cosine == pytest.approx(1.0)
    assert feature_agreement(A, -A)[0] == pytest.approx(-1.0)
    root = psd_power(A, 0.5)
    assert np.allclose(root @ root, A)


def test_kernel_gradients_match_finite_differences():
    """grad f_c(x_i) inside the FACT / AGOP kernel matrices matches central differences (self term dropped)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    alpha = rng.standard_normal((12, 2))
    B = rng.standard_normal((3, 3))
    M, L = B @ B.T + np.eye(3), 2.0
    grads = np.zeros((12, 2, 3))
    for i in range(12):
        others = np.delete(np.arange(12), i)

        def f(x, i=i, others=others):
            return laplace_kernel(x[None], X[others], M, L) @ alpha[others]

        for d in range(3):
            e = np.zeros(3)
            e[d] = 1e-6
            grads[i, :, d] = ((f(X[i] + e) - f(X[i] - e)) / 2e-6)[0]
    F, agop = kernel_fact_and_agop(X, alpha, M, L)
    assert np.allclose(F, np.einsum("ic,icd,ie->de", alpha, grads, X) / 12, atol=1e-7)
    flat = grads.reshape(-1, 3)
    assert np.allclose(agop, flat.T @ flat / 12, atol=1e-7)


def test_gaussian_kernel_gradients_and_centring():
    """Gaussian kernel: grad f_c(x_i) matches central differences; centring subtracts the per-output mean."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((10, 3))
    alpha = rng.standard_normal((10, 2))
    B = rng.standard_normal((3, 3))
    M, L = B @ B.T + np.eye(3), 1.5
    grads = np.zeros((10, 2, 3))
    for i in range(10):

        def f(x):
            return gaussian_kernel(x[None], X, M, L) @ alpha  # self term included: its gradient is 0 at x_i

        for d in range(3):
            e = np.zeros(3)
            e[d] = 1e-6
            grads[i, :, d] = ((f(X[i] + e) - f(X[i] - e)) / 2e-6)[0]
    F, agop = kernel_fact_and_agop(X, alpha, M, L, kernel="gaussian")
    assert np.allclose(F, np.einsum("ic,icd,ie->de", alpha, grads, X) / 10, atol=1e-7)
    assert np.allclose(agop, np.einsum("icd,ice->de", grads, grads) / 10, atol=1e-7)
    centred = grads - grads.mean(0)
    F_c, agop_c = kernel_fact_and_agop(X, alpha, M, L, kernel="gaussian", center_grads=True)
    assert np.allclose(agop_c, np.einsum("icd,ice->de", centred, centred) / 10, atol=1e-7)
    assert np.allclose(F_c, np.einsum("ic,icd,ie->de", alpha, centred, X) / 10, atol=1e-7)
    # sum_i sum_c alpha_ic grad f_c(x_i) = 0 (the kernel gradient is antisymmetric in i, j)
    assert np.allclose(np.einsum("ic,icd->d", alpha, grads), 0.0, atol=1e-7)


@pytest.mark.parametrize("kernel", ["laplace", "gaussian"])
@pytest.mark.parametrize("center", [False, True])
def test_fast_fact_and_agop_match_point_by_point_gradients(kernel, center):
    """F and AGOP (formed without the gradient array) equal their definitions on the per-point gradients."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((15, 4))
    X[3] = X[7]  # a repeated point: the Laplace self-distance rule must hold off the diagonal too
    alpha = rng.standard_normal((15, 3))
    B = rng.standard_normal((4, 4))
    M = B @ B.T + 0.1 * np.eye(4)
    G = kernel_input_gradients(X, alpha, M, 1.7, kernel=kernel)
    if center:
        G = G - G.mean(0)
    F, agop = kernel_fact_and_agop(X, alpha, M, 1.7, kernel=kernel, center_grads=center)
    assert np.allclose(agop, np.einsum("icd,ice->de", G, G) / 15, rtol=1e-10, atol=1e-12)
    assert np.allclose(F, np.einsum("ic,icd,ie->de", alpha, G, X) / 15, rtol=1e-10, atol=1e-12)


# nmallinar/rfm-grokking, train_kernel.py defaults and its call of the update: Gaussian kernel, L = 2.5,
# ridge 0, gradients centred (centering=True), M = AGOP^{1/2} by scipy.linalg.sqrtm, M never rescaled
OFFICIAL_BANDWIDTH, OFFICIAL_RIDGE = 2.5, 0.0


def official_rfm_step_slow(X, Y, M):
    """One official RFM grokking step, written out point by point: (alpha, next M)."""
    n, d = X.shape
    C = Y.shape[1]

    def k(a, b):
        v = a - b
        return math.exp(-float(v @ M @ v) / (2 * OFFICIAL_BANDWIDTH**2))

    K = np.array([[k(X[i], X[j]) for j in range(n)] for i in range(n)])
    alpha = np.linalg.solve(K + OFFICIAL_RIDGE * np.eye(n), Y)

    def f(x):
        return np.array([sum(alpha[j, c] * k(x, X[j]) for j in range(n)) for c in range(C)])

    G = np.zeros((n, C, d))
    for i in range(n):
        for e in range(d):
            h = np.zeros(d)
            h[e] = 1e-5
            G[i, :, e] = (f(X[i] + h) - f(X[i] - h)) / 2e-5  # input gradients by central differences
    G = G - G.mean(axis=0)  # centred over the training points, per output
    agop = sum(np.outer(G[i, c], G[i, c]) for i in range(n) for c in range(C)) / n
    return alpha, np.real(scipy.linalg.sqrtm(agop))  # no rescale


def test_e2_judged_setting_is_the_official_rfm_grokking_update():
    """Regression (issue 20): E2's judged NFA-RFM is the official update (Gaussian L = 2.5, ridge 0, centred
    gradient outer product, no rescale), checked two steps deep against a slow point-by-point version. The
    earlier E2 setting (Laplace, L = 1, ridge 1e-3, uncentred, largest eigenvalue 1) fails here."""
    cfg = EXPERIMENT.config("quick")
    setting = cfg.rfm_readings[0]
    Xtr, Ytr, _, _ = modular_addition(5, 0.5, np.random.default_rng(0))
    alpha0, M1 = official_rfm_step_slow(Xtr, Ytr, np.eye(Xtr.shape[1]))
    alpha1, M2 = official_rfm_step_slow(Xtr, Ytr, M1)
    iterates = list(rfm_iterates(Xtr, Ytr, 2, **setting.rfm_kwargs("nfa", cfg.nfa_power)))
    assert np.allclose(iterates[0][1], alpha0, rtol=1e-8, atol=1e-8)
    for (M, alpha), (M_ref, alpha_ref) in zip(iterates[1:], [(M1, alpha1), (M2, None)]):
        assert np.abs(M - M_ref).max() < 1e-6 * np.abs(M_ref).max()
        if alpha_ref is not None:
            assert np.abs(alpha - alpha_ref).max() < 1e-6 * np.abs(alpha_ref).max()


def test_e2_reports_both_readings():
    """The judged (official) reading writes the unsuffixed metrics, the Laplace reading the `_laplace` ones."""
    cfg = FactNfaConfig(p=5, rfm_iters=2)
    values, curves = {}, {}
    _e2(cfg, 0, values, curves)
    for tag in ("", "_laplace"):
        for name in ("acc_kernel_ridge", "acc_fact_rfm_best", "acc_nfa_rfm_best", "acc_nfa_rfm_final"):
            assert 0.0 <= values[name + tag] <= 1.0
        assert len(curves["acc_nfa_rfm" + tag].y) == 3
    assert [r.name for r in cfg.rfm_readings] == ["official", "laplace"]


def test_ridge_zero_interpolates_and_no_rescale():
    """ridge = 0 (the official setting) interpolates the training targets; normalize=False keeps M's scale."""
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((25, 3)), rng.standard_normal(25)
    model = RFM(iters=2, kernel="gaussian", bandwidth=2.5, ridge=0.0, center_grads=True, normalize=False)
    assert np.allclose(model.fit(X, y).predict(X), y, atol=1e-6)
    assert not np.isclose(np.linalg.eigvalsh(model.M_)[-1], 1.0)
    F = np.diag([2.0, 1.0])
    assert np.allclose(update_features(F, F, np.eye(2), "nfa", 1.0, normalize=False), F)


def test_updates_fixed_point_and_normalisation():
    """M = F (symmetric PSD, top eigenvalue 1) is a fixed point of both FACT updates."""
    rng = np.random.default_rng(1)
    B = rng.standard_normal((4, 4))
    F = B @ B.T
    F /= np.linalg.eigvalsh(F)[-1]
    for update in ("fact", "fact_geomean"):
        assert np.allclose(update_features(F, F, F, update, 0.5), F)
    new = update_features(F, 2 * F, np.eye(4), "nfa", 1.0)
    assert np.allclose(new, F) and np.isclose(np.linalg.eigvalsh(new)[-1], 1.0)


def test_zero_iterations_equals_sklearn_kernel_ridge():
    """RFM with iters = 0 is Laplace kernel ridge with M = I (scikit-learn KernelRidge on the precomputed kernel)."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((30, 3)), rng.standard_normal(30)
    Xt = rng.standard_normal((5, 3))
    ours = RFM(iters=0, bandwidth=3.0, ridge=0.1).fit(X, y).predict(Xt)
    K = laplace_kernel(X, X, np.eye(3), 3.0)
    ref = (
        KernelRidge(alpha=0.1, kernel="precomputed").fit(K, y).predict(laplace_kernel(Xt, X, np.eye(3), 3.0))
    )
    assert np.allclose(ours, ref)


def test_rfm_learns_relevant_coordinate():
    """Both updates put M's weight on the one coordinate the target depends on."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 5))
    y = np.abs(X[:, 2])
    for est in (FactRFM(iters=4), RFM(iters=4)):
        M = est.fit(X, y).M_
        assert np.argmax(np.diag(M)) == 2


@pytest.mark.parametrize(
    "estimator",
    [
        FactRFM(),
        RFM(),
        FactRFMClassifier(iters=2),
        RFMClassifier(update="fact_geomean", iters=2),
        RFM(kernel="gaussian", bandwidth=2.5, center_grads=True, normalize=False),
    ],
    ids=lambda e: repr(e),
)
def test_check_estimator(estimator):
    check_estimator(estimator)


def test_modular_addition_split():
    Xtr, Ytr, Xte, Yte = modular_addition(5, 0.5, np.random.default_rng(0))
    assert Xtr.shape == (12, 10) and Xte.shape == (13, 10)
    a, b = Xtr[:, :5].argmax(1), Xtr[:, 5:].argmax(1)
    assert np.array_equal(Ytr.argmax(1), (a + b) % 5)


GOOD = {"acc_fact_rfm_best": 0.99, "acc_kernel_ridge": 0.05, "acc_nfa_rfm_best": 0.99}


def _seed(gap: float, **kw) -> dict:
    """One seed whose converged runs give corr(FACT) - max corr(AGOP^s) = `gap`."""
    return dict(GOOD, corr_nfa_converged=0.8, corr_fact_converged=0.8 + gap, **kw)


def _claim():
    from iclr26.optim.fact_nfa.experiment import EXPERIMENT

    return EXPERIMENT.claims[0]


def test_claim_supported_on_good_metrics():
    rows = [_seed(0.1 + 0.01 * i) for i in range(5)]
    assert fact_claim_decider()(rows).outcome is Outcome.SUPPORTED
    assert _claim().judge(rows).outcome is Outcome.SUPPORTED  # NFA-RFM grokked: a real verdict


def test_sabotage_claim_cannot_pass():
    """NFA at least as good (C1 <= 0) or a FACT-RFM at the baseline's accuracy: never supported."""
    decide = fact_claim_decider()
    nfa_wins = [_seed(-0.1 - 0.01 * i) for i in range(5)]
    assert decide(nfa_wins).outcome is Outcome.NOT_SUPPORTED
    no_grok = [_seed(0.1 + 0.01 * i, acc_fact_rfm_best=0.05) for i in range(5)]
    assert decide(no_grok).outcome is Outcome.NOT_SUPPORTED
    unconverged = [_seed(math.nan) for _ in range(5)]
    assert decide(unconverged).outcome is Outcome.INCONCLUSIVE
    easy_task = [_seed(0.1 + 0.01 * i, acc_kernel_ridge=0.9) for i in range(5)]
    assert decide(easy_task).outcome is Outcome.INCONCLUSIVE


def test_unconverged_seeds_are_excluded_not_fatal():
    rows = [_seed(0.1 + 0.01 * i) for i in range(3)] + [_seed(math.nan), _seed(math.nan)]
    assert fact_claim_decider()(rows).outcome is Outcome.SUPPORTED  # 3 converged seeds carry C1
    assert fact_claim_decider()(rows[2:]).outcome is Outcome.INCONCLUSIVE  # one converged seed: no interval


def test_nfa_rfm_that_never_groks_means_not_reproduced():
    """The earlier Laplace setting (now the `laplace` reading): FACT-RFM 0.22-0.41, NFA-RFM 0% at p = 31."""
    rows = [
        _seed(0.18 + 0.01 * i, acc_fact_rfm_best=0.3, acc_nfa_rfm_best=0.0, acc_kernel_ridge=0.0)
        for i in range(5)
    ]
    assert fact_claim_decider()(rows).outcome is Outcome.NOT_SUPPORTED  # what the rule alone says
    verdict = _claim().judge(rows)
    assert verdict.outcome is Outcome.NOT_REPRODUCED and "acc_nfa_rfm_best" in verdict.explanation


def test_official_reading_below_95_percent_means_not_reproduced():
    """The quick run (official setting, p = 31): both RFMs grok to ~0.85, short of 95%: not reproduced."""
    rows = [
        _seed(0.18 + 0.01 * i, acc_fact_rfm_best=0.85, acc_nfa_rfm_best=0.86, acc_kernel_ridge=0.0)
        for i in range(5)
    ]
    verdict = _claim().judge(rows)
    assert verdict.outcome is Outcome.NOT_REPRODUCED and "acc_nfa_rfm_best" in verdict.explanation
