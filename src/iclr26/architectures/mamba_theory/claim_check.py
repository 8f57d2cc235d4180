"""Claim checks of the Mamba training-dynamics reproduction (arXiv 2602.12499), the brief's rule over seeds.

Every decider declares each metric it reads (gap and dL+ lists fixed here, :data:`CLAIM_GAPS`,
:data:`CLAIM_DLS`); ``<decay>`` is ``gated`` (the paper's selective recurrence) or ``none`` (the accumulate
variant).

(a) alignment: ``min(|w^T o+|, |w^T o-|) / max_irr |w^T o_k| >= 5`` after training in >= 4/5 of the seeds
    (``fraction_of_seeds`` on ``e1_alignment_ratio_<decay>``).
(b) gap scaling: OLS slope of log(steps to 5% test error) on log(alpha_r - alpha_c), pooled over seeds, from the
    per-seed metrics ``e2_main_steps_g###_<decay>`` / ``e2_main_censored_g###_<decay>`` (### = 1000 x gap).
    Runs that hit the step cap are excluded and counted; fewer than 3 gap values left -> inconclusive. 95%
    percentile interval from a seed bootstrap. Supported: interval inside [-3, -1]; not supported: interval
    contains 0; else inconclusive.
(c) locality: Spearman rho between dL+ and the seed-mean steps to 5% (capped runs at the cap) >= 0.8, from
    ``e3_steps_dl#`` / ``e3_censored_dl#``. That enough dL+ values reach the target in every seed is a
    precondition of the claim (``e3_n_reached``), not part of this rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from iclr26.harness.claims import Decider, Outcome, Verdict, decider, fraction_of_seeds

__all__ = [
    "CLAIM_DLS",
    "CLAIM_GAPS",
    "alignment_decider",
    "gap_code",
    "gap_keys",
    "gap_slope_decider",
    "locality_decider",
]

CLAIM_GAPS = (
    0.1,
    0.15,
    0.2,
    0.3,
)  # signal gaps alpha_r - alpha_c the gap-scaling rule reads (every budget has them)
CLAIM_DLS = (1, 2, 3, 4, 5, 6)  # dL+ values the locality rule reads


def gap_code(gap: float) -> str:
    """Metric-name code of a signal gap: 0.15 -> ``"150"`` (thousandths, three digits)."""
    return f"{round(gap * 1000):03d}"


def gap_keys(gap: float, decay: str) -> tuple[str, str]:
    """(steps, censored) metric names of the E2 main cell at `gap` for the `decay` variant."""
    code = gap_code(gap)
    return f"e2_main_steps_g{code}_{decay}", f"e2_main_censored_g{code}_{decay}"


def alignment_decider(decay: str = "gated", threshold: float = 5.0, support_at: float = 0.8) -> Decider:
    """(a): the relevant-to-irrelevant gate alignment ratio reaches `threshold` in >= `support_at` of the seeds."""
    return fraction_of_seeds(f"e1_alignment_ratio_{decay}", ">=", threshold, support_at)


def _points(rows: Sequence[Mapping[str, float]], keys: Sequence[tuple[float, str, str]]):
    """Per seed: sorted list of (x, steps, censored) from the declared (x, steps key, censored key) triples."""
    return [sorted((x, float(row[sk]), bool(float(row[ck]))) for x, sk, ck in keys) for row in rows]


def _slope(points: list[tuple[float, float]]) -> float:
    x = np.log([p[0] for p in points])
    y = np.log([max(p[1], 1.0) for p in points])
    return float(np.polyfit(x, y, 1)[0])


def gap_slope_decider(
    decay: str = "gated",
    gaps: Sequence[float] = CLAIM_GAPS,
    lo: float = -3.0,
    hi: float = -1.0,
    min_gaps: int = 3,
    n_boot: int = 2000,
    level: float = 0.95,
) -> Decider:
    """(b): log-log slope of steps-to-target on the signal gap, censored runs excluded, seed-bootstrap interval."""
    keys = [(float(g), *gap_keys(g, decay)) for g in gaps]

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        """A clear win: steps = 30 (gap / 0.3)^-2, a few percent apart across seeds, nothing capped."""
        out = []
        for i, r in enumerate(rows):
            row = dict(r)
            for j, (g, sk, ck) in enumerate(keys):
                row[sk] = 30.0 * (g / 0.3) ** -2.0 * math.exp(0.03 * (((i + j) % 3) - 1))
                row[ck] = 0.0
            out.append(row)
        return out

    @decider(
        *(k for _, sk, ck in keys for k in (sk, ck)),
        description=f"log-log slope of steps on gap ({decay}) within [{lo}, {hi}], CI excluding 0",
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        per_seed = _points(rows, keys)
        kept = [[(g, s) for g, s, c in pts if not c] for pts in per_seed]
        n_cens = sum(len(p) for p in per_seed) - sum(len(k) for k in kept)
        found = sorted({g for k in kept for g, _ in k})
        if len(found) < min_gaps:
            return Verdict(
                Outcome.INCONCLUSIVE,
                f"only {len(found)} gap value(s) reached the target ({n_cens} capped runs excluded); need "
                f"{min_gaps}",
                n_seeds=len(rows),
            )
        est = _slope([p for k in kept for p in k])
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
            f"slope of log steps-to-target on log gap ({decay}) = {est:.3g} [{b_lo:.3g}, {b_hi:.3g}] "
            f"({level:.0%} seed bootstrap, {len(rows)} seeds, gaps {found}, {n_cens} capped run(s) excluded); "
            f"needed inside [{lo:g}, {hi:g}] (theory -2) and excluding 0; {shape} the theory's range"
        )
        return Verdict(outcome, text, est, (b_lo, b_hi), len(rows))

    return decide


def locality_decider(rho_min: float = 0.8, dls: Sequence[int] = CLAIM_DLS, n_boot: int = 2000) -> Decider:
    """(c): steps to target grow monotonically with dL+ (Spearman rho of the seed means >= `rho_min`)."""
    keys = [(float(k), f"e3_steps_dl{k}", f"e3_censored_dl{k}") for k in dls]
    if len(keys) < 3:
        raise ValueError(f"the locality rule needs >= 3 dL+ values, got {list(dls)}")

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        """A clear win: steps grow 4-fold per unit dL+ in every seed, nothing capped."""
        out = []
        for i, r in enumerate(rows):
            row = dict(r)
            for x, sk, ck in keys:
                row[sk] = 20.0 * 4.0 ** (x - 1) * (1.0 + 0.02 * ((i % 3) - 1))
                row[ck] = 0.0
            out.append(row)
        return out

    @decider(
        *(k for _, sk, ck in keys for k in (sk, ck)),
        description=f"Spearman rho(dL+, steps to target) >= {rho_min}",
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        per_seed = _points(rows, keys)
        xs = [x for x, _, _ in keys]
        steps = np.array([[s for _, s, _ in pts] for pts in per_seed])
        reached = [sum(not c for _, _, c in pts) for pts in per_seed]
        x_rank = stats.rankdata(xs)

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
        iv = tuple(float(v) for v in np.quantile(boots, [0.025, 0.975])) if boots.size else None
        growth = float(np.polyfit(xs, np.log(np.maximum(steps.mean(0), 1.0)), 1)[0])
        text = (
            f"Spearman rho(dL+, mean steps to target) = {est:.3g} over dL+ {[int(x) for x in xs]}, mean steps "
            f"{np.round(steps.mean(0)).astype(int).tolist()}; runs reaching the target per seed {reached}; "
            f"log-steps growth {growth:.3g} per unit dL+ (theory with dL- = dL+ + 2: ln 4 = 1.39); needed rho >= "
            f"{rho_min}"
        )
        if not math.isfinite(est):
            return Verdict(Outcome.INCONCLUSIVE, text + " (rho undefined)", est, iv, len(rows))
        outcome = Outcome.SUPPORTED if est >= rho_min else Outcome.NOT_SUPPORTED
        return Verdict(outcome, text, est, iv, len(rows))

    return decide
