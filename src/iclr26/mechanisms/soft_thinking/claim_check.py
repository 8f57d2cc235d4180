"""Claim check of the soft-thinking reproduction (arXiv 2508.03440), the brief's rule over harness seeds.

Per seed: ``dom_agree`` = argmax agreement of the next step given the soft input and given its top-1 token alone,
over thinking steps with p_top1 < 0.8; ``js_top1_median`` / ``js_top2_median`` = medians of JS(soft, top-1) and
JS(soft, top-2) over the same steps; ``soft_minus_greedy``, ``gumbel_minus_soft`` and ``gumbel_minus_sample`` =
pass@1 differences (fractions). Means over seeds, 95% bootstrap interval of ``gumbel_minus_soft``.

(a) greedy pitfall: mean dom_agree >= 0.9, mean js_top1_median < mean js_top2_median, |soft - greedy| <= 0.03.
(b) randomness helps: gumbel - soft >= 0.03 with interval above 0, and gumbel - sample >= -0.01.
Supported: (a) and (b). Not supported: dom_agree < 0.7, or mean gumbel - soft <= 0 with the interval's lower end
<= 0 (the brief says "interval including 0"; an interval wholly below 0, Gumbel significantly worse, is read as
not supported too rather than falling through to inconclusive).
Inconclusive otherwise. :func:`part_decider` judges (a) or (b) alone with the same thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = [
    "AGREE_MIN",
    "AGREE_PARALLEL",
    "GAIN_MIN",
    "GREEDY_TOL",
    "SAMPLE_TOL",
    "part_decider",
    "soft_thinking_decider",
]

AGREE_MIN = 0.9
AGREE_PARALLEL = 0.7
GREEDY_TOL = 0.03
GAIN_MIN = 0.03
SAMPLE_TOL = 0.01
METRICS = (
    "dom_agree",
    "js_top1_median",
    "js_top2_median",
    "soft_minus_greedy",
    "gumbel_minus_soft",
    "gumbel_minus_sample",
)


def _columns(rows: Sequence[Mapping[str, float]]) -> dict[str, np.ndarray] | None:
    cols = {m: np.array([float(r[m]) for r in rows]) for m in METRICS}
    if not all(np.all(np.isfinite(v)) for v in cols.values()):
        return None
    return cols


def _parts(c: dict[str, np.ndarray]) -> tuple[bool, bool, bool, bool, tuple[float, float, float], str]:
    """(a holds, b holds, a refuted, b refuted, gain interval, text)."""
    agree = float(c["dom_agree"].mean())
    js1, js2 = float(c["js_top1_median"].mean()), float(c["js_top2_median"].mean())
    gap = float(c["soft_minus_greedy"].mean())
    vs_sample = float(c["gumbel_minus_sample"].mean())
    iv = bootstrap_interval(c["gumbel_minus_soft"])
    a_ok = agree >= AGREE_MIN and js1 < js2 and abs(gap) <= GREEDY_TOL
    b_ok = iv.defined and iv.estimate >= GAIN_MIN and iv.lo > 0 and vs_sample >= -SAMPLE_TOL
    a_bad = agree < AGREE_PARALLEL
    b_bad = iv.defined and iv.estimate <= 0 and iv.lo <= 0  # no gain: interval includes 0 or lies below it
    text = (
        f"top-1 agreement (p_top1 < 0.8) = {agree:.3f} (need >= {AGREE_MIN}; < {AGREE_PARALLEL} refutes); median JS "
        f"soft-top1 = {js1:.3f} vs soft-top2 = {js2:.3f}; soft - greedy = {gap:+.3f} (need |.| <= {GREEDY_TOL}); "
        f"gumbel - soft = {iv.estimate:+.3f} [{iv.lo:+.3f}, {iv.hi:+.3f}] (95% bootstrap; need >= {GAIN_MIN}, "
        f"lower end > 0); gumbel - sample = {vs_sample:+.3f} (need >= {-SAMPLE_TOL})"
    )
    return a_ok, b_ok, a_bad, b_bad, (iv.estimate, iv.lo, iv.hi), text


def soft_thinking_decider() -> Decider:
    """The brief's combined rule: (a) greedy pitfall and (b) Gumbel randomisation beats vanilla soft thinking."""

    @decider(*METRICS, description="soft thinking: top-1 dominance and Gumbel > vanilla (brief's rule)")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        c = _columns(rows)
        if c is None:
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        if len(rows) < 2:
            return Verdict(Outcome.INCONCLUSIVE, "the interval needs >= 2 seeds", n_seeds=len(rows))
        a_ok, b_ok, a_bad, b_bad, (est, lo, hi), text = _parts(c)
        if a_ok and b_ok:
            outcome = Outcome.SUPPORTED
        elif a_bad or b_bad:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(outcome, text, est, (lo, hi), len(rows))

    return decide


def part_decider(part: str) -> Decider:
    """Part 'a' (greedy pitfall; estimate = top-1 agreement) or 'b' (Gumbel gain; estimate = gumbel - soft)."""
    if part not in ("a", "b"):
        raise ValueError(f"part must be 'a' or 'b', got {part!r}")

    @decider(*METRICS, description=f"soft thinking part ({part})")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        c = _columns(rows)
        if c is None:
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        if len(rows) < 2:
            return Verdict(Outcome.INCONCLUSIVE, "the interval needs >= 2 seeds", n_seeds=len(rows))
        a_ok, b_ok, a_bad, b_bad, (est, lo, hi), text = _parts(c)
        if part == "a":
            outcome = Outcome.SUPPORTED if a_ok else Outcome.NOT_SUPPORTED if a_bad else Outcome.INCONCLUSIVE
            agree = bootstrap_interval(c["dom_agree"])
            return Verdict(outcome, text, agree.estimate, (agree.lo, agree.hi), len(rows))
        outcome = Outcome.SUPPORTED if b_ok else Outcome.NOT_SUPPORTED if b_bad else Outcome.INCONCLUSIVE
        return Verdict(outcome, text, est, (lo, hi), len(rows))

    return decide
