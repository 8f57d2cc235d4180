"""Claim check of the ICL causal-structure reproduction (OpenReview bpF8zgSt41): the brief's rule over seeds.

Per seed (query positions h >= 1, fresh evaluation contexts), from raw metrics:

* ``kl_ratio`` = ``kl_tf / kl_best_baseline``: KL(BMA || TF) over the smallest KL(BMA || baseline) among
  {uniform-parent mixture, previous-position parent, unigram} (computed in the decider, as in the experiment);
* ``col_err`` / ``row_err``: (1/d) L1 error of the column-wise / row-wise softmax of W_tf against log pi;
* ``lpa_gap`` = L_pa(TF) - L_pa(BMA) (nats).

Supported: kl_ratio <= 0.3 in every seed; mean col_err < 0.05 with 95% t upper bound < 0.1 and col_err < row_err
in every seed; lpa_gap 95% t upper bound < 0.1. Not supported: kl_ratio > 0.3 in every seed, or col_err >= 0.2
in every seed. Inconclusive otherwise. A custom rule (per-seed conditions next to intervals), declaring the
comparisons with the structure-blind baselines and with the row-wise reading of W_tf. That the model was trained
to convergence is a precondition declared in ``experiment.py``.
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
    "kl_ratio",
]

KL_RATIO_MAX = 0.3
COL_ERR_MAX = 0.05
COL_ERR_UPPER = 0.1
COL_ERR_BAD = 0.2
LPA_GAP_UPPER = 0.1

Rows = list[dict[str, float]]


def kl_ratio(kl_tf: float, kl_best_baseline: float) -> float:
    """KL(BMA || TF) / KL(BMA || best structure-blind baseline) (the denominator floored at 1e-300)."""
    return kl_tf / max(kl_best_baseline, 1e-300)


def bma_claim_decider(
    tf: str = "kl_tf",
    baseline: str = "kl_best_baseline",
    col: str = "col_err",
    row: str = "row_err",
    gap: str = "lpa_gap",
) -> Decider:
    """The brief's supported / not supported / inconclusive rule on the per-seed metrics."""

    def win(rows: Rows) -> Rows:
        out = []
        for i, r in enumerate(rows):
            j = 1e-3 * ((i % 3) - 1)
            base = float(r[baseline]) if float(r[baseline]) > 0 else 0.1
            out.append(
                {
                    **r,
                    baseline: base,
                    tf: base * (KL_RATIO_MAX / 3 + j),
                    col: COL_ERR_MAX / 2 + j,
                    row: 0.3 + j,
                    gap: LPA_GAP_UPPER / 4 + j,
                }
            )
        return out

    @decider(
        tf,
        baseline,
        col,
        row,
        gap,
        description="TF approximates BMA: KL ratio, column-softmax alignment, L_pa gap",
        compares=[(tf, baseline, False), (col, row, False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        r = np.array([kl_ratio(float(x[tf]), float(x[baseline])) for x in rows])
        c = np.array([float(x[col]) for x in rows])
        w = np.array([float(x[row]) for x in rows])
        g = np.array([float(x[gap]) for x in rows])
        n = len(rows)
        iv_r = t_interval(r)
        est, band = iv_r.estimate, ((iv_r.lo, iv_r.hi) if iv_r.defined else None)
        text = (
            f"KL(BMA||TF)/KL(BMA||best structure-blind baseline) per seed = {np.round(r, 3).tolist()} "
            f"(need all <= {KL_RATIO_MAX}); column-softmax error = {np.round(c, 4).tolist()} vs row-softmax "
            f"error = {np.round(w, 4).tolist()}; L_pa(TF) - L_pa(BMA) = {np.round(g, 4).tolist()} nats"
        )
        if np.all(r > KL_RATIO_MAX) or np.all(c >= COL_ERR_BAD):
            return Verdict(Outcome.NOT_SUPPORTED, text, est, band, n)
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
