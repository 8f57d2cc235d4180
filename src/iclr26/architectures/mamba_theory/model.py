"""Selective-SSM classifier of the Mamba training-dynamics theory (arXiv 2602.12499), plus two baselines.

Reconstructed model (the paper's exact block was not available). A scalar input-dependent gate
``g_l = sigmoid(w^T x_l)`` drives the selective recurrence

    h_l = (1 - g_l) h_(l-1) + g_l x_l,   h_0 = 0                     (decay="gated")
    h_L = sum_l c_l x_l,   c_l = g_l prod_(j>l) (1 - g_j)

or the accumulate-style variant ``h_L = (1/L) sum_l g_l x_l`` (decay="none"). The head is a two-layer ReLU MLP
``f(X) = (1/m) sum_r a_r ReLU(v_r^T h_L)`` with fixed output signs a_r (half +1, half -1).

The closed form computes ``log c_l = log g_l + sum_(j>l) log(1 - g_j)`` with log-sigmoids and a reversed cumulative
sum, so no product of many small factors is formed; the loop is the step-by-step oracle.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_choice, check_float, check_int

__all__ = ["AttentionClassifier", "DECAYS", "IMPLS", "SelectiveSSMClassifier", "check_sequences"]

DECAYS = ("gated", "none")
IMPLS = ("closed", "loop")


def check_sequences(X: torch.Tensor, d: int, name: str = "X") -> None:
    """Raise a clear error unless `X` is a floating tensor of shape (batch, seq, d) with seq >= 1."""
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape (batch, seq, {d}), got {type(X).__name__}")
    if X.dim() != 3 or X.shape[-1] != d or X.shape[1] < 1:
        raise ValueError(f"{name} must have shape (batch, seq >= 1, {d}), got {tuple(X.shape)}")
    if not X.is_floating_point():
        raise TypeError(f"{name} must be a floating tensor, got dtype {X.dtype}")


class _ReLUHead(nn.Module):
    """``f(h) = (1/m) sum_r a_r ReLU(v_r^T h)`` with a_r = +1 for the first m/2 neurons and -1 for the rest."""

    def __init__(
        self, d: int, m: int, train_a: bool, init_std: float, generator: torch.Generator, dtype
    ) -> None:
        super().__init__()
        check_int("m (hidden neurons, even)", m, low=2)
        if m % 2:
            raise ValueError(f"m (hidden neurons) must be an even int >= 2, got {m!r}")
        check_float("init_std", init_std, low=0.0)
        check_bool("train_a", train_a)
        self.m = m
        self.V = nn.Parameter(init_std * torch.randn(m, d, generator=generator, dtype=dtype))
        a = torch.cat([torch.ones(m // 2, dtype=dtype), -torch.ones(m // 2, dtype=dtype)])
        self.a = nn.Parameter(a, requires_grad=train_a)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return F.relu(h @ self.V.T) @ self.a / self.m


def _check_common(d: int, m: int, seed: int, dtype: torch.dtype) -> None:
    check_int("d (token dimension)", d, low=1)
    check_int("m (hidden neurons, even)", m, low=2)
    check_int("seed", seed, low=0)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")


def _check_input(X: torch.Tensor, w: torch.Tensor, d: int) -> None:
    check_sequences(X, d)
    if X.dtype != w.dtype:
        raise TypeError(f"X must have the model's dtype {w.dtype}, got {X.dtype}")


class SelectiveSSMClassifier(nn.Module):
    """One-layer, one-head selective SSM with a scalar input-dependent gate and a two-layer ReLU head.

    Parameters
    ----------
    d : token dimension.
    m : hidden ReLU neurons (even; output signs a_r fixed to +1 / -1, half each).
    decay : ``"gated"`` (selective recurrence, recency weighting) or ``"none"`` (``h_L = mean_l g_l x_l``).
    train_a : also train the output signs a_r (default False, as in the theory).
    freeze_gate : the non-selective baseline: w is frozen at 0, so every gate is 1/2 and w gets no gradient.
    init_std : standard deviation xi of the initial v_r ~ N(0, xi^2 I); w starts at 0.
    impl : ``"closed"`` (log-space cumulative sums, default) or ``"loop"`` (sequential recurrence).
    seed : seed of the initial V.

    Example
    -------
    >>> import torch
    >>> model = SelectiveSSMClassifier(d=8, m=4, dtype=torch.float64)
    >>> X = torch.randn(3, 5, 8, dtype=torch.float64)
    >>> model(X).shape, model.gate_weights(X).shape
    (torch.Size([3]), torch.Size([3, 5]))
    >>> bool(torch.allclose(model.hidden(X, "loop"), model.hidden(X, "closed")))
    True
    """

    def __init__(
        self,
        d: int,
        m: int = 64,
        decay: str = "gated",
        train_a: bool = False,
        freeze_gate: bool = False,
        init_std: float = 0.01,
        impl: str = "closed",
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        _check_common(d, m, seed, dtype)
        check_choice("decay", decay, DECAYS)
        check_choice("impl", impl, IMPLS)
        check_bool("freeze_gate", freeze_gate)
        self.d, self.decay, self.impl = d, decay, impl
        gen = torch.Generator().manual_seed(int(seed))
        self.w = nn.Parameter(torch.zeros(d, dtype=dtype), requires_grad=not freeze_gate)
        self.head = _ReLUHead(d, m, train_a, init_std, gen, dtype)

    def gates(self, X: torch.Tensor) -> torch.Tensor:
        """``g_l = sigmoid(w^T x_l)``, shape (batch, seq)."""
        _check_input(X, self.w, self.d)
        return torch.sigmoid(X @ self.w)

    def gate_weights(self, X: torch.Tensor) -> torch.Tensor:
        """Token weights c_l with ``h_L = sum_l c_l x_l``, shape (batch, seq), in log space."""
        _check_input(X, self.w, self.d)
        s = X @ self.w
        log_g = F.logsigmoid(s)
        if self.decay == "none":
            return torch.exp(log_g) / X.shape[1]
        log_keep = F.logsigmoid(-s)  # log(1 - g_j)
        # inclusive suffix sums sum_(j>=l) log(1 - g_j), then shift by one for the exclusive sum over j > l
        suffix = torch.flip(torch.cumsum(torch.flip(log_keep, [1]), 1), [1])
        after = torch.cat([suffix[:, 1:], torch.zeros_like(suffix[:, :1])], dim=1)
        return torch.exp(log_g + after)

    def hidden(self, X: torch.Tensor, impl: str | None = None) -> torch.Tensor:
        """Final state h_L, shape (batch, d), by the closed form or the sequential loop."""
        impl = self.impl if impl is None else check_choice("impl", impl, IMPLS)
        if impl == "closed":
            return torch.einsum("bl,bld->bd", self.gate_weights(X), X)
        g = self.gates(X)
        L = X.shape[1]
        h = torch.zeros_like(X[:, 0])
        for t in range(L):
            gt = g[:, t, None]
            if self.decay == "gated":
                h = (1 - gt) * h + gt * X[:, t]  # h_l = (1 - g_l) h_(l-1) + g_l x_l
            else:
                h = h + gt * X[:, t] / L
        return h

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Logits f(X), shape (batch,)."""
        return self.head(self.hidden(X))


class AttentionClassifier(nn.Module):
    """One-layer softmax-attention baseline of the same size: ``f = MLP(sum_l softmax_l(w_q^T x_l) x_l)``.

    ``w_q`` starts at 0 (uniform attention); the head is the same fixed-sign two-layer ReLU MLP.
    """

    def __init__(
        self,
        d: int,
        m: int = 64,
        train_a: bool = False,
        init_std: float = 0.01,
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        _check_common(d, m, seed, dtype)
        self.d = d
        gen = torch.Generator().manual_seed(int(seed))
        self.w = nn.Parameter(torch.zeros(d, dtype=dtype))
        self.head = _ReLUHead(d, m, train_a, init_std, gen, dtype)

    def gate_weights(self, X: torch.Tensor) -> torch.Tensor:
        """Attention weights softmax_l(w_q^T x_l), shape (batch, seq)."""
        _check_input(X, self.w, self.d)
        return torch.softmax(X @ self.w, dim=1)

    def hidden(self, X: torch.Tensor) -> torch.Tensor:
        """Attention output, shape (batch, d)."""
        return torch.einsum("bl,bld->bd", self.gate_weights(X), X)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Logits f(X), shape (batch,)."""
        return self.head(self.hidden(X))
