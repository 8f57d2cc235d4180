"""Search distributions of DADO (arXiv 2511.03032): tree-factorised and autoregressive, in float64.

Both models start at the uniform distribution (zero-initialised output layers) and are trained by weighted
maximum likelihood. Everything is float64 because DADO's weights exp(A / beta) are clipped at 1e30 but not
normalised: in float32 the squared gradients inside Adam would overflow long before the clip.
"""

from __future__ import annotations

import networkx as nx
import torch
from torch import nn

from iclr26.checks import check_int
from iclr26.generative.dado.objective import (
    JunctionTreeObjective,
    TreeStructure,
    check_designs,
    tree_structure,
)

__all__ = ["AutoregressiveSearchDistribution", "TreeSearchDistribution", "gumbel_argmax"]

DTYPE = torch.float64


def gumbel_argmax(logits: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
    """One categorical draw per row of `logits` (last axis) by the Gumbel-max trick."""
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be None or a torch.Generator, got {type(generator).__name__}")
    u = torch.rand(logits.shape, generator=generator, dtype=logits.dtype).clamp_min(1e-300)
    return (logits - torch.log(-torch.log(u))).argmax(-1)


class TreeSearchDistribution(nn.Module):
    """p(x) = p(x~_r) prod_{c != r} p(x~_c \\ sep | x~_pa(c)): one small MLP per clique, batched.

    Clique ``c``'s conditional maps the one-hot joint state of its parent clique (a constant for the root)
    through ``hidden`` ReLU units to logits over the joint states of its new variables. The per-clique weights
    are stacked tensors, so all conditionals are evaluated by one gather and one einsum.

    Parameters
    ----------
    tree, n_states, cliques, root : the junction tree (see :func:`tree_structure`).
    hidden : hidden units per clique MLP.
    init_seed : seed of the first-layer initialisation (output layers start at zero: uniform p).
    """

    def __init__(
        self,
        tree: nx.Graph,
        n_states: int,
        cliques: list[tuple[int, ...]] | None = None,
        root: int = 0,
        hidden: int = 32,
        init_seed: int = 0,
    ) -> None:
        super().__init__()
        st = tree_structure(tree, n_states, cliques, root)
        self.structure: TreeStructure = st
        h = check_int("hidden", hidden, low=1)
        c_n, d = st.n_cliques, st.n_states
        s_in = d**st.width
        s_out = max(d ** len(v) for v in st.new_vars)
        gen = torch.Generator().manual_seed(check_int("init_seed", init_seed, low=0))
        self.w1 = nn.Parameter(torch.randn(c_n, s_in, h, generator=gen, dtype=DTYPE))  # one-hot input: std 1
        self.b1 = nn.Parameter(torch.zeros(c_n, h, dtype=DTYPE))
        self.w2 = nn.Parameter(torch.zeros(c_n, h, s_out, dtype=DTYPE))
        self.b2 = nn.Parameter(torch.zeros(c_n, s_out, dtype=DTYPE))
        valid = torch.zeros(c_n, s_out, dtype=torch.bool)
        for c, nv in enumerate(st.new_vars):
            valid[c, : d ** len(nv)] = True
        self.register_buffer("valid", valid, persistent=False)
        self._masked = not bool(valid.all())
        var, rad = st.var_matrix()
        self.register_buffer("var", var, persistent=False)
        self.register_buffer("rad", rad, persistent=False)
        nvar, nrad = st.new_var_matrix()
        self.register_buffer("new_var", nvar, persistent=False)
        self.register_buffer("new_rad", nrad, persistent=False)
        par = torch.tensor([max(p, 0) for p in st.parent], dtype=torch.long)
        self.register_buffer("par", par, persistent=False)
        self._is_root = torch.tensor([p < 0 for p in st.parent])
        k = nvar.shape[1]
        self._levels = []
        for lvl in st.levels:
            cols = torch.tensor(lvl, dtype=torch.long)
            flat_vars, flat_pos = [], []
            for i, c in enumerate(lvl):
                for j, v in enumerate(st.new_vars[c]):
                    flat_vars.append(v)
                    flat_pos.append(i * k + j)
            self._levels.append((cols, torch.tensor(flat_vars), torch.tensor(flat_pos)))
        self._pow = torch.tensor([d**j for j in range(k)], dtype=torch.long)

    @classmethod
    def from_objective(
        cls, objective: object, hidden: int = 32, init_seed: int = 0
    ) -> TreeSearchDistribution:
        """The tree model on the junction tree of a :class:`JunctionTreeObjective`."""
        if not isinstance(objective, JunctionTreeObjective):
            raise TypeError(f"objective must be a JunctionTreeObjective, got {type(objective).__name__}")
        st = objective.structure
        return cls(objective.tree, st.n_states, list(st.cliques), st.root, hidden, init_seed)

    @property
    def n_vars(self) -> int:
        """Number of design variables L."""
        return self.structure.n_vars

    def _logits(self, cols: torch.Tensor, parent_state: torch.Tensor) -> torch.Tensor:
        """Conditional logits [N, k, S_out] of cliques `cols` given their parents' joint states [N, k]."""
        s_in, h_dim = self.w1.shape[1], self.w1.shape[2]
        rows = (parent_state + cols * s_in).reshape(-1)
        h = self.w1.view(-1, h_dim).index_select(0, rows).view(*parent_state.shape, h_dim)
        h = torch.relu_(h + self.b1[cols])  # in place: fresh multi-MB buffers are slow to allocate
        out = torch.baddbmm(self.b2[cols].unsqueeze(1), h.transpose(0, 1), self.w2[cols]).transpose(0, 1)
        return out.masked_fill(~self.valid[cols], -torch.inf) if self._masked else out

    def _parent_states(self, x: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        p = self.par[cols]
        s = (x[:, self.var[p]] * self.rad[p]).sum(-1)
        return s.masked_fill(self._is_root[cols], 0)

    def factor_log_prob(self, x: torch.Tensor) -> torch.Tensor:
        """log p(x~_c \\ sep | x~_pa(c)) for every sample and clique, [N, C] (column c = clique c)."""
        x = check_designs(x, self.structure.n_vars, self.structure.n_states)
        cols = torch.arange(self.structure.n_cliques)
        logits = self._logits(cols, self._parent_states(x, cols))
        cls = (x[:, self.new_var] * self.new_rad).sum(-1)
        return logits.gather(-1, cls[..., None]).squeeze(-1) - torch.logsumexp(logits, -1)

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        """log p(x) [N]."""
        return self.factor_log_prob(x).sum(-1)

    @torch.no_grad()
    def sample(self, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
        """`n` designs [n, L] (int64), sampled depth level by depth level from the root."""
        n = check_int("n (a positive number of samples)", n, low=1)
        x = torch.zeros(n, self.structure.n_vars, dtype=torch.long)
        for cols, flat_vars, flat_pos in self._levels:
            cls = gumbel_argmax(self._logits(cols, self._parent_states(x, cols)), generator)
            digits = (cls[..., None] // self._pow) % self.structure.n_states
            x[:, flat_vars] = digits.reshape(n, -1)[:, flat_pos]
        return x


class AutoregressiveSearchDistribution(nn.Module):
    """p(x) = prod_i p(x_i | x_<i) by a MADE masked MLP with one hidden layer over one-hot inputs.

    Hidden unit ``k`` gets the degree ``m_k = 1 + (k mod (L - 1))``; it sees the one-hot states of variables
    ``j < m_k`` and feeds the logits of variables ``i >= m_k`` (0-based), so position ``i`` depends on
    ``x_<i`` only. The masked first layer is an embedding sum, so sampling updates the hidden
    pre-activations incrementally, one variable at a time.
    """

    def __init__(self, n_vars: int, n_states: int, hidden: int = 128, init_seed: int = 0) -> None:
        super().__init__()
        n_vars = check_int("n_vars", n_vars, low=1)
        n_states = check_int("n_states", n_states, low=2)
        h = check_int("hidden", hidden, low=1)
        self.n_vars, self.n_states, self.hidden = n_vars, n_states, h
        gen = torch.Generator().manual_seed(check_int("init_seed", init_seed, low=0))
        deg = 1 + torch.arange(h) % max(n_vars - 1, 1)
        var_in = torch.arange(n_vars).repeat_interleave(n_states)  # variable of each one-hot input
        mask_in = (var_in[:, None] < deg[None, :]).to(DTYPE)  # [L*D, H]
        mask_out = (deg[:, None] <= var_in[None, :]).to(DTYPE)  # [H, L*D]
        fan_in = mask_in.sum(0).clamp_min(1.0)
        self.w1 = nn.Parameter(torch.randn(n_vars * n_states, h, generator=gen, dtype=DTYPE) / fan_in.sqrt())
        self.b1 = nn.Parameter(torch.zeros(h, dtype=DTYPE))
        self.w2 = nn.Parameter(torch.zeros(h, n_vars * n_states, dtype=DTYPE))
        self.b2 = nn.Parameter(torch.zeros(n_vars * n_states, dtype=DTYPE))
        self.register_buffer("mask_in", mask_in, persistent=False)
        self.register_buffer("mask_out", mask_out, persistent=False)
        self.register_buffer("offset", torch.arange(n_vars) * n_states, persistent=False)

    def factor_log_prob(self, x: torch.Tensor) -> torch.Tensor:
        """log p(x_i | x_<i) for every sample and position, [N, L]."""
        x = check_designs(x, self.n_vars, self.n_states)
        pre = nn.functional.embedding_bag(x + self.offset, self.w1 * self.mask_in, mode="sum")
        logits = (torch.relu(pre + self.b1) @ (self.w2 * self.mask_out) + self.b2).view(
            -1, self.n_vars, self.n_states
        )
        return logits.gather(-1, x[..., None]).squeeze(-1) - torch.logsumexp(logits, -1)

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        """log p(x) [N]."""
        return self.factor_log_prob(x).sum(-1)

    @torch.no_grad()
    def sample(self, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
        """`n` designs [n, L] (int64), one position at a time."""
        n = check_int("n (a positive number of samples)", n, low=1)
        w1 = self.w1 * self.mask_in
        w2 = (self.w2 * self.mask_out).view(self.hidden, self.n_vars, self.n_states)
        b2 = self.b2.view(self.n_vars, self.n_states)
        pre = self.b1.expand(n, -1).clone()
        x = torch.zeros(n, self.n_vars, dtype=torch.long)
        for i in range(self.n_vars):
            xi = gumbel_argmax(torch.relu(pre) @ w2[:, i] + b2[i], generator)
            x[:, i] = xi
            pre += w1.index_select(0, self.offset[i] + xi)
        return x
