"""Solvers: node-ranking heuristics (Random-, NRM-, GRC-Rank) and PPO policies (GCN, MLP) with/without masks.

Ranking heuristics score virtual and physical nodes, visit virtual nodes by descending score and put each on the
best-ranked unused physical node with enough CPU, then route all links on shortest feasible paths.
NRM score = CPU x sum of adjacent bandwidth. GRC score: r = (1 - d) c / sum(c) + d M r with d = 0.85 and M the
bandwidth-weighted, column-normalised adjacency (zero columns for nodes without adjacent bandwidth, so r is
renormalised to sum 1 after every iteration), iterated to an L1 change below 1e-6.

PPO: a 3-layer GCN (symmetric-normalised adjacency with self loops, plain torch) over physical-node features,
the current virtual node's features concatenated to every node embedding, node-wise logits, and a value head on
the mean-pooled embedding. By default (``skip=True``) the actor head also gets an unsmoothed embedding of each
node's own features: three rounds of neighbourhood averaging (mean degree ~10 on WX100) wash a node's own
available CPU and used-by-this-VN flag out of its GCN embedding. Training runs the online simulator with a sampling policy (one episode per arriving
VN) and does clipped PPO updates from the shared RL core (``iclr26.lab.rl``); testing is greedy.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from iclr26.checks import check_array, check_bool, check_float, check_int, check_probability, check_tensor
from iclr26.decision.virne.env import CONTEXT_FEATURES, NODE_FEATURES, NodeMappingEnv
from iclr26.decision.virne.routing import Router, bfs_path, check_router, route_links
from iclr26.decision.virne.sim import (
    Embedding,
    OnlineSimulator,
    PhysicalNetwork,
    VirtualNetwork,
    VNRequestGenerator,
    VNSettings,
    check_network,
    check_request,
)
from iclr26.lab.rl import gae, masked_categorical, ppo_loss

__all__ = [
    "GCNPolicy",
    "GRCRank",
    "MLPPolicy",
    "NRMRank",
    "PPOConfig",
    "PPOSolver",
    "RandomRank",
    "grc_scores",
    "normalized_adjacency",
    "nrm_scores",
    "rank_map",
    "train_ppo",
]


# ----------------------------------------------------------------------------- scores
def nrm_scores(cpu: np.ndarray, adj_bw_sum: np.ndarray) -> np.ndarray:
    """Node resource measure: CPU x sum of adjacent bandwidth."""
    cpu, adj = _finite_vector("cpu", cpu), _finite_vector("adj_bw_sum", adj_bw_sum)
    if cpu.shape != adj.shape:
        raise ValueError(
            f"cpu and adj_bw_sum must have one shape (one value per node), got {cpu.shape} and {adj.shape}"
        )
    return cpu * adj


def _finite_vector(name: str, x: object, nonneg: bool = False) -> np.ndarray:
    arr = check_array(name, x)
    if arr.ndim != 1 or not np.all(np.isfinite(arr)) or (nonneg and np.any(arr < 0)):
        raise ValueError(
            f"{name} must be a finite{' non-negative' if nonneg else ''} 1-D array, got {arr.tolist()}"
        )
    return arr


def grc_scores(
    cpu: np.ndarray,
    edges: np.ndarray,
    bw: np.ndarray,
    d: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 1000,
) -> np.ndarray:
    """Global resource capacity: r = (1-d) c/sum(c) + d M r, M[i, j] = bw(i, j) / sum_k bw(k, j); sum(r) = 1."""
    check_float("d (damping)", d, 0.0, 1.0, high_open=True)
    check_float("tol", tol, low=0.0, low_open=True)
    check_int("max_iter", max_iter, low=1)
    cpu = _finite_vector("cpu", cpu, nonneg=True)
    n = len(cpu)
    if n < 1:
        raise ValueError("cpu must hold at least one node")
    if isinstance(edges, (list, tuple)) and len(edges) == 0:
        edges = np.zeros((0, 2), dtype=np.int64)
    edges = check_array("edges", edges, integer=True)
    if edges.size and (edges.ndim != 2 or edges.shape[1] != 2):
        raise ValueError(f"edges must be an (E, 2) array of node index pairs, got shape {edges.shape}")
    edges = edges.astype(np.int64, copy=False).reshape(-1, 2)
    if len(edges) and (edges.min() < 0 or edges.max() >= n):
        raise ValueError(
            f"edges must join node indices in [0, {n}), got values in [{edges.min()}, {edges.max()}]"
        )
    bw = _finite_vector("bw", bw, nonneg=True)
    if bw.shape != (len(edges),):
        raise ValueError(f"bw must hold one value per edge ({len(edges)}), got {bw.shape}")
    c = cpu / cpu.sum() if cpu.sum() > 0 else np.full(n, 1.0 / n)
    col = np.zeros(n)
    np.add.at(col, edges[:, 0], bw)
    np.add.at(col, edges[:, 1], bw)
    inv = np.divide(1.0, col, out=np.zeros(n), where=col > 0)
    # M r as a sparse product over the edge list (both directions)
    u, v = edges[:, 0], edges[:, 1]
    r = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        mr = np.zeros(n)
        np.add.at(mr, u, bw * inv[v] * r[v])
        np.add.at(mr, v, bw * inv[u] * r[u])
        new = (1 - d) * c + d * mr
        new /= new.sum()
        done = np.abs(new - r).sum() < tol
        r = new
        if done:
            break
    return r


def rank_map(
    pn: PhysicalNetwork,
    vn: VirtualNetwork,
    v_score: np.ndarray,
    p_score: np.ndarray,
    router: Router = bfs_path,
) -> Embedding | None:
    """Greedy injective node matching by descending scores, then link routing; None when either fails."""
    check_network(pn), check_request(vn), check_router(router)
    v_score, p_score = _finite_vector("v_score", v_score), _finite_vector("p_score", p_score)
    if v_score.shape != (vn.n,) or p_score.shape != (pn.n,):
        raise ValueError(
            f"v_score must have shape ({vn.n},) and p_score ({pn.n},), one score per node, got "
            f"{v_score.shape} and {p_score.shape}"
        )
    p_order = np.argsort(-p_score, kind="stable")
    used = np.zeros(pn.n, dtype=bool)
    nodes = [-1] * vn.n
    for i in np.argsort(-v_score, kind="stable"):
        ok = p_order[(~used[p_order]) & (pn.cpu[p_order] >= vn.cpu[i])]
        if len(ok) == 0:
            return None
        nodes[int(i)] = int(ok[0])
        used[ok[0]] = True
    return route_links(pn, vn, nodes, router)


class RandomRank:
    """Random node ranking (random scores each request), then the same greedy matching and routing."""

    def __init__(self, seed: int = 0, router: Router = bfs_path) -> None:
        self.rng, self.router = np.random.default_rng(check_int("seed", seed, low=0)), check_router(router)

    def solve(self, pn: PhysicalNetwork, vn: VirtualNetwork) -> Embedding | None:
        """Map `vn` with random rankings."""
        check_network(pn), check_request(vn)
        return rank_map(pn, vn, self.rng.random(vn.n), self.rng.random(pn.n), self.router)


class NRMRank:
    """NRM-Rank: rank by CPU x adjacent bandwidth (demands for the VN, availability for the PN)."""

    def __init__(self, router: Router = bfs_path) -> None:
        self.router = check_router(router)

    def solve(self, pn: PhysicalNetwork, vn: VirtualNetwork) -> Embedding | None:
        """Map `vn` with NRM rankings."""
        check_network(pn), check_request(vn)
        return rank_map(
            pn,
            vn,
            nrm_scores(vn.cpu, vn.adjacent_bw()[0]),
            nrm_scores(pn.cpu, pn.adjacent_bw()[0]),
            self.router,
        )


class GRCRank:
    """GRC-Rank: rank by the global resource capacity (PageRank-like) score on both networks."""

    def __init__(self, d: float = 0.85, tol: float = 1e-6, router: Router = bfs_path) -> None:
        check_float("d (damping)", d, 0.0, 1.0, high_open=True)
        check_float("tol", tol, low=0.0, low_open=True)
        self.d, self.tol, self.router = d, tol, check_router(router)

    def solve(self, pn: PhysicalNetwork, vn: VirtualNetwork) -> Embedding | None:
        """Map `vn` with GRC rankings."""
        check_network(pn), check_request(vn)
        vs = grc_scores(vn.cpu, vn.links, vn.bw, self.d, self.tol)
        ps = grc_scores(pn.cpu, pn.edges, pn.bw, self.d, self.tol)
        return rank_map(pn, vn, vs, ps, self.router)


# ----------------------------------------------------------------------------- policies
def normalized_adjacency(pn: PhysicalNetwork) -> torch.Tensor:
    """D^-1/2 (A + I) D^-1/2 of the PN topology (dense float32; the PN has ~100 nodes)."""
    check_network(pn)
    a = torch.eye(pn.n)
    e = torch.as_tensor(pn.edges)
    a[e[:, 0], e[:, 1]] = 1.0
    a[e[:, 1], e[:, 0]] = 1.0
    dinv = a.sum(1).rsqrt()
    return dinv[:, None] * a * dinv[None, :]


class GCNPolicy(nn.Module):
    """Actor-critic: GCN over physical nodes + current virtual-node context -> per-node logits and a value."""

    def __init__(
        self, adjacency: torch.Tensor, hidden: int = 128, layers: int = 3, skip: bool = True
    ) -> None:
        super().__init__()
        check_int("layers", layers, low=1)
        check_int("hidden", hidden, low=1)
        check_bool("skip", skip)
        check_tensor("adjacency", adjacency, ndim=2, finite=True)
        if adjacency.shape[0] != adjacency.shape[1] or adjacency.shape[0] < 1:
            raise ValueError(f"adjacency must be a square (n, n) matrix, got shape {tuple(adjacency.shape)}")
        self.n_nodes = int(adjacency.shape[0])
        self.register_buffer("adj", adjacency.float())
        dims = [len(NODE_FEATURES)] + [hidden] * layers
        self.gcn = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.ctx = nn.Linear(len(CONTEXT_FEATURES), hidden)
        # skip: the node's own features, embedded without smoothing, also reach the actor head
        self.skip = nn.Linear(len(NODE_FEATURES), hidden) if skip else None
        width = (3 if skip else 2) * hidden
        self.actor = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.critic = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, nodes: torch.Tensor, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """nodes (B, n, F), context (B, C) -> logits (B, n), value (B,)."""
        _check_inputs(nodes, context, self.n_nodes)
        h = nodes
        for lin in self.gcn:
            h = torch.relu(self.adj @ lin(h))
        c = torch.relu(self.ctx(context))
        parts = [h, c[:, None, :].expand_as(h)]
        if self.skip is not None:
            parts.insert(0, torch.relu(self.skip(nodes)))
        hc = torch.cat(parts, dim=-1)
        logits = self.actor(hc).squeeze(-1)
        value = self.critic(torch.cat([h.mean(1), c], dim=-1)).squeeze(-1)
        return logits, value


def _check_inputs(nodes: torch.Tensor, context: torch.Tensor, n_nodes: int) -> None:
    check_tensor("nodes", nodes, floating=True, shape=(None, n_nodes, len(NODE_FEATURES)))
    check_tensor("context", context, floating=True, shape=(nodes.shape[0], len(CONTEXT_FEATURES)))


class MLPPolicy(nn.Module):
    """Actor-critic on the flattened physical-node features and the context (PPO-MLP)."""

    def __init__(self, n_nodes: int, hidden: int = 128) -> None:
        super().__init__()
        self.n_nodes = check_int("n_nodes", n_nodes, low=1)
        check_int("hidden", hidden, low=1)
        d = n_nodes * len(NODE_FEATURES) + len(CONTEXT_FEATURES)
        self.body = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.actor = nn.Linear(hidden, n_nodes)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, nodes: torch.Tensor, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """nodes (B, n, F), context (B, C) -> logits (B, n), value (B,)."""
        _check_inputs(nodes, context, self.n_nodes)
        h = self.body(torch.cat([nodes.flatten(1), context], dim=-1))
        return self.actor(h), self.critic(h).squeeze(-1)


@dataclass(frozen=True)
class PPOConfig:
    """PPO settings (Adam lr 1e-3, gamma 0.99, GAE 0.95, clip 0.2, minibatch 128 as in the brief)."""

    lr: float = 1e-3
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    minibatch: int = 128
    rollout: int = 512
    update_epochs: int = 4
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5

    def __post_init__(self) -> None:
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_probability("gamma", self.gamma)
        check_probability("lam", self.lam)
        check_float("clip", self.clip, low=0.0, low_open=True)
        for name in ("minibatch", "rollout", "update_epochs"):
            check_int(name, getattr(self, name), low=1)
        check_float("entropy_coef", self.entropy_coef, low=0.0)
        check_float("value_coef", self.value_coef, low=0.0)
        check_float("max_grad_norm", self.max_grad_norm, low=0.0, low_open=True)


class PPOSolver:
    """A policy used as an online solver: runs one `NodeMappingEnv` episode per VN.

    ``mask`` removes infeasible actions from the policy's distribution; ``greedy`` takes the arg-max (testing)
    instead of sampling (training). With ``collect=True`` every step is stored for PPO updates and
    ``on_episode_end`` is called after each episode.
    """

    def __init__(
        self,
        policy: nn.Module,
        pn: PhysicalNetwork,
        mask: bool = True,
        greedy: bool = True,
        seed: int = 0,
        router: Router = bfs_path,
    ) -> None:
        if not isinstance(policy, nn.Module):
            raise TypeError(
                f"policy must be a torch.nn.Module (GCNPolicy, MLPPolicy), got {type(policy).__name__}"
            )
        check_network(pn)
        n_nodes = getattr(policy, "n_nodes", pn.n)
        if n_nodes != pn.n:
            raise ValueError(f"policy was built for {n_nodes} physical nodes, the PhysicalNetwork has {pn.n}")
        for name, flag in (("mask", mask), ("greedy", greedy)):
            check_bool(name, flag)
        self.policy, self.mask, self.greedy = policy, mask, greedy
        self.env = NodeMappingEnv(pn, router=router)
        self.gen = torch.Generator().manual_seed(check_int("seed", seed, low=0))
        self.collect = False
        self.buffer: list[tuple] = []
        self.episodes: list[tuple[float, bool]] = []
        self.on_episode_end: Callable[[], None] | None = None

    @torch.no_grad()
    def _act(self, obs: dict) -> tuple[int, float, float]:
        nodes = torch.from_numpy(obs["nodes"])[None]
        ctx = torch.from_numpy(obs["context"])[None]
        logits, value = self.policy(nodes, ctx)
        m = torch.from_numpy(obs["mask"].astype(bool))[None] if self.mask else None
        dist = masked_categorical(logits, m)
        if self.greedy:
            a = dist.probs.argmax(-1)
        else:
            a = torch.multinomial(dist.probs, 1, generator=self.gen)[:, 0]
        return int(a), float(dist.log_prob(a)), float(value)

    def solve(self, pn: PhysicalNetwork, vn: VirtualNetwork) -> Embedding | None:
        """Run the policy on `vn`; the embedding if every step succeeded, else None."""
        check_network(pn), check_request(vn)
        if pn is not self.env.pn:
            raise ValueError("PPOSolver was built for a different PhysicalNetwork")
        obs, _ = self.env.reset(options={"vn": vn})
        if not self.env.action_masks().any():
            self.episodes.append((0.0, False))
            return None
        ret, done, info = 0.0, False, {}
        while not done:
            a, logp, v = self._act(obs)
            nxt, r, done, _, info = self.env.step(a)
            if self.collect:
                self.buffer.append((obs["nodes"], obs["context"], obs["mask"], a, logp, v, r, done))
            ret += r
            obs = nxt
        self.episodes.append((ret, bool(info.get("success"))))
        if self.collect and self.on_episode_end is not None:
            self.on_episode_end()
        return self.env.embedding if info.get("success") else None


def _ppo_update(
    policy: nn.Module,
    opt: torch.optim.Optimizer,
    buf: list[tuple],
    mask: bool,
    cfg: PPOConfig,
    gen: torch.Generator,
) -> dict[str, float]:
    nodes = torch.from_numpy(np.stack([b[0] for b in buf]))
    ctx = torch.from_numpy(np.stack([b[1] for b in buf]))
    masks = torch.from_numpy(np.stack([b[2] for b in buf]).astype(bool))
    actions = torch.tensor([b[3] for b in buf])
    old_logp = torch.tensor([b[4] for b in buf])
    values = torch.tensor([b[5] for b in buf])
    rewards = torch.tensor([b[6] for b in buf])
    dones = torch.tensor([float(b[7]) for b in buf])
    adv, ret = gae(rewards, values, dones, torch.tensor(0.0), cfg.gamma, cfg.lam)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n = len(buf)
    stats: dict[str, float] = {}
    for _ in range(cfg.update_epochs):
        perm = torch.randperm(n, generator=gen)
        for s in range(0, n, cfg.minibatch):
            idx = perm[s : s + cfg.minibatch]
            logits, v = policy(nodes[idx], ctx[idx])
            dist = masked_categorical(logits, masks[idx] if mask else None)
            with warnings.catch_warnings():  # the shared ppo_loss reads float() of a grad-tracking tensor
                warnings.simplefilter("ignore", UserWarning)
                loss, stats = ppo_loss(
                    dist.log_prob(actions[idx]),
                    old_logp[idx],
                    adv[idx],
                    v,
                    ret[idx],
                    dist.entropy(),
                    cfg.clip,
                    cfg.value_coef,
                    cfg.entropy_coef,
                )
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            opt.step()
    return stats


def train_ppo(
    policy: nn.Module,
    pn: PhysicalNetwork,
    settings: VNSettings,
    epochs: int,
    seed: int,
    mask: bool = True,
    cfg: PPOConfig | None = None,
    progress: Callable[[int], None] | None = None,
    window: int = 100,
) -> list[dict[str, float]]:
    """Train `policy` by PPO on `epochs` online simulations (request seeds derived from `seed`).

    Returns one summary per `window` training episodes (VNs): episodes seen, acceptance rate, mean episode
    return and the latest PPO loss statistics.
    """
    if not isinstance(policy, nn.Module):
        raise TypeError(
            f"policy must be a torch.nn.Module (GCNPolicy, MLPPolicy), got {type(policy).__name__}"
        )
    check_network(pn)
    if not isinstance(settings, VNSettings):
        raise TypeError(f"settings must be a VNSettings, got {type(settings).__name__}")
    check_int("epochs", epochs, low=1)
    check_int("seed", seed, low=0)
    check_int("window", window, low=1)
    if cfg is not None and not isinstance(cfg, PPOConfig):
        raise TypeError(f"cfg must be None or a PPOConfig, got {type(cfg).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {type(progress).__name__}")
    cfg = cfg or PPOConfig()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1)
    opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    agent = PPOSolver(policy, pn, mask=mask, greedy=False, seed=seed + 2)
    agent.collect = True
    last: dict[str, float] = {}

    def maybe_update() -> None:
        nonlocal last
        if len(agent.buffer) >= cfg.rollout:
            last = _ppo_update(policy, opt, agent.buffer, mask, cfg, gen)
            agent.buffer = []

    agent.on_episode_end = maybe_update
    history: list[dict[str, float]] = []
    seen = 0
    for ep in range(epochs):
        reqs = VNRequestGenerator(10_000 + 97 * seed + ep, settings).generate(pn.n)
        agent.episodes = []
        OnlineSimulator(pn, reqs, agent).run()
        for s in range(0, len(agent.episodes), window):
            chunk = agent.episodes[s : s + window]
            seen += len(chunk)
            history.append(
                {
                    "episodes": float(seen),
                    "accept": float(np.mean([ok for _, ok in chunk])),
                    "return": float(np.mean([r for r, _ in chunk])),
                    **last,
                }
            )
        if progress is not None:
            progress(ep)
    return history
