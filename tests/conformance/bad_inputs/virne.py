"""Bad input to the Virne simulator, request generator and environment (arXiv 2507.19234)."""

import networkx as nx

from iclr26.decision.virne import (
    NodeMappingEnv,
    PhysicalNetwork,
    VirtualNetwork,
    VNRequestGenerator,
    VNSettings,
    grc_scores,
    make_router,
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
