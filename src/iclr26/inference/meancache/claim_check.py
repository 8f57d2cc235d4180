"""Claim check of the MeanCache reproduction (arXiv 2601.19961), the brief's rule over harness seeds.

At budget B (<= 12 of 50, >= 4x), per seed: gain = PSNR(MeanCache) - max PSNR(instantaneous-velocity baselines:
uniform reuse, TaylorSeer-style, TeaCache-style), each PSNR a mean over the noise-paired samples; the decider
takes the best baseline per seed itself (from ``<task>_b<B>_<method>_psnr``), so that a baseline's numbers put in
MeanCache's place must fail. ``fd ratio`` = Frechet(MeanCache) / Frechet(best-PSNR baseline), mean over seeds.
95% Student-t interval of the gain over seeds.

* supported: mean gain >= `support_at` (1 dB on digits), interval above 0, and (when judged) mean fd ratio <= 1.05;
* not supported: the interval reaches 0 (lower end <= 0) and lies wholly below `support_at` (the data exclude the
  claimed gain);
* inconclusive otherwise: an interval that reaches 0 but also 1 dB (the harness rule that overrides the brief's
  "lower end <= 0 -> not supported"), a significant gain below 1 dB, or a Frechet distance worse by > 5%.

Preconditions (:data:`DIGITS_LEARNED`, :data:`MIXTURE_LEARNED`): the flow models learned their data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Precondition, Verdict, decider
from iclr26.harness.claims import column as _col
from iclr26.harness.stats import t_interval

__all__ = [
    "BASELINES",
    "DIGITS_LEARNED",
    "FD_SLACK",
    "GAIN_DB",
    "MIXTURE_LEARNED",
    "gain_over_best_baseline",
    "meancache_decider",
]

BASELINES = ("reuse", "taylorseer", "teacache")  # instantaneous-velocity baselines of the claim
GAIN_DB = 1.0
FD_SLACK = 1.05

DIGITS_LEARNED = Precondition(
    "digits_ref_acc",
    ">=",
    0.6,
    "the digits classifier recognises the intended class in >= 60% of the 50-step reference samples (chance 1/10 "
    "plus 50 points): the conditional flow learned the digits",
)
MIXTURE_LEARNED = Precondition(
    "mixture_ref_sw_over_noise",
    "<=",
    0.9,
    "the 50-step samples are >= 10% closer to the 8-Gaussian data (sliced W1) than the prior noise itself (the "
    "no-training sampler)",
)


def _jitter(i: int) -> float:
    return 1e-2 * ((i % 3) - 1)


def gain_over_best_baseline(
    task: str,
    budget: int,
    support_at: float,
    fd_slack: float | None = None,
    baselines: Sequence[str] = BASELINES,
) -> Decider:
    """PSNR(MeanCache) minus the best baseline's at `budget`; see the module docstring for the rule."""
    p = f"{task}_b{budget}_"
    method, bases = f"{p}meancache_psnr", [f"{p}{m}_psnr" for m in baselines]
    fds = [f"{p}meancache_fd", *(f"{p}{m}_fd" for m in baselines)] if fd_slack is not None else []

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            best = max(float(r[b]) for b in bases)
            best = best if math.isfinite(best) else 30.0
            row = {**r, method: best + 2.0 * max(support_at, 1.0) * (1.0 + _jitter(i))}
            if fds:
                best_fd = float(r[f"{p}{baselines[int(np.argmax([float(r[b]) for b in bases]))]}_fd"])
                row[f"{p}meancache_fd"] = best_fd if math.isfinite(best_fd) and best_fd > 0 else 1.0
                if not (math.isfinite(best_fd) and best_fd > 0):
                    row |= {f"{p}{m}_fd": 1.0 for m in baselines}
            out.append(row)
        return out

    fd_text = f", Frechet distance <= {fd_slack}x the best baseline's" if fd_slack is not None else ""

    @decider(
        method,
        *bases,
        *fds,
        description=f"{task} B={budget}: PSNR gain over the best baseline >= {support_at} dB{fd_text}",
        compares=[(method, b, True) for b in bases],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        psnr = np.stack([_col(rows, b) for b in bases])
        iv = t_interval(_col(rows, method) - psnr.max(axis=0))
        ratio_ok, ratio_text = True, ""
        if fd_slack is not None:
            best = psnr.argmax(axis=0)  # first maximum, as the run's `best_baseline`
            best_fd = np.array([float(r[f"{p}{baselines[k]}_fd"]) for r, k in zip(rows, best)])
            ratio = float(np.mean(_col(rows, f"{p}meancache_fd") / best_fd))
            ratio_ok = ratio <= fd_slack
            ratio_text = f"; Frechet ratio = {ratio:.3g} (need <= {fd_slack})"
        if iv.estimate >= support_at and iv.lo > 0 and ratio_ok:
            outcome = Outcome.SUPPORTED
        elif iv.lo <= 0 and iv.hi < support_at:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"PSNR gain = {iv.estimate:.3g} dB [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; supported at >= "
            f"{support_at:g} with the interval above 0, refuted when it reaches 0 and lies below {support_at:g})"
            + ratio_text
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide


def meancache_decider(task: str, budget: int) -> Decider:
    """The brief's rule at `budget` for `task`: >= 1 dB over the best baseline, Frechet distance within 5%."""
    return gain_over_best_baseline(task, budget, GAIN_DB, FD_SLACK)
