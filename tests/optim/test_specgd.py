"""Oracle tests for SpecGD: exact polar steps, closed-form dynamics, NS vs SVD, Muon/AdamW/SGD equivalences."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from sklearn.metrics import balanced_accuracy_score

from iclr26.harness.claims import Outcome
from iclr26.optim.specgd import (
    NormalizedGD,
    SpectralGD,
    balanced_metrics,
    linear_dynamics_closed_form,
    long_tailed_digits,
    long_tailed_priors,
    make_imbalanced_gmm,
    orthogonalize_ns,
    orthogonalize_svd,
    population_loss,
)
from iclr26.optim.specgd.experiment import EXPERIMENT, specgd_decider


def _orthogonal(n: int, k: int, gen: torch.Generator) -> torch.Tensor:
    q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64))
    return q[:, :k]


def _one_step(g: torch.Tensor, lr: float, **kw) -> torch.Tensor:
    w0 = torch.randn(g.shape, generator=torch.Generator().manual_seed(5), dtype=g.dtype)
    w = torch.nn.Parameter(w0.clone())
    w.grad = g.clone()
    SpectralGD([w], lr=lr, **kw).step()
    return w.detach() - w0


def test_svd_step_is_minus_lr_u_vt_and_scale_invariant() -> None:
    gen = torch.Generator().manual_seed(0)
    u, v = _orthogonal(6, 4, gen), _orthogonal(9, 4, gen)
    g = u @ torch.diag(torch.tensor([5.0, 2.0, 0.7, 0.01], dtype=torch.float64)) @ v.T
    expected = -0.3 * u @ v.T
    assert torch.allclose(_one_step(g, 0.3), expected, atol=1e-12, rtol=0)
    assert torch.allclose(_one_step(7.3 * g, 0.3), expected, atol=1e-12, rtol=0)


def test_rank_one_gradient_and_rtol_cut() -> None:
    gen = torch.Generator().manual_seed(1)
    u, v = _orthogonal(5, 2, gen), _orthogonal(7, 2, gen)
    rank1 = 4.2 * u[:, :1] @ v[:, :1].T
    assert torch.allclose(_one_step(rank1, 0.5), -0.5 * u[:, :1] @ v[:, :1].T, atol=1e-12, rtol=0)
    nearly_rank1 = rank1 + 1e-9 * u[:, 1:] @ v[:, 1:].T  # second singular value below rtol * s_max
    assert torch.allclose(_one_step(nearly_rank1, 0.5, rtol=1e-6), -0.5 * u[:, :1] @ v[:, :1].T, atol=1e-12)
    assert torch.count_nonzero(orthogonalize_svd(torch.zeros(3, 4))) == 0


def _noiseless_model(K: int = 4, d: int = 10, rho: float = 10.0) -> tuple[torch.Tensor, torch.Tensor, float]:
    a = 2.5
    means = a * _orthogonal(d, K, torch.Generator().manual_seed(3)).T  # (K, d)
    return means, long_tailed_priors(K, rho), a


@pytest.mark.parametrize("method", ["gd", "specgd"])
def test_simulated_amplitudes_match_closed_form(method: str) -> None:
    means, priors, a = _noiseless_model()
    lr, steps = (0.3, 40) if method == "gd" else (0.028, 25)  # SpecGD overshoots 1 after 15 steps
    w = torch.nn.Parameter(torch.zeros(4, 10, dtype=torch.float64))
    opt = torch.optim.SGD([w], lr=lr) if method == "gd" else SpectralGD([w], lr=lr)
    amps, off = [torch.zeros(4, dtype=torch.float64)], 0.0
    for _ in range(steps):
        opt.zero_grad()
        population_loss(w, means, priors).backward()
        opt.step()
        response = w.detach() @ means.T  # (W mu_c)_k
        amps.append(torch.diagonal(response).clone())
        off = max(off, float((response - torch.diag(torch.diagonal(response))).abs().max()))
    closed = linear_dynamics_closed_form(priors, a, lr, steps, method)
    assert torch.allclose(torch.stack(amps), closed, atol=1e-8, rtol=0)
    assert off < 1e-8
    if method == "specgd":  # equal rates: every class has the same amplitude at every step
        assert torch.allclose(closed, closed[:, :1].expand_as(closed))
    else:  # GD: majority first
        assert bool((closed[10, :-1] > closed[10, 1:]).all())


def test_sabotage_normalized_gd_breaks_equal_rates() -> None:
    """A broken 'SpecGD' that only rescales the gradient (NGD) fails the equal-rate oracle."""
    means, priors, a = _noiseless_model()
    w = torch.nn.Parameter(torch.zeros(4, 10, dtype=torch.float64))
    opt = NormalizedGD([w], lr=0.07)
    for _ in range(5):
        opt.zero_grad()
        population_loss(w, means, priors).backward()
        opt.step()
    amps = torch.diagonal(w.detach() @ means.T)
    closed = linear_dynamics_closed_form(priors, a, 0.07, 5, "specgd")[-1]
    assert not torch.allclose(amps, closed, atol=1e-3)
    assert float(amps[0] - amps[-1]) > 0.1  # the majority class is ahead


@pytest.mark.parametrize("shape", [(10, 100), (64, 256), (256, 64)])
def test_ns_mode_close_to_svd(shape: tuple[int, int]) -> None:
    g = torch.randn(shape, generator=torch.Generator().manual_seed(2))
    exact, approx = orthogonalize_svd(g), orthogonalize_ns(g)
    cos = float((exact * approx).sum() / (exact.norm() * approx.norm()))
    assert cos >= 0.97
    s = torch.linalg.svdvals(approx)
    assert 0.6 < float(s.min()) and float(s.max()) < 1.2


def test_ns_momentum_matches_torch_muon() -> None:
    gen = torch.Generator().manual_seed(4)
    w0 = torch.randn(16, 16, generator=gen)
    grads = [torch.randn(16, 16, generator=gen) for _ in range(4)]
    mine, ref = torch.nn.Parameter(w0.clone()), torch.nn.Parameter(w0.clone())
    opt_a = SpectralGD([mine], lr=0.05, mode="ns", momentum=0.95, nesterov=True)
    opt_b = torch.optim.Muon([ref], lr=0.05, weight_decay=0.0, momentum=0.95, nesterov=True)
    for g in grads:
        mine.grad, ref.grad = g.clone(), g.clone()
        opt_a.step()
        opt_b.step()
    # torch's Muon runs Newton-Schulz in bf16; ours in fp32
    assert torch.allclose(mine.detach(), ref.detach(), atol=2e-2, rtol=0)
    assert float((mine.detach() - w0).norm()) > 0.3


def test_shampoo_quarter_roots_give_polar_factor() -> None:
    g = torch.randn(5, 8, generator=torch.Generator().manual_seed(6), dtype=torch.float64)

    def inv_quarter(m: torch.Tensor) -> torch.Tensor:
        vals, vecs = torch.linalg.eigh(m)
        keep = vals > 1e-10 * vals.max()
        return (vecs[:, keep] * vals[keep] ** -0.25) @ vecs[:, keep].T

    shampoo = inv_quarter(g @ g.T) @ g @ inv_quarter(g.T @ g)
    assert torch.allclose(shampoo, orthogonalize_svd(g), atol=1e-10)


def _model(seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).to(dtype)


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(9)
    return torch.randn(8, 3, generator=gen), torch.randn(8, 2, generator=gen)


@pytest.mark.parametrize(
    ("fallback", "reference"),
    [
        ("adamw", lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1)),
        ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.01, momentum=0.9, weight_decay=0.0)),
    ],
)
def test_fallback_matches_torch(fallback: str, reference) -> None:
    ours, ref = _model(), _model()
    kw = {"weight_decay": 0.1} if fallback == "adamw" else {"momentum": 0.9}
    opt = SpectralGD(ours.parameters(), lr=0.01, spectral=False, fallback=fallback, fallback_lr=None, **kw)
    opt_ref = reference(ref.parameters())
    x, y = _batch()
    for _ in range(4):
        for model, o in ((ours, opt), (ref, opt_ref)):
            o.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            o.step()
    for p, q in zip(ours.parameters(), ref.parameters()):
        assert torch.allclose(p, q, atol=1e-6, rtol=0)


def test_routing_and_bad_groups() -> None:
    model = _model()
    with pytest.raises(ValueError, match="fallback"):
        SpectralGD(model.parameters(), lr=0.1)
    matrices = [p for p in model.parameters() if p.ndim == 2]
    others = [p for p in model.parameters() if p.ndim != 2]
    opt = SpectralGD(
        [{"params": matrices, "lr": 0.2}, {"params": others, "fallback": "sgd", "fallback_lr": 0.01}]
    )
    assert opt.param_groups[0]["lr"] == 0.2 and opt.param_groups[1]["lr"] == 0.02
    before = [p.detach().clone() for p in model.parameters()]
    x, y = _batch()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    w_step = (model[0].weight - before[0]).detach()
    assert torch.allclose(torch.linalg.svdvals(w_step), torch.full((3,), 0.2), atol=1e-5)  # spectral step
    assert torch.allclose(model[0].bias - before[1], -0.01 * model[0].bias.grad, atol=1e-7)
    with pytest.raises(ValueError, match="lr"):
        SpectralGD(matrices, lr=0.0)
    with pytest.raises(ValueError, match="rtol"):
        SpectralGD(matrices, rtol=1.5)
    with pytest.raises(ValueError, match="mode"):
        SpectralGD(matrices, mode="qr")


def test_normalized_gd_steps() -> None:
    g = torch.randn(4, 6, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    for norm, value in (("fro", torch.linalg.norm(g)), ("spectral", torch.linalg.matrix_norm(g, 2))):
        w = torch.nn.Parameter(torch.zeros(4, 6, dtype=torch.float64))
        w.grad = g.clone()
        NormalizedGD([w], lr=0.3, norm=norm).step()
        assert torch.allclose(w.detach(), -0.3 * g / value, atol=1e-14)
    w = torch.nn.Parameter(torch.ones(3))
    w.grad = torch.zeros(3)
    NormalizedGD([w], lr=0.3).step()
    assert torch.equal(w.detach(), torch.ones(3))


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: SpectralGD(ps, lr=0.05, momentum=0.9, fallback="adamw"),
        lambda ps: NormalizedGD(ps, lr=0.05, momentum=0.9, norm="spectral"),
    ],
)
def test_state_dict_resume_closure_and_errors(make) -> None:
    x, y = _batch()
    model = _model()
    opt = make(model.parameters())

    def closure(m=model, o=opt):
        o.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        return loss

    first = float(closure().detach())
    for _ in range(3):
        returned = opt.step(closure)
    assert isinstance(returned, torch.Tensor)
    twin = copy.deepcopy(model)
    twin_opt = make(twin.parameters())
    twin_opt.load_state_dict(copy.deepcopy(opt.state_dict()))
    for m, o in ((model, opt), (twin, twin_opt)):
        for _ in range(3):
            o.step(lambda m=m, o=o: closure(m, o))
    for p, q in zip(model.parameters(), twin.parameters()):
        assert torch.equal(p, q)
    assert float(closure().detach()) < first
    w = torch.nn.Parameter(torch.zeros(3, 3, dtype=torch.complex64))
    w.grad = torch.ones(3, 3, dtype=torch.complex64)
    with pytest.raises(ValueError, match="complex"):
        make([w]).step()
    e = torch.nn.Parameter(torch.zeros(5, 3))
    e.grad = torch.eye(5, 3).to_sparse()
    with pytest.raises(ValueError, match="sparse"):
        make([e]).step()


def test_balanced_metrics_equal_sklearn() -> None:
    gen = torch.Generator().manual_seed(8)
    y = torch.randint(0, 5, (200,), generator=gen)
    outputs = torch.randn(200, 5, generator=gen) + 1.5 * torch.nn.functional.one_hot(y, 5)
    m = balanced_metrics(outputs, y)
    pred = outputs.argmax(1).numpy()
    assert m["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y.numpy(), pred), abs=1e-12)
    per_class = [float((pred[y.numpy() == c] == c).mean()) for c in range(5)]
    assert m["worst_class_accuracy"] == pytest.approx(min(per_class))
    loss = 0.5 * ((outputs.double() - torch.nn.functional.one_hot(y, 5)) ** 2).sum(1)
    assert m["balanced_loss"] == pytest.approx(np.mean([float(loss[y == c].mean()) for c in range(5)]))


def test_gmm_and_digits_data() -> None:
    data = make_imbalanced_gmm(K=5, d=12, rho=20.0, a=3.0, sigma=0.5, n=400, seed=1, n_test=100)
    gram = data.means.double() @ data.means.double().T
    assert torch.allclose(gram, 9.0 * torch.eye(5, dtype=torch.float64), atol=1e-5)
    counts = data.train_counts()
    assert int(counts.sum()) == 400 and abs(float(counts[0] / counts[-1]) - 20.0) < 2.0
    assert torch.equal(torch.bincount(data.y_test), torch.full((5,), 20))
    assert torch.allclose(
        long_tailed_priors(5, 20.0)[0] / long_tailed_priors(5, 20.0)[-1], torch.tensor(20.0).double()
    )
    digits = long_tailed_digits(rho=20.0, test_per_class=30, seed=0)
    dc = torch.bincount(digits.y_train, minlength=10)
    assert bool((dc[:-1] >= dc[1:]).all()) and 15 <= float(dc[0] / dc[-1]) <= 25
    assert torch.equal(torch.bincount(digits.y_test), torch.full((10,), 30))


def _rows(
    gap_gd: list[float], gap_ngd: list[float], gap_mlp: list[float], final: float = 0.55
) -> list[dict[str, float]]:
    """Early balanced accuracies with the given SpecGD-GD, SpecGD-NGD and Muon-SGD gaps; every model ends at
    `final` balanced accuracy."""
    rows = []
    for g, n, m in zip(gap_gd, gap_ngd, gap_mlp):
        row = {
            "linear_gd_bal_acc_early": 0.4,
            "linear_specgd_bal_acc_early": 0.4 + g,
            "linear_ngd_bal_acc_early": 0.4 + g - n,
            "digits_sgd_bal_acc_early": 0.6,
            "digits_muon_bal_acc_early": 0.6 + m,
        }
        row |= {k.replace("_early", "_final"): final for k in list(row)}
        rows.append(row)
    return rows


def test_claim_decider_outcomes() -> None:
    decide = specgd_decider()
    good = _rows(
        [0.08, 0.1, 0.09, 0.11, 0.07], [0.05, 0.04, 0.06, 0.05, 0.07], [0.03, 0.05, 0.04, 0.02, 0.04]
    )
    assert decide(good).outcome is Outcome.SUPPORTED
    bad = _rows(
        [0.08, 0.1, 0.09, 0.11, 0.07], [0.05, 0.04, 0.06, 0.05, 0.07], [-0.03, -0.05, -0.04, -0.02, -0.04]
    )
    assert decide(bad).outcome is Outcome.NOT_SUPPORTED
    small = _rows(
        [0.01, 0.02, 0.015, 0.01, 0.02], [0.05, 0.04, 0.06, 0.05, 0.07], [0.03, 0.05, 0.04, 0.02, 0.04]
    )
    assert decide(small).outcome is Outcome.INCONCLUSIVE  # positive gap but below 3 points
    noisy = _rows(
        [0.08, 0.1, 0.09, 0.11, 0.07], [0.05, 0.04, 0.06, 0.05, 0.07], [0.1, -0.1, 0.05, -0.06, 0.02]
    )
    assert decide(noisy).outcome is Outcome.INCONCLUSIVE


def test_claims_need_models_that_learned() -> None:
    claim = next(c for c in EXPERIMENT.claims if c.id == "specgd-balanced-early")
    good = _rows(
        [0.08, 0.1, 0.09, 0.11, 0.07], [0.05, 0.04, 0.06, 0.05, 0.07], [0.03, 0.05, 0.04, 0.02, 0.04]
    )
    assert claim.judge(good).outcome is Outcome.SUPPORTED  # every model learned: a real verdict
    stuck = _rows(
        [0.08, 0.1, 0.09, 0.11, 0.07], [0.05, 0.04, 0.06, 0.05, 0.07], [0.03, 0.05, 0.04, 0.02, 0.04], 0.15
    )
    assert claim.judge(stuck).outcome is Outcome.NOT_REPRODUCED  # 0.15 < chance 0.1 + 0.1
    for budget in ("quick", "full"):  # the chance level of the preconditions assumes 10 classes
        assert EXPERIMENT.config(budget).K == 10
    shampoo = next(c for c in EXPERIMENT.claims if c.id == "shampoo-beats-adam")
    rows = [{"digits_shampoo_bal_acc_early": 0.7, "digits_adam_bal_acc_early": 0.6}] * 3
    assert shampoo.judge(rows).outcome is Outcome.NOT_REPRODUCED  # not run (quick): nothing to judge
