"""ProsQA-like graph reachability data for continuous-thought training (Zhu et al., arXiv 2509.23365).

An instance is a DAG over ``n_nodes`` node tokens drawn (a fresh random permutation each time) from a pool of
``n_node_tokens`` ids, split in two components of the same depth D:

* the *reachable* component: root r at layer 0, layers 1..D (every node has a parent one layer up, extra arcs
  only join consecutive layers), so the hop distance from r is the layer index; c+ is drawn from layer D;
* the *distractor* component: same layered shape, unreachable from r; c- is drawn from its layer D. Extra
  arcs may also run from distractor layer k to reachable layer k+1, which does not make c- reachable.

Prompt (the official repository's order): ``<eos> s t | s t | ... [Q] c_1 c_2 [R] r`` with the arcs shuffled
and the candidates in random order. ``reach[i, k]`` marks R_k, the nodes reachable from r within k hops
(root included, cumulative), k = 0..D, which is what the curriculum supervises.

Example
-------
>>> data = make_prosqa_like(4, n_nodes=12, depth=3, seed=0)
>>> data.prompt.shape, data.reach.shape
(torch.Size([4, 54]), torch.Size([4, 4, 12]))
>>> bool(data.reach[:, 3].gather(1, data.pos[:, None]).all())
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_int, check_tensor, check_token_ids

__all__ = [
    "SPECIALS",
    "ReachabilityData",
    "bfs_layers",
    "build_instance",
    "make_prosqa_like",
    "reshuffle",
    "special_id",
    "vocab_size",
]

SPECIALS = ("<eos>", "|", "[Q]", "[R]", "[A]")


def special_id(name: str, n_node_tokens: int) -> int:
    """Token id of a special symbol (they follow the ``n_node_tokens`` node ids)."""
    if name not in SPECIALS:
        raise ValueError(f"name must be one of {SPECIALS}, got {name!r}")
    return check_int("n_node_tokens", n_node_tokens, low=2) + SPECIALS.index(name)


def vocab_size(n_node_tokens: int) -> int:
    """Vocabulary size: node ids plus the special symbols."""
    return check_int("n_node_tokens", n_node_tokens, low=2) + len(SPECIALS)


def bfs_layers(edges: Iterable[tuple[int, int]], root: int) -> list[list[int]]:
    """Breadth-first layers from `root`: layer k holds the nodes at shortest hop distance k (sorted)."""
    children: dict[int, list[int]] = {}
    for s, t in edges:
        children.setdefault(int(s), []).append(int(t))
    seen = {int(root)}
    layers = [[int(root)]]
    while True:
        nxt = sorted({t for s in layers[-1] for t in children.get(s, []) if t not in seen})
        if not nxt:
            return layers
        seen.update(nxt)
        layers.append(nxt)


@dataclass
class ReachabilityData:
    """A batch of encoded instances (all with the same prompt length).

    prompt : (n, L) token ids ``<eos> s t | ... [Q] c_1 c_2 [R] r``.
    root, pos, neg : (n,) root, reachable candidate c+, unreachable candidate c-.
    edges : (n, E, 2) arcs in prompt order; src_pos / tgt_pos : (n, E) their source / target positions.
    cand_pos : (n, 2) positions of the two candidate tokens in the prompt.
    dist : (n, n_node_tokens) hop distance from the root (-1: unreachable or absent).
    reach : (n, D + 1, n_node_tokens) bool, R_k (cumulative reachable sets, root included).
    path : (n, D + 1) a shortest path r -> c+ (for the discrete-CoT baseline).
    """

    prompt: Tensor
    root: Tensor
    pos: Tensor
    neg: Tensor
    edges: Tensor
    src_pos: Tensor
    tgt_pos: Tensor
    cand_pos: Tensor
    dist: Tensor
    reach: Tensor
    path: Tensor
    depth: int
    n_node_tokens: int

    def __post_init__(self) -> None:
        check_int("depth", self.depth, low=1)
        check_int("n_node_tokens", self.n_node_tokens, low=2)
        check_tensor("prompt", self.prompt, ndim=2, floating=False)
        check_token_ids("prompt", self.prompt, vocab_size(self.n_node_tokens))
        n = int(self.prompt.shape[0])
        n_e = self.edges.shape[1] if isinstance(self.edges, Tensor) and self.edges.ndim == 3 else None
        shapes = {  # field -> its shape (None: any size), all with one row per instance
            "root": (n,),
            "pos": (n,),
            "neg": (n,),
            "edges": (n, n_e, 2),
            "src_pos": (n, n_e),
            "tgt_pos": (n, n_e),
            "cand_pos": (n, 2),
            "dist": (n, self.n_node_tokens),
            "reach": (n, self.depth + 1, self.n_node_tokens),
            "path": (n, self.depth + 1),
        }
        for name, shape in shapes.items():
            x = getattr(self, name)
            check_tensor(name, x, ndim=len(shape), floating=None if name == "reach" else False)
            check_tensor(name, x, shape=shape)
        if self.reach.dtype != torch.bool:
            raise TypeError(f"reach must be a bool tensor (the sets R_k), got {self.reach.dtype}")

    def __len__(self) -> int:
        return int(self.prompt.shape[0])

    @property
    def vocab_size(self) -> int:
        """Vocabulary size of the encoding."""
        return vocab_size(self.n_node_tokens)

    def token(self, name: str) -> int:
        """Id of a special symbol."""
        return special_id(name, self.n_node_tokens)

    def to(self, device: str | torch.device) -> ReachabilityData:
        """A copy with every tensor on `device`."""
        return ReachabilityData(
            **{f: getattr(self, f).to(device) for f in _FIELDS},
            depth=self.depth,
            n_node_tokens=self.n_node_tokens,
        )

    def subset(self, idx: Tensor | Sequence[int] | slice) -> ReachabilityData:
        """The instances at `idx` (a new object sharing nothing mutable)."""
        fields = (
            "prompt",
            "root",
            "pos",
            "neg",
            "edges",
            "src_pos",
            "tgt_pos",
            "cand_pos",
            "dist",
            "reach",
            "path",
        )
        out = {f: getattr(self, f)[idx] for f in fields}
        return ReachabilityData(**out, depth=self.depth, n_node_tokens=self.n_node_tokens)


_FIELDS = ("prompt", "root", "pos", "neg", "edges", "src_pos", "tgt_pos", "cand_pos", "dist", "reach", "path")


def build_instance(
    edges: Sequence[tuple[int, int]],
    root: int,
    candidates: tuple[int, int],
    depth: int,
    n_node_tokens: int,
) -> dict[str, np.ndarray]:
    """Encode one graph: prompt, positions, distances, R_k masks and a shortest path to the reachable candidate.

    ``candidates`` is given in prompt order; exactly one must be reachable from `root` and it must lie at hop
    distance `depth`, otherwise ValueError.
    """
    depth = check_int("depth", depth, low=1)
    n_node_tokens = check_int("n_node_tokens", n_node_tokens, low=2)
    nodes = {int(v) for e in edges for v in e} | {int(root), *map(int, candidates)}
    if min(nodes) < 0 or max(nodes) >= n_node_tokens:
        raise ValueError(f"node ids must lie in [0, n_node_tokens={n_node_tokens}), got {sorted(nodes)}")
    layers = bfs_layers(edges, root)
    dist = np.full(n_node_tokens, -1, dtype=np.int64)
    for k, layer in enumerate(layers):
        dist[layer] = k
    c1, c2 = (int(c) for c in candidates)
    reachable = [c for c in (c1, c2) if dist[c] >= 0]
    if len(reachable) != 1:
        raise ValueError(
            f"candidates must hold exactly one node reachable from the root, got {len(reachable)} reachable "
            f"among {(c1, c2)}" + (" (graph without a reachable candidate)" if not reachable else "")
        )
    pos = reachable[0]
    neg = c2 if pos == c1 else c1
    if dist[pos] != depth:
        raise ValueError(f"the reachable candidate must be at hop distance depth={depth}, got {dist[pos]}")
    reach = np.stack([(dist >= 0) & (dist <= k) for k in range(depth + 1)])
    # a shortest path by walking back through parents one layer up
    path = [pos]
    for k in range(depth, 0, -1):
        v = path[-1]
        path.append(min(s for s, t in edges if t == v and dist[s] == k - 1))
    eos, sep, q, r_tok = (special_id(n, n_node_tokens) for n in ("<eos>", "|", "[Q]", "[R]"))
    prompt = [eos]
    for s, t in edges:
        prompt += [int(s), int(t), sep]
    prompt += [q, c1, c2, r_tok, int(root)]
    n_e = len(edges)
    return {
        "prompt": np.asarray(prompt),
        "root": np.asarray(int(root)),
        "pos": np.asarray(pos),
        "neg": np.asarray(neg),
        "edges": np.asarray(edges, dtype=np.int64).reshape(n_e, 2),
        "src_pos": 1 + 3 * np.arange(n_e),
        "tgt_pos": 2 + 3 * np.arange(n_e),
        "cand_pos": np.asarray([1 + 3 * n_e + 1, 1 + 3 * n_e + 2]),
        "dist": dist,
        "reach": reach,
        "path": np.asarray(path[::-1]),
    }


def _layer_sizes(m: int, depth: int, rng: np.random.Generator) -> list[int]:
    extra = rng.multinomial(m - 1 - depth, np.full(depth, 1.0 / depth))
    return [1] + [1 + int(e) for e in extra]


def _one_graph(
    n_nodes: int, depth: int, n_edges: int, n_node_tokens: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    for _ in range(100):  # redraw the layer sizes until the layered graph can hold n_edges arcs
        out = _try_graph(n_nodes, depth, n_edges, n_node_tokens, rng)
        if out is not None:
            return out
    raise ValueError(
        f"n_edges={n_edges} is more than a layered graph on {n_nodes} nodes of depth {depth} holds"
    )


def _try_graph(
    n_nodes: int, depth: int, n_edges: int, n_node_tokens: int, rng: np.random.Generator
) -> dict[str, np.ndarray] | None:
    ids = rng.permutation(n_node_tokens)[:n_nodes]
    a = n_nodes // 2 + (n_nodes % 2)
    comps = []
    start = 0
    for m in (a, n_nodes - a):
        sizes = _layer_sizes(m, depth, rng)
        layers, off = [], start
        for s in sizes:
            layers.append([int(v) for v in ids[off : off + s]])
            off += s
        comps.append(layers)
        start = off
    reach_c, dist_c = comps
    edges: set[tuple[int, int]] = set()
    for layers in comps:
        for k in range(1, depth + 1):
            for v in layers[k]:
                edges.add((int(rng.choice(layers[k - 1])), v))
    cand = []
    for k in range(depth):
        for layers in comps:
            cand += [(s, t) for s in layers[k] for t in layers[k + 1]]
        cand += [(s, t) for s in dist_c[k] for t in reach_c[k + 1]]
    cand = [e for e in cand if e not in edges]
    n_extra = n_edges - len(edges)
    if n_extra > len(cand):
        return None
    for i in rng.choice(len(cand), size=n_extra, replace=False):
        edges.add(cand[int(i)])
    edge_list = sorted(edges)
    edge_list = [edge_list[int(i)] for i in rng.permutation(len(edge_list))]
    pos, neg = int(rng.choice(reach_c[depth])), int(rng.choice(dist_c[depth]))
    cands = (pos, neg) if rng.random() < 0.5 else (neg, pos)
    return build_instance(edge_list, reach_c[0][0], cands, depth, n_node_tokens)


def make_prosqa_like(
    n_graphs: int,
    n_nodes: int = 12,
    depth: int = 3,
    seed: int = 0,
    n_edges: int | None = None,
    n_node_tokens: int | None = None,
) -> ReachabilityData:
    """Generate `n_graphs` encoded reachability instances (see the module docstring for the construction).

    n_edges : arcs per graph (default ``round(4 * n_nodes / 3)``: 16 for 12 nodes); at least the
        ``n_nodes - 2`` tree arcs.
    n_node_tokens : size of the node-id pool (default `n_nodes`); ``n_nodes > n_node_tokens`` is an error.
    """
    n_graphs = check_int("n_graphs", n_graphs, low=1)
    n_nodes = check_int("n_nodes", n_nodes, low=4)
    depth = check_int("depth", depth, low=1)
    seed = check_int("seed", seed, low=0)
    n_node_tokens = n_nodes if n_node_tokens is None else check_int("n_node_tokens", n_node_tokens, low=2)
    if n_nodes > n_node_tokens:
        raise ValueError(f"n_nodes={n_nodes} exceeds the node vocabulary n_node_tokens={n_node_tokens}")
    if n_nodes < 2 * (depth + 1):
        raise ValueError(
            f"n_nodes must be >= 2 * (depth + 1) = {2 * (depth + 1)} for two components, got {n_nodes}"
        )
    n_edges = round(4 * n_nodes / 3) if n_edges is None else check_int("n_edges", n_edges, low=1)
    check_int("n_edges (at least n_nodes - 2, the tree arcs)", n_edges, low=n_nodes - 2)
    rng = np.random.default_rng(seed)
    rows = [_one_graph(n_nodes, depth, n_edges, n_node_tokens, rng) for _ in range(n_graphs)]
    out = {k: torch.from_numpy(np.stack([r[k] for r in rows])) for k in rows[0]}
    return ReachabilityData(**out, depth=depth, n_node_tokens=n_node_tokens)


def reshuffle(data: ReachabilityData, generator: torch.Generator) -> ReachabilityData:
    """The same graphs with fresh node ids, edge order and candidate order (the official pipeline's per-epoch
    ``shuffle_nodes`` + ``random.shuffle(edges)`` + random candidate order).

    Per instance: a random permutation pi of the node-id pool relabels every node field (prompt node tokens,
    root, candidates, edges, path; ``dist`` and ``reach`` are re-indexed so that ``dist'[pi(v)] = dist[v]``);
    the edge triples ``s t |`` are permuted; the two candidates swap with probability 1/2. Token positions
    (``src_pos``, ``tgt_pos``, ``cand_pos``) are unchanged, since the layout does not move.
    """
    if not isinstance(data, ReachabilityData):
        raise TypeError(f"data must be a ReachabilityData, got {type(data).__name__}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    dev = data.prompt.device
    n, n_e = data.edges.shape[:2]
    v = data.n_node_tokens
    pi = torch.argsort(torch.rand(n, v, generator=generator), dim=1).to(dev)  # old id -> new id

    def relabel(x: Tensor) -> Tensor:  # x (n, ...) node ids
        flat = x.reshape(n, -1)
        return pi.gather(1, flat).reshape(x.shape)

    sigma = torch.argsort(torch.rand(n, n_e, generator=generator), dim=1).to(dev)
    edges = relabel(data.edges.gather(1, sigma[:, :, None].expand(n, n_e, 2)))
    swap = (torch.rand(n, generator=generator) < 0.5).to(dev)
    prompt = data.prompt.clone()
    is_node = prompt < v
    prompt[is_node] = relabel(torch.where(is_node, prompt, 0))[is_node]
    prompt.scatter_(1, data.src_pos, edges[:, :, 0])
    prompt.scatter_(1, data.tgt_pos, edges[:, :, 1])
    c1, c2 = prompt.gather(1, data.cand_pos).unbind(1)
    cands = torch.stack([torch.where(swap, c2, c1), torch.where(swap, c1, c2)], dim=1)
    prompt.scatter_(1, data.cand_pos, cands)
    dist = torch.empty_like(data.dist).scatter_(1, pi, data.dist)
    reach = torch.empty_like(data.reach).scatter_(2, pi[:, None, :].expand_as(data.reach), data.reach)
    return ReachabilityData(
        prompt=prompt,
        root=relabel(data.root[:, None])[:, 0],
        pos=relabel(data.pos[:, None])[:, 0],
        neg=relabel(data.neg[:, None])[:, 0],
        edges=edges,
        src_pos=data.src_pos,
        tgt_pos=data.tgt_pos,
        cand_pos=data.cand_pos,
        dist=dist,
        reach=reach,
        path=relabel(data.path),
        depth=data.depth,
        n_node_tokens=v,
    )
