"""Sequence mixers over (batch, seq, d_model): local linear attention and the linear-attention baselines.

* :class:`LocalLinearAttention`: multi-head projections Q, K, V, O around
  :func:`~iclr26.attention.lla.local_linear.local_linear_attention`, with a learnable per-head ridge
  lam_h = softplus(theta_h) (initial value 1.0).
* :class:`LinearAttentionMixer`: causal linear attention S_t = S_{t-1} + k_t v_t^T, o_t = S_t^T q_t / sqrt(d).
* :class:`GatedDeltaNetMixer`: S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T with L2-normalised
  keys, beta_t = sigmoid(.), alpha_t = exp(-softplus(.)).

The baselines are the lab's rank-generalised chunk form (``gla_terms`` / ``delta_rule_terms``). Every mixer
takes ``(x, score_bias=None)`` so it plugs into :class:`iclr26.lab.transformer.Transformer` via ``mixer=``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.attention.lla.local_linear import (
    KERNELS,
    RIDGES,
    SOLVERS,
    local_linear_attention,
    resolve_bandwidth,
)
from iclr26.checks import check_bool, check_choice, check_float, check_int
from iclr26.lab.linear_attention import delta_rule_terms, gla_terms, rank_generalized_chunk
from iclr26.lab.transformer import BlockSpec, check_sequence_input

__all__ = [
    "GatedDeltaNetMixer",
    "LinearAttentionMixer",
    "LocalLinearAttention",
    "gated_deltanet_mixer",
    "linear_attention_mixer",
    "lla_mixer",
]


def _check_spec(spec: object) -> BlockSpec:
    if not isinstance(spec, BlockSpec):
        raise TypeError(f"spec must be a BlockSpec (from the Transformer), got {type(spec).__name__}")
    return spec


class _Projections(nn.Module):
    """Q, K, V (d_model -> heads x d_head) and O (heads x d_head -> d_model) with N(0, 1/fan_in) weights."""

    def __init__(self, d_model: int, n_heads: int, d_head: int | None) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)
        self.n_heads = check_int("n_heads", n_heads, low=1)
        self.d_head = check_int("d_head", d_head if d_head is not None else max(1, d_model // n_heads), low=1)
        inner = self.n_heads * self.d_head
        self.qkv = nn.Linear(d_model, 3 * inner, bias=False)
        self.out = nn.Linear(inner, d_model, bias=False)

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        with torch.no_grad():
            self.qkv.weight.normal_(0.0, self.d_model**-0.5, generator=generator)
            self.out.weight.normal_(0.0, (self.n_heads * self.d_head) ** -0.5, generator=generator)

    def split(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(B, T, d_model) -> q, k, v each (B, H, T, d_head)."""
        b, t, _ = x.shape
        qkv = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        return q, k, v

    def merge(self, o: Tensor) -> Tensor:
        """(B, H, T, d_head) -> (B, T, d_model)."""
        b, h, t, e = o.shape
        return self.out(o.transpose(1, 2).reshape(b, t, h * e))


class LocalLinearAttention(_Projections):
    """Multi-head local linear attention, (batch, seq, d_model) -> (batch, seq, d_model).

    Parameters
    ----------
    d_model, n_heads : residual width and number of heads; d_head defaults to d_model // n_heads.
    lam_init : initial ridge lam per head (> 0), learned as softplus(theta).
    kernel, bandwidth, ridge, solver, block_size : passed to ``local_linear_attention``. The layer's ridge
        defaults to ``"const"`` (rho = lam): the ``"scaled"`` ridge 2 lam / omega vanishes as the scores grow and
        leaves the d x d systems ill-conditioned in float32.
    causal : causal mixing (default) or bidirectional.

    Example
    -------
    >>> layer = LocalLinearAttention(d_model=8, n_heads=2)
    >>> layer(torch.randn(2, 5, 8)).shape
    torch.Size([2, 5, 8])
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int = 4,
        d_head: int | None = None,
        *,
        lam_init: float = 1.0,
        kernel: str = "exp_dot",
        bandwidth: float | None = None,
        ridge: str = "const",
        solver: str = "cholesky",
        block_size: int | None = None,
        causal: bool = True,
    ) -> None:
        super().__init__(d_model, n_heads, d_head)
        # above 700 the inverse softplus of lam_init overflows
        check_float("lam_init", lam_init, low=0.0, high=700.0, low_open=True)
        if block_size is not None:
            check_int("block_size", block_size, low=1)
        check_choice("kernel", kernel, KERNELS)
        check_choice("ridge", ridge, RIDGES)
        check_choice("solver", solver, SOLVERS)
        resolve_bandwidth(bandwidth, self.d_head)
        self.lam_init = float(lam_init)
        self.kernel, self.bandwidth, self.ridge, self.solver = kernel, bandwidth, ridge, solver
        self.block_size, self.causal = block_size, check_bool("causal", causal)
        # lam_h = softplus(theta_h); theta = log(expm1(lam_init)) gives lam_init exactly
        self.theta = nn.Parameter(torch.full((self.n_heads,), math.log(math.expm1(self.lam_init))))
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        super().reset_parameters(generator)
        with torch.no_grad():
            self.theta.fill_(math.log(math.expm1(self.lam_init)))

    @property
    def lam(self) -> Tensor:
        """The per-head ridge strengths softplus(theta), shape (heads,)."""
        return F.softplus(self.theta)

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        """x: (batch, seq, d_model); score_bias: optional (heads, seq, seq) bias on the log-weights."""
        check_sequence_input(x, self.d_model)
        q, k, v = self.split(x)
        o = local_linear_attention(
            q,
            k,
            v,
            lam=self.lam,
            kernel=self.kernel,
            bandwidth=self.bandwidth,
            ridge=self.ridge,
            solver=self.solver,
            block_size=self.block_size,
            causal=self.causal,
            score_bias=score_bias,
        )
        return self.merge(o)


class LinearAttentionMixer(_Projections):
    """Causal (unnormalised) linear attention, o_t = sum_{j<=t} v_j k_j^T q_t / sqrt(d_head)."""

    def __init__(
        self, d_model: int, n_heads: int = 4, d_head: int | None = None, chunk_size: int = 16
    ) -> None:
        super().__init__(d_model, n_heads, d_head)
        self.chunk_size = check_int("chunk_size", chunk_size, low=1)
        self.reset_parameters()

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        """x: (batch, seq, d_model); score_bias is ignored (no scores to bias)."""
        check_sequence_input(x, self.d_model)
        q, k, v = (t.transpose(1, 2) for t in self.split(x))  # (B, T, H, d)
        terms = gla_terms(k, v, torch.zeros_like(k))
        o, _ = rank_generalized_chunk(q, **terms, scale=self.d_head**-0.5, chunk_size=self.chunk_size)
        return self.merge(o.transpose(1, 2))


class GatedDeltaNetMixer(_Projections):
    """Gated DeltaNet: S_t = alpha_t (I - beta_t k k^T) S_{t-1} + beta_t k v^T, o_t = S_t^T q_t / sqrt(d)."""

    def __init__(
        self, d_model: int, n_heads: int = 4, d_head: int | None = None, chunk_size: int = 16
    ) -> None:
        super().__init__(d_model, n_heads, d_head)
        self.chunk_size = check_int("chunk_size", chunk_size, low=1)
        self.gates = nn.Linear(d_model, 2 * self.n_heads)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        super().reset_parameters(generator)
        with torch.no_grad():
            self.gates.weight.normal_(0.0, self.d_model**-0.5, generator=generator)
            self.gates.bias.zero_()

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        """x: (batch, seq, d_model); score_bias is ignored (no scores to bias)."""
        check_sequence_input(x, self.d_model, finite=True)
        q, k, v = (t.transpose(1, 2) for t in self.split(x))  # (B, T, H, d)
        g_beta, g_alpha = self.gates(x).chunk(2, dim=-1)  # (B, T, H) each
        terms = delta_rule_terms(
            F.normalize(k, dim=-1), v, beta=torch.sigmoid(g_beta), log_alpha=-F.softplus(g_alpha)
        )
        o, _ = rank_generalized_chunk(
            F.normalize(q, dim=-1), **terms, scale=self.d_head**-0.5, chunk_size=self.chunk_size
        )
        return self.merge(o.transpose(1, 2))


def lla_mixer(spec: BlockSpec, **kwargs) -> LocalLinearAttention:
    """Transformer mixer factory for :class:`LocalLinearAttention` (keyword arguments are passed on)."""
    _check_spec(spec)
    return LocalLinearAttention(spec.d_model, spec.n_heads, spec.d_head, causal=spec.causal, **kwargs)


def linear_attention_mixer(spec: BlockSpec) -> LinearAttentionMixer:
    """Transformer mixer factory for :class:`LinearAttentionMixer`."""
    _check_spec(spec)
    return LinearAttentionMixer(spec.d_model, spec.n_heads, spec.d_head)


def gated_deltanet_mixer(spec: BlockSpec) -> GatedDeltaNetMixer:
    """Transformer mixer factory for :class:`GatedDeltaNetMixer`."""
    _check_spec(spec)
    return GatedDeltaNetMixer(spec.d_model, spec.n_heads, spec.d_head)
