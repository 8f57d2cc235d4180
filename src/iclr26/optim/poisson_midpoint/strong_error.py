"""Strong (pathwise L2) error of underdamped PLMC and ULMC against a fine reference path on the same noise.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614), which claims W2 (weak, distributional) error below the lower bounds known for the L2 strong error.
To measure strong error all paths share one Brownian motion. The reference runs the exponential integrator with a
step delta_ref <= 1/1024 that divides every fine step h/K; its noises Gamma(delta_ref) xi_j compose exactly into
the noises of coarser steps because the linear flow does:

    Gamma(m delta_ref) Z  =  sum_{j < m} A(delta_ref)^{m-1-j} Gamma(delta_ref) xi_j     (same Brownian path),

so PLMC (fine step h/K) and ULMC (step h) are driven by the reference's Brownian motion exactly.
strong error(h) = sqrt(E |x_h(T) - x_ref(T)|^2), averaged over chains. NumPy only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from iclr26.optim.poisson_midpoint.backend import make_backend
from iclr26.optim.poisson_midpoint.baselines import exponential_step
from iclr26.optim.poisson_midpoint.driver import Drift, check_K
from iclr26.optim.poisson_midpoint.plmc import plmc_loop_step
from iclr26.optim.poisson_midpoint.schemes import UnderdampedScheme

__all__ = ["StrongErrors", "coupled_strong_errors", "reference_step"]


@dataclass(frozen=True)
class StrongErrors:
    """Strong errors per step size of PLMC and ULMC, and the reference step used."""

    plmc: dict[float, float]
    ulmc: dict[float, float]
    reference_step: float


def reference_step(step_sizes: Sequence[float], K: int, max_step: float = 1 / 1024) -> float:
    """The reference step: min(h)/(K m) with m the smallest power of two giving a step <= `max_step`.

    Every h must be an integer multiple of min(h) (a dyadic grid) so that the reference grid refines all fine
    grids.
    """
    h_min = min(step_sizes)
    for h in step_sizes:
        if abs(h / h_min - round(h / h_min)) > 1e-9:
            raise ValueError(f"step_sizes must be integer multiples of their minimum {h_min}, got {h}")
    m = 2 ** max(0, math.ceil(math.log2(h_min / (K * max_step))))
    return h_min / (K * m)


def _aggregate(scheme: UnderdampedScheme, noise: np.ndarray, m: int, delta_ref: float) -> np.ndarray:
    """Compose consecutive groups of `m` reference noises (S, n, 2, d) into (S/m, n, 2, d) coarser noises."""
    S, n = noise.shape[:2]
    groups = noise.reshape(S // m, m, n, *noise.shape[2:])
    acc = np.zeros_like(groups[:, 0])
    for j in range(m):  # acc <- A(delta_ref) acc + Gamma(delta_ref) xi_j
        acc = scheme.propagate(acc.reshape(-1, *noise.shape[2:]), delta_ref).reshape(acc.shape) + groups[:, j]
    return acc


def coupled_strong_errors(
    grad_F: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    v0: np.ndarray,
    step_sizes: Sequence[float],
    horizon: float,
    K: int,
    rng: np.random.Generator,
    gamma: float = 2.0,
    u: float = 1.0,
    max_ref_step: float = 1 / 1024,
) -> StrongErrors:
    """Strong errors at time `horizon` of underdamped PLMC (K fine steps) and ULMC for each step size.

    Positions are compared; the horizon must be a multiple of every step size, and `step_sizes` a dyadic grid.

    Examples
    --------
    >>> import numpy as np
    >>> out = coupled_strong_errors(lambda x: x, np.zeros((50, 1)), np.zeros((50, 1)), [0.2, 0.1], 0.4, 4,
    ...                             np.random.default_rng(0), max_ref_step=1 / 64)
    >>> out.plmc[0.1] < out.plmc[0.2]
    True
    """
    K = check_K(K, allow_none=False)
    scheme = UnderdampedScheme(gamma, u)
    bk = make_backend(x0, rng)
    n, d = x0.shape
    delta_ref = reference_step(step_sizes, K, max_ref_step)
    h_max = max(step_sizes)
    block = round(h_max / delta_ref)  # reference substeps per coarsest step
    n_blocks = round(horizon / h_max)
    if any(abs(horizon / h - round(horizon / h)) > 1e-9 for h in step_sizes):
        raise ValueError(f"horizon {horizon} must be a multiple of every step size {list(step_sizes)}")

    def new_drift() -> Drift:
        return Drift(grad_F, scheme.drift, bk, n)

    ref_drift = new_drift()
    x_ref = scheme.init_state(x0, v0)
    paths = {(m, h): (new_drift(), scheme.init_state(x0, v0)) for m in ("plmc", "ulmc") for h in step_sizes}
    for _ in range(n_blocks):
        noise = scheme.noise(bk.normal((block * n, 2, d)), delta_ref).reshape(block, n, 2, d)
        for j in range(block):
            x_ref = exponential_step(ref_drift, scheme, x_ref, delta_ref, noise[j])
        for h in step_sizes:
            fine = _aggregate(scheme, noise, round(h / K / delta_ref), delta_ref)  # Gamma(h/K) Z_i, in order
            coarse = _aggregate(scheme, noise, round(h / delta_ref), delta_ref)  # Gamma(h) Z
            drift, X = paths["plmc", h]
            for s in range(fine.shape[0] // K):
                events = bk.uniform((K, n)) < 1.0 / K
                X = plmc_loop_step(drift, scheme, X, h, K, fine[s * K : (s + 1) * K], events)
            paths["plmc", h] = (drift, X)
            drift, X = paths["ulmc", h]
            for s in range(coarse.shape[0]):
                X = exponential_step(drift, scheme, X, h, coarse[s])
            paths["ulmc", h] = (drift, X)
    errors = {
        key: float(np.sqrt(np.mean((X[:, 0] - x_ref[:, 0]) ** 2))) for key, (_, X) in paths.items()
    }  # sqrt(E |x_h(T) - x_ref(T)|^2)
    return StrongErrors(
        plmc={h: errors["plmc", h] for h in step_sizes},
        ulmc={h: errors["ulmc", h] for h in step_sizes},
        reference_step=delta_ref,
    )
