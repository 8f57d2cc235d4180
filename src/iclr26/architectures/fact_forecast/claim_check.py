"""Claim check of the FACT reproduction (OpenReview j3gNYqrHtl): the brief's accuracy + efficiency rule.

Per seed: d = test MSE(FACT) - test MSE(iTransformer) on the raster ordering (same seed, paired), computed here
from the two raw MSEs; r = FACT step time / FACTAttn step time at the largest timed N, from the two raw times.
95% Student-t interval of d over seeds. Supported: interval of d entirely below 0 and mean r <= 0.7. Not
supported: interval of d entirely above 0 (FACT worse). Inconclusive otherwise (including non-finite times, which
may legitimately be NaN when timing is off).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["TIME_RATIO", "fact_decider"]

TIME_RATIO = 0.7


def fact_decider(
    mse_method: str,
    mse_baseline: str,
    time_method: str,
    time_baseline: str,
    max_ratio: float = TIME_RATIO,
) -> Decider:
    """Both halves must hold for "supported"; FACT reliably worse -> "not supported"; else "inconclusive"."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        """A clear win: FACT's MSE 20% below the baseline's, its step time 0.35x the attention variant's."""
        out = []
        for i, r in enumerate(rows):
            base = float(r[mse_baseline]) if math.isfinite(float(r[mse_baseline])) else 0.0
            base = base if base > 0 else 1.0
            t_base = float(r[time_baseline])
            t_base = t_base if math.isfinite(t_base) and t_base > 0 else 1.0
            jitter = 1e-3 * ((i % 3) - 1)
            out.append(
                {
                    **r,
                    mse_baseline: base,
                    mse_method: base * (0.8 + jitter),
                    time_baseline: t_base,
                    time_method: t_base * (0.35 + jitter),
                }
            )
        return out

    @decider(
        mse_method,
        mse_baseline,
        time_method,
        time_baseline,
        description=f"{mse_method} - {mse_baseline} CI < 0 and {time_method} / {time_baseline} <= {max_ratio}",
        compares=[(mse_method, mse_baseline, False), (time_method, time_baseline, False)],
        synthesize=synthesize,
        allow_nonfinite=(time_method, time_baseline),
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        d = np.array([float(r[mse_method]) - float(r[mse_baseline]) for r in rows])
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.array([float(r[time_method]) for r in rows]) / np.array(
                [float(r[time_baseline]) for r in rows]
            )
        iv = t_interval(d)
        ratio = float(q.mean()) if np.all(np.isfinite(q)) else float("nan")
        if iv.lo > 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.hi < 0 and np.isfinite(ratio) and ratio <= max_ratio:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"MSE(FACT) - MSE(iTransformer) = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; "
            f"need upper end < 0); FACT/FACTAttn step-time ratio = {ratio:.3g} (need <= {max_ratio})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
