"""Fisale: Galerkin attention against its explicit form, projection weights, the latent ALE grid and its limits,
the kNN graph and the GAT layer against slow references (and PyG if installed), permutation equivariance and batch
consistency of the whole model, overfitting one batch, the IB generator's conservation properties, the metrics on
hand-computed cases, and the claim rule on hand-built rows."""

import math

import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.science.fisale import (
    Fisale,
    FSIDataConfig,
    GalerkinAttention,
    GATLayer,
    GridProjection,
    IBSimulator,
    LatentALEGrid,
    PCMBlock,
    PointNetBaseline,
    TransolverLite,
    enclosed_area,
    knn_graph,
    make_fsi_dataset,
    per_channel_relative_l1,
    peskin_delta,
    relative_l2,
    rollout,
)
from iclr26.science.fisale.claim_check import fisale_beats_transolver
from iclr26.science.fisale.data import _body
from iclr26.science.fisale.model import base_grid

D = torch.float64
CH = {"solid": 0, "fluid": 3, "interface": 4}


def _frame(B=2, ns=5, nf=9, ni=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(B, ns, 2, generator=g, dtype=D),
        torch.randn(B, nf, 5, generator=g, dtype=D),
        torch.randn(B, ni, 6, generator=g, dtype=D),
    )


def _model(**kw):
    torch.manual_seed(0)
    return Fisale(2, CH, (16, 8), ((4, 4), (3, 3)), (3, 2), coupling_steps=2, heads=2, **kw).double()


# ------------------------------------------------------------------ attention


def test_galerkin_attention_equals_the_explicit_form_with_n_q_normalisation():
    torch.manual_seed(0)
    att = GalerkinAttention(8, heads=2).double()
    x = torch.randn(2, 5, 8, dtype=D, requires_grad=True)
    y = torch.randn(2, 7, 8, dtype=D, requires_grad=True)
    out = att(x, y)
    q, k, v = att.qkv(x, y, y)
    ref = torch.zeros(2, 2, 5, 4, dtype=D)
    for i in range(5):  # explicit (q k^T) v / n_q, one query at a time
        for j in range(7):
            ref[:, :, i] += (q[:, :, i] * k[:, :, j]).sum(-1, keepdim=True) * v[:, :, j]
    ref = att.W_o((ref / 5).transpose(1, 2).reshape(2, 5, 8)) + x
    assert torch.allclose(out, ref, atol=1e-10)
    g = torch.randn_like(out)
    assert torch.allclose(
        torch.autograd.grad(out, (x, y), g)[1], torch.autograd.grad(ref, (x, y), g)[1], atol=1e-10
    )
    assert torch.allclose(q.sum(-1), torch.ones(2, 2, 5, dtype=D))  # softmax over each head's channels


def test_galerkin_self_attention_defaults_keys_and_values_to_the_queries():
    torch.manual_seed(1)
    att = GalerkinAttention(8, heads=4).double()
    x = torch.randn(1, 6, 8, dtype=D)
    assert torch.allclose(att(x), att(x, x, x))


# ------------------------------------------------------------------ projection


def test_projection_weights_are_normalised_and_tokens_match_a_loop():
    torch.manual_seed(0)
    proj = GridProjection(8, 9).double()
    f, e = torch.randn(2, 11, 8, dtype=D), torch.randn(2, 9, 8, dtype=D)
    P, A = proj(f, e)
    assert torch.allclose(A.softmax(-2).sum(1), torch.ones(2, 9, dtype=D))  # over points
    assert torch.allclose(A.softmax(-1).sum(-1), torch.ones(2, 11, dtype=D))  # over grid nodes
    w = A.softmax(-2)
    for m in range(9):
        assert torch.allclose(P[:, m], (w[:, :, m : m + 1] * f).sum(1))
    up = proj.deproject(P, A)
    ref = proj.out(torch.einsum("bnm,bmc->bnc", A.softmax(-1), P))
    assert torch.allclose(up, ref)


# ------------------------------------------------------------------ ALE grid


def test_ale_grid_offsets_match_a_loop_and_static_grid_is_the_base_grid():
    torch.manual_seed(0)
    grid = LatentALEGrid(2, 8, (4, 4), 3).double()
    coords = [torch.randn(2, n, 2, dtype=D) for n in (5, 7, 3)]
    e, nbr, g_new = grid(coords)
    g = base_grid((4, 4)).double()
    ref = g.clone().expand(2, -1, -1).clone()
    for u in coords:
        W = grid.w(-(torch.cdist(u, g[None].expand(2, -1, -1)) ** 2)).softmax(1)
        for m in range(16):
            ref[:, m] += (W[:, :, m : m + 1] * (u - g[m])).sum(1)
    assert torch.allclose(g_new, ref)
    assert torch.allclose(e, grid.fc(g_new))
    static = LatentALEGrid(2, 8, (4, 4), 3, moving=False).double()
    assert torch.allclose(static(coords)[2], g.expand(2, -1, -1))
    with torch.no_grad():  # offsets zeroed by hand: coordinates exactly on the grid nodes pull by 0
        on = [g[None].expand(2, -1, -1)]
        grid.w[1].weight.zero_()
        grid.w[1].bias.copy_(torch.eye(16, dtype=D)[0] * 0)
    # a uniform W over points, u = g: offset_m = mean_n (g_n - g_m) = centroid - g_m
    moved = grid.moved_grid(on)
    assert torch.allclose(moved, g.mean(0).expand(2, 16, 2), atol=1e-12)
    assert base_grid((2, 2)).tolist() == [[-3.5, -3.5], [-3.5, 3.5], [3.5, -3.5], [3.5, 3.5]]


def test_knn_graph_matches_brute_force_without_self_loops():
    x = torch.randn(2, 10, 4, dtype=D, generator=torch.Generator().manual_seed(3))
    idx = knn_graph(x, 3)
    for b in range(2):
        for i in range(10):
            d = [(float((x[b, i] - x[b, j]).norm()), j) for j in range(10) if j != i]
            assert sorted(idx[b, i].tolist()) == sorted(j for _, j in sorted(d)[:3])
    assert not (idx == torch.arange(10)[None, :, None]).any()


# ------------------------------------------------------------------ GAT


def _gat_slow(gat, x, nbr):
    B, M, _ = x.shape
    h = gat.lin(x).view(B, M, gat.heads, gat.out)
    out = torch.zeros(B, M, gat.heads, gat.out, dtype=x.dtype)
    for b in range(B):
        for i in range(M):
            src = [i] + nbr[b, i].tolist()
            s = torch.stack(
                [
                    torch.nn.functional.leaky_relu(
                        (h[b, j] * gat.att_src[0, 0]).sum(-1) + (h[b, i] * gat.att_dst[0, 0]).sum(-1), 0.2
                    )
                    for j in src
                ]
            )  # (k + 1, H)
            a = s.softmax(0)
            out[b, i] = sum(a[t][:, None] * h[b, j] for t, j in enumerate(src))
    return out.reshape(B, M, -1) + gat.res(x) + gat.bias


def test_gat_layer_matches_the_per_node_definition():
    torch.manual_seed(0)
    gat = GATLayer(6, 4, 2).double()
    x = torch.randn(2, 8, 6, dtype=D)
    nbr = knn_graph(x, 3)
    assert torch.allclose(gat(x, nbr), _gat_slow(gat, x, nbr), atol=1e-10)


def test_gat_layer_equals_pyg_gatconv():
    pyg = pytest.importorskip("torch_geometric.nn")
    torch.manual_seed(0)
    gat = GATLayer(6, 4, 2).double()
    ref = pyg.GATConv(6, 4, heads=2, residual=True).double()
    with torch.no_grad():
        ref.lin.weight.copy_(gat.lin.weight)
        ref.att_src.copy_(gat.att_src[0])
        ref.att_dst.copy_(gat.att_dst[0])
        ref.res.weight.copy_(gat.res.weight)
        ref.bias.copy_(gat.bias)
    x = torch.randn(1, 8, 6, dtype=D)
    nbr = knn_graph(x, 3)
    edge = torch.stack([nbr[0].reshape(-1), torch.arange(8).repeat_interleave(3)])
    assert torch.allclose(gat(x, nbr)[0], ref(x[0], edge), atol=1e-5)


# ------------------------------------------------------------------ the model


@pytest.mark.parametrize("kw", [{}, {"coupling": "joint"}, {"moving_grid": False}])
def test_fisale_is_permutation_equivariant_within_each_domain(kw):
    model = _model(**kw)
    frame = _frame()
    out = model(*frame)
    for k, n in enumerate((5, 9, 6)):
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(k))
        permuted = list(frame)
        permuted[k] = frame[k][:, perm]
        out_p = model(*permuted)
        for j in range(3):
            want = out[j][:, perm] if j == k else out[j]
            assert torch.allclose(out_p[j], want, atol=1e-5)


def test_fisale_batch_equals_a_loop_over_samples_and_shapes_follow_the_channels():
    model = _model()
    frame = _frame(B=3)
    out = model(*frame)
    assert [o.shape for o in out] == [(3, 5, 2), (3, 9, 5), (3, 6, 6)]
    for b in range(3):
        one = model(*(x[b : b + 1] for x in frame))
        for j in range(3):
            assert torch.allclose(one[j][0], out[j][b], atol=1e-10)


def test_static_grid_ablation_keeps_the_base_grid_and_has_no_grid_update():
    model = _model(moving_grid=False)
    model(*_frame())
    assert torch.allclose(model.last_grids[0], base_grid((4, 4)).double().expand(2, -1, -1))
    assert not any(hasattr(b, "grid_update") for lv in model.blocks for b in lv)
    assert isinstance(model.blocks[0][0], PCMBlock)


def test_rollout_feeds_predictions_back():
    model = _model()
    frame = _frame(B=1)
    roll = rollout(model, frame, 2)
    with torch.no_grad():
        one = model(*frame)
        two = model(*one)
    for j in range(3):
        assert roll[j].shape[1] == 2
        assert torch.allclose(roll[j][:, 0], one[j]) and torch.allclose(roll[j][:, 1], two[j])


def test_overfitting_one_batch_drives_the_loss_below_1e_3():
    torch.manual_seed(0)
    model = Fisale(2, CH, (8,), ((2, 2),), (1,), coupling_steps=1, heads=2, mlp_layers=1)
    x = [t.float() for t in _frame(B=1, ns=3, nf=4, ni=3)]
    y = [t.float() * 0.5 for t in _frame(B=1, ns=3, nf=4, ni=3, seed=1)]
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(300):
        loss = sum((p - t).pow(2).mean() for p, t in zip(model(*x), y)) / 3
        if loss.item() < 1e-3:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 1e-3


@pytest.mark.parametrize("cls", [TransolverLite, PointNetBaseline])
def test_point_baselines_are_permutation_equivariant(cls):
    torch.manual_seed(0)
    model = (cls(2, CH, hidden=16) if cls is PointNetBaseline else cls(2, CH, hidden=16, layers=1)).double()
    frame = _frame()
    out = model(*frame)
    perm = torch.randperm(9, generator=torch.Generator().manual_seed(0))
    out_p = model(frame[0], frame[1][:, perm], frame[2])
    assert torch.allclose(out_p[1], out[1][:, perm], atol=1e-10)
    assert torch.allclose(out_p[0], out[0], atol=1e-10)
    assert [o.shape[-1] for o in out] == [2, 5, 6]


# ------------------------------------------------------------------ the IB generator


def test_peskin_delta_sums_to_one_and_has_support_two():
    r = torch.linspace(-3, 3, 601, dtype=D)
    assert float(peskin_delta(torch.tensor([2.0, -2.5], dtype=D)).abs().max()) == 0.0
    for shift in (0.0, 0.3, 0.77):
        pts = torch.arange(-4, 5, dtype=D) + shift
        assert math.isclose(float(peskin_delta(pts).sum()), 1.0, abs_tol=1e-12)
    assert float(peskin_delta(r).max()) == pytest.approx(0.5)


def test_spreading_and_interpolation_are_adjoint_and_spring_forces_sum_to_zero():
    cfg = FSIDataConfig(n=16, n_traj=2, n_interface=8, n_fluid=16)
    X, edges, rest = _body(cfg, torch.tensor([1.3, 1.0], dtype=D), torch.full((2, 2), 3.0, dtype=D))
    sim = IBSimulator(cfg, torch.full((2,), 0.01), torch.zeros(2), torch.full((2,), 10.0))
    F = sim.forces(X, edges, rest)
    assert torch.allclose(F.sum(1), torch.zeros(2, 2, dtype=D), atol=1e-12)
    circle_F = sim.forces(
        X[1:2].expand(2, -1, -1).contiguous(), edges, rest
    )  # aspect 1: the rest shape, no force
    assert float(circle_F.abs().max()) < 1e-12
    dx, dy = sim._deltas(X)
    u = torch.randn(2, 16, 16, dtype=D)
    interp = torch.einsum("byx,bmy,bmx->bm", u, dy, dx) * sim.h**2
    spread = torch.einsum("bm,bmy,bmx->byx", F[..., 0], dy, dx)
    assert torch.allclose((interp * F[..., 0]).sum(1), (u * spread).sum((1, 2)) * sim.h**2)


def test_ib_generator_conserves_area_and_keeps_the_flow_divergence_free():
    data = make_fsi_dataset(FSIDataConfig(n=24, n_traj=2, n_frames=10, n_fluid=64, n_interface=16))
    area = data["area"]
    assert float((area / area[:, :1] - 1).abs().max()) < 0.02
    assert float(data["divergence"].max()) < 1e-8
    assert data["solid"].shape == (2, 10, 13, 2) and data["interface"].shape == (2, 10, 16, 6)
    assert data["fluid"].shape == (2, 10, 64, 5)
    assert torch.equal(data["fluid"][:, 0, :, :2], data["fluid"][:, -1, :, :2])  # Eulerian points stay put
    moved = (data["solid"][:, -1] - data["solid"][:, 0]).abs().max()
    assert float(moved) > 0.05  # the body moves (two-way coupling with a background flow)


def test_enclosed_area_of_a_unit_square_and_a_circle():
    sq = torch.tensor([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], dtype=D)
    assert float(enclosed_area(sq)) == pytest.approx(1.0)
    t = torch.arange(400, dtype=D) * (2 * math.pi / 400)
    assert float(enclosed_area(torch.stack([torch.cos(t), torch.sin(t)], -1))) == pytest.approx(
        math.pi, rel=1e-3
    )


# ------------------------------------------------------------------ metrics and the claim rule


def test_metrics_on_hand_computed_cases():
    target = torch.tensor([[[3.0, 1.0], [4.0, -1.0]]])  # (1, 2, 2)
    pred = target + torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    assert float(relative_l2(pred, target)) == pytest.approx(math.sqrt(2) / math.sqrt(27))
    # channel 0: 1 / 7, channel 1: 1 / 2
    assert float(per_channel_relative_l1(pred, target)) == pytest.approx((1 / 7 + 1 / 2) / 2)


def _rows(fis, tra):
    return [{"onestep_fisale": f, "onestep_transolver": t} for f, t in zip(fis, tra)]


def test_claim_rule_supported_not_supported_and_inconclusive():
    assert fisale_beats_transolver(_rows([0.10, 0.11, 0.12], [0.20, 0.21, 0.22])).outcome is Outcome.SUPPORTED
    assert (
        fisale_beats_transolver(_rows([0.25, 0.21, 0.23], [0.20, 0.21, 0.22])).outcome
        is Outcome.NOT_SUPPORTED
    )
    v = fisale_beats_transolver(_rows([0.19, 0.20, 0.21], [0.20, 0.21, 0.22]))  # 5% better only
    assert v.outcome is Outcome.INCONCLUSIVE
