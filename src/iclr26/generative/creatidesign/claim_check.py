"""Claim check of the CreatiDesign reproduction (arXiv 2505.19114): the brief's with-mask vs without-mask rule.

Per seed (same data, initialisation, batches, condition dropout and sampling noise for both variants): layout
attribute accuracy and leakage rate of each variant over the held-out test layouts. Over seeds, the 95%
Student-t interval of the paired accuracy difference ``mask - nomask``:

* supported: mean difference >= 0.05 (5 points), interval lower end > 0, and the mean leakage difference
  ``mask - nomask`` < 0 (leakage lower);
* not supported: the interval lies at or below 0 (upper end <= 0);
* inconclusive otherwise.

Whether the models learned anything is not this rule's business: the claim declares preconditions (the
evaluator reads real renders, both generators follow the prompt, one of them places layout attributes above
chance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Precondition, Rows, Verdict, decider
from iclr26.harness.claims import effect_at_least as _effect

__all__ = ["CHANCE_BACKGROUND", "CHANCE_LAYOUT", "MIN_GAIN", "mask_gain_decider", "learned_preconditions"]

MIN_GAIN = 0.05
CHANCE_LAYOUT = 1.0 / 12.0  # 4 colours x 3 shapes
CHANCE_BACKGROUND = 1.0 / 4.0


def learned_preconditions(method: str = "mask", baseline: str = "nomask") -> tuple[Precondition, ...]:
    """The evaluator is accurate on real renders; both generators follow the prompt; one places layout."""
    return (
        Precondition(
            "eval_acc",
            ">=",
            1.0 - 2 * MIN_GAIN,
            "the crop classifier reads real test renders with an error of at most twice the claimed 5-point "
            "effect",
        ),
        *(
            Precondition(
                f"{v}_background_acc",
                ">=",
                CHANCE_BACKGROUND + 0.1,
                f"{v} paints the prompt's background colour 10 points above chance (1/4)",
            )
            for v in (method, baseline)
        ),
        Precondition(
            f"{method}_{baseline}_best_layout_acc",
            ">=",
            CHANCE_LAYOUT + 0.1,
            "at least one variant gets box colour and shape right 10 points above chance (1/12)",
        ),
    )


def mask_gain_decider(method: str = "mask", baseline: str = "nomask", min_gain: float = MIN_GAIN) -> Decider:
    """The brief's supported / not supported / inconclusive rule for `method` against `baseline`."""
    a, b = f"{method}_layout_acc", f"{baseline}_layout_acc"
    la, lb = f"{method}_leakage", f"{baseline}_leakage"
    gain_rule = _effect(a, b, support_at=min_gain, null=0.0, refute_below=1e-12)

    def win(rows: Rows) -> Rows:
        rows = gain_rule.synthesize(rows)  # type: ignore[misc]
        return [{**r, la: float(r[lb]) - 0.05} for r in rows]

    @decider(
        a,
        b,
        la,
        lb,
        description=f"{method} - {baseline} layout accuracy >= {min_gain} (t-interval > 0), leakage lower",
        compares=[Comparison(a, b, True), Comparison(la, lb, False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        verdict = gain_rule(rows)
        if verdict.interval is None:
            return verdict
        leak = float(np.mean([float(r[la]) - float(r[lb]) for r in rows]))
        outcome = verdict.outcome
        if outcome is Outcome.SUPPORTED and not leak < 0:
            outcome = Outcome.INCONCLUSIVE
        lo, hi = verdict.interval
        text = (
            f"layout accuracy {method} - {baseline} = {verdict.estimate:.3g} [{lo:.3g}, {hi:.3g}] (95% t, "
            f"{verdict.n_seeds} seeds; need >= {min_gain} and lower end > 0, refuted when the interval lies at or "
            f"below 0); leakage difference = {leak:.3g} (need < 0)"
        )
        return Verdict(outcome, text, verdict.estimate, verdict.interval, verdict.n_seeds)

    return decide
