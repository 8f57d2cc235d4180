"""The brief's claim checks for BP-LLM, judged over seeds (one seed = 20 random games and the prosecutor).

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989).

Main claim ("RL makes a sender persuade as theory predicts"): per seed, ``rl_G`` is the mean over the seed's
random games of the commitment-mode RL sender's normalised gain G = (V - V_0) / (V* - V_0) against a Bayesian
receiver, and ``full_G`` the same for full disclosure. Over seeds (Student-t, 95%):

* SUPPORTED when mean rl_G >= 0.9, its interval's lower bound >= 0.8, and the paired interval of
  rl_G - full_G lies above 0;
* NOT SUPPORTED when mean rl_G < 0.7;
* INCONCLUSIVE otherwise.

The learned-model precondition (declared on the claim in ``experiment.py``) asks that in every seed the
trained sender beats both trivial baselines on average: rl_G - max(G of a uniformly random scheme, 0) > 0
(0 is no disclosure's G). A sender that did not learn gives *not reproduced at this budget*.

The strategy check (the paper's "strategies align with BP theory") is judged with the harness's effect rule on
the per-seed fraction of unique-optimum games where the learned scheme is within total variation 0.1 of the
LP optimum: see ``experiment.py``.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = ["G_REFUTE", "G_SUPPORT", "G_SUPPORT_LO", "rl_reaches_optimum"]

G_SUPPORT = 0.9  # mean normalised gain needed
G_SUPPORT_LO = 0.8  # and the lower end of its 95% interval
G_REFUTE = 0.7  # a mean below this refutes


def _clear_win(rows: Rows) -> Rows:
    """The RL sender at G = 0.97 in every seed, full disclosure at most 0.5."""
    return [
        {
            **r,
            "rl_G": 0.97 + seed_spread(i, 5e-3),
            "full_G": min(float(r["full_G"]), 0.5) + seed_spread(i, 5e-3),
        }
        for i, r in enumerate(rows)
    ]


@decider(
    "rl_G",
    "full_G",
    description=(
        f"mean rl_G >= {G_SUPPORT} with 95% lower bound >= {G_SUPPORT_LO} and rl_G - full_G > 0 (paired); "
        f"refuted when mean rl_G < {G_REFUTE}"
    ),
    compares=[Comparison("rl_G", "full_G")],
    synthesize=_clear_win,
)
def rl_reaches_optimum(rows: PerSeed) -> Verdict:
    """The brief's three-way rule on the RL sender's normalised gain; see the module docstring."""
    g, full = column(rows, "rl_G"), column(rows, "full_G")
    iv, diff = t_interval(g), t_interval(g - full)
    if iv.estimate < G_REFUTE:
        outcome = Outcome.NOT_SUPPORTED
    elif iv.estimate >= G_SUPPORT and iv.lo >= G_SUPPORT_LO and diff.lo > 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"rl_G = {iv.estimate:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] (95% t, {iv.n} seeds; supported at >= {G_SUPPORT} "
        f"with the lower bound >= {G_SUPPORT_LO}, refuted below {G_REFUTE}); rl_G - full_G = "
        f"{diff.estimate:.3f} [{diff.lo:.3f}, {diff.hi:.3f}] (needs > 0); full disclosure's G = "
        f"{float(np.mean(full)):.3f}"
    )
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)
