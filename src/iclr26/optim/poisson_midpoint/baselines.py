"""Baselines: LMC (Euler-Maruyama / ULA), underdamped LMC, and the randomized midpoint method (RLMC).

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614); baselines as it compares against them:

* LMC / ULMC, one linear-Gaussian step of length h (1 gradient call):
      X' = A(h) X + G(h) b(X) + Gamma(h) Z;
* RLMC (Shen & Lee 2019), 2 gradient calls: with alpha ~ U(0, 1] and one Brownian path on [0, h],
      X_mid = A(alpha h) X + G(alpha h) b(X) + N(0 -> alpha h),
      X'    = A(h) X + h A((1 - alpha) h) e b(x_mid) + N(0 -> h),
      N(0 -> h) = A((1 - alpha) h) N(0 -> alpha h) + N(alpha h -> h).
  Overdamped this is Y = X - alpha h grad F(X) + sqrt(2) W(alpha h), X' = X - h grad F(Y) + sqrt(2) W(h).
"""

from __future__ import annotations

from typing import Any

from iclr26.optim.poisson_midpoint.driver import Drift, GradFn, SampleResult, setup
from iclr26.optim.poisson_midpoint.schemes import OverdampedScheme, UnderdampedScheme

__all__ = ["exponential_step", "lmc", "midpoint_step", "rlmc", "rlmc_underdamped", "ulmc"]


def exponential_step(drift: Drift, scheme: Any, X: Any, h: float, noise: Any) -> Any:
    """One step X' = A(h) X + G(h) b(X) + noise, with ``noise = Gamma(h) Z`` supplied by the caller."""
    return scheme.propagate(X, h) + scheme.force(drift(scheme.position(X)), h) + noise


def midpoint_step(drift: Drift, scheme: Any, X: Any, h: float, alpha: Any, noise1: Any, noise2: Any) -> Any:
    """One randomized-midpoint step; ``noise1 = Gamma(alpha h) Z1``, ``noise2 = Gamma((1 - alpha) h) Z2``."""
    tau1, tau2 = alpha * h, h - alpha * h
    b0 = drift(scheme.position(X))
    x_mid = scheme.propagate(X, tau1) + scheme.force(b0, tau1) + noise1  # frozen-force path to alpha h
    noise_h = scheme.propagate(noise1, tau2) + noise2  # N(0 -> h) from the same Brownian path
    return scheme.propagate(X, h) + h * scheme.kick(drift(scheme.position(x_mid)), tau2) + noise_h


def _exponential(
    grad_F: GradFn, x0: Any, h: float, n_steps: int, rng: Any, scheme: Any, **kw: Any
) -> SampleResult:
    s = setup(grad_F, x0, h, n_steps, rng, scheme, **kw)
    X = s.state
    for _ in range(n_steps):
        X = exponential_step(s.drift, scheme, X, s.h, s.noise(s.h))
    return s.result(X)


def _midpoint(
    grad_F: GradFn, x0: Any, h: float, n_steps: int, rng: Any, scheme: Any, **kw: Any
) -> SampleResult:
    s = setup(grad_F, x0, h, n_steps, rng, scheme, **kw)
    X = s.state
    for _ in range(n_steps):
        alpha = 1.0 - s.bk.uniform((s.n_chains,))  # alpha ~ U(0, 1]
        noise1 = s.noise(alpha * s.h)
        noise2 = s.noise(s.h - alpha * s.h)
        X = midpoint_step(s.drift, scheme, X, s.h, alpha, noise1, noise2)
    return s.result(X)


def lmc(grad_F: GradFn, x0: Any, h: float, n_steps: int, rng: Any, *, L: float | None = None) -> SampleResult:
    """Langevin Monte Carlo (Euler-Maruyama): X' = X - h grad F(X) + sqrt(2 h) Z, one gradient call per step.

    Parameters
    ----------
    grad_F : maps positions (m, d) to gradients (m, d) (NumPy or torch, as x0).
    x0 : initial positions, (n_chains, d).
    h : step size, > 0.
    n_steps : number of steps.
    rng : ``numpy.random.Generator`` (NumPy x0) or ``torch.Generator`` (torch x0).
    L : smoothness constant, if known: h >= 2/L warns.

    Returns
    -------
    SampleResult
        ``samples`` (n_chains, d) and ``grad_calls`` per chain (n_chains,).

    Examples
    --------
    >>> import numpy as np
    >>> x, calls = lmc(lambda x: x, np.zeros((1000, 1)), 0.1, 50, np.random.default_rng(0))
    >>> x.shape, int(calls[0])
    ((1000, 1), 50)
    """
    return _exponential(grad_F, x0, h, n_steps, rng, OverdampedScheme(), L=L)


def ulmc(
    grad_F: GradFn,
    x0: Any,
    h: float,
    n_steps: int,
    rng: Any,
    *,
    gamma: float = 2.0,
    u: float = 1.0,
    v0: Any = None,
    L: float | None = None,
) -> SampleResult:
    """Underdamped LMC with the exponential integrator (force frozen over each step), one gradient call per step.

    Dynamics dx = v dt, dv = -gamma v dt - u grad F(x) dt + sqrt(2 gamma u) dB; `v0` defaults to zeros.
    Returns positions; other arguments as :func:`lmc`.

    Examples
    --------
    >>> import numpy as np
    >>> x, calls = ulmc(lambda x: x, np.zeros((1000, 1)), 0.1, 50, np.random.default_rng(0))
    >>> int(calls.sum())
    50000
    """
    return _exponential(grad_F, x0, h, n_steps, rng, UnderdampedScheme(gamma, u), L=L, v0=v0)


def rlmc(
    grad_F: GradFn, x0: Any, h: float, n_steps: int, rng: Any, *, L: float | None = None
) -> SampleResult:
    """Randomized midpoint LMC (Shen & Lee 2019), two gradient calls per step; arguments as :func:`lmc`.

    Examples
    --------
    >>> import numpy as np
    >>> x, calls = rlmc(lambda x: x, np.zeros((100, 1)), 0.1, 10, np.random.default_rng(0))
    >>> int(calls[0])
    20
    """
    return _midpoint(grad_F, x0, h, n_steps, rng, OverdampedScheme(), L=L)


def rlmc_underdamped(
    grad_F: GradFn,
    x0: Any,
    h: float,
    n_steps: int,
    rng: Any,
    *,
    gamma: float = 2.0,
    u: float = 1.0,
    v0: Any = None,
    L: float | None = None,
) -> SampleResult:
    """Randomized midpoint method for underdamped Langevin (Shen & Lee 2019), two gradient calls per step.

    Arguments as :func:`ulmc`.

    Examples
    --------
    >>> import numpy as np
    >>> x, calls = rlmc_underdamped(lambda x: x, np.zeros((100, 1)), 0.1, 10, np.random.default_rng(0))
    >>> int(calls[0])
    20
    """
    return _midpoint(grad_F, x0, h, n_steps, rng, UnderdampedScheme(gamma, u), L=L, v0=v0)
