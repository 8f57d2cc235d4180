"""Claim checks of the Hilbert local-attention reproduction (arXiv 2511.05832), the brief's rules.

1. Sparsity mechanism (deterministic): the worked configuration (64x64 tokens, 8x8 windows, block 128) gives
   exactly 87.5% empty tiles in raster order and 96.875% along the Hilbert curve; no configuration of the
   structural study has more non-empty or more partial tiles under the Hilbert order, and the totals are strictly
   lower. The literal "strictly lower in every configuration" is checked as a separate claim.
2. Minimal accuracy loss, per pair (Hilbert vs conventional), difference in points over paired seeds, 95% t:
   supported if mean >= -1.0 and the interval's lower end >= -2.5; not supported if mean <= -2.5; else
   inconclusive.
3. Speed-up: a GPU-kernel claim. With GPU FlexAttention ratios (full budget on CUDA): supported if window >= 2x and
   slide >= 9x (half the paper's 4x and 18x), else not supported. On CPU only the tile-count (FLOP) ratio of the
   block-sparse executor is available: inconclusive (CPU), or not supported if the Hilbert order needs more work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = [
    "MEAN_FLOOR",
    "PAPER_EMPTY_PCT",
    "WORST_FLOOR",
    "accuracy_decider",
    "sparsity_decider",
    "speed_decider",
    "strict_everywhere_decider",
]

PAPER_EMPTY_PCT = (87.5, 96.875)
MEAN_FLOOR = -1.0  # points
WORST_FLOOR = -2.5  # points
GPU_MIN = {"window": 2.0, "slide": 9.0}


def _first(rows: Sequence[Mapping[str, float]], key: str) -> float:
    return float(rows[0][key])


@decider(
    "worked_rowmajor_empty_pct",
    "worked_hilbert_empty_pct",
    "configs_hilbert_worse",
    "nonempty_rowmajor_total",
    "nonempty_hilbert_total",
    "partial_rowmajor_total",
    "partial_hilbert_total",
    description="worked config 87.5% -> 96.875% empty; Hilbert never worse; fewer non-empty and partial tiles",
)
def sparsity_decider(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """The deterministic sparsity check (every seed computes the same numbers; the first row is read)."""
    rm, hb = _first(rows, "worked_rowmajor_empty_pct"), _first(rows, "worked_hilbert_empty_pct")
    worse = _first(rows, "configs_hilbert_worse")
    ne = (_first(rows, "nonempty_rowmajor_total"), _first(rows, "nonempty_hilbert_total"))
    pa = (_first(rows, "partial_rowmajor_total"), _first(rows, "partial_hilbert_total"))
    ok = (rm, hb) == PAPER_EMPTY_PCT and worse == 0 and ne[1] < ne[0] and pa[1] < pa[0]
    text = (
        f"worked config empty tiles {rm:g}% -> {hb:g}% (paper 87.5% -> 96.9%); configs where Hilbert is worse: "
        f"{worse:g}; non-empty tiles {ne[0]:g} -> {ne[1]:g}; partial tiles {pa[0]:g} -> {pa[1]:g}"
    )
    return Verdict(Outcome.SUPPORTED if ok else Outcome.NOT_SUPPORTED, text, hb - rm, None, len(rows))


@decider(
    "configs_not_strict",
    "n_configs",
    description="Hilbert strictly fewer non-empty and partial tiles everywhere",
)
def strict_everywhere_decider(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """The brief's literal rule: strictly fewer non-empty and partial tiles in every configuration."""
    bad, n = _first(rows, "configs_not_strict"), _first(rows, "n_configs")
    text = (
        f"{n - bad:g} of {n:g} configurations strictly better under the Hilbert order ({bad:g} ties or worse)"
    )
    return Verdict(
        Outcome.SUPPORTED if bad == 0 else Outcome.NOT_SUPPORTED, text, (n - bad) / n, None, len(rows)
    )


def accuracy_decider(hilbert: str, conventional: str) -> Decider:
    """Non-inferiority of ``acc_<hilbert>`` against ``acc_<conventional>`` (accuracies in [0, 1])."""
    a, b = f"acc_{hilbert}", f"acc_{conventional}"

    @decider(
        a,
        b,
        description=f"{hilbert} - {conventional}: mean >= {MEAN_FLOOR} pt, 95% t lower end >= {WORST_FLOOR}",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        diff = 100.0 * (np.array([float(r[a]) for r in rows]) - np.array([float(r[b]) for r in rows]))
        if not np.all(np.isfinite(diff)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite accuracies in some seeds", n_seeds=len(rows))
        iv = t_interval(diff)
        if not iv.defined:
            return Verdict(
                Outcome.INCONCLUSIVE, "a paired interval needs >= 2 seeds", iv.estimate, None, iv.n
            )
        if iv.estimate <= WORST_FLOOR:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate >= MEAN_FLOOR and iv.lo >= WORST_FLOOR:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"accuracy difference {hilbert} - {conventional} = {iv.estimate:.3g} points [{iv.lo:.3g}, {iv.hi:.3g}] "
            f"(95% paired t, {iv.n} seeds; need mean >= {MEAN_FLOOR} and lower end >= {WORST_FLOOR})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide


@decider(
    "flop_ratio_window", "flop_ratio_slide", description="GPU FlexAttention speed-up (CPU: tile-count proxy)"
)
def speed_decider(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """GPU ratios decide when every seed has them; otherwise the CPU FLOP proxy can only refute."""
    fw, fs = (float(np.mean([float(r[f"flop_ratio_{p}"]) for r in rows])) for p in ("window", "slide"))
    if all("gpu_speedup_window" in r and "gpu_speedup_slide" in r for r in rows):
        gw, gs = (float(np.median([float(r[f"gpu_speedup_{p}"]) for r in rows])) for p in ("window", "slide"))
        ok = gw >= GPU_MIN["window"] and gs >= GPU_MIN["slide"]
        text = f"FlexAttention speed-up window {gw:.3g}x (need >= 2), slide {gs:.3g}x (need >= 9)"
        return Verdict(Outcome.SUPPORTED if ok else Outcome.NOT_SUPPORTED, text, gw, None, len(rows))
    text = (
        f"CPU only: the Hilbert order computes {fw:.3g}x fewer tiles (window) and {fs:.3g}x fewer (slide) in the "
        "worked configuration; kernel speed-ups need a GPU"
    )
    if fw < 1 or fs < 1:
        return Verdict(Outcome.NOT_SUPPORTED, text, fw, None, len(rows))
    return Verdict(Outcome.INCONCLUSIVE, "inconclusive (CPU): " + text, fw, None, len(rows))
