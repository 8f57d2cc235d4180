"""Claim checks of the RACS/Alice reproduction (arXiv 2502.07752).

Speedup (the brief's definition): on the seed-mean eval-loss curves, AdamW's step at which it first reaches its
own final eval loss divided by the step at which the method first reaches that loss (linear interpolation
between evaluation points); a method that never gets there scores AdamW's step divided by the run length (an
upper bound, below 1 when AdamW needs the whole run).

Each seed stores its eval curves as metrics ``curve_<name>_fNN`` on a fixed grid of ``CURVE_POINTS + 1``
fractions of the run (:func:`curve_metrics`), so a decider can declare the names it reads whatever the budget's
number of steps. The curve is linear between evaluation points and every budget's evaluation steps lie on the
grid (smoke 3, quick 6, full 14 intervals all divide 42), so the grid holds the same piecewise-linear curve and
the speedup is the one of the evaluation points; the speedup is a ratio of steps, so the grid's unit (a
fraction of the run) does not change it.

(a) Alice speedup: the estimate on all seeds' mean curves and a seed-bootstrap 95% interval (resampling whole
seeds, recomputing the mean curves). Supported when the estimate >= 1.5 and the lower end > 1.0; not supported
when the upper end < 1.2; otherwise inconclusive.

(b) RACS vs GaLore at SGD-like memory: paired 95% t-interval of ``final(RACS) - final(GaLore)`` (nats) below 0
(:func:`~iclr26.harness.claims.difference_at_least`), and RACS's optimizer-state floats on the hidden matrices
relative to AdamW's on the same matrices, mean over seeds < 0.05. Supported when both hold; not supported when
the interval lies above 0 or the ratio is >= 0.05; otherwise inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, difference_at_least

__all__ = [
    "CURVE_POINTS",
    "STATE_RATIO",
    "curve_keys",
    "curve_metrics",
    "less_matrix_state",
    "racs_vs_galore",
    "speedup",
    "speedup_claim",
    "speedup_decider",
]

STATE_RATIO = 0.05
N_BOOT = 2000
CURVE_POINTS = 42  # grid intervals: a multiple of every budget's number of evaluation intervals (3, 6, 14)

Rows = list[dict[str, float]]


def _crossing(steps: np.ndarray, curve: np.ndarray, target: float) -> float | None:
    """First (interpolated) step at which ``curve`` reaches ``target``; None if it never does."""
    hits = np.nonzero(curve <= target)[0]
    if hits.size == 0:
        return None
    i = int(hits[0])
    if i == 0:
        return float(steps[0])
    drop = curve[i - 1] - curve[i]
    frac = (curve[i - 1] - target) / drop if drop > 0 else 1.0
    return float(steps[i - 1] + frac * (steps[i] - steps[i - 1]))


def speedup(steps: Sequence[float], base: Sequence[float], method: Sequence[float]) -> float:
    """AdamW-relative speedup of ``method`` over ``base`` (eval-loss curves on the same ``steps``).

    >>> speedup([0, 10, 20], [3.0, 2.0, 1.0], [3.0, 1.0, 0.5])
    2.0
    >>> speedup([0, 10, 20], [3.0, 2.0, 1.0], [3.0, 2.5, 2.0])
    1.0
    """
    s, b, m = (np.asarray(v, dtype=float) for v in (steps, base, method))
    if not (s.shape == b.shape == m.shape) or s.size < 2:
        raise ValueError(f"steps, base and method must be equal-length curves (>= 2 points), got {s.shape}")
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(m))):
        return float("nan")
    target = float(b[-1])
    t_base = _crossing(s, b, target)
    t_method = _crossing(s, m, target)
    assert t_base is not None
    if t_method is None:
        return t_base / float(s[-1])
    return t_base / max(t_method, 1e-12)


def curve_keys(name: str) -> list[str]:
    """The metric names ``curve_<name>_f00 .. curve_<name>_f42`` of one optimizer's gridded eval curve."""
    return [f"curve_{name}_f{j:02d}" for j in range(CURVE_POINTS + 1)]


def curve_metrics(name: str, steps: Sequence[float], losses: Sequence[float], total: int) -> dict[str, float]:
    """The eval curve (``losses`` after ``steps``, linear in between) at steps ``j * total / CURVE_POINTS``.

    A curve that does not span the run (a diverged run stops early) gives NaN at every point.
    """
    s, y = np.asarray(steps, dtype=float), np.asarray(losses, dtype=float)
    grid = np.arange(CURVE_POINTS + 1) * float(total) / CURVE_POINTS
    if s.size < 2 or s[0] != 0 or s[-1] != total or not np.all(np.isfinite(y)):
        values = np.full(grid.shape, np.nan)
    else:
        values = np.interp(grid, s, y)
    return dict(zip(curve_keys(name), (float(v) for v in values)))


def _curves(rows: Sequence[Mapping[str, float]], name: str) -> np.ndarray:
    return np.array([[float(r[k]) for k in curve_keys(name)] for r in rows])


def _fast_curves(method: str):  # noqa: ANN202
    """Synthetic win: AdamW falls linearly to 2.0 at the end, the method reaches 2.0 a third of the way in."""

    def fn(rows: Rows) -> Rows:
        x = np.linspace(0.0, 1.0, CURVE_POINTS + 1)
        out = []
        for i, r in enumerate(rows):
            shift = 1e-3 * (i % 3)
            base = 4.0 - 2.0 * x + shift
            fast = np.where(x <= 1 / 3, 4.0 - 6.0 * x, 2.0 - 0.5 * (x - 1 / 3)) + shift
            out.append({**r, **dict(zip(curve_keys("adamw"), base)), **dict(zip(curve_keys(method), fast))})
        return out

    return fn


def speedup_claim(method: str, need: float = 1.5, reject_below: float = 1.2) -> Decider:
    """Decider for ``method``'s speedup over AdamW (rule of the module docstring).

    It compares whole curves, which a single method-versus-baseline metric swap cannot express, so it declares
    no ``compares``; the paper tests check that Alice's curve set to AdamW's is never supported.
    """

    @decider(
        *curve_keys("adamw"),
        *curve_keys(method),
        description=f"{method} speedup over AdamW >= {need}",
        synthesize=_fast_curves(method),
    )
    def judge(rows: Sequence[Mapping[str, float]]) -> Verdict:
        base, meth = _curves(rows, "adamw"), _curves(rows, method)
        steps = np.arange(CURVE_POINTS + 1, dtype=float)
        n = len(rows)
        est = speedup(steps, base.mean(0), meth.mean(0))
        rng = np.random.default_rng(0)
        idx = rng.integers(0, n, size=(N_BOOT, n))
        boots = np.array([speedup(steps, base[i].mean(0), meth[i].mean(0)) for i in idx])
        lo, hi = (float(v) for v in np.quantile(boots, [0.025, 0.975]))
        if est >= need and lo > 1.0:
            outcome = Outcome.SUPPORTED
        elif hi < reject_below:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"{method} speedup over AdamW = {est:.3g} [{lo:.3g}, {hi:.3g}] (seed bootstrap 95%, {n} seeds; "
            f"supported if >= {need} with lower > 1, not supported if upper < {reject_below})"
        )
        return Verdict(outcome, text, est, (lo, hi), n)

    return judge


speedup_decider = speedup_claim("alice")


def _less_state(rows: Rows) -> Rows:
    return [{**r, "racs_matrix_state_floats": 0.01 * float(r["adamw_matrix_state_floats"])} for r in rows]


@decider(
    "racs_matrix_state_floats",
    "adamw_matrix_state_floats",
    description=f"RACS hidden-matrix state < {STATE_RATIO} x AdamW's",
    compares=[("racs_matrix_state_floats", "adamw_matrix_state_floats", False)],
    synthesize=_less_state,
)
def less_matrix_state(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """Mean over seeds of RACS/AdamW optimizer-state floats on the hidden matrices below STATE_RATIO."""
    ratio = float(
        np.mean([float(r["racs_matrix_state_floats"]) / float(r["adamw_matrix_state_floats"]) for r in rows])
    )
    outcome = Outcome.SUPPORTED if ratio < STATE_RATIO else Outcome.NOT_SUPPORTED
    return Verdict(
        outcome,
        f"hidden-matrix state RACS/AdamW = {ratio:.3g} (need < {STATE_RATIO})",
        ratio,
        None,
        len(rows),
    )


racs_vs_galore = all_of(
    difference_at_least("racs_final", "galore_final", 0.0, higher_is_better=False), less_matrix_state
)
