"""Claims and verdicts: a paper's statement judged from per-seed metrics with an interval.

A :class:`Claim` names a comparison between metrics and holds a ``decide`` function that maps the list of
per-seed metric dicts to a :class:`Verdict`. The helpers below cover the common forms; each one

* is *supported* when its interval lies on the claimed side of the threshold (beyond the margin),
* is *not supported* when the interval lies on the other side,
* is *inconclusive* otherwise (too few seeds, too wide an interval, a guard that failed).

A decider declares the metrics it reads in ``.metrics`` so that the conformance suite can check that every
experiment's smoke run produces them. A brief's unusual criterion is a small custom function wrapped with
:func:`decider` and unit-tested on its own.

Example
-------
>>> claim = Claim(
...     id="two-heads",
...     statement="2-head accuracy exceeds 1-head accuracy",
...     paper_value="100% vs <= 75%",
...     decide=difference_at_least("acc_2head", "acc_1head", margin=0.0),
... )
>>> claim.judge([{"acc_2head": 1.0, "acc_1head": 0.7}, {"acc_2head": 0.98, "acc_1head": 0.72},
...              {"acc_2head": 1.0, "acc_1head": 0.69}]).outcome
<Outcome.SUPPORTED: 'supported'>
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from iclr26.harness.stats import Interval, interval

__all__ = [
    "Claim",
    "Decider",
    "Outcome",
    "Verdict",
    "all_of",
    "combine_outcomes",
    "decider",
    "difference_at_least",
    "fraction_of_seeds",
    "guarded",
    "mean_at_least",
    "mean_at_most",
    "never_exceeds",
    "ratio_at_least",
]

PerSeed = Sequence[Mapping[str, float]]


class Outcome(str, Enum):
    SUPPORTED = "supported"
    NOT_SUPPORTED = "not supported"
    INCONCLUSIVE = "inconclusive"
    NOT_JUDGED = "not judged"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one claim: the estimate, its interval and a sentence saying why."""

    outcome: Outcome
    explanation: str
    estimate: float | None = None
    interval: tuple[float, float] | None = None
    n_seeds: int = 0

    def measured(self, digits: int = 3) -> str:
        """The measured number as text: ``0.981 [0.950, 1.012]`` or ``n/a``."""
        if self.estimate is None or not math.isfinite(self.estimate):
            return "n/a"
        text = f"{self.estimate:.{digits}g}"
        if self.interval is not None and all(math.isfinite(v) for v in self.interval):
            text += f" [{self.interval[0]:.{digits}g}, {self.interval[1]:.{digits}g}]"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome.value,
            "explanation": self.explanation,
            "estimate": self.estimate,
            "interval": list(self.interval) if self.interval is not None else None,
            "n_seeds": self.n_seeds,
            "measured": self.measured(),
        }


class Decider:
    """A callable ``per_seed_metrics -> Verdict`` that knows which metrics it reads."""

    def __init__(self, fn: Callable[[PerSeed], Verdict], metrics: Sequence[str], description: str) -> None:
        self._fn = fn
        self.metrics: tuple[str, ...] = tuple(metrics)
        self.description = description

    def __call__(self, per_seed: PerSeed) -> Verdict:
        missing = sorted({m for m in self.metrics for row in per_seed if m not in row})
        if not per_seed:
            return Verdict(Outcome.INCONCLUSIVE, "no seeds to judge")
        if missing:
            return Verdict(Outcome.INCONCLUSIVE, f"metrics missing from the results: {', '.join(missing)}")
        return self._fn(per_seed)

    def __repr__(self) -> str:
        return f"Decider({self.description})"


def decider(*metrics: str, description: str = "") -> Callable[[Callable[[PerSeed], Verdict]], Decider]:
    """Wrap a custom criterion ``fn(per_seed) -> Verdict`` as a :class:`Decider` reading `metrics`."""

    def wrap(fn: Callable[[PerSeed], Verdict]) -> Decider:
        return Decider(fn, metrics, description or fn.__name__)

    return wrap


@dataclass(frozen=True)
class Claim:
    """A paper's statement, the paper's number, and how our metrics decide it.

    Parameters
    ----------
    id : short identifier, unique within the paper (``"alice-speedup"``).
    statement : the claim in our words.
    paper_value : the number the paper reports, with its setting.
    decide : a :class:`Decider` (see the helpers in this module).
    scale_gap : what differs between our reproduction and the paper's setting.
    """

    id: str
    statement: str
    paper_value: str
    decide: Decider
    scale_gap: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"claim id must be a non-empty slug (letters, digits, - and _), got {self.id!r}")
        if not isinstance(self.decide, Decider):
            raise TypeError(
                f"claim {self.id!r}: decide must be a Decider (use a helper of iclr26.harness.claims or the "
                f"@decider decorator), got {type(self.decide).__name__}"
            )

    def judge(self, per_seed: PerSeed) -> Verdict:
        return self.decide(per_seed)


def _column(per_seed: PerSeed, metric: str) -> np.ndarray:
    return np.array([float(row[metric]) for row in per_seed], dtype=float)


def _fmt(iv: Interval) -> str:
    if not iv.defined:
        return f"{iv.estimate:.4g} (interval undefined with {iv.n} seed{'s' if iv.n != 1 else ''})"
    return f"{iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] ({iv.level:.0%} {iv.method}, {iv.n} seeds)"


def _side(iv: Interval, threshold: float, above: bool) -> Outcome:
    """Where the interval lies relative to the threshold, on the claimed side (`above`) or not."""
    if not iv.defined:
        return Outcome.INCONCLUSIVE
    if above:
        return (
            Outcome.SUPPORTED
            if iv.lo > threshold
            else Outcome.NOT_SUPPORTED
            if iv.hi < threshold
            else Outcome.INCONCLUSIVE
        )
    return (
        Outcome.SUPPORTED
        if iv.hi < threshold
        else Outcome.NOT_SUPPORTED
        if iv.lo > threshold
        else Outcome.INCONCLUSIVE
    )


def _finite_or_inconclusive(values: np.ndarray, what: str) -> Verdict | None:
    if not np.all(np.isfinite(values)):
        return Verdict(Outcome.INCONCLUSIVE, f"{what} has non-finite values in some seeds: {values.tolist()}")
    return None


def _interval_verdict(
    values: np.ndarray, threshold: float, above: bool, what: str, level: float, method: str
) -> Verdict:
    bad = _finite_or_inconclusive(values, what)
    if bad is not None:
        return bad
    iv = interval(values, level, method)
    outcome = _side(iv, threshold, above)
    rel = ">" if above else "<"
    return Verdict(
        outcome,
        f"{what} = {_fmt(iv)}; claimed {rel} {threshold:.4g}",
        iv.estimate,
        (iv.lo, iv.hi) if iv.defined else None,
        iv.n,
    )


def mean_at_least(metric: str, threshold: float, level: float = 0.95, method: str = "t") -> Decider:
    """Supported when the interval of the mean of `metric` lies above `threshold`."""
    return Decider(
        lambda rows: _interval_verdict(
            _column(rows, metric), threshold, True, f"mean {metric}", level, method
        ),
        [metric],
        f"mean {metric} > {threshold}",
    )


def mean_at_most(metric: str, threshold: float, level: float = 0.95, method: str = "t") -> Decider:
    """Supported when the interval of the mean of `metric` lies below `threshold`."""
    return Decider(
        lambda rows: _interval_verdict(
            _column(rows, metric), threshold, False, f"mean {metric}", level, method
        ),
        [metric],
        f"mean {metric} < {threshold}",
    )


def difference_at_least(
    a: str, b: str, margin: float = 0.0, level: float = 0.95, method: str = "t", higher_is_better: bool = True
) -> Decider:
    """Paired over seeds: supported when the interval of ``a - b`` lies beyond `margin` on the claimed side.

    With ``higher_is_better=False`` the claim is ``a < b - margin`` (e.g. a lower loss), judged on ``b - a``.
    """
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")

    def fn(rows: PerSeed) -> Verdict:
        diff = _column(rows, a) - _column(rows, b)
        if not higher_is_better:
            diff = -diff
        what = f"{a} - {b}" if higher_is_better else f"{b} - {a}"
        return _interval_verdict(diff, margin, True, what, level, method)

    rel = ">" if higher_is_better else "<"
    return Decider(fn, [a, b], f"{a} {rel} {b} by {margin}")


def ratio_at_least(
    metric: str, threshold: float, null: float = 1.0, level: float = 0.95, method: str = "t"
) -> Decider:
    """Supported when the interval of the geometric mean of the per-seed ratio `metric` lies above `threshold`.

    The interval is computed on log values. When the claim fails but the interval still lies above `null`, the
    explanation says that an effect exists but is smaller than claimed.
    """
    if threshold <= 0 or null <= 0:
        raise ValueError(f"threshold and null must be positive ratios, got {threshold} and {null}")

    def fn(rows: PerSeed) -> Verdict:
        values = _column(rows, metric)
        if np.any(values <= 0) or not np.all(np.isfinite(values)):
            return Verdict(
                Outcome.INCONCLUSIVE, f"{metric} must be a finite positive ratio, got {values.tolist()}"
            )
        iv = interval(np.log(values), level, method)
        est, lo, hi = math.exp(iv.estimate), math.exp(iv.lo), math.exp(iv.hi)
        geo = (
            Interval(est, lo, hi, level, iv.n, iv.method)
            if iv.defined
            else Interval(est, float("nan"), float("nan"), level, iv.n, iv.method)
        )
        outcome = _side(geo, threshold, True)
        note = ""
        if outcome is not Outcome.SUPPORTED and geo.defined and geo.lo > null:
            note = f"; an effect above {null:g} is present but smaller than claimed"
        return Verdict(
            outcome,
            f"geometric mean {metric} = {_fmt(geo)}; claimed > {threshold:.4g}{note}",
            est,
            (lo, hi) if geo.defined else None,
            iv.n,
        )

    return Decider(fn, [metric], f"{metric} > {threshold}x")


_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}


def fraction_of_seeds(
    metric: str, op: str, threshold: float, support_at: float, refute_below: float | None = None
) -> Decider:
    """Count the seeds where ``metric op threshold`` holds.

    Supported when the fraction is >= `support_at`; not supported when it is < `refute_below` (default:
    `support_at`, so that the two outcomes partition the counts); inconclusive in between.
    """
    if op not in _OPS:
        raise ValueError(f"op must be one of {', '.join(_OPS)}, got {op!r}")
    if not 0.0 < support_at <= 1.0:
        raise ValueError(f"support_at must lie in (0, 1], got {support_at}")
    refute = support_at if refute_below is None else refute_below
    if not 0.0 <= refute <= support_at:
        raise ValueError(f"refute_below must lie in [0, support_at={support_at}], got {refute_below}")

    def fn(rows: PerSeed) -> Verdict:
        values = _column(rows, metric)
        ok = np.array([_OPS[op](v, threshold) for v in values])
        frac = float(ok.mean())
        outcome = (
            Outcome.SUPPORTED
            if frac >= support_at
            else Outcome.NOT_SUPPORTED
            if frac < refute
            else Outcome.INCONCLUSIVE
        )
        return Verdict(
            outcome,
            f"{metric} {op} {threshold:.4g} in {int(ok.sum())}/{ok.size} seeds; needed >= {support_at:.0%}"
            + (f", refuted below {refute:.0%}" if refute != support_at else ""),
            frac,
            None,
            ok.size,
        )

    return Decider(fn, [metric], f"{metric} {op} {threshold} in >= {support_at:.0%} of seeds")


def never_exceeds(metric: str, bound: str | float, tol: float = 0.0) -> Decider:
    """A bound that must hold in every seed: any ``metric > bound + tol`` makes the claim not supported.

    `bound` is another metric's name (a per-seed bound, e.g. a theoretical optimum) or a number.
    """
    names = [metric] + ([bound] if isinstance(bound, str) else [])

    def fn(rows: PerSeed) -> Verdict:
        values = _column(rows, metric)
        limits = _column(rows, bound) if isinstance(bound, str) else np.full_like(values, float(bound))
        excess = values - limits
        worst = float(np.max(excess))
        n_bad = int(np.sum(excess > tol))
        outcome = Outcome.NOT_SUPPORTED if n_bad else Outcome.SUPPORTED
        return Verdict(
            outcome,
            f"max({metric} - {bound}) = {worst:.3g} over {values.size} seeds; {n_bad} violation(s) beyond tol {tol:g}",
            worst,
            None,
            values.size,
        )

    return Decider(fn, names, f"{metric} <= {bound} (+{tol}) in every seed")


def combine_outcomes(outcomes: Iterable[Outcome]) -> Outcome:
    """The conjunction of sub-claims: not supported if any part is, supported if all are, else inconclusive."""
    seen = set(outcomes)
    if Outcome.NOT_SUPPORTED in seen:
        return Outcome.NOT_SUPPORTED
    if seen == {Outcome.SUPPORTED}:
        return Outcome.SUPPORTED
    return Outcome.INCONCLUSIVE


def all_of(*parts: Decider) -> Decider:
    """Supported when every part is; not supported when any part is not; inconclusive otherwise."""
    if not parts:
        raise ValueError("all_of needs at least one decider")

    def fn(rows: PerSeed) -> Verdict:
        verdicts = [p(rows) for p in parts]
        outcome = combine_outcomes(v.outcome for v in verdicts)
        text = "; ".join(
            f"({chr(97 + i)}) {v.outcome.value}: {v.explanation}" for i, v in enumerate(verdicts)
        )
        return Verdict(outcome, text, verdicts[0].estimate, verdicts[0].interval, len(rows))

    metrics = [m for p in parts for m in p.metrics]
    return Decider(fn, list(dict.fromkeys(metrics)), " and ".join(p.description for p in parts))


def guarded(inner: Decider, metric: str, op: str, threshold: float, reason: str) -> Decider:
    """Turn `inner`'s verdict into *inconclusive* when ``mean(metric) op threshold`` fails.

    Use for floors and ceilings: a baseline that did not train, a metric stuck at the noise floor.
    """
    if op not in _OPS:
        raise ValueError(f"op must be one of {', '.join(_OPS)}, got {op!r}")

    def fn(rows: PerSeed) -> Verdict:
        value = float(np.mean(_column(rows, metric)))
        verdict = inner(rows)
        if _OPS[op](value, threshold):
            return verdict
        return Verdict(
            Outcome.INCONCLUSIVE,
            f"guard failed ({reason}): mean {metric} = {value:.4g}, needed {op} {threshold:.4g}; "
            f"unguarded: {verdict.outcome.value}: {verdict.explanation}",
            verdict.estimate,
            verdict.interval,
            verdict.n_seeds,
        )

    return Decider(fn, [*inner.metrics, metric], f"{inner.description} if {metric} {op} {threshold}")
