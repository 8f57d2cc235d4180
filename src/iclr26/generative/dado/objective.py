"""Junction-tree decomposable objectives with exact max-sum optima (DADO, arXiv 2511.03032).

A design ``x`` has ``L`` discrete variables with ``D`` states each. A junction tree has cliques ``c`` (tuples
of variables; a plain tree has one variable per clique), a root and a parent map. The objective is

    f(x) = sum_c f_c(x~_c) + sum_{c != root} f_{pa(c), c}(x~_pa(c), x~_c),

with tables ``f_c`` over the joint states of clique ``c`` and ``f_{pa,c}`` over (parent state, child state).
A clique's joint state is the mixed-radix number ``sum_j x[v_j] * D**j`` over its variables ``v_0, v_1, ...``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch

from iclr26.checks import check_bool, check_choice, check_float, check_int

__all__ = ["JunctionTreeObjective", "TreeStructure", "check_designs", "tree_structure"]


@dataclass(frozen=True)
class TreeStructure:
    """Rooted junction tree over variables ``0..L-1``, oriented and padded for batched tensor code.

    Cliques are numbered ``0..C-1`` and listed in breadth-first order from the root in ``order``. ``vars[c]``
    holds the clique's variables padded with -1; ``new_vars[c]`` the variables not shared with the parent
    (all of them for the root), padded with -1. ``levels[d]`` lists the cliques at depth ``d``.
    """

    n_vars: int
    n_states: int
    root: int
    cliques: tuple[tuple[int, ...], ...]
    parent: tuple[int, ...]  # -1 for the root
    children: tuple[tuple[int, ...], ...]
    depth: tuple[int, ...]
    order: tuple[int, ...]
    levels: tuple[tuple[int, ...], ...]
    new_vars: tuple[tuple[int, ...], ...]

    @property
    def n_cliques(self) -> int:
        """Number of cliques (tree nodes)."""
        return len(self.cliques)

    @property
    def width(self) -> int:
        """Largest clique size."""
        return max(len(c) for c in self.cliques)

    def n_joint(self, c: int) -> int:
        """Number of joint states of clique `c`."""
        return self.n_states ** len(self.cliques[c])

    def var_matrix(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(vars [C, w] with -1 padding replaced by 0, radix [C, w] with 0 on padding) for state indices."""
        w = self.width
        var = torch.zeros(self.n_cliques, w, dtype=torch.long)
        rad = torch.zeros(self.n_cliques, w, dtype=torch.long)
        for c, vs in enumerate(self.cliques):
            for j, v in enumerate(vs):
                var[c, j] = v
                rad[c, j] = self.n_states**j
        return var, rad

    def new_var_matrix(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(new vars [C, k] with padding 0, radix [C, k] with 0 on padding) for the sampled class index."""
        k = max(len(v) for v in self.new_vars)
        var = torch.zeros(self.n_cliques, k, dtype=torch.long)
        rad = torch.zeros(self.n_cliques, k, dtype=torch.long)
        for c, vs in enumerate(self.new_vars):
            for j, v in enumerate(vs):
                var[c, j] = v
                rad[c, j] = self.n_states**j
        return var, rad


def tree_structure(
    tree: nx.Graph, n_states: int, cliques: Sequence[Sequence[int]] | None = None, root: int = 0
) -> TreeStructure:
    """Validate a (junction) tree and orient it from `root`.

    `tree` has nodes ``0..C-1``; `cliques[c]` lists the variables of node ``c`` (default: node ``c`` is the
    single variable ``c``). Checks: a connected acyclic graph, variables ``0..L-1`` all covered, the running
    intersection property, and every non-root clique adds at least one variable not in its parent.
    """
    if not isinstance(tree, nx.Graph) or isinstance(tree, nx.DiGraph):
        raise TypeError(f"tree must be an undirected networkx Graph, got {type(tree).__name__}")
    n_states = check_int("n_states", n_states, low=2)
    n = tree.number_of_nodes()
    if n == 0:
        raise ValueError("tree must have at least one node")
    if set(tree.nodes) != set(range(n)):
        raise ValueError(f"tree nodes must be the integers 0..{n - 1}, got {sorted(tree.nodes)[:10]}")
    if nx.number_of_selfloops(tree) > 0 or not nx.is_tree(tree):
        what = "disconnected" if not nx.is_connected(tree) else "has cycles"
        raise ValueError(f"tree must be connected and acyclic (a tree), but the graph {what}")
    root = check_int(f"root (a node index in [0, {n}))", root, 0, n - 1)
    if cliques is None:
        cl = tuple((c,) for c in range(n))
    else:
        if isinstance(cliques, (str, bytes)) or not isinstance(cliques, Sequence) or len(cliques) != n:
            raise ValueError(f"cliques must list one variable tuple per tree node ({n}), got {cliques!r}")
        for c in cliques:
            if isinstance(c, (str, bytes)) or not isinstance(c, Sequence):
                raise ValueError(f"cliques must hold tuples of variable indices, got {c!r}")
        cl = tuple(tuple(check_int("clique variable", v, low=0) for v in c) for c in cliques)
        for c, vs in enumerate(cl):
            if len(vs) == 0 or len(set(vs)) != len(vs):
                raise ValueError(f"cliques[{c}] must be a non-empty tuple of distinct variables, got {vs}")
    all_vars = sorted({v for c in cl for v in c})
    n_vars = len(all_vars)
    if all_vars != list(range(n_vars)):
        raise ValueError(f"cliques must cover the variables 0..L-1 exactly, got {all_vars[:10]}...")
    for v in range(n_vars):
        holders = [c for c in range(n) if v in cl[c]]
        if not nx.is_connected(tree.subgraph(holders)):
            raise ValueError(f"cliques violate the running intersection property at variable {v}")
    parent = [-1] * n
    depth = [0] * n
    order = [root]
    for u, v in nx.bfs_edges(tree, root):
        parent[v] = u
        depth[v] = depth[u] + 1
        order.append(v)
    children = [[] for _ in range(n)]
    for c in order[1:]:
        children[parent[c]].append(c)
    new_vars = []
    for c in range(n):
        nv = cl[c] if parent[c] < 0 else tuple(v for v in cl[c] if v not in cl[parent[c]])
        if not nv:
            raise ValueError(
                f"clique {c} adds no variable to its parent {parent[c]}; merge it into the parent"
            )
        new_vars.append(nv)
    levels = tuple(tuple(c for c in order if depth[c] == d) for d in range(max(depth) + 1))
    return TreeStructure(
        n_vars=n_vars,
        n_states=n_states,
        root=root,
        cliques=cl,
        parent=tuple(parent),
        children=tuple(tuple(ch) for ch in children),
        depth=tuple(depth),
        order=tuple(order),
        levels=levels,
        new_vars=tuple(new_vars),
    )


def check_designs(x: torch.Tensor, n_vars: int, n_states: int, name: str = "x") -> torch.Tensor:
    """Validate an integer design batch [N, L] with states in ``[0, D)``; returns it as int64."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of integer states, got {type(x).__name__}")
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer states, got dtype {x.dtype}")
    if x.dim() != 2 or x.shape[1] != n_vars:
        raise ValueError(f"{name} must have shape [N, {n_vars}], got {tuple(x.shape)}")
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= n_states):
        raise ValueError(
            f"{name} has states outside the range [0, {n_states}): min {int(x.min())}, max {int(x.max())}"
        )
    return x.long()


def _as_table(t: object, shape: tuple[int, ...], what: str) -> np.ndarray:
    arr = np.asarray(t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t, dtype=np.float64)
    size = int(np.prod(shape))
    if arr.shape != shape and arr.shape != (size,):
        raise ValueError(f"{what} must have shape {shape} (or ({size},)), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} contains non-finite values")
    return arr.reshape(size)


class JunctionTreeObjective:
    """A decomposable objective over a junction tree, with exact max-sum optimum.

    Parameters
    ----------
    tree : undirected networkx tree over nodes ``0..C-1`` (cliques).
    n_states : number of states ``D`` of every variable.
    node_tables : one table per clique, shape ``(D,) * |c|`` (axis j = the clique's j-th variable) or flat.
    edge_tables : mapping ``(u, v) -> table`` for every tree edge, shape ``(D,)*|u| + (D,)*|v|``; either
        orientation may be given (a table keyed ``(child, parent)`` is transposed). ``None``: all edge terms 0.
    cliques : variables of every clique (default: clique ``c`` is variable ``c``, a plain tree).
    root : root clique of the factorisation.

    Examples
    --------
    >>> obj = JunctionTreeObjective.random(6, 3, tree="chain", seed=0)
    >>> x = obj.argmax()[None, :]
    >>> abs(float(obj(x)[0]) - obj.max_value()) < 1e-9
    True
    """

    def __init__(
        self,
        tree: nx.Graph,
        n_states: int,
        node_tables: Sequence[object],
        edge_tables: Mapping[tuple[int, int], object] | None = None,
        cliques: Sequence[Sequence[int]] | None = None,
        root: int = 0,
    ) -> None:
        self.tree = tree
        self.structure = st = tree_structure(tree, n_states, cliques, root)
        c_n, d = st.n_cliques, n_states
        if len(node_tables) != c_n:
            raise ValueError(f"node_tables must hold one table per clique ({c_n}), got {len(node_tables)}")
        s_max = d**st.width
        self.node_table = torch.zeros(c_n, s_max, dtype=torch.float64)
        self.edge_table = torch.zeros(c_n, s_max, s_max, dtype=torch.float64)
        for c in range(c_n):
            k = len(st.cliques[c])
            self.node_table[c, : d**k] = torch.from_numpy(
                _as_table(node_tables[c], (d,) * k, f"node_tables[{c}]")
            )
        if edge_tables is not None and not isinstance(edge_tables, Mapping):
            raise TypeError(
                f"edge_tables must be None or a dict (parent, child) -> table, got {type(edge_tables).__name__}"
            )
        edges = dict(edge_tables or {})
        for key in edges:
            if not (isinstance(key, tuple) and len(key) == 2 and tree.has_edge(*key)):
                raise ValueError(f"edge_tables key {key!r} is not an edge of the tree")
        for c in range(c_n):
            p = st.parent[c]
            if p < 0:
                continue
            kp, kc = len(st.cliques[p]), len(st.cliques[c])
            if (p, c) in edges:
                tab = _as_table(edges[(p, c)], (d,) * (kp + kc), f"edge_tables[{(p, c)}]")
                tab = tab.reshape(d**kp, d**kc)
            elif (c, p) in edges:
                tab = _as_table(edges[(c, p)], (d,) * (kc + kp), f"edge_tables[{(c, p)}]")
                tab = tab.reshape(d**kc, d**kp).T
            elif edge_tables is None:
                continue
            else:
                raise ValueError(f"edge_tables has no table for the tree edge {(p, c)}")
            self.edge_table[c, : d**kp, : d**kc] = torch.from_numpy(np.ascontiguousarray(tab))
        self._var, self._rad = st.var_matrix()
        self._parent_idx = torch.tensor([max(p, 0) for p in st.parent], dtype=torch.long)
        self._consistent = self._consistency()

    # ----------------------------------------------------------------- basic accessors
    @property
    def n_vars(self) -> int:
        """Number of design variables L."""
        return self.structure.n_vars

    @property
    def n_states(self) -> int:
        """States per variable D."""
        return self.structure.n_states

    @property
    def n_cliques(self) -> int:
        """Number of cliques C."""
        return self.structure.n_cliques

    def clique_states(self, x: torch.Tensor) -> torch.Tensor:
        """Joint state index of every clique, [N, C] (int64)."""
        x = check_designs(x, self.n_vars, self.n_states)
        return (x[:, self._var] * self._rad).sum(-1)

    def terms(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(node_vals [N, C], edge_vals [N, C]) float64; ``edge_vals[:, c]`` is f_{pa(c),c}, 0 at the root."""
        s = self.clique_states(x)
        cols = torch.arange(self.n_cliques)
        node = self.node_table[cols, s]
        edge = self.edge_table[cols, s[:, self._parent_idx], s]
        edge[:, self.structure.root] = 0.0
        return node, edge

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """Objective values f(x) for a batch [N, L] of designs, float64 [N]."""
        node, edge = self.terms(x)
        return node.sum(1) + edge.sum(1)

    # ----------------------------------------------------------------- exact quantities
    def _consistency(self) -> torch.Tensor:
        """Mask [C, S, S]: parent joint state and child joint state agree on their shared variables."""
        st = self.structure
        d, s_max = st.n_states, st.n_states**st.width
        mask = torch.zeros(st.n_cliques, s_max, s_max, dtype=torch.bool)
        idx = torch.arange(s_max)
        for c in range(st.n_cliques):
            p = st.parent[c]
            if p < 0:
                continue
            kp, kc = len(st.cliques[p]), len(st.cliques[c])
            ok = torch.ones(d**kp, d**kc, dtype=torch.bool)
            for jc, v in enumerate(st.cliques[c]):
                if v in st.cliques[p]:
                    jp = st.cliques[p].index(v)
                    dp = (idx[: d**kp] // d**jp) % d
                    dc = (idx[: d**kc] // d**jc) % d
                    ok &= dp[:, None] == dc[None, :]
            mask[c, : d**kp, : d**kc] = ok
        return mask

    def _max_sum(self) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Leaves-to-root max-sum messages: (up [C, S] best subtree value per clique state, argmax tables)."""
        st = self.structure
        s_max = st.n_states**st.width
        up = torch.full((st.n_cliques, s_max), -torch.inf, dtype=torch.float64)
        for c in range(st.n_cliques):
            up[c, : st.n_joint(c)] = self.node_table[c, : st.n_joint(c)]
        best_child: list[torch.Tensor] = [torch.empty(0, dtype=torch.long)] * st.n_cliques
        for c in reversed(st.order):
            p = st.parent[c]
            if p < 0:
                continue
            cand = self.edge_table[c] + up[c][None, :]
            cand = cand.masked_fill(~self._consistent[c], -torch.inf)
            msg, arg = cand.max(dim=1)
            best_child[c] = arg
            valid = torch.arange(s_max) < st.n_joint(p)
            up[p] = torch.where(valid, up[p] + msg, up[p])
        return up, best_child

    def max_value(self) -> float:
        """Exact optimum f* = max_x f(x) by max-sum dynamic programming on the tree."""
        up, _ = self._max_sum()
        return float(up[self.structure.root].max())

    def argmax(self) -> torch.Tensor:
        """One maximiser x* [L] (int64), by back-tracking the max-sum messages."""
        st = self.structure
        up, best_child = self._max_sum()
        state = [0] * st.n_cliques
        state[st.root] = int(up[st.root].argmax())
        for c in st.order[1:]:
            state[c] = int(best_child[c][state[st.parent[c]]])
        x = torch.zeros(st.n_vars, dtype=torch.long)
        for c in range(st.n_cliques):
            for j, v in enumerate(st.cliques[c]):
                x[v] = (state[c] // st.n_states**j) % st.n_states
        return x

    def uniform_mean(self) -> float:
        """Exact E[f(x)] under independent uniform states (consistent clique pairs are equally likely)."""
        st = self.structure
        total = 0.0
        for c in range(st.n_cliques):
            total += float(self.node_table[c, : st.n_joint(c)].mean())
            if st.parent[c] >= 0:
                total += float(self.edge_table[c][self._consistent[c]].mean())
        return total

    # ----------------------------------------------------------------- random instances
    @classmethod
    def random(
        cls,
        n_vars: int,
        n_states: int,
        tree: str = "random",
        width: int = 1,
        seed: int = 0,
        edge_scale: float = 1.0,
        node_scale: float = 1.0,
        permute: bool = True,
    ) -> JunctionTreeObjective:
        """A random instance: node terms ~ N(0, node_scale^2), edge terms ~ N(0, edge_scale^2).

        `tree` shapes the clique tree: ``"chain"`` (parent of c is c-1), ``"star"`` (every clique hangs from
        the root) or ``"random"`` (random recursive tree: parent of c uniform among 0..c-1). With ``width=1``
        cliques are single variables; with ``width=w > 1`` the root clique has w variables and every other
        clique shares one variable of its parent and adds up to w-1 new ones. ``permute`` relabels the
        variables by a random permutation, so that the index order is not a topological order of the tree.
        """
        n_vars = check_int("n_vars", n_vars, low=2)
        n_states = check_int("n_states", n_states, low=2)
        width = check_int("width (in [1, n_vars])", width, 1, n_vars)
        check_choice("tree", tree, ("chain", "star", "random"))
        check_int("seed", seed, low=0)
        check_float("edge_scale", edge_scale, low=0.0)
        check_float("node_scale", node_scale, low=0.0)
        check_bool("permute", permute)
        rng = np.random.default_rng(seed)
        perm = rng.permutation(n_vars) if permute else np.arange(n_vars)
        cliques: list[tuple[int, ...]] = [tuple(range(width))]
        parents = [-1]
        nxt = width
        while nxt < n_vars:
            c = len(cliques)
            p = c - 1 if tree == "chain" else 0 if tree == "star" else int(rng.integers(0, c))
            if width == 1:
                cliques.append((nxt,))
                nxt += 1
            else:
                shared = int(cliques[p][rng.integers(0, len(cliques[p]))])
                k = min(width - 1, n_vars - nxt)
                cliques.append((shared, *range(nxt, nxt + k)))
                nxt += k
            parents.append(p)
        cliques = [tuple(int(perm[v]) for v in cl) for cl in cliques]
        g = nx.Graph()
        g.add_nodes_from(range(len(cliques)))
        g.add_edges_from((parents[c], c) for c in range(1, len(cliques)))
        nodes = [rng.normal(0.0, node_scale, size=(n_states,) * len(cl)) for cl in cliques]
        edges = {
            (parents[c], c): rng.normal(
                0.0, edge_scale, size=(n_states,) * (len(cliques[parents[c]]) + len(cl))
            )
            for c, cl in enumerate(cliques)
            if c > 0
        }
        return cls(g, n_states, nodes, edges, cliques=cliques, root=0)
