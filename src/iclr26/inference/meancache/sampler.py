"""MeanCache sampler and caching baselines (MeanCache, Gao et al., ICLR 2026, arXiv 2601.19961).

Flow ODE dz/dt = v(z, t) integrated by Euler from sigma_0 = 1 (noise) down to sigma_N = 0. On a *computed* step
the network is called; on a *skipped* step the average velocity over the step is estimated from the cache
(the official ``compute_current_jvp``): with the last K logged steps i0 = L-K .. i1 = L-1,

    u_avg   = (z_after[i1] - z_before[i0]) / (sigma[i1+1] - sigma[i0])
    JVP_hat = (v[i0] - u_avg) / (sigma[i1+1] - sigma[i0])
    u_hat   = v_last - JVP_hat * (sigma[i+1] - sigma[i])          (MeanFlow identity u = v - (t - s) du/dt)

and the skipped step is logged like a real one. K = 1 gives JVP_hat = 0 (plain reuse of v_last).

Baselines: plain / fewer-step Euler, uniform velocity reuse (FORA-like, K = 1), TeaCache-style adaptive reuse
(accumulated relative L1 change of the network input triggers a recompute) and TaylorSeer-style first-order
extrapolation of v from the last two computed steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = [
    "CacheLog",
    "MeanCacheSampler",
    "VelocityFn",
    "check_sigmas",
    "euler_sample",
    "shifted_sigmas",
    "taylorseer_sample",
    "teacache_sample",
    "tune_teacache",
    "uniform_schedule",
]

VelocityFn = Callable[[torch.Tensor, float, Any], torch.Tensor]


def shifted_sigmas(n_steps: int, shift: float = 3.0) -> list[float]:
    """SD3/FLUX-style shifted schedule sigma = shift s / (1 + (shift - 1) s), s = linspace(1, 0, n_steps + 1)."""
    check_int("n_steps", n_steps, low=1)
    check_float("shift", shift, low=0.0, low_open=True)
    s = np.linspace(1.0, 0.0, n_steps + 1)
    return [float(x) for x in shift * s / (1.0 + (shift - 1.0) * s)]


def check_sigmas(sigmas: Sequence[float]) -> list[float]:
    """Validate a strictly decreasing sigma grid of length N + 1 >= 2; return it as floats."""
    sig = [float(s) for s in sigmas]
    if len(sig) < 2:
        raise ValueError(f"sigmas must hold at least 2 values (N + 1 for N steps), got {len(sig)}")
    if not all(np.isfinite(sig)):
        raise ValueError("sigmas must be finite")
    if any(b >= a for a, b in zip(sig, sig[1:])):
        raise ValueError("sigmas must be strictly decreasing (non-monotone sigma grid)")
    return sig


def uniform_schedule(n_steps: int, budget: int) -> list[bool]:
    """Compute `budget` steps spread evenly over 0..N-1 (first and last step included)."""
    check_int("n_steps", n_steps, low=1)
    check_int("budget", budget, 1, n_steps)
    idx = {int(round(x)) for x in np.linspace(0, n_steps - 1, budget)}
    return [i in idx for i in range(n_steps)]


@dataclass
class CacheLog:
    """Per-step log of the sampler: latents before/after, sigmas and (real or estimated) velocities."""

    z_before: list[torch.Tensor] = field(default_factory=list)
    z_after: list[torch.Tensor] = field(default_factory=list)
    sig: list[float] = field(default_factory=list)
    sig_next: list[float] = field(default_factory=list)
    v: list[torch.Tensor] = field(default_factory=list)
    computed: list[bool] = field(default_factory=list)

    def add(
        self, zb: torch.Tensor, za: torch.Tensor, s: float, s_next: float, v: torch.Tensor, real: bool
    ) -> None:
        self.z_before.append(zb)
        self.z_after.append(za)
        self.sig.append(s)
        self.sig_next.append(s_next)
        self.v.append(v)
        self.computed.append(real)

    def jvp_hat(self, k: int) -> torch.Tensor:
        """The cached JVP estimate over the last `k` logged steps (window i0 = L-k .. i1 = L-1)."""
        n = len(self.v)
        if not 1 <= k <= n:
            raise ValueError(f"jvp window K={k} exceeds the available history of {n} logged steps")
        i0, i1 = n - k, n - 1
        span = self.sig_next[i1] - self.sig[i0]
        u_avg = (self.z_after[i1] - self.z_before[i0]) / span
        return (self.v[i0] - u_avg) / span


def check_velocity_fn(velocity_fn: object) -> None:
    if not callable(velocity_fn):
        raise ValueError("velocity_fn must be callable v(z, sigma, cond)")


def check_z(name: str, z: object) -> torch.Tensor:
    return check_tensor(name, z, floating=True)


def checked_velocity(velocity_fn: VelocityFn, z: torch.Tensor, sigma: float, cond: Any) -> torch.Tensor:
    """``velocity_fn(z, sigma, cond)``, refused unless it is a tensor shaped like ``z``."""
    v = velocity_fn(z, sigma, cond)
    if not isinstance(v, torch.Tensor) or v.shape != z.shape:
        raise ValueError(
            f"velocity_fn must return a tensor shaped like z {tuple(z.shape)}, got {getattr(v, 'shape', type(v))}"
        )
    return v


def _check_schedule(
    schedule: Sequence[bool], jvp_window: Sequence[int] | None, n: int
) -> tuple[list[bool], list[int]]:
    if isinstance(schedule, (str, bytes)):
        raise TypeError(f"schedule must be a sequence of bools, got {schedule!r}")
    for i, flag in enumerate(schedule):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"schedule[{i}] must be a bool (True = call the network), got {flag!r}")
    sched = [bool(s) for s in schedule]
    if len(sched) != n:
        raise ValueError(f"schedule length must equal the number of steps N={n}, got {len(sched)}")
    if not sched[0]:
        raise ValueError("schedule: the first step must be computed (schedule[0] must be True)")
    win = (
        [1] * n
        if jvp_window is None
        else [check_int(f"jvp_window[{i}]", k) for i, k in enumerate(jvp_window)]
    )
    if len(win) != n:
        raise ValueError(f"jvp_window length must equal the number of steps N={n}, got {len(win)}")
    for i in range(n):
        if not sched[i] and not 1 <= win[i] <= i:
            raise ValueError(
                f"jvp_window[{i}]={win[i]}: K must lie in [1, {i}] (K larger than the available history of {i} steps)"
            )
    return sched, win


class MeanCacheSampler:
    """Euler sampler that replaces skipped network calls by the MeanCache average-velocity estimate.

    Parameters
    ----------
    velocity_fn : callable v(z, sigma, cond) -> tensor shaped like z.
    sigmas : strictly decreasing grid sigma_0 > ... > sigma_N (N steps).
    schedule : N booleans, True = call the network at that step; schedule[0] must be True.
    jvp_window : N ints, the window K used at each skipped step (1 = plain reuse; ignored on computed steps).

    Examples
    --------
    >>> import torch
    >>> s = MeanCacheSampler(lambda z, t, c: -z, [1.0, 0.5, 0.0], [True, False], [1, 1])
    >>> z, nfe = s.sample(torch.ones(2))
    >>> nfe
    1
    """

    def __init__(
        self,
        velocity_fn: VelocityFn,
        sigmas: Sequence[float],
        schedule: Sequence[bool],
        jvp_window: Sequence[int] | None = None,
    ) -> None:
        check_velocity_fn(velocity_fn)
        self.velocity_fn = velocity_fn
        self.sigmas = check_sigmas(sigmas)
        self.n_steps = len(self.sigmas) - 1
        self.schedule, self.jvp_window = _check_schedule(schedule, jvp_window, self.n_steps)
        self.log = CacheLog()

    def sample(self, z_init: torch.Tensor, cond: Any = None) -> tuple[torch.Tensor, int]:
        """Integrate from `z_init` at sigma_0 to sigma_N; return (z_N, number of network evaluations)."""
        check_z("z_init", z_init)
        self.log = log = CacheLog()
        z, nfe, sig = z_init, 0, self.sigmas
        for i in range(self.n_steps):
            dt = sig[i + 1] - sig[i]
            if self.schedule[i]:
                v = checked_velocity(self.velocity_fn, z, sig[i], cond)
                nfe += 1
            else:
                k = self.jvp_window[i]
                v = log.v[-1] if k == 1 else log.v[-1] - log.jvp_hat(k) * dt
            z_next = z + dt * v
            log.add(z, z_next, sig[i], sig[i + 1], v, self.schedule[i])
            z = z_next
        return z, nfe

    def velocity_changes(self) -> np.ndarray:
        """Mean |v_i - v_{i-1}| per step of the last run (length N - 1)."""
        v = self.log.v
        return np.array([float((b - a).abs().mean()) for a, b in zip(v, v[1:])])


def euler_sample(
    velocity_fn: VelocityFn, sigmas: Sequence[float], z_init: torch.Tensor, cond: Any = None
) -> tuple[torch.Tensor, int]:
    """Plain Euler over `sigmas` (every step computed); returns (z_N, N)."""
    check_velocity_fn(velocity_fn)
    sig = check_sigmas(sigmas)
    z = check_z("z_init", z_init)
    for i in range(len(sig) - 1):
        dt = sig[i + 1] - sig[i]
        z = z + dt * checked_velocity(velocity_fn, z, sig[i], cond)
    return z, len(sig) - 1


def taylorseer_sample(
    velocity_fn: VelocityFn,
    sigmas: Sequence[float],
    schedule: Sequence[bool],
    z_init: torch.Tensor,
    cond: Any = None,
) -> tuple[torch.Tensor, int]:
    """TaylorSeer-style: on skipped steps v(sigma) ~ v_a + (v_a - v_b)/(s_a - s_b) (sigma - s_a).

    (a, b) are the last two computed steps; with one computed step so far, plain reuse.
    """
    check_velocity_fn(velocity_fn)
    sig = check_sigmas(sigmas)
    sched, _ = _check_schedule(schedule, None, len(sig) - 1)
    z, nfe, hist = check_z("z_init", z_init), 0, []  # hist: (sigma, v) of computed steps
    for i in range(len(sig) - 1):
        dt = sig[i + 1] - sig[i]
        if sched[i]:
            v = checked_velocity(velocity_fn, z, sig[i], cond)
            nfe += 1
            hist = (hist + [(sig[i], v)])[-2:]
        elif len(hist) == 1:
            v = hist[-1][1]
        else:
            (sb, vb), (sa, va) = hist
            v = va + (va - vb) / (sa - sb) * (sig[i] - sa)
        z = z + dt * v
    return z, nfe


def teacache_sample(
    velocity_fn: VelocityFn,
    sigmas: Sequence[float],
    z_init: torch.Tensor,
    cond: Any = None,
    threshold: float = 0.1,
) -> tuple[torch.Tensor, int]:
    """TeaCache-style adaptive reuse: recompute when the accumulated relative L1 change of the network input
    (z_t, over the batch) since the last computed step exceeds `threshold`; first and last step always computed."""
    check_velocity_fn(velocity_fn)
    sig = check_sigmas(sigmas)
    check_float("threshold", threshold, low=0.0)
    n = len(sig) - 1
    z, nfe, acc, v, z_prev = check_z("z_init", z_init), 0, 0.0, None, None
    for i in range(n):
        dt = sig[i + 1] - sig[i]
        if z_prev is not None:
            acc += float((z - z_prev).abs().mean() / z_prev.abs().mean().clamp_min(1e-12))
        if v is None or i == n - 1 or acc >= threshold:
            v = checked_velocity(velocity_fn, z, sig[i], cond)
            nfe += 1
            acc = 0.0
        z_prev = z
        z = z + dt * v
    return z, nfe


def tune_teacache(
    velocity_fn: VelocityFn,
    sigmas: Sequence[float],
    z_init: torch.Tensor,
    cond: Any,
    budget: int,
    iters: int = 30,
) -> tuple[float, torch.Tensor, int]:
    """Bisect the TeaCache threshold for the largest NFE <= `budget`; returns (threshold, z_N, nfe)."""
    n = len(check_sigmas(sigmas)) - 1
    check_int(f"budget (N = {n}; TeaCache always computes the first and last step)", budget, 2, n)
    check_int("iters", iters, low=1)
    lo, hi = 0.0, 1.0
    while teacache_sample(velocity_fn, sigmas, z_init, cond, hi)[1] > budget:
        hi *= 2.0
        if hi > 1e6:
            raise ValueError(f"budget={budget} is below TeaCache's minimum of 2 evaluations")
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if teacache_sample(velocity_fn, sigmas, z_init, cond, mid)[1] > budget:
            lo = mid
        else:
            hi = mid
    z, nfe = teacache_sample(velocity_fn, sigmas, z_init, cond, hi)
    return hi, z, nfe
