"""The brief's offline claim check for SSoT, over seeds.

Per seed, over the judged sources (iid, bigram, keyboard; ``even`` is a reported negative control):
``min_inband_L32`` (smallest fraction of tasks whose median JSD at L = 32 lies in the PRNG 95% band),
``max_outband_L64`` (largest fraction outside the band at L = 64) and ``max_slope_hi`` (largest upper end of
the bootstrap 95% CI of the JSD-excess slope; fitted on L >= 1 for Sum-Mod tasks, L >= 8 for Rolling-Hash).
A seed is supported when min_inband_L32 >= 0.9 and max_slope_hi < 0, refuted when max_outband_L64 > 0.25.
Over seeds: supported if every seed is; not supported if any seed is refuted; otherwise inconclusive.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread

__all__ = ["INBAND", "OUTBAND", "SOURCES_JUDGED", "extraction_converges", "seed_outcome"]

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
