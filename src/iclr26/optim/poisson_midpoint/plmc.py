"""PLMC, the Poisson midpoint method: K fine steps of a linear-Gaussian scheme for about 2 gradient calls.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614), building on Kandasamy & Nagaraj, "The Poisson Midpoint Method for Langevin Dynamics" (NeurIPS 2024).

One coarse step of length h from X covers K fine steps of length delta = h / K of X <- A X + G b(X) + Gamma Z:

1. b0 = b(X)                                                                (one gradient call)
2. Z_0..Z_{K-1} ~ N(0, I) and H_0..H_{K-1} ~ Bernoulli(1/K), independent
3. reference path, drift frozen:  Xr_0 = X,  Xr_{i+1} = A Xr_i + G b0 + Gamma Z_i
4. corrected path:  Y_0 = X,  Y_{i+1} = A Y_i + G [b0 + K H_i (b(Xr_i) - b0)] + Gamma Z_i   (b only where H_i = 1)
5. X' = Y_K.

Expected gradient calls per coarse step: 1 + K (1/K) = 2. Since Y_i - Xr_i obeys D_{i+1} = A D_i + K H_i G db_i,

    Y_K = Xr_K + K sum_{i: H_i = 1} A^{K-1-i} G (b(Xr_i) - b0),                              (event-jump form)

so Xr is needed only at the event times and at h, where exact Gaussian transitions of the frozen-force chain
give it (the flows compose exactly, see ``schemes``). Overdamped this reads Y_K = X + h b0 + sqrt(2) W(h) +
h sum_events (b(Xr_i) - b0) with Xr_i = X + i delta b0 + sqrt(2) W(i delta). ``K=None`` is the continuous Poisson
limit: events at the jumps of a rate-1/h Poisson process on [0, h), each adding h A(h - t) e (b(Xr(t)) - b0).

The loop form (:func:`plmc_loop_step`) is the reference; the event-jump form (:func:`plmc_jump_step`) draws the
event times as geometric (or exponential) gaps and equals the loop exactly under shared randomness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from iclr26.checks import check_bool, check_choice
from iclr26.optim.poisson_midpoint.backend import Backend
from iclr26.optim.poisson_midpoint.driver import Drift, GradFn, SampleResult, check_K, setup
from iclr26.optim.poisson_midpoint.schemes import OverdampedScheme, UnderdampedScheme

__all__ = ["EventNoise", "EventRound", "draw_events", "plmc", "plmc_jump_step", "plmc_loop_step"]


@dataclass
class EventRound:
    """The r-th event of every chain that has one: chain indices (m,), times in [0, h) (m,), and the
    frozen-path noise (m, *state) accumulated from the chain's previous event (or 0) to this one."""

    chains: Any
    times: Any
    noise: Any


@dataclass
class EventNoise:
    """All randomness of one event-jump coarse step: the rounds of events and the noise from the last event
    (or 0) to h of every chain, shape (n_chains, *state)."""

    rounds: list[EventRound]
    final_noise: Any


def plmc_loop_step(drift: Drift, scheme: Any, X: Any, h: float, K: int, noise: Any, events: Any) -> Any:
    """One PLMC coarse step, the K-step loop; ``noise[i] = Gamma(h/K) Z_i`` and ``events[i]`` = H_i, (K, n)."""
    delta = h / K
    b0 = drift(scheme.position(X))  # b0 = b(X_t)
    Xr, Y = X, X
    for i in range(K):
        inc = scheme.force(b0, delta) + noise[i]  # G b0 + Gamma Z_i
        Y = scheme.propagate(Y, delta) + inc
        on = drift.bk.nonzero(events[i])
        if on.shape[0]:
            db = drift(scheme.position(Xr[on]), on) - b0[on]  # b(Xr_i) - b0 where H_i = 1
            Y[on] += K * scheme.force(db, delta)  # + K H_i G (b(Xr_i) - b0)
        Xr = scheme.propagate(Xr, delta) + inc  # Xr_{i+1} = A Xr_i + G b0 + Gamma Z_i
    return Y


def plmc_jump_step(drift: Drift, scheme: Any, X: Any, h: float, K: int | None, events: EventNoise) -> Any:
    """One PLMC coarse step in event-jump form: Y_K = Xr_K + sum over events of the propagated corrections."""
    bk = drift.bk
    b0 = drift(scheme.position(X))
    Xr = X + 0.0  # frozen-force chain at each chain's latest event (a copy: rows are overwritten)
    t_last = bk.zeros((X.shape[0],))
    correction = bk.zeros(tuple(X.shape))
    for rnd in events.rounds:
        c, tau = rnd.chains, rnd.times - t_last[rnd.chains]
        # the frozen-force chain from the previous event to this one, an exact Gaussian transition
        xr = scheme.propagate(Xr[c], tau) + scheme.force(b0[c], tau) + rnd.noise
        Xr[c] = xr
        t_last[c] = rnd.times
        db = drift(scheme.position(xr), c) - b0[c]
        if K is None:
            correction[c] += h * scheme.kick(db, h - rnd.times)  # h A(h - t) e db
        else:
            delta = h / K  # K A^{K-1-i} G db with i delta = t
            correction[c] += K * scheme.propagate(scheme.force(db, delta), h - rnd.times - delta)
    tau = h - t_last
    return scheme.propagate(Xr, tau) + scheme.force(b0, tau) + events.final_noise + correction  # Xr_K + sum


def draw_events(bk: Backend, scheme: Any, n_chains: int, dim: int, h: float, K: int | None) -> EventNoise:
    """Draw the event times (H_i ~ Bernoulli(1/K) as geometric gaps; K=None: exponential gaps of mean h) and
    the frozen-path noise between consecutive events, Gamma(tau) Z."""

    def gaps(m: int) -> Any:  # to the next event: in fine steps (finite K) or in time (K=None)
        return h * bk.exponential(m) if K is None else bk.geometric(1.0 / K, m)

    horizon = h if K is None else K
    chains = bk.arange(n_chains)
    t_last = bk.zeros((n_chains,))
    where = gaps(n_chains) if K is None else gaps(n_chains) - 1  # first event: time E h, or index G - 1 >= 0
    rounds: list[EventRound] = []
    while True:
        keep = bk.nonzero(where < horizon)
        chains, where = chains[keep], where[keep]
        m = int(chains.shape[0])
        if not m:
            break
        times = where if K is None else bk.to_float(where) * (h / K)
        noise = scheme.noise(bk.normal(scheme.noise_shape(m, dim)), times - t_last[chains])
        rounds.append(EventRound(chains, times, noise))
        t_last[chains] = times
        where = where + gaps(m)
    final = scheme.noise(bk.normal(scheme.noise_shape(n_chains, dim)), h - t_last)
    return EventNoise(rounds, final)


def plmc(
    grad_F: GradFn,
    x0: Any,
    h: float,
    n_steps: int,
    rng: Any,
    *,
    overdamped: bool = True,
    K: int | None = 16,
    form: str = "jump",
    gamma: float = 2.0,
    u: float = 1.0,
    v0: Any = None,
    L: float | None = None,
) -> SampleResult:
    """Poisson midpoint Langevin Monte Carlo: each step of length h costs 2 gradient calls on average.

    Parameters
    ----------
    grad_F : maps positions (m, d) to gradients (m, d) (NumPy or torch, as x0).
    x0 : initial positions, (n_chains, d).
    h : coarse step size, > 0.
    n_steps : number of coarse steps.
    rng : ``numpy.random.Generator`` (NumPy x0) or ``torch.Generator`` (torch x0).
    overdamped : overdamped Langevin (True) or underdamped Langevin with the exponential integrator (False).
    K : fine steps per coarse step (int >= 1), or None for the continuous Poisson limit (``form="jump"`` only).
    form : ``"jump"`` (event-jump form, draws noise only at event times) or ``"loop"`` (the K-step reference).
    gamma, u : friction and inverse mass of the underdamped dynamics.
    v0 : initial velocities for the underdamped dynamics (default zeros).
    L : smoothness constant, if known: h >= 2/L warns.

    Returns
    -------
    SampleResult
        ``samples`` (n_chains, d) positions and ``grad_calls`` per chain (n_chains,).

    Examples
    --------
    >>> import numpy as np
    >>> x, calls = plmc(lambda x: x, np.zeros((2000, 1)), 0.2, 40, np.random.default_rng(0), K=8)
    >>> x.shape, bool(1.8 < calls.mean() / 40 < 2.2)
    ((2000, 1), True)
    """
    K = check_K(K)
    check_choice("form", form, ("jump", "loop"))
    if form == "loop" and K is None:
        raise ValueError("K=None (the continuous Poisson limit) needs form='jump'")
    try:
        check_bool("overdamped", overdamped)
    except TypeError as err:  # a ValueError, as it always was
        raise ValueError(str(err)) from None
    if overdamped and v0 is not None:
        raise ValueError("v0 is used only by the underdamped dynamics (overdamped=False)")
    scheme = OverdampedScheme() if overdamped else UnderdampedScheme(gamma, u)
    s = setup(grad_F, x0, h, n_steps, rng, scheme, L=L, v0=v0)
    X = s.state
    for _ in range(n_steps):
        if form == "loop":
            events = s.bk.uniform((K, s.n_chains)) < 1.0 / K  # H_i ~ Bernoulli(1/K)
            noise = [s.noise(s.h / K) for _ in range(K)]
            X = plmc_loop_step(s.drift, scheme, X, s.h, K, noise, events)
        else:
            X = plmc_jump_step(
                s.drift, scheme, X, s.h, K, draw_events(s.bk, scheme, s.n_chains, s.dim, s.h, K)
            )
    return s.result(X)
