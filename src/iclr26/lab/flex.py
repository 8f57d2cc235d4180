"""One softmax-attention primitive with FlexAttention-style ``score_mod`` / ``mask_mod``, and a block-sparse executor.

Position-aware attention variants differ only in how a score is modified (an additive bias such as ALiBi or a
generalized-Gaussian prior, a log-n temperature as in SSMax) and which key positions a query may see (causal,
sliding window, a Hilbert-curve window, block masks). PyTorch's FlexAttention expresses both as small functions:

* ``score_mod(score, b, h, q_idx, kv_idx) -> score``
* ``mask_mod(b, h, q_idx, kv_idx) -> bool``

:func:`attention` takes the same two functions. On the CPU (the default) it evaluates them once on broadcast index
tensors ``b`` (B,1,1,1), ``h`` (1,H,1,1), ``q_idx`` (1,1,Tq,1) and ``kv_idx`` (1,1,1,Tk) and runs dense masked
attention; with ``backend="flex"`` (or ``"auto"`` on a CUDA tensor) it calls
:func:`torch.nn.attention.flex_attention.flex_attention` with the very same functions, so a mod written once works
on both paths. Write mods with elementwise torch operations and indexing of captured tensors (``slopes[h]``);
Python ``if`` on their arguments works on neither path.

:func:`block_sparse_attention` is a CPU executor for sparse masks: it tiles the (query, key) plane into
``block_size`` squares, skips empty tiles, computes only the keys of the non-empty ones (masking the partial
tiles) and counts the multiply-adds it performed; :func:`block_stats` gives the empty/full/partial tile counts
that FlexAttention's ``create_block_mask(...).sparsity()`` reports.

Fully masked query rows return zeros, as FlexAttention does.

Example
-------
>>> import torch
>>> q = k = v = torch.randn(1, 2, 8, 4)
>>> out = attention(q, k, v, score_mod=alibi([0.5, 0.25]), mask_mod=causal)
>>> ref = attention(q, k, v, mask_mod=causal, bias=alibi_bias([0.5, 0.25], 8, 8))
>>> bool(torch.allclose(out, ref, atol=1e-6))
True
>>> stats = block_stats(sliding_window(4), 16, 16, block_size=4)
>>> stats.n_empty, stats.n_full, stats.n_partial
(9, 0, 7)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_float, check_tensor

__all__ = [
    "BlockSparseResult",
    "BlockStats",
    "MaskMod",
    "ScoreMod",
    "additive_bias",
    "alibi",
    "alibi_bias",
    "and_masks",
    "attention",
    "block_sparse_attention",
    "block_stats",
    "causal",
    "dense_mask",
    "from_dense",
    "log_n_scaling",
    "sliding_window",
]

ScoreMod = Callable[[Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]
MaskMod = Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]


def _indices(b: int, h: int, tq: int, tk: int, device: torch.device) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return (
        torch.arange(b, device=device).view(b, 1, 1, 1),
        torch.arange(h, device=device).view(1, h, 1, 1),
        torch.arange(tq, device=device).view(1, 1, tq, 1),
        torch.arange(tk, device=device).view(1, 1, 1, tk),
    )


def _check_qkv(q: Tensor, k: Tensor, v: Tensor) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, Tensor) or t.ndim != 4:
            raise ValueError(
                f"{name} must be a 4-D tensor (batch, heads, seq, dim), got {getattr(t, 'shape', t)}"
            )
        check_tensor(name, t, floating=True)
    if not q.dtype == k.dtype == v.dtype:
        raise TypeError(f"q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[:2] != k.shape[:2] or k.shape[:3] != v.shape[:3]:
        raise ValueError(
            f"q, k, v must share batch and heads, and k, v their length: q {tuple(q.shape)}, k {tuple(k.shape)}, "
            f"v {tuple(v.shape)}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same head dim, got {q.shape[-1]} and {k.shape[-1]}")


def dense_mask(
    mask_mod: MaskMod, b: int, h: int, tq: int, tk: int, device: torch.device | str = "cpu"
) -> Tensor:
    """The boolean mask ``mask_mod`` defines, broadcast to (b, h, tq, tk)."""
    idx = _indices(b, h, tq, tk, torch.device(device))
    return torch.as_tensor(mask_mod(*idx), device=idx[0].device).bool().expand(b, h, tq, tk)


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    *,
    score_mod: ScoreMod | None = None,
    mask_mod: MaskMod | None = None,
    bias: Tensor | None = None,
    scale: float | None = None,
    backend: str = "auto",
    return_weights: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    """Softmax attention ``softmax(mod(q k^T * scale) [masked]) v`` over (batch, heads, seq, dim) tensors.

    Parameters
    ----------
    q, k, v : (B, H, Tq, d), (B, H, Tk, d), (B, H, Tk, d_v).
    score_mod, mask_mod : FlexAttention-style functions (see the module docstring).
    bias : an additive score bias broadcastable to (B, H, Tq, Tk), applied before ``score_mod`` (dense only).
    scale : score scale, ``1 / sqrt(d)`` by default.
    backend : ``"dense"`` (reference, any device), ``"flex"`` (torch's flex_attention), or ``"auto"`` (flex on
        CUDA tensors, dense otherwise).
    return_weights : also return the (B, H, Tq, Tk) attention weights (dense only).
    """
    _check_qkv(q, k, v)
    check_choice("backend", backend, ("auto", "dense", "flex"))
    scale = q.shape[-1] ** -0.5 if scale is None else check_float("scale", scale, 0.0, low_open=True)
    b, h, tq, _ = q.shape
    tk = k.shape[2]
    mod_heads = getattr(score_mod, "n_heads", None)
    if mod_heads is not None and mod_heads != h:
        raise ValueError(f"score_mod is built for {mod_heads} heads (e.g. alibi slopes) but q has {h} heads")
    if bias is not None:
        check_tensor("bias", bias, floating=True)
        try:
            torch.broadcast_shapes(bias.shape, (b, h, tq, tk))
        except RuntimeError:
            raise ValueError(
                f"bias must broadcast to (batch, heads, Tq, Tk) = {(b, h, tq, tk)}, got {tuple(bias.shape)}"
            ) from None
        if torch.broadcast_shapes(bias.shape, (b, h, tq, tk)) != (b, h, tq, tk):
            raise ValueError(f"bias {tuple(bias.shape)} would grow the scores beyond {(b, h, tq, tk)}")
    use_flex = backend == "flex" or (backend == "auto" and q.is_cuda and not return_weights and bias is None)
    if use_flex:
        if return_weights or bias is not None:
            raise ValueError(
                "backend='flex' supports neither return_weights nor a bias tensor; use score_mod"
            )
        return _flex(q, k, v, score_mod, mask_mod, scale)
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if bias is not None:
        scores = scores + bias
    idx = _indices(b, h, tq, tk, q.device)
    if score_mod is not None:
        scores = score_mod(scores, *idx).expand(b, h, tq, tk)
    if mask_mod is not None:
        keep = torch.as_tensor(mask_mod(*idx), device=q.device)
        try:
            keep = keep.bool().expand(b, h, tq, tk)
        except RuntimeError:
            raise ValueError(
                f"mask_mod must return a mask broadcastable to {(b, h, tq, tk)}, got {tuple(keep.shape)}"
            ) from None
        scores = scores.masked_fill(~keep, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask_mod is not None:
        weights = torch.nan_to_num(weights, nan=0.0)  # fully masked rows -> zero output
    out = torch.matmul(weights, v)
    return (out, weights) if return_weights else out


def _flex(q: Tensor, k: Tensor, v: Tensor, score_mod, mask_mod, scale: float) -> Tensor:
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    block_mask = None
    if mask_mod is not None:
        block_mask = create_block_mask(mask_mod, None, None, q.shape[2], k.shape[2], device=q.device)
    return flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask, scale=scale)


# ---------------------------------------------------------------------------------------------- mask mods


def causal(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
    """Keys at or before the query."""
    return q_idx >= kv_idx


def sliding_window(window: int, causal_only: bool = True) -> MaskMod:
    """Keys within ``window`` positions of the query (``q - window < kv <= q`` when ``causal_only``)."""
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be an int >= 1, got {window!r}")

    def mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        near = (q_idx - kv_idx).abs() < window
        return near & (q_idx >= kv_idx) if causal_only else near

    return mask


def and_masks(*masks: MaskMod) -> MaskMod:
    """The conjunction of several mask mods."""
    if not masks:
        raise ValueError("and_masks needs at least one mask")

    def mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        out = masks[0](b, h, q_idx, kv_idx)
        for m in masks[1:]:
            out = out & m(b, h, q_idx, kv_idx)
        return out

    return mask


def from_dense(mask: Tensor) -> MaskMod:
    """A mask mod reading a precomputed (Tq, Tk) boolean matrix (e.g. a Hilbert-window mask)."""
    if not isinstance(mask, Tensor) or mask.ndim != 2 or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a 2-D bool tensor, got {getattr(mask, 'dtype', type(mask))}")

    def mask_mod(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return mask.to(q_idx.device)[q_idx, kv_idx]

    return mask_mod


# --------------------------------------------------------------------------------------------- score mods


def additive_bias(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> ScoreMod:
    """Score mod adding ``fn(h, q_idx, kv_idx)`` (e.g. a learned positional prior) to each score."""

    def mod(score: Tensor, b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return score + fn(h, q_idx, kv_idx)

    return mod


def _slopes(slopes: Sequence[float] | Tensor) -> Tensor:
    s = torch.as_tensor(slopes, dtype=torch.float32).flatten()
    if s.numel() < 1:
        raise ValueError("slopes must hold one value per head")
    if not bool(torch.isfinite(s).all()):
        raise ValueError(f"slopes must be finite, got {s.tolist()}")
    return s


def alibi(slopes: Sequence[float] | Tensor) -> ScoreMod:
    """ALiBi (Press et al., 2022): ``score - m_h |q - kv|`` with one slope ``m_h`` per head.

    The number of slopes must equal the number of heads of the scores it is applied to (checked at use)."""
    s = _slopes(slopes)

    def mod(score: Tensor, b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return score - s.to(score.device, score.dtype)[h] * (q_idx - kv_idx).abs()

    mod.n_heads = s.numel()  # type: ignore[attr-defined] - checked by attention()

    return mod


def alibi_bias(slopes: Sequence[float] | Tensor, tq: int, tk: int) -> Tensor:
    """The ALiBi bias as a dense (1, H, tq, tk) tensor (reference for :func:`alibi`)."""
    s = _slopes(slopes)
    dist = (torch.arange(tq)[:, None] - torch.arange(tk)[None, :]).abs().float()
    return -(s[:, None, None] * dist)[None]


def log_n_scaling(
    s: float | Sequence[float] | Tensor, causal_len: bool = True, q_offset: int = 0, n_keys: int | None = None
) -> ScoreMod:
    """SSMax-style length scaling: multiply each score by ``s_h * log(n)``.

    ``n`` is the number of keys the query can see: ``q_offset + q_idx + 1`` for causal attention
    (``causal_len``; ``q_offset`` is the absolute position of the first query, for chunked or KV-cached queries),
    else ``n_keys`` (default: the key length of the call). With ``n = 1`` the row's scores become 0 (a single key
    gets all the weight anyway). A tensor ``s`` (e.g. a learned per-head parameter) keeps its dtype and gradient;
    numbers are held in float64 until they meet the scores' dtype.
    """
    if isinstance(s, Tensor) and s.is_floating_point():
        st = s.flatten()
    else:
        st = torch.as_tensor(s, dtype=torch.float64).flatten()
    if isinstance(q_offset, bool) or not isinstance(q_offset, int) or q_offset < 0:
        raise ValueError(f"q_offset must be an int >= 0, got {q_offset!r}")
    if n_keys is not None and (isinstance(n_keys, bool) or not isinstance(n_keys, int) or n_keys < 1):
        raise ValueError(f"n_keys must be an int >= 1 or None, got {n_keys!r}")

    def mod(score: Tensor, b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        if causal_len:
            n = (q_idx + q_offset + 1).to(score.dtype)
        elif n_keys is not None:
            n = torch.tensor(float(n_keys), dtype=score.dtype, device=score.device)
        else:
            n = (kv_idx.amax() + 1).to(score.dtype)
        sh = st.to(score.device, score.dtype)
        sh = sh[h] if sh.numel() > 1 else sh[0]
        return score * sh * torch.log(n)

    return mod


# ------------------------------------------------------------------------------------ block-sparse executor


@dataclass(frozen=True)
class BlockStats:
    """Tile counts of a mask cut into ``block_size`` squares (edge tiles may be smaller)."""

    n_empty: int
    n_full: int
    n_partial: int
    block_size: int

    @property
    def n_tiles(self) -> int:
        return self.n_empty + self.n_full + self.n_partial

    def sparsity(self) -> float:
        """Percentage of empty tiles, as FlexAttention's ``BlockMask.sparsity()`` reports it."""
        return 100.0 * self.n_empty / self.n_tiles


def _tile_view(mask: Tensor, block_size: int) -> tuple[Tensor, Tensor]:
    """Per-tile (any, all) of a 2-D mask, padding ragged edges with False for any and True for all."""
    tq, tk = mask.shape
    nq, nk = math.ceil(tq / block_size), math.ceil(tk / block_size)
    pad_any = torch.zeros(nq * block_size, nk * block_size, dtype=torch.bool)
    pad_any[:tq, :tk] = mask
    pad_all = torch.ones_like(pad_any)
    pad_all[:tq, :tk] = mask
    shape = (nq, block_size, nk, block_size)
    return pad_any.view(shape).any(dim=(1, 3)), pad_all.view(shape).all(dim=(1, 3))


def _as_2d_mask(mask: Tensor | MaskMod, tq: int | None, tk: int | None) -> Tensor:
    if isinstance(mask, Tensor):
        if mask.ndim != 2 or mask.dtype != torch.bool:
            raise ValueError(
                f"mask must be a 2-D bool tensor or a mask_mod, got {mask.dtype} {tuple(mask.shape)}"
            )
        return mask.cpu()
    if tq is None or tk is None:
        raise ValueError("tq and tk are required when mask is a mask_mod")
    return dense_mask(mask, 1, 1, tq, tk)[0, 0].cpu()


def block_stats(
    mask: Tensor | MaskMod, tq: int | None = None, tk: int | None = None, *, block_size: int = 128
) -> BlockStats:
    """Empty / full / partial tile counts of a (tq, tk) mask (a bool matrix, or a mask_mod with the lengths)."""
    if not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be an int >= 1, got {block_size!r}")
    m = _as_2d_mask(mask, tq, tk)
    any_, all_ = _tile_view(m, block_size)
    n_full = int(all_.sum())
    n_empty = int((~any_).sum())
    return BlockStats(
        n_empty=n_empty, n_full=n_full, n_partial=int(any_.numel()) - n_full - n_empty, block_size=block_size
    )


@dataclass(frozen=True)
class BlockSparseResult:
    """Output of :func:`block_sparse_attention` with its cost: multiply-adds done vs a dense pass."""

    out: Tensor
    flops: int
    dense_flops: int
    stats: BlockStats


def block_sparse_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | MaskMod,
    *,
    block_size: int = 64,
    score_mod: ScoreMod | None = None,
    scale: float | None = None,
) -> BlockSparseResult:
    """Masked softmax attention that computes only the non-empty tiles of a mask shared by all batches and heads.

    For each block of ``block_size`` queries, the keys of every non-empty tile in that block row are gathered and
    attended to with the mask applied (partial tiles) or not (full tiles); empty tiles are never touched. The
    result equals :func:`attention` with the same mask. ``flops`` counts ``2 * (d + d_v)`` per (query, key) pair
    computed (scores and weighted sum); ``dense_flops`` is the same count for all Tq x Tk pairs.
    """
    _check_qkv(q, k, v)
    if not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be an int >= 1, got {block_size!r}")
    b, h, tq, d = q.shape
    tk, dv = k.shape[2], v.shape[-1]
    m = _as_2d_mask(mask, tq, tk).to(q.device)
    if m.shape != (tq, tk):
        raise ValueError(f"mask must have shape ({tq}, {tk}), got {tuple(m.shape)}")
    scale = d**-0.5 if scale is None else float(scale)
    any_, all_ = _tile_view(m.cpu(), block_size)  # one tile plan serves the loop and the returned stats
    out = q.new_zeros(b, h, tq, dv)
    pairs = 0
    bi, hi = _indices(b, h, 1, 1, q.device)[:2]
    for qb in range(any_.shape[0]):
        kblocks = any_[qb].nonzero().flatten().tolist()
        if not kblocks:
            continue
        q0, q1 = qb * block_size, min(tq, (qb + 1) * block_size)
        keys = torch.cat(
            [torch.arange(kb * block_size, min(tk, (kb + 1) * block_size)) for kb in kblocks]
        ).to(q.device)
        scores = torch.matmul(q[:, :, q0:q1], k[:, :, keys].transpose(-1, -2)) * scale
        if score_mod is not None:
            qi = torch.arange(q0, q1, device=q.device).view(1, 1, -1, 1)
            scores = score_mod(scores, bi, hi, qi, keys.view(1, 1, 1, -1))
        keep = m[q0:q1][:, keys]
        scores = scores.masked_fill(~keep, float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        out[:, :, q0:q1] = torch.matmul(weights, v[:, :, keys])
        pairs += (q1 - q0) * keys.numel()
    per_pair = 2 * (d + dv) * b * h
    n_full, n_empty = int(all_.sum()), int((~any_).sum())
    stats = BlockStats(n_empty, n_full, int(any_.numel()) - n_full - n_empty, block_size)
    return BlockSparseResult(out=out, flops=pairs * per_pair, dense_flops=tq * tk * per_pair, stats=stats)
