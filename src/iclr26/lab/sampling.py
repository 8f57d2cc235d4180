"""Seeded draws torch offers only privately: the one place that calls ``torch._standard_gamma``.

``torch.distributions.Gamma`` and ``Dirichlet`` draw from the global generator only; the papers' simulators and
synthetic models draw from a ``torch.Generator`` of their own so that every seed is reproducible on its own.

>>> g = torch.Generator().manual_seed(0)
>>> x = standard_gamma(torch.full((4,), 2.0), generator=g)
>>> bool((x > 0).all())
True
>>> p = dirichlet(torch.full((3, 5), 0.5), generator=torch.Generator().manual_seed(0))
>>> torch.allclose(p.sum(-1), torch.ones(3))
True
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_tensor

__all__ = ["dirichlet", "standard_gamma"]


def standard_gamma(concentration: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """Gamma(concentration, rate 1) draws, one per entry of ``concentration`` (floating, all entries >= 0; a 0
    draws 0),
    from ``generator`` (the global generator when None). Same numbers as ``torch.distributions.Gamma`` when it
    draws from the same generator state."""
    check_tensor("concentration", concentration, floating=True)
    if not bool((concentration >= 0).all()):
        raise ValueError("concentration must be >= 0 everywhere (and not NaN)")
    return torch._standard_gamma(concentration, generator=generator)


def dirichlet(concentration: Tensor, generator: torch.Generator | None = None, eps: float = 0.0) -> Tensor:
    """Dirichlet draws over the last dimension: normalised :func:`standard_gamma` draws, plus ``eps`` before
    normalising (a guard against rows whose draws all underflow at tiny concentrations)."""
    x = standard_gamma(concentration, generator=generator) + eps
    return x / x.sum(-1, keepdim=True)
