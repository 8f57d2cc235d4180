"""One attention mixer for every positional scheme, so that models differ in their positional encoding only.

``PEAttention`` projects ``x`` to per-head q, k, v (no biases, as in Llama), applies the scheme's positional
signal and calls :func:`iclr26.attention.bam.bias_attention`:

* ``"nope"``: nothing (also the mixer of the sinusoidal scheme, whose signal is added to the embeddings);
* ``"rope"``: rotate q and k;
* ``"alibi"``: the fixed bias ``-m_h |j - i|``;
* ``"laplace"``: a :class:`GGDPrior` with ``beta`` frozen at 1 (learned ALiBi slopes);
* ``"bam"``: a :class:`GGDPrior` (learned scale and shape), by default shared by all layers;

and with ``ssmax=True`` a learnable per-head ``s_h`` (init 1) for the score ``s_h log(n) (qk/sqrt(d) + g)``.

Example
-------
>>> import torch
>>> mixer = PEAttention(16, n_heads=2, pe="bam", ssmax=True)
>>> mixer(torch.randn(2, 5, 16)).shape
torch.Size([2, 5, 16])
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from iclr26.attention.bam.attention import bias_attention
from iclr26.attention.bam.encodings import alibi_score_bias, apply_rope, rope_cos_sin
from iclr26.attention.bam.prior import GGDPrior, alibi_slopes
from iclr26.checks import check_bool, check_float, check_int
from iclr26.lab.transformer import check_sequence_input

__all__ = ["MIXER_PES", "PEAttention"]

MIXER_PES = ("nope", "rope", "alibi", "laplace", "bam")


class PEAttention(nn.Module):
    """Causal (or bidirectional) multi-head softmax attention carrying one positional scheme.

    Parameters
    ----------
    d_model, n_heads : width and heads; ``d_head = d_model // n_heads`` unless given.
    pe : one of ``"nope"``, ``"rope"``, ``"alibi"``, ``"laplace"``, ``"bam"``.
    ssmax : Scalable-Softmax with a learnable per-head scale ``s_h`` (init 1).
    prior : the :class:`GGDPrior` for ``"bam"``/``"laplace"`` (pass one instance to every layer to share it);
        built here when omitted (BAM: the official init, scale 1 and shape 0; Laplace: ALiBi slopes, shape 1).
    causal : causal mask; a bidirectional mixer needs a prior built with ``causal=False``.
    ssmax_on_prior : SSMax multiplies the prior too (default) or only the content score.
    chunk_size : evaluate attention in query blocks of this size (long contexts).
    rope_base : RoPE's base.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        pe: str = "bam",
        ssmax: bool = False,
        prior: GGDPrior | None = None,
        *,
        d_head: int | None = None,
        causal: bool = True,
        ssmax_on_prior: bool = True,
        chunk_size: int | None = None,
        rope_base: float = 10000.0,
    ) -> None:
        super().__init__()
        check_int("d_model", d_model, low=1)
        check_int("n_heads", n_heads, low=1)
        if pe not in MIXER_PES:
            raise ValueError(f"pe must be one of {MIXER_PES}, got {pe!r}")
        d_head = check_int("d_head", d_head, low=1) if d_head is not None else max(1, d_model // n_heads)
        if chunk_size is not None:
            check_int("chunk_size", chunk_size, low=1)
        for flag, value in (("ssmax", ssmax), ("causal", causal), ("ssmax_on_prior", ssmax_on_prior)):
            check_bool(flag, value)
        check_float("rope_base", rope_base, low=0.0, low_open=True)
        if pe == "rope" and d_head % 2:
            raise ValueError(f"RoPE needs an even d_head, got d_head={d_head}")
        if prior is not None and pe not in ("bam", "laplace"):
            raise ValueError(f"prior is only used with pe='bam' or 'laplace', got pe={pe!r}")
        if pe in ("bam", "laplace") and prior is None:
            if pe == "bam":
                prior = GGDPrior(n_heads, init_scale=1.0, init_shape=0.0, causal=causal)
            else:
                prior = GGDPrior(
                    n_heads, init_scale="alibi", init_shape=1.0, train_shape=False, causal=causal
                )
        if prior is not None:
            if not isinstance(prior, GGDPrior):
                raise TypeError(f"prior must be a GGDPrior, got {type(prior).__name__}")
            if prior.n_heads != n_heads:
                raise ValueError(f"prior has n_heads={prior.n_heads} but the mixer has n_heads={n_heads}")
            if prior.causal and not causal:
                raise ValueError(
                    "a non-causal mixer needs a prior built with causal=False (got a causal-only prior)"
                )
        self.d_model, self.n_heads, self.d_head, self.pe = d_model, n_heads, d_head, pe
        self.causal, self.ssmax_on_prior, self.chunk_size, self.rope_base = (
            causal,
            ssmax_on_prior,
            chunk_size,
            rope_base,
        )
        inner = n_heads * d_head
        self.W_q = nn.Linear(d_model, inner, bias=False)
        self.W_k = nn.Linear(d_model, inner, bias=False)
        self.W_v = nn.Linear(d_model, inner, bias=False)
        self.W_o = nn.Linear(inner, d_model, bias=False)
        self.prior = prior
        self.ssmax_scale = nn.Parameter(torch.ones(n_heads)) if ssmax else None
        if pe == "alibi":
            self.register_buffer("slopes", alibi_slopes(n_heads))
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Projections ~ N(0, 1/fan_in), SSMax scales to 1, the prior to its init."""
        with torch.no_grad():
            for lin in (self.W_q, self.W_k, self.W_v, self.W_o):
                lin.weight.normal_(0.0, lin.in_features**-0.5, generator=generator)
            if self.ssmax_scale is not None:
                self.ssmax_scale.fill_(1.0)
        if self.prior is not None:
            self.prior.reset_parameters(generator)

    def _bias(self, q_pos: Tensor, k_pos: Tensor) -> Tensor:
        if self.pe == "alibi":
            return alibi_score_bias(self.slopes, q_pos, k_pos)
        return self.prior(q_pos, k_pos, causal=self.causal)

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        """x: (batch, seq, d_model); ``score_bias`` (heads, seq, seq) from the model's position scheme or None."""
        check_sequence_input(x, self.d_model)
        bsz, seq, _ = x.shape

        def heads(t: Tensor) -> Tensor:
            return t.view(bsz, seq, self.n_heads, self.d_head).transpose(1, 2)

        q, k, v = heads(self.W_q(x)), heads(self.W_k(x)), heads(self.W_v(x))
        if self.pe == "rope":
            cos, sin = rope_cos_sin(torch.arange(seq, device=x.device), self.d_head, self.rope_base, x.dtype)
            q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        bias = None
        if self.pe in ("alibi", "laplace", "bam"):
            bias = self._bias
        if score_bias is not None:
            positions = torch.arange(seq, device=x.device)
            bias = score_bias if bias is None else bias(positions, positions) + score_bias
        out = bias_attention(
            q,
            k,
            v,
            bias,
            ssmax_scale=self.ssmax_scale,
            ssmax_on_prior=self.ssmax_on_prior,
            causal=self.causal,
            chunk_size=self.chunk_size,
        )
        return self.W_o(out.transpose(1, 2).reshape(bsz, seq, self.n_heads * self.d_head))
