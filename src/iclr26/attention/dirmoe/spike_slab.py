"""DirMoE's spike-and-slab Dirichlet: gate-conditioned concentrations and the calibrated prior (ICLR 2026,
OpenReview a15cDnzr6r, arXiv 2602.09001).

Given the relaxed selection ``z~`` in [0, 1]^E, the posterior and the prior over the contributions ``theta`` are both
Dirichlets whose concentration per expert switches between a "high" (slab: selected) and a "low" (spike: not
selected) value:

    posterior  alpha^q_i = lambda^q (z~_i a_hi,i(x) + (1 - z~_i) a_lo,i(x))     a_hi, a_lo: two router heads
    prior      alpha^p_i = lambda^p (z~_i abar_hi + (1 - z~_i) abar_lo)           abar_hi, abar_lo: constants

Calibration of the prior (our reading of the paper's "Beta/Dirichlet calibration" and "Simpson index"):

* mass. With exactly k experts selected, ``abar_hi = m / k`` and ``abar_lo = (1 - m) / (E - k)`` form a base
  measure ``a`` on the simplex (``sum a = 1``). By the Dirichlet aggregation property the mass on the selected set
  is ``Beta(lambda m, lambda (1 - m))``, whose mean is the target mass ``m``;
* dispersion. Under ``Dir(lambda a)`` the expected Simpson index is
  ``E[sum_i theta_i^2] = (lambda sum_i a_i^2 + 1) / (lambda + 1)``, so a target ``h`` in ``(sum a^2, 1)`` gives
  ``lambda = (1 - h) / (h - sum a^2)``. For the uniform base ``a = 1/E`` this is ``E (1 - h) / (h E - 1)``, i.e. the
  per-expert concentration ``(1 - h) / (h E - 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_array, check_float, check_tensor
from iclr26.lab.moe.router import check_progress

__all__ = [
    "PriorParams",
    "SpikeSlabPrior",
    "expected_simpson",
    "prior_base",
    "simpson_concentration",
    "spike_slab_concentrations",
]


def spike_slab_concentrations(z: Tensor, high: Tensor | float, low: Tensor | float, scale: float) -> Tensor:
    """``scale * (z * high + (1 - z) * low)``: the gate-conditioned Dirichlet concentrations, elementwise.

    `z` holds the (relaxed) selections in [0, 1]; `high` and `low` (tensors broadcastable to `z`, or numbers) are the
    slab and spike concentrations, all > 0; `scale` is ``lambda^q`` (posterior) or ``lambda^p`` (prior).

    Examples
    --------
    >>> spike_slab_concentrations(torch.tensor([1.0, 0.0, 0.5]), 4.0, 0.1, 2.0)
    tensor([8.0000, 0.2000, 4.1000])
    """
    check_tensor("z", z, floating=True)
    if z.numel() and not bool(((z >= 0) & (z <= 1)).all()):
        raise ValueError("z must hold selections in [0, 1] (no NaN)")
    for name, value in (("high", high), ("low", low)):
        if isinstance(value, Tensor):
            check_tensor(name, value, floating=True)
            if value.numel() and not bool((value > 0).all()):
                raise ValueError(f"{name} must hold concentrations > 0")
        else:
            check_float(name, value, low=0.0, low_open=True)
    check_float("scale", scale, low=0.0, low_open=True)
    return spike_slab_mix(z, high, low, scale)


def spike_slab_mix(z: Tensor, high: Tensor | float, low: Tensor | float, scale: float) -> Tensor:
    return scale * (z * high + (1 - z) * low)


def prior_base(mass: float, k: float, n_experts: int) -> tuple[float, float]:
    """``(abar_hi, abar_lo) = (m / k, (1 - m) / (E - k))``: with k experts selected, a base measure on the simplex
    that puts mass `mass` on the selected set.

    Examples
    --------
    >>> prior_base(0.9, 2, 8)
    (0.45, 0.016666666666666663)
    """
    m = check_float("mass", mass, 0.0, 1.0, low_open=True, high_open=True)
    k = check_float("k", k, 0.0, float(n_experts), low_open=True, high_open=True)
    return m / k, (1 - m) / (n_experts - k)


def _base_square(mass: float, k: float, n_experts: int) -> float:
    """``sum_i a_i^2`` of the base measure of :func:`prior_base` (k selected, E - k not)."""
    hi, lo = prior_base(mass, k, n_experts)
    return k * hi**2 + (n_experts - k) * lo**2


def expected_simpson(alpha: Tensor) -> Tensor:
    """``E[sum_i theta_i^2]`` for ``theta ~ Dir(alpha)`` (over the last axis), in closed form:
    ``sum_i alpha_i (alpha_i + 1) / (A (A + 1))`` with ``A = sum_i alpha_i``."""
    check_tensor("alpha", alpha, floating=True)
    if alpha.ndim < 1 or (alpha.numel() and not bool((alpha > 0).all())):
        raise ValueError(
            f"alpha must be a (..., n) tensor of concentrations > 0, got shape {tuple(alpha.shape)}"
        )
    total = alpha.sum(-1)
    return (alpha * (alpha + 1)).sum(-1) / (total * (total + 1))


def simpson_concentration(simpson: float, base: Tensor | Sequence[float]) -> float:
    """The scale ``lambda`` such that ``Dir(lambda * base)`` has expected Simpson index `simpson`.

    ``lambda = (1 - h) / (h - sum base^2)``; `base` is a probability vector, and `simpson` must lie in
    ``(sum base^2, 1)`` (the index of the mean vector, reached as lambda -> inf, and of a vertex, as lambda -> 0).

    Examples
    --------
    >>> round(simpson_concentration(0.5, [1 / 8] * 8), 6)  # 8 (1 - h) / (8 h - 1)
    1.333333
    """
    if isinstance(base, Tensor):
        check_tensor("base", base, floating=True, ndim=1)
    else:
        base = check_array("base", base, ndim=1)
    b = torch.as_tensor(base, dtype=torch.float64)
    if b.ndim != 1 or b.numel() < 2 or not bool((b > 0).all()) or abs(float(b.sum()) - 1) > 1e-6:
        raise ValueError("base must be a probability vector with at least 2 entries, all > 0, summing to 1")
    floor = float((b**2).sum())
    h = check_float("simpson", simpson, floor, 1.0, low_open=True, high_open=True)
    return (1 - h) / (h - floor)


@dataclass(frozen=True)
class PriorParams:
    """The spike-and-slab prior at one point of training: ``alpha^p = scale (z abar_hi + (1 - z) abar_lo)``."""

    high: float
    low: float
    scale: float
    mass: float
    simpson: float


@dataclass(frozen=True)
class SpikeSlabPrior:
    """The calibrated spike-and-slab Dirichlet prior and its schedule over training.

    The target mass on the selected experts moves linearly from `mass_start` to `mass_end` over the first
    `anneal_frac` of training (exploratory -> definitive routing; chosen default 0.8 -> 0.95 over 70%, the span of
    the temperature anneal); ``abar_hi, abar_lo`` follow from it (:func:`prior_base`) and ``lambda^p`` from the
    Simpson target `simpson` (:func:`simpson_concentration`). ``simpson=None`` targets ``1/k``, the index of k equal
    contributions (an effective number of k experts), or, where ``1/k`` is out of range (k <= 1), the midpoint of
    the admissible interval.

    Examples
    --------
    >>> p = SpikeSlabPrior()(1.0, k=2, n_experts=8)
    >>> round(p.high, 4), round(p.low, 5), round(p.scale, 3), p.simpson
    (0.475, 0.00833, 10.345, 0.5)
    """

    mass_start: float = 0.8
    mass_end: float = 0.95
    anneal_frac: float = 0.7
    simpson: float | None = None

    def __post_init__(self) -> None:
        check_float("mass_start", self.mass_start, 0.0, 1.0, low_open=True, high_open=True)
        check_float("mass_end", self.mass_end, 0.0, 1.0, low_open=True, high_open=True)
        check_float("anneal_frac", self.anneal_frac, 0.0, 1.0, low_open=True)
        if self.simpson is not None:
            check_float("simpson", self.simpson, 0.0, 1.0, low_open=True, high_open=True)

    def mass(self, progress: float) -> float:
        """Target prior mass on the selected experts at training `progress`."""
        p = min(check_progress(progress) / self.anneal_frac, 1.0)
        return self.mass_start + (self.mass_end - self.mass_start) * p

    def check(self, k: float, n_experts: int) -> None:
        """Raise unless the prior is well defined for `k` of `n_experts` along the whole schedule."""
        for mass in (self.mass_start, self.mass_end):
            floor = _base_square(mass, k, n_experts)
            if self.simpson is not None and not floor < self.simpson < 1:
                raise ValueError(
                    f"simpson must lie in ({floor:.4g}, 1) for mass {mass:g} with k={k:g} of {n_experts} experts "
                    f"(the Simpson index of the prior mean), got {self.simpson!r}"
                )

    def __call__(self, progress: float, k: float, n_experts: int) -> PriorParams:
        mass = self.mass(progress)
        high, low = prior_base(mass, k, n_experts)
        floor = k * high**2 + (n_experts - k) * low**2
        h = self.simpson
        if h is None:
            h = 1 / k if floor < 1 / k < 1 else (1 + floor) / 2
        return PriorParams(high, low, (1 - h) / (h - floor), mass, h)
