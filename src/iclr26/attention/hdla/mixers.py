"""HDLA and its baselines as sequence mixers over (batch, seq, d_model), all on one rank-generalized core.

Every mixer here builds, per token, the arguments of :func:`iclr26.lab.linear_attention.rank_generalized_chunk`
(decay ``log_f``, low-rank factors ``a, b``, writes ``k, v``) and shares the output path of the HDLA layer:

    o_t = scale * S_t^T q_t                            (per head, chunk-wise in forward(), one step in step())
    y_t = W_o RMSNorm(o_t * sigmoid(W_g2 W_g1 x_t))    (low-rank output gate applied before the norm)

The transitions (``P_t`` acts on ``S_{t-1}``, see :mod:`iclr26.attention.hdla.decay`):

* :class:`HDLAAttention` — ``P = H diag(f) H``, ``H = I - beta k k^T``, ``beta = 2 sigmoid(w^T x)``,
  ``f = sigmoid(W_f2 W_f1 x)``; write ``k v^T``; q, k, v = silu(W x), k L2-normalised, scale 1.
* :class:`GLAMixer` — ``P = diag(f)`` with HDLA's projections (HDLA at ``beta = 0``; r_ab = 0).
* :class:`GatedDeltaNetMixer` — ``P = alpha (I - beta k k^T)``, write ``beta k v^T``, with the
  flash-linear-attention parametrisation ``log alpha = -exp(A_log) softplus(w_a^T x + dt_bias)``,
  ``beta = sigmoid(w_b^T x)`` (``2 sigmoid`` with ``allow_neg_eigval``), q and k L2-normalised, scale d_k^-1/2.
* :class:`DeltaNetMixer` — the same with ``alpha = 1``.
* :class:`DeltaProductMixer` — Gated DeltaProduct with two Householder steps per token (rank 2, two writes).

Every mixer takes ``conv_size``: with ``conv_size > 0`` the q, k and v projections pass through a causal
depthwise convolution of that width (the "short convolution" of flash-linear-attention and Zoology) before their
activation. The recurrent state is then the pair ``(S, conv_cache)``, ``conv_cache`` (B, conv_size - 1, C) holding
the last pre-convolution projections, so step decoding and split sequences stay exact. ``conv_size = 0`` (the
default, as in the official HDLA layer) gives the plain projections and a tensor state.

Example
-------
>>> import torch
>>> mixer = HDLAAttention(d_model=16, n_heads=2)
>>> x = torch.randn(2, 9, 16)
>>> y, state = mixer(x, return_state=True)
>>> y.shape, state.shape
(torch.Size([2, 9, 16]), torch.Size([2, 2, 8, 8]))
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.attention.hdla.decay import hdla_decay_terms, transition_matrices
from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.linear_attention import (
    delta_product_terms,
    delta_rule_terms,
    gla_terms,
    rank_generalized_chunk,
    rank_generalized_recurrence,
)
from iclr26.lab.transformer import check_sequence_input

__all__ = [
    "DeltaNetMixer",
    "DeltaProductMixer",
    "GLAMixer",
    "GatedDeltaNetMixer",
    "HDLAAttention",
    "RankGeneralizedMixer",
]


def _low_rank(d_in: int, rank: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_in, rank, bias=False), nn.Linear(rank, d_out, bias=False))


class RankGeneralizedMixer(nn.Module):
    """Shared shell of the linear-attention mixers: q/k/v/output projections, gate, norm, forward and step.

    Subclasses implement :meth:`core_inputs`, returning ``q`` (B, T, H, d_k), the keyword arguments of the
    core (``k, v, a, b, log_f, r_ab, r_kv``) and the new convolution state; they take q, k, v from :meth:`_qkv`.

    Parameters
    ----------
    d_model : residual width.
    n_heads : heads; the state is ``n_heads * d_head * d_head`` numbers.
    d_head : per-head key/value width (default ``d_model // n_heads``).
    chunk_size : chunk length of the parallel form (16 as in the official kernel).
    eps : RMSNorm epsilon.
    conv_size : width of the causal depthwise convolution on q, k, v (0: none).
    """

    scale: float = 1.0
    n_keys: int = 1  # key/value pairs written per token

    def __init__(
        self,
        d_model: int,
        n_heads: int = 2,
        d_head: int | None = None,
        chunk_size: int = 16,
        eps: float = 1e-5,
        conv_size: int = 0,
    ) -> None:
        super().__init__()
        check_int("d_model", d_model, low=1)
        check_int("conv_size", conv_size, low=0)
        self.conv_size = conv_size
        check_int("n_heads", n_heads, low=1)
        d_head = check_int("d_head", d_head, low=1) if d_head is not None else max(1, d_model // n_heads)
        check_int("chunk_size", chunk_size, low=1)
        check_float("eps", eps, low=0.0, low_open=True)
        self.d_model, self.n_heads, self.d_head, self.chunk_size, self.eps = (
            d_model,
            n_heads,
            d_head,
            chunk_size,
            eps,
        )
        inner = n_heads * d_head
        self.q_proj = nn.Linear(d_model, inner, bias=False)
        self.k_proj = nn.Linear(d_model, inner * self.n_keys, bias=False)
        self.v_proj = nn.Linear(d_model, inner * self.n_keys, bias=False)
        self.gate_proj = _low_rank(d_model, d_head, inner)
        self.norm_weight = nn.Parameter(torch.ones(inner))
        self.o_proj = nn.Linear(inner, d_model, bias=False)
        self._qkv_widths = (inner, inner * self.n_keys, inner * self.n_keys)
        self.conv_weight = nn.Parameter(torch.empty(sum(self._qkv_widths), conv_size)) if conv_size else None

    @property
    def state_size(self) -> int:
        """Numbers in the recurrent state per sequence: ``n_heads * d_head * d_head``."""
        return self.n_heads * self.d_head * self.d_head

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Linear maps ~ N(0, 1/fan_in), norm weight 1; subclasses add their own gate parameters."""
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    m.weight.normal_(0.0, m.in_features**-0.5, generator=generator)
            self.norm_weight.fill_(1.0)
            if self.conv_weight is not None:  # torch's Conv1d default: U(-1/sqrt(width), 1/sqrt(width))
                bound = self.conv_size**-0.5
                self.conv_weight.uniform_(-bound, bound, generator=generator)

    def _qkv(
        self, x: Tensor, conv_state: Tensor | None = None
    ) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
        """Pre-activation q, k, v projections of x (B, T, d_model), through the short convolution if any.

        Returns ``(q, k, v, conv_state)``; ``conv_state`` (B, conv_size - 1, C) continues the convolution in a
        later call (None without a convolution).
        """
        z = torch.cat([self.q_proj(x), self.k_proj(x), self.v_proj(x)], dim=-1)
        if self.conv_weight is None:
            return (*z.split(self._qkv_widths, dim=-1), None)
        lag = self.conv_size - 1
        if conv_state is None:
            conv_state = z.new_zeros(z.shape[0], lag, z.shape[-1])
        zz = torch.cat([conv_state.to(z.dtype), z], dim=1)  # (B, lag + T, C)
        w = self.conv_weight.to(z.dtype)[:, None, :]  # out_t = sum_j w_j z_{t - lag + j}
        out = F.conv1d(zz.transpose(1, 2), w, groups=z.shape[-1]).transpose(1, 2)
        return (*out.split(self._qkv_widths, dim=-1), zz[:, zz.shape[1] - lag :])

    def _heads(self, x: Tensor, n: int = 1) -> Tensor:
        """(..., n*H*d) -> (..., H, d), or (..., n, H, d) when n > 1."""
        shape = (self.n_heads, self.d_head) if n == 1 else (n, self.n_heads, self.d_head)
        return x.unflatten(-1, shape)

    def core_inputs(self, x: Tensor, conv_state: Tensor | None = None) -> tuple[Tensor, dict, Tensor | None]:
        """``q`` (B, T, H, d_k), the core's keyword arguments for input x (B, T, d_model) and the new conv state."""
        raise NotImplementedError(
            f"{type(self).__name__} defines no transition: use a subclass (HDLAAttention, GLAMixer, ...) "
            "or implement core_inputs"
        )

    def _output(self, x: Tensor, o: Tensor) -> Tensor:
        # y = W_o RMSNorm(o * sigmoid(gate(x))), the norm over the whole inner width
        z = o.flatten(-2) * torch.sigmoid(self.gate_proj(x))
        z = z * torch.rsqrt(z.square().mean(-1, keepdim=True) + self.eps) * self.norm_weight
        return self.o_proj(z)

    def _check_state(self, state, batch: int) -> tuple[Tensor | None, Tensor | None]:
        """Split ``state`` into (S, conv cache) after checking it; None gives (None, None)."""
        if state is None:
            return None, None
        conv = None
        if self.conv_size:
            if not (isinstance(state, tuple) and len(state) == 2):
                raise ValueError(
                    f"state must be a pair (S, conv_cache) when conv_size={self.conv_size}, got {type(state).__name__}"
                )
            state, conv = state
            cshape = (batch, self.conv_size - 1, sum(self._qkv_widths))
            if not isinstance(conv, Tensor) or tuple(conv.shape) != cshape:
                raise ValueError(
                    f"state's conv_cache must have shape {cshape}, got {tuple(getattr(conv, 'shape', ()))}"
                )
            check_tensor("conv_cache", conv, floating=True)
        shape = (batch, self.n_heads, self.d_head, self.d_head)
        if not isinstance(state, Tensor) or tuple(state.shape) != shape:
            raise ValueError(f"state must have shape {shape}, got {tuple(getattr(state, 'shape', ()))}")
        check_tensor("state", state, floating=True)
        return state, conv

    def _pack(self, s: Tensor, conv: Tensor | None):
        return (s, conv) if self.conv_size else s

    def forward(
        self,
        x: Tensor,
        score_bias: Tensor | None = None,
        *,
        state: Tensor | None = None,
        return_state: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor]:
        """Map x (B, T, d_model) to (B, T, d_model), starting from ``state`` (B, H, d_k, d_v) or zeros.

        With ``conv_size > 0`` the state is the pair ``(S, conv_cache)``. ``score_bias`` must be None (a linear-attention mixer has no score matrix to bias). With
        ``return_state`` the final state is returned too, so a sequence can be processed in pieces.
        """
        check_sequence_input(x, self.d_model, finite=True)
        if score_bias is not None:
            raise ValueError("score_bias must be None: linear-attention mixers take no additive score bias")
        state, conv = self._check_state(state, x.shape[0])
        q, terms, conv = self.core_inputs(x, conv)
        o, s = rank_generalized_chunk(
            q, **terms, scale=self.scale, initial_state=state, chunk_size=self.chunk_size
        )
        y = self._output(x, o.to(x.dtype))
        return (y, self._pack(s, conv)) if return_state else y

    def step(self, x_t: Tensor, state=None) -> tuple[Tensor, Tensor | tuple[Tensor, Tensor]]:
        """One decoding step: x_t (B, d_model) and state (B, H, d_k, d_v) or None -> (y_t (B, d_model), state).

        With ``conv_size > 0`` the state is the pair ``(S, conv_cache)``.
        """
        if not isinstance(x_t, Tensor) or x_t.ndim != 2 or x_t.shape[-1] != self.d_model:
            raise ValueError(
                f"x_t must have shape (batch, d_model={self.d_model}), got {tuple(getattr(x_t, 'shape', ()))}"
            )
        x = x_t[:, None]
        check_sequence_input(x, self.d_model, name="x_t", finite=True)
        state, conv = self._check_state(state, x.shape[0])
        q, terms, conv = self.core_inputs(x, conv)
        o, s = rank_generalized_recurrence(q, **terms, scale=self.scale, initial_state=state)
        return self._output(x, o.to(x.dtype))[:, 0], self._pack(s, conv)

    def transition_matrices(self, x: Tensor) -> Tensor:
        """The materialised ``P_t`` (B, T, H, d_k, d_k) this mixer applies to its state for input x."""
        check_sequence_input(x, self.d_model, finite=True)
        _, terms, _ = self.core_inputs(x)
        return transition_matrices(terms["log_f"], terms["a"], terms["b"], r_ab=terms["r_ab"])


class HDLAAttention(RankGeneralizedMixer):
    """Householder-diagonalized linear attention: ``S_t = H_t diag(f_t) H_t S_{t-1} + k_t v_t^T``.

    Parameters (beyond :class:`RankGeneralizedMixer`)
    ----------
    allow_neg_eigval : ``beta = 2 sigmoid`` (eigenvalue ``1 - beta`` in (-1, 1); the paper's default) or
        ``beta = sigmoid``.
    lower_bound : optional floor ``l`` on the decay, ``f = l + (1 - l) sigmoid(.)`` (default off).
    use_offset : add a learned per-channel offset ``log(a / (1 - a))``, ``a = 0.99``, to the decay logit.

    Examples
    --------
    >>> import torch
    >>> mixer = HDLAAttention(d_model=16, n_heads=2).double()
    >>> x = torch.randn(1, 5, 16, dtype=torch.float64)
    >>> full = mixer(x)
    >>> state, outs = None, []
    >>> for t in range(5):
    ...     y, state = mixer.step(x[:, t], state)
    ...     outs.append(y)
    >>> bool(torch.allclose(torch.stack(outs, 1), full, atol=1e-10))
    True
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int = 2,
        d_head: int | None = None,
        chunk_size: int = 16,
        allow_neg_eigval: bool = True,
        lower_bound: float | None = None,
        use_offset: bool = False,
        eps: float = 1e-5,
        conv_size: int = 0,
    ) -> None:
        super().__init__(d_model, n_heads, d_head, chunk_size, eps, conv_size)
        if lower_bound is not None:
            check_float("lower_bound", lower_bound, 0.0, 1.0, high_open=True)
        self.allow_neg_eigval, self.lower_bound = bool(allow_neg_eigval), lower_bound
        inner = self.n_heads * self.d_head
        self.f_proj = _low_rank(d_model, self.d_head, inner)
        self.beta_proj = nn.Linear(d_model, self.n_heads, bias=False)
        self.offset = nn.Parameter(torch.zeros(inner)) if use_offset else None
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        super().reset_parameters(generator)
        if self.offset is not None:
            with torch.no_grad():
                self.offset.fill_(math.log(0.99 / 0.01))

    def _log_decay(self, x: Tensor) -> Tensor:
        logit = self.f_proj(x)
        if self.offset is not None:
            logit = logit + self.offset
        if self.lower_bound is None:
            return F.logsigmoid(logit)
        low = float(self.lower_bound)
        return torch.log(low + (1.0 - low) * torch.sigmoid(logit))

    def _beta(self, x: Tensor) -> Tensor:
        beta = torch.sigmoid(self.beta_proj(x))
        return 2.0 * beta if self.allow_neg_eigval else beta

    def core_inputs(self, x: Tensor, conv_state: Tensor | None = None) -> tuple[Tensor, dict, Tensor | None]:
        q, k, v, conv_state = self._qkv(x, conv_state)
        q = self._heads(F.silu(q))
        k = F.normalize(self._heads(F.silu(k)), dim=-1)
        v = self._heads(F.silu(v))
        log_f = self._heads(self._log_decay(x))
        a, b = hdla_decay_terms(k, log_f.exp(), self._beta(x))
        return q, {"k": k, "v": v, "a": a, "b": b, "log_f": log_f, "r_ab": 2, "r_kv": 1}, conv_state


class GLAMixer(HDLAAttention):
    """Gated linear attention ``S_t = diag(f_t) S_{t-1} + k_t v_t^T`` with HDLA's projections (HDLA at beta = 0).

    Same q/k/v maps, low-rank decay and output path as :class:`HDLAAttention`, without the Householder factor
    and its ``beta`` projection.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int = 2,
        d_head: int | None = None,
        chunk_size: int = 16,
        lower_bound: float | None = None,
        use_offset: bool = False,
        eps: float = 1e-5,
        conv_size: int = 0,
    ) -> None:
        super().__init__(d_model, n_heads, d_head, chunk_size, True, lower_bound, use_offset, eps, conv_size)
        del self.beta_proj

    def core_inputs(self, x: Tensor, conv_state: Tensor | None = None) -> tuple[Tensor, dict, Tensor | None]:
        q, k, v, conv_state = self._qkv(x, conv_state)
        q = self._heads(F.silu(q))
        k = F.normalize(self._heads(F.silu(k)), dim=-1)
        v = self._heads(F.silu(v))
        return q, gla_terms(k, v, self._heads(self._log_decay(x))), conv_state


class _DeltaBase(RankGeneralizedMixer):
    """Delta-rule mixers: q, k = L2norm(silu(W x)), v = silu(W x), scale d_k^-1/2, optional scalar gate alpha."""

    gated: bool = True

    def __init__(
        self,
        d_model: int,
        n_heads: int = 2,
        d_head: int | None = None,
        chunk_size: int = 16,
        allow_neg_eigval: bool = False,
        eps: float = 1e-5,
        conv_size: int = 0,
    ) -> None:
        super().__init__(d_model, n_heads, d_head, chunk_size, eps, conv_size)
        self.allow_neg_eigval = bool(allow_neg_eigval)
        self.scale = self.d_head**-0.5
        self.beta_proj = nn.Linear(d_model, self.n_heads * self.n_keys, bias=False)
        if self.gated:
            self.alpha_proj = nn.Linear(d_model, self.n_heads, bias=False)
            self.A_log = nn.Parameter(torch.zeros(self.n_heads))
            self.dt_bias = nn.Parameter(torch.zeros(self.n_heads))
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Linear maps ~ N(0, 1/fan_in); ``A ~ U(0, 16)``, ``dt ~ logU(1e-3, 0.1)`` as in Gated DeltaNet."""
        super().reset_parameters(generator)
        if self.gated:
            with torch.no_grad():
                a = torch.rand(self.n_heads, generator=generator) * 16.0
                self.A_log.copy_(a.clamp_min(1e-4).log())
                u = torch.rand(self.n_heads, generator=generator)
                dt = torch.exp(u * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3)).clamp_min(1e-4)
                self.dt_bias.copy_(dt + torch.log(-torch.expm1(-dt)))  # inverse softplus

    def _gates(self, x: Tensor) -> tuple[Tensor, Tensor | None]:
        beta = torch.sigmoid(self.beta_proj(x))
        if self.allow_neg_eigval:
            beta = 2.0 * beta
        if not self.gated:
            return beta, None
        log_alpha = -self.A_log.exp() * F.softplus(self.alpha_proj(x) + self.dt_bias)
        return beta, log_alpha


class GatedDeltaNetMixer(_DeltaBase):
    """Gated DeltaNet: ``S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T`` (diagonal + rank 1)."""

    def core_inputs(self, x: Tensor, conv_state: Tensor | None = None) -> tuple[Tensor, dict, Tensor | None]:
        q, k, v, conv_state = self._qkv(x, conv_state)
        q = F.normalize(self._heads(F.silu(q)), dim=-1)
        k = F.normalize(self._heads(F.silu(k)), dim=-1)
        v = self._heads(F.silu(v))
        beta, log_alpha = self._gates(x)
        return q, delta_rule_terms(k, v, beta, log_alpha), conv_state


class DeltaNetMixer(GatedDeltaNetMixer):
    """DeltaNet: ``S_t = (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T`` (Gated DeltaNet with alpha = 1)."""

    gated = False


class DeltaProductMixer(_DeltaBase):
    """Gated DeltaProduct with two Householder steps per token: ``P = alpha H_2 H_1`` (diagonal + rank 2).

    Two keys, values and betas per token and head; the writes ``beta_1 H_2 k_1 v_1^T + beta_2 k_2 v_2^T``.
    """

    n_keys = 2

    def core_inputs(self, x: Tensor, conv_state: Tensor | None = None) -> tuple[Tensor, dict, Tensor | None]:
        q, k, v, conv_state = self._qkv(x, conv_state)
        q = F.normalize(self._heads(F.silu(q)), dim=-1)
        k = F.normalize(self._heads(F.silu(k), 2), dim=-1)  # (B, T, 2, H, d)
        v = self._heads(F.silu(v), 2)
        beta, log_alpha = self._gates(x)
        beta = beta.unflatten(-1, (2, self.n_heads))
        terms = delta_product_terms(
            k[:, :, 0], k[:, :, 1], v[:, :, 0], v[:, :, 1], beta[:, :, 0], beta[:, :, 1], log_alpha
        )
        return q, terms, conv_state
