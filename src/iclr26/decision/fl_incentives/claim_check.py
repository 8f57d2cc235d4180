"""The brief's claim check for PWYC-LP, pooled over harness seeds (one seed = one random instance).

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612). SUPPORTED when all four parts hold:

(a) validity: in >= 95% of (instance, agent) pairs the rounded LP allocation's Clopper-Pearson upper bound on
    the failure rate is <= 0.07 (delta = 0.05);
(b) efficiency: median over instances of cost(LP) / [(1 + ln|B| / ln(1/delta)) LB + sum_j c_j] <= 1 (the
    guarantee of the rounded LP: the LP factor plus at most one extra sample per agent) AND the median saving
    1 - cost(LP)/cost(go alone) >= 20% (computed here from ``cost_lp`` and ``cost_alone``; 0 when going alone
    costs nothing);
(c) incentives: no profitable misreport under PWYC in any instance (c-PWYC), and at least one under the
    marginal-benefit rule (c-benefit);
(d) equilibria: along the two-agent family PoS never decreases in M and PoS(M_max)/PoS(M_max/10) >= 5 (it keeps
    growing, about linearly), and at least one random 2-3-agent instance (with give-ups, or with three agents
    and none) has no pure NE.

NOT SUPPORTED when (a) or (c-PWYC) fails; INCONCLUSIVE otherwise. The estimate is the median saving over go
alone, with a 95% bootstrap interval of the median over seeds. The rule is unusual (pooled counts and maxima
over seeds, two parts that refute and three that can only fail), so it stays a custom decider; it declares
its two method-versus-baseline comparisons (the LP's cost against going alone, PWYC's largest misreport gain
against the benefit rule's) and a clear win. Nothing here rests on a trained model: no preconditions.
"""

from __future__ import annotations

import numpy as np

from iclr26.decision.fl_incentives.mechanism import GAIN_TOL
from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, decider
from iclr26.harness.claims import column as _col
from iclr26.harness.stats import bootstrap_interval

__all__ = ["GROWTH_MIN", "SAVING_MIN", "VALID_FRACTION", "fl_incentives_claim", "saving"]

VALID_FRACTION = 0.95
SAVING_MIN = 0.20
GROWTH_MIN = 5.0


def saving(cost_lp: np.ndarray, cost_alone: np.ndarray) -> np.ndarray:
    """1 - cost(LP) / cost(go alone) per seed (0 where going alone costs nothing), as ``saving_vs_alone``."""
    cost_lp, cost_alone = np.asarray(cost_lp, dtype=float), np.asarray(cost_alone, dtype=float)
    safe = np.where(cost_alone > 0, cost_alone, 1.0)
    return np.where(cost_alone > 0, 1.0 - cost_lp / safe, 0.0)


def _clear_win(rows: Rows) -> Rows:
    """Every part passes clearly: all pairs valid, the LP at 70% of its guarantee and half the cost of going
    alone, PWYC unmanipulable, the benefit rule manipulable, PoS growing tenfold, one instance without a NE."""
    out = []
    for i, r in enumerate(rows):
        alone = float(r["cost_alone"]) if float(r["cost_alone"]) > 0 else 100.0
        out.append(
            {
                **r,
                "valid_ok": float(r["n_pairs"]),
                "lp_bound_slack": 0.7,
                "cost_alone": alone,
                "cost_lp": 0.5 * alone * (1.0 + 1e-3 * ((i % 3) - 1)),
                "pwyc_max_gain": 0.0,
                "benefit_max_gain": 1.0,
                "pos_monotone": 1.0,
                "pos_growth": 10.0,
                "ne_none_any": float(i == 0),
            }
        )
    return out


@decider(
    "valid_ok",
    "n_pairs",
    "lp_bound_slack",
    "cost_lp",
    "cost_alone",
    "pwyc_max_gain",
    "benefit_max_gain",
    "pos_monotone",
    "pos_growth",
    "ne_none_any",
    description="(a) validity, (b) efficiency, (c) incentives and (d) equilibrium pathologies, pooled over seeds",
    compares=[
        Comparison("cost_lp", "cost_alone", higher_is_better=False),
        Comparison("pwyc_max_gain", "benefit_max_gain", higher_is_better=False),
    ],
    synthesize=_clear_win,
)
def fl_incentives_claim(rows: PerSeed) -> Verdict:
    """The brief's four-part rule; see the module docstring."""
    valid = _col(rows, "valid_ok").sum() / _col(rows, "n_pairs").sum()
    slack = float(np.median(_col(rows, "lp_bound_slack")))
    saved = saving(_col(rows, "cost_lp"), _col(rows, "cost_alone"))
    pwyc = float(np.max(_col(rows, "pwyc_max_gain")))
    benefit = float(np.max(_col(rows, "benefit_max_gain")))
    monotone = bool(np.all(_col(rows, "pos_monotone") == 1))
    growth = float(np.min(_col(rows, "pos_growth")))
    no_ne = int(np.nansum(_col(rows, "ne_none_any")))

    parts = {
        "a": valid >= VALID_FRACTION,
        "b": slack <= 1.0 and float(np.median(saved)) >= SAVING_MIN,
        "c-PWYC": pwyc <= GAIN_TOL,
        "c-benefit": benefit > GAIN_TOL,
        "d": monotone and growth >= GROWTH_MIN and no_ne >= 1,
    }
    if not (parts["a"] and parts["c-PWYC"]):
        outcome = Outcome.NOT_SUPPORTED
    elif all(parts.values()):
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE

    finite = saved[np.isfinite(saved)]
    if finite.size >= 2:
        iv = bootstrap_interval(finite, 0.95, statistic=lambda x: np.median(x, axis=1))
        estimate, interval = iv.estimate, (iv.lo, iv.hi)
    else:
        estimate, interval = float(np.median(saved)), None
    verdicts = ", ".join(f"({p}) {'pass' if ok else 'FAIL'}" for p, ok in parts.items())
    text = (
        f"{verdicts}. (a) CP upper <= 0.07 in {valid:.1%} of (instance, agent) pairs (need >= 95%); "
        f"(b) median cost(LP)/guarantee = {slack:.3f} (need <= 1), median saving over go alone = "
        f"{np.median(saved):.1%} (need >= 20%); (c) largest misreport gain: PWYC {pwyc:.3g} (need <= 0), "
        f"marginal-benefit rule {benefit:.3g} (need > 0); (d) PoS non-decreasing in M: {monotone}, "
        f"PoS(M_max)/PoS(M_max/10) = {growth:.3g} (need >= {GROWTH_MIN:g}), random instances without a pure "
        f"NE: {no_ne} (need >= 1)"
    )
    return Verdict(outcome, text, estimate, interval, len(rows))
