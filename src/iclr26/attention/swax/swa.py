"""Sliding-window causal softmax attention with RoPE (the SWA layer of SWAX, arXiv 2509.24552).

Per head, with rotary position embeddings R_t (theta = 10000) on queries and keys:

    q_t = R_t W_q x_t,  k_j = R_j W_k x_j,  v_j = W_v x_j
    out_t = W_o sum_{j in (t - w, t]} softmax_j(q_t . k_j / sqrt(d_head)) v_j

The window ``w`` is an attribute that may change from one training step to the next (the stochastic window
sampler of :mod:`iclr26.attention.swax.sampler` sets it), or be passed per call. The attention itself is the
lab's :func:`iclr26.lab.flex.attention` with the ``sliding_window(w)`` mask mod: dense masked attention on the
CPU, ``flex_attention`` on CUDA. :meth:`SlidingWindowAttention.step` decodes one token with a key/value cache
holding the last ``w`` positions.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.flex import attention, sliding_window
from iclr26.lab.transformer import check_sequence_input

__all__ = ["SlidingWindowAttention", "apply_rope", "check_window"]


def check_window(window: object, name: str = "window") -> int:
    """Return ``window`` as an int >= 1, or raise ValueError naming the problem."""
    return check_int(name, window, low=1)


def apply_rope(x: Tensor, positions: Tensor, theta: float = 10000.0) -> Tensor:
    """Rotate (..., T, d) features by their positions (T,) with rotary embeddings (half-split pairing).

    Feature pairs ``(x[i], x[i + d/2])`` are rotated by the angle ``pos * theta^(-2i/d)``, so the dot product of
    a rotated query at position ``t`` and a rotated key at ``j`` depends on ``t - j`` only.
    """
    check_tensor("x", x, floating=True)
    if x.ndim < 2:
        raise ValueError(f"x must be (..., T, d) features, got shape {tuple(x.shape)}")
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"RoPE needs an even head dimension, got d_head={d}")
    check_tensor("positions", positions, shape=(x.shape[-2],), floating=False)
    check_float("theta", theta, low=0.0, low_open=True)
    half = d // 2
    inv_freq = theta ** (-torch.arange(half, device=x.device, dtype=x.dtype) * 2.0 / d)
    ang = positions.to(x.dtype)[:, None] * inv_freq[None, :]  # (T, d/2)
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class SlidingWindowAttention(nn.Module):
    """Causal multi-head softmax attention restricted to the last ``window`` positions, with RoPE.

    Parameters
    ----------
    d_model : residual width; must be divisible by ``n_heads``.
    n_heads : number of heads.
    window : keys ``j`` with ``t - window < j <= t`` are visible to query ``t`` (settable attribute).
    rope_theta : RoPE base (10000 as in the paper); ``None`` disables RoPE.
    qkv_bias : learn biases on the query/key/value projections.
    backend : passed to :func:`iclr26.lab.flex.attention` (``"auto"``: flex_attention on CUDA, dense on CPU).

    Examples
    --------
    >>> import torch
    >>> swa = SlidingWindowAttention(d_model=8, n_heads=2, window=3)
    >>> swa(torch.randn(2, 5, 8)).shape
    torch.Size([2, 5, 8])
    >>> swa(torch.randn(2, 5, 8), window=1).shape
    torch.Size([2, 5, 8])
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        window: int,
        rope_theta: float | None = 10000.0,
        qkv_bias: bool = True,
        backend: str = "auto",
    ) -> None:
        super().__init__()
        check_int("d_model", d_model, low=1)
        check_int("n_heads", n_heads, low=1)
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        self.d_model, self.n_heads, self.d_head = d_model, n_heads, d_model // n_heads
        if rope_theta is not None:
            check_float("rope_theta", rope_theta, low=0.0, low_open=True)
            if self.d_head % 2:
                raise ValueError(f"RoPE needs an even head dimension, got d_head={self.d_head}")
        if backend not in ("auto", "dense", "flex"):
            raise ValueError(f"backend must be 'auto', 'dense' or 'flex', got {backend!r}")
        self.window = check_window(window)
        self.rope_theta, self.backend = rope_theta, backend
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=qkv_bias)
        self.out = nn.Linear(d_model, d_model, bias=False)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Weights ~ N(0, 1/fan_in), biases zero."""
        with torch.no_grad():
            for lin in (self.qkv, self.out):
                lin.weight.normal_(0.0, lin.in_features**-0.5, generator=generator)
                if lin.bias is not None:
                    lin.bias.zero_()

    def _heads(self, x: Tensor, positions: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        if self.rope_theta is not None:
            q, k = apply_rope(q, positions, self.rope_theta), apply_rope(k, positions, self.rope_theta)
        return q, k, v

    def _merge(self, o: Tensor) -> Tensor:
        b, _, t, _ = o.shape
        return self.out(o.transpose(1, 2).reshape(b, t, self.d_model))

    def forward(self, x: Tensor, score_bias: Tensor | None = None, window: int | None = None) -> Tensor:
        """x: (batch, seq, d_model) -> (batch, seq, d_model); ``window`` overrides the attribute for this call."""
        check_sequence_input(x, self.d_model)
        w = self.window if window is None else check_window(window)
        t = x.shape[1]
        if score_bias is not None:
            check_tensor("score_bias", score_bias, floating=True)
            want = (x.shape[0], self.n_heads, t, t)
            try:
                ok = torch.broadcast_shapes(score_bias.shape, want) == want
            except RuntimeError:
                ok = False
            if not ok:
                raise ValueError(f"score_bias must broadcast to {want}, got shape {tuple(score_bias.shape)}")
            if bool(score_bias.isnan().any()):
                raise ValueError("score_bias must hold no NaN (-inf masks a key)")
        q, k, v = self._heads(x, torch.arange(t, device=x.device))
        o = attention(q, k, v, mask_mod=sliding_window(min(w, t)), bias=score_bias, backend=self.backend)
        return self._merge(o)

    def init_cache(self) -> dict[str, Any]:
        """An empty decoding cache (keys/values of the last ``window`` positions and the next position)."""
        return {"k": None, "v": None, "pos": 0}

    def step(self, x: Tensor, cache: dict[str, Any]) -> tuple[Tensor, dict[str, Any]]:
        """Decode one position: x (batch, d_model) -> (batch, d_model) and the updated cache."""
        if not isinstance(x, Tensor) or x.ndim != 2 or x.shape[-1] != self.d_model:
            raise ValueError(
                f"x must have shape (batch, d_model={self.d_model}), got {getattr(x, 'shape', x)}"
            )
        check_tensor("x", x, floating=True)
        if not isinstance(cache, dict) or not {"k", "v", "pos"} <= set(cache):
            raise ValueError(f"cache must be the dict of init_cache() (keys 'k', 'v', 'pos'), got {cache!r}")
        pos = check_int("cache['pos']", cache["pos"], low=0)
        q, k, v = self._heads(x[:, None], torch.tensor([pos], device=x.device))
        if cache["k"] is not None:
            k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
        k, v = k[:, :, -self.window :], v[:, :, -self.window :]  # keep keys j > pos - window
        o = attention(q, k, v, backend="dense")
        return self._merge(o)[:, 0], {"k": k, "v": v, "pos": pos + 1}
