"""Attention with an additive positional bias and optional Scalable-Softmax (SSMax), computed in query chunks.

BAM (arXiv 2505.22842) with SSMax scores, per head ``h`` and query ``i`` seeing ``n_i`` keys:

    score_ij = s_h * log(n_i) * (q_i . k_j / sqrt(d) + g_h(j - i))        (``ssmax_on_prior=True``, the default)
    score_ij = s_h * log(n_i) * q_i . k_j / sqrt(d) + g_h(j - i)          (``ssmax_on_prior=False``, an older form)
    out_i = sum_j softmax_j(score_ij) v_j                                  (causal: j <= i, so n_i = i + 1)

Without SSMax the score is ``q_i . k_j / sqrt(d) + g_h(j - i)``. The softmax itself is
:func:`iclr26.lab.flex.attention`; this module passes every chunk of queries its absolute offset (the lab's plain
``causal`` mod counts positions from the chunk start), so a long sequence is processed in (chunk x T) blocks and
never holds the (T x T) score or bias matrix.

Example
-------
>>> import torch
>>> q = k = v = torch.randn(1, 2, 6, 4, generator=torch.Generator().manual_seed(0))
>>> full = bias_attention(q, k, v, None, ssmax_scale=1.0)
>>> chunked = bias_attention(q, k, v, None, ssmax_scale=1.0, chunk_size=4)
>>> bool(torch.allclose(full, chunked, atol=1e-6))
True
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.flex import ScoreMod, attention, log_n_scaling

__all__ = ["BiasFn", "bias_attention", "ssmax_mod"]

BiasFn = Callable[[Tensor, Tensor], Tensor]


def ssmax_mod(
    scale: Tensor,
    q_offset: int = 0,
    causal: bool = True,
    n_keys: int | None = None,
    bias: Tensor | None = None,
) -> ScoreMod:
    """Score mod ``score * s_h * log(n)`` (plus ``bias[b, h, q, k]`` after the scaling when ``bias`` is given).

    ``n = q_idx + q_offset + 1`` (causal) or ``n_keys`` (bidirectional): the lab's
    :func:`~iclr26.lab.flex.log_n_scaling` with the prior added after it, so SSMax scales content only when the
    prior comes as a block. ``scale`` holds one value or one per head and keeps its dtype and gradient.
    """
    if not causal and n_keys is None:
        raise ValueError("n_keys is required for bidirectional SSMax")
    check_int("q_offset", q_offset, low=0)
    if not causal:
        check_int("n_keys", n_keys, low=1)
    scaled = log_n_scaling(
        scale, causal_len=causal, q_offset=q_offset, n_keys=None if causal else n_keys, name="scale"
    )
    if bias is None:
        return scaled

    def mod(score: Tensor, b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return scaled(score, b, h, q_idx, kv_idx) + bias[b, h, q_idx, kv_idx]

    return mod


def _check_bias_block(bias: Tensor, b: int, h: int, tq: int, tk: int) -> Tensor:
    if bias.ndim == 3:
        bias = bias[None]
    if bias.ndim != 4:
        raise ValueError(
            f"bias must be (heads, Tq, Tk) or (batch, heads, Tq, Tk), got shape {tuple(bias.shape)}"
        )
    if bias.shape[1] not in (1, h):
        raise ValueError(f"bias has {bias.shape[1]} heads but q has n_heads={h} (n_heads mismatch)")
    if bias.shape[0] not in (1, b) or bias.shape[2] not in (1, tq) or bias.shape[3] not in (1, tk):
        raise ValueError(
            f"bias shape {tuple(bias.shape)} does not broadcast to (B, H, Tq, Tk) = {(b, h, tq, tk)}"
        )
    return bias.expand(b, h, tq, tk)


def bias_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    bias: Tensor | BiasFn | None = None,
    ssmax_scale: float | Tensor | None = None,
    ssmax_on_prior: bool = True,
    *,
    causal: bool = True,
    chunk_size: int | None = None,
    backend: str = "auto",
) -> Tensor:
    """Softmax attention over (batch, heads, seq, dim) with an additive bias and optional SSMax.

    Parameters
    ----------
    q, k, v : (B, H, Tq, d), (B, H, Tk, d), (B, H, Tk, d_v); the queries are the last Tq of the Tk positions.
    bias : ``None``; a tensor broadcastable to (B, H, Tq, Tk) (a (H, Tq, Tk) one too); or a function
        ``bias(q_pos, k_pos) -> (1, H, tq, tk)`` of integer positions (e.g. a :class:`GGDPrior`), which is
        evaluated one query chunk at a time.
    ssmax_scale : ``None`` (plain softmax) or ``s`` (a float, or one value per head) for SSMax's ``s log n``.
    ssmax_on_prior : multiply the bias by ``s log n`` too (current official code) or add it after.
    causal : mask keys after each query (then ``n_i = i + 1``; else ``n = Tk`` for every query).
    chunk_size : process queries in blocks of this many (keys beyond the block are skipped when causal).
    backend : passed to :func:`iclr26.lab.flex.attention`.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, Tensor) or t.ndim != 4:
            raise ValueError(
                f"{name} must be a (batch, heads, seq, dim) tensor, got {getattr(t, 'shape', t)}"
            )
        check_tensor(name, t, floating=True)
    bsz, heads, tq, _ = q.shape
    tk = k.shape[2]
    if k.shape[:2] != (bsz, heads) or k.shape[3] != q.shape[3]:
        raise ValueError(
            f"k must be (batch, heads, Tk, dim) = ({bsz}, {heads}, Tk, {q.shape[3]}) like q, got {tuple(k.shape)}"
        )
    if v.shape[:3] != k.shape[:3]:
        raise ValueError(f"v must be ({bsz}, {heads}, Tk={tk}, d_v) like k, got {tuple(v.shape)}")
    if tq > tk:
        raise ValueError(f"q must not have more positions than k: Tq={tq} > Tk={tk}")
    if chunk_size is not None:
        check_int("chunk_size", chunk_size, low=1)
    if bias is not None and not isinstance(bias, Tensor) and not callable(bias):
        raise TypeError(f"bias must be a tensor, a function of positions, or None; got {type(bias).__name__}")
    scale = None
    if ssmax_scale is not None:
        if not isinstance(ssmax_scale, Tensor):  # else a tensor of per-head values
            check_float("ssmax_scale", ssmax_scale, type_error=True)
        scale = torch.as_tensor(ssmax_scale, device=q.device)
        if not scale.is_floating_point():
            scale = scale.to(q.dtype)
        scale = scale.flatten()
        if scale.numel() not in (1, heads):
            raise ValueError(f"ssmax_scale must hold 1 or n_heads={heads} values, got {scale.numel()}")
    if isinstance(bias, Tensor) and bool(torch.isnan(bias).any()):
        raise ValueError("bias must hold no NaN (-inf masks a key; NaN has no meaning)")
    dense_bias = _check_bias_block(bias, bsz, heads, tq, tk) if isinstance(bias, Tensor) else None
    offset = tk - tq
    step = tq if chunk_size is None else chunk_size
    outs = []
    for a in range(0, tq, step):
        e = min(tq, a + step)
        q0 = a + offset  # absolute position of the block's first query
        kend = e + offset if causal else tk
        qc, kc, vc = q[:, :, a:e], k[:, :, :kend], v[:, :, :kend]
        if dense_bias is not None:
            block = dense_bias[:, :, a:e, :kend]
        elif bias is not None:
            pos = torch.arange(q0, e + offset, device=q.device)
            block = _check_bias_block(bias(pos, torch.arange(kend, device=q.device)), bsz, heads, e - a, kend)
        else:
            block = None
        mask = (lambda b, h, qi, ki, q0=q0: qi + q0 >= ki) if causal else None
        if scale is None:
            out = attention(qc, kc, vc, bias=block, mask_mod=mask, backend=backend)
        elif ssmax_on_prior or block is None:
            mod = ssmax_mod(scale, q0, causal, tk)
            out = attention(qc, kc, vc, bias=block, score_mod=mod, mask_mod=mask, backend=backend)
        else:
            mod = ssmax_mod(scale, q0, causal, tk, bias=block)
            out = attention(qc, kc, vc, score_mod=mod, mask_mod=mask, backend=backend)
        outs.append(out)
    return outs[0] if len(outs) == 1 else torch.cat(outs, dim=2)
