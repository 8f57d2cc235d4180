"""The brief's claim rule for IG-FWI, with the cycle-skipping check, judged over seeds.

Paper: "Unveiling the Mechanism of Continuous Representation Full-Waveform Inversion" (ICLR 2026, arXiv
2603.22362). Per seed: the final relative model errors ``err_ig``, ``err_inr``, ``err_grid`` from the poor start,
and (seed 0 only, NaN elsewhere) ``err_grid_good``, FWI-grid from the good start.

* INCONCLUSIVE when FWI-grid from the poor start ends within 10% of its good-start error (mean err_grid <=
  1.1 x mean err_grid_good): no cycle skipping was induced, robustness was not tested;
* SUPPORTED when mean err_ig is at least 5% (relative) below both mean err_inr and mean err_grid and the paired
  95% t-interval of err_ig - err_inr lies below 0;
* NOT SUPPORTED when mean err_ig >= mean err_inr or >= mean err_grid;
* INCONCLUSIVE otherwise.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = ["CYCLE_SKIP_MARGIN", "REL_MARGIN", "ig_beats_baselines"]

REL_MARGIN = 0.05
CYCLE_SKIP_MARGIN = 0.10


def _clear_win(rows: Rows) -> Rows:
    out = []
    for i, r in enumerate(rows):
        grid, inr = max(float(r["err_grid"]), 0.2), max(float(r["err_inr"]), 0.2)
        out.append(
            {
                **r,
                "err_grid": grid,
                "err_inr": inr,
                "err_grid_good": 0.5 * grid,
                "err_ig": 0.5 * min(grid, inr) + seed_spread(i, 1e-3),
            }
        )
    return out


@decider(
    "err_ig",
    "err_inr",
    "err_grid",
    "err_grid_good",
    description=(
        f"mean err_ig >= {REL_MARGIN:.0%} below err_inr and err_grid, paired t-interval of err_ig - err_inr < 0; "
        f"inconclusive when err_grid <= {1 + CYCLE_SKIP_MARGIN:g} x err_grid_good (no cycle skipping)"
    ),
    compares=[Comparison("err_ig", "err_inr", False), Comparison("err_ig", "err_grid", False)],
    synthesize=_clear_win,
    allow_nonfinite=["err_grid_good"],
)
def ig_beats_baselines(rows: PerSeed) -> Verdict:
    """The brief's three-way rule with the cycle-skipping guard; see the module docstring."""
    ig, inr, grid = column(rows, "err_ig"), column(rows, "err_inr"), column(rows, "err_grid")
    good = column(rows, "err_grid_good")
    good = good[np.isfinite(good)]
    diff = t_interval(ig - inr)
    m_ig, m_inr, m_grid = float(ig.mean()), float(inr.mean()), float(grid.mean())
    text = (
        f"err_ig = {m_ig:.4f}, err_inr = {m_inr:.4f}, err_grid = {m_grid:.4f} (means over {len(ig)} seeds); "
        f"err_ig - err_inr = {diff.estimate:.4f} [{diff.lo:.4f}, {diff.hi:.4f}] (95% t)"
    )
    if good.size == 0:
        return Verdict(
            Outcome.INCONCLUSIVE,
            text + "; no good-start FWI-grid reference",
            diff.estimate,
            (diff.lo, diff.hi),
            len(ig),
        )
    m_good = float(good.mean())
    text += f"; FWI-grid good start {m_good:.4f} (poor/good = {m_grid / m_good:.2f})"
    if m_grid <= (1 + CYCLE_SKIP_MARGIN) * m_good:
        outcome = Outcome.INCONCLUSIVE
        text += f": within {CYCLE_SKIP_MARGIN:.0%}, no cycle skipping induced"
    elif m_ig >= m_inr or m_ig >= m_grid:
        outcome = Outcome.NOT_SUPPORTED
    elif m_ig <= (1 - REL_MARGIN) * min(m_inr, m_grid) and diff.hi < 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, diff.estimate, (diff.lo, diff.hi), len(ig))
