"""The brief's claim rule for SpecGD, as a decider over per-seed balanced-accuracy gaps.

Per seed the experiment records, at the early checkpoint (20% of training), the balanced-test-accuracy gaps

* ``linear_gap_vs_gd``: SpecGD minus GD on the linear model (fractions, 0.03 = 3 points),
* ``linear_gap_vs_ngd``: SpecGD minus normalized GD on the linear model,
* ``digits_gap_muon_vs_sgd``: Muon minus SGD+momentum on long-tailed digits (MLP).

C1 holds when the mean SpecGD-GD gap is >= 3 points with a paired 95% t-interval above 0 and the SpecGD-NGD
interval is above 0; C3 holds when the Muon-SGD interval is above 0. Supported when C1 and C3 hold; not
supported when any of the three intervals lies entirely at or below 0; inconclusive otherwise.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import interval

__all__ = ["specgd_decider"]

GAP_METRICS = ("linear_gap_vs_gd", "linear_gap_vs_ngd", "digits_gap_muon_vs_sgd")


def specgd_decider(min_gap: float = 0.03, level: float = 0.95) -> Decider:
    """C1 (linear SpecGD vs GD by >= `min_gap`, and vs NGD) and C3 (Muon vs SGD on digits), paired t-intervals."""

    @decider(*GAP_METRICS, description=f"C1: SpecGD-GD >= {min_gap} and SpecGD-NGD > 0; C3: Muon-SGD > 0")
    def decide(rows) -> Verdict:
        cols = {m: np.array([float(r[m]) for r in rows]) for m in GAP_METRICS}
        if not all(np.all(np.isfinite(c)) for c in cols.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite gaps in some seeds", n_seeds=len(rows))
        ivs = {m: interval(cols[m], level, "t") for m in GAP_METRICS}
        if not all(iv.defined for iv in ivs.values()):
            return Verdict(Outcome.INCONCLUSIVE, "intervals need at least two seeds", n_seeds=len(rows))
        text = "; ".join(f"{m} = {iv.estimate:.4f} [{iv.lo:.4f}, {iv.hi:.4f}]" for m, iv in ivs.items())
        gd, ngd, muon = (ivs[m] for m in GAP_METRICS)
        c1 = gd.estimate >= min_gap and gd.lo > 0 and ngd.lo > 0
        c3 = muon.lo > 0
        if any(iv.hi <= 0 for iv in ivs.values()):
            outcome = Outcome.NOT_SUPPORTED
        elif c1 and c3:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        why = f"C1 {'holds' if c1 else 'fails'}, C3 {'holds' if c3 else 'fails'} ({level:.0%} paired t)"
        return Verdict(outcome, f"{text}; {why}", gd.estimate, (gd.lo, gd.hi), len(rows))

    return decide
