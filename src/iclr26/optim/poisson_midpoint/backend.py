"""Array backends for the samplers: the same update code runs on NumPy arrays and torch tensors.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614). The samplers are written once against the few operations below; the backend is chosen by the type
of ``x0`` and must agree with the type of ``rng`` (``numpy.random.Generator`` or ``torch.Generator``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import torch

__all__ = ["Backend", "make_backend", "namespace"]


def namespace(x: Any) -> ModuleType:
    """The module whose functions apply to `x`: ``torch`` for tensors, ``numpy`` otherwise."""
    return torch if isinstance(x, torch.Tensor) else np


class Backend:
    """Random draws and allocation on the array type, dtype and device of a reference array.

    Examples
    --------
    >>> bk = make_backend(np.zeros((3, 1)), np.random.default_rng(0))
    >>> bk.normal((3, 1)).shape
    (3, 1)
    """

    def __init__(self, like: Any, rng: Any) -> None:
        self.is_torch = isinstance(like, torch.Tensor)
        self.xp: ModuleType = torch if self.is_torch else np
        self.dtype = like.dtype
        self.device = like.device if self.is_torch else None
        self.rng = rng

    def normal(self, shape: tuple[int, ...]) -> Any:
        """Standard normal draws of `shape`."""
        if self.is_torch:
            return torch.randn(shape, generator=self.rng, dtype=self.dtype, device=self.device)
        return self.rng.standard_normal(shape, dtype=self.dtype)

    def uniform(self, shape: tuple[int, ...]) -> Any:
        """Uniform draws on [0, 1) of `shape`."""
        if self.is_torch:
            return torch.rand(shape, generator=self.rng, dtype=self.dtype, device=self.device)
        return self.rng.random(shape, dtype=self.dtype)

    def geometric(self, p: float, m: int) -> Any:
        """`m` integer draws of the number of Bernoulli(p) trials up to the first success (>= 1)."""
        if self.is_torch:
            if p >= 1.0:  # geometric_ needs p < 1
                return torch.ones(m, dtype=torch.int64, device=self.device)
            draws = torch.empty(m, dtype=torch.float64, device=self.device).geometric_(p, generator=self.rng)
            return draws.long()
        return self.rng.geometric(p, size=m)

    def exponential(self, m: int) -> Any:
        """`m` draws from the unit-rate exponential law."""
        if self.is_torch:
            return torch.empty(m, dtype=self.dtype, device=self.device).exponential_(generator=self.rng)
        return self.rng.standard_exponential(m, dtype=self.dtype)

    def zeros(self, shape: tuple[int, ...], integer: bool = False) -> Any:
        if self.is_torch:
            dtype = torch.int64 if integer else self.dtype
            return torch.zeros(shape, dtype=dtype, device=self.device)
        return np.zeros(shape, dtype=np.int64 if integer else self.dtype)

    def arange(self, n: int) -> Any:
        """Chain indices ``0..n-1`` as an integer array."""
        if self.is_torch:
            return torch.arange(n, device=self.device)
        return np.arange(n)

    def nonzero(self, mask: Any) -> Any:
        """Indices where the 1-D boolean `mask` is true."""
        if self.is_torch:
            return torch.nonzero(mask, as_tuple=True)[0]
        return np.flatnonzero(mask)

    def to_float(self, x: Any) -> Any:
        """`x` cast to the backend's floating dtype."""
        return x.to(self.dtype) if self.is_torch else x.astype(self.dtype)

    def all_finite(self, x: Any) -> bool:
        return bool(self.xp.isfinite(x).all())


def make_backend(x0: Any, rng: Any) -> Backend:
    """Pick the backend from ``x0``'s type and check that `rng` is the matching generator.

    Raises
    ------
    ValueError
        If `x0` is neither a NumPy array nor a torch tensor, or `rng` does not match it.
    """
    if isinstance(x0, torch.Tensor):
        if not isinstance(rng, torch.Generator):
            raise ValueError(
                f"rng must be a torch.Generator when x0 is a torch tensor, got {type(rng).__name__}"
            )
        if not x0.is_floating_point():
            raise ValueError(f"x0 must have a floating dtype, got {x0.dtype}")
    elif isinstance(x0, np.ndarray):
        if not isinstance(rng, np.random.Generator):
            raise ValueError(
                f"rng must be a numpy.random.Generator when x0 is a NumPy array, got {type(rng).__name__}"
            )
        if not np.issubdtype(x0.dtype, np.floating):
            raise ValueError(f"x0 must have a floating dtype, got {x0.dtype}")
    else:
        raise ValueError(f"x0 must be a NumPy array or a torch tensor, got {type(x0).__name__}")
    return Backend(x0, rng)
