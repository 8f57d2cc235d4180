"""Claim check of the task-vector reproduction (arXiv 2506.09048): the brief's three-part rule over seeds.

Per seed: G = (R_TV - R_n) / (R_0 - R_n), the ratio R_TV / R_1, the rank shares S (TV outputs) and S_icl (n-shot
ICL outputs), and in the discrete part D = (ICL - TV) on bijection tasks minus (ICL - TV) on base/inverse tasks
(points, with its standard error over prompts) and the smallest ICL accuracy over base, inverse and bijection.

SUPPORTED: (a) mean G >= 0.5, 95% t-interval lower end > 0.2, mean R_TV / R_1 in [0.67, 1.5]; (b) mean S >= 0.9
and mean S_icl <= 0.6; (c) mean D >= 20 points, its 95% interval (normal approximation over prompts, pooled over
seeds) above 0, and ICL >= 80% on base/inverse and bijection. NOT SUPPORTED: mean G <= 0.2, or ICL >= 80% and
mean D <= 5 points. INCONCLUSIVE otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["METRICS", "task_vector_decider"]

METRICS = ("gap", "rtv_over_r1", "s_tv", "s_icl", "disc_diff", "disc_diff_se", "disc_icl_min")


def task_vector_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule."""

    @decider(*METRICS, description="TV ~ one demo (G, R_TV/R_1), rank-one outputs (S), bijection failure (D)")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        col = {m: np.array([float(r[m]) for r in rows]) for m in METRICS}
        if not all(np.all(np.isfinite(v)) for v in col.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(col["gap"])
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        ratio, s, s_icl = (float(col[m].mean()) for m in ("rtv_over_r1", "s_tv", "s_icl"))
        diff = float(col["disc_diff"].mean())
        se = float(np.sqrt((col["disc_diff_se"] ** 2).sum()) / len(rows))
        lo_c = diff - 1.96 * se
        icl = float(col["disc_icl_min"].mean())
        a = iv.estimate >= 0.5 and iv.lo > 0.2 and 0.67 <= ratio <= 1.5
        b = s >= 0.9 and s_icl <= 0.6
        c = diff >= 20.0 and lo_c > 0 and icl >= 0.8
        if iv.estimate <= 0.2 or (icl >= 0.8 and diff <= 5.0):
            outcome = Outcome.NOT_SUPPORTED
        elif a and b and c:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"(a) G = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; need >= 0.5, lower > 0.2), "
            f"R_TV/R_1 = {ratio:.3g} (need 0.67-1.5): {'ok' if a else 'fails'}; (b) S = {s:.3g} (>= 0.9), "
            f"S_icl = {s_icl:.3g} (<= 0.6): {'ok' if b else 'fails'}; (c) D = {diff:.3g} points "
            f"[{lo_c:.3g}, {diff + 1.96 * se:.3g}] (>= 20, lower > 0), min ICL = {icl:.3g} (>= 0.8): "
            f"{'ok' if c else 'fails'}"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
