"""The brief's offline claim check for SSoT, over seeds.

Per seed, over the judged sources (iid, bigram, keyboard; ``even`` is a reported negative control):
``min_inband_L32`` (smallest fraction of tasks whose median JSD at L = 32 lies in the PRNG 95% band),
``max_outband_L64`` (largest fraction outside the band at L = 64) and ``max_slope_hi`` (largest upper end of
the bootstrap 95% CI of the JSD-excess slope; fitted on L >= 1 for Sum-Mod tasks, L >= 8 for Rolling-Hash).
A seed is supported when min_inband_L32 >= 0.9 and max_slope_hi < 0, refuted when max_outband_L64 > 0.25.
Over seeds: supported if every seed is; not supported if any seed is refuted; otherwise inconclusive.

The endpoint claim (:func:`ssot_beats_direct`, runs with ``--llm`` only): per seed, the paired bootstrap 95%
interval over tasks of mean JSD(direct) - JSD(SSoT); a seed is supported when it lies above 0 (and the mean
difference is positive), refuted when it lies below 0; over seeds as above. The claim requires ``llm``: an offline
run reports it as not judged. Rows whose endpoint metrics are NaN (no parseable answer) read *inconclusive*.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread

__all__ = [
    "INBAND",
    "LLM_METRICS",
    "OUTBAND",
    "SOURCES_JUDGED",
    "extraction_converges",
    "llm_seed_outcome",
    "seed_outcome",
    "ssot_beats_direct",
]

SOURCES_JUDGED = ("iid", "bigram", "keyboard")
INBAND = 0.9
OUTBAND = 0.25


def seed_outcome(inband: float, outband: float, slope_hi: float) -> Outcome:
    """The brief's three-way rule for one seed."""
    if outband > OUTBAND:
        return Outcome.NOT_SUPPORTED
    if inband >= INBAND and slope_hi < 0:
        return Outcome.SUPPORTED
    return Outcome.INCONCLUSIVE


def _clear(rows: Rows) -> Rows:
    return [{**r, "min_inband_L32": 1.0, "max_outband_L64": 0.0, "max_slope_hi": -0.1 + seed_spread(i)}
            for i, r in enumerate(rows)]  # fmt: skip


@decider(
    "min_inband_L32",
    "max_outband_L64",
    "max_slope_hi",
    description=(
        f"every seed: in-band fraction at L=32 >= {INBAND} and slope CI < 0 (sources a-c); refuted when any "
        f"seed has > {OUTBAND} of tasks outside the band at L=64"
    ),
    synthesize=_clear,
)
def extraction_converges(rows: PerSeed) -> Verdict:
    inb, outb, hi = (
        column(rows, "min_inband_L32"),
        column(rows, "max_outband_L64"),
        column(rows, "max_slope_hi"),
    )
    outs = [seed_outcome(a, b, c) for a, b, c in zip(inb, outb, hi)]
    if any(o == Outcome.NOT_SUPPORTED for o in outs):
        outcome = Outcome.NOT_SUPPORTED
    elif all(o == Outcome.SUPPORTED for o in outs):
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"min in-band fraction at L=32 = {inb.min():.3f} (needs >= {INBAND}); max out-of-band at L=64 = "
        f"{outb.max():.3f} (refuted above {OUTBAND}); max slope CI upper end = {hi.max():.4f} (needs < 0); "
        f"{sum(o == Outcome.SUPPORTED for o in outs)}/{len(outs)} seeds supported"
    )
    return Verdict(outcome, text, float(inb.min()), (float(inb.min()), float(np.max(inb))), len(outs))


# ---------------------------------------------------------------- the endpoint claim (``--llm`` runs only)

LLM_METRICS = (
    "llm_jsd_direct",
    "llm_jsd_ssot",
    "llm_gain_lo",
    "llm_gain_hi",
    "llm_inband_direct",
    "llm_inband_ssot",
    "llm_invalid_ssot",
)


def _llm_clear(rows: Rows) -> Rows:
    return [{**r, "llm_jsd_direct": 0.2 + seed_spread(i), "llm_jsd_ssot": 0.01, "llm_gain_lo": 0.1,
             "llm_gain_hi": 0.3, "llm_inband_direct": 0.0, "llm_inband_ssot": 1.0, "llm_invalid_ssot": 0.0}
            for i, r in enumerate(rows)]  # fmt: skip


def llm_seed_outcome(gain: float, lo: float, hi: float) -> Outcome:
    """One endpoint seed: SSoT's mean JSD below direct's (``gain`` = direct - SSoT > 0 and the 95% bootstrap
    interval over tasks above 0); refuted when the interval lies below 0 (SSoT worse)."""
    if hi < 0:
        return Outcome.NOT_SUPPORTED
    if gain > 0 and lo > 0:
        return Outcome.SUPPORTED
    return Outcome.INCONCLUSIVE


@decider(
    *LLM_METRICS,
    description=(
        "endpoint runs only: every seed's paired bootstrap 95% interval (over tasks) of mean JSD(direct) - "
        "JSD(SSoT) above 0; refuted when a seed's lies below 0; offline runs: not measured"
    ),
    compares=(("llm_jsd_ssot", "llm_jsd_direct", False),),
    synthesize=_llm_clear,
    allow_nonfinite=LLM_METRICS,
)
def ssot_beats_direct(rows: PerSeed) -> Verdict:
    direct, ssot = column(rows, "llm_jsd_direct"), column(rows, "llm_jsd_ssot")
    lo, hi = column(rows, "llm_gain_lo"), column(rows, "llm_gain_hi")
    finite = np.isfinite(direct) & np.isfinite(ssot) & np.isfinite(lo) & np.isfinite(hi)
    if not finite.any():
        return Verdict(
            Outcome.INCONCLUSIVE,
            "not measured at this budget: the offline run has no LLM (run with --llm URL@model)",
            n_seeds=len(rows),
        )
    if not finite.all():
        return Verdict(
            Outcome.INCONCLUSIVE,
            f"{int((~finite).sum())}/{len(rows)} seeds lack an endpoint JSD (not run with --llm, or a task "
            "with no parseable answer)",
            n_seeds=len(rows),
        )
    gain = direct - ssot
    outs = [llm_seed_outcome(g, a, b) for g, a, b in zip(gain, lo, hi)]
    if any(o == Outcome.NOT_SUPPORTED for o in outs):
        outcome = Outcome.NOT_SUPPORTED
    elif all(o == Outcome.SUPPORTED for o in outs):
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    inb_d, inb_s = column(rows, "llm_inband_direct"), column(rows, "llm_inband_ssot")
    text = (
        f"mean JSD over tasks: direct {direct.mean():.4f}, SSoT {ssot.mean():.4f}; direct - SSoT per seed "
        + ", ".join(f"{g:.4f} [{a:.4f}, {b:.4f}]" for g, a, b in zip(gain, lo, hi))
        + f" (95% bootstrap over tasks; needs > 0); {sum(o == Outcome.SUPPORTED for o in outs)}/{len(outs)} "
        f"seeds supported; tasks inside the PRNG 95% band: SSoT {np.nanmean(inb_s):.2f}, direct "
        f"{np.nanmean(inb_d):.2f}; SSoT invalid rate {np.nanmean(column(rows, 'llm_invalid_ssot')):.3f}"
    )
    return Verdict(outcome, text, float(gain.mean()), (float(lo.min()), float(hi.max())), len(outs))
