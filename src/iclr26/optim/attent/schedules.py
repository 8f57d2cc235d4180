"""Selected-fraction schedules of a teacher (AtteNT, arXiv 2602.20461): what fraction of the pool to train on when.

* :class:`AtteNTCycle`: the official AtteNT schedule (Jianghui-Wang/AttenNT, ``AtteNTComplex``), over epochs:
  one full-data warm-up epoch, then ``cycles`` cycles of ``P = (epochs - 1) // cycles`` epochs each: score the
  pool, train ``interval_c`` epochs on the top fraction ``ratio_c``, then ``P - interval_c`` epochs on the full
  pool. With progress ``p_c = c / (cycles - 1)``:

      ratio_c    = r0 + (r1 - r0) (1 - cos(pi p_c)) / 2           ("cosine"; "incremental": r0 + (r1 - r0) p_c)
      interval_c = I0                                            ("fixed"; "incremental": I0 + floor((Imax - I0) p_c))
      k          = max(1, floor(ratio_c N))                      (examples kept)

* the GraNT-style curricula the first version of this package used: :class:`StepRatio` (multiply the fraction
  every few ticks), :class:`LinearRatio`, :class:`ConstantRatio`, with k = ceil(ratio N).

A schedule maps a tick t (an epoch in the experiment) to rho(t) in (0, 1]; :meth:`RatioSchedule.starts_selection`
says whether tick t opens a fresh selection (always, except inside an AtteNT subset phase, whose subset is kept)
and :meth:`RatioSchedule.count` turns a ratio into a number of examples.

Example
-------
>>> s = AtteNTCycle(epochs=21, cycles=10, initial_interval=1)
>>> [p.phase for p in s.plan()[:4]], s.n_epochs
(['warmup', 'subset', 'full', 'subset'], 21)
>>> round(s(1), 3), s(2), round(s(19), 3)
(0.2, 1.0, 0.8)
>>> StepRatio(0.1, every=2)(5)
0.4
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from iclr26.checks import check_choice, check_float, check_int

__all__ = [
    "AtteNTCycle",
    "ConstantRatio",
    "CycleEpoch",
    "LinearRatio",
    "RatioSchedule",
    "StepRatio",
    "default_step_ratio",
    "n_selected",
]


def n_selected(ratio: float, n: int) -> int:
    """ceil(ratio * n), at least 1, computed robustly against float round-off (0.1 * 30 -> 3)."""
    check_float("ratio", ratio, 0.0, 1.0, low_open=True, type_error=True)
    check_int("n", n, 1, type_error=True)
    return max(1, min(n, math.ceil(round(ratio * n, 9))))


class RatioSchedule:
    """A selected fraction rho(t) in (0, 1] of the selection clock t = 0, 1, 2, ..."""

    def __call__(self, t: int) -> float:
        raise NotImplementedError

    def starts_selection(self, t: int) -> bool:
        """Whether tick t opens a fresh selection (True: every due tick re-selects)."""
        self._check_t(t)
        return True

    def count(self, ratio: float, n: int) -> int:
        """How many of `n` candidates a fraction `ratio` keeps: ceil(ratio n), at least 1."""
        return n_selected(ratio, n)

    def _check_t(self, t: int) -> int:
        return check_int("t", t, 0, type_error=True)


@dataclass(frozen=True)
class ConstantRatio(RatioSchedule):
    """rho(t) = ratio (no curriculum; ratio = 1 is full-data training)."""

    ratio: float

    def __post_init__(self) -> None:
        check_float("ratio", self.ratio, 0.0, 1.0, low_open=True, type_error=True)

    def __call__(self, t: int) -> float:
        self._check_t(t)
        return float(self.ratio)


@dataclass(frozen=True)
class StepRatio(RatioSchedule):
    """rho(t) = min(1, start * factor ** floor(t / every)): multiply the fraction every `every` ticks."""

    start: float = 0.1
    every: int = 1
    factor: float = 2.0

    def __post_init__(self) -> None:
        check_float("start", self.start, 0.0, 1.0, low_open=True, type_error=True)
        check_int("every", self.every, 1, type_error=True)
        check_float("factor", self.factor, low=1.0, low_open=True)

    def __call__(self, t: int) -> float:
        t = self._check_t(t)
        return float(min(1.0, self.start * self.factor ** (t // self.every)))


@dataclass(frozen=True)
class LinearRatio(RatioSchedule):
    """rho(t) = start + (1 - start) * min(1, t / ramp): a linear ramp that reaches 1 at t = ramp."""

    start: float = 0.1
    ramp: int = 1

    def __post_init__(self) -> None:
        check_float("start", self.start, 0.0, 1.0, low_open=True, type_error=True)
        check_int("ramp", self.ramp, 1, type_error=True)

    def __call__(self, t: int) -> float:
        t = self._check_t(t)
        return float(min(1.0, self.start + (1.0 - self.start) * t / self.ramp))


def default_step_ratio(total: int, start: float = 0.1) -> StepRatio:
    """The GraNT-style default for `total` ticks: double every total // 5 (0.1, .2, .4, .8, 1.0)."""
    check_int("total", total, 1, type_error=True)
    return StepRatio(start=start, every=max(1, total // 5), factor=2.0)


@dataclass(frozen=True)
class CycleEpoch:
    """One epoch of an :class:`AtteNTCycle` plan: its phase, cycle (None in warm-up) and selected fraction."""

    epoch: int
    phase: str  # "warmup", "subset" or "full"
    cycle: int | None
    ratio: float
    starts: bool = False  # the first subset epoch of its cycle: the pool is scored and a subset chosen


@dataclass(frozen=True)
class AtteNTCycle(RatioSchedule):
    """The official AtteNT schedule (``AtteNTComplex``): warm-up epoch, then cycles of subset and full epochs.

    Parameters (the release's defaults)
    ----------
    epochs : the epoch budget E; each cycle lasts ``(E - 1) // cycles`` epochs. As in the release, the
        ``(E - 1) % cycles`` leftover epochs are not run and a cycle whose interval exceeds its length runs
        longer; :attr:`n_epochs` is the length of the plan actually run.
    cycles : number of selection cycles (10).
    initial_ratio, final_ratio : the selected fraction goes from r0 (0.2) to r1 (0.8), clamped to [r0, r1].
    ratio_schedule : "cosine" (default) or "incremental" (linear) in the cycle progress c / (cycles - 1).
    interval_schedule : "fixed" (default: ``initial_interval`` subset epochs per cycle) or "incremental"
        (``initial_interval + floor((max_interval - initial_interval) c / (cycles - 1))``).
    initial_interval, max_interval : 5 and 10.
    """

    epochs: int
    cycles: int = 10
    initial_ratio: float = 0.2
    final_ratio: float = 0.8
    ratio_schedule: str = "cosine"
    interval_schedule: str = "fixed"
    initial_interval: int = 5
    max_interval: int = 10

    def __post_init__(self) -> None:
        check_int("epochs", self.epochs, 1, type_error=True)
        check_int("cycles", self.cycles, 1, type_error=True)
        check_float("initial_ratio", self.initial_ratio, 0.0, 1.0, low_open=True, type_error=True)
        check_float("final_ratio", self.final_ratio, 0.0, 1.0, low_open=True, type_error=True)
        if self.final_ratio < self.initial_ratio:
            raise ValueError(
                f"final_ratio must be >= initial_ratio={self.initial_ratio}, got {self.final_ratio}"
            )
        check_choice("ratio_schedule", self.ratio_schedule, ("cosine", "incremental"))
        check_choice("interval_schedule", self.interval_schedule, ("fixed", "incremental"))
        check_int("initial_interval", self.initial_interval, 1, type_error=True)
        check_int("max_interval", self.max_interval, self.initial_interval, type_error=True)

    def _progress(self, cycle: int) -> float:
        check_int("cycle", cycle, 0, type_error=True)
        if cycle >= self.cycles:
            raise ValueError(f"cycle must be < cycles={self.cycles}, got {cycle}")
        return cycle / (self.cycles - 1) if self.cycles > 1 else 1.0

    def ratio_at(self, cycle: int) -> float:
        """Selected fraction of cycle `cycle` (0-based)."""
        p = self._progress(cycle)
        if self.ratio_schedule == "cosine":
            p = (1.0 - math.cos(p * math.pi)) / 2.0
        ratio = self.initial_ratio + (self.final_ratio - self.initial_ratio) * p
        return min(max(ratio, self.initial_ratio), self.final_ratio)

    def interval_at(self, cycle: int) -> int:
        """Number of subset epochs in cycle `cycle` (0-based)."""
        p = self._progress(cycle)
        if self.interval_schedule == "fixed":
            return self.initial_interval
        return self.initial_interval + int((self.max_interval - self.initial_interval) * p)

    @property
    def epochs_per_cycle(self) -> int:
        """P = (epochs - 1) // cycles: epochs of one cycle after the warm-up epoch."""
        return (self.epochs - 1) // self.cycles

    @cached_property
    def _plan(self) -> tuple[CycleEpoch, ...]:
        out = [CycleEpoch(0, "warmup", None, 1.0)]
        for c in range(self.cycles):
            ratio, interval = self.ratio_at(c), self.interval_at(c)
            for j in range(interval):
                out.append(CycleEpoch(len(out), "subset", c, ratio, starts=j == 0))
            for _ in range(self.epochs_per_cycle - interval):
                out.append(CycleEpoch(len(out), "full", c, 1.0))
        return tuple(out)

    def plan(self) -> list[CycleEpoch]:
        """Every epoch of the run, in order."""
        return list(self._plan)

    @property
    def n_epochs(self) -> int:
        """Length of the plan: 1 + sum over cycles of max(interval_c, epochs_per_cycle)."""
        return len(self._plan)

    def _entry(self, t: int) -> CycleEpoch:
        t = self._check_t(t)
        if t >= self.n_epochs:
            raise ValueError(f"t must be < n_epochs={self.n_epochs} (the schedule's plan), got {t}")
        return self._plan[t]

    def __call__(self, t: int) -> float:
        return float(self._entry(t).ratio)

    def starts_selection(self, t: int) -> bool:
        """True at the first subset epoch of a cycle (and on full epochs, which select everything)."""
        e = self._entry(t)
        return e.starts or e.phase != "subset"

    def count(self, ratio: float, n: int) -> int:
        """max(1, min(n, floor(ratio n))): the release's rounding."""
        check_float("ratio", ratio, 0.0, 1.0, low_open=True, type_error=True)
        check_int("n", n, 1, type_error=True)
        return max(1, min(n, int(n * ratio)))
