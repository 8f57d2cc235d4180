"""The baseline positional encodings BAM is compared with: RoPE, ALiBi and sinusoidal embeddings.

* RoPE (Su et al., 2021), rotate-half convention as in Llama: with ``theta_k = base^(-2k/d)`` and
  ``c = cos(t theta)``, ``s = sin(t theta)`` repeated over both halves, ``rope(x)_t = x_t * c + rot(x_t) * s`` where
  ``rot([x1, x2]) = [-x2, x1]``; then ``rope(q)_i . rope(k)_j`` depends on ``i - j`` only.
* ALiBi (Press et al., 2022): the score bias ``-m_h |i - j|`` (a Laplace log-prior in BAM's reading).
* Sinusoidal (Vaswani et al., 2017): ``P[t, 2k] = sin(t / 10000^(2k/d))``, ``P[t, 2k+1] = cos(...)``, added to
  the token embeddings.

Example
-------
>>> import torch
>>> cos, sin = rope_cos_sin(torch.arange(3), 4)
>>> apply_rope(torch.ones(1, 1, 3, 4), cos, sin).shape
torch.Size([1, 1, 3, 4])
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.transformer import PositionScheme

__all__ = ["SinusoidalPositions", "alibi_score_bias", "apply_rope", "rope_cos_sin", "sinusoidal_table"]


def rope_cos_sin(positions: Tensor, d_head: int, base: float = 10000.0, dtype: torch.dtype = torch.float32):
    """``(cos, sin)`` tables of shape (T, d_head) for integer ``positions`` (rotate-half layout)."""
    if check_int("d_head", d_head, low=2) % 2:
        raise ValueError(f"d_head must be an even int >= 2 for RoPE, got {d_head!r}")
    check_tensor("positions", positions, ndim=1, floating=False)
    check_float("base", base, low=0.0, low_open=True)
    inv_freq = 1.0 / (
        base ** (torch.arange(0, d_head, 2, dtype=torch.float64, device=positions.device) / d_head)
    )
    freqs = positions.to(torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def apply_rope(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """Rotate (..., T, d_head) queries or keys by their positions' angles."""
    check_tensor("x", x, floating=True)
    if x.ndim < 1 or x.shape[-1] % 2:
        raise ValueError(f"x must be (..., T, d_head) with an even d_head, got shape {tuple(x.shape)}")
    for name, t in (("cos", cos), ("sin", sin)):
        check_tensor(name, t, floating=True)
        try:
            ok = torch.broadcast_shapes(x.shape, t.shape) == x.shape
        except RuntimeError:
            ok = False
        if not ok:
            raise ValueError(
                f"{name} must broadcast to x's shape {tuple(x.shape)} (a (T, d_head) table), got {tuple(t.shape)}"
            )
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


def alibi_score_bias(slopes: Tensor, q_pos: Tensor, k_pos: Tensor) -> Tensor:
    """ALiBi's (1, H, Tq, Tk) bias ``-m_h |k_pos - q_pos|``."""
    check_tensor("slopes", slopes, ndim=1, floating=True)
    check_tensor("q_pos", q_pos, ndim=1, floating=False)
    check_tensor("k_pos", k_pos, ndim=1, floating=False)
    dist = (k_pos[None, :] - q_pos[:, None]).abs().to(slopes.dtype)
    return -(slopes[:, None, None] * dist)[None]


def sinusoidal_table(seq: int, d_model: int, base: float = 10000.0) -> Tensor:
    """The (seq, d_model) sinusoidal position table."""
    check_int("seq", seq, low=0)
    check_int("d_model", d_model, low=1)
    check_float("base", base, low=0.0, low_open=True)
    pos = torch.arange(seq, dtype=torch.float64)[:, None]
    div = base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    table = torch.zeros(seq, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(pos / div)
    table[:, 1::2] = torch.cos(pos / div[: d_model // 2])
    return table.float()


class SinusoidalPositions(PositionScheme):
    """Fixed sinusoidal embeddings added to the token embeddings (no parameters, any length)."""

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)

    def embed(self, seq: int, device: torch.device) -> Tensor:
        return sinusoidal_table(seq, self.d_model).to(device)
