"""Claim check of the SiTok reproduction (arXiv 2602.06602): the brief's two-part rule.

Per seed the experiment stores each variant's corpus PERs and Fréchet distance on the 200 test utterances, and
the utterance-level bootstrap standard errors of the three paired differences (same utterances, same seed):

(1) semantic: gain = PER_probe(no-CTC) - PER_probe(SiTok);
(2) no reconstruction penalty: d_rec = PER_rec(SiTok) - PER_rec(no-CTC) and d_fd = FD(L1+CTC) - FD(SiTok).

Each difference is averaged over seeds; its standard error is the larger of the pooled within-seed bootstrap
error over utterances (sqrt(mean_s se_s^2 / S): the brief's interval) and the between-seed error (sd / sqrt(S):
training randomness), and the 95% interval is mean +- 1.96 se.

- (1) holds when mean gain >= 0.05 (5 points) and the interval lies above 0; it is refuted when the whole interval
  lies below 0.05 (the data exclude a 5-point gain).
- (2) holds when the interval of d_rec lies below +0.02 (within +2 points) and the interval of d_fd above 0.
- Supported: (1) and (2) hold. Not supported: (1) refuted. Inconclusive otherwise (the brief: (1) holds, (2) fails).

The brief calls the claim not supported whenever (1) fails; an interval that still contains a 5-point gain says
nothing against it, so here that case is inconclusive (the same reading as the harness's effect rule).
Whether the models learned is declared as preconditions on the claim (:func:`learned_preconditions`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import (
    Comparison,
    Decider,
    Outcome,
    Precondition,
    Rows,
    Verdict,
    decider,
    seed_spread,
)

__all__ = ["MAX_PER", "MIN_GAIN", "REC_MARGIN", "learned_preconditions", "paired_interval", "sitok_decider"]

MIN_GAIN = 0.05
REC_MARGIN = 0.02
#: a phone recogniser "learned" when its PER is at most half that of the empty transcript (PER 1.0)
MAX_PER = 0.5
Z95 = 1.959963984540054


def paired_interval(diff: np.ndarray, se_within: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, lo, hi, se) of per-seed differences `diff` with within-seed standard errors `se_within`."""
    s = len(diff)
    est = float(np.mean(diff))
    between = float(np.std(diff, ddof=1) / math.sqrt(s)) if s > 1 else float("inf")
    within = float(math.sqrt(np.mean(np.square(se_within)) / s))
    se = max(between, within)
    return est, est - Z95 * se, est + Z95 * se, se


def learned_preconditions(variants: Sequence[str] = ("sitok", "noctc", "l1ctc")) -> tuple[Precondition, ...]:
    """The recogniser and the probe can read phones from clean input, and each compared tokenizer's
    reconstructions beat the predict-the-mean-frame baseline in mel L1."""
    pre = [
        Precondition(
            "recognizer_clean_per",
            "<=",
            MAX_PER,
            "the clean-mel phone recogniser's PER on clean test mels is at most half the empty transcript's (1.0)",
        ),
        Precondition(
            "probe_clean_per",
            "<=",
            MAX_PER,
            "the probe, trained on clean stacked 12.5 Hz mel frames, reaches at most half the empty transcript's "
            "PER (the probe can read phones at the token rate when the information is there)",
        ),
    ]
    pre += [
        Precondition(
            f"{v}_l1_vs_mean",
            "<",
            1.0,
            f"{v}'s reconstructions have a lower mel L1 than the training set's mean frame (predict-the-mean)",
        )
        for v in variants
    ]
    return tuple(pre)


def sitok_decider(min_gain: float = MIN_GAIN, rec_margin: float = REC_MARGIN) -> Decider:
    """The brief's supported / not supported / inconclusive rule (see the module docstring)."""
    pa, pb = "sitok_probe_per", "noctc_probe_per"
    ra, rb = "sitok_rec_per", "noctc_rec_per"
    fa, fb = "sitok_fd", "l1ctc_fd"
    ses = ("se_probe_gain", "se_rec_diff", "se_fd_gain")

    def win(rows: Rows) -> Rows:
        out = []
        for i, r in enumerate(rows):
            r = dict(r)
            r[pb] = 0.6 + seed_spread(i)
            r[pa] = 0.2 + seed_spread(i, 2e-3)
            r[ra] = float(r[rb])
            r[fb] = abs(float(r[fb])) + 1.0
            r[fa] = 0.5 * r[fb] + seed_spread(i)
            out.append(r | {k: 1e-3 for k in ses})
        return out

    @decider(
        pa, pb, ra, rb, fa, fb, *ses,
        description=f"probe PER gain of SiTok over no-CTC >= {min_gain}; rec PER within +{rec_margin}; FD < L1's",
        compares=[Comparison(pa, pb, False), Comparison(fa, fb, False)],
        synthesize=win,
    )  # fmt: skip
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        col = lambda k: np.array([float(r[k]) for r in rows])  # noqa: E731
        g, g_lo, g_hi, _ = paired_interval(col(pb) - col(pa), col("se_probe_gain"))
        d, d_lo, d_hi, _ = paired_interval(col(ra) - col(rb), col("se_rec_diff"))
        f, f_lo, f_hi, _ = paired_interval(col(fb) - col(fa), col("se_fd_gain"))
        one_holds = g >= min_gain and g_lo > 0
        one_refuted = g_hi < min_gain
        two_holds = d_hi < rec_margin and f_lo > 0
        if one_refuted:
            outcome = Outcome.NOT_SUPPORTED
        elif one_holds and two_holds:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"(1) probe PER gain (no-CTC - SiTok) = {g:.4g} [{g_lo:.4g}, {g_hi:.4g}] (need >= {min_gain} with the "
            f"interval > 0; refuted below {min_gain}): {'holds' if one_holds else 'refuted' if one_refuted else 'open'}"
            f"; (2) rec PER SiTok - no-CTC = {d:.4g} [{d_lo:.4g}, {d_hi:.4g}] (need < +{rec_margin}), FD L1 - SiTok"
            f" = {f:.4g} [{f_lo:.4g}, {f_hi:.4g}] (need > 0): {'holds' if two_holds else 'fails'}; 95% intervals, "
            f"larger of the utterance-bootstrap and between-seed errors, {len(rows)} seeds"
        )
        return Verdict(outcome, text, g, (g_lo, g_hi), len(rows))

    return decide
