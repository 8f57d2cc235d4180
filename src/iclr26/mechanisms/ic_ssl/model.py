"""The two-stage IC-SSL transformer (arXiv 2512.15934): TF_rep (RBF attention + power iteration), then TF_GD.

Tokens are ``[x_i; y_i]`` (y one-hot for labelled context points, zero otherwise) with an is-query mask.

Stage 1, representation:

* :class:`RBFAttention` (TF_L): ``P = D^{-1} K`` with ``K_ij = exp(-||x_i - x_j||^2 / 2h)`` over context keys
  ``j`` (queries as rows, each row sums to 1), so ``L = I - P`` is the random-walk Laplacian of the context graph.
  ``h = s * median_{i<j} ||x_i - x_j||^2`` of the task's context, ``s`` learned (or a fixed ``h``).
* :class:`PowerIterLayer` (x T): ``Phi <- orth((1 - eta) Phi + eta P Phi W)`` = one step of subspace iteration on
  ``I - eta L`` (``W = I`` in the construction), followed by a re-orthonormalisation of the context rows (QR with
  positive ``diag(R)``, our stand-in for the paper's normalising MLP). The fixed point spans the bottom-k
  eigenvectors of ``L``. ``Phi_0 = [1, x W_0]``.
* Query (and context) features ``phi = sqrt(n) P Phi``: the Nystrom-like extension by the same kernel.

Stage 2, :class:`GDSoftmaxLayer` (x G): with predictions ``f_j`` (zero at the start) each layer is one step of
functional gradient descent on the mean cross-entropy of the labelled points,
``f_j <- f_j + (lr / l) sum_{i labelled} (phi_j^T A phi_i) (y_i - softmax(f_i))``, a linear-attention layer
with keys/queries ``phi`` and values the residuals; with ``A = I`` it equals GD from ``W = 0`` on softmax
regression ``f = W phi``.
"""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor

__all__ = [
    "GDSoftmaxLayer",
    "ICSSLTransformer",
    "PowerIterLayer",
    "RBFAttention",
    "check_tokens",
    "orthonormalize",
    "softmax_regression_gd",
]


def check_tokens(tokens: torch.Tensor, is_query: torch.Tensor, d: int, n_classes: int) -> None:
    """Validate a token batch: shape (B, N, d + C), bool mask (B, N), at least one context token per task."""
    if not isinstance(tokens, torch.Tensor) or not isinstance(is_query, torch.Tensor):
        raise TypeError("tokens and is_query must be torch tensors")
    check_tensor("tokens", tokens, floating=True)
    if tokens.ndim != 3:
        raise ValueError(
            f"tokens must have shape (batch, n_tokens, d + n_classes), got {tuple(tokens.shape)}"
        )
    if tokens.shape[-1] != d + n_classes:
        raise ValueError(
            f"tokens feature dim mismatch: last dim is {tokens.shape[-1]}, expected d + n_classes = "
            f"{d} + {n_classes} = {d + n_classes}"
        )
    if is_query.shape != tokens.shape[:2] or is_query.dtype != torch.bool:
        raise ValueError(f"is_query must be a bool tensor of shape {tuple(tokens.shape[:2])}")
    if bool((~is_query).sum(1).min() < 2):
        raise ValueError("every task needs at least 2 context (non-query) tokens")


def orthonormalize(phi: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
    """Orthonormal basis (QR, positive diag R) of the context rows of `phi` (B, N, k); query rows become zero."""
    check_tensor("phi", phi, ndim=3, floating=True)
    check_tensor("ctx", ctx, shape=tuple(phi.shape[:2]))
    return _orthonormalize(phi, ctx)


def _orthonormalize(phi: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
    q, r = torch.linalg.qr(phi * ctx.unsqueeze(-1))
    sign = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))
    return q * torch.where(sign == 0, torch.ones_like(sign), sign).unsqueeze(-2)


class RBFAttention(nn.Module):
    """Row-stochastic Gaussian-kernel attention ``P = D^{-1} K`` over the context keys (TF_L).

    Parameters
    ----------
    h : fixed bandwidth (``K = exp(-||u - v||^2 / 2h)``); None for the learned, data-scaled bandwidth.
    scale_init : initial ``s`` of ``h = s * median squared context distance`` (learned when `h` is None).

    Example
    -------
    >>> att = RBFAttention(h=0.5)
    >>> p = att.weights(torch.randn(1, 5, 3), torch.randn(1, 4, 3))
    >>> p.shape, bool(torch.allclose(p.sum(-1), torch.ones(1, 5)))
    (torch.Size([1, 5, 4]), True)
    """

    def __init__(self, h: float | None = None, scale_init: float = 0.1) -> None:
        super().__init__()
        if h is not None and not h > 0:
            raise ValueError(f"h must be a positive bandwidth, got {h}")
        check_float("scale_init", scale_init, low=0.0, low_open=True)
        if h is not None:
            check_float("h", h, low=0.0, low_open=True)
        check_float("scale_init", scale_init, low=0.0, low_open=True)
        self.h = h
        self.log_scale = nn.Parameter(torch.tensor(math.log(scale_init)), requires_grad=h is None)

    def bandwidth(self, keys: torch.Tensor, key_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Per-task bandwidth h, shape (B,)."""
        if self.h is not None:
            return torch.full(keys.shape[:1], float(self.h), dtype=keys.dtype, device=keys.device)
        d2 = torch.cdist(keys, keys).pow(2).detach()
        valid = torch.ones_like(d2, dtype=torch.bool).triu(1)
        if key_mask is not None:
            valid = valid & key_mask.unsqueeze(1) & key_mask.unsqueeze(2)
        med = torch.nanmedian(torch.where(valid, d2, torch.nan).flatten(1), dim=1).values
        return self.log_scale.exp() * med.clamp_min(1e-8)

    def weights(
        self, queries: torch.Tensor, keys: torch.Tensor, key_mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``P[b, i, j] = exp(-||q_i - k_j||^2 / 2h) / sum_j' (...)`` over unmasked keys; shape (B, Nq, Nk)."""
        check_tensor("queries", queries, ndim=3, floating=True)
        check_tensor("keys", keys, ndim=3, floating=True)
        if queries.shape[-1] != keys.shape[-1]:
            raise ValueError(f"queries and keys dims differ: {queries.shape[-1]} vs {keys.shape[-1]}")
        if keys.shape[0] != queries.shape[0]:
            raise ValueError(
                f"queries and keys must hold the same tasks (batch), got {queries.shape[0]} and {keys.shape[0]}"
            )
        if key_mask is not None:
            check_tensor("key_mask", key_mask, shape=tuple(keys.shape[:2]))
        h = self.bandwidth(keys, key_mask)
        logits = -torch.cdist(queries, keys).pow(2) / (2 * h[:, None, None])
        if key_mask is not None:
            logits = logits.masked_fill(~key_mask.unsqueeze(1), float("-inf"))
        return torch.softmax(logits, dim=-1)

    def forward(
        self,
        queries: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        key_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Attention output ``P @ values``."""
        p = self.weights(queries, keys, key_mask)
        check_tensor("values", values, floating=True, shape=(*keys.shape[:2], None))
        return p @ values


class PowerIterLayer(nn.Module):
    """One subspace-iteration step on ``I - eta L``: ``Phi <- orth((1 - eta) Phi + eta P Phi W)``.

    Parameters
    ----------
    k : number of eigenvectors carried.
    eta : initial step (learned in (0, 1) unless `learn` is False; the construction uses 1/2).
    learn : learn eta and the mixing matrix W (initialised to the identity).
    """

    def __init__(self, k: int, eta: float = 0.5, learn: bool = True) -> None:
        super().__init__()
        check_int("k", k, low=1)
        check_float("eta", eta, 0.0, 1.0, low_open=True, high_open=True)
        check_bool("learn", learn)
        self.eta_logit = nn.Parameter(torch.tensor(math.log(eta / (1 - eta))), requires_grad=learn)
        self.mix = nn.Parameter(torch.eye(k), requires_grad=learn)

    @property
    def eta(self) -> torch.Tensor:
        return torch.sigmoid(self.eta_logit)

    def forward(self, phi: torch.Tensor, p: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
        """`phi` (B, N, k), random-walk matrix `p` (B, N, N), context mask `ctx` (B, N) -> new orthonormal phi."""
        check_tensor("phi", phi, ndim=3, floating=True, shape=(None, None, self.mix.shape[0]))
        b, n = phi.shape[:2]
        check_tensor("p", p, floating=True, shape=(b, n, n))
        check_tensor("ctx", ctx, shape=(b, n))
        eta = self.eta
        return _orthonormalize((1 - eta) * phi + eta * (p @ phi) @ self.mix, ctx)


class GDSoftmaxLayer(nn.Module):
    """One functional-GD step of softmax regression on the labelled tokens, as a linear-attention layer.

    ``f_j <- f_j + (lr / l) sum_i m_i (phi_j^T A phi_i) (y_i - softmax(f_i))`` where ``m_i`` marks labelled
    context tokens and ``l = sum_i m_i`` (a task with ``l = 0`` keeps ``f`` unchanged).
    """

    def __init__(self, k: int, lr: float = 0.5, learn: bool = True) -> None:
        super().__init__()
        check_int("k", k, low=1)
        check_float("lr", lr, low=0.0, low_open=True)
        check_bool("learn", learn)
        self.log_lr = nn.Parameter(torch.tensor(math.log(lr)), requires_grad=learn)
        self.qk = nn.Parameter(torch.eye(k), requires_grad=learn)

    def forward(
        self, f: torch.Tensor, phi: torch.Tensor, y: torch.Tensor, labelled: torch.Tensor
    ) -> torch.Tensor:
        """Predictions `f` (B, N, C), features `phi` (B, N, k), one-hot `y` (B, N, C), mask (B, N) -> new f."""
        check_tensor("phi", phi, ndim=3, floating=True, shape=(None, None, self.qk.shape[0]))
        check_tensor("f", f, floating=True, shape=(*phi.shape[:2], None))
        check_tensor("y", y, floating=True, shape=tuple(f.shape))
        check_tensor("labelled", labelled, shape=tuple(phi.shape[:2]))
        m = labelled.to(phi.dtype)
        resid = m.unsqueeze(-1) * (y - torch.softmax(f, -1))
        scores = phi @ self.qk @ phi.transpose(1, 2)  # (B, N, N): phi_j^T A phi_i
        n_lab = m.sum(1).clamp_min(1.0)[:, None, None]
        return f + self.log_lr.exp() * (scores @ resid) / n_lab


class ICSSLTransformer(nn.Module):
    """IC-SSL: RBF attention -> power-iteration layers -> Nystrom features -> GD-softmax layers -> query logits.

    Parameters
    ----------
    d : input dimension; n_classes : label slots C in the tokens; k : eigenvectors;
    n_power : power-iteration layers; n_gd : GD layers; h : fixed bandwidth (None: learned data-scaled);
    scale_init, eta, lr : initial values of the learned bandwidth scale, power step and GD step.

    Example
    -------
    >>> model = ICSSLTransformer(d=4, n_classes=2, k=3, n_power=2, n_gd=2)
    >>> tokens = torch.randn(2, 10, 6); tokens[:, :, 4:] = 0; tokens[:, 0, 4] = tokens[:, 1, 5] = 1
    >>> is_query = torch.zeros(2, 10, dtype=torch.bool); is_query[:, 8:] = True
    >>> model(tokens, is_query).shape
    torch.Size([2, 10, 2])
    """

    def __init__(
        self,
        d: int,
        n_classes: int,
        k: int = 8,
        n_power: int = 6,
        n_gd: int = 4,
        h: float | None = None,
        scale_init: float = 0.1,
        eta: float = 0.5,
        lr: float = 0.5,
    ) -> None:
        super().__init__()
        for name, v, low in (("d", d, 1), ("n_classes", n_classes, 1), ("k", k, 2), ("n_gd", n_gd, 1)):
            check_int(name, v, low=low)
        check_int("n_power", n_power, low=0)
        check_float("eta", eta, 0.0, 1.0, low_open=True, high_open=True)
        check_float("lr", lr, low=0.0, low_open=True)
        self.d, self.n_classes, self.k = d, n_classes, k
        self.rbf = RBFAttention(h, scale_init)
        self.init_proj = nn.Linear(d, k - 1, bias=False)
        self.power = nn.ModuleList(PowerIterLayer(k, eta) for _ in range(n_power))
        self.gd = nn.ModuleList(GDSoftmaxLayer(k, lr) for _ in range(n_gd))

    def representation(
        self, tokens: torch.Tensor, is_query: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Stage 1: (features sqrt(n) P Phi (B, N, k), orthonormal context basis Phi (B, N, k), P (B, N, N))."""
        check_tokens(tokens, is_query, self.d, self.n_classes)
        x = tokens[..., : self.d]
        ctx = ~is_query
        p = self.rbf.weights(x, x, key_mask=ctx)
        phi = torch.cat([torch.ones_like(x[..., :1]), self.init_proj(x)], -1)
        phi = _orthonormalize(phi, ctx)
        for layer in self.power:
            phi = layer(phi, p, ctx)
        n_ctx = ctx.sum(1).to(x.dtype).sqrt()[:, None, None]
        return n_ctx * (p @ phi), phi, p

    def forward(self, tokens: torch.Tensor, is_query: torch.Tensor) -> torch.Tensor:
        """Logits (B, N, C) for every token (read them at the query positions)."""
        feats, _, _ = self.representation(tokens, is_query)
        y = tokens[..., self.d :] * (~is_query).unsqueeze(-1)  # query label slots are never read
        labelled = y.sum(-1) > 0
        if bool((labelled.sum(1) == 0).any()):
            warnings.warn(
                "a task has no labelled context token (l = 0): its prediction is uniform", stacklevel=2
            )
        f = torch.zeros(*tokens.shape[:2], self.n_classes, dtype=tokens.dtype, device=tokens.device)
        for layer in self.gd:
            f = layer(f, feats, y, labelled)
        return f


def softmax_regression_gd(
    phi_lab: torch.Tensor, y_lab: torch.Tensor, phi_eval: torch.Tensor, lr: float, steps: int
) -> torch.Tensor:
    """Reference: `steps` of full-batch GD from W = 0 on mean CE of ``softmax(W phi)``; logits of `phi_eval`."""
    check_tensor("phi_lab", phi_lab, ndim=2, floating=True)
    check_tensor("y_lab", y_lab, floating=True, shape=(phi_lab.shape[0], None))
    check_tensor("phi_eval", phi_eval, ndim=2, floating=True, shape=(None, phi_lab.shape[1]))
    check_float("lr", lr)
    check_int("steps", steps, low=0)
    w = torch.zeros(y_lab.shape[-1], phi_lab.shape[-1], dtype=phi_lab.dtype, device=phi_lab.device)
    for _ in range(steps):
        grad = (F.softmax(phi_lab @ w.T, -1) - y_lab).T @ phi_lab / phi_lab.shape[0]
        w = w - lr * grad
    return phi_eval @ w.T
