"""Oracle tests of the Virne reproduction (arXiv 2507.19234): simulator invariants, masks, GRC, hand instance."""

from __future__ import annotations

import copy

import networkx as nx
import numpy as np
import pytest
import torch

from iclr26.decision.virne import (
    Embedding,
    GCNPolicy,
    GRCRank,
    MLPPolicy,
    NodeMappingEnv,
    NRMRank,
    OnlineSimulator,
    PhysicalNetwork,
    PPOConfig,
    PPOSolver,
    RandomRank,
    VirtualNetwork,
    VNRequestGenerator,
    VNSettings,
    bfs_path,
    grc_scores,
    k_shortest_path,
    make_router,
    normalized_adjacency,
    rank_map,
    train_ppo,
    waxman_network,
)
from iclr26.decision.virne.claim_check import virne_decider
from iclr26.decision.virne.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from iclr26.lab.rl import masked_categorical
from iclr26.lab.threads import limited_threads


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny torch models: one thread avoids oversubscription on a loaded machine."""
    with limited_threads(1):
        yield


@pytest.fixture(scope="module")
def small():
    """A 20-node PN with scarce resources and 60 requests (so both acceptances and rejections happen)."""
    pn = waxman_network(20, alpha=0.6, beta=0.4, cpu_range=(20, 40), bw_range=(30, 60), seed=3)
    reqs = VNRequestGenerator(
        5, VNSettings(num_requests=60, size_range=(2, 6), eta=0.2, lifetime_mean=60)
    ).generate(pn.n)
    return pn, reqs


def _solvers(pn):
    pol = GCNPolicy(normalized_adjacency(pn), hidden=8)
    return {
        "random": RandomRank(1),
        "nrm": NRMRank(),
        "grc": GRCRank(),
        "nrm_ksp": NRMRank(router=make_router("ksp")),
        "ppo_mask_sample": PPOSolver(pol, pn, mask=True, greedy=False, seed=2),
        "ppo_nomask": PPOSolver(pol, pn, mask=False, greedy=True),
    }


@pytest.mark.parametrize("name", ["random", "nrm", "grc", "nrm_ksp", "ppo_mask_sample", "ppo_nomask"])
def test_invariants_after_every_event(small, name):
    """(1)-(5): conservation, no negative resource, injectivity, connected paths, COST >= REV (equality rule)."""
    pn, reqs = small
    solver = _solvers(pn)[name]
    held: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    n_acc = 0

    def check(kind, vn, emb):
        nonlocal n_acc
        if kind == "arrival" and emb is not None:
            n_acc += 1
            assert len(set(emb.nodes)) == vn.n  # injective
            cpu = np.zeros(pn.n)
            cpu[emb.nodes] += vn.cpu
            bw = np.zeros(pn.m)
            one_hop = True
            for k, (i, j) in enumerate(vn.links):
                p = emb.paths[k]
                assert p[0] == emb.nodes[i] and p[-1] == emb.nodes[j]
                assert all(pn.graph.has_edge(a, b) for a, b in zip(p[:-1], p[1:]))
                for a, b in zip(p[:-1], p[1:]):
                    bw[pn.edge_index[a, b]] += vn.bw[k]
                if vn.bw[k] > 0 and len(p) != 2:
                    one_hop = False
            rev, cost = vn.revenue, emb.cost(vn)
            assert cost >= rev - 1e-9
            assert (abs(cost - rev) < 1e-9) == one_hop
            held[vn.id] = (cpu, bw)
        elif kind == "departure":
            held.pop(vn.id)
        assert np.all(pn.cpu >= 0) and np.all(pn.bw >= 0)
        used_cpu = sum((c for c, _ in held.values()), np.zeros(pn.n))
        used_bw = sum((b for _, b in held.values()), np.zeros(pn.m))
        np.testing.assert_allclose(pn.cpu + used_cpu, pn.cpu_max)
        np.testing.assert_allclose(pn.bw + used_bw, pn.bw_max)

    res = OnlineSimulator(pn, reqs, solver, on_event=check).run()
    np.testing.assert_array_equal(pn.cpu, pn.cpu_max)
    np.testing.assert_array_equal(pn.bw, pn.bw_max)
    assert not held
    m = res.metrics
    assert m["accepted"] == n_acc and 0 <= m["rac"] <= 1 and m["lrc"] <= 1.0 + 1e-12
    if name in ("nrm", "grc"):
        assert 0 < m["rac"] < 1  # the fixture exercises both outcomes


def test_mask_exact_and_never_sampled(small):
    """(6): an unmasked action never fails the CPU/used check, a masked one always fails; sampling respects it."""
    pn, reqs = small
    env = NodeMappingEnv(pn)
    rng = np.random.default_rng(0)
    for vn in reqs[:15]:
        env.reset(options={"vn": vn})
        done = False
        while not done:
            mask = env.action_masks()
            cur = env.current
            for a in range(pn.n):
                assert mask[a] == ((not env.used[a]) and env.cpu[a] >= vn.cpu[cur])
                if not mask[a]:
                    trial = copy.deepcopy(env)
                    _, r, d, _, info = trial.step(a)
                    assert d and info["success"] is False and r == pytest.approx(-0.1)
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
    logits = torch.randn(4, pn.n)
    m = torch.rand(4, pn.n) > 0.5
    m[:, 0] = True
    draws = masked_categorical(logits, m).sample((2000,))
    assert m.gather(1, draws.T).all()


def test_obs_in_space_and_rewards(small):
    """Observations lie in the declared space; successful non-final steps give +0.1, completion R2C <= 1."""
    pn, reqs = small
    env = NodeMappingEnv(pn)
    vn = next(v for v in reqs if v.n >= 3)
    obs, _ = env.reset(options={"vn": vn})
    assert env.observation_space.contains(obs)
    pn.reset()
    emb = NRMRank().solve(pn, vn)
    assert emb is not None
    order_rewards = []
    for i in range(vn.n):
        _, r, done, _, info = env.step(emb.nodes[i])
        order_rewards.append(r)
    assert done and info["success"]
    assert order_rewards[:-1] == [0.1] * (vn.n - 1)
    assert 0 < order_rewards[-1] <= 1.0
    assert env.embedding.cost(vn) >= vn.revenue


def test_grc_matches_dense_power_iteration():
    """(7): GRC sums to 1 and equals a dense power iteration; with no zero columns it solves the linear system."""
    rng = np.random.default_rng(1)
    g = nx.connected_watts_strogatz_graph(12, 4, 0.3, seed=1)
    edges = np.array(sorted(g.edges))
    cpu = rng.integers(1, 50, 12).astype(float)
    for zero_some in (False, True):
        bw = rng.integers(1, 50, len(edges)).astype(float)
        if zero_some:  # node 0 loses all adjacent bandwidth: a zero column
            bw[(edges == 0).any(1)] = 0.0
        r = grc_scores(cpu, edges, bw, d=0.85, tol=1e-12)
        a = np.zeros((12, 12))
        a[edges[:, 0], edges[:, 1]] = bw
        a[edges[:, 1], edges[:, 0]] = bw
        col = a.sum(0)
        dense_m = np.divide(a, col[None, :], out=np.zeros_like(a), where=col[None, :] > 0)
        c = cpu / cpu.sum()
        ref = np.full(12, 1 / 12)
        for _ in range(5000):
            ref = 0.15 * c + 0.85 * dense_m @ ref
            ref /= ref.sum()
        assert r.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(r, ref, atol=1e-9)
        if not zero_some:
            np.testing.assert_allclose(r, 0.15 * np.linalg.solve(np.eye(12) - 0.85 * dense_m, c), atol=1e-9)


def _line_pn(bw: float = 20.0) -> PhysicalNetwork:
    g = nx.path_graph(4)
    for v, c in enumerate((10, 1, 1, 10)):
        g.nodes[v]["cpu"] = c
    for u, v in g.edges:
        g.edges[u, v]["bw"] = bw
    return PhysicalNetwork(g)


def test_hand_built_instance():
    """(8): 4-node line PN, 2-node VN: only the end nodes fit, path 0-1-2-3; REV = 22, COST = 12 + 3 x 10 = 42."""
    pn = _line_pn()
    vn = VirtualNetwork([5, 7], [(0, 1)], [10], arrival=2.0, lifetime=4.0)
    assert vn.revenue == 22
    for solver in (NRMRank(), GRCRank(), RandomRank(0), NRMRank(router=make_router("ksp"))):
        res = OnlineSimulator(pn, [vn], solver).run()
        m = res.metrics
        assert m["rac"] == 1 and m["revenue"] == 22 and m["cost"] == 42
        assert m["lrc"] == pytest.approx(22 / 42) and m["lar"] == pytest.approx(22 * 4.0 / 2.0)
    env = NodeMappingEnv(pn, vn)
    env.reset()
    assert env.action_masks().tolist() == [True, False, False, True]
    env.step(3)
    assert env.action_masks().tolist() == [True, False, False, False]
    _, r, done, _, info = env.step(0)
    assert done and info["success"] and r == pytest.approx(22 / 42)
    assert env.embedding.paths == [[3, 2, 1, 0]]
    # a link with too little bandwidth: no feasible route, the request is rejected and nothing is reserved
    thin = _line_pn(bw=9.0)
    assert OnlineSimulator(thin, [vn], NRMRank()).run().metrics["rac"] == 0
    np.testing.assert_array_equal(thin.cpu, thin.cpu_max)


def test_bfs_equals_first_feasible_k_shortest(small):
    """BFS in the feasible subgraph = the first feasible of the shortest simple paths (when one is found)."""
    pn, _ = small
    rng = np.random.default_rng(4)
    bw = pn.bw_max * rng.random(pn.m)
    for _ in range(30):
        s, t = rng.choice(pn.n, 2, replace=False)
        dem = float(rng.uniform(0, 40))
        p_bfs = bfs_path(pn, int(s), int(t), dem, bw)
        p_ksp = k_shortest_path(pn, int(s), int(t), dem, bw, k=50)
        if p_ksp is not None:
            assert p_bfs is not None and len(p_bfs) == len(p_ksp)
        if p_bfs is not None:
            assert all(bw[e] >= dem for e in pn.path_edges(p_bfs))


def test_sabotaged_solver_is_caught(small):
    """Sabotage: a solver that ignores CPU availability is stopped by the simulator instead of over-allocating."""
    pn, reqs = small

    class Greedy:
        def solve(self, pn, vn):
            return rank_map(pn, vn, vn.cpu, np.arange(pn.n, 0, -1).astype(float))

    class IgnoreCPU:
        def solve(self, pn, vn):
            nodes = list(range(vn.n))
            paths = [bfs_path(pn, nodes[i], nodes[j], 0.0, pn.bw) for i, j in vn.links]
            return Embedding(nodes, paths)

    OnlineSimulator(pn, reqs, Greedy()).run()  # the honest variant runs
    with pytest.raises(ValueError, match="exceeds the available"):
        OnlineSimulator(pn, reqs, IgnoreCPU()).run()


def _claim_rows(gaps, lrc=0.01, mask=None, over_random=0.05, nomask_over_random=0.05):
    """Per-seed solver metrics with RAC(PPO-GCN) - RAC(NRM) = each of `gaps`."""
    out = []
    for g in gaps:
        ppo = 0.64 + g
        nomask = ppo - (0.05 + g / 10 if mask is None else mask)
        out.append(
            {
                "nrm_rac": 0.64,
                "ppo_gcn_rac": ppo,
                "ppo_gcn_nomask_rac": nomask,
                "nrm_lrc": 0.38,
                "ppo_gcn_lrc": 0.38 + lrc,
                "ppo_gcn_rac_over_random": over_random,
                "ppo_gcn_nomask_rac_over_random": nomask_over_random,
            }
        )
    return out


CLAIMS = {c.id: c for c in EXPERIMENT.claims}


def test_decider_outcomes():
    """The claim rule: supported / not supported / inconclusive on hand-made per-seed numbers."""
    good = _claim_rows((0.08, 0.1, 0.12))
    bad = _claim_rows((-0.1, -0.08, -0.12), lrc=0.0, mask=0.0)
    mixed = _claim_rows((-0.05, 0.02, 0.06), lrc=0.0, mask=0.0)
    assert virne_decider(good).outcome == Outcome.SUPPORTED
    assert virne_decider(bad).outcome == Outcome.NOT_SUPPORTED
    assert virne_decider(mixed).outcome == Outcome.INCONCLUSIVE
    assert virne_decider(_claim_rows((0.08, 0.1, 0.12), lrc=-0.01)).outcome == Outcome.INCONCLUSIVE
    # masking that hurts fails the claim but does not refute it
    assert virne_decider(_claim_rows((0.08, 0.1, 0.12), mask=-0.05)).outcome == Outcome.INCONCLUSIVE


def test_precondition_the_trained_policies_beat_random_rank():
    claim = CLAIMS["ppo-gcn-beats-nrm-and-masking-helps"]
    good = _claim_rows((0.08, 0.1, 0.12))
    assert not claim.unmet(good) and claim.judge(good).outcome == Outcome.SUPPORTED
    # the earlier quick run: masked PPO-GCN 0.578 vs Random-Rank 0.583, NRM 0.640; unmasked 0.068
    quick = _claim_rows((-0.048, -0.071, -0.068), over_random=-0.005, nomask_over_random=-0.5)
    assert claim.decide(quick).outcome == Outcome.NOT_SUPPORTED
    assert claim.judge(quick).outcome == Outcome.NOT_REPRODUCED
    # an unmasked policy that never learned makes "masking helps" a free pass: not judged either
    free = _claim_rows((0.08, 0.1, 0.12), mask=0.5, nomask_over_random=-0.4)
    assert claim.decide(free).outcome == Outcome.SUPPORTED
    assert claim.judge(free).outcome == Outcome.NOT_REPRODUCED


def test_nrm_sanity_claim():
    claim = CLAIMS["nrm-rac-matches-paper"]
    assert claim.judge([{"nrm_rac": v} for v in (0.60, 0.61, 0.605)]).outcome == Outcome.SUPPORTED
    assert claim.judge([{"nrm_rac": v} for v in (0.70, 0.71, 0.705)]).outcome == Outcome.NOT_SUPPORTED
    assert claim.judge([{"nrm_rac": v} for v in (0.649, 0.643, 0.629)]).outcome == Outcome.INCONCLUSIVE


def test_ppo_update_and_policies_shapes(small):
    """One PPO training pass runs on the online simulator and changes the weights; both policies give per-node
    logits."""
    pn, _ = small
    torch.manual_seed(0)
    pol = GCNPolicy(normalized_adjacency(pn), hidden=8)
    before = [p.detach().clone() for p in pol.parameters()]
    hist = train_ppo(
        pol,
        pn,
        VNSettings(num_requests=15, size_range=(2, 4)),
        1,
        0,
        True,
        PPOConfig(rollout=16, update_epochs=1, minibatch=16),
        window=5,
    )
    assert hist and all(0 <= h["accept"] <= 1 for h in hist)
    assert any(not torch.equal(a, b) for a, b in zip(before, pol.parameters()))
    x, c = torch.rand(3, pn.n, 11), torch.rand(3, 6)
    for p in (pol, MLPPolicy(pn.n, hidden=8)):
        logits, v = p(x, c)
        assert logits.shape == (3, pn.n) and v.shape == (3,)


def test_gcn_skip_sees_each_nodes_own_features():
    """On a complete graph the normalised adjacency averages all nodes, so a plain GCN gives every node the same
    logit whatever its own features (the smoothing that kept the quick policies at Random-Rank level); the skip
    path (on by default) lets a node's own features, e.g. its used flag, change its logit."""
    n = 6
    a = torch.full((n, n), 1.0 / n)  # D^-1/2 (A + I) D^-1/2 of the complete graph K_n
    x, c = torch.rand(1, n, 11), torch.rand(1, 6)
    torch.manual_seed(0)
    plain = GCNPolicy(a, hidden=8, skip=False)
    logits, _ = plain(x, c)
    assert torch.allclose(logits, logits[:, :1].expand_as(logits), atol=1e-6)
    torch.manual_seed(0)
    skip = GCNPolicy(a, hidden=8)
    logits, _ = skip(x, c)
    assert logits.std() > 1e-4


def test_generator_deterministic_and_valid():
    """Same seed -> same requests; sizes, integer demands and connectivity as specified."""
    s = VNSettings(num_requests=40)
    a, b = VNRequestGenerator(7, s).generate(100), VNRequestGenerator(7, s).generate(100)
    assert all(np.array_equal(x.cpu, y.cpu) and x.arrival == y.arrival for x, y in zip(a, b))
    for vn in a:
        assert (
            2 <= vn.n <= 10
            and np.all(vn.cpu == np.round(vn.cpu))
            and vn.cpu.max() <= 20
            and vn.bw.max() <= 50
        )
    assert all(x.arrival < y.arrival for x, y in zip(a, a[1:]))
