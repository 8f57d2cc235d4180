"""Claims and verdicts: a paper's statement judged from per-seed metrics with an interval.

A :class:`Claim` names a comparison between metrics and holds a ``decide`` function that maps the list of
per-seed metric dicts to a :class:`Verdict`. The helpers below cover the common forms; each one

* is *supported* when its interval lies on the claimed side of the threshold (beyond the margin),
* is *not supported* when the interval lies on the other side,
* is *inconclusive* otherwise (too few seeds, too wide an interval, a guard that failed).

A fourth outcome belongs to the claim, not to its decider: *not reproduced at this budget*, when a declared
:class:`Precondition` fails in some seed (the model did not learn the task, the method collapsed). The
reproduction then did not create the conditions the claim is about, and says nothing against the paper.

Every :class:`Decider` applies the same guards once, before its rule runs: the metrics it declares must be
present and finite in every seed, and there must be at least ``min_seeds`` seeds. A decider also declares the
method-versus-baseline comparisons it makes (``compares``), so that the conformance suite can feed the
baseline's numbers in the method's place and check the claim then fails, and it can synthesise a clear win
(``synthesize``), so the suite can check the claim can pass. A brief's unusual criterion is a small custom
function wrapped with :func:`decider` and unit-tested on its own.

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
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from iclr26.checks import check_int
from iclr26.harness.stats import Interval, interval

__all__ = [
    "OUTCOME_LABELS",
    "Claim",
    "Comparison",
    "Decider",
    "Outcome",
    "Precondition",
    "Verdict",
    "all_of",
    "column",
    "combine_outcomes",
    "decider",
    "difference_at_least",
    "effect_at_least",
    "equivalent",
    "fraction_of_seeds",
    "guarded",
    "k_of_n",
    "mean_at_least",
    "mean_at_most",
    "never_exceeds",
    "never_refutes",
    "non_inferior",
    "ratio_at_least",
    "seed_spread",
]

PerSeed = Sequence[Mapping[str, float]]


class Outcome(str, Enum):
    """What a claim's check concluded. ``NOT_REPRODUCED`` is no evidence for or against the paper."""

    SUPPORTED = "supported"
    NOT_SUPPORTED = "not supported"
    INCONCLUSIVE = "inconclusive"
    NOT_REPRODUCED = "not reproduced"
    NOT_JUDGED = "not judged"

    @property
    def label(self) -> str:
        """The words a reader sees (``not reproduced at this budget``)."""
        return OUTCOME_LABELS[self]


OUTCOME_LABELS: dict[Outcome, str] = {
    Outcome.SUPPORTED: "supported",
    Outcome.NOT_SUPPORTED: "not supported",
    Outcome.INCONCLUSIVE: "inconclusive",
    Outcome.NOT_REPRODUCED: "not reproduced at this budget",
    Outcome.NOT_JUDGED: "not judged",
}


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


@dataclass(frozen=True)
class Comparison:
    """A method metric judged against a baseline metric (``higher_is_better`` says which way wins)."""

    method: str
    baseline: str
    higher_is_better: bool = True


Rows = list[dict[str, float]]
Synthesizer = Callable[[Rows], Rows]


class _Keep:
    """Marks a :meth:`Decider.derive` argument left as it is (None is a meaningful value there)."""


_KEEP = _Keep()


class Decider:
    """A callable ``per_seed_metrics -> Verdict`` that knows which metrics it reads.

    Parameters
    ----------
    fn : the rule, called only after the guards passed.
    metrics : the metrics it reads; each must be present in every seed, and finite unless listed in
        `allow_nonfinite`.
    description : one line for reports.
    min_seeds : fewer seeds give *inconclusive* without calling `fn` (an interval needs two).
    compares : the method-versus-baseline comparisons the rule makes (used by the sabotage battery).
    synthesize : ``rows -> rows`` that rewrites the metrics this rule reads into a clear win (used to show
        that the claim can pass); None when the rule cannot say what a win looks like.
    allow_nonfinite : metrics that may legitimately be NaN or infinite (the rule handles them itself).
    """

    def __init__(
        self,
        fn: Callable[[PerSeed], Verdict],
        metrics: Sequence[str],
        description: str,
        *,
        min_seeds: int = 2,
        compares: Sequence[Comparison] = (),
        synthesize: Synthesizer | None = None,
        allow_nonfinite: Sequence[str] = (),
    ) -> None:
        check_int("min_seeds", min_seeds, low=1)
        if not callable(fn):
            raise ValueError(f"fn must be callable as fn(per_seed) -> Verdict, got {fn!r}")
        if isinstance(metrics, str) or not all(isinstance(m, str) and m for m in metrics):
            raise ValueError(
                f"metrics must be a sequence of metric names (non-empty strings), got {metrics!r}"
            )
        if isinstance(allow_nonfinite, str) or not all(isinstance(m, str) for m in allow_nonfinite):
            raise ValueError(f"allow_nonfinite must be a sequence of metric names, got {allow_nonfinite!r}")
        self._fn = fn
        self.metrics: tuple[str, ...] = tuple(dict.fromkeys(metrics))
        self.description = description
        self.min_seeds = min_seeds
        self.compares: tuple[Comparison, ...] = tuple(compares)
        self.synthesize = synthesize
        self.allow_nonfinite = frozenset(allow_nonfinite)

    def derive(
        self,
        fn: Callable[[PerSeed], Verdict] | None = None,
        *,
        metrics: Sequence[str] | None = None,
        description: str | None = None,
        compares: Sequence[Comparison] | None = None,
        synthesize: Synthesizer | None | _Keep = _KEEP,
    ) -> Decider:
        """A decider built on this one: the fields given replace this one's, the others are kept (the rule itself
        when `fn` is None; ``compares=()`` drops the method-versus-baseline comparisons, e.g. for a
        non-inferiority rule, where the method equal to the baseline may rightly pass)."""
        return Decider(
            self if fn is None else fn,
            self.metrics if metrics is None else metrics,
            self.description if description is None else description,
            min_seeds=self.min_seeds,
            compares=self.compares if compares is None else compares,
            synthesize=self.synthesize if isinstance(synthesize, _Keep) else synthesize,
            allow_nonfinite=self.allow_nonfinite,
        )

    def guard(self, per_seed: PerSeed) -> Verdict | None:
        """The shared guards: an *inconclusive* verdict when one fails, else None."""
        if not per_seed:
            return Verdict(Outcome.INCONCLUSIVE, "no seeds to judge")
        missing = sorted({m for m in self.metrics for row in per_seed if m not in row})
        if missing:
            return Verdict(
                Outcome.INCONCLUSIVE,
                f"metrics missing from the results: {', '.join(missing)}",
                n_seeds=len(per_seed),
            )
        bad = {}
        for m in self.metrics:
            if m in self.allow_nonfinite:
                continue
            values = []
            for row in per_seed:
                try:
                    values.append(float(row[m]))
                except (TypeError, ValueError):
                    values.append(float("nan"))
            if not all(math.isfinite(v) for v in values):
                bad[m] = values
        if bad:
            text = "; ".join(f"{m} = {v}" for m, v in bad.items())
            return Verdict(
                Outcome.INCONCLUSIVE, f"non-finite metrics in some seeds: {text}", n_seeds=len(per_seed)
            )
        if len(per_seed) < self.min_seeds:
            return Verdict(
                Outcome.INCONCLUSIVE,
                f"needs at least {self.min_seeds} seeds for an interval, got {len(per_seed)}",
                n_seeds=len(per_seed),
            )
        return None

    def __call__(self, per_seed: PerSeed) -> Verdict:
        return self.guard(per_seed) or self._fn(per_seed)

    def __repr__(self) -> str:
        return f"Decider({self.description})"


def decider(
    *metrics: str,
    description: str = "",
    min_seeds: int = 2,
    compares: Sequence[Comparison | tuple[str, str] | tuple[str, str, bool]] = (),
    synthesize: Synthesizer | None = None,
    allow_nonfinite: Sequence[str] = (),
) -> Callable[[Callable[[PerSeed], Verdict]], Decider]:
    """Wrap a custom criterion ``fn(per_seed) -> Verdict`` as a :class:`Decider` reading `metrics`.

    Give `compares` (``(method, baseline[, higher_is_better])``) for every method-versus-baseline comparison the
    rule makes, and `synthesize` when a clear win can be written down, so the conformance suite can check that
    the rule can fail and can pass.
    """
    comps = tuple(c if isinstance(c, Comparison) else Comparison(*c) for c in compares)

    def wrap(fn: Callable[[PerSeed], Verdict]) -> Decider:
        return Decider(
            fn,
            metrics,
            description or fn.__name__,
            min_seeds=min_seeds,
            compares=comps,
            synthesize=synthesize,
            allow_nonfinite=allow_nonfinite,
        )

    return wrap


_OPS_TEXT = (">=", ">", "<=", "<", "==")


@dataclass(frozen=True)
class Precondition:
    """What must be true in every seed before the claim means anything (the model learned the task).

    Parameters
    ----------
    metric : the per-seed metric checked (e.g. ``"acc_method"``, ``"train_loss_final"``).
    op : one of ``>=``, ``>``, ``<=``, ``<``.
    threshold : from the paper or a trivial baseline (chance accuracy plus a margin, the loss of predicting
        the marginal, ...), never from what a run happened to reach.
    reason : what it means and where the threshold comes from, in one phrase
        (``"the method beats chance (1/8) by 10 points"``).
    """

    metric: str
    op: str
    threshold: float
    reason: str

    def __post_init__(self) -> None:
        if self.op not in ("<", "<=", ">", ">="):
            raise ValueError(f"precondition op must be one of <, <=, >, >=, got {self.op!r}")
        if not isinstance(self.threshold, (int, float)) or not math.isfinite(float(self.threshold)):
            raise ValueError(f"precondition threshold must be a finite number, got {self.threshold!r}")
        if not self.reason:
            raise ValueError(
                f"precondition on {self.metric!r} needs a reason (what it means, whence the threshold)"
            )

    def failures(self, per_seed: PerSeed) -> list[tuple[int, float]]:
        """(seed index, value) of every seed where the precondition fails (a missing or NaN value fails)."""
        bad = []
        for i, row in enumerate(per_seed):
            try:
                value = float(row.get(self.metric, float("nan")))
            except (TypeError, ValueError):
                value = float("nan")
            if not math.isfinite(value) or not _OPS[self.op](value, float(self.threshold)):
                bad.append((i, value))
        return bad

    def describe(self) -> str:
        return f"{self.metric} {self.op} {self.threshold:g} ({self.reason})"

    def satisfy(self, rows: Rows) -> Rows:
        """Rows rewritten so the precondition holds (for the conformance suite's synthetic win)."""
        step = max(abs(float(self.threshold)) * 0.05, 1e-3)
        value = float(self.threshold) + (step if self.op in (">", ">=") else -step)
        return [{**r, self.metric: value} for r in rows]


CLAIM_KINDS = ("claim", "check")


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
    preconditions : what must hold in every seed for the claim to be judged at all; when one fails the verdict
        is *not reproduced at this budget*, with the measured values.
    kind : ``"claim"`` for an empirical statement, ``"check"`` for one true by construction (a parameter count,
        an algebraic invariant): checks are reported apart and never counted among supported claims.
    requires : config fields that must be set (not None) for the claim to be measured at all, e.g. ``("llm",)``
        for a claim about an LLM's behaviour that only a run against an endpoint measures. Where the budget's
        config leaves one unset, the claim is *not judged* (with the reason) and its metrics are not expected.
    excludes : config fields that must be unset (None) for the claim to be measured: an offline claim whose
        metrics a run against an endpoint does not produce (``("llm",)``) is then *not judged* in that run.
    """

    id: str
    statement: str
    paper_value: str
    decide: Decider
    scale_gap: str = ""
    preconditions: tuple[Precondition, ...] = ()
    kind: str = "claim"
    requires: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"claim id must be a non-empty slug (letters, digits, - and _), got {self.id!r}")
        if not isinstance(self.decide, Decider):
            raise TypeError(
                f"claim {self.id!r}: decide must be a Decider (use a helper of iclr26.harness.claims or the "
                f"@decider decorator), got {type(self.decide).__name__}"
            )
        if self.kind not in CLAIM_KINDS:
            raise ValueError(
                f"claim {self.id!r}: kind must be one of {', '.join(CLAIM_KINDS)}, got {self.kind!r}"
            )
        object.__setattr__(self, "preconditions", tuple(self.preconditions))
        for name in ("requires", "excludes"):
            fields = tuple(getattr(self, name))
            object.__setattr__(self, name, fields)
            if not all(isinstance(f, str) and f.isidentifier() for f in fields):
                raise ValueError(f"claim {self.id!r}: {name} must name config fields, got {fields!r}")
        for p in self.preconditions:
            if not isinstance(p, Precondition):
                raise TypeError(f"claim {self.id!r}: preconditions must be Precondition objects, got {p!r}")

    @property
    def metrics(self) -> tuple[str, ...]:
        """Every metric the claim reads: its decider's and its preconditions'."""
        return tuple(dict.fromkeys([*self.decide.metrics, *(p.metric for p in self.preconditions)]))

    @property
    def allow_nonfinite(self) -> frozenset[str]:
        """Metrics the claim's rule handles itself when NaN or infinite (e.g. an optional baseline not installed)."""
        return frozenset(getattr(self.decide, "allow_nonfinite", ()))

    def unmet(self, per_seed: PerSeed) -> list[str]:
        """One sentence per failed precondition, with the measured per-seed values."""
        out = []
        for p in self.preconditions:
            bad = p.failures(per_seed)
            if bad:
                values = ", ".join(f"{v:.4g}" for _, v in bad)
                out.append(f"{p.describe()} failed in {len(bad)}/{len(per_seed)} seeds (measured {values})")
        return out

    def judge(self, per_seed: PerSeed) -> Verdict:
        verdict = self.decide(per_seed)
        unmet = self.unmet(per_seed) if per_seed else []
        if not unmet:
            return verdict
        return Verdict(
            Outcome.NOT_REPRODUCED,
            "precondition not met: " + "; ".join(unmet) + f"; the claim is not judged (unguarded: "
            f"{verdict.outcome.value}: {verdict.explanation})",
            verdict.estimate,
            verdict.interval,
            verdict.n_seeds,
        )


def column(per_seed: PerSeed, metric: str) -> np.ndarray:
    """One metric over the seeds, as a float array (what a rule or a ``synthesize`` function reads)."""
    return np.array([float(row[metric]) for row in per_seed], dtype=float)


_column = column


def seed_spread(i: int, scale: float = 1e-3) -> float:
    """A small deterministic per-seed offset (-scale, 0, +scale, ...) for ``synthesize`` functions: a synthetic
    clear win needs a little between-seed variance, or its interval is degenerate."""
    return scale * ((i % 3) - 1)


def never_refutes(inner: Decider) -> Decider:
    """`inner` with *not supported* read as *inconclusive*: a part that can fail a claim (in :func:`all_of`),
    never refute it."""

    def fn(rows: PerSeed) -> Verdict:
        v = inner(rows)
        if v.outcome is not Outcome.NOT_SUPPORTED:
            return v
        return Verdict(Outcome.INCONCLUSIVE, v.explanation, v.estimate, v.interval, v.n_seeds)

    return inner.derive(fn)


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


# ---------------------------------------------------------------- synthetic wins (for the conformance suite)


def _jitter(i: int, scale: float) -> float:
    """A small deterministic spread over seeds so that synthetic intervals are not degenerate."""
    return scale * 1e-3 * ((i % 3) - 1)


def _clear(threshold: float, margin: float = 0.0) -> float:
    """How far beyond a threshold a clear win lies."""
    return margin + max(abs(threshold), abs(margin), 1.0) * 0.5


def _set(rows: Rows, metric: str, value_of: Callable[[int, dict[str, float]], float]) -> Rows:
    return [{**r, metric: float(value_of(i, r))} for i, r in enumerate(rows)]


def _beyond(metric: str, threshold: float, above: bool, margin: float = 0.0) -> Synthesizer:
    gap = _clear(threshold, margin)
    sign = 1.0 if above else -1.0
    return lambda rows: _set(rows, metric, lambda i, _r: threshold + sign * (gap + _jitter(i, gap)))


def _ahead(a: str, b: str, higher_is_better: bool, margin: float) -> Synthesizer:
    """`a` beats `b` by a clear distance beyond `margin`, seed by seed."""
    sign = 1.0 if higher_is_better else -1.0

    def fn(rows: Rows) -> Rows:
        def value(i: int, r: dict[str, float]) -> float:
            base = float(r[b]) if math.isfinite(float(r.get(b, float("nan")))) else 0.0
            gap = _clear(base, margin)
            return base + sign * (gap + _jitter(i, gap))

        return _set(rows, a, value)

    return fn


def _chain(*fns: Synthesizer | None) -> Synthesizer | None:
    if any(f is None for f in fns):
        return None

    def fn(rows: Rows) -> Rows:
        for f in fns:
            rows = f(rows)  # type: ignore[misc]
        return rows

    return fn


# ---------------------------------------------------------------- the helpers


def mean_at_least(metric: str, threshold: float, level: float = 0.95, method: str = "t") -> Decider:
    """Supported when the interval of the mean of `metric` lies above `threshold`."""
    return Decider(
        lambda rows: _interval_verdict(
            _column(rows, metric), threshold, True, f"mean {metric}", level, method
        ),
        [metric],
        f"mean {metric} > {threshold}",
        synthesize=_beyond(metric, threshold, True),
    )


def mean_at_most(metric: str, threshold: float, level: float = 0.95, method: str = "t") -> Decider:
    """Supported when the interval of the mean of `metric` lies below `threshold`."""
    return Decider(
        lambda rows: _interval_verdict(
            _column(rows, metric), threshold, False, f"mean {metric}", level, method
        ),
        [metric],
        f"mean {metric} < {threshold}",
        synthesize=_beyond(metric, threshold, False),
    )


def _paired(rows: PerSeed, a: str, b: str, higher_is_better: bool) -> tuple[np.ndarray, str]:
    diff = _column(rows, a) - _column(rows, b)
    if not higher_is_better:
        diff = -diff
    return diff, (f"{a} - {b}" if higher_is_better else f"{b} - {a}")


def difference_at_least(
    a: str, b: str, margin: float = 0.0, level: float = 0.95, method: str = "t", higher_is_better: bool = True
) -> Decider:
    """Paired over seeds: supported when the interval of ``a - b`` lies beyond `margin` on the claimed side.

    With ``higher_is_better=False`` the claim is ``a < b - margin`` (e.g. a lower loss), judged on ``b - a``.
    """
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")

    def fn(rows: PerSeed) -> Verdict:
        diff, what = _paired(rows, a, b, higher_is_better)
        return _interval_verdict(diff, margin, True, what, level, method)

    rel = ">" if higher_is_better else "<"
    return Decider(
        fn,
        [a, b],
        f"{a} {rel} {b} by {margin}",
        compares=[Comparison(a, b, higher_is_better)],
        synthesize=_ahead(a, b, higher_is_better, margin),
    )


def effect_at_least(
    a: str,
    b: str | None = None,
    *,
    support_at: float,
    null: float = 0.0,
    refute_below: float | None = None,
    level: float = 0.95,
    method: str = "t",
    higher_is_better: bool = True,
) -> Decider:
    """The three-way effect rule, on ``a`` (or the paired ``a - b``; ``b - a`` when lower is better).

    * supported: the estimate reaches the claimed effect `support_at` and the interval lies past `null`;
    * not supported: the whole interval lies below `refute_below` (default `support_at`): the data exclude the
      claimed effect size;
    * inconclusive otherwise. An interval that merely contains `null` is inconclusive, not a refutation.
    """
    refute = support_at if refute_below is None else refute_below
    if not null <= support_at:
        raise ValueError(f"support_at must be >= null={null}, got {support_at}")
    if refute > support_at:
        raise ValueError(f"refute_below must be <= support_at={support_at}, got {refute}")

    def fn(rows: PerSeed) -> Verdict:
        if b is None:
            values, what = _column(rows, a), a
        else:
            values, what = _paired(rows, a, b, higher_is_better)
        bad = _finite_or_inconclusive(values, what)
        if bad is not None:
            return bad
        iv = interval(values, level, method)
        if not iv.defined:
            outcome = Outcome.INCONCLUSIVE
        elif iv.estimate >= support_at and iv.lo > null:
            outcome = Outcome.SUPPORTED
        elif iv.hi < refute:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"{what} = {_fmt(iv)}; supported at >= {support_at:.4g} with the interval past {null:.4g}, "
            f"refuted when the interval lies below {refute:.4g}",
            iv.estimate,
            (iv.lo, iv.hi) if iv.defined else None,
            iv.n,
        )

    if b is None:
        synth = _beyond(a, support_at, True)
        comps: list[Comparison] = []
    else:
        synth = _ahead(a, b, higher_is_better, support_at)
        comps = [Comparison(a, b, higher_is_better)]
    metrics = [a] if b is None else [a, b]
    return Decider(fn, metrics, f"effect of {a} >= {support_at}", compares=comps, synthesize=synth)


def non_inferior(
    a: str, b: str, margin: float, level: float = 0.95, method: str = "t", higher_is_better: bool = True
) -> Decider:
    """`a` is no worse than `b` by more than `margin` (paired): supported when the interval of the advantage
    ``a - b`` (``b - a`` when lower is better) lies above ``-margin``; not supported when it lies below."""
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")

    def fn(rows: PerSeed) -> Verdict:
        diff, what = _paired(rows, a, b, higher_is_better)
        return _interval_verdict(diff, -margin, True, what, level, method)

    sign = 1.0 if higher_is_better else -1.0
    synth: Synthesizer = lambda rows: _set(  # noqa: E731
        rows, a, lambda i, r: float(r[b]) + sign * (margin * 0.5 + _jitter(i, max(margin, 1e-3)))
    )
    return Decider(fn, [a, b], f"{a} within {margin} of {b}", synthesize=synth)


def equivalent(a: str, b: str, margin: float, level: float = 0.95, method: str = "t") -> Decider:
    """Two one-sided tests: supported when the interval of ``a - b`` lies inside ``(-margin, margin)``; not
    supported when it lies wholly outside; inconclusive otherwise."""
    if margin <= 0:
        raise ValueError(f"margin must be > 0, got {margin}")

    def fn(rows: PerSeed) -> Verdict:
        diff = _column(rows, a) - _column(rows, b)
        bad = _finite_or_inconclusive(diff, f"{a} - {b}")
        if bad is not None:
            return bad
        iv = interval(diff, level, method)
        if not iv.defined:
            outcome = Outcome.INCONCLUSIVE
        elif -margin < iv.lo and iv.hi < margin:
            outcome = Outcome.SUPPORTED
        elif iv.lo > margin or iv.hi < -margin:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"{a} - {b} = {_fmt(iv)}; equivalent when inside +-{margin:.4g}",
            iv.estimate,
            (iv.lo, iv.hi) if iv.defined else None,
            iv.n,
        )

    synth: Synthesizer = lambda rows: _set(rows, a, lambda i, r: float(r[b]) + _jitter(i, margin))  # noqa: E731
    return Decider(fn, [a, b], f"{a} == {b} within {margin}", synthesize=synth)


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

    synth: Synthesizer = lambda rows: _set(  # noqa: E731
        rows, metric, lambda i, _r: threshold * 2.0 * (1.0 + _jitter(i, 1.0))
    )
    return Decider(fn, [metric], f"{metric} > {threshold}x", synthesize=synth)


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
    """Count the seeds where ``metric op threshold`` holds (k of n).

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

    if op == "==":
        synth: Synthesizer = lambda rows: _set(rows, metric, lambda _i, _r: threshold)  # noqa: E731
    else:
        synth = _beyond(metric, threshold, op in (">", ">="))
    return Decider(
        fn, [metric], f"{metric} {op} {threshold} in >= {support_at:.0%} of seeds", synthesize=synth
    )


k_of_n = fraction_of_seeds


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

    def synth(rows: Rows) -> Rows:
        def value(_i: int, r: dict[str, float]) -> float:
            limit = float(r[bound]) if isinstance(bound, str) else float(bound)
            return limit - _clear(limit)

        return _set(rows, metric, value)

    # A bound is no method-versus-baseline comparison (equality satisfies it): nothing to sabotage here.
    return Decider(fn, names, f"{metric} <= {bound} (+{tol}) in every seed", synthesize=synth)


def combine_outcomes(outcomes: Iterable[Outcome]) -> Outcome:
    """The conjunction of sub-claims: not supported if any part is, supported if all are, else inconclusive."""
    seen = set(outcomes)
    if Outcome.NOT_SUPPORTED in seen:
        return Outcome.NOT_SUPPORTED
    if seen == {Outcome.SUPPORTED}:
        return Outcome.SUPPORTED
    return Outcome.INCONCLUSIVE


def all_of(*parts: Decider, sanity: Sequence[Decider] = ()) -> Decider:
    """Supported when every part is; not supported when any part is not; inconclusive otherwise.

    `sanity` parts check the setting rather than the claim (a baseline that trained, a probe that works):
    when one is not supported the whole is *inconclusive*, never *not supported*.
    """
    if not parts:
        raise ValueError("all_of needs at least one decider")
    sanity = tuple(sanity)

    def fn(rows: PerSeed) -> Verdict:
        verdicts = [p(rows) for p in parts]
        checks = [c(rows) for c in sanity]
        outcome = combine_outcomes(v.outcome for v in verdicts)
        text = "; ".join(
            f"({chr(97 + i)}) {v.outcome.value}: {v.explanation}" for i, v in enumerate(verdicts)
        )
        failed = [c for c in checks if c.outcome is not Outcome.SUPPORTED]
        if failed:
            outcome = Outcome.INCONCLUSIVE
            text += "; sanity check failed: " + "; ".join(
                f"{c.outcome.value}: {c.explanation}" for c in failed
            )
        return Verdict(outcome, text, verdicts[0].estimate, verdicts[0].interval, len(rows))

    metrics = [m for p in (*parts, *sanity) for m in p.metrics]
    return Decider(
        fn,
        metrics,
        " and ".join(p.description for p in parts),
        min_seeds=max(p.min_seeds for p in (*parts, *sanity)),
        compares=[c for p in parts for c in p.compares],
        synthesize=_chain(*(p.synthesize for p in (*sanity, *parts))),
        allow_nonfinite=set().union(*(p.allow_nonfinite for p in (*parts, *sanity))),
    )


def guarded(inner: Decider, metric: str, op: str, threshold: float, reason: str) -> Decider:
    """Turn `inner`'s verdict into *inconclusive* when ``mean(metric) op threshold`` fails.

    Use for floors and ceilings of a measurement (a metric stuck at the noise floor). When the guard says the
    model did not learn, declare a :class:`Precondition` on the claim instead: that gives *not reproduced*.
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

    guard_synth = None if op == "==" else _beyond(metric, threshold, op in (">", ">="))
    return Decider(
        fn,
        [*inner.metrics, metric],
        f"{inner.description} if {metric} {op} {threshold}",
        min_seeds=inner.min_seeds,
        compares=inner.compares,
        synthesize=_chain(guard_synth, inner.synthesize),
        allow_nonfinite=inner.allow_nonfinite,
    )
