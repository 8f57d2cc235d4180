"""Bad input to the Virne simulator, request generator and environment (arXiv 2507.19234)."""

import networkx as nx
import numpy as np
import torch

from iclr26.decision.virne import (
    Embedding,
    GCNPolicy,
    GRCRank,
    MLPPolicy,
    NodeMappingEnv,
    OnlineSimulator,
    PhysicalNetwork,
    PPOConfig,
    PPOSolver,
    RandomRank,
    VirtualNetwork,
    VNRequestGenerator,
    VNSettings,
    bfs_path,
    check_embedding,
    grc_scores,
    k_shortest_path,
    make_router,
    normalized_adjacency,
    nrm_scores,
    rank_map,
    route_links,
    simulate,
    train_ppo,
    waxman_network,
)


def _pn(n=3, cpu=10, bw=10, drop=None):
    g = nx.path_graph(n)
    for v in g.nodes:
        g.nodes[v]["cpu"] = cpu
    for u, v in g.edges:
        g.edges[u, v]["bw"] = bw
    if drop == "cpu":
        del g.nodes[0]["cpu"]
    if drop == "bw":
        del g.edges[0, 1]["bw"]
    return g


def _disconnected_pn():
    g = _pn(3)
    g.add_node(9, cpu=5)
    return PhysicalNetwork(g)


CASES = [
    (lambda: VirtualNetwork([1, 2, 3], [(0, 1)], [5]), ValueError, ["disconnected"]),
    (lambda: VirtualNetwork([1, -2], [(0, 1)], [5]), ValueError, ["negative"]),
    (lambda: VirtualNetwork([1, 2], [(0, 1)], [-5]), ValueError, ["negative"]),
    (lambda: VNSettings(eta=0.0), ValueError, ["eta"]),
    (lambda: VNSettings(eta=-1.0), ValueError, ["eta"]),
    (
        lambda: VNRequestGenerator(0, VNSettings(size_range=(2, 10))).generate(5),
        ValueError,
        ["larger", "physical"],
    ),
    (
        lambda: NodeMappingEnv(
            PhysicalNetwork(_pn(3)), VirtualNetwork([1] * 4, [(0, 1), (1, 2), (2, 3)], [1] * 3)
        ).reset(),
        ValueError,
        ["larger", "physical"],
    ),
    (lambda: PhysicalNetwork(_pn(3, drop="cpu")), ValueError, ["cpu", "attribute"]),
    (lambda: PhysicalNetwork(_pn(3, drop="bw")), ValueError, ["bw", "attribute"]),
    (lambda: PhysicalNetwork(_pn(3, cpu=-1)), ValueError, ["negative"]),
    (_disconnected_pn, ValueError, ["disconnected"]),
    (lambda: make_router("dijkstra"), ValueError, ["router"]),
    (lambda: grc_scores([1, 1], [(0, 1)], [1], d=1.5), ValueError, ["damping"]),
]

_NAN = float("nan")
_VN = VirtualNetwork([1, 2], [(0, 1)], [5])


def _stepped(action):
    env = NodeMappingEnv(PhysicalNetwork(_pn(4)), _VN)
    env.reset()
    return env.step(action)


class _BadSolver:
    def solve(self, pn, vn):
        return 3


CASES += [
    (lambda: PhysicalNetwork(_pn(3, cpu=True)), ValueError, ["node cpu", "numbers"]),
    (lambda: PhysicalNetwork(_pn(4)).adjacent_bw(np.ones(5)), ValueError, ["bw", "shape (3,)"]),
    (lambda: waxman_network(n=2.5), ValueError, ["n must", "2.5"]),
    (lambda: waxman_network(n=5, alpha=0.0), ValueError, ["alpha", "> 0"]),
    (lambda: waxman_network(n=5, beta=2.0), ValueError, ["beta", "(0, 1]"]),
    (lambda: waxman_network(n=5, cpu_range=(1,)), ValueError, ["cpu_range", "pair"]),
    (lambda: waxman_network(n=5, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: VirtualNetwork([1, 2], [(0, 1)], [5], arrival=_NAN), ValueError, ["arrival", "nan"]),
    (lambda: VirtualNetwork([1, 2], [(0, 1)], [5], lifetime=True), ValueError, ["lifetime", "True"]),
    (lambda: VirtualNetwork([1, 2], [(0, 1.5)], [5]), ValueError, ["links", "integer"]),
    (lambda: VirtualNetwork([1, 2], [(0, 1), (1, 0)], [5, 5]), ValueError, ["links", "distinct"]),
    (lambda: VNSettings(eta=float("inf")), ValueError, ["eta", "finite"]),
    (lambda: VNSettings(num_requests=2.5), ValueError, ["num_requests", "2.5"]),
    (lambda: VNSettings(size_range=(2,)), ValueError, ["size_range", "pair"]),
    (lambda: VNSettings(cpu_range=(5, 1)), ValueError, ["cpu_range", "high"]),
    (lambda: VNRequestGenerator(-1), ValueError, ["seed", ">= 0"]),
    (lambda: VNRequestGenerator(0, 3), TypeError, ["settings", "VNSettings"]),
    (lambda: Embedding([0, 1], []).cost(_VN), ValueError, ["embedding routes", "links"]),
    (lambda: check_embedding(PhysicalNetwork(_pn(4)), _VN, None), TypeError, ["emb", "Embedding"]),
    (
        lambda: check_embedding(PhysicalNetwork(_pn(4)), _VN, Embedding([0.5, 1], [[0, 1]])),
        ValueError,
        ["embedding node", "0.5"],
    ),
    (lambda: nrm_scores(np.ones(3), np.ones(4)), ValueError, ["cpu", "adj_bw_sum", "shape"]),
    (lambda: grc_scores([1, 1], [(0, 1)], [1], tol=-1.0), ValueError, ["tol", "> 0"]),
    (lambda: grc_scores([1, 1], [(0, 5)], [1]), ValueError, ["edges", "[0, 2)"]),
    (lambda: grc_scores([-1, 2], [(0, 1)], [1]), ValueError, ["cpu", "non-negative"]),
    (
        lambda: rank_map(PhysicalNetwork(_pn(4)), _VN, np.ones(3), np.ones(4)),
        ValueError,
        ["v_score", "shape"],
    ),
    (lambda: RandomRank(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: RandomRank(router=3), TypeError, ["router", "callable"]),
    (lambda: GRCRank(d=1.0), ValueError, ["damping", "[0, 1)"]),
    (lambda: bfs_path(PhysicalNetwork(_pn(4)), 0, 9, 1.0, np.ones(3)), ValueError, ["dst", "9"]),
    (lambda: bfs_path(PhysicalNetwork(_pn(4)), 0, 2, -1.0, np.ones(3)), ValueError, ["demand", ">= 0"]),
    (lambda: k_shortest_path(PhysicalNetwork(_pn(4)), 0, 2, 1.0, np.ones(3), k=0), ValueError, ["k", ">= 1"]),
    (lambda: make_router("ksp", 1.5), ValueError, ["k", "1.5"]),
    (lambda: route_links(PhysicalNetwork(_pn(4)), _VN, [0]), ValueError, ["nodes", "2 virtual nodes"]),
    (lambda: normalized_adjacency(None), TypeError, ["pn", "PhysicalNetwork"]),
    (lambda: GCNPolicy(torch.ones(3)), ValueError, ["adjacency", "2-D"]),
    (lambda: GCNPolicy(torch.eye(3), hidden=1.5), ValueError, ["hidden", "1.5"]),
    (lambda: GCNPolicy(torch.eye(3), skip=1), TypeError, ["skip", "bool"]),
    (
        lambda: GCNPolicy(torch.eye(3), hidden=4)(torch.zeros(1, 4, 11), torch.zeros(1, 6)),
        ValueError,
        ["nodes", "shape"],
    ),
    (lambda: MLPPolicy(0), ValueError, ["n_nodes", ">= 1"]),
    (lambda: PPOConfig(lr=_NAN), ValueError, ["lr", "nan"]),
    (lambda: PPOConfig(minibatch=0), ValueError, ["minibatch", ">= 1"]),
    (lambda: PPOConfig(gamma=2.0), ValueError, ["gamma", "[0, 1]"]),
    (lambda: PPOSolver(None, PhysicalNetwork(_pn(4))), TypeError, ["policy", "Module"]),
    (lambda: PPOSolver(MLPPolicy(7, 4), PhysicalNetwork(_pn(4))), ValueError, ["policy", "7 physical nodes"]),
    (lambda: PPOSolver(MLPPolicy(4, 4), PhysicalNetwork(_pn(4)), seed="a"), ValueError, ["seed"]),
    (
        lambda: train_ppo(
            MLPPolicy(4, 4), PhysicalNetwork(_pn(4)), VNSettings(size_range=(2, 3)), 1, 0, cfg=3
        ),
        TypeError,
        ["cfg", "PPOConfig"],
    ),
    (
        lambda: train_ppo(MLPPolicy(4, 4), PhysicalNetwork(_pn(4)), None, 1, 0),
        TypeError,
        ["settings", "VNSettings"],
    ),
    (lambda: NodeMappingEnv(PhysicalNetwork(_pn(4)), kappa=_NAN), ValueError, ["kappa", "nan"]),
    (lambda: NodeMappingEnv(PhysicalNetwork(_pn(4)), vn=3), TypeError, ["vn", "VirtualNetwork"]),
    (lambda: _stepped(1.5), ValueError, ["action", "1.5"]),
    (lambda: _stepped(True), ValueError, ["action", "True"]),
    (lambda: NodeMappingEnv(PhysicalNetwork(_pn(4)), _VN).reset(seed=-1), ValueError, ["seed", ">= 0"]),
    (
        lambda: OnlineSimulator(PhysicalNetwork(_pn(4)), [3], RandomRank()),
        TypeError,
        ["request", "VirtualNetwork"],
    ),
    (
        lambda: OnlineSimulator(PhysicalNetwork(_pn(4)), [], RandomRank()),
        ValueError,
        ["requests", "at least one"],
    ),
    (
        lambda: OnlineSimulator(
            PhysicalNetwork(_pn(4)),
            [VirtualNetwork([1], [], [], id=0), VirtualNetwork([1], [], [], id=0)],
            RandomRank(),
        ),
        ValueError,
        ["distinct ids"],
    ),
    (
        lambda: OnlineSimulator(PhysicalNetwork(_pn(4)), [_VN], _BadSolver()).run(),
        TypeError,
        ["solve", "Embedding"],
    ),
    (
        lambda: simulate(PhysicalNetwork(_pn(4)), [_VN], RandomRank(), on_event=3),
        TypeError,
        ["on_event", "callable"],
    ),
]
