"""The per-request node-mapping MDP as a gymnasium environment, with action masks.

Episode = one VN on the current PN (never modified: the env works on copies of the available resources). Step t
places virtual node ``order[t]`` on the chosen physical node; if that succeeds, the links to already-placed
neighbours are routed on shortest feasible paths. Rewards: ``+intermediate_reward`` (0.1) per successful step,
``failure_reward`` (-0.1) when a placement or a route fails (the episode ends, the VN is rejected), and
``R2C = kappa * REV / COST`` when the last node is placed. If after a successful step no physical node can host
the next virtual node, the episode ends right away as a failure. ``action_masks()`` marks physical nodes with
enough available CPU that this VN does not use yet (sb3-contrib ``MaskablePPO`` convention).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from iclr26.checks import check_choice, check_float, check_int
from iclr26.decision.virne.routing import Router, bfs_path, check_router
from iclr26.decision.virne.sim import Embedding, PhysicalNetwork, VirtualNetwork

__all__ = ["CONTEXT_FEATURES", "NODE_FEATURES", "NodeMappingEnv"]

NODE_FEATURES = (
    "avail_cpu",
    "max_cpu",
    "sum_adj_bw",
    "max_adj_bw",
    "mean_adj_bw",
    "used_by_vn",
    "degree",
    "closeness",
    "betweenness",
    "eigenvector",
    "hosts_placed_neighbor",
)
CONTEXT_FEATURES = (
    "cpu_demand",
    "sum_adj_bw_demand",
    "max_adj_bw_demand",
    "degree",
    "placed_neighbors",
    "progress",
)


class NodeMappingEnv(gym.Env):
    """Place the nodes of one VN on the PN, one per step (see the module docstring).

    ``reset(options={"vn": vn})`` starts an episode for `vn` (or for the `vn` given to the constructor).
    Observations are dicts: ``nodes`` (n_pn, 11) physical-node features, ``context`` (6,) current-virtual-node
    features, ``mask`` (n_pn,) the action mask.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        pn: PhysicalNetwork,
        vn: VirtualNetwork | None = None,
        router: Router = bfs_path,
        order: str = "given",
        intermediate_reward: float = 0.1,
        failure_reward: float = -0.1,
        kappa: float = 1.0,
    ) -> None:
        if not isinstance(pn, PhysicalNetwork):
            raise TypeError("pn must be a PhysicalNetwork")
        if vn is not None and not isinstance(vn, VirtualNetwork):
            raise TypeError(f"vn must be None or a VirtualNetwork, got {type(vn).__name__}")
        check_router(router)
        check_choice("order", order, ("given", "demand"))
        check_float("kappa", kappa, low=0.0, low_open=True)
        check_float("intermediate_reward", intermediate_reward)
        check_float("failure_reward", failure_reward)
        self.pn, self.vn, self.router, self.order_mode = pn, vn, router, order
        self.intermediate_reward, self.failure_reward, self.kappa = intermediate_reward, failure_reward, kappa
        n = pn.n
        self.action_space = gym.spaces.Discrete(n)
        self.observation_space = gym.spaces.Dict(
            {
                "nodes": gym.spaces.Box(-np.inf, np.inf, (n, len(NODE_FEATURES)), np.float32),
                "context": gym.spaces.Box(-np.inf, np.inf, (len(CONTEXT_FEATURES),), np.float32),
                "mask": gym.spaces.MultiBinary(n),
            }
        )
        self._cpu_scale = max(float(pn.cpu_max.max()), 1.0)
        self._bw_scale = max(float(pn.bw_max.max()), 1.0)
        self._deg = np.array([len(nb) for nb in pn.neighbors], dtype=float)
        self._topo = pn.topological_features()
        self._static = np.stack([pn.cpu_max / self._cpu_scale], axis=1)
        self.embedding: Embedding | None = None
        self._started = False  # reset() has begun an episode

    def _check_started(self) -> None:
        if not self._started:
            raise RuntimeError("no episode yet: call reset() first")

    # ---------------------------------------------------------------- episode state
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode for ``options["vn"]`` (or the constructor's VN) on the PN's current resources."""
        if seed is not None:
            check_int("seed (None or an int)", seed, low=0)
        super().reset(seed=seed)
        vn = (options or {}).get("vn", self.vn)
        if not isinstance(vn, VirtualNetwork):
            raise ValueError("reset needs a VirtualNetwork: pass it to the constructor or as options['vn']")
        if vn.n > self.pn.n:
            raise ValueError(f"VN has {vn.n} nodes, larger than the physical network ({self.pn.n})")
        self.vn = vn
        self.cpu = self.pn.cpu.copy()
        self.bw = self.pn.bw.copy()
        self.used = np.zeros(self.pn.n, dtype=bool)
        self.nodes = [-1] * vn.n
        self.paths: list[list[int] | None] = [None] * len(vn.links)
        self.order = (
            list(range(vn.n))
            if self.order_mode == "given"
            else [int(i) for i in np.argsort(-vn.cpu, kind="stable")]
        )
        self.t = 0
        self.embedding = None
        self._vsum, self._vmax = vn.adjacent_bw()
        self._started = True
        return self._obs(), {}

    @property
    def current(self) -> int:
        """The virtual node to place at this step."""
        return self.order[min(self.t, self.vn.n - 1)]

    def action_masks(self) -> np.ndarray:
        """Boolean (n_pn,): physical nodes with CPU >= the current demand and not used by this VN."""
        self._check_started()
        return (~self.used) & (self.cpu >= self.vn.cpu[self.current])

    def _obs(self) -> dict[str, np.ndarray]:
        pn, vn = self.pn, self.vn
        s, mx = pn.adjacent_bw(self.bw)
        cur = self.current
        hosts = np.zeros(pn.n)
        placed = 0
        for j, _ in vn.neighbors[cur]:
            if self.nodes[j] >= 0:
                hosts[self.nodes[j]] = 1.0
                placed += 1
        nodes = np.column_stack(
            [
                self.cpu / self._cpu_scale,
                self._static[:, 0],
                s / (self._bw_scale * max(self._deg.max(), 1.0)),
                mx / self._bw_scale,
                s / np.maximum(self._deg, 1.0) / self._bw_scale,
                self.used.astype(float),
                self._topo,
                hosts,
            ]
        ).astype(np.float32)
        deg = len(vn.neighbors[cur])
        ctx = np.array(
            [
                vn.cpu[cur] / self._cpu_scale,
                self._vsum[cur] / (self._bw_scale * max(self._deg.max(), 1.0)),
                self._vmax[cur] / self._bw_scale,
                deg / max(vn.n - 1, 1),
                placed / max(deg, 1),
                self.t / vn.n,
            ],
            dtype=np.float32,
        )
        return {"nodes": nodes, "context": ctx, "mask": self.action_masks().astype(np.int8)}

    # ---------------------------------------------------------------- dynamics
    def _fail(self) -> tuple[dict, float, bool, bool, dict]:
        return self._obs(), float(self.failure_reward), True, False, {"success": False}

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        """Place the current virtual node on physical node `action` and route its links to placed neighbours."""
        if not self._started or self.vn is None or self.t >= self.vn.n:
            raise RuntimeError("step called on a finished episode; call reset first")
        a = check_int(f"action (a physical node index in [0, {self.pn.n}))", action, 0, self.pn.n - 1)
        vn, cur = self.vn, self.current
        if self.used[a] or self.cpu[a] < vn.cpu[cur]:
            self.t = vn.n
            return self._fail()
        self.nodes[cur] = a
        self.used[a] = True
        self.cpu[a] -= vn.cpu[cur]
        for j, k in vn.neighbors[cur]:
            if self.nodes[j] < 0:
                continue
            path = self.router(
                self.pn, self.nodes[vn.links[k][0]], self.nodes[vn.links[k][1]], vn.bw[k], self.bw
            )
            if path is None:
                self.t = vn.n
                return self._fail()
            for e in self.pn.path_edges(path):
                self.bw[e] -= vn.bw[k]
            self.paths[k] = path
        self.t += 1
        if self.t == vn.n:
            self.embedding = Embedding(list(self.nodes), [list(p) for p in self.paths])  # type: ignore[arg-type]
            cost = self.embedding.cost(vn)
            r2c = self.kappa * vn.revenue / cost if cost > 0 else self.kappa
            return self._obs(), float(r2c), True, False, {"success": True, "r2c": r2c}
        if not self.action_masks().any():
            self.t = vn.n
            return self._fail()
        return self._obs(), float(self.intermediate_reward), False, False, {"success": None}
