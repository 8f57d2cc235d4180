"""Tests of Smooth-Leaky (arXiv 2509.22562): closed forms, derivative bounds, limits, randomization, scaffolding."""

import math
import warnings

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.optim.smooth_leaky import (
    ALPHA_FLOOR_MIN,
    S_MAX,
    S_MIN,
    ContinualMLP,
    L2Init,
    NonPositiveFloorWarning,
    RandomizedSmoothLeaky,
    SmoothLeaky,
    activation_names,
    class_incremental_tasks,
    dead_band_width,
    desaturation_stress_test,
    digits_split,
    effective_negative_slope,
    get_activation,
    max_derivative,
    min_derivative,
    permuted_tasks,
    saturated_fraction,
    shrink_and_perturb,
    smooth_leaky,
    smooth_leaky_derivative,
    train_continual,
)
from iclr26.optim.smooth_leaky.claim_check import STANDARD, plasticity_decider
from iclr26.optim.smooth_leaky.continual import Task, derivative_on

PARAMS = [(0.1, 3.0, 5.0), (0.3, 1.0, 1.0), (0.5, 2.0, 7.0), (0.95, 0.5, 0.2)]


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


def closed_form(x: np.ndarray, alpha: float, p: float, c: float) -> np.ndarray:
    return alpha * x + (1 - alpha) * x / (1 + np.exp(-c * x / p))


@pytest.mark.parametrize(("alpha", "p", "c"), PARAMS)
def test_closed_form_to_1e12(alpha, p, c):
    x = np.linspace(-30, 30, 2001)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonPositiveFloorWarning)
        out = SmoothLeaky(alpha, p, c)(torch.tensor(x, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(out, closed_form(x, alpha, p, c), rtol=0, atol=1e-12)


def test_zero_maps_to_zero_and_constants():
    assert float(SmoothLeaky()(torch.zeros(3)).abs().max()) == 0.0
    assert float(RandomizedSmoothLeaky()(torch.zeros(3)).abs().max()) == 0.0
    assert abs(S_MIN + 0.09984) < 1e-5 and abs(S_MAX - 1.09984) < 1e-5
    assert abs(S_MIN - (1 - S_MAX)) < 1e-14
    assert abs(ALPHA_FLOOR_MIN - 0.0908) < 1e-4 and abs(min_derivative(ALPHA_FLOOR_MIN)) < 1e-14


def test_gradcheck_both_modules():
    x = torch.linspace(-6, 6, 25, dtype=torch.float64).requires_grad_(True)
    assert torch.autograd.gradcheck(SmoothLeaky(0.2, 2.0, 3.0), (x,))
    r = RandomizedSmoothLeaky()
    assert torch.autograd.gradcheck(r.eval(), (x,))
    r.train()

    def seeded(z):
        torch.manual_seed(0)
        return r(z)

    assert torch.autograd.gradcheck(seeded, (x,))


@pytest.mark.parametrize(("alpha", "p", "c"), PARAMS)
def test_derivative_closed_form_and_extrema(alpha, p, c):
    x = torch.linspace(-50, 50, 400001, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonPositiveFloorWarning)
        d = derivative_on(SmoothLeaky(alpha, p, c), x)
    assert float((d - smooth_leaky_derivative(x, alpha, p, c)).abs().max()) < 1e-12
    k = c / p
    if 50 * k > 3:  # the grid covers both extrema at z = kx = +-2.40
        assert abs(float(d.min()) - (alpha - 0.09984 * (1 - alpha))) < 1e-4
        assert abs(float(d.max()) - (alpha + 1.09984 * (1 - alpha))) < 1e-4
        assert abs(float(d.min()) - min_derivative(alpha)) < 1e-6
        assert abs(float(d.max()) - max_derivative(alpha)) < 1e-6


def test_floor_positive_at_defaults():
    d = derivative_on(SmoothLeaky(), torch.linspace(-50, 50, 100001, dtype=torch.float64))
    assert float(d.min()) > 0.01 and float(d.max()) < 1.1


def test_leaky_relu_limit_and_error_bound():
    x = torch.linspace(-5, 5, 100001, dtype=torch.float64)
    err = (SmoothLeaky(0.1, 1.0, 1e4)(x) - F.leaky_relu(x, 0.1)).abs().max()
    assert float(err) < 1e-3
    for k in (1.0, 5.0 / 3.0, 10.0, 100.0):
        e = float((SmoothLeaky(0.1, 1.0, k)(x) - F.leaky_relu(x, 0.1)).abs().max())
        assert e <= 0.28 * 0.9 / k * 1.001


def test_no_overflow_float32_at_1e4():
    x = torch.tensor([-1e4, -1e3, 1e3, 1e4], dtype=torch.float32, requires_grad=True)
    for m in (SmoothLeaky(), RandomizedSmoothLeaky(), RandomizedSmoothLeaky().eval()):
        y = m(x)
        (g,) = torch.autograd.grad(y.sum(), x)
        assert torch.isfinite(y).all() and torch.isfinite(g).all()
    y = SmoothLeaky()(x.detach())
    assert y[3] == 1e4 and abs(float(y[0]) + 1e3) < 1e-3


def test_randomized_eval_matches_smooth_leaky_at_mean_slope():
    r = RandomizedSmoothLeaky(0.125, 1 / 3, 2.0, 4.0).eval()
    x = torch.randn(5, 7, dtype=torch.float64)
    y1, y2 = r(x), r(x)
    assert torch.equal(y1, y2)
    ref = SmoothLeaky((0.125 + 1 / 3) / 2, 2.0, 4.0)(x)
    assert float((y1 - ref).abs().max()) < 1e-15
    assert r.mean_slope == pytest.approx((0.125 + 1 / 3) / 2)


@pytest.mark.parametrize("sampling", ["element", "unit", "forward"])
def test_randomized_train_slope_distribution(sampling):
    lo, hi = 0.125, 1 / 3
    r = RandomizedSmoothLeaky(lo, hi, sampling=sampling).train()
    torch.manual_seed(0)
    x = torch.full((2000, 50), 1.5, dtype=torch.float64)
    gate = torch.sigmoid(x * 5 / 3)
    slopes = (r(x) / x - gate) / (1 - gate)
    assert float(slopes.min()) >= lo - 1e-12 and float(slopes.max()) <= hi + 1e-12
    if sampling == "element":
        s = slopes.flatten()
        assert s.unique().numel() > 1000
    elif sampling == "unit":
        assert torch.allclose(slopes, slopes[:1].expand_as(slopes))
        s = slopes[0]
    else:
        assert slopes.unique().numel() == 1
        draws = []
        for _ in range(300):
            y = r(x[:1, :1])
            g = gate[:1, :1]
            draws.append(float(((y / x[:1, :1] - g) / (1 - g)).squeeze()))
        s = torch.tensor(draws, dtype=torch.float64)
    se = float(s.std()) / math.sqrt(s.numel())
    assert abs(float(s.mean()) - (lo + hi) / 2) < 3 * se


def test_torchscript_and_compile_match_eager():
    x = torch.randn(4, 6)
    for m in (SmoothLeaky(0.2, 2.0, 6.0), RandomizedSmoothLeaky(sampling="unit")):
        s = torch.jit.script(m)
        m.eval()
        s.eval()
        assert torch.allclose(s(x), m(x))
        m.train()
        s.train()
        torch.manual_seed(1)
        a = s(x)
        torch.manual_seed(1)
        b = m(x)
        assert torch.allclose(a, b)
    c = torch.compile(SmoothLeaky(), backend="eager", fullgraph=True)
    assert torch.allclose(c(x), SmoothLeaky()(x))


def test_registry_covers_torch_nn_and_new_ones():
    expected = {
        "relu": nn.ReLU,
        "leaky_relu": nn.LeakyReLU,
        "rrelu": nn.RReLU,
        "prelu": nn.PReLU,
        "elu": nn.ELU,
        "selu": nn.SELU,
        "gelu": nn.GELU,
        "silu": nn.SiLU,
        "tanh": nn.Tanh,
        "sigmoid": nn.Sigmoid,
        "softplus": nn.Softplus,
        "smooth_leaky": SmoothLeaky,
        "randomized_smooth_leaky": RandomizedSmoothLeaky,
    }
    for name, cls in expected.items():
        assert name in activation_names() and isinstance(get_activation(name), cls)
    assert isinstance(get_activation("Swish"), nn.SiLU) and isinstance(
        get_activation("Leaky-ReLU"), nn.LeakyReLU
    )
    assert get_activation("smooth-leaky", alpha=0.3).alpha == 0.3
    with pytest.raises(ValueError, match="unknown activation"):
        get_activation("mish2")


def test_floor_warning_only_below_threshold():
    with pytest.warns(NonPositiveFloorWarning, match="alpha"):
        SmoothLeaky(alpha=0.05)
    with pytest.warns(NonPositiveFloorWarning, match="lower"):
        RandomizedSmoothLeaky(lower=0.0, upper=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SmoothLeaky(alpha=0.1)
        RandomizedSmoothLeaky()
    with pytest.warns(NonPositiveFloorWarning):
        d = derivative_on(SmoothLeaky(alpha=0.01), torch.linspace(-10, 10, 2001, dtype=torch.float64))
    assert float(d.min()) < 0  # non-monotone below the threshold


@pytest.fixture(scope="module")
def digits():
    return digits_split(600, seed=0)


def test_digits_split_and_task_generators(digits):
    xtr, ytr, xte, yte = digits
    assert xtr.shape == (600, 64) and xte.shape == (1197, 64)
    assert float(xtr.mean(0).abs().max()) < 1e-5
    gen = torch.Generator().manual_seed(0)
    xa, xb = torch.randn(30, 64, generator=gen), torch.randn(20, 64, generator=gen)  # distinct columns
    ya, yb = torch.arange(30) % 10, torch.arange(20) % 10
    for t in permuted_tasks(xa, ya, xb, yb, 3, seed=1):
        # one pixel permutation shared by train and test: each column of x_train is one column of xa
        cols = [int(torch.nonzero((xa - t.x_train[:, [j]]).abs().sum(0) == 0)[0]) for j in range(64)]
        assert sorted(cols) == list(range(64)) and torch.equal(t.x_test, xb[:, cols])
        # one label bijection shared by train and test
        mapping = {int(a): int(b) for a, b in zip(ya, t.y_train)}
        assert sorted(mapping.values()) == list(range(10))
        assert all(mapping[int(a)] == int(b) for a, b in zip(yb, t.y_test))
    only_labels = permuted_tasks(xtr, ytr, xte, yte, 2, permute_inputs=False)
    assert torch.equal(only_labels[0].x_train, xtr)
    ci = class_incremental_tasks(xtr, ytr, xte, yte, 2)
    assert [t.classes for t in ci] == [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)]
    assert sum(len(t.y_train) for t in ci) == 600 and sum(len(t.y_test) for t in ci) == 1197


def test_diagnostics_on_known_cases():
    assert dead_band_width(nn.ReLU()) == pytest.approx(0.5, abs=1e-3)
    assert dead_band_width(SmoothLeaky()) == 0.0 and dead_band_width(nn.LeakyReLU(0.1)) == 0.0
    assert dead_band_width(nn.Tanh()) == pytest.approx((10 - math.acosh(math.sqrt(1000))) / 10, abs=1e-3)
    probe = torch.randn(32, 8, generator=torch.Generator().manual_seed(0))
    dead = ContinualMLP([8, 16, 3], nn.ReLU, init_seed=0)
    with torch.no_grad():
        dead.linears[0].bias.fill_(-100.0)
    assert saturated_fraction(dead, probe) == 1.0 and effective_negative_slope(dead, probe) == 0.0
    leaky = ContinualMLP([8, 16, 3], lambda: nn.LeakyReLU(0.1), init_seed=0)
    with torch.no_grad():
        leaky.linears[0].bias.fill_(-100.0)
    assert saturated_fraction(leaky, probe) == 0.0
    assert effective_negative_slope(leaky, probe) == pytest.approx(0.1)


def test_interventions():
    m = ContinualMLP([4, 5, 2], nn.ReLU, init_seed=0)
    before = [p.detach().clone() for p in m.parameters()]
    reg = L2Init(m, 0.5)
    assert float(reg.penalty(m).detach()) == 0.0
    shrink_and_perturb(m, shrink=0.5, noise=0.0)
    for p, q in zip(m.parameters(), before):
        assert torch.equal(p, 0.5 * q)
    expected = 0.5 * sum(float(((0.5 * q) ** 2).sum()) for q in before)
    assert float(reg.penalty(m).detach()) == pytest.approx(expected, rel=1e-6)


def test_training_loop_no_resets_and_deterministic(digits):
    xtr, ytr, xte, yte = digits
    tasks = [
        Task(t.x_train[:64], t.y_train[:64], t.x_test[:64], t.y_test[:64]) for t in permuted_tasks(*digits, 2)
    ]

    def go():
        m = ContinualMLP([64, 16, 10], RandomizedSmoothLeaky, init_seed=3)
        return m, train_continual(
            m, tasks, epochs=2, batch_size=16, seed=5, probe=xte[:32], cumulative_eval=True
        )

    m1, log1 = go()
    m2, log2 = go()
    assert log1.steps == 2 * 2 * 4 and len(log1.test_acc) == len(log1.seen_acc) == 2
    assert log1.test_acc == log2.test_acc and log1.s_bar == log2.s_bar
    # no reset: continuing from task 1's weights on task 2 alone reproduces the two-task run
    m3 = ContinualMLP([64, 16, 10], nn.ReLU, init_seed=3)
    m4 = ContinualMLP([64, 16, 10], nn.ReLU, init_seed=3)
    train_continual(m3, tasks, epochs=1, batch_size=64, lr=0.1, momentum=0.0, seed=1)
    train_continual(m4, tasks[:1], epochs=1, batch_size=64, lr=0.1, momentum=0.0, seed=1)
    assert not torch.equal(m3.linears[0].weight, m4.linears[0].weight)
    for p, q in zip(m3.parameters(), ContinualMLP([64, 16, 10], nn.ReLU, init_seed=3).parameters()):
        assert not torch.equal(p, q)
    # gradient clipping bounds every update: a tiny max norm leaves the weights almost at their init
    m5 = ContinualMLP([64, 16, 10], nn.ReLU, init_seed=3)
    train_continual(m5, tasks, epochs=1, batch_size=16, seed=1, max_grad_norm=1e-6)
    for p, q in zip(m5.parameters(), ContinualMLP([64, 16, 10], nn.ReLU, init_seed=3).parameters()):
        assert float((p - q).abs().max()) < 1e-5


def test_stress_test_records_every_shock(digits):
    xtr, ytr, xte, yte = digits
    task = Task(xtr[:64], ytr[:64], xte[:64], yte[:64])
    m = ContinualMLP([64, 16, 10], nn.Tanh, init_seed=0)
    log = desaturation_stress_test(
        m, task, xte[:32], gammas=(0.5, 2.0), shock_every=2, batch_size=32, eval_every=1
    )
    assert len(log.shocks) == 2 and m.shock == 1.0
    assert len(log.step) == 6 * 2
    for s in log.shocks:
        assert set(s) >= {"ausc", "tau95", "recovered", "peak_saturated"} and 0 <= s["ausc"] <= 2


def _rows(new_gain, vs_best, n=3, noise=0.2):
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(n):
        r = {f"late_acc_{a}": 80.0 + rng.normal(0, 0.05) for a in STANDARD}
        r["late_acc_relu"] = 80.0 - new_gain - vs_best
        r["late_acc_elu"] = 80.0  # best standard
        for a in ("smooth_leaky", "randomized_smooth_leaky"):
            r[f"late_acc_{a}"] = 80.0 - vs_best + rng.normal(0, noise)
        rows.append(r)
    return rows


def test_claim_decider_three_outcomes():
    d = plasticity_decider()
    assert d(_rows(new_gain=5.0, vs_best=0.0)).outcome is Outcome.SUPPORTED
    assert d(_rows(new_gain=-5.0, vs_best=0.0)).outcome is Outcome.NOT_SUPPORTED
    assert d(_rows(new_gain=5.0, vs_best=4.0)).outcome is Outcome.INCONCLUSIVE  # far below the best standard
    assert d(_rows(new_gain=1.0, vs_best=0.0)).outcome is Outcome.INCONCLUSIVE  # gain below 3 points
    assert d(_rows(5.0, 0.0, n=1)).outcome is Outcome.INCONCLUSIVE


def test_claims_need_networks_that_learned():
    from iclr26.optim.smooth_leaky.experiment import ACTIVATIONS, EXPERIMENT

    claims = {c.id: c for c in EXPERIMENT.claims}
    plasticity = claims["smooth-leaky-sustains-plasticity"]
    learned = [r | {f"first_acc_{a}": 85.0 for a in ACTIVATIONS} for r in _rows(new_gain=5.0, vs_best=0.0)]
    assert (
        plasticity.judge(learned).outcome is Outcome.SUPPORTED
    )  # every network learned task 1: real verdict
    dead = [r | {"first_acc_relu": 12.0} for r in learned]  # ReLU never got past chance (10%) + 10 points
    assert plasticity.judge(dead).outcome is Outcome.NOT_REPRODUCED
    saturation = claims["zero-floor-saturates-longer"]
    rows = [
        {"ausc_zero_floor": 0.05 + 0.001 * i, "ausc_positive_floor": 0.0}
        | {
            f"stress_pre_acc_{a}": 90.0
            for a in ("relu", "tanh", "leaky_relu", "smooth_leaky", "randomized_smooth_leaky")
        }
        for i in range(3)
    ]
    assert saturation.judge(rows).outcome is Outcome.SUPPORTED
    rows[1] = rows[1] | {"stress_pre_acc_tanh": 15.0}
    assert saturation.judge(rows).outcome is Outcome.NOT_REPRODUCED


def test_sabotage_broken_gate_fails_oracles():
    """A variant with the gate's ratio inverted (c * p instead of c / p) violates the closed form and bounds."""
    x = np.linspace(-5, 5, 101)
    broken = 0.1 * x + 0.9 * x / (1 + np.exp(-5.0 * 3.0 * x))
    assert np.abs(broken - closed_form(x, 0.1, 3.0, 5.0)).max() > 1e-3
    good = smooth_leaky(torch.tensor(x), 0.1, 3.0, 5.0).numpy()
    assert np.abs(good - closed_form(x, 0.1, 3.0, 5.0)).max() < 1e-12
