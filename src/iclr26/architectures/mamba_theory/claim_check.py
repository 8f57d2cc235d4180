"""Claim checks of the Mamba training-dynamics reproduction (arXiv 2602.12499), the brief's rule over seeds.

(a) alignment: ``min(|w^T o+|, |w^T o-|) / max_irr |w^T o_k| >= 5`` after training in >= 4/5 of the seeds
    (``fraction_of_seeds`` on ``e1_alignment_ratio``).
(b) gap scaling: OLS slope of log(steps to 5% test error) on log(alpha_r - alpha_c), pooled over seeds, from the
    per-seed metrics ``e2_main_steps_g###`` / ``e2_main_censored_g###`` (### = 1000 x gap). Runs that hit the step
    cap are excluded and counted; fewer than 3 gap values left -> inconclusive. 95% percentile interval from a
    seed bootstrap. Supported: interval inside [-3, -1]; not supported: interval contains 0; else inconclusive.
(c) locality: Spearman rho between dL+ and the seed-mean steps to 5% (capped runs at the cap) >= 0.8, from
    ``e3_steps_dl#`` / ``e3_censored_dl#``; fewer than 3 dL+ values reached in some seed -> inconclusive.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from iclr26.harness.claims import Decider, Outcome, Verdict, decider, fraction_of_seeds

__all__ = [
    "alignment_decider",
    "gap_code",
    "gap_slope_decider",
    "locality_decider",
]

_GAP_KEY = re.compile(r"^e2_main_steps_g(\d+)$")
_DL_KEY = re.compile(r"^e3_steps_dl(\d+)$")


def gap_code(gap: float) -> str:
    """Metric-name code of a signal gap: 0.15 -> ``"150"`` (thousandths, three digits)."""
    return f"{round(gap * 1000):03d}"


def alignment_decider(threshold: float = 5.0, support_at: float = 0.8) -> Decider:
    """(a): the relevant-to-irrelevant gate alignment ratio reaches `threshold` in >= `support_at` of the seeds."""
    return fraction_of_seeds("e1_alignment_ratio", ">=", threshold, support_at)


def _points(rows: Sequence[Mapping[str, float]], key: re.Pattern, scale: float):
    """Per seed: list of (x, steps, censored) from the metric names matching `key`."""
    out = []
    for row in rows:
        pts = []
        for name, value in row.items():
            mt = key.match(name)
            if mt:
                code = mt.group(1)
                cens = row.get(name.replace("_steps_", "_censored_"), 0.0)
                pts.append((int(code) / scale, float(value), bool(cens)))
        out.append(sorted(pts))
    return out


def _slope(points: list[tuple[float, float]]) -> float:
    x = np.log([p[0] for p in points])
    y = np.log([max(p[1], 1.0) for p in points])
    return float(np.polyfit(x, y, 1)[0])


def gap_slope_decider(
    lo: float = -3.0, hi: float = -1.0, min_gaps: int = 3, n_boot: int = 2000, level: float = 0.95
) -> Decider:
    """(b): log-log slope of steps-to-target on the signal gap, censored runs excluded, seed-bootstrap interval."""

    @decider("e2_n_gaps", description=f"log-log slope of steps on gap within [{lo}, {hi}], CI excluding 0")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        per_seed = _points(rows, _GAP_KEY, 1000.0)
        kept = [[(g, s) for g, s, c in pts if not c and math.isfinite(s)] for pts in per_seed]
        n_cens = sum(len(p) for p in per_seed) - sum(len(k) for k in kept)
        gaps = sorted({g for k in kept for g, _ in k})
        if len(gaps) < min_gaps:
            return Verdict(
                Outcome.INCONCLUSIVE,
                f"only {len(gaps)} gap value(s) reached the target ({n_cens} capped runs excluded); need {min_gaps}",
                n_seeds=len(rows),
            )
        est = _slope([p for k in kept for p in k])
        if len(rows) < 2:
            return Verdict(
                Outcome.INCONCLUSIVE, f"slope {est:.3g}; an interval needs >= 2 seeds", est, None, 1
            )
        rng = np.random.default_rng(0)
        boots = []
        for _ in range(n_boot):
            pts = [p for i in rng.integers(0, len(rows), len(rows)) for p in kept[i]]
            if len({g for g, _ in pts}) >= 2:
                boots.append(_slope(pts))
        b_lo, b_hi = (float(v) for v in np.quantile(boots, [0.5 - level / 2, 0.5 + level / 2]))
        if b_lo <= 0.0 <= b_hi:
            outcome = Outcome.NOT_SUPPORTED
        elif lo <= b_lo and b_hi <= hi:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        shape = "shallower than" if b_hi > hi else "steeper than" if b_lo < lo else "consistent with"
        text = (
            f"slope of log steps-to-target on log gap = {est:.3g} [{b_lo:.3g}, {b_hi:.3g}] ({level:.0%} seed "
            f"bootstrap, {len(rows)} seeds, gaps {gaps}, {n_cens} capped run(s) excluded); needed inside "
            f"[{lo:g}, {hi:g}] (theory -2) and excluding 0; {shape} the theory's range"
        )
        return Verdict(outcome, text, est, (b_lo, b_hi), len(rows))

    return decide


def locality_decider(rho_min: float = 0.8, min_reached: int = 3, n_boot: int = 2000) -> Decider:
    """(c): steps to target grow monotonically with dL+ (Spearman rho of the seed means >= `rho_min`)."""

    @decider("e3_n_dl", description=f"Spearman rho(dL+, steps to target) >= {rho_min}")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        per_seed = _points(rows, _DL_KEY, 1.0)
        dls = sorted({p[0] for pts in per_seed for p in pts})
        if len(dls) < 3:
            return Verdict(
                Outcome.INCONCLUSIVE, f"only {len(dls)} dL+ values measured; need 3", n_seeds=len(rows)
            )
        steps = np.array([[dict((x, s) for x, s, _ in pts).get(x, np.nan) for x in dls] for pts in per_seed])
        reached = [sum(not c for _, _, c in pts) for pts in per_seed]
        if not np.all(np.isfinite(steps)):
            return Verdict(
                Outcome.INCONCLUSIVE, "steps missing for some dL+ in some seeds", n_seeds=len(rows)
            )

        x_rank = stats.rankdata(dls)

        def rho(means: np.ndarray) -> np.ndarray:
            """Spearman rho of dL+ against each row of seed-mean steps (NaN for a constant row)."""
            r = stats.rankdata(means, axis=1)
            r = r - r.mean(1, keepdims=True)
            xr = x_rank - x_rank.mean()
            den = np.sqrt((r**2).sum(1) * (xr**2).sum())
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(den > 0, (r @ xr) / np.where(den > 0, den, 1.0), np.nan)

        est = float(rho(steps.mean(0)[None])[0])
        rng = np.random.default_rng(0)
        boots = rho(steps[rng.integers(0, len(rows), (n_boot, len(rows)))].mean(1))
        boots = boots[np.isfinite(boots)]
        iv = (
            tuple(float(v) for v in np.quantile(boots, [0.025, 0.975]))
            if boots.size and len(rows) > 1
            else None
        )
        growth = float(np.polyfit(dls, np.log(np.maximum(steps.mean(0), 1.0)), 1)[0])
        text = (
            f"Spearman rho(dL+, mean steps to target) = {est:.3g} over dL+ {[int(x) for x in dls]}, mean steps "
            f"{np.round(steps.mean(0)).astype(int).tolist()}; runs reaching the target per seed {reached}; "
            f"log-steps growth {growth:.3g} per unit dL+ (theory with dL- = dL+ + 2: ln 4 = 1.39); needed rho >= "
            f"{rho_min}"
        )
        if not math.isfinite(est) or min(reached) < min_reached:
            return Verdict(
                Outcome.INCONCLUSIVE, text + f" and >= {min_reached} reached per seed", est, iv, len(rows)
            )
        outcome = Outcome.SUPPORTED if est >= rho_min else Outcome.NOT_SUPPORTED
        return Verdict(outcome, text, est, iv, len(rows))

    return decide
