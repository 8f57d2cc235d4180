"""Fisale: latent ALE grids, point-to-grid projection, Galerkin attention and the partitioned coupling block.

Paper: "Fisale: Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (ICLR 2026, arXiv
2603.00792); layout after the official code (therontau0054/Fisale, ``model/``), written anew in pure torch (the kNN
graph with ``cdist`` + ``topk`` and the GAT layer with the semantics of PyG's ``GATConv``, so PyG is optional).

Each frame is three point sets (B, N_domain, dim + c_domain), the first dim columns the current coordinates; the
model maps a frame to the next one (one-step map, rolled out autoregressively by :func:`rollout`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor

__all__ = [
    "DOMAINS",
    "Fisale",
    "GATLayer",
    "GalerkinAttention",
    "GridProjection",
    "LatentALEGrid",
    "PCMBlock",
    "knn_graph",
    "rollout",
]

DOMAINS = ("solid", "fluid", "interface")


def knn_graph(x: torch.Tensor, k: int) -> torch.Tensor:
    """Indices (B, M, k) of each node's k nearest other nodes in feature space (Euclidean, no self loops), for
    x (B, M, C); row i lists the sources whose messages node i receives (PyG ``knn_graph`` flow)."""
    check_tensor("x", x, ndim=3, floating=True, finite=True)  # a NaN distance would pick arbitrary neighbours
    k = check_int("k", k, low=1, high=x.shape[1] - 1)
    with torch.no_grad():
        d = torch.cdist(x, x)
        d.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
        return d.topk(k, dim=-1, largest=False).indices


class GATLayer(nn.Module):
    """Graph attention (Velickovic et al.) on a fixed-degree neighbour list, as PyG ``GATConv(in, out, heads,
    residual=True)``: self loops added, LeakyReLU(0.2) scores, softmax over each node's incoming edges, heads
    concatenated, plus a bias-free linear residual of the input and a bias."""

    def __init__(self, in_dim: int, out_per_head: int, heads: int, negative_slope: float = 0.2) -> None:
        super().__init__()
        self.heads, self.out = (
            check_int("heads", heads, low=1),
            check_int("out_per_head", out_per_head, low=1),
        )
        self.lin = nn.Linear(in_dim, heads * out_per_head, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, 1, heads, out_per_head))
        self.att_dst = nn.Parameter(torch.empty(1, 1, heads, out_per_head))
        self.res = nn.Linear(in_dim, heads * out_per_head, bias=False)
        self.bias = nn.Parameter(torch.zeros(heads * out_per_head))
        check_float("negative_slope", negative_slope)
        self.negative_slope = negative_slope
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)

    def forward(self, x: torch.Tensor, nbr: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, ndim=3, floating=True, shape=(None, None, self.lin.in_features))
        B, M, _ = x.shape
        check_tensor("nbr", nbr, ndim=3, floating=False, shape=(B, M, None))
        if nbr.numel() and (int(nbr.min()) < 0 or int(nbr.max()) >= M):
            raise ValueError(
                f"nbr must hold node indices in [0, {M}), got values in [{int(nbr.min())}, {int(nbr.max())}]"
            )
        h = self.lin(x).view(B, M, self.heads, self.out)
        a_src = (h * self.att_src).sum(-1)  # (B, M, H)
        a_dst = (h * self.att_dst).sum(-1)
        self_idx = torch.arange(M, device=x.device).view(1, M, 1).expand(B, M, 1)
        idx = torch.cat([self_idx, nbr], dim=-1)  # (B, M, k + 1) sources of node i
        bidx = torch.arange(B, device=x.device).view(B, 1, 1)
        e = F.leaky_relu(a_src[bidx, idx] + a_dst[:, :, None], self.negative_slope)  # (B, M, k+1, H)
        alpha = e.softmax(dim=2)
        out = (alpha[..., None] * h[bidx, idx]).sum(2).reshape(B, M, -1)
        return out + self.res(x) + self.bias


class GalerkinAttention(nn.Module):
    """Galerkin linear attention with pre-LN on queries, keys and values and a residual onto the query input:
    out = x + W_o( softmax_c(q) (softmax_c(k)^T v) / n_q ) per head, q = W_q LN(x), k = W_k LN(y), v = W_v LN(z)
    (bias-free q/k/v), with the softmax over each head's channels and n_q the number of query tokens."""

    def __init__(self, dim: int, heads: int = 8) -> None:
        super().__init__()
        self.heads = check_int("heads", heads, low=1)
        if dim % heads:
            raise ValueError(f"dim ({dim}) must be divisible by heads ({heads})")
        self.ln_q, self.ln_k, self.ln_v = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.W_q = nn.Linear(dim, dim, bias=False)
        self.W_k = nn.Linear(dim, dim, bias=False)
        self.W_v = nn.Linear(dim, dim, bias=False)
        self.W_o = nn.Linear(dim, dim)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        B, N, C = t.shape
        return t.view(B, N, self.heads, C // self.heads).transpose(1, 2)  # (B, H, N, c)

    def qkv(self, x, y, z):
        q = self._split(self.W_q(self.ln_q(x))).softmax(-1)
        k = self._split(self.W_k(self.ln_k(y))).softmax(-1)
        v = self._split(self.W_v(self.ln_v(z)))
        return q, k, v

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None, z: torch.Tensor | None = None):
        dim = self.W_q.in_features
        check_tensor("x", x, ndim=3, floating=True, shape=(None, None, dim))
        y = x if y is None else check_tensor("y", y, ndim=3, floating=True, shape=(x.shape[0], None, dim))
        z = y if z is None else check_tensor("z", z, ndim=3, floating=True, shape=tuple(y.shape))
        q, k, v = self.qkv(x, y, z)
        o = q @ (k.transpose(-2, -1) @ v) / q.shape[2]
        return self.W_o(o.transpose(1, 2).reshape(x.shape)) + x


def _ffn(d_in: int, d_hidden: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.GELU(), nn.Linear(d_hidden, d_out))


class _Head(nn.Module):
    """The official ``MLP``: Linear + GELU, ``layers`` residual (LN, Linear, GELU) blocks, Linear."""

    def __init__(self, d_in: int, d_hidden: int, d_out: int, layers: int) -> None:
        super().__init__()
        self.pre = nn.Sequential(nn.Linear(d_in, d_hidden), nn.GELU())
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(d_hidden), nn.Linear(d_hidden, d_hidden), nn.GELU())
            for _ in range(layers)
        )
        self.post = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        x = self.pre(x)
        for b in self.blocks:
            x = b(x) + x
        return self.post(x)


def base_grid(shape: Sequence[int], extent: float = 3.5) -> torch.Tensor:
    """The uniform base grid (M, dim) on [-extent, extent]^dim, 'ij' ordering."""
    axes = [torch.linspace(-extent, extent, int(s)) for s in shape]
    return torch.stack(torch.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(shape))


class LatentALEGrid(nn.Module):
    """A latent ALE grid: the base grid g (M, dim) moved by data-driven offsets and embedded.

    For each domain's coordinates u (B, N, dim): W = softmax_N(Linear_{M->M}(LN(-|u_n - g_m|^2))),
    offset_m = sum_n W_nm (u_n - g_m); g' = g + sum_domains offset (g' = g with ``moving=False``); the embedding
    e = Linear(LN(g')) (B, M, C) and its kNN graph (built on e, as the official code does)."""

    def __init__(self, dim: int, hidden: int, grid_shape: Sequence[int], neighbors: int, moving: bool = True):
        super().__init__()
        if len(grid_shape) != dim:
            raise ValueError(f"grid_shape {tuple(grid_shape)} must have dim = {dim} entries")
        self.register_buffer("grid", base_grid(grid_shape))
        M = self.grid.shape[0]
        self.neighbors = check_int("neighbors", neighbors, low=1, high=M - 1)
        self.moving = bool(moving)
        self.w = nn.Sequential(nn.LayerNorm(M), nn.Linear(M, M))
        self.fc = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden))

    def offsets(self, u: torch.Tensor) -> torch.Tensor:
        """The offset (B, M, dim) one domain's coordinates u (B, N, dim) pull the grid by."""
        g = self.grid.to(u.dtype)
        W = self.w(-(torch.cdist(u, g[None].expand(u.shape[0], -1, -1)) ** 2)).softmax(1)  # (B, N, M)
        return torch.einsum("bnm,bnmd->bmd", W, u[:, :, None] - g[None, None])

    def moved_grid(self, coords: Sequence[torch.Tensor]) -> torch.Tensor:
        g = self.grid.to(coords[0].dtype)[None].expand(coords[0].shape[0], -1, -1)
        return g + sum(self.offsets(u) for u in coords) if self.moving else g

    def forward(self, coords: Sequence[torch.Tensor]):
        """(e (B, M, C), kNN indices (B, M, k), moved grid g' (B, M, dim))."""
        if isinstance(coords, torch.Tensor) or not isinstance(coords, Sequence) or not coords:
            raise TypeError(
                f"coords must be a non-empty sequence of (B, N, dim) tensors, got {type(coords).__name__}"
            )
        dim = self.grid.shape[1]
        for i, u in enumerate(coords):
            b = coords[0].shape[0] if i else None
            check_tensor(f"coords[{i}]", u, ndim=3, floating=True, finite=True, shape=(b, None, dim))
        g_new = self.moved_grid(coords)
        e = self.fc(g_new)
        return e, knn_graph(e, self.neighbors), g_new


class GridProjection(nn.Module):
    """Points -> grid tokens and back for one domain and level.

    q = W_q LN(f + p0), k = W_k LN(e), A = Linear_{M->M}(LN(q k^T)) (B, N, M); P = softmax_N(A)^T f (B, M, C);
    deprojection f_up = Linear(LN(softmax_M(A) P)) (B, N, C)."""

    def __init__(self, hidden: int, M: int) -> None:
        super().__init__()
        self.placeholder = nn.Parameter(torch.randn(1, 1, hidden) / hidden)
        self.wq = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden))
        self.wk = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden))
        self.ww = nn.Sequential(nn.LayerNorm(M), nn.Linear(M, M))
        self.out = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden))

    def scores(self, f: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        return self.ww(self.wq(f + self.placeholder) @ self.wk(e).transpose(-1, -2))

    def forward(self, f: torch.Tensor, e: torch.Tensor):
        """(grid tokens P (B, M, C), scores A (B, N, M))."""
        hidden, M = self.placeholder.shape[-1], self.ww[1].in_features
        check_tensor("f", f, ndim=3, floating=True, shape=(None, None, hidden))
        check_tensor("e", e, ndim=3, floating=True, shape=(f.shape[0], M, hidden))
        A = self.scores(f, e)
        return A.softmax(-2).transpose(-1, -2) @ f, A

    def deproject(self, P: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
        return self.out(A.softmax(-1) @ P)


class _GridUpdate(nn.Module):
    """Linear(LN(concat(P_s, P_f, P_i))) -> LN -> GAT -> LN -> GAT over the kNN graph."""

    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.fc = nn.Sequential(nn.LayerNorm(3 * hidden), nn.Linear(3 * hidden, hidden))
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.gat1 = GATLayer(hidden, hidden // heads, heads)
        self.gat2 = GATLayer(hidden, hidden // heads, heads)

    def forward(self, ps, pf, pi, nbr):
        p = self.fc(torch.cat([ps, pf, pi], -1))
        return self.gat2(self.ln2(self.gat1(self.ln1(p), nbr)), nbr)


class PCMBlock(nn.Module):
    """One coupling step on one level: project the three domains onto the grid, run the partitioned substeps (a)
    solid, (b) grid (ALE) update, (c) fluid, (d) interface coupling, deproject as residuals and update the grid
    embedding (e <- e + e', e <- e + FFN(LN(e))).

    ``coupling="joint"`` replaces (a)-(d) by one joint attention over all tokens (the noPCM ablation; the grid
    update follows it); ``moving_grid=False`` drops the grid update (the static-grid ablation)."""

    def __init__(
        self, hidden: int, M: int, heads: int = 8, mlp_ratio: int = 2, coupling: str = "pcm", moving_grid=True
    ):
        super().__init__()
        self.coupling = check_choice("coupling", coupling, ("pcm", "joint"))
        check_int("mlp_ratio", mlp_ratio, low=1)
        self.moving_grid = check_bool("moving_grid", moving_grid)
        self.proj = nn.ModuleDict({d: GridProjection(hidden, M) for d in DOMAINS})
        if self.coupling == "pcm":
            self.att_solid = GalerkinAttention(hidden, heads)
            self.att_fluid = GalerkinAttention(hidden, heads)
        self.att_couple = GalerkinAttention(hidden, heads)
        if self.moving_grid:
            self.grid_update = _GridUpdate(hidden, heads)
            self.ffn_grid = nn.Sequential(nn.LayerNorm(hidden), _ffn(hidden, hidden * mlp_ratio, hidden))

    def forward(self, fs, ff, fi, e, nbr):
        (ps, As), (pf, Af), (pi, Ai) = (self.proj[d](f, e) for d, f in zip(DOMAINS, (fs, ff, fi)))
        if self.coupling == "pcm":
            kv = torch.cat([e + ps, e + pf, e + pi], 1)
            ps, pi = self.att_solid(torch.cat([e + ps, e + pi], 1), kv).chunk(2, 1)  # (a)
            e_new = self.grid_update(ps, pf, pi, nbr) if self.moving_grid else None  # (b)
            pos = e if e_new is None else e_new
            kv = torch.cat([pos + ps, pos + pf, pos + pi], 1)
            pf, pi = self.att_fluid(torch.cat([pos + pf, pos + pi], 1), kv).chunk(2, 1)  # (c)
            ps, pf, pi = self.att_couple(torch.cat([pos + ps, pos + pf, pos + pi], 1)).chunk(3, 1)  # (d)
        else:
            ps, pf, pi = self.att_couple(torch.cat([e + ps, e + pf, e + pi], 1)).chunk(3, 1)
            e_new = self.grid_update(ps, pf, pi, nbr) if self.moving_grid else None
        fs = fs + self.proj["solid"].deproject(ps, As)
        ff = ff + self.proj["fluid"].deproject(pf, Af)
        fi = fi + self.proj["interface"].deproject(pi, Ai)
        if e_new is not None:
            e = e + e_new
            e = e + self.ffn_grid(e)
        return fs, ff, fi, e


class Fisale(nn.Module):
    """Fisale one-step FSI model: ``forward(solid, fluid, interface) -> (solid', fluid', interface')``.

    Parameters
    ----------
    dim : spatial dimension (2 or 3).
    channels : extra channels per domain after the dim coordinates, e.g. ``{"solid": 0, "fluid": 3,
        "interface": 4}``; outputs have the same layout.
    hidden_dims, grid_shapes, neighbors : per level: channels C, grid shape (dim entries), kNN degree.
    coupling_steps : J, the number of PCM steps.
    heads, mlp_ratio, mlp_layers : attention heads, FFN widening, residual blocks of the output head.
    coupling : "pcm" (the paper) or "joint" (the noPCM ablation).
    moving_grid : False for the static-grid ablation (zero offsets, no grid update).

    Example
    -------
    >>> import torch
    >>> m = Fisale(2, {"solid": 0, "fluid": 3, "interface": 4}, hidden_dims=(16,), grid_shapes=((4, 4),),
    ...            neighbors=(3,), coupling_steps=1, heads=2)
    >>> s, f, i = m(torch.randn(1, 5, 2), torch.randn(1, 7, 5), torch.randn(1, 6, 6))
    >>> s.shape, f.shape, i.shape
    (torch.Size([1, 5, 2]), torch.Size([1, 7, 5]), torch.Size([1, 6, 6]))
    """

    def __init__(
        self,
        dim: int = 2,
        channels: dict[str, int] | None = None,
        hidden_dims: Sequence[int] = (64, 64),
        grid_shapes: Sequence[Sequence[int]] = ((16, 16), (8, 8)),
        neighbors: Sequence[int] = (5, 4),
        coupling_steps: int = 2,
        heads: int = 8,
        mlp_ratio: int = 2,
        mlp_layers: int = 2,
        coupling: str = "pcm",
        moving_grid: bool = True,
    ) -> None:
        super().__init__()
        self.dim = check_choice("dim", check_int("dim", dim), (2, 3))
        heads = check_int("heads", heads, low=1)
        mlp_ratio = check_int("mlp_ratio", mlp_ratio, low=1)
        check_int("mlp_layers", mlp_layers, low=0)
        moving_grid = check_bool("moving_grid", moving_grid)
        channels = {"solid": 0, "fluid": 3, "interface": 1} if channels is None else dict(channels)
        if set(channels) != set(DOMAINS):
            raise ValueError(f"channels must have the keys {DOMAINS}, got {sorted(channels)}")
        self.channels = {d: check_int(f"channels[{d!r}]", channels[d], low=0) for d in DOMAINS}
        hidden_dims = [check_int("hidden_dims", h, low=1) for h in hidden_dims]
        if not hidden_dims:
            raise ValueError("hidden_dims must name at least one level, got []")
        if len(grid_shapes) != len(hidden_dims) or len(neighbors) != len(hidden_dims):
            raise ValueError(
                f"grid_shapes ({len(grid_shapes)} levels) and neighbors ({len(neighbors)}) must have as many levels "
                f"as hidden_dims ({len(hidden_dims)})"
            )
        for h in hidden_dims:
            if h % heads:
                raise ValueError(f"hidden_dims entries must be divisible by heads ({heads}), got {h}")
        self.hidden_dims = hidden_dims
        self.J = check_int("coupling_steps", coupling_steps, low=1)
        self.grids = nn.ModuleList(
            LatentALEGrid(dim, h, gs, k, moving=moving_grid)
            for h, gs, k in zip(hidden_dims, grid_shapes, neighbors)
        )
        self.pre = nn.ModuleDict(
            {
                d: nn.ModuleList(_ffn(dim + self.channels[d], h * mlp_ratio, h) for h in hidden_dims)
                for d in DOMAINS
            }
        )
        self.blocks = nn.ModuleList(
            nn.ModuleList(
                PCMBlock(h, math.prod(gs), heads, mlp_ratio, coupling, moving_grid) for _ in range(self.J)
            )
            for h, gs in zip(hidden_dims, grid_shapes)
        )
        S = sum(hidden_dims)
        self.mix = nn.ModuleDict(
            {
                d: nn.ModuleList(
                    nn.Sequential(nn.LayerNorm(S), _ffn(S, S * mlp_ratio, S)) for _ in range(self.J)
                )
                for d in DOMAINS
            }
        )
        self.head = _Head(S, max(hidden_dims) * mlp_ratio, dim + max(self.channels.values()), mlp_layers)
        self.last_grids: list[torch.Tensor] = []

    def check_frame(self, solid, fluid, interface) -> None:
        """Validate one frame (B, N_domain, dim + c_domain) per domain."""
        B = None
        for d, x in zip(DOMAINS, (solid, fluid, interface)):
            check_tensor(d, x, ndim=3, floating=True)
            want = self.dim + self.channels[d]
            if x.shape[-1] < self.dim:
                raise ValueError(
                    f"{d} has {x.shape[-1]} columns, fewer than the dim = {self.dim} coordinate columns"
                )
            if x.shape[-1] != want:
                raise ValueError(
                    f"{d} has {x.shape[-1] - self.dim} channels after the coordinates, configured "
                    f"channels[{d!r}] = {self.channels[d]} (expected {want} columns)"
                )
            if x.shape[1] == 0:
                raise ValueError(f"{d} is an empty domain (0 points); every domain needs at least one point")
            check_tensor(d, x, finite=True)
            if B is not None and x.shape[0] != B:
                raise ValueError(f"{d} has batch size {x.shape[0]}, but solid has {B}")
            B = x.shape[0]

    def forward(self, solid: torch.Tensor, fluid: torch.Tensor, interface: torch.Tensor):
        self.check_frame(solid, fluid, interface)
        xs = (solid, fluid, interface)
        coords = [x[..., : self.dim] for x in xs]
        levels = [g(coords) for g in self.grids]
        self.last_grids = [lv[2].detach() for lv in levels]
        es = [lv[0] for lv in levels]
        nbrs = [lv[1] for lv in levels]
        feats = {d: [self.pre[d][i](x) for i in range(len(self.hidden_dims))] for d, x in zip(DOMAINS, xs)}
        for j in range(self.J):
            for i in range(len(self.hidden_dims)):
                fs, ff, fi, es[i] = self.blocks[i][j](
                    feats["solid"][i], feats["fluid"][i], feats["interface"][i], es[i], nbrs[i]
                )
                feats["solid"][i], feats["fluid"][i], feats["interface"][i] = fs, ff, fi
            for d in DOMAINS:
                cat = torch.cat(feats[d], -1)
                upd = self.mix[d][j](cat).split(self.hidden_dims, -1)
                feats[d] = [f + u for f, u in zip(feats[d], upd)]
        return tuple(self.head(torch.cat(feats[d], -1))[..., : self.dim + self.channels[d]] for d in DOMAINS)


def rollout(model: nn.Module, frame0: Sequence[torch.Tensor], n_steps: int) -> tuple[torch.Tensor, ...]:
    """Apply a one-step model ``n_steps`` times from frame0 = (solid, fluid, interface), feeding each prediction
    back; returns per domain (B, n_steps, N_domain, C_domain) (no gradients)."""
    n_steps = check_int("n_steps", n_steps, low=1)
    if len(frame0) != 3:
        raise ValueError(f"frame0 must be a (solid, fluid, interface) triple, got {len(frame0)} tensors")
    frame = tuple(frame0)
    out: list[list[torch.Tensor]] = [[], [], []]
    with torch.no_grad():
        for _ in range(n_steps):
            frame = tuple(model(*frame))
            for lst, x in zip(out, frame):
                lst.append(x)
    return tuple(torch.stack(lst, 1) for lst in out)
