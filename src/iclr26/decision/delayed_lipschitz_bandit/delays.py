"""Stochastic delays and the delivery queue of "Lipschitz Bandits with Stochastic Delayed Feedback".

Paper: Liu, Kang and Lee, ICLR 2026 (arXiv 2510.00309). The reward of round t is revealed at round
t + tau_t, where tau_t ~ f_tau is drawn independently of everything else; tau_t = inf means it is never
revealed (censored feedback). Delays are non-negative integers (or inf), drawn in bulk as a float array.

Samplers: :class:`NoDelay` (tau = 0), :class:`UniformDelay` (uniform on {0..max}, bounded),
:class:`GeometricDelay` (geometric on {0, 1, ...}, unbounded), :class:`CensoredDelay` (inf with probability
1 - p, else a base delay). Each exposes ``sample(rng, size)``, ``mean``, ``max_delay`` and the p-quantile
``quantile(p)`` = Q(p) = min{k : P(tau <= k) >= p} that DLPP's regret bound is written in.
:class:`DelayQueue` is a heap keyed by arrival round that delivers ``(pull_id, arm_id, reward)``.
"""

from __future__ import annotations

import heapq
import math
from typing import Protocol, runtime_checkable

import numpy as np

from iclr26.checks import check_float, check_int, check_probability

__all__ = [
    "CensoredDelay",
    "DelayModel",
    "DelayQueue",
    "GeometricDelay",
    "NoDelay",
    "UniformDelay",
    "check_delays",
]


@runtime_checkable
class DelayModel(Protocol):
    """A delay distribution: ``sample(rng, size)`` returns non-negative integer delays (float array, inf = lost)."""

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray: ...


def _check_sample(rng: np.random.Generator, size: int) -> int:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return check_int("size", size, low=0)


def check_delays(delays: np.ndarray, name: str = "delays") -> np.ndarray:
    """Return `delays` as a float array after checking that every entry is a non-negative integer or inf."""
    arr = np.asarray(delays, dtype=float)
    finite = arr[np.isfinite(arr)]
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(
            f"{name} must be non-negative integers (or inf for lost feedback), found negative or NaN values"
        )
    if np.any(finite != np.floor(finite)):
        raise ValueError(
            f"{name} must be non-negative integers (or inf for lost feedback), found non-integer values"
        )
    return arr


class NoDelay:
    """tau = 0: every reward is revealed in the round it is earned.

    Examples
    --------
    >>> NoDelay().sample(np.random.default_rng(0), 3)
    array([0., 0., 0.])
    """

    mean = 0.0
    max_delay = 0.0

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.zeros(_check_sample(rng, size))

    def quantile(self, p: float) -> float:
        check_probability("p", p, open_low=True)
        return 0.0

    def __repr__(self) -> str:
        return "NoDelay()"


class UniformDelay:
    """tau uniform on {0, 1, ..., max} (bounded; mean max / 2).

    Examples
    --------
    >>> d = UniformDelay(100)
    >>> d.mean, d.quantile(0.5), bool(d.sample(np.random.default_rng(0), 1000).max() <= 100)
    (50.0, 50.0, True)
    """

    def __init__(self, max: int) -> None:  # the brief names it max (shadows the builtin here only)
        self.max = check_int("max (a non-negative integer delay)", max, low=0)
        self.mean = self.max / 2.0
        self.max_delay = float(self.max)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        size = _check_sample(rng, size)
        return rng.integers(0, self.max + 1, size=size).astype(float)

    def quantile(self, p: float) -> float:
        check_probability("p", p, open_low=True)
        return float(max(0, math.ceil(p * (self.max + 1) - 1e-12) - 1))  # P(tau <= k) = (k + 1) / (max + 1)

    def __repr__(self) -> str:
        return f"UniformDelay({self.max})"


class GeometricDelay:
    """tau geometric on {0, 1, 2, ...} with the given mean: P(tau = k) = q (1 - q)^k, q = 1 / (1 + mean).

    Examples
    --------
    >>> d = GeometricDelay(50.0)
    >>> round(float(d.sample(np.random.default_rng(0), 200_000).mean()), 0), d.max_delay
    (50.0, inf)
    """

    def __init__(self, mean: float) -> None:
        self.mean = check_float("mean (delay)", mean, low=0.0)
        self.success = 1.0 / (1.0 + self.mean)
        self.max_delay = math.inf if self.mean > 0 else 0.0

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        size = _check_sample(rng, size)
        return (rng.geometric(self.success, size=size) - 1).astype(
            float
        )  # numpy's geometric lives on {1, 2, ...}

    def quantile(self, p: float) -> float:
        check_probability("p", p, open_low=True)
        if self.success >= 1.0:
            return 0.0
        # P(tau <= k) = 1 - (1 - q)^(k + 1) >= p
        return (
            float(max(0, math.ceil(math.log1p(-p) / math.log1p(-self.success) - 1e-12) - 1))
            if p < 1
            else math.inf
        )

    def __repr__(self) -> str:
        return f"GeometricDelay({self.mean:g})"


class CensoredDelay:
    """tau = inf (the reward is lost) with probability 1 - p, otherwise a draw of `base`.

    Examples
    --------
    >>> d = CensoredDelay(0.5, GeometricDelay(20))
    >>> lost = np.isinf(d.sample(np.random.default_rng(0), 10_000)).mean()
    >>> bool(0.45 < lost < 0.55), d.quantile(0.6)
    (True, inf)
    """

    def __init__(self, p: float, base: DelayModel | None = None) -> None:
        p = check_probability("p (the probability that a reward arrives)", p, open_low=True)
        base = NoDelay() if base is None else base
        if not isinstance(base, DelayModel):
            raise TypeError(f"base must be a delay model with sample(rng, size), got {base!r}")
        self.p = float(p)
        self.base = base
        self.mean = math.inf if self.p < 1 else float(getattr(base, "mean", math.nan))
        self.max_delay = math.inf if self.p < 1 else float(getattr(base, "max_delay", math.inf))

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        size = _check_sample(rng, size)
        delays = np.asarray(self.base.sample(rng, size), dtype=float)
        lost = rng.random(size) >= self.p
        return np.where(lost, math.inf, delays)

    def quantile(self, p: float) -> float:
        check_probability("p", p, open_low=True)
        if p > self.p:  # P(tau <= k) = p_arrive * F_base(k) never reaches p
            return math.inf
        return float(self.base.quantile(p / self.p))  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"CensoredDelay({self.p:g}, {self.base!r})"


class DelayQueue:
    """Rewards in flight: a heap keyed by arrival round, delivering ``(pull_id, arm_id, reward)``.

    The pull id is the round of the pull. A reward pulled at round s with delay tau arrives at the end of
    round s + tau (tau = 0: in the round it is earned); tau = inf counts as censored and never surfaces.

    Examples
    --------
    >>> q = DelayQueue()
    >>> q.push(1, 2, arm_id=7, reward=0.5)
    >>> q.push(2, math.inf, arm_id=3, reward=0.1)
    >>> q.pop_due(2), q.pop_due(3), len(q), q.censored
    ([], [(1, 7, 0.5)], 0, 1)
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, int, float]] = []
        self.censored = 0
        self.pushed = 0

    def push(self, pull_id: int, delay: float, arm_id: int, reward: float) -> None:
        """Schedule the reward of the pull at round `pull_id` for round ``pull_id + delay``."""
        check_int("pull_id", pull_id)
        check_float("reward", reward)
        d = check_float(
            "delay (a non-negative integer, or inf for lost feedback)", delay, low=0.0, finite=False
        )
        if d != math.inf and d != int(d):
            raise ValueError(
                f"delay must be a non-negative integer (or inf for lost feedback), got {delay!r}"
            )
        self._push(pull_id, delay, arm_id, reward)

    def _push(self, pull_id: int, delay: float, arm_id: int, reward: float) -> None:
        """:meth:`push` for already checked arguments (the runner's loop, whose delays are checked up front)."""
        self.pushed += 1
        if delay == math.inf:
            self.censored += 1
            return
        heapq.heappush(self._heap, (pull_id + delay, pull_id, arm_id, reward))

    def pop_due(self, t: int) -> list[tuple[int, int, float]]:
        """Every ``(pull_id, arm_id, reward)`` arriving at or before round `t`, in arrival order."""
        return self._pop_due(check_int("t", t))

    def _pop_due(self, t: int) -> list[tuple[int, int, float]]:
        """:meth:`pop_due` for an already checked round `t`."""
        heap, due = self._heap, []
        while heap and heap[0][0] <= t:
            _, pull_id, arm_id, reward = heapq.heappop(heap)
            due.append((pull_id, arm_id, reward))
        return due

    def __len__(self) -> int:
        """The number of rewards in flight (pushed, not censored, not yet delivered)."""
        return len(self._heap)
