"""One softmax-attention primitive with FlexAttention-style ``score_mod`` / ``mask_mod``, and a block-sparse executor.

Position-aware attention variants differ only in how a score is modified (an additive bias such as ALiBi or a
generalized-Gaussian prior, a log-n temperature as in SSMax) and which key positions a query may see (causal,
sliding window, a Hilbert-curve window, block masks). PyTorch's FlexAttention expresses both as small functions:

* ``score_mod(score, b, h, q_idx, kv_idx) -> score``
* ``mask_mod(b, h, q_idx, kv_idx) -> bool``

:func:`attention` takes the same two functions and dispatches (``backend="auto"``) to the kernel a user would pick:

* no mods and no bias: ``torch.nn.functional.scaled_dot_product_attention`` (``is_causal`` for :func:`causal`);
* a mask and/or an additive bias (a ``bias`` tensor, or a score mod built by :func:`alibi` / :func:`additive_bias`):
  SDPA with the mask materialised as a bool tensor, or with one float mask holding the bias and ``-inf``;
* any other ``score_mod`` (e.g. :func:`log_n_scaling`), or ``return_weights``: the dense reference below;
* on CUDA tensors, a ``mask_mod`` or a non-additive ``score_mod`` without a bias goes to FlexAttention.

``backend="dense"`` is the readable reference every fast path is tested against: it evaluates the mods once on
broadcast index tensors ``b`` (B,1,1,1), ``h`` (1,H,1,1), ``q_idx`` (1,1,Tq,1), ``kv_idx`` (1,1,1,Tk) and runs
masked softmax attention. ``backend="sdpa"`` forces the SDPA path (an error for mods it cannot express);
``backend="flex"`` calls :func:`torch.nn.attention.flex_attention.flex_attention` compiled with ``torch.compile``
(once per shape, by torch; the ``BlockMask`` is cached per mask mod and shape), ``"flex_eager"`` the same without
compiling (slow, for tests). A mod written once works on every path. Write mods with elementwise torch operations
and indexing of captured tensors (``slopes[h]``); Python ``if`` on their arguments works on none of them.

:func:`block_sparse_attention` runs a sparse mask shared by all batches and heads: it tiles the (query, key) plane
into ``block_size`` squares, skips empty tiles, computes only the keys of the non-empty ones (masking the partial
tiles) and counts the multiply-adds it needed. Its ``method="gather"`` (default) groups the query blocks by their
number of non-empty tiles and runs one batched SDPA per group over the gathered keys; ``"loop"`` is the readable
reference (one query block at a time); ``"flex"`` is compiled FlexAttention with the equivalent ``BlockMask``.
:func:`block_plan` precomputes the tiling for a fixed mask; :func:`block_stats` gives the empty/full/partial
tile counts that FlexAttention's ``create_block_mask(...).sparsity()`` reports.

Fully masked query rows return zeros on every path, as FlexAttention does.

Example
-------
>>> import torch
>>> q = k = v = torch.randn(1, 2, 8, 4)
>>> out = attention(q, k, v, score_mod=alibi([0.5, 0.25]), mask_mod=causal)
>>> ref = attention(q, k, v, mask_mod=causal, bias=alibi_bias([0.5, 0.25], 8, 8), backend="dense")
>>> bool(torch.allclose(out, ref, atol=1e-6))
True
>>> stats = block_stats(sliding_window(4), 16, 16, block_size=4)
>>> stats.n_empty, stats.n_full, stats.n_partial
(9, 0, 7)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_float, check_int, check_tensor

__all__ = [
    "BlockPlan",
    "BlockSparseResult",
    "BlockStats",
    "MaskMod",
    "ScoreMod",
    "additive_bias",
    "alibi",
    "alibi_bias",
    "and_masks",
    "attention",
    "block_plan",
    "block_sparse_attention",
    "masked_softmax",
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


BACKENDS = ("auto", "dense", "sdpa", "flex", "flex_eager")


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
    bias : an additive score bias broadcastable to (B, H, Tq, Tk), applied before ``score_mod`` (dense and SDPA).
    scale : score scale, ``1 / sqrt(d)`` by default.
    backend : ``"auto"`` (SDPA where the mods allow it, see the module docstring), ``"dense"`` (the reference),
        ``"sdpa"``, ``"flex"`` (compiled flex_attention) or ``"flex_eager"``.
    return_weights : also return the (B, H, Tq, Tk) attention weights (dense only).
    """
    _check_qkv(q, k, v)
    check_choice("backend", backend, BACKENDS)
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
    additive = score_mod is None or bool(getattr(score_mod, "additive", False))
    if backend == "auto":
        if return_weights:
            backend = "dense"
        elif q.is_cuda and bias is None and (mask_mod is not None or not additive):
            backend = "flex"
        else:
            backend = "sdpa" if additive else "dense"
    if backend in ("flex", "flex_eager"):
        if return_weights or bias is not None:
            raise ValueError(
                f"backend={backend!r} supports neither return_weights nor a bias tensor; use score_mod"
            )
        return _flex(q, k, v, score_mod, mask_mod, scale, compiled=backend == "flex")
    if backend == "sdpa":
        if return_weights or not additive:
            raise ValueError(
                "backend='sdpa' takes a mask_mod, a bias and additive score mods (alibi, additive_bias) only, "
                "and no return_weights; use backend='dense' (or 'auto') for other score mods"
            )
        return _sdpa(q, k, v, score_mod, mask_mod, bias, scale)
    return _dense(q, k, v, score_mod, mask_mod, bias, scale, return_weights)


def _mask_of(mask_mod: MaskMod, idx: tuple[Tensor, ...], shape: tuple[int, int, int, int]) -> Tensor:
    keep = torch.as_tensor(mask_mod(*idx), device=idx[0].device).bool()
    try:
        torch.broadcast_shapes(keep.shape, shape)
        if torch.broadcast_shapes(keep.shape, shape) != shape:
            raise RuntimeError
    except RuntimeError:
        raise ValueError(
            f"mask_mod must return a mask broadcastable to {shape}, got {tuple(keep.shape)}"
        ) from None
    return keep


def masked_softmax(scores: Tensor, keep: Tensor | None = None) -> Tensor:
    """Softmax over the last axis of ``scores`` (already -inf where ``keep`` is False), with the rows that keep no
    key set to zeros. Unlike zeroing every NaN, a NaN or infinite score of a row that does keep a key stays
    non-finite, so a bad input shows in the output instead of vanishing. ``keep`` broadcasts to ``scores``
    (None: every key kept)."""
    check_tensor("scores", scores, floating=True)
    weights = torch.softmax(scores, dim=-1)
    if keep is None:
        return weights
    check_tensor("keep", keep)
    if keep.dtype != torch.bool:
        raise TypeError(f"keep must be a bool tensor, got {keep.dtype}")
    try:
        fits = torch.broadcast_shapes(keep.shape, scores.shape) == scores.shape
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"keep must broadcast to the scores' shape {tuple(scores.shape)}, got {tuple(keep.shape)}"
        )
    return weights.masked_fill(~keep.any(dim=-1, keepdim=True), 0.0)


def _dense(q, k, v, score_mod, mask_mod, bias, scale, return_weights):
    """The reference: explicit scores, mods on broadcast indices, masked softmax (fully masked rows -> 0)."""
    b, h, tq, _ = q.shape
    tk = k.shape[2]
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if bias is not None:
        scores = scores + bias
    idx = _indices(b, h, tq, tk, q.device)
    if score_mod is not None:
        scores = score_mod(scores, *idx).expand(b, h, tq, tk)
    if mask_mod is not None:
        keep = _mask_of(mask_mod, idx, (b, h, tq, tk)).expand(b, h, tq, tk)
        scores = scores.masked_fill(~keep, float("-inf"))
    weights = masked_softmax(scores, keep if mask_mod is not None else None)  # fully masked rows -> zeros
    out = torch.matmul(weights, v)
    return (out, weights) if return_weights else out


def _sdpa(q, k, v, score_mod, mask_mod, bias, scale):
    """SDPA with the mask materialised (bool), or one float mask = bias + additive mod, -inf where masked."""
    b, h, tq, _ = q.shape
    tk = k.shape[2]
    sdpa = torch.nn.functional.scaled_dot_product_attention
    if mask_mod is causal and score_mod is None and bias is None:
        return sdpa(q, k, v, is_causal=True, scale=scale)  # top-left aligned, as causal() is
    idx = _indices(b, h, tq, tk, q.device)
    keep = None if mask_mod is None else _mask_of(mask_mod, idx, (b, h, tq, tk))
    attn = None
    if bias is not None:
        attn = bias.to(q.dtype)
    if score_mod is not None:
        zero = torch.zeros((), dtype=q.dtype, device=q.device) if attn is None else attn
        attn = score_mod(zero, *idx)
    if attn is not None and keep is not None:
        attn = attn.masked_fill(~keep, float("-inf"))
    elif keep is not None:
        attn = keep
    out = sdpa(q, k, v, attn_mask=attn, scale=scale)
    if keep is not None:
        row_any = keep.any(dim=-1, keepdim=True)
        if not bool(row_any.all()):
            out = out.masked_fill(~row_any, 0.0)  # fully masked rows -> zeros, whatever the kernel does
    return out


_BLOCK_MASKS: dict[tuple, tuple[object, object]] = {}
_COMPILED: dict[str, Callable] = {}


def _flex_fn(compiled: bool) -> Callable:
    from torch.nn.attention.flex_attention import flex_attention

    if not compiled:
        return flex_attention
    if "flex" not in _COMPILED:
        _COMPILED["flex"] = torch.compile(flex_attention, dynamic=False)
    return _COMPILED["flex"]


def _block_mask_for(mask_mod: MaskMod, tq: int, tk: int, device: torch.device, block_size: int = 128):
    """``create_block_mask`` once per (mask mod, lengths, device, block size); the 32 most recent are kept."""
    from torch.nn.attention.flex_attention import create_block_mask

    key = (id(mask_mod), tq, tk, str(device), block_size)
    hit = _BLOCK_MASKS.get(key)
    if hit is not None and hit[0] is mask_mod:
        return hit[1]
    bm = create_block_mask(mask_mod, None, None, tq, tk, device=device, BLOCK_SIZE=block_size)
    if len(_BLOCK_MASKS) >= 32:
        _BLOCK_MASKS.pop(next(iter(_BLOCK_MASKS)))
    _BLOCK_MASKS[key] = (mask_mod, bm)  # holds the mod, so its id is not reused while cached
    return bm


def _flex(
    q: Tensor, k: Tensor, v: Tensor, score_mod, mask_mod, scale: float, compiled: bool = True
) -> Tensor:
    block_mask = None
    if mask_mod is not None:
        block_mask = _block_mask_for(mask_mod, q.shape[2], k.shape[2], q.device)
    return _flex_fn(compiled)(q, k, v, score_mod=score_mod, block_mask=block_mask, scale=scale)


# ---------------------------------------------------------------------------------------------- mask mods


def causal(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
    """Keys at or before the query."""
    return q_idx >= kv_idx


def sliding_window(window: int, causal_only: bool = True) -> MaskMod:
    """Keys within ``window`` positions of the query (``q - window < kv <= q`` when ``causal_only``)."""
    check_int("window", window, low=1)

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

    mod.additive = True  # type: ignore[attr-defined] - attention() may run it as an SDPA float mask
    return mod


def _slopes(slopes: Sequence[float] | Tensor, name: str = "slopes") -> Tensor:
    s = _per_head(slopes, name, scalar=True).to(torch.float32).flatten()  # a number: one slope, one head
    if s.numel() < 1:
        raise ValueError("slopes must hold one value per head")
    if not bool(torch.isfinite(s).all()):
        raise ValueError(f"slopes must be finite, got {s.tolist()}")
    return s


def _per_head(values: Any, name: str, scalar: bool = False) -> Tensor:
    """One real value per head: a 1-D floating tensor (0-D too when `scalar`) kept as given, or numbers (float64)."""
    if isinstance(values, Tensor):
        check_tensor(name, values, ndim=(0, 1) if scalar else 1, floating=True)
        return values
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(
            f"{name} must be a number per head (a sequence or a 1-D tensor), got {type(values).__name__}"
        )
    try:
        out = torch.as_tensor(values, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(
            f"{name} must be a number per head (a sequence or a 1-D tensor), got {values!r}"
        ) from error
    if out.ndim > 1 or (out.ndim == 0 and not scalar):
        raise ValueError(f"{name} must hold one number per head, got shape {tuple(out.shape)}")
    return out


def alibi(slopes: Sequence[float] | Tensor) -> ScoreMod:
    """ALiBi (Press et al., 2022): ``score - m_h |q - kv|`` with one slope ``m_h`` per head.

    The number of slopes must equal the number of heads of the scores it is applied to (checked at use)."""
    s = _slopes(slopes)

    def mod(score: Tensor, b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return score - s.to(score.device, score.dtype)[h] * (q_idx - kv_idx).abs()

    mod.n_heads = s.numel()  # type: ignore[attr-defined] - checked by attention()
    mod.additive = True  # type: ignore[attr-defined] - attention() may run it as an SDPA float mask

    return mod


def alibi_bias(slopes: Sequence[float] | Tensor, tq: int, tk: int) -> Tensor:
    """The ALiBi bias as a dense (1, H, tq, tk) tensor (reference for :func:`alibi`)."""
    s = _slopes(slopes)
    dist = (torch.arange(tq)[:, None] - torch.arange(tk)[None, :]).abs().float()
    return -(s[:, None, None] * dist)[None]


def log_n_scaling(
    s: float | Sequence[float] | Tensor,
    causal_len: bool = True,
    q_offset: int = 0,
    n_keys: int | None = None,
    *,
    name: str = "s",
) -> ScoreMod:
    """SSMax-style length scaling: multiply each score by ``s_h * log(n)``.

    ``n`` is the number of keys the query can see: ``q_offset + q_idx + 1`` for causal attention
    (``causal_len``; ``q_offset`` is the absolute position of the first query, for chunked or KV-cached queries),
    else ``n_keys`` (default: the key length of the call). With ``n = 1`` the row's scores become 0 (a single key
    gets all the weight anyway). A tensor ``s`` (e.g. a learned per-head parameter) keeps its dtype and gradient;
    numbers are held in float64 until they meet the scores' dtype. ``name`` is the argument's name in errors (a
    caller's own name for ``s``).
    """
    st = _per_head(s, name, scalar=True)
    if not st.requires_grad and not bool(torch.isfinite(st).all()):  # a learned s is the optimizer's to check
        raise ValueError(f"{name} must be finite, got {st.tolist()}")
    st = st.flatten()
    check_int("q_offset", q_offset, low=0)
    if n_keys is not None:
        check_int("n_keys (or None)", n_keys, low=1)

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
    if not callable(mask):
        raise TypeError(
            f"mask must be a 2-D bool tensor or a mask_mod (a callable), got {type(mask).__name__}"
        )
    if tq is None or tk is None:
        raise ValueError("tq and tk are required when mask is a mask_mod")
    return dense_mask(mask, 1, 1, tq, tk)[0, 0].cpu()


def block_stats(
    mask: Tensor | MaskMod, tq: int | None = None, tk: int | None = None, *, block_size: int = 128
) -> BlockStats:
    """Empty / full / partial tile counts of a (tq, tk) mask (a bool matrix, or a mask_mod with the lengths)."""
    check_int("block_size", block_size, low=1)
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


@dataclass(frozen=True)
class _Bucket:
    """Query blocks that share a number ``c`` of non-empty tiles, with the key blocks of those tiles."""

    qb: Tensor  # (n,) query blocks
    kb: Tensor  # (n, c) their non-empty key blocks, ascending
    keep: Tensor | None  # (n, block, c * block) mask (padding False), None when every gathered pair is kept
    row_any: Tensor | None  # (n, block, 1) rows with a kept key, None when all have one
    all_q: bool  # qb is every query block, in order
    diagonal: bool  # c == 1 and kb == qb (each query block sees only its own key block)


@dataclass(frozen=True)
class BlockPlan:
    """The tiling of a fixed (Tq, Tk) bool mask for :func:`block_sparse_attention` (build it with :func:`block_plan`).

    ``pairs`` counts the (query, key) pairs of the non-empty tiles, the work the executor needs.
    """

    mask: Tensor
    block_size: int
    stats: BlockStats
    pairs: int
    buckets: tuple[_Bucket, ...]
    cache: dict = field(default_factory=dict, repr=False, compare=False)  # the BlockMask of method="flex"

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.mask.shape)  # type: ignore[return-value]


def block_plan(
    mask: Tensor | MaskMod, tq: int | None = None, tk: int | None = None, *, block_size: int = 64
) -> BlockPlan:
    """Precompute the tiles of a mask (a (Tq, Tk) bool matrix, or a mask_mod with the lengths) for reuse."""
    check_int("block_size", block_size, low=1)
    m = _as_2d_mask(mask, tq, tk)
    tq, tk = m.shape
    any_, all_ = _tile_view(m, block_size)
    n_full, n_empty = int(all_.sum()), int((~any_).sum())
    stats = BlockStats(n_empty, n_full, int(any_.numel()) - n_full - n_empty, block_size)
    counts = any_.sum(dim=1)
    offs = torch.arange(block_size)
    nq, nk = any_.shape
    buckets, pairs = [], 0
    for c in sorted(set(counts.tolist()) - {0}):
        qb = (counts == c).nonzero().flatten()
        kb = any_[qb].nonzero()[:, 1].view(-1, c)  # row-major: ascending key blocks per query block
        rows = qb[:, None] * block_size + offs
        keys = (kb[:, :, None] * block_size + offs).flatten(1)
        rows_valid, keys_valid = rows < tq, keys < tk
        keep = m[rows.clamp(max=tq - 1)[:, :, None], keys.clamp(max=tk - 1)[:, None, :]]
        keep &= keys_valid[:, None, :] & rows_valid[:, :, None]
        pairs += int((rows_valid.sum(1) * keys_valid.sum(1)).sum())
        row_any = keep.any(dim=-1, keepdim=True) | ~rows_valid[:, :, None]  # padded rows are dropped anyway
        all_q = qb.numel() == nq
        buckets.append(
            _Bucket(
                qb=qb,
                kb=kb,
                keep=None if bool(keep.all()) else keep,
                row_any=None if bool(row_any.all()) else row_any,
                all_q=all_q,
                diagonal=c == 1 and nq == nk and all_q and bool((kb[:, 0] == qb).all()),
            )
        )
    return BlockPlan(mask=m, block_size=block_size, stats=stats, pairs=pairs, buckets=tuple(buckets))


def block_sparse_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | MaskMod | BlockPlan,
    *,
    block_size: int | None = None,
    score_mod: ScoreMod | None = None,
    scale: float | None = None,
    method: str = "gather",
) -> BlockSparseResult:
    """Masked softmax attention that computes only the non-empty tiles of a mask shared by all batches and heads.

    ``mask`` is a (Tq, Tk) bool matrix, a mask_mod, or a :func:`block_plan` (reused across calls; its block size
    wins). ``block_size`` defaults to 64. Methods (all equal :func:`attention` with the same mask):

    * ``"gather"``: the query blocks with the same number of non-empty tiles form one batch; their keys are
      gathered and one SDPA call per batch attends to them (the partial tiles masked, full ones not). With a
      ``score_mod`` the batch is computed explicitly (scores, mod, masked softmax) instead of by SDPA.
    * ``"loop"``: the reference, one query block at a time.
    * ``"flex"``: compiled FlexAttention with the ``BlockMask`` of the same mask and block size (the first call
      per shape compiles, about 25 s on a CPU; the ``BlockMask`` is kept in the plan).

    ``flops`` counts ``2 * (d + d_v)`` per (query, key) pair of the non-empty tiles (the same for every method);
    ``dense_flops`` is the same count for all Tq x Tk pairs.
    """
    _check_qkv(q, k, v)
    check_choice("method", method, ("gather", "loop", "flex"))
    b, h, tq, d = q.shape
    tk, dv = k.shape[2], v.shape[-1]
    if isinstance(mask, BlockPlan):
        plan = mask
        if block_size is not None and block_size != plan.block_size:
            raise ValueError(f"block_size {block_size} differs from the plan's {plan.block_size}")
    else:
        plan = block_plan(mask, tq, tk, block_size=64 if block_size is None else block_size)
    if plan.shape != (tq, tk):
        raise ValueError(f"mask must have shape ({tq}, {tk}), got {plan.shape}")
    scale = d**-0.5 if scale is None else check_float("scale", scale, 0.0, low_open=True)
    if method == "loop":
        out = _block_loop(q, k, v, plan, score_mod, scale)
    elif method == "flex":
        out = _block_flex(q, k, v, plan, score_mod, scale)
    else:
        out = _block_gather(q, k, v, plan, score_mod, scale)
    per_pair = 2 * (d + dv) * b * h
    return BlockSparseResult(
        out=out, flops=plan.pairs * per_pair, dense_flops=tq * tk * per_pair, stats=plan.stats
    )


def _block_loop(q: Tensor, k: Tensor, v: Tensor, plan: BlockPlan, score_mod, scale: float) -> Tensor:
    """The reference executor: per query block, gather the keys of its non-empty tiles and attend to them."""
    b, h, tq, _ = q.shape
    tk, bs = k.shape[2], plan.block_size
    m = plan.mask.to(q.device)
    any_, _ = _tile_view(plan.mask, bs)
    out = q.new_zeros(b, h, tq, v.shape[-1])
    bi, hi = _indices(b, h, 1, 1, q.device)[:2]
    for qb in range(any_.shape[0]):
        kblocks = any_[qb].nonzero().flatten().tolist()
        if not kblocks:
            continue
        q0, q1 = qb * bs, min(tq, (qb + 1) * bs)
        keys = torch.cat([torch.arange(kb * bs, min(tk, (kb + 1) * bs)) for kb in kblocks]).to(q.device)
        scores = torch.matmul(q[:, :, q0:q1], k[:, :, keys].transpose(-1, -2)) * scale
        if score_mod is not None:
            qi = torch.arange(q0, q1, device=q.device).view(1, 1, -1, 1)
            scores = score_mod(scores, bi, hi, qi, keys.view(1, 1, 1, -1))
        keep = m[q0:q1][:, keys]
        scores = scores.masked_fill(~keep, float("-inf"))
        weights = masked_softmax(scores, keep)
        out[:, :, q0:q1] = torch.matmul(weights, v[:, :, keys])
    return out


def _blocks(t: Tensor, bs: int) -> Tensor:
    """(B, H, T, d) -> (B, H, ceil(T / bs), bs, d), zero-padding a ragged last block."""
    pad = -t.shape[2] % bs
    if pad:
        t = torch.nn.functional.pad(t, (0, 0, 0, pad))
    return t.view(t.shape[0], t.shape[1], -1, bs, t.shape[-1])


def _block_gather(q: Tensor, k: Tensor, v: Tensor, plan: BlockPlan, score_mod, scale: float) -> Tensor:
    """One batched attention per bucket of query blocks over their gathered key blocks (SDPA without a mod)."""
    b, h, tq, d = q.shape
    tk, dv, dev, bs = k.shape[2], v.shape[-1], q.device, plan.block_size
    qs, ks, vs = _blocks(q, bs), _blocks(k, bs), _blocks(v, bs)
    nq = qs.shape[2]
    if len(plan.buckets) == 1 and plan.buckets[0].all_q:
        out = None  # the one bucket writes every query block, in order
    else:
        out = q.new_zeros(b, h, nq, bs, dv)
    for i, bk in enumerate(plan.buckets):
        n, c = bk.kb.shape
        qb, kb = bk.qb.to(dev), bk.kb.to(dev).flatten()
        qg = qs if bk.all_q else qs[:, :, qb]
        if bk.diagonal:
            kg, vg = ks, vs
        else:
            kg, vg = ks[:, :, kb], vs[:, :, kb]
        if score_mod is None:
            # (B, H * n, block, d): SDPA's CPU kernel is fastest on 4-D inputs with a contiguous float mask
            attn = None if bk.keep is None else _float_keep(plan, i, h, q.dtype, dev)
            og = torch.nn.functional.scaled_dot_product_attention(
                qg.reshape(b, h * n, bs, d),
                kg.reshape(b, h * n, c * bs, d),
                vg.reshape(b, h * n, c * bs, dv),
                attn_mask=attn,
                scale=scale,
            ).view(b, h, n, bs, dv)
        else:
            scores = torch.matmul(qg, kg.reshape(b, h, n, c * bs, d).transpose(-1, -2)) * scale
            offs = torch.arange(bs, device=dev)
            idx = (
                torch.arange(b, device=dev).view(b, 1, 1, 1, 1),
                torch.arange(h, device=dev).view(1, h, 1, 1, 1),
                (qb[:, None] * bs + offs).clamp(max=tq - 1).view(1, 1, n, bs, 1),
                (kb.view(n, c, 1) * bs + offs).clamp(max=tk - 1).view(1, 1, n, 1, c * bs),
            )
            scores = score_mod(scores, *idx)
            keep = None if bk.keep is None else bk.keep.to(dev)
            if keep is not None:
                scores = scores.masked_fill(~keep, float("-inf"))
            weights = masked_softmax(scores, keep)
            og = torch.matmul(weights, vg.reshape(b, h, n, c * bs, dv))
        if bk.row_any is not None:
            og = og.masked_fill(~bk.row_any.to(dev), 0.0)  # fully masked rows -> zeros
        if out is None:
            out = og
        else:
            out[:, :, qb] = og
    return out.reshape(b, h, nq * bs, dv)[:, :, :tq]


def _float_keep(plan: BlockPlan, i: int, heads: int, dtype: torch.dtype, device: torch.device) -> Tensor:
    """Bucket ``i``'s mask as a contiguous (1, heads * n, block, keys) float mask (0 / -inf), cached in the plan."""
    key = ("float_keep", i, heads, dtype, str(device))
    if key not in plan.cache:
        keep = plan.buckets[i].keep.to(device)
        n, bs, nk = keep.shape
        fm = torch.zeros(keep.shape, dtype=dtype, device=device).masked_fill(~keep, float("-inf"))
        plan.cache[key] = fm.expand(heads, n, bs, nk).reshape(1, heads * n, bs, nk)
    return plan.cache[key]


def _block_flex(q: Tensor, k: Tensor, v: Tensor, plan: BlockPlan, score_mod, scale: float) -> Tensor:
    """Compiled FlexAttention with the plan's mask as a ``BlockMask`` of the plan's block size."""
    from torch.nn.attention.flex_attention import create_block_mask

    key = ("block_mask", str(q.device))
    if key not in plan.cache:
        tq, tk = plan.shape
        plan.cache[key] = create_block_mask(
            from_dense(plan.mask.to(q.device)),
            None,
            None,
            tq,
            tk,
            device=q.device,
            BLOCK_SIZE=plan.block_size,
        )
    return _flex_fn(True)(q, k, v, score_mod=score_mod, block_mask=plan.cache[key], scale=scale)
