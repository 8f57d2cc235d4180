"""Oracle tests of the RG-VFM reproduction (arXiv 2502.12981): manifold maps, loss limits, Jacobi closed form,
oracle-endpoint sampler exactness, gradients and the claim rule."""

from __future__ import annotations

import math
import warnings

import geoopt
import pytest
import torch

from iclr26.generative.rg_vfm import (
    SO3,
    CFMLoss,
    EndpointMLP,
    Euclidean,
    Lorentz,
    ManifoldFlowSampler,
    RFMLoss,
    RGVFMLoss,
    Sphere,
    VelocityMLP,
    jacobi_endpoint_norm,
    jacobi_factor,
    jacobi_gap,
)
from iclr26.generative.rg_vfm.claim_check import incell_gain_decider
from iclr26.generative.rg_vfm.data import (
    hyperbolic_checkerboard,
    hyperbolic_in_cell,
    sphere_checkerboard,
    sphere_in_cell,
)
from iclr26.generative.rg_vfm.models import time_embedding
from iclr26.harness.claims import Outcome

F64 = torch.float64
MANIFOLDS = [Sphere(2), Sphere(2, 3.0), Sphere(4), Lorentz(2), Lorentz(3, 2.0), SO3(), Euclidean(3)]


def _pairs(m, n=64, seed=0):
    """Float64 pairs away from the cut locus (sphere: < 0.9 pi R; SO(3): angle < 0.9 pi)."""
    g = torch.Generator().manual_seed(seed)
    x, y = m.random_base(n, g, F64), m.random_base(n, g, F64)
    if isinstance(m, (Sphere, SO3)):
        limit = 0.9 * math.pi * (m.radius if isinstance(m, Sphere) else 1.0)
        keep = m.dist(x, y) < limit
        x, y = x[keep], y[keep]
    return x, y


@pytest.mark.parametrize("m", MANIFOLDS, ids=repr)
def test_exp_log_round_trip_and_symmetry(m):
    x, y = _pairs(m)
    m.check_point(x)
    v = m.log(x, y)
    torch.testing.assert_close(m.exp(x, v), y, atol=1e-6, rtol=0)
    torch.testing.assert_close(m.dist(x, y), m.dist(y, x), atol=1e-6, rtol=0)
    torch.testing.assert_close(m.norm(x, v), m.dist(x, y), atol=1e-6, rtol=0)
    torch.testing.assert_close(m.proju(x, v), v, atol=1e-9, rtol=0)  # log lands in the tangent space
    t = torch.rand(x.shape[0], dtype=F64, generator=torch.Generator().manual_seed(1))
    x_t = m.geodesic(x, y, t)
    assert float(m.point_error(x_t).max()) < 1e-6
    # x_t splits the geodesic in the ratio t : 1 - t
    torch.testing.assert_close(m.dist(x, x_t), t * m.dist(x, y), atol=1e-6, rtol=0)


def test_lorentz_interpolant_on_hyperboloid():
    m = Lorentz(2)
    x, y = _pairs(m)
    x_t = m.geodesic(x, y, torch.full((x.shape[0],), 0.37, dtype=F64))
    inner = x_t[:, 1:].pow(2).sum(-1) - x_t[:, 0].pow(2)
    assert float((inner + 1).abs().max()) < 1e-6


def test_wrappers_agree_with_geoopt():
    s, g = Sphere(2), geoopt.Sphere()
    x, y = _pairs(s)
    v = s.log(x, y)
    torch.testing.assert_close(s.exp(x, v), g.expmap(x, v), atol=1e-12, rtol=0)
    torch.testing.assert_close(s.dist(x, y), g.dist(x, y), atol=1e-9, rtol=0)
    torch.testing.assert_close(v, g.logmap(x, y), atol=1e-9, rtol=0)
    # geoopt clamps the cosine: its distance of close points is wrong, ours is not
    e = torch.tensor([[1e-5, 0.0, 0.0]], dtype=F64)
    x0 = torch.tensor([[0.0, 0.0, 1.0]], dtype=F64)
    assert abs(float(s.dist(x0, s.exp(x0, e))) - 1e-5) < 1e-15
    lo, gl = Lorentz(2), geoopt.Lorentz()
    x, y = _pairs(lo)
    torch.testing.assert_close(lo.dist(x, y), gl.dist(x, y).to(F64), atol=1e-9, rtol=0)


def test_so3_distance_is_rotation_angle():
    m = SO3()
    axis = torch.nn.functional.normalize(
        torch.randn(5, 3, dtype=F64, generator=torch.Generator().manual_seed(0))
    )
    ang = torch.tensor([0.0, 1e-4, 0.5, 2.0, 3.0], dtype=F64)
    from iclr26.generative.rg_vfm.manifolds import so3_expm

    r = so3_expm(axis * ang[:, None])
    eye = torch.eye(3, dtype=F64).expand(5, 3, 3)
    torch.testing.assert_close(m.dist(eye, r), ang, atol=1e-10, rtol=0)
    assert float(m.point_error(m.random_base(50, torch.Generator().manual_seed(1), F64)).max()) < 1e-12


def test_euclidean_limit_rgvfm_equals_scaled_rfm():
    m = Euclidean(3)
    g = torch.Generator().manual_seed(0)
    x0, x1 = m.random_base(32, g, F64), m.random_base(32, g, F64)
    t = torch.rand(32, generator=g, dtype=F64) * 0.999
    x_t = m.geodesic(x0, x1, t)
    v = torch.randn(32, 3, generator=g, dtype=F64)
    mu = x_t + (1 - t)[:, None] * v
    rg = RGVFMLoss(m, reduction="none").from_endpoint(mu, x1)
    rfm = RFMLoss(m, reduction="none").from_velocity(x_t, v, x1, t)
    torch.testing.assert_close(rg, (1 - t) ** 2 * rfm, atol=1e-10, rtol=0)
    # through the full callables: an endpoint net built from a velocity net
    torch.manual_seed(0)
    vel = VelocityMLP(m, 16, 2).double()

    def endpoint(x, tt):
        return x + (1 - tt)[:, None] * vel(x, tt)

    a = RGVFMLoss(m, reduction="none")(endpoint, x0, x1, t)
    b = RFMLoss(m, reduction="none")(vel, x0, x1, t)
    torch.testing.assert_close(a, (1 - t) ** 2 * b, atol=1e-10, rtol=0)
    # RFM on R^n is CFM (target x1 - x0)
    torch.testing.assert_close(CFMLoss()(vel, x0, x1, t), RFMLoss(m)(vel, x0, x1, t), atol=1e-10, rtol=0)


def test_time_normalised_loss_equals_rfm_in_flat_space():
    """With t_clip (the official code's 1 / (1 - min(t, c)) normalisation) the flat RG-VFM loss is RFM's for
    t <= c and (1 - t)^2 / (1 - c)^2 times RFM's above c."""
    m = Euclidean(3)
    g = torch.Generator().manual_seed(1)
    x0, x1 = m.random_base(64, g, F64), m.random_base(64, g, F64)
    t = torch.rand(64, generator=g, dtype=F64) * 0.999
    x_t = m.geodesic(x0, x1, t)
    v = torch.randn(64, 3, generator=g, dtype=F64)
    mu = x_t + (1 - t)[:, None] * v
    rfm = RFMLoss(m, reduction="none").from_velocity(x_t, v, x1, t)
    rg = RGVFMLoss(m, reduction="none", t_clip=0.9).from_endpoint(mu, x1, t)
    want = torch.where(t <= 0.9, rfm, (1 - t) ** 2 / 0.1**2 * rfm)
    torch.testing.assert_close(rg, want, atol=1e-9, rtol=1e-9)
    # without times the weighting is off; the extrinsic variant is weighted the same way
    torch.testing.assert_close(
        RGVFMLoss(m, reduction="none", t_clip=0.9).from_endpoint(mu, x1),
        (1 - t) ** 2 * rfm,
        atol=1e-10,
        rtol=0,
    )
    ext = RGVFMLoss(m, "extrinsic", reduction="none", t_clip=0.9).from_endpoint(mu, x1, t)
    torch.testing.assert_close(ext, want, atol=1e-9, rtol=1e-9)
    for bad in (1.0, -0.1):
        with pytest.raises(ValueError, match="t_clip"):
            RGVFMLoss(m, t_clip=bad)


def _tangent_pair(m, ell, delta, phi=0.3):
    """Base point and two tangent vectors of length ell whose difference (norm delta) is normal to their bisector."""
    if isinstance(m, Sphere):
        x = torch.tensor([[0.0, 0.0, m.radius]], dtype=F64)
        e1, e2 = torch.tensor([[1.0, 0.0, 0.0]], dtype=F64), torch.tensor([[0.0, 1.0, 0.0]], dtype=F64)
    else:
        x = m.origin(1, F64)
        e1, e2 = torch.tensor([[0.0, 1.0, 0.0]], dtype=F64), torch.tensor([[0.0, 0.0, 1.0]], dtype=F64)
    c, s = math.cos(phi), math.sin(phi)
    d1, d2 = c * e1 + s * e2, -s * e1 + c * e2  # bisector and its normal
    half = math.asin(delta / (2 * ell))
    a = ell * (math.cos(half) * d1 + math.sin(half) * d2)
    b = ell * (math.cos(half) * d1 - math.sin(half) * d2)
    return x, a, b


@pytest.mark.parametrize("m", [Sphere(2), Sphere(2, 2.0), Lorentz(2), Lorentz(2, 0.5)], ids=repr)
def test_curvature_ratio_matches_closed_form(m):
    ell, delta = 1.0, 1e-3
    x, a, b = _tangent_pair(m, ell, delta)
    ratio = float(m.dist(m.exp(x, a), m.exp(x, b))) / delta
    closed = float(jacobi_endpoint_norm(m, x, a, b)) / delta
    assert abs(ratio / closed - 1) < 1e-3
    f = jacobi_factor(m.curvature, ell)
    assert abs(closed - f) < 1e-3  # the difference is (almost) purely normal
    assert (ratio < 1) if m.curvature > 0 else (ratio > 1)  # S^2 converges, H^2 diverges


def test_curvature_ratio_tends_to_one_with_radius():
    gaps = []
    for radius in (1.0, 10.0, 100.0):
        m = Sphere(2, radius)
        x, a, b = _tangent_pair(m, 1.0, 1e-3)
        ratio = float(m.dist(m.exp(x, a), m.exp(x, b))) / 1e-3
        assert abs(ratio - jacobi_factor(m.curvature, 1.0)) < 1e-3
        gaps.append(1 - ratio)
    assert gaps[0] > gaps[1] > gaps[2] > 0 and gaps[2] < 1e-4


def test_parallel_variation_is_not_scaled():
    m = Lorentz(2)
    x = m.origin(1, F64)
    a = torch.tensor([[0.0, 1.0, 0.0]], dtype=F64)
    b = 1.001 * a
    d = float(m.dist(m.exp(x, a), m.exp(x, b)))
    assert abs(d - 1e-3) < 1e-10 and abs(float(jacobi_endpoint_norm(m, x, a, b)) - 1e-3) < 1e-12


def test_jacobi_gap_sign_flips_with_curvature():
    for m, sign in ((Sphere(2), -1), (Lorentz(2), 1)):
        x, a, b = _tangent_pair(m, 1.0, 0.05)
        gap = float(jacobi_gap(m, x, m.exp(x, a), m.exp(x, b)))
        assert sign * gap > 0


@pytest.mark.parametrize("m", [Sphere(2), Lorentz(2), SO3()], ids=repr)
def test_oracle_endpoint_sampler_is_exact(m):
    x0, x1 = _pairs(m, 16, seed=3)
    target = x1[:1].expand_as(x1)  # a single-point data set

    def oracle(x, t):
        return target

    eps = 1e-3
    end = ManifoldFlowSampler(m, oracle, "endpoint", eps).integrate(x0, 100)
    torch.testing.assert_close(m.dist(end, target), eps * m.dist(x0, target), atol=1e-8, rtol=0)
    land = ManifoldFlowSampler(m, oracle, "endpoint", 0.0).integrate(x0, 100)
    assert float(m.dist(land, target).max()) < 1e-8


def test_sabotage_euler_without_time_rescaling_fails_oracle():
    """A sampler that forgets the 1/(1 - t) factor of the endpoint velocity misses the target."""
    m = Sphere(2)
    x0, x1 = _pairs(m, 16, seed=3)
    target = x1[:1].expand_as(x1)
    broken = ManifoldFlowSampler(m, lambda x, t: target, "endpoint", 1e-3)
    broken.velocity = lambda x, t: m.log(x, target)  # type: ignore[method-assign]
    end = broken.integrate(x0, 100)
    assert float((m.dist(end, target) - 1e-3 * m.dist(x0, target)).abs().max()) > 1e-2


@pytest.mark.parametrize("m", [Sphere(2), Lorentz(2)], ids=repr)
def test_gradcheck_losses(m):
    x0, x1 = _pairs(m, 6, seed=5)
    t = torch.full((x0.shape[0],), 0.4, dtype=F64)
    x_t = m.geodesic(x0, x1, t)
    g = torch.Generator().manual_seed(2)
    w = m.proju(x_t, 0.3 * torch.randn(x_t.shape, generator=g, dtype=F64)).requires_grad_(True)
    rg = RGVFMLoss(m)
    assert torch.autograd.gradcheck(lambda w_: rg.from_tangent(x_t, w_, x1), (w,))
    rfm = RFMLoss(m)
    assert torch.autograd.gradcheck(lambda v_: rfm.from_velocity(x_t, v_, x1, t), (w,))
    ext = RGVFMLoss(m, "extrinsic")
    assert torch.autograd.gradcheck(lambda w_: ext.from_endpoint(x_t + w_, x1), (w,))


def test_models_output_on_manifold_and_tangent():
    g = torch.Generator().manual_seed(0)
    for m in (Sphere(2), Lorentz(2), SO3()):
        x = m.random_base(8, g)
        t = torch.rand(8, generator=g)
        for head in ("exp", "project"):
            assert float(m.point_error(EndpointMLP(m, 16, 2, head=head)(x, t)).max()) < 1e-4
        v = VelocityMLP(m, 16, 2)(x, t)
        torch.testing.assert_close(m.proju(x, v), v, atol=1e-4, rtol=1e-4)


def test_origin_chart_transport_and_models():
    """Lorentz.transp0 is an isometry onto T_x H (and maps log_o(x) to -log_x(o)); the origin-chart nets stay on
    the manifold / in the tangent space, with tangent norms equal to the body's output norm."""
    m = Lorentz(2, 2.0)
    g = torch.Generator().manual_seed(3)
    x = m.random_base(64, g, F64)
    v = torch.randn(64, 2, generator=g, dtype=F64)
    u = m.transp0(x, v)
    assert float(m.inner(x, x, u).abs().max()) < 1e-10
    torch.testing.assert_close(m.norm(x, u), v.norm(dim=-1), atol=1e-10, rtol=0)
    o = m.origin(64, F64)
    torch.testing.assert_close(m.transp0(x, m.log0(x)), -m.log(x, o), atol=1e-10, rtol=0)
    h = Lorentz(2)
    xh = h.random_base(16, g, F64)
    t = torch.rand(16, generator=g, dtype=F64)
    net = EndpointMLP(h, 16, 2, origin_chart=True).double()
    assert float(h.point_error(net(xh, t)).max()) < 1e-8
    vel = VelocityMLP(h, 16, 2, origin_chart=True).double()
    out = vel(xh, t)
    body = vel.net(torch.cat([h.log0(xh), time_embedding(t, vel.time_dim)], dim=-1))
    torch.testing.assert_close(h.norm(xh, out), body.norm(dim=-1), atol=1e-8, rtol=1e-8)
    with pytest.raises(ValueError, match="origin_chart"):
        VelocityMLP(Sphere(2), 16, 2, origin_chart=True)


def test_same_seed_same_init_across_heads():
    s = Sphere(2)
    torch.manual_seed(0)
    a = EndpointMLP(s, 16, 2)
    torch.manual_seed(0)
    b = VelocityMLP(s, 16, 2)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_antipodal_pairs_warn_and_resample():
    s = Sphere(2)
    x0 = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    x1 = -x0
    torch.manual_seed(0)
    net = EndpointMLP(s, 8, 1)
    with pytest.warns(RuntimeWarning, match="antipodal"):
        loss = RGVFMLoss(s)(net, x0, x1, torch.tensor([0.2, 0.5]))
    assert torch.isfinite(loss)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RGVFMLoss(s)(net, x0, x0, torch.tensor([0.2, 0.5]))


def test_training_reduces_rgvfm_loss():
    s = Sphere(2)
    g = torch.Generator().manual_seed(0)
    data = sphere_checkerboard(1, g).expand(512, 3)  # one data point: the optimal endpoint is known
    torch.manual_seed(0)
    net = EndpointMLP(s, 32, 2)
    opt = torch.optim.Adam(net.parameters(), 3e-3)
    loss_fn = RGVFMLoss(s)
    fixed = (s.random_base(512, g), data, torch.rand(512, generator=g) * 0.999)
    before = float(loss_fn(net, *fixed))
    for _ in range(80):
        x1 = data[torch.randint(0, 512, (128,), generator=g)]
        loss = loss_fn(net, s.random_base(128, g), x1, torch.rand(128, generator=g) * 0.999)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert float(loss_fn(net, *fixed)) < 0.3 * before


def test_checkerboards():
    g = torch.Generator().manual_seed(0)
    assert bool(sphere_in_cell(sphere_checkerboard(400, g)).all())
    frac = float(sphere_in_cell(Sphere(2).random_base(20000, g)).float().mean())
    assert abs(frac - 0.5) < 0.02  # on cells cover half of the sphere's area
    h = Lorentz(2)
    x = hyperbolic_checkerboard(400, g, h)
    assert bool(hyperbolic_in_cell(x, h).all()) and float(h.point_error(x).max()) < 1e-5


def _rows(gains, mmds, task="s2", method="rgvfm", base_in=0.6, base_mmd=0.01, learned=0.5):
    """Per-seed metrics with RFM at `base_*` and `method` ahead by `gains` (in-cell) and `mmds` (MMD^2)."""
    return [
        {
            f"{task}_{method}_incell": base_in + g,
            f"{task}_rfm_incell": base_in,
            f"{task}_{method}_mmd": base_mmd + m,
            f"{task}_rfm_mmd": base_mmd,
            f"{task}_{method}_learned": learned,
            f"{task}_rfm_learned": learned,
            f"{task}_ran": 1.0,
        }
        for g, m in zip(gains, mmds)
    ]


def _not_run(task="s2", method="rgvfm"):
    row = {f"{task}_{method}_{k}": float("nan") for k in ("incell", "mmd", "learned")}
    row |= {f"{task}_rfm_{k}": float("nan") for k in ("incell", "mmd", "learned")}
    return {**row, f"{task}_ran": 0.0}


def test_decider_outcomes():
    d = incell_gain_decider("s2")
    assert d(_rows([0.05, 0.06, 0.04, 0.05, 0.07], [-0.001] * 5)).outcome is Outcome.SUPPORTED
    assert d(_rows([-0.05, -0.06, -0.04], [0.0] * 3)).outcome is Outcome.NOT_SUPPORTED
    assert d(_rows([0.05, 0.06, 0.04], [0.01] * 3)).outcome is Outcome.INCONCLUSIVE  # MMD worse
    assert d(_rows([0.05, -0.04, 0.01], [-0.01] * 3)).outcome is Outcome.INCONCLUSIVE
    assert d(_rows([0.05], [-0.01])).outcome is Outcome.INCONCLUSIVE
    # seeds where the task did not run (NaN by design) are skipped
    rows = _rows([0.05, 0.06, 0.04], [-0.01] * 3) + [_not_run()]
    verdict = d(rows)
    assert verdict.outcome is Outcome.SUPPORTED and verdict.n_seeds == 3
    # a NaN in a seed that did run is not skipped
    bad = _rows([0.05, 0.06, 0.04], [-0.01] * 3)
    bad[1]["s2_rgvfm_mmd"] = float("nan")
    assert d(bad).outcome is Outcome.INCONCLUSIVE
    proj = incell_gain_decider("s2", method="rgvfm_proj")
    assert set(proj.metrics) == {
        "s2_rgvfm_proj_incell",
        "s2_rfm_incell",
        "s2_rgvfm_proj_mmd",
        "s2_rfm_mmd",
        "s2_ran",
    }
    assert proj(_rows([-0.1] * 3, [0.0] * 3, method="rgvfm_proj")).outcome is Outcome.NOT_SUPPORTED


def test_learned_preconditions():
    from iclr26.generative.rg_vfm.experiment import EXPERIMENT

    claim = next(c for c in EXPERIMENT.claims if c.id == "rgvfm-s2-incell")
    assert {p.metric for p in claim.preconditions} == {"s2_rgvfm_learned", "s2_rfm_learned"}
    win = _rows([0.05, 0.06, 0.04, 0.05, 0.07], [-0.001] * 5)
    assert claim.judge(win).outcome is Outcome.SUPPORTED  # both flows learned: a real verdict
    lose = _rows([-0.05, -0.06, -0.04], [0.0] * 3)
    assert claim.judge(lose).outcome is Outcome.NOT_SUPPORTED
    # the quick run's headline: RG-VFM barely left its initialisation (in-cell 0.526 vs the base's 0.5)
    stuck = [{**r, "s2_rgvfm_learned": (0.526 - 0.5) / 0.5} for r in lose]
    assert claim.judge(stuck).outcome is Outcome.NOT_REPRODUCED
    h2 = next(c for c in EXPERIMENT.claims if c.id == "rgvfm-h2-incell")
    assert h2.judge(_rows([0.05] * 3, [0.0] * 3, task="h2") + [_not_run("h2")]).outcome is (
        Outcome.NOT_REPRODUCED  # a seed without H^2 cannot show that the flows learned there
    )
    assert EXPERIMENT.configs["quick"].h2_seeds >= EXPERIMENT.seeds["quick"]
    assert EXPERIMENT.configs["full"].h2_seeds >= EXPERIMENT.seeds["full"]


# --- devices -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("space", MANIFOLDS, ids=repr)
def test_random_base_device_argument_keeps_the_draws(space):
    """Base points are drawn on the generator's device and moved; on the CPU the draws are unchanged."""
    a = space.random_base(7, torch.Generator().manual_seed(2))
    b = space.random_base(7, torch.Generator().manual_seed(2), device="cpu")
    assert torch.equal(a, b)
    if torch.cuda.is_available():
        c = space.random_base(7, torch.Generator().manual_seed(2), device="cuda")
        assert c.device.type == "cuda"
        torch.testing.assert_close(c.cpu(), a)
