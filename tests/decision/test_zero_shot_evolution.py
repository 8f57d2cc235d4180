"""Oracle tests of zero-/few-shot evolution (Strgar & Kriegman, ICLR 2026, arXiv 2502.10862): the brief's
correctness properties (1)-(7), the simulator against a per-body per-spring loop, hand-computed cases, the
variation operators and the claim check."""

import math

import numpy as np
import pytest
import torch
from scipy.spatial.distance import pdist

from iclr26.decision.zero_shot_evolution import (
    MassSpring2D,
    NoveltyArchive,
    OptimConfig,
    UniversalController,
    Workspace,
    canonical_form,
    canonical_hash,
    cosine_warm_restarts_lr,
    crossover,
    diversity,
    evaluate,
    evolve,
    largest_component,
    masked_center,
    mutate,
    pretrain,
    random_bodies,
    random_body,
    shift_to_bottom_center,
    variation,
)
from iclr26.decision.zero_shot_evolution.claim_check import diversity_decider, pooled_interval
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads

WS = Workspace()


@pytest.fixture(autouse=True)
def one_thread():
    with limited_threads(1):
        yield


def grid(rows: str, embed: bool = True) -> np.ndarray:
    """A genotype from text, top row first ('#' filled), as (nx, ny) with y up; placed at the bottom centre of
    the 5 x 5 workspace unless ``embed=False``."""
    lines = [r for r in rows.strip().splitlines()]
    a = np.ascontiguousarray(np.array([[c == "#" for c in line] for line in lines], dtype=np.uint8)[::-1].T)
    return shift_to_bottom_center(a, (5, 5)) if embed else a


def sim64(**kw) -> MassSpring2D:
    return MassSpring2D(dtype=torch.float64, **kw)


def mirror_perm(ws: Workspace) -> np.ndarray:
    """perm[i] = index of the mass mirrored (x -> -x) from mass i."""
    pos = ws.masses
    perm = np.empty(len(pos), dtype=int)
    for i, (x, y) in enumerate(pos):
        perm[i] = int(np.argmin((pos[:, 0] + x) ** 2 + (pos[:, 1] - y) ** 2))
    return perm


# ----------------------------------------------------------------------- (5) genotype -> phenotype counts


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 3), (5, 5), (4, 2)])
def test_5_full_grid_counts(a, b):
    ws = Workspace(a, b)
    mm, sm = ws.phenotype(np.ones((a, b), dtype=np.uint8))
    assert ws.n_masses == mm.sum() == (a + 1) * (b + 1)
    assert ws.n_springs == sm.sum() == a * (b + 1) + b * (a + 1) + 2 * a * b
    lens = ws.rest_lengths
    assert np.allclose(np.sort(np.unique(np.round(lens, 12))), [ws.side, ws.side * math.sqrt(2)])


def test_phenotype_shares_masses_and_springs():
    g = grid("##")  # two voxels side by side: 6 masses, 4+4-1 edges + 4 diagonals = 11 springs
    mm, sm = WS.phenotype(g)
    assert mm.sum() == 6 and sm.sum() == 11
    batch_m, batch_s = WS.phenotype(np.stack([g, grid("#")]))
    assert batch_m.sum(1).tolist() == [6, 4] and batch_s.sum(1).tolist() == [11, 6]


# ----------------------------------------------------------------------- (7) canonical form, repair, archive


def test_7_canonical_form_invariant_to_mirror_and_translation():
    rng = np.random.default_rng(0)
    for _ in range(200):
        g = largest_component((rng.random((5, 5)) < 0.5).astype(np.uint8))
        if g.sum() == 0:
            continue
        h = canonical_hash(g)
        assert canonical_hash(g[::-1]) == h
        assert canonical_hash(shift_to_bottom_center(g)) == h
        xs, ys = np.nonzero(g)
        big = np.zeros((9, 9), dtype=np.uint8)
        big[xs + 3, ys + 1] = 1
        assert np.array_equal(canonical_form(big), canonical_form(g))
    # a body and its vertical flip differ (gravity fixes "down"; no rotations in 2-D)
    L = grid("#.\n##")
    assert canonical_hash(L) != canonical_hash(L[:, ::-1])


def test_largest_component_hand_case():
    g = grid("##.#\n...#\n#..#", embed=False)
    out = largest_component(g)
    assert np.array_equal(out, grid("...#\n...#\n...#", embed=False))
    diag = grid("#.\n.#", embed=False)  # diagonal neighbours are not face-connected
    assert largest_component(diag).sum() == 1


def test_shift_to_bottom_center_hand_case():
    g = np.zeros((5, 5), dtype=np.uint8)
    g[0, 3] = g[1, 3] = 1  # two voxels at the top left
    out = shift_to_bottom_center(g)
    xs, ys = np.nonzero(out)
    assert ys.tolist() == [0, 0] and xs.tolist() in ([1, 2], [2, 3])


def test_archive_accepts_each_form_once():
    ar = NoveltyArchive()
    g = grid("#.\n##")
    assert ar.add_if_new(g) and not ar.add_if_new(g[::-1]) and not ar.add_if_new(shift_to_bottom_center(g))
    assert len(ar) == 1 and ar.is_new(g[:, ::-1])


def test_random_body_sampler():
    rng = np.random.default_rng(1)
    sizes = []
    for _ in range(300):
        g = random_body(rng)
        assert g.shape == (5, 5) and g.sum() >= 1
        assert largest_component(g).sum() == g.sum()
        assert np.nonzero(g)[1].min() == 0
        sizes.append(int(g.sum()))
    assert max(sizes) > 5 and min(sizes) == 1
    ar = NoveltyArchive()
    bodies = random_bodies(100, rng, ar)
    assert len({canonical_hash(b) for b in bodies}) == 100 == len(ar)


# ----------------------------------------------------------------------- (6) variation operators


def _connected(g):
    return g.sum() > 0 and largest_component(g).sum() == g.sum()


def test_6_mutation_and_crossover_give_valid_new_bodies():
    rng = np.random.default_rng(2)
    ar = NoveltyArchive()
    pop = random_bodies(24, rng, ar)
    for _ in range(3):
        before = set(ar.hashes)
        kids, parents = variation(pop, rng, ar)
        assert kids.shape == pop.shape and len(parents) == len(pop)
        hashes = [canonical_hash(k) for k in kids]
        assert len(set(hashes)) == len(kids) and not set(hashes) & before
        assert all(_connected(k) and np.nonzero(k)[1].min() == 0 for k in kids)
        assert sum(len(p) == 1 for p in parents) >= int(0.25 * len(pop))
        pop = kids
    g = grid("###")
    m = mutate(g, rng, ar)
    assert _connected(m) and canonical_hash(m) in ar.hashes
    a, b = grid("##\n##", embed=False), grid("#.\n##", embed=False)
    ar = NoveltyArchive()
    child = crossover(a, b, ar)  # XOR = the top-right voxel alone
    assert child is not None and child.sum() == 1
    assert crossover(a, b, ar) is None  # now known
    assert crossover(a, a, NoveltyArchive()) is None  # XOR of a body with itself is empty


def test_crossover_falls_back_to_mutation_when_the_archive_is_full():
    rng = np.random.default_rng(3)
    ar = NoveltyArchive()
    pop = np.stack([grid("#"), grid("##")])
    ar.extend(pop)
    ar.add_if_new(grid("#"))
    kids, parents = variation(pop, rng, ar, mutate_frac=0.0, max_xover_attempts=5)
    assert all(len(p) == 1 for p in parents)  # XOR of the two is a single voxel: known, so mutants
    assert all(_connected(k) for k in kids)


def test_diversity_matches_scipy_hamming():
    rng = np.random.default_rng(4)
    g = (rng.random((30, 5, 5)) < 0.4).astype(np.uint8)
    assert diversity(g) == pytest.approx(pdist(g.reshape(30, -1), metric="hamming").mean(), abs=1e-12)
    assert diversity(np.repeat(g[:1], 5, 0)) == 0.0


# ----------------------------------------------------------------------- controller


def test_masked_center_and_controller_shapes():
    x = torch.tensor([[0.0, 1.0, 3.0, 0.0], [2.0, 0.0, 0.0, 0.0]])
    out = masked_center(x)
    assert torch.equal(out, torch.tensor([[0.0, -1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]))
    torch.manual_seed(0)
    c = UniversalController(36, 110, (16, 16, 16))
    y = c(torch.rand(3, 41))
    assert y.shape == (3, 110) and y.abs().max() < 1
    # the controller's irradiance input is centred: adding a constant to the present readings changes nothing
    inp = torch.rand(3, 41)
    inp[:, 30:36] = 0.0
    shifted = inp.clone()
    shifted[:, :30] += 0.5
    assert torch.allclose(c(inp), c(shifted), atol=1e-6)


def test_cosine_warm_restarts_hand_values():
    assert cosine_warm_restarts_lr(0, 1.0, 10, 2, 0.65, 0.0) == pytest.approx(1.0)
    assert cosine_warm_restarts_lr(5, 1.0, 10, 2, 0.65, 0.0) == pytest.approx(0.5)
    assert cosine_warm_restarts_lr(10, 1.0, 10, 2, 0.65, 0.0) == pytest.approx(0.65)  # restart, decayed
    assert cosine_warm_restarts_lr(20, 1.0, 10, 2, 0.65, 0.0) == pytest.approx(
        0.65 * 0.5
    )  # cycle 2 is 20 long
    assert cosine_warm_restarts_lr(30, 1.0, 10, 2, 0.65, 0.0) == pytest.approx(0.65**2)
    assert cosine_warm_restarts_lr(150, 3.5e-4, 100, 1, 1, 3.5e-5) == pytest.approx(
        3.5e-5 + (3.5e-4 - 3.5e-5) * 0.5
    )


# ----------------------------------------------------------------------- simulator: slow reference


def reference_rollout(sim, g, controller, light, steps, x0=None, v0=None):
    """Per-body, per-spring, per-mass loop of the same equations (float64 torch scalars, autograd-able)."""
    ws = sim.workspace
    mm, sm = ws.phenotype(g)
    masses = [int(i) for i in np.nonzero(mm)[0]]
    springs = [int(s) for s in np.nonzero(sm)[0]]
    pos = torch.as_tensor(ws.masses, dtype=torch.float64) if x0 is None else x0
    x = {i: pos[i].clone() for i in masses}
    v = {i: (torch.zeros(2, dtype=torch.float64) if v0 is None else v0[i].clone()) for i in masses}
    com0 = sum(x.values()) / len(masses)
    damp = math.exp(-sim.dt * sim.damping)
    for t in range(steps):
        inp = torch.zeros(1, sim.n_inputs, dtype=torch.float64)
        inp = inp.clone()
        vals = []
        for i in range(ws.n_masses):
            if i in x:
                d = torch.sqrt((x[i][0] - light) ** 2 + x[i][1] ** 2 + sim.eps**2)
                vals.append(1.0 / (torch.sqrt(d + sim.eps) + sim.eps))
            else:
                vals.append(torch.zeros((), dtype=torch.float64))
        cpg = [math.sin(sim.omega * t * sim.dt + 2 * math.pi * i / sim.n_cpg) for i in range(sim.n_cpg)]
        inp = torch.stack([*vals, *[torch.tensor(c, dtype=torch.float64) for c in cpg]])[None]
        act = controller(inp)[0] if controller is not None else torch.zeros(ws.n_springs, dtype=torch.float64)
        dv = {i: torch.zeros(2, dtype=torch.float64) for i in masses}
        for s in springs:
            a, b = (int(q) for q in ws.springs[s])
            d = x[b] - x[a]
            length = torch.sqrt((d**2).sum() + sim.eps**2)
            target = float(ws.rest_lengths[s]) * (1 + sim.actuation * act[s])
            f = sim.k * (length - target) / (length + sim.eps) * d
            dv[a] = dv[a] + sim.dt * f / sim.mass
            dv[b] = dv[b] - sim.dt * f / sim.mass
        for i in masses:
            nv = damp * v[i] + dv[i] + torch.tensor([0.0, -sim.dt * sim.gravity], dtype=torch.float64)
            nx = x[i] + sim.dt * nv
            if sim.contact and nx[1] < 0:
                down = torch.clamp(-nv[1], min=sim.eps)
                toi = torch.clamp(x[i][1] / down, 0.0, sim.dt)
                vt = nv[0]
                fric = torch.minimum(sim.friction * down, 0.95 * vt.abs())
                vt_new = vt - fric * torch.sign(vt)
                cx = x[i][0] + toi * vt + (sim.dt - toi) * vt_new
                nx = torch.stack([cx, torch.zeros((), dtype=torch.float64)])
                nv = torch.stack([vt_new, torch.zeros((), dtype=torch.float64)])
            x[i], v[i] = nx, nv
    com1 = sum(x.values()) / len(masses)
    return (com1[0] - light).abs() / ((com0[0] - light).abs() + sim.eps), x


def small_controller(seed=0, width=3):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(41, width, generator=g, dtype=torch.float64) * 2.0
    p = torch.randn(width, 110, generator=g, dtype=torch.float64)
    return w, p


def test_batched_simulator_equals_per_body_loop_with_contact():
    sim = sim64()
    bodies = np.stack([grid("##\n#."), grid("###"), grid("#")])
    lights = torch.tensor([0.7, -1.3, 0.4], dtype=torch.float64)
    w, p = small_controller()
    ctrl = lambda inp: torch.tanh(inp @ w @ p)  # noqa: E731
    res = sim.simulate(bodies, ctrl, lights, 40)
    for b in range(3):
        loss, x = reference_rollout(sim, bodies[b], ctrl, float(lights[b]), 40)
        assert float(res.loss[b]) == pytest.approx(float(loss), rel=1e-10, abs=1e-12)
        for i, xi in x.items():
            assert torch.allclose(res.x[b, i], xi, atol=1e-10)
    assert (res.x[..., 1] >= 0).all()


def test_batched_gradients_equal_per_body_loop():
    sim = sim64()
    g = grid("##\n##")
    w, p = small_controller(1)
    w1 = w.clone().requires_grad_(True)
    loss = sim.rollout(
        g[None], lambda inp: torch.tanh(inp @ w1 @ p), torch.tensor([1.1], dtype=torch.float64), 25
    )
    (g_fast,) = torch.autograd.grad(loss.sum(), w1)
    w2 = w.clone().requires_grad_(True)
    loss_ref, _ = reference_rollout(sim, g, lambda inp: torch.tanh(inp @ w2 @ p), 1.1, 25)
    (g_ref,) = torch.autograd.grad(loss_ref, w2)
    assert float(loss) == pytest.approx(float(loss_ref), rel=1e-10)
    assert torch.allclose(g_fast, g_ref, rtol=1e-7, atol=1e-10)


def test_1_gradcheck_of_a_five_step_rollout_above_the_ground():
    sim = sim64()
    body = grid("#")[None]
    _, p = small_controller(2)
    x0 = torch.as_tensor(WS.masses, dtype=torch.float64)[None] + torch.tensor([0.0, 0.3], dtype=torch.float64)
    x0 = x0 + 0.004 * torch.randn(x0.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)

    def f(w, light, x_init):
        res = sim.simulate(body, lambda inp: torch.tanh(inp @ w @ p), light, 5, x0=x_init)
        assert (res.x[0, WS.phenotype(body[0])[0], 1] > 0).all()  # no contact event in these steps
        return res.loss

    w = (
        0.5 * torch.randn(41, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    ).requires_grad_()
    light = torch.tensor([0.8], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(f, (w, light, x0.requires_grad_()), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_2_momentum_and_energy_conserved_without_gravity_damping_contact_actuation():
    sim = sim64(gravity=0.0, damping=0.0, contact=False, k=100.0, dt=5e-4)
    g = grid("##\n##")
    mm, sm = WS.phenotype(g[None])
    gen = torch.Generator().manual_seed(0)
    x0 = torch.as_tensor(WS.masses, dtype=torch.float64)[None] + 0.01 * torch.randn(
        1, 36, 2, generator=gen, dtype=torch.float64
    )
    v0 = 0.3 * torch.randn(1, 36, 2, generator=gen, dtype=torch.float64)
    res = sim.simulate(
        g[None], None, torch.tensor([1.0], dtype=torch.float64), 200, x0=x0, v0=v0, record=True
    )
    m, s = torch.as_tensor(mm), torch.as_tensor(sm)
    p0 = sim.momentum(v0, m)
    e0 = float(sim.energy(x0, v0, m, s))
    for t in range(0, 201, 20):
        assert torch.allclose(sim.momentum(res.vs[t], m), p0, atol=1e-10, rtol=0)
        e = float(sim.energy(res.xs[t], res.vs[t], m, s))
        assert abs(e - e0) < 0.01 * e0
    assert e0 > 0 and float(p0.abs().sum()) > 0.1


def test_3_mirror_symmetry_with_a_zero_weight_controller():
    sim = sim64()
    ctrl = UniversalController(36, 110, (8, 8, 8)).double()
    for prm in ctrl.parameters():
        torch.nn.init.zeros_(prm)
    ctrl.net[1].weight.data.fill_(1.0)  # LayerNorm scales stay 1, as a real init
    gg = grid("##.\n.##\n..#")
    mir = gg[::-1].copy()
    a = sim.simulate(gg[None], ctrl, torch.tensor([0.9], dtype=torch.float64), 60, record=True)
    b = sim.simulate(mir[None], ctrl, torch.tensor([-0.9], dtype=torch.float64), 60, record=True)
    perm = mirror_perm(WS)
    mm = WS.phenotype(gg)[0]
    xa, xb = a.xs[:, 0][:, mm], b.xs[:, 0][:, perm[mm]]
    assert torch.allclose(xb[..., 0], -xa[..., 0], atol=1e-12)
    assert torch.allclose(xb[..., 1], xa[..., 1], atol=1e-12)
    assert float(a.loss[0]) == pytest.approx(float(b.loss[0]), abs=1e-12)


def test_4_outputs_for_absent_springs_are_ignored_bit_for_bit():
    sim = MassSpring2D()
    torch.manual_seed(0)
    ctrl = UniversalController(36, 110, (16, 16, 16))
    bodies = np.stack([grid("##\n#."), grid("###\n..#")])
    sm = torch.as_tensor(WS.phenotype(bodies)[1])
    gen = torch.Generator().manual_seed(5)

    def noisy(inp):
        out = ctrl(inp)
        return torch.where(sm, out, torch.rand(out.shape, generator=gen) * 2 - 1)

    lights = torch.tensor([1.0, -0.5])
    with torch.no_grad():
        a = sim.simulate(bodies, ctrl, lights, 80, record=True)
        b = sim.simulate(bodies, noisy, lights, 80, record=True)
    assert torch.equal(a.xs, b.xs) and torch.equal(a.loss, b.loss)


def test_friction_hand_case_sliding_voxel():
    """Without springs (k = 0) a mass resting on the ground with horizontal speed v0 slows by
    friction * g * dt per step (Coulomb friction from the impulse that cancels gravity's step)."""
    sim = sim64(damping=0.0, k=0.0)
    g = grid("#")[None]
    v0 = torch.zeros(1, 36, 2, dtype=torch.float64)
    v0[..., 0] = 1.0
    res = sim.simulate(g, None, torch.tensor([2.0], dtype=torch.float64), 20, v0=v0)
    mm = WS.phenotype(g[0])[0]
    bottom = mm & (WS.masses[:, 1] == 0)
    expect = 1.0 - 20 * 0.9 * 9.8 * sim.dt
    assert bottom.sum() == 2
    assert torch.allclose(res.v[0, bottom, 0], torch.full((2,), expect, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(res.x[0, bottom, 1], torch.zeros(2, dtype=torch.float64), atol=1e-15)


def test_free_flight_loss_hand_case():
    """No gravity, damping or contact: the body translates at v0, so the loss is |x0 + v0 T - L| / |x0 - L|."""
    sim = sim64(gravity=0.0, damping=0.0, contact=False)
    g = grid("##")[None]
    v0 = torch.zeros(1, 36, 2, dtype=torch.float64)
    v0[..., 0] = 0.5
    res = sim.simulate(g, None, torch.tensor([1.0], dtype=torch.float64), 100, v0=v0)
    x0 = float(sim.com(torch.as_tensor(WS.masses)[None], torch.as_tensor(WS.phenotype(g)[0]))[0, 0])
    want = abs(x0 + 0.5 * 100 * sim.dt - 1.0) / abs(x0 - 1.0)
    assert float(res.loss[0]) == pytest.approx(want, rel=1e-7)  # eps = 1e-8 in the denominator


def test_passive_body_settles_without_moving_toward_the_light():
    sim = MassSpring2D()
    rng = np.random.default_rng(0)
    bodies = random_bodies(16, rng, NoveltyArchive())
    loss = evaluate(None, sim, bodies, torch.tensor([-1.0, 1.0]), 100)
    # no actuation: the body only settles or topples, which brings it as close to a light on the left as it takes
    # it from one on the right: the loss stays near 1 and its mean over the two sides nearer still
    assert np.all(np.abs(loss - 1.0) < 0.06)
    assert np.all(np.abs(loss.mean(axis=1) - 1.0) < 0.005)


def test_stability_check():
    with pytest.raises(ValueError, match="stability"):
        MassSpring2D(dt=0.02, k=15_000.0)
    MassSpring2D(dt=0.008, k=3_750.0)


# ----------------------------------------------------------------------- pretraining and evolution loops


@pytest.fixture(scope="module")
def tiny():
    with limited_threads(1):
        sim = MassSpring2D(dt=0.008, k=3_750.0)
        rng = np.random.default_rng(0)
        ar = NoveltyArchive()
        pool = random_bodies(64, rng, ar)
        init = random_bodies(8, rng, ar)
        torch.manual_seed(0)
        ctrl = UniversalController(sim.n_masses, sim.n_springs, (16, 16, 16))
        losses = pretrain(ctrl, sim, pool, 12, 16, rng, steps=25)
    return sim, ar, init, ctrl, losses


def test_pretraining_lowers_the_loss(tiny):
    sim, _, _, _, losses = tiny
    assert len(losses) == 12 and np.mean(losses[-3:]) < np.mean(losses[:3])


def test_zero_shot_parents_keep_stored_losses_and_population_stays_unique(tiny):
    sim, ar, init, ctrl, _ = tiny
    lights = torch.tensor([-2.0, 2.0, -0.4, 0.4])
    res = evolve("zeroshot", init, ctrl, sim, lights, 3, ar.copy(), np.random.default_rng(1), steps=25)
    assert res.grad_steps == [0, 0, 0, 0]
    assert all(b <= a + 1e-12 for a, b in zip(res.mean_loss, res.mean_loss[1:]))  # elitist, frozen: monotone
    for gen in res.genotypes:
        assert len({canonical_hash(g) for g in gen}) == len(gen)
    # a body that survives keeps its loss row exactly
    first = {canonical_hash(g): res.losses[0][i] for i, g in enumerate(res.genotypes[0])}
    for i, g in enumerate(res.genotypes[-1]):
        if canonical_hash(g) in first:
            assert np.array_equal(res.losses[-1][i], first[canonical_hash(g)])
    # the controller given is never modified
    assert all(
        torch.equal(a, b) for a, b in zip(ctrl.state_dict().values(), res.controller.state_dict().values())
    )


def test_gradient_step_counts(tiny):
    sim, ar, init, ctrl, _ = tiny
    lights = torch.tensor([-0.4, 0.4])
    fs = evolve(
        "fewshot", init, ctrl, sim, lights, 2, ar.copy(), np.random.default_rng(2), steps=10, train_envs=3
    )
    assert fs.grad_steps == [0, 6, 12]  # 2 x train_envs per generation at batch = P
    fresh = UniversalController(sim.n_masses, sim.n_springs, (16, 16, 16))
    ss = evolve("simultaneous", init, fresh, sim, lights, 3, ar.copy(), np.random.default_rng(3), steps=10)
    assert ss.grad_steps == [0, 2, 4, 6]
    assert not all(
        torch.equal(a, b) for a, b in zip(fresh.state_dict().values(), ss.controller.state_dict().values())
    )


def test_limit_fewshot_without_learning_is_zero_shot():
    """Few-shot with learning rate 0 keeps the pretrained weights, so it selects exactly as zero-shot does."""
    sim = sim64(dt=0.008, k=3_750.0)
    rng = np.random.default_rng(7)
    ar = NoveltyArchive()
    init = random_bodies(8, rng, ar)
    torch.manual_seed(1)
    ctrl = UniversalController(36, 110, (8, 8, 8)).double()
    lights = torch.tensor([-0.4, 0.4])
    zero = OptimConfig(lr=0.0, min_lr=0.0, weight_decay=0.0)
    zs = evolve("zeroshot", init, ctrl, sim, lights, 3, ar.copy(), np.random.default_rng(8), steps=15)
    fs = evolve(
        "fewshot",
        init,
        ctrl,
        sim,
        lights,
        3,
        ar.copy(),
        np.random.default_rng(8),
        steps=15,
        train_envs=1,
        finetune=zero,
    )
    for a, b in zip(zs.genotypes, fs.genotypes):
        assert np.array_equal(a, b)
    for a, b in zip(zs.losses, fs.losses):
        assert np.allclose(a, b, atol=1e-12)


def test_random_search_floor_uses_fresh_bodies(tiny):
    sim, ar, init, ctrl, _ = tiny
    archive = ar.copy()
    res = evolve(
        "random", init, ctrl, sim, torch.tensor([0.4]), 2, archive, np.random.default_rng(4), steps=10
    )
    assert len(archive) == len(ar) + 2 * len(init) and res.crossovers == []


# ----------------------------------------------------------------------- claim check


def _rows(ss_ratio=0.3, fs_keep=1.0, loss_gap=-0.05, n=3, se=0.005):
    rows = []
    for i in range(n):
        init = 0.4 + 0.01 * i
        rows.append(
            {
                "div_init": init,
                "div_ss_final": ss_ratio * init,
                "div_fs_final": fs_keep * init,
                "loss_ss_final": 0.8,
                "loss_fs_final": 0.8 + loss_gap + 0.001 * i,
                "se_ss_ratio": se,
                "se_div_gap": se,
                "se_loss_gap": se,
            }
        )
    return rows


def test_pooled_interval_is_the_mean_with_pooled_standard_errors():
    est, lo, hi = pooled_interval(np.array([1.0, 2.0, 3.0]), np.array([0.3, 0.4, 0.0]))
    assert est == 2.0 and hi - est == pytest.approx(1.959964 * 0.5 / 3, rel=1e-5)
    assert est - lo == pytest.approx(hi - est)


@pytest.mark.parametrize(
    ("kw", "outcome"),
    [
        ({}, Outcome.SUPPORTED),
        ({"ss_ratio": 0.8}, Outcome.NOT_SUPPORTED),  # no collapse in any seed
        ({"ss_ratio": 0.45, "fs_keep": 0.3}, Outcome.NOT_SUPPORTED),  # few-shot less diverse in every seed
        (
            {"ss_ratio": 0.45, "fs_keep": 0.48},
            Outcome.INCONCLUSIVE,
        ),  # collapse, few-shot not 0.05 more diverse
        ({"fs_keep": 0.85}, Outcome.INCONCLUSIVE),  # few-shot lost 15% of its diversity
        ({"loss_gap": 0.1}, Outcome.INCONCLUSIVE),  # few-shot worse in loss
        ({"se": 0.2}, Outcome.INCONCLUSIVE),  # intervals too wide
    ],
)
def test_diversity_decider(kw, outcome):
    assert diversity_decider(_rows(**kw)).outcome is outcome


def test_sabotage_few_shot_as_simultaneous_is_not_supported():
    rows = [{**r, "div_fs_final": r["div_ss_final"]} for r in _rows()]
    assert diversity_decider(rows).outcome is not Outcome.SUPPORTED
