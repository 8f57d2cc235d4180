"""Multi-head softmax attention with hook points on q, k, v, scores, pattern, z and per-head outputs.

Equations (Vaswani et al., 2017), per head h, with the normalised input x (batch, seq, d_model):

    q_h = x W_Q[h] + b_Q[h],  k_h = x W_K[h] + b_K[h],  v_h = x W_V[h] + b_V[h]      (d_head each)
    scores_h = q_h k_h^T / sqrt(d_head) + bias_h  (+ -inf above the diagonal when causal)
    pattern_h = softmax(scores_h) over keys
    z_h = pattern_h v_h
    out = sum_h z_h W_O[h] + b_O            (the per-head terms z_h W_O[h] are the ``result`` hook)

Example
-------
>>> import torch
>>> attn = MultiHeadAttention(d_model=8, n_heads=2, d_head=4, causal=True)
>>> attn(torch.randn(3, 5, 8)).shape
torch.Size([3, 5, 8])
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from iclr26.checks import check_int, check_tensor
from iclr26.lab.transformer.checks import check_sequence_input
from iclr26.lab.transformer.hooks import HookPoint

__all__ = ["MultiHeadAttention"]


class MultiHeadAttention(nn.Module):
    """Softmax multi-head attention over (batch, seq, d_model), causal or bidirectional.

    Parameters
    ----------
    d_model : residual width.
    n_heads : number of heads (>= 1).
    d_head : per-head width of queries, keys and values.
    causal : mask keys after the query position.
    bias : learn the biases b_Q, b_K, b_V, b_O (zeros otherwise).

    The weights are stored per head (``W_Q``: (heads, d_model, d_head), ``W_O``: (heads, d_head, d_model)) so
    that hand-set constructions and per-head analyses can address a head directly.
    """

    def __init__(
        self, d_model: int, n_heads: int, d_head: int, causal: bool = True, bias: bool = True
    ) -> None:
        super().__init__()
        for name, value in (("d_model", d_model), ("n_heads", n_heads), ("d_head", d_head)):
            check_int(name, value, low=1)
        self.d_model, self.n_heads, self.d_head, self.causal = d_model, n_heads, d_head, causal
        self.W_Q = nn.Parameter(torch.empty(n_heads, d_model, d_head))
        self.W_K = nn.Parameter(torch.empty(n_heads, d_model, d_head))
        self.W_V = nn.Parameter(torch.empty(n_heads, d_model, d_head))
        self.W_O = nn.Parameter(torch.empty(n_heads, d_head, d_model))
        zeros = (lambda *shape: nn.Parameter(torch.zeros(*shape))) if bias else (lambda *shape: None)
        self.b_Q, self.b_K, self.b_V = zeros(n_heads, d_head), zeros(n_heads, d_head), zeros(n_heads, d_head)
        self.b_O = zeros(d_model)
        for name in ("q", "k", "v", "scores", "pattern", "z", "result"):
            setattr(self, f"hook_{name}", HookPoint())
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Weights ~ N(0, 1/fan_in), biases zero."""
        with torch.no_grad():
            for w in (self.W_Q, self.W_K, self.W_V):
                w.normal_(0.0, self.d_model**-0.5, generator=generator)
            self.W_O.normal_(0.0, (self.n_heads * self.d_head) ** -0.5, generator=generator)
            for b in (self.b_Q, self.b_K, self.b_V, self.b_O):
                if b is not None:
                    b.zero_()

    def _project(self, x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
        out = torch.einsum("bsd,hde->bshe", x, w)
        return out if b is None else out + b

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        """x: (batch, seq, d_model); score_bias: (heads, seq, seq) (a leading batch axis and heads = 1 broadcast) or
        None. Returns (batch, seq, d_model)."""
        check_sequence_input(x, self.d_model)
        seq = x.shape[1]
        q = self.hook_q(self._project(x, self.W_Q, self.b_Q))
        k = self.hook_k(self._project(x, self.W_K, self.b_K))
        v = self.hook_v(self._project(x, self.W_V, self.b_V))
        # scores_h = q_h k_h^T / sqrt(d_head) + bias_h
        scores = torch.einsum("bqhe,bkhe->bhqk", q, k) * self.d_head**-0.5
        if score_bias is not None:
            check_tensor("score_bias", score_bias, floating=True)
            if (
                score_bias.ndim not in (3, 4)
                or tuple(score_bias.shape[-2:]) != (seq, seq)
                or (score_bias.shape[-3] not in (1, self.n_heads))
            ):
                raise ValueError(
                    f"score_bias must have shape (heads={self.n_heads} or 1, seq={seq}, seq={seq}), optionally "
                    f"with a leading batch axis, got {tuple(score_bias.shape)}"
                )
            scores = scores + score_bias
        if self.causal:
            mask = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        scores = self.hook_scores(scores)
        pattern = self.hook_pattern(torch.softmax(scores, dim=-1))
        # z_h = pattern_h v_h
        z = self.hook_z(torch.einsum("bhqk,bkhe->bqhe", pattern, v))
        if self.hook_result.has_hooks:
            # per-head outputs z_h W_O[h], summed over heads below
            result = self.hook_result(torch.einsum("bqhe,hem->bqhm", z, self.W_O))
            out = result.sum(dim=2)
        else:
            out = torch.einsum("bqhe,hem->bqm", z, self.W_O)
        return out if self.b_O is None else out + self.b_O
