"""What every sampler shares: argument checks, the initial state, a counted and checked drift, the result.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614). Complexity is measured in gradient calls, so the drift b(x) = -grad F(x) (overdamped) or
-u grad F(x) (underdamped) counts its calls per chain; it also rejects non-finite gradients and gradients whose
shape disagrees with ``x0``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from iclr26.checks import check_float, check_int
from iclr26.optim.poisson_midpoint.backend import Backend, make_backend

__all__ = ["Drift", "SampleResult", "SamplerSetup", "check_K", "setup"]

GradFn = Callable[[Any], Any]


class SampleResult(NamedTuple):
    """The positions after the last step, shape (n_chains, d), and the gradient calls per chain (n_chains,)."""

    samples: Any
    grad_calls: Any


def check_K(K: Any, allow_none: bool = True) -> int | None:
    """K must be an int >= 1 (or None, the continuous Poisson limit, where allowed)."""
    if K is None and allow_none:
        return None
    return check_int("K (or None, the continuous Poisson limit)" if allow_none else "K", K, low=1)


class Drift:
    """b(x) = scale * (-grad_F(x)) as the scheme defines it, counting calls per chain and checking the output."""

    def __init__(self, grad_F: GradFn, to_drift: Callable[[Any], Any], bk: Backend, n_chains: int) -> None:
        self.grad_F = grad_F
        self.to_drift = to_drift
        self.bk = bk
        self.calls = bk.zeros((n_chains,), integer=True)

    def __call__(self, x: Any, chains: Any = None) -> Any:
        """Drift at positions `x` of shape (m, d); `chains` (unique indices, or None for all) are charged."""
        try:
            grad = self.grad_F(x)
        except ValueError as err:
            raise ValueError(f"grad_F rejected positions of shape {tuple(x.shape)} (from x0): {err}") from err
        if tuple(getattr(grad, "shape", ())) != tuple(x.shape):
            raise ValueError(
                f"grad_F returned shape {tuple(getattr(grad, 'shape', ()))} for positions of shape "
                f"{tuple(x.shape)}: x0's dimension does not match the target's"
            )
        if not self.bk.all_finite(grad):
            raise ValueError(
                "grad_F returned non-finite values (the chain may have diverged; try a smaller h)"
            )
        if chains is None:
            self.calls += 1
        else:
            self.calls[chains] += 1
        return self.to_drift(grad)


@dataclass
class SamplerSetup:
    """A checked sampler call: backend, scheme, initial state, counted drift."""

    bk: Backend
    scheme: Any
    h: float
    state: Any
    drift: Drift
    n_chains: int
    dim: int

    def noise(self, tau: Any) -> Any:
        """Gamma(tau) Z for every chain, with fresh standard normals Z."""
        return self.scheme.noise(self.bk.normal(self.scheme.noise_shape(self.n_chains, self.dim)), tau)

    def result(self, X: Any) -> SampleResult:
        return SampleResult(self.scheme.position(X), self.drift.calls)


def setup(
    grad_F: GradFn,
    x0: Any,
    h: Any,
    n_steps: Any,
    rng: Any,
    scheme: Any,
    L: float | None = None,
    v0: Any = None,
) -> SamplerSetup:
    """Check a sampler's arguments and build its initial state and counted drift.

    Raises ValueError naming the argument for h <= 0, a negative or non-integer n_steps, an x0 that is not a
    finite (n_chains, d) float array, a v0 of another shape, or a grad_F that is not callable; warns when
    h >= 2/L for a known smoothness constant L.
    """
    if not callable(grad_F):
        raise ValueError(f"grad_F must be callable, got {type(grad_F).__name__}")
    h = check_float("h", h, low=0.0, low_open=True)
    check_int("n_steps", n_steps, low=0)
    bk = make_backend(x0, rng)
    if x0.ndim != 2 or x0.shape[0] < 1 or x0.shape[1] < 1:
        raise ValueError(f"x0 must have shape (n_chains, d) with n_chains, d >= 1, got {tuple(x0.shape)}")
    if not bk.all_finite(x0):
        raise ValueError("x0 contains non-finite values")
    if L is not None:
        L = check_float("L", L, low=0.0, low_open=True)
        if h >= 2.0 / L:
            warnings.warn(
                f"h={h:g} >= 2/L={2.0 / L:g}: the discretisation may be unstable",
                RuntimeWarning,
                stacklevel=3,
            )
    if scheme.name == "underdamped":
        if v0 is None:
            v0 = bk.zeros(tuple(x0.shape))
        if type(v0) is not type(x0) or tuple(v0.shape) != tuple(x0.shape):
            raise ValueError(
                f"v0 must be an array like x0 of shape {tuple(x0.shape)}, got {getattr(v0, 'shape', v0)}"
            )
    n, d = int(x0.shape[0]), int(x0.shape[1])
    drift = Drift(grad_F, scheme.drift, bk, n)
    return SamplerSetup(bk, scheme, h, scheme.init_state(x0, v0), drift, n, d)
