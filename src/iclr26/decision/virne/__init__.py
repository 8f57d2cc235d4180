"""Virne: A Comprehensive Benchmark for RL-based Network Resource Allocation in NFV (arXiv 2507.19234, ICLR 2026).

A lean NFV resource-allocation simulator (Waxman PN, Poisson VN arrivals), the per-request node-mapping MDP as a
gymnasium env with action masks, node-ranking heuristics and PPO policies (GCN / MLP, with or without masking).
"""

from iclr26.decision.virne.env import CONTEXT_FEATURES, NODE_FEATURES, NodeMappingEnv
from iclr26.decision.virne.routing import bfs_path, k_shortest_path, make_router, route_links
from iclr26.decision.virne.sim import (
    Embedding,
    OnlineSimulator,
    PhysicalNetwork,
    RequestRecord,
    SimulationResult,
    VirtualNetwork,
    VNRequestGenerator,
    VNSettings,
    check_embedding,
    simulate,
    waxman_network,
)
from iclr26.decision.virne.solvers import (
    GCNPolicy,
    GRCRank,
    MLPPolicy,
    NRMRank,
    PPOConfig,
    PPOSolver,
    RandomRank,
    grc_scores,
    normalized_adjacency,
    nrm_scores,
    rank_map,
    train_ppo,
)

__all__ = [
    "CONTEXT_FEATURES",
    "NODE_FEATURES",
    "Embedding",
    "GCNPolicy",
    "GRCRank",
    "MLPPolicy",
    "NRMRank",
    "NodeMappingEnv",
    "OnlineSimulator",
    "PPOConfig",
    "PPOSolver",
    "PhysicalNetwork",
    "RandomRank",
    "RequestRecord",
    "SimulationResult",
    "VNRequestGenerator",
    "VNSettings",
    "VirtualNetwork",
    "bfs_path",
    "check_embedding",
    "grc_scores",
    "k_shortest_path",
    "make_router",
    "normalized_adjacency",
    "nrm_scores",
    "rank_map",
    "route_links",
    "simulate",
    "train_ppo",
    "waxman_network",
]
