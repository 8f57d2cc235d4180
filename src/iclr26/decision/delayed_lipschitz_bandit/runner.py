"""The interaction loop of a Lipschitz bandit with stochastic delayed feedback.

Paper: Liu, Kang and Lee, "Lipschitz Bandits with Stochastic Delayed Feedback", ICLR 2026 (arXiv 2510.00309).
Round t = 1..T: the algorithm chooses x_t (``select(t)``); the environment draws y_t = mu(x_t) + eps_t and a
delay tau_t ~ f_tau; y_t is delivered with ``receive(t + tau_t, arm_id, t, y_t)`` at the end of round
t + tau_t (tau = 0: at the end of round t; tau = inf: never). Regret R(t) = sum_{s <= t} (mu* - mu(x_s)).

The noise eps_1..eps_T comes from the environment's seed and the delays tau_1..tau_T from ``seed``, both per
round, so algorithms run with the same (env, delay, seed) face the same noise and delays at every round.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from iclr26.checks import check_int
from iclr26.decision.delayed_lipschitz_bandit.delays import DelayModel, DelayQueue, check_delays
from iclr26.decision.delayed_lipschitz_bandit.envs import LipschitzEnv
from iclr26.lab.online import AskTell

__all__ = ["LipschitzBandit", "run"]


@runtime_checkable
class LipschitzBandit(AskTell, Protocol):
    """An ask/tell Lipschitz bandit: ``select(t) -> (x, arm_id)``, ``receive(t, arm_id, pull_t, y)``."""

    dim: int
    horizon: int

    @property
    def n_active(self) -> int: ...

    def feedback_counts(self) -> dict[str, int]: ...


def run(env: LipschitzEnv, algo: LipschitzBandit, delay: DelayModel, T: int, seed: int) -> dict[str, Any]:
    """Play `algo` for T rounds on `env` with delays from `delay`; return its regret curve and bookkeeping.

    Returns
    -------
    dict with ``regret_curve`` (cumulative regret after rounds 1..T, shape (T,)), ``n_active`` (active arms or
    cubes after each round, shape (T,)), ``phases`` (rounds at which a phase ended, [] if none), ``points``
    (x_t, shape (T, dim)), ``arm_ids`` (shape (T,)), ``delays`` (tau_t) and ``counts`` (pulls; rewards
    incorporated, buffered, discarded by the algorithm; in flight; censored).

    Examples
    --------
    >>> from iclr26.decision.delayed_lipschitz_bandit import DLPP, UniformDelay, make_env
    >>> out = run(make_env("trig1d"), DLPP(1, 500, conf_scale=0.1), UniformDelay(20), T=500, seed=0)
    >>> out["regret_curve"].shape, sum(v for k, v in out["counts"].items() if k != "pulls") == 500
    ((500,), True)
    """
    T = check_int("T", T, low=1)
    check_int("seed", seed, low=0)
    if not isinstance(env, LipschitzEnv):
        raise TypeError(f"env must be a LipschitzEnv, got {type(env).__name__}")
    if not isinstance(algo, LipschitzBandit):
        raise TypeError(
            f"algo must be a Lipschitz bandit (select, receive, dim, horizon, n_active, feedback_counts), "
            f"got {type(algo).__name__}"
        )
    if algo.dim != env.dim:
        raise ValueError(
            f"dim mismatch: the algorithm has dim={algo.dim} but the environment has dim={env.dim}"
        )
    if T > algo.horizon:
        raise ValueError(f"T={T} exceeds the algorithm's horizon={algo.horizon}")
    if not isinstance(delay, DelayModel):
        raise TypeError(f"delay must be a delay model with sample(rng, size), got {delay!r}")
    delays = check_delays(delay.sample(np.random.default_rng(seed), T), "delay samples")
    if delays.shape != (T,):
        raise ValueError(f"delay.sample(rng, {T}) must return shape ({T},), got {delays.shape}")
    eps = env.noise(T)
    mu, mu_star = env.mu, env.mu_star
    queue = DelayQueue()
    means: dict[bytes, float] = {}  # mu at points already played (zooming and grid arms repeat)
    gaps = np.empty(T)
    n_active = np.empty(T, dtype=np.int64)
    points = np.empty((T, env.dim))
    arm_ids = np.empty(T, dtype=np.int64)
    for t in range(1, T + 1):
        x, arm = algo.select(t)
        key = x.tobytes()
        m = means.get(key)
        if m is None:
            m = means[key] = float(mu(x[None, :])[0])
        gaps[t - 1] = mu_star - m  # mu* - mu(x_t)
        points[t - 1], arm_ids[t - 1] = x, arm
        queue._push(t, delays[t - 1], arm, m + eps[t - 1])  # y_t = mu(x_t) + eps_t, due at round t + tau_t
        for pull_t, arm_id, y in queue._pop_due(t):
            algo.receive(t, arm_id, pull_t, y)
        n_active[t - 1] = algo.n_active
    counts = {"pulls": T, **algo.feedback_counts(), "in_flight": len(queue), "censored": queue.censored}
    return {
        "regret_curve": np.cumsum(gaps),
        "n_active": n_active,
        "phases": list(getattr(algo, "phase_ends", [])),
        "points": points,
        "arm_ids": arm_ids,
        "delays": delays,
        "counts": counts,
    }
