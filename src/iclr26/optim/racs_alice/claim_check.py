"""Claim checks of the RACS/Alice reproduction (arXiv 2502.07752).

Speedup (the brief's definition): on the seed-mean eval-loss curves, AdamW's step at which it first reaches its
own final eval loss divided by the step at which the method first reaches that loss (linear interpolation
between evaluation points); a method that never gets there scores AdamW's step divided by the run length (an
upper bound, below 1 when AdamW needs the whole run).

(a) Alice speedup: the estimate on all seeds' mean curves and a seed-bootstrap 95% interval (resampling whole
seeds, recomputing the mean curves). Supported when the estimate >= 1.5 and the lower end > 1.0; not supported
when the upper end < 1.2; otherwise inconclusive.

(b) RACS vs GaLore at SGD-like memory: per seed ``d = final(RACS) - final(GaLore)`` (nats) with a paired 95%
t-interval, and RACS's optimizer-state floats on the hidden matrices relative to AdamW's on the same matrices.
Supported when the interval lies below 0 and the state ratio < 0.05; not supported when the interval lies above
0 or the ratio >= 0.05; otherwise inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["STATE_RATIO", "curve_keys", "racs_vs_galore", "speedup", "speedup_claim", "speedup_decider"]

STATE_RATIO = 0.05
N_BOOT = 2000


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


def curve_keys(row: Mapping[str, float], name: str) -> list[tuple[int, str]]:
    """``(step, key)`` of the per-seed eval-curve metrics ``curve_<name>_<step>``, sorted by step."""
    prefix = f"curve_{name}_"
    return sorted((int(k[len(prefix) :]), k) for k in row if k.startswith(prefix))


def _curves(rows: Sequence[Mapping[str, float]], name: str) -> tuple[np.ndarray, np.ndarray]:
    keys = curve_keys(rows[0], name)
    steps = np.array([s for s, _ in keys], dtype=float)
    return steps, np.array([[float(r[k]) for _, k in keys] for r in rows])


def speedup_claim(method: str, need: float = 1.5, reject_below: float = 1.2):  # noqa: ANN201
    """Decider for ``method``'s speedup over AdamW (rule of the module docstring)."""

    @decider(f"{method}_speedup_seed", "adamw_final", description=f"{method} speedup over AdamW >= {need}")
    def judge(rows: Sequence[Mapping[str, float]]) -> Verdict:
        steps, base = _curves(rows, "adamw")
        steps_m, meth = _curves(rows, method)
        n = len(rows)
        if steps.size < 2 or not np.array_equal(steps, steps_m):
            return Verdict(Outcome.INCONCLUSIVE, "eval curves missing or misaligned", n_seeds=n)
        if not (np.all(np.isfinite(base)) and np.all(np.isfinite(meth))):
            return Verdict(Outcome.INCONCLUSIVE, "a run diverged (non-finite eval loss)", n_seeds=n)
        est = speedup(steps, base.mean(0), meth.mean(0))
        if n < 2:
            return Verdict(
                Outcome.INCONCLUSIVE, f"speedup {est:.3g} on 1 seed; intervals need >= 2", est, None, n
            )
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


@decider(
    "racs_minus_galore", "racs_matrix_state_over_adamw", description="RACS <= GaLore at < 5% of AdamW state"
)
def racs_vs_galore(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """RACS's final eval loss below GaLore's (paired t) with hidden-matrix state < 5% of AdamW's."""
    d = np.array([float(r["racs_minus_galore"]) for r in rows])
    ratio = float(np.mean([float(r["racs_matrix_state_over_adamw"]) for r in rows]))
    if not np.all(np.isfinite(d)):
        return Verdict(
            Outcome.INCONCLUSIVE, f"non-finite differences (a diverged run?): {d.tolist()}", n_seeds=d.size
        )
    iv = t_interval(d)
    if not iv.defined:
        return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
    if iv.lo > 0 or ratio >= STATE_RATIO:
        outcome = Outcome.NOT_SUPPORTED
    elif iv.hi < 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"RACS - GaLore final eval loss = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] nats (95% t, {iv.n} seeds); "
        f"hidden-matrix state RACS/AdamW = {ratio:.3g} (need < {STATE_RATIO})"
    )
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)
