"""The FACT claim check of the brief: C1 (FACT agrees better than NFA at convergence) and C2 (FACT-RFM groks).

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz ..." (arXiv 2507.05644).

* C1: per seed, ``c1_diff`` = mean over the converged lambda runs of corr(W^T W, FACT) - max(corr(W^T W, AGOP),
  corr(W^T W, AGOP^{1/2})) (NaN when no run converged: such seeds are excluded); 95% t-interval over seeds.
* C2: FACT-RFM reaches >= 95% test accuracy on modular addition within the iteration budget in every seed,
  while M = I kernel ridge stays below 50% in every seed (a precondition: otherwise the task is too easy).

Supported if the C1 interval lies above 0 and C2 holds; not supported if the C1 interval lies entirely <= 0 or
FACT-RFM misses 95% in some seed; inconclusive otherwise.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Decider, Outcome, PerSeed, Verdict, decider
from iclr26.harness.stats import interval

__all__ = ["fact_claim_decider"]


def fact_claim_decider(grok_accuracy: float = 0.95, baseline_ceiling: float = 0.5) -> Decider:
    """The combined C1-and-C2 decider (see the module docstring)."""

    @decider(
        "c1_diff", "acc_fact_rfm_best", "acc_kernel_ridge", description="FACT beats NFA and FACT-RFM groks"
    )
    def decide(rows: PerSeed) -> Verdict:
        diffs = np.array([float(r["c1_diff"]) for r in rows])
        kept = diffs[np.isfinite(diffs)]
        iv = interval(kept, 0.95, "t") if kept.size else None
        if iv is None or not iv.defined:
            c1, c1_text = Outcome.INCONCLUSIVE, f"C1: only {kept.size} seed(s) with a converged run"
        else:
            c1 = (
                Outcome.SUPPORTED
                if iv.lo > 0
                else Outcome.NOT_SUPPORTED
                if iv.hi <= 0
                else Outcome.INCONCLUSIVE
            )
            c1_text = (
                f"C1: corr(FACT) - max corr(AGOP^s) = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] "
                f"(95% t, {iv.n} of {diffs.size} seeds converged)"
            )
        fact = np.array([float(r["acc_fact_rfm_best"]) for r in rows])
        base = np.array([float(r["acc_kernel_ridge"]) for r in rows])
        groks = bool(np.all(fact >= grok_accuracy))
        hard = bool(np.all(base < baseline_ceiling))
        c2_text = (
            f"C2: FACT-RFM best test accuracy {fact.min():.3f} (worst seed), needed >= {grok_accuracy:g}; "
            f"M = I kernel ridge {base.max():.3f} (worst seed), needed < {baseline_ceiling:g}"
        )
        if c1 is Outcome.NOT_SUPPORTED or not groks:
            outcome = Outcome.NOT_SUPPORTED
        elif c1 is Outcome.SUPPORTED and hard:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        estimate = iv.estimate if iv is not None else float("nan")
        bounds = (iv.lo, iv.hi) if iv is not None and iv.defined else None
        return Verdict(outcome, f"{c1_text}; {c2_text}", estimate, bounds, len(rows))

    return decide
