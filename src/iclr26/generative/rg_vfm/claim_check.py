"""Claim check of the RG-VFM reproduction (arXiv 2502.12981): the brief's paired rule over harness seeds.

Per seed (same data, initialisation and batches for both methods): gain = in-cell rate(RG-VFM) - in-cell
rate(RFM), MMD^2 difference = MMD^2(RG-VFM) - MMD^2(RFM), both computed here from the per-method metrics.
95% Student-t interval of the gain over seeds. Supported: mean gain >= 0.02 (2 points), interval lower end > 0
and mean MMD^2 difference <= 0 (MMD not worse). Not supported: interval upper end below 0. Inconclusive
otherwise. Seeds where the task did not run (``<task>_ran == 0``, e.g. H^2 on fewer seeds; their metrics are
NaN by design) are left out before the rule runs.

Whether the two flows learned anything at all is not this rule's business: the claims declare preconditions
on ``<task>_<method>_learned`` (see :data:`LEARNED_FRACTION`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Precondition, Rows, Verdict, decider
from iclr26.harness.claims import effect_at_least as _effect

__all__ = ["LEARNED_FRACTION", "MIN_GAIN", "incell_gain_decider", "learned_preconditions"]

MIN_GAIN = 0.02
#: a flow "learned" when its in-cell rate closes a tenth of the gap between the base distribution's (the flow
#: that does not move: the trivial sampler) and the data's (1.0)
LEARNED_FRACTION = 0.1


def learned_preconditions(task: str, method: str = "rgvfm") -> tuple[Precondition, ...]:
    """`method` and RFM each put more of their samples in the on cells than the base distribution does."""
    return tuple(
        Precondition(
            f"{task}_{m}_learned",
            ">=",
            LEARNED_FRACTION,
            f"{m}'s samples close a tenth of the gap in in-cell rate between the base distribution (the "
            "untrained trivial sampler) and the data (1.0)",
        )
        for m in (method, "rfm")
    )


def incell_gain_decider(task: str, min_gain: float = MIN_GAIN, method: str = "rgvfm") -> Decider:
    """The brief's supported / not supported / inconclusive rule for `task` ("s2" or "h2").

    `method` selects the RG-VFM variant compared with RFM, e.g. ``"rgvfm_proj"`` (the normalised head).
    """
    a, b = f"{task}_{method}_incell", f"{task}_rfm_incell"
    ma, mb = f"{task}_{method}_mmd", f"{task}_rfm_mmd"
    ran = f"{task}_ran"
    # the three-way effect rule on the in-cell gain, refuted (as the brief says) only below 0
    gain_rule = _effect(a, b, support_at=min_gain, null=0.0, refute_below=0.0)
    # the shared guards (present, finite, >= 2 seeds), applied to the seeds where the task ran
    ran_guard = Decider(gain_rule, [a, b, ma, mb], f"{task} metrics of the seeds that ran")

    def win(rows: Rows) -> Rows:
        rows = [{**r, ran: 1.0} for r in rows]
        rows = gain_rule.synthesize(rows)  # type: ignore[misc]
        return [{**r, ma: float(r[mb]) - 1e-3} for r in rows]

    @decider(
        a,
        b,
        ma,
        mb,
        ran,
        description=f"{task}: {method} - RFM in-cell gain >= {min_gain} (t-interval > 0), MMD not worse",
        compares=[Comparison(a, b, True)],
        synthesize=win,
        allow_nonfinite=[a, b, ma, mb],  # NaN by design in seeds where the task did not run
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        rows = [r for r in rows if float(r[ran]) == 1.0]
        failed = ran_guard.guard(rows)
        if failed is not None:
            return failed
        verdict = gain_rule(rows)
        if verdict.interval is None:
            return verdict
        mmd = float(np.mean([float(r[ma]) - float(r[mb]) for r in rows]))
        outcome = verdict.outcome
        if outcome is Outcome.SUPPORTED and mmd > 0:
            outcome = Outcome.INCONCLUSIVE
        lo, hi = verdict.interval
        text = (
            f"in-cell gain = {verdict.estimate:.3g} [{lo:.3g}, {hi:.3g}] (95% t, {verdict.n_seeds} seeds; need "
            f">= {min_gain} and lower end > 0, refuted when the interval lies below 0); MMD^2 diff = {mmd:.3g} "
            "(need <= 0)"
        )
        return Verdict(outcome, text, verdict.estimate, verdict.interval, verdict.n_seeds)

    return decide
