"""The brief's claim rules for FAME (arXiv 2603.00903), as harness deciders.

* :func:`fame_decider` — (a) FAME's average normalized performance minus the best of Reset / Finetune /
  LargeBuffer, paired 95% bootstrap CI over seeds above 0; (b) Finetune's forgetting minus FAME's (meta learner at
  the end), CI above 0; (c) meta warm-start chosen on >= 80% of arrivals of already-seen tasks and <= 50% of
  arrivals of new tasks (pooled counts, Wilson intervals reported). Supported if (a), (b), (c) all hold; not
  supported if (a)'s CI lies below 0 or (b)'s CI lies below 0 (forgetting reversed); inconclusive otherwise.
* :func:`warmup_decider` — (c) alone: supported when the proportions meet both thresholds, not supported when a
  Wilson interval lies entirely on the wrong side of its threshold, inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.decision.dual_learner_crl.continual import wilson_interval
from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = ["fame_decider", "warmup_decider"]

PerSeed = Sequence[Mapping[str, float]]
COUNTS = ("seen_meta", "seen_n", "new_meta", "new_n")


def _proportions(rows: PerSeed) -> tuple[int, int, int, int]:
    s, n_s, m, n_m = (int(round(sum(float(r[k]) for r in rows))) for k in COUNTS)
    return s, n_s, m, n_m


def _warmup_verdict(rows: PerSeed, seen_at: float, new_at: float) -> tuple[Outcome, str, float]:
    s, n_s, m, n_m = _proportions(rows)
    if n_s == 0 or n_m == 0:
        return Outcome.INCONCLUSIVE, f"no seen ({n_s}) or new ({n_m}) arrivals to judge", float("nan")
    p_s, p_m = s / n_s, m / n_m
    lo_s, hi_s = wilson_interval(s, n_s)
    lo_m, hi_m = wilson_interval(m, n_m)
    text = (
        f"meta chosen on {s}/{n_s} seen arrivals = {p_s:.2f} [{lo_s:.2f}, {hi_s:.2f}] (claimed >= {seen_at:.2f}) "
        f"and {m}/{n_m} new arrivals = {p_m:.2f} [{lo_m:.2f}, {hi_m:.2f}] (claimed <= {new_at:.2f}), Wilson 95%"
    )
    if p_s >= seen_at and p_m <= new_at:
        return Outcome.SUPPORTED, text, p_s
    if hi_s < seen_at or lo_m > new_at:
        return Outcome.NOT_SUPPORTED, text, p_s
    return Outcome.INCONCLUSIVE, text, p_s


def warmup_decider(seen_at: float = 0.8, new_at: float = 0.5) -> Decider:
    """Claim (c): the adaptive warm-up picks the meta learner for seen tasks and not for new ones."""

    @decider(*COUNTS, description=f"meta chosen >= {seen_at:.0%} on seen, <= {new_at:.0%} on new arrivals")
    def fn(rows: PerSeed) -> Verdict:
        outcome, text, est = _warmup_verdict(rows, seen_at, new_at)
        return Verdict(outcome, text, est, None, len(rows))

    return fn


def fame_decider(seen_at: float = 0.8, new_at: float = 0.5) -> Decider:
    """The brief's combined rule (a) + (b) + (c) on per-seed ``fame_adv`` / ``forget_gap`` and the counts."""

    @decider(
        "fame_adv", "forget_gap", *COUNTS, description="FAME > best baseline, forgets less, adaptive warm-up"
    )
    def fn(rows: PerSeed) -> Verdict:
        adv = np.array([float(r["fame_adv"]) for r in rows])
        gap = np.array([float(r["forget_gap"]) for r in rows])
        if not (np.all(np.isfinite(adv)) and np.all(np.isfinite(gap))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite per-seed values", None, None, len(rows))
        ia, ib = bootstrap_interval(adv), bootstrap_interval(gap)
        oc, text_c, _ = _warmup_verdict(rows, seen_at, new_at)
        a_ok, b_ok = ia.defined and ia.lo > 0, ib.defined and ib.lo > 0
        a_bad, b_bad = ia.defined and ia.hi < 0, ib.defined and ib.hi < 0
        text = (
            f"(a) FAME - best baseline avg. perf. = {ia.estimate:.3f} [{ia.lo:.3f}, {ia.hi:.3f}]; "
            f"(b) Finetune - FAME forgetting = {ib.estimate:.3f} [{ib.lo:.3f}, {ib.hi:.3f}] "
            f"(95% paired bootstrap, {len(rows)} seeds); (c) {oc.value}: {text_c}"
        )
        if a_bad or b_bad:
            outcome = Outcome.NOT_SUPPORTED
        elif a_ok and b_ok and oc is Outcome.SUPPORTED:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        iv = (ia.lo, ia.hi) if ia.defined else None
        return Verdict(outcome, text, ia.estimate, iv, len(rows))

    return fn
