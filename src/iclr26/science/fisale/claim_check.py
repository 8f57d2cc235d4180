"""The brief's claim rule for Fisale, judged over seeds.

Paper: "Fisale: Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (ICLR 2026, arXiv
2603.00792).

Per seed: the mean over the three domains of the one-step test relative L2 of Fisale, ``onestep_fisale``, and of
the parameter-matched TransolverLite, ``onestep_transolver`` (trained from the same batches):

* SUPPORTED when mean Fisale is >= 10% below mean TransolverLite and the paired 95% t-interval of
  (Fisale - TransolverLite) lies below 0;
* NOT SUPPORTED when mean Fisale >= mean TransolverLite;
* INCONCLUSIVE otherwise.
"""

from __future__ import annotations

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = ["REL_DROP", "fisale_beats_transolver"]

REL_DROP = 0.10


def _clear_win(rows: Rows) -> Rows:
    return [
        {**r, "onestep_fisale": 0.5 * float(r["onestep_transolver"]) + seed_spread(i, 1e-4)}
        for i, r in enumerate(rows)
    ]


@decider(
    "onestep_fisale",
    "onestep_transolver",
    description=(
        f"mean one-step test relative L2 (mean over domains) of Fisale >= {REL_DROP:.0%} below TransolverLite and "
        "the paired 95% t-interval of Fisale - TransolverLite < 0; not supported when Fisale >= TransolverLite"
    ),
    compares=[Comparison("onestep_fisale", "onestep_transolver", False)],
    synthesize=_clear_win,
)
def fisale_beats_transolver(rows: PerSeed) -> Verdict:
    """The brief's relative claim check; see the module docstring."""
    fis, tra = column(rows, "onestep_fisale"), column(rows, "onestep_transolver")
    diff = t_interval(fis - tra)
    m_f, m_t = float(fis.mean()), float(tra.mean())
    drop = 1.0 - m_f / m_t
    text = (
        f"one-step relative L2 Fisale {m_f:.4f} vs TransolverLite {m_t:.4f} (relative drop {drop:.1%}); "
        f"Fisale - TransolverLite = {diff.estimate:.4f} [{diff.lo:.4f}, {diff.hi:.4f}] (95% t, {len(fis)} seeds)"
    )
    if m_f >= m_t:
        outcome = Outcome.NOT_SUPPORTED
    elif drop >= REL_DROP and diff.hi < 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, diff.estimate, (diff.lo, diff.hi), len(fis))
