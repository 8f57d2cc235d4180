"""The brief's claim rule for FARTrack's self-distillation (ICLR 2026, arXiv 2602.03214), judged over seeds.

Per seed: ``ao_student`` (test AO, in points, of the 3-block model truncated from the self-distilled 6-block run)
and ``ao_scratch`` (the same depth trained from scratch with the same steps). d = ao_student - ao_scratch.

* INCONCLUSIVE when mean ao_scratch > 90 (ceiling: the synthetic videos leave no room);
* SUPPORTED when mean d >= 2 points and the paired 95% t-interval of d lies above 0;
* NOT SUPPORTED when mean d <= 0;
* INCONCLUSIVE otherwise.
"""

from __future__ import annotations

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = ["CEILING", "MARGIN", "distillation_beats_scratch"]

MARGIN = 2.0
CEILING = 90.0


def _clear_win(rows: Rows) -> Rows:
    out = []
    for i, r in enumerate(rows):
        base = min(float(r["ao_scratch"]), 60.0)
        out.append({**r, "ao_scratch": base, "ao_student": base + 3 * MARGIN + seed_spread(i, 0.1)})
    return out


@decider(
    "ao_student",
    "ao_scratch",
    description=(
        f"mean AO(student) - AO(scratch) >= {MARGIN:g} points with the paired 95% t-interval above 0; refuted when "
        f"the mean difference is <= 0; inconclusive when AO(scratch) > {CEILING:g} (ceiling)"
    ),
    compares=[Comparison("ao_student", "ao_scratch", True)],
    synthesize=_clear_win,
)
def distillation_beats_scratch(rows: PerSeed) -> Verdict:
    """The brief's three-way rule with the ceiling guard; see the module docstring."""
    student, scratch = column(rows, "ao_student"), column(rows, "ao_scratch")
    iv = t_interval(student - scratch)
    text = (
        f"AO student = {student.mean():.2f}, scratch = {scratch.mean():.2f} (means over {len(student)} seeds); "
        f"student - scratch = {iv.estimate:+.2f} [{iv.lo:+.2f}, {iv.hi:+.2f}] (95% paired t)"
    )
    if float(scratch.mean()) > CEILING:
        outcome = Outcome.INCONCLUSIVE
        text += f"; scratch AO above {CEILING:g}: ceiling, the comparison has no room"
    elif iv.estimate <= 0:
        outcome = Outcome.NOT_SUPPORTED
    elif iv.estimate >= MARGIN and iv.lo > 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)
