"""The synthetic ground truth of the VCWorld reproduction: a virtual cell with a linear signed gene network.

Paper: "VCWorld: A Biological World Model for Virtual Cell Simulation" (Wei et al., ICLR 2026, arXiv 2512.00306).
The paper predicts drug responses in real cells (GeneTAK, from Tahoe-100M); offline we need a world whose truth is
known. Per cell line c the network W_c is the true signed network with 15% of its edges dropped; a drug p hits
1-3 targets with signed effects b_p and the steady-state response is

    x_{c,p} = (I - kappa_c W_c)^{-1} b_p + eps,     kappa_c rho(W_c) = 0.8   (kappa_c ||W_c||_2 = 0.8 if rho = 0)

with W[i, j] the weight of edge j -> i. DE(c, p, g) = |x_g| > tau_c (tau_c: the 90% quantile of |x| in c, so ~10%
of triplets are DE); DIR(c, p, g) = [x_g > 0].
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from iclr26.checks import check_array, check_choice, check_float, check_int

__all__ = ["NETWORKS", "VirtualCell", "steady_state"]

NETWORKS = ("scale_free", "tree")
RHO_TARGET = 0.8


def steady_state(W: np.ndarray, b: np.ndarray, kappa: float) -> np.ndarray:
    """Solve (I - kappa W) x = b for x (b: (n,) or (n, m)); refuses kappa * rho(W) >= 1 (no steady state)."""
    W = check_array("W", W, ndim=2, finite=True)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be a square (n, n) matrix, got shape {W.shape}")
    b = check_array("b", b, ndim=(1, 2))
    if b.shape[0] != W.shape[0]:
        raise ValueError(f"b must have shape ({W.shape[0]},) or ({W.shape[0]}, m), got {b.shape}")
    rho = float(np.max(np.abs(np.linalg.eigvals(W)))) if W.size else 0.0
    if kappa * rho >= 1.0:
        raise ValueError(
            f"kappa * rho(W) must be < 1 for a steady state, got kappa * rho = {kappa * rho:.4g}"
        )
    return np.linalg.solve(np.eye(W.shape[0]) - kappa * W, b)


def _scale(W: np.ndarray, target: float = RHO_TARGET) -> float:
    """kappa with kappa * rho(W) = target; for an acyclic W (rho = 0) kappa * ||W||_2 = target instead."""
    rho = float(np.max(np.abs(np.linalg.eigvals(W))))
    if rho > 1e-9:
        return target / rho
    norm = float(np.linalg.norm(W, 2))
    return target / norm if norm > 0 else 1.0


class VirtualCell:
    """A synthetic virtual cell: true signed gene network, drugs, cell lines and their DE / DIR labels.

    Parameters
    ----------
    n_genes, n_drugs, n_cell_lines : sizes of the world.
    seed : everything (network, drugs, masks, noise) is drawn from it.
    network : ``"scale_free"`` (networkx's directed scale-free graph, self-loops and multi-edges removed) or
        ``"tree"`` (a random tree oriented away from gene 0: one path to each reachable gene).
    targets_per_drug : (min, max) number of targets of a drug.
    edge_drop : fraction of the network's edges each cell line loses.
    noise : standard deviation of the Gaussian noise added to x, relative to the median |x| of the DE genes.
    de_fraction : fraction of the triplets of each cell line that are DE (sets tau_c).

    Attributes
    ----------
    W : (n_genes, n_genes) true signed weights, ``W[i, j]`` = edge j -> i.
    graph : the same network as a networkx DiGraph with ``sign`` and ``weight`` on each edge.
    targets : list (per drug) of target gene ids; ``effects``: their signed effects.
    X : (n_cell_lines, n_drugs, n_genes) responses; ``de``, ``dir`` the labels (int8).

    Examples
    --------
    >>> vc = VirtualCell(50, 10, 2, seed=0)
    >>> vc.de.shape, bool(0.05 < vc.de.mean() < 0.15)
    ((2, 10, 50), True)
    """

    def __init__(
        self,
        n_genes: int,
        n_drugs: int,
        n_cell_lines: int,
        seed: int = 0,
        *,
        network: str = "scale_free",
        targets_per_drug: tuple[int, int] = (1, 3),
        edge_drop: float = 0.15,
        noise: float = 0.1,
        de_fraction: float = 0.1,
    ) -> None:
        self.n_genes = check_int("n_genes", n_genes, low=4)
        self.n_drugs = check_int("n_drugs", n_drugs, low=2)
        self.n_cell_lines = check_int("n_cell_lines", n_cell_lines, low=1)
        self.network = check_choice("network", network, NETWORKS)
        lo, hi = (check_int("targets_per_drug[0]", targets_per_drug[0], low=1),
                  check_int("targets_per_drug[1]", targets_per_drug[1], low=1))  # fmt: skip
        if lo > hi:
            raise ValueError(f"targets_per_drug must be (min, max) with min <= max, got {targets_per_drug}")
        self.edge_drop = check_float("edge_drop", edge_drop, 0.0, 1.0)
        self.noise = check_float("noise", noise, 0.0)
        self.de_fraction = check_float("de_fraction", de_fraction, 0.0, 1.0, low_open=True, high_open=True)
        rng = np.random.default_rng(np.random.SeedSequence([check_int("seed", seed, low=0), 2512_00306]))
        n = self.n_genes
        self.graph = self._network(rng)
        self.W = np.zeros((n, n))
        for u, v, d in self.graph.edges(data=True):
            self.W[v, u] = d["weight"]
        sources = [g for g in range(n) if self.graph.out_degree(g) > 0] or list(range(n))
        self.targets, self.effects = [], []
        for _ in range(self.n_drugs):
            k = min(int(rng.integers(lo, hi + 1)), len(sources))
            self.targets.append([int(t) for t in rng.choice(sources, size=k, replace=False)])
            self.effects.append((rng.choice([-1.0, 1.0], size=k) * rng.uniform(0.5, 1.5, size=k)).tolist())
        B = np.zeros((n, self.n_drugs))
        for p, (ts, es) in enumerate(zip(self.targets, self.effects)):
            B[ts, p] = es
        self.B = B
        edges = np.argwhere(self.W != 0)
        self.masks, self.kappas, self.baselines, self.taus = [], [], [], []
        X = np.zeros((self.n_cell_lines, self.n_drugs, n))
        for c in range(self.n_cell_lines):
            Wc = self.W.copy()
            drop = edges[rng.random(len(edges)) < self.edge_drop]
            Wc[drop[:, 0], drop[:, 1]] = 0.0
            kappa = _scale(Wc)
            clean = steady_state(Wc, B, kappa).T  # (drugs, genes)
            tau_clean = np.quantile(np.abs(clean), 1 - self.de_fraction)
            scale = (
                np.median(np.abs(clean)[np.abs(clean) > tau_clean])
                if np.any(np.abs(clean) > tau_clean)
                else 1.0
            )
            X[c] = clean + rng.normal(0.0, self.noise * scale, size=clean.shape)
            self.masks.append(Wc != 0)
            self.kappas.append(kappa)
            self.baselines.append(rng.normal(5.0, 1.0, size=n))
            self.taus.append(float(np.quantile(np.abs(X[c]), 1 - self.de_fraction)))
        self.X = X
        self.de = (np.abs(X) > np.array(self.taus)[:, None, None]).astype(np.int8)
        self.dir = (X > 0).astype(np.int8)

    def _network(self, rng: np.random.Generator) -> nx.DiGraph:
        n = self.n_genes
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        if self.network == "tree":
            tree = nx.random_labeled_tree(n, seed=int(rng.integers(2**31)))
            pairs = list(nx.bfs_edges(tree, 0))
        else:
            sf = nx.scale_free_graph(n, seed=int(rng.integers(2**31)))
            pairs = sorted({(int(u), int(v)) for u, v in sf.edges() if u != v})
        for u, v in pairs:
            sign = 1.0 if rng.random() < 0.6 else -1.0
            g.add_edge(u, v, sign=sign, weight=sign * float(rng.uniform(0.5, 1.0)))
        return g

    def response(self, cell_line: int, drug: int) -> np.ndarray:
        """The noisy response x of every gene to `drug` in `cell_line` (a copy)."""
        self._check_ids(cell_line, drug, 0)
        return self.X[cell_line, drug].copy()

    def _check_ids(self, cell_line: int, drug: int, gene: int) -> None:
        check_int("cell_line", cell_line, low=0, high=self.n_cell_lines - 1)
        check_int("drug", drug, low=0, high=self.n_drugs - 1)
        check_int("gene", gene, low=0, high=self.n_genes - 1)

    def label(self, cell_line: int, drug: int, gene: int, task: str = "de") -> int:
        """The DE (0/1) or DIR (1 = up) label of one triplet."""
        self._check_ids(cell_line, drug, gene)
        task = check_choice("task", task, ("de", "dir"))
        return int((self.de if task == "de" else self.dir)[cell_line, drug, gene])

    def split_drugs(self, train_fraction: float = 0.3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Sorted (train, test) drug ids: a random `train_fraction` of the drugs (at least one on each side)."""
        check_float("train_fraction", train_fraction, 0.0, 1.0, low_open=True, high_open=True)
        rng = np.random.default_rng(np.random.SeedSequence([check_int("seed", seed, low=0), 30]))
        perm = rng.permutation(self.n_drugs)
        k = min(max(1, round(train_fraction * self.n_drugs)), self.n_drugs - 1)
        return np.sort(perm[:k]), np.sort(perm[k:])
