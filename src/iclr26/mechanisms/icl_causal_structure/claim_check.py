"""Claim check of the ICL causal-structure reproduction (OpenReview bpF8zgSt41): the brief's rule over seeds.

Per seed (query positions h >= 1, fresh evaluation contexts):

* ``kl_ratio`` = KL(BMA || TF) / min over {uniform-parent mixture, previous-position parent, unigram} of
  KL(BMA || baseline);
* ``col_err`` / ``row_err``: (1/d) L1 error of the column-wise / row-wise softmax of W_tf against log pi;
* ``lpa_gap`` = L_pa(TF) - L_pa(BMA) (nats).

Supported: kl_ratio <= 0.3 in every seed; mean col_err < 0.05 with 95% t upper bound < 0.1 and col_err < row_err
in every seed; lpa_gap 95% t upper bound < 0.1. Not supported: kl_ratio > 0.3 in every seed, or col_err >= 0.2
in every seed. Inconclusive otherwise (including fewer than 2 seeds, where no interval exists).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = [
    "COL_ERR_BAD",
    "COL_ERR_MAX",
    "COL_ERR_UPPER",
    "KL_RATIO_MAX",
    "LPA_GAP_UPPER",
    "bma_claim_decider",
]

KL_RATIO_MAX = 0.3
COL_ERR_MAX = 0.05
COL_ERR_UPPER = 0.1
COL_ERR_BAD = 0.2
LPA_GAP_UPPER = 0.1


def bma_claim_decider(
    ratio: str = "kl_ratio", col: str = "col_err", row: str = "row_err", gap: str = "lpa_gap"
) -> Decider:
    """The brief's supported / not supported / inconclusive rule on the four per-seed metrics."""

    @decider(
        ratio, col, row, gap, description="TF approximates BMA: KL ratio, column-softmax alignment, L_pa gap"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        r = np.array([float(x[ratio]) for x in rows])
        c = np.array([float(x[col]) for x in rows])
        w = np.array([float(x[row]) for x in rows])
        g = np.array([float(x[gap]) for x in rows])
        n = len(rows)
        if not all(np.all(np.isfinite(v)) for v in (r, c, w, g)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=n)
        iv_r = t_interval(r)
        est, band = iv_r.estimate, ((iv_r.lo, iv_r.hi) if iv_r.defined else None)
        text = (
            f"KL(BMA||TF)/KL(BMA||best structure-blind baseline) per seed = {np.round(r, 3).tolist()} "
            f"(need all <= {KL_RATIO_MAX}); column-softmax error = {np.round(c, 4).tolist()} vs row-softmax "
            f"error = {np.round(w, 4).tolist()}; L_pa(TF) - L_pa(BMA) = {np.round(g, 4).tolist()} nats"
        )
        if np.all(r > KL_RATIO_MAX) or np.all(c >= COL_ERR_BAD):
            return Verdict(Outcome.NOT_SUPPORTED, text, est, band, n)
        if n < 2:
            return Verdict(Outcome.INCONCLUSIVE, text + "; intervals need >= 2 seeds", est, band, n)
        iv_c, iv_g = t_interval(c), t_interval(g)
        text += f"; col-err mean {iv_c.estimate:.4g} (upper {iv_c.hi:.4g}); L_pa gap upper {iv_g.hi:.4g}"
        ok = (
            bool(np.all(r <= KL_RATIO_MAX))
            and iv_c.estimate < COL_ERR_MAX
            and iv_c.hi < COL_ERR_UPPER
            and bool(np.all(c < w))
            and iv_g.hi < LPA_GAP_UPPER
        )
        return Verdict(Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE, text, est, band, n)

    return decide
