"""The positional / lexical / reflexive mixture causal model, its fit, and the agreement metric.

For positional target ``p``, lexical target ``k`` and reflexive target ``i`` (answer positions ``0..n-1``) the model's
logit at position ``a`` is

    w_pos * exp(-(a - p)^2 / (2 sigma(p)^2)) + g_lex[k] [a = k] + g_ref[i] [a = i],

with ``sigma(p) = s0 + s1 x + s2 x^2`` (``x = p / n``, clamped below at ``SIGMA_MIN``), and ``P(a)`` the softmax over
the ``n`` positions. It is fitted with Adam by minimising the base-2 Jensen-Shannon divergence to the LM's
post-patch distributions; ``agreement(P, Q) = 1 - JS_2(P, Q)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_float, check_int

__all__ = ["MECHANISMS", "SIGMA_MIN", "MixCausalModel", "agreement", "js_divergence"]

MECHANISMS = ("positional", "lexical", "reflexive")
SIGMA_MIN = 0.05
_EPS = 1e-12


def _as_prob(x: object, name: str) -> Tensor:
    t = torch.as_tensor(np.asarray(x) if not isinstance(x, Tensor) else x, dtype=torch.float64)
    if t.ndim == 0:
        raise ValueError(f"{name} must have a last axis of probabilities, got a scalar")
    if not torch.isfinite(t).all() or (t < 0).any():
        raise ValueError(f"{name} must be finite and non-negative")
    s = t.sum(-1)
    if not torch.allclose(s, torch.ones_like(s), atol=1e-6):
        raise ValueError(f"{name} must sum to 1 along the last axis")
    return t


def _js(p: Tensor, q: Tensor) -> Tensor:
    m = 0.5 * (p + q)
    kl_pm = torch.where(p > 0, p * (torch.log2(p.clamp_min(_EPS)) - torch.log2(m.clamp_min(_EPS))), 0.0)
    kl_qm = torch.where(q > 0, q * (torch.log2(q.clamp_min(_EPS)) - torch.log2(m.clamp_min(_EPS))), 0.0)
    return (0.5 * kl_pm.sum(-1) + 0.5 * kl_qm.sum(-1)).clamp(0.0, 1.0)


def js_divergence(p: object, q: object) -> Tensor:
    """Base-2 Jensen-Shannon divergence along the last axis (0 for equal, 1 for disjoint support).

    >>> float(js_divergence([1.0, 0.0], [0.0, 1.0]))
    1.0
    """
    pt, qt = _as_prob(p, "p"), _as_prob(q, "q")
    if pt.shape[-1] != qt.shape[-1]:
        raise ValueError(
            f"p and q must have the same number of outcomes, got {pt.shape[-1]} and {qt.shape[-1]}"
        )
    return _js(pt, qt)


def agreement(p: object, q: object) -> Tensor:
    """``1 - JS_2(p, q)`` along the last axis: 1 for identical distributions, 0 for disjoint support.

    >>> float(agreement([0.5, 0.5], [0.5, 0.5]))
    1.0
    """
    return 1.0 - js_divergence(p, q)


class MixCausalModel(torch.nn.Module):
    """Mixture of positional, lexical and reflexive retrieval over ``n`` answer positions.

    Parameters
    ----------
    n : number of entity groups (answer positions).
    mechanisms : the subset of ``MECHANISMS`` switched on (ablations drop terms), default all three.

    Parameters learned: ``w_pos`` (scalar), ``sigma_coef`` (3 coefficients of the quadratic in ``p / n``),
    ``g_lex`` and ``g_ref`` (n each, indexed by the target position).
    """

    def __init__(self, n: int, mechanisms: Sequence[str] = MECHANISMS) -> None:
        super().__init__()
        check_int("n", n, low=2)
        mechanisms = tuple(mechanisms)
        if (
            not mechanisms
            or any(m not in MECHANISMS for m in mechanisms)
            or len(set(mechanisms)) != len(mechanisms)
        ):
            raise ValueError(f"mechanisms must be a non-empty subset of {MECHANISMS}, got {mechanisms!r}")
        self.n, self.mechanisms = n, mechanisms
        dt = torch.float64
        self.w_pos = torch.nn.Parameter(torch.tensor(2.0, dtype=dt))
        self.sigma_coef = torch.nn.Parameter(torch.tensor([1.0, 0.0, 0.0], dtype=dt))
        self.g_lex = torch.nn.Parameter(torch.ones(n, dtype=dt))
        self.g_ref = torch.nn.Parameter(torch.ones(n, dtype=dt))

    def sigma(self, p: Tensor | None = None) -> Tensor:
        """Kernel width at positional targets ``p`` (all positions when None)."""
        p = torch.arange(self.n) if p is None else torch.as_tensor(p)
        x = p.to(torch.float64) / self.n
        s0, s1, s2 = self.sigma_coef
        return (s0 + s1 * x + s2 * x * x).clamp_min(SIGMA_MIN)

    def _targets(self, targets: object) -> Tensor:
        raw = targets if isinstance(targets, Tensor) else torch.as_tensor(np.asarray(targets))
        if raw.is_floating_point() or raw.is_complex() or raw.dtype == torch.bool:
            raise TypeError(f"targets must hold integer positions, got dtype {raw.dtype}")
        t = (
            torch.as_tensor(np.asarray(targets), dtype=torch.long)
            if not isinstance(targets, Tensor)
            else targets
        )
        if t.ndim != 2 or t.shape[1] != 3:
            raise ValueError(
                f"targets must have shape (m, 3) of (positional, lexical, reflexive), got {tuple(t.shape)}"
            )
        if (t < 0).any() or (t >= self.n).any():
            raise ValueError(f"targets must be positions in 0..{self.n - 1}")
        return t.long()

    def logits(self, targets: object) -> Tensor:
        """Model logits over the ``n`` positions for each ``(p, k, i)`` row of ``targets``, shape (m, n)."""
        t = self._targets(targets)
        a = torch.arange(self.n, dtype=torch.float64)
        out = torch.zeros(t.shape[0], self.n, dtype=torch.float64)
        p, k, i = t[:, 0], t[:, 1], t[:, 2]
        if "positional" in self.mechanisms:
            sig = self.sigma(p)[:, None]
            out = out + self.w_pos * torch.exp(-((a[None] - p[:, None].double()) ** 2) / (2 * sig**2))
        if "lexical" in self.mechanisms:
            out = out + self.g_lex[k][:, None] * torch.nn.functional.one_hot(k, self.n)
        if "reflexive" in self.mechanisms:
            out = out + self.g_ref[i][:, None] * torch.nn.functional.one_hot(i, self.n)
        return out

    def predict(self, targets: object) -> Tensor:
        """Predicted distributions over the ``n`` positions, shape (m, n)."""
        return torch.softmax(self.logits(targets), dim=-1)

    def fit(
        self, dists: object, targets: object, steps: int = 1500, lr: float = 0.05, polish: bool = True
    ) -> list[float]:
        """Fit to LM distributions ``dists`` (m, n) at ``targets`` (m, 3) by minimising the mean base-2 JS
        divergence with full-batch Adam (then an L-BFGS polish when ``polish``); return the loss curve."""
        q = _as_prob(dists, "dists")
        t = self._targets(targets)
        if q.ndim != 2 or q.shape != (t.shape[0], self.n):
            raise ValueError(f"dists must have shape ({t.shape[0]}, {self.n}), got {tuple(q.shape)}")
        check_int("steps", steps, low=1)
        check_float("lr", lr, low=0.0, low_open=True)
        check_float("lr", lr, low=0.0, low_open=True)
        opt = torch.optim.Adam(self.parameters(), lr=lr)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = _js(self.predict(t), q).mean()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        if polish:
            lbfgs = torch.optim.LBFGS(self.parameters(), lr=1.0, max_iter=200, line_search_fn="strong_wolfe")

            def closure() -> Tensor:
                lbfgs.zero_grad()
                loss = _js(self.predict(t), q).mean()
                loss.backward()
                return loss

            lbfgs.step(closure)
            with torch.no_grad():
                losses.append(float(_js(self.predict(t), q).mean()))
        return losses

    @torch.no_grad()
    def agreement(self, dists: object, targets: object) -> Tensor:
        """Per-row ``1 - JS_2`` between ``dists`` and the model's predictions at ``targets``."""
        return agreement(_as_prob(dists, "dists"), self.predict(targets))
