"""Hilbert window attention (HWA), Hilbert slide attention (HSA) and their conventional counterparts.

All functions take per-head tensors (batch, heads, N, dim) over the N = H*W tokens of an H x W grid, in Hilbert
order (``hilbert_*``) or raster order (``swin_window_attention``, ``neighborhood_attention_2d``). An optional
global relative-position table ``rpb`` of shape ((2H-1)(2W-1), heads) adds ``rpb[idx(dy, dx), h]`` to the score
of every (query, key) pair, indexed by the pair's true 2-D offset, as in the official HWT code (Hilbert windows
are not rectangles, so a per-window table would not do).

- HWA: roll the Hilbert sequence by ``s = M // 2`` positions in shifted layers, cut it into contiguous groups of
  M tokens, attend inside each group (the ``s`` tokens that wrapped around attend only to each other), roll back.
- HSA: each token attends to the K positions nearest to it along the curve, the window clamped at the ends.
- Swin: roll the grid by ``ws // 2`` in shifted layers, ``ws x ws`` windows with Swin's region mask.
- 2D neighbourhood: the ``k x k`` cells around each query, clamped inside the grid (NATTEN semantics).

Fast forms gather only the keys each query can see; :func:`masked_reference` is the dense oracle they are tested
against.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from iclr26.attention.hilbert_attention.curve import from_curve, gilbert_order, rowmajor_order, to_curve
from iclr26.attention.hilbert_attention.masks import local_mask
from iclr26.checks import check_bool, check_float, check_int, check_tensor
from iclr26.lab import flex

__all__ = [
    "GlobalAttention",
    "HilbertSlideAttention",
    "HilbertWindowAttention",
    "NeighborhoodAttention2d",
    "SwinWindowAttention",
    "hilbert_slide_attention",
    "hilbert_window_attention",
    "masked_reference",
    "neighborhood_attention_2d",
    "rpb_bias",
    "rpb_index",
    "swin_window_attention",
]


def _pos_int(name: str, v: object) -> int:
    return check_int(name, v, low=1)


def _scale(x: Tensor, scale: float | None) -> float:
    """The softmax scale: ``d^-1/2`` by default, else a finite float > 0."""
    return x.shape[-1] ** -0.5 if scale is None else check_float("scale", scale, low=0.0, low_open=True)


def _check_coords(name: str, coords: Tensor, H: int, W: int) -> Tensor:
    """An integer (..., L, 2) tensor of (y, x) cells inside the H x W grid."""
    check_tensor(name, coords, floating=False)
    if coords.ndim < 2 or coords.shape[-1] != 2:
        raise ValueError(
            f"{name} must be a (..., L, 2) tensor of (y, x) cells, got shape {tuple(coords.shape)}"
        )
    if coords.numel() and not (
        bool((coords[..., 0] >= 0).all() & (coords[..., 0] < H).all())
        and bool((coords[..., 1] >= 0).all() & (coords[..., 1] < W).all())
    ):
        raise ValueError(f"{name} must hold cells inside the {H}x{W} grid (0 <= y < H, 0 <= x < W)")
    return coords


def _check_rpb(rpb: Tensor, H: int, W: int, heads: int) -> None:
    want = ((2 * H - 1) * (2 * W - 1), heads)
    if not isinstance(rpb, Tensor) or tuple(rpb.shape) != want:
        raise ValueError(
            f"rpb must be a ((2H-1)(2W-1), heads) = {want} table, got {getattr(rpb, 'shape', rpb)}"
        )
    check_tensor("rpb", rpb, floating=True)


def _check_inputs(
    x: Tensor, H: int, W: int, k: Tensor | None, v: Tensor | None, rpb: Tensor | None, x_name: str = "x"
):
    """`x_name`: the name of the query argument in the caller's signature (``q`` for the masked oracle)."""
    _pos_int("H", H)
    _pos_int("W", W)
    if not isinstance(x, Tensor) or x.ndim != 4:
        raise ValueError(
            f"{x_name} must be a 4-D tensor (batch, heads, N, dim), got {getattr(x, 'shape', type(x))}"
        )
    check_tensor(x_name, x, floating=True)
    if x.shape[2] != H * W:
        raise ValueError(f"H*W must equal the sequence length N: H*W = {H * W}, N = {x.shape[2]}")
    k = x if k is None else k
    v = x if v is None else v
    for name, t in (("k", k), ("v", v)):
        if not isinstance(t, Tensor) or t.ndim != 4 or t.shape[:3] != x.shape[:3]:
            raise ValueError(
                f"{name} must be a (batch, heads, N, dim) tensor like {x_name} {tuple(x.shape)}, "
                f"got {getattr(t, 'shape', type(t))}"
            )
        check_tensor(name, t, floating=True)
    if k.shape[3] != x.shape[3]:
        raise ValueError(f"k must have the query dim {x.shape[3]} of {x_name}, got shape {tuple(k.shape)}")
    if rpb is not None:
        _check_rpb(rpb, H, W, x.shape[1])
    return k, v


def rpb_index(coords_q: Tensor, coords_k: Tensor, H: int, W: int) -> Tensor:
    """Index into the global table of each (query, key) pair: ``(dy + H - 1) * (2W - 1) + (dx + W - 1)``.

    ``coords_q`` (..., Lq, 2) and ``coords_k`` (..., Lk, 2) hold (y, x); the result is (..., Lq, Lk).
    """
    _pos_int("H", H)
    _pos_int("W", W)
    _check_coords("coords_q", coords_q, H, W)
    _check_coords("coords_k", coords_k, H, W)
    return _rpb_index(coords_q, coords_k, H, W)


def _rpb_index(coords_q: Tensor, coords_k: Tensor, H: int, W: int) -> Tensor:
    dy = coords_q[..., :, None, 0] - coords_k[..., None, :, 0]
    dx = coords_q[..., :, None, 1] - coords_k[..., None, :, 1]
    return (dy + H - 1) * (2 * W - 1) + (dx + W - 1)


def rpb_bias(rpb: Tensor, order: Tensor, H: int, W: int) -> Tensor:
    """The dense (1, heads, N, N) bias of a global table for tokens in ``order`` (the reference gather)."""
    _pos_int("H", H)
    _pos_int("W", W)
    if not isinstance(rpb, Tensor) or rpb.ndim != 2:
        raise ValueError(f"rpb must be a ((2H-1)(2W-1), heads) table, got {getattr(rpb, 'shape', rpb)}")
    _check_rpb(rpb, H, W, rpb.shape[1])
    _check_coords("order", order, H, W)
    if order.ndim != 2:
        raise ValueError(f"order must be an (N, 2) tensor of (y, x) cells, got shape {tuple(order.shape)}")
    idx = _rpb_index(order, order, H, W)
    return rpb[idx].permute(2, 0, 1)[None]


def _grouped(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    perm: Tensor,
    seg: Tensor,
    coords: Tensor,
    group: int,
    rpb,
    H: int,
    W: int,
    scale: float,
) -> Tensor:
    """Attention inside contiguous groups of a permuted sequence.

    ``perm`` (L,) lists token indices (-1 = padding) so that groups are ``perm[g*group:(g+1)*group]``; a query
    sees the keys of its group with the same segment id ``seg`` (padding has -1 and is never seen).
    """
    b, h, _, dv = v.shape
    L = perm.numel()
    n_groups = L // group
    valid = perm >= 0
    src = perm.clamp(min=0).to(q.device)

    def part(t: Tensor) -> Tensor:
        return t[:, :, src].reshape(b, h, n_groups, group, t.shape[-1])

    scores = torch.matmul(part(q), part(k).transpose(-1, -2)) * scale  # (B, h, G, M, M)
    cg = coords[perm.clamp(min=0)].view(n_groups, group, 2)
    if rpb is not None:
        scores = scores + rpb[_rpb_index(cg, cg, H, W).to(rpb.device)].permute(3, 0, 1, 2)
    sg = seg.view(n_groups, group)
    keep = (sg[:, :, None] == sg[:, None, :]) & (sg[:, None, :] >= 0)
    keep = keep.to(q.device)
    weights = flex.masked_softmax(scores.masked_fill(~keep, float("-inf")), keep)
    out_seq = torch.matmul(weights, part(v)).reshape(b, h, L, dv)
    out = v.new_zeros(b, h, q.shape[2], dv)
    out[:, :, perm[valid].to(q.device)] = out_seq[:, :, valid.to(q.device)]
    return out


def hilbert_window_attention(
    x: Tensor,
    H: int,
    W: int,
    window_tokens: int,
    shift: bool = False,
    rpb: Tensor | None = None,
    *,
    k: Tensor | None = None,
    v: Tensor | None = None,
    pad: bool = False,
    scale: float | None = None,
) -> Tensor:
    """HWA over a Hilbert-ordered sequence: full attention inside contiguous groups of ``window_tokens``.

    Parameters
    ----------
    x : (B, heads, N, d) queries in Hilbert order (also keys and values unless ``k``/``v`` are given).
    H, W : the grid, N = H*W.
    window_tokens : M, tokens per group (M = ws^2 replaces a ws x ws window); must divide N unless ``pad``.
    shift : shifted layer: roll by M // 2 first (wrapped tokens masked from the others) and roll back after.
    rpb : optional global ((2H-1)(2W-1), heads) relative-position table.
    pad : allow M not dividing N: the last group is padded with masked slots.
    """
    k, v = _check_inputs(x, H, W, k, v, rpb)
    n = H * W
    m = _pos_int("window_tokens", window_tokens)
    if m > n or (n % m and not pad):
        raise ValueError(f"window_tokens must divide N = {n} (or pass pad=True), got {m}")
    s = m // 2 if shift else 0
    # after torch.roll(seq, s): slot t holds token (t - s) mod N; slots [0, s) are the tokens that wrapped around
    perm = torch.roll(torch.arange(n), s)
    seg = torch.ones(n, dtype=torch.long)
    seg[:s] = 0
    extra = -n % m
    perm = torch.cat([perm, torch.full((extra,), -1, dtype=torch.long)])
    seg = torch.cat([seg, torch.full((extra,), -1, dtype=torch.long)])
    scale = _scale(x, scale)
    return _grouped(x, k, v, perm, seg, gilbert_order(H, W), m, rpb, H, W, scale)


def swin_window_attention(
    x: Tensor,
    H: int,
    W: int,
    window: int,
    shift: bool = False,
    rpb: Tensor | None = None,
    *,
    k: Tensor | None = None,
    v: Tensor | None = None,
    scale: float | None = None,
) -> Tensor:
    """Swin (shifted) window attention over a raster-ordered sequence; ``window`` must divide H and W."""
    k, v = _check_inputs(x, H, W, k, v, rpb)
    ws = _pos_int("window", window)
    if H % ws or W % ws:
        raise ValueError(f"window must divide H and W, got window={ws} for a {H}x{W} grid")
    s = ws // 2 if shift else 0
    grid = torch.arange(H * W).view(H, W)
    rolled = torch.roll(grid, shifts=(-s, -s), dims=(0, 1))  # Swin's cyclic shift
    perm = rolled.view(H // ws, ws, W // ws, ws).permute(0, 2, 1, 3).reshape(-1)
    coords = rowmajor_order(H, W)
    gy = torch.div(coords[:, 0] - s, ws, rounding_mode="floor")  # region ids: wrapped cells get -1
    gx = torch.div(coords[:, 1] - s, ws, rounding_mode="floor")
    seg = ((gy + 1) * (W // ws + 1) + gx + 1)[perm]
    scale = _scale(x, scale)
    return _grouped(x, k, v, perm, seg, coords, ws * ws, rpb, H, W, scale)


def _gathered(
    q: Tensor, k: Tensor, v: Tensor, idx: Tensor, coords: Tensor, rpb, H: int, W: int, scale: float
):
    """Each query i attends to the keys ``idx[i]`` (N, K)."""
    idx_d = idx.to(q.device)
    kg, vg = k[:, :, idx_d], v[:, :, idx_d]  # (B, h, N, K, d)
    scores = torch.einsum("bhnd,bhnkd->bhnk", q, kg) * scale
    if rpb is not None:
        dy = coords[:, None, 0] - coords[idx][..., 0]
        dx = coords[:, None, 1] - coords[idx][..., 1]
        scores = scores + rpb[((dy + H - 1) * (2 * W - 1) + dx + W - 1).to(rpb.device)].permute(2, 0, 1)
    return torch.einsum("bhnk,bhnkd->bhnd", torch.softmax(scores, dim=-1), vg)


def hilbert_slide_attention(
    x: Tensor,
    H: int,
    W: int,
    kernel_tokens: int,
    rpb: Tensor | None = None,
    *,
    k: Tensor | None = None,
    v: Tensor | None = None,
    scale: float | None = None,
) -> Tensor:
    """HSA: 1D neighbourhood attention of ``kernel_tokens`` (odd, <= N) positions along the Hilbert sequence."""
    k, v = _check_inputs(x, H, W, k, v, rpb)
    n = H * W
    kt = _pos_int("kernel_tokens", kernel_tokens)
    if kt % 2 == 0 or kt > n:
        raise ValueError(f"kernel_tokens must be odd and <= N = {n}, got {kt}")
    pos = torch.arange(n)
    idx = (pos - kt // 2).clamp(0, n - kt)[:, None] + torch.arange(kt)[None, :]
    scale = _scale(x, scale)
    return _gathered(x, k, v, idx, gilbert_order(H, W), rpb, H, W, scale)


def neighborhood_attention_2d(
    x: Tensor,
    H: int,
    W: int,
    kernel: int,
    rpb: Tensor | None = None,
    *,
    k: Tensor | None = None,
    v: Tensor | None = None,
    scale: float | None = None,
) -> Tensor:
    """2D neighbourhood attention (NATTEN semantics) over a raster sequence: ``kernel x kernel`` cells, clamped."""
    k, v = _check_inputs(x, H, W, k, v, rpb)
    ks = _pos_int("kernel", kernel)
    if ks % 2 == 0 or ks > min(H, W):
        raise ValueError(f"kernel must be odd and <= min(H, W) = {min(H, W)}, got {ks}")
    coords = rowmajor_order(H, W)
    sy = (coords[:, 0] - ks // 2).clamp(0, H - ks)
    sx = (coords[:, 1] - ks // 2).clamp(0, W - ks)
    off = torch.arange(ks)
    idx = ((sy[:, None, None] + off[None, :, None]) * W + sx[:, None, None] + off[None, None, :]).view(
        H * W, -1
    )
    scale = _scale(x, scale)
    return _gathered(x, k, v, idx, coords, rpb, H, W, scale)


def masked_reference(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor, order: Tensor, H: int, W: int, rpb: Tensor | None = None
) -> Tensor:
    """Dense oracle: softmax attention under a (N, N) bool mask plus the gathered global bias, via lab.flex."""
    _check_inputs(q, H, W, k, v, rpb, x_name="q")
    n = H * W
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool or tuple(mask.shape) != (n, n):
        raise ValueError(
            f"mask must be an (N, N) = ({n}, {n}) bool tensor, got {getattr(mask, 'shape', mask)}"
        )
    _check_coords("order", order, H, W)
    if tuple(order.shape) != (n, 2):
        raise ValueError(
            f"order must be an (N, 2) = ({n}, 2) tensor of (y, x) cells, got {tuple(order.shape)}"
        )
    bias = None if rpb is None else rpb_bias(rpb, order, H, W)
    return flex.attention(q, k, v, mask_mod=flex.from_dense(mask), bias=bias, backend="dense")


# -------------------------------------------------------------------------------------------------- modules


DENSE_MAX_TOKENS = 1024


class _GridAttention(nn.Module):
    """Shared shell: qkv projection, a global relative-position table, output projection; (B, H, W, C) in/out.

    Neighbourhood layers on grids of at most ``DENSE_MAX_TOKENS`` tokens run as dense attention under their
    (N, N) mask (identical output; much faster than gathering keys when N is small).
    """

    hilbert = False

    def __init__(self, dim: int, heads: int, H: int, W: int) -> None:
        super().__init__()
        _pos_int("dim", dim)
        _pos_int("heads", heads)
        if dim % heads:
            raise ValueError(f"dim must be divisible by heads, got dim={dim}, heads={heads}")
        self.dim, self.heads, self.H, self.W = (
            dim,
            _pos_int("heads", heads),
            _pos_int("H", H),
            _pos_int("W", W),
        )
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.rpb = nn.Parameter(torch.zeros((2 * H - 1) * (2 * W - 1), heads))
        nn.init.trunc_normal_(self.rpb, std=0.02)

    def core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} defines no attention core: use one of the layers")

    def _set_dense(self, order: Tensor, kind: str, size: int) -> None:
        self.dense = self.H * self.W <= DENSE_MAX_TOKENS
        if self.dense:
            self.register_buffer("mask", local_mask(order, kind, size), persistent=False)
            self.register_buffer("rpb_idx", rpb_index(order, order, self.H, self.W), persistent=False)

    def _dense_core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        bias = self.rpb[self.rpb_idx].permute(2, 0, 1).to(q.dtype).masked_fill(~self.mask, float("-inf"))
        return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)

    def forward(self, x: Tensor) -> Tensor:
        """(B, H, W, C) -> (B, H, W, C)."""
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ValueError(
                f"x must be a 4-D tensor (batch, H, W, channels), got {getattr(x, 'shape', type(x))}"
            )
        check_tensor("x", x, floating=True)
        b, h, w, c = x.shape
        if (h, w, c) != (self.H, self.W, self.dim):
            raise ValueError(f"x must have shape (B, {self.H}, {self.W}, {self.dim}), got {tuple(x.shape)}")
        seq = to_curve(x) if self.hilbert else x.reshape(b, h * w, c)
        qkv = self.qkv(seq).view(b, h * w, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        out = self.core(qkv[0], qkv[1], qkv[2]).transpose(1, 2).reshape(b, h * w, c)
        out = self.proj(out)
        return from_curve(out, h, w) if self.hilbert else out.view(b, h, w, c)


class HilbertWindowAttention(_GridAttention):
    """HWA layer (replaces Swin W-MSA / SW-MSA): groups of ``window_tokens`` along the Hilbert curve.

    Example
    -------
    >>> layer = HilbertWindowAttention(dim=16, heads=2, H=8, W=8, window_tokens=16, shift=True)
    >>> layer(torch.randn(2, 8, 8, 16)).shape
    torch.Size([2, 8, 8, 16])
    """

    hilbert = True

    def __init__(
        self, dim: int, heads: int, H: int, W: int, window_tokens: int, shift: bool = False, pad: bool = False
    ) -> None:
        super().__init__(dim, heads, H, W)
        m = _pos_int("window_tokens", window_tokens)
        shift, pad = check_bool("shift", shift), check_bool("pad", pad)
        if m > H * W or ((H * W) % m and not pad):
            raise ValueError(f"window_tokens must divide N = {H * W} (or pass pad=True), got {m}")
        self.window_tokens, self.shift, self.pad = m, shift, pad

    def core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        return hilbert_window_attention(
            q, self.H, self.W, self.window_tokens, self.shift, self.rpb, k=k, v=v, pad=self.pad
        )


class HilbertSlideAttention(_GridAttention):
    """HSA layer (replaces slide / neighbourhood attention): 1D neighbourhood of ``kernel_tokens`` on the curve."""

    hilbert = True

    def __init__(self, dim: int, heads: int, H: int, W: int, kernel_tokens: int) -> None:
        super().__init__(dim, heads, H, W)
        kt = _pos_int("kernel_tokens", kernel_tokens)
        if kt % 2 == 0 or kt > H * W:
            raise ValueError(f"kernel_tokens must be odd and <= N = {H * W}, got {kt}")
        self.kernel_tokens = kt
        self._set_dense(gilbert_order(H, W), "slide", kt)

    def core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        if self.dense:
            return self._dense_core(q, k, v)
        return hilbert_slide_attention(q, self.H, self.W, self.kernel_tokens, self.rpb, k=k, v=v)


class SwinWindowAttention(_GridAttention):
    """Baseline: Swin-style (shifted) ``window x window`` attention on the raster order."""

    def __init__(self, dim: int, heads: int, H: int, W: int, window: int, shift: bool = False) -> None:
        super().__init__(dim, heads, H, W)
        ws = _pos_int("window", window)
        if H % ws or W % ws:
            raise ValueError(f"window must divide H and W, got window={ws} for a {H}x{W} grid")
        self.window, self.shift = ws, check_bool("shift", shift)

    def core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        return swin_window_attention(q, self.H, self.W, self.window, self.shift, self.rpb, k=k, v=v)


class NeighborhoodAttention2d(_GridAttention):
    """Baseline: 2D neighbourhood attention, ``kernel x kernel`` (odd) cells around each query, clamped."""

    def __init__(self, dim: int, heads: int, H: int, W: int, kernel: int) -> None:
        super().__init__(dim, heads, H, W)
        ks = _pos_int("kernel", kernel)
        if ks % 2 == 0 or ks > min(H, W):
            raise ValueError(f"kernel must be odd and <= min(H, W) = {min(H, W)}, got {ks}")
        self.kernel = ks
        self._set_dense(rowmajor_order(H, W), "neighborhood", ks)

    def core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        if self.dense:
            return self._dense_core(q, k, v)
        return neighborhood_attention_2d(q, self.H, self.W, self.kernel, self.rpb, k=k, v=v)


class GlobalAttention(_GridAttention):
    """Baseline: global attention (SDPA) with the same global relative-position table."""

    def core(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        bias = rpb_bias(self.rpb, rowmajor_order(self.H, self.W), self.H, self.W)
        return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype))
