"""The brief's claim rules for FAME (arXiv 2603.00903), as harness deciders.

* :func:`fame_decider`: (a) FAME's average normalized performance minus the best of Reset / Finetune /
  LargeBuffer (per seed, computed here from ``avg_<method>``), paired 95% bootstrap CI over seeds above 0;
  (b) Finetune's forgetting minus FAME's (meta learner at the end), CI above 0; (c) meta warm-start chosen on
  >= 80% of arrivals of already-seen tasks and <= 50% of arrivals of new tasks (pooled counts, Wilson intervals
  reported). Supported if (a), (b), (c) all hold; not supported if (a)'s CI lies below 0 or (b)'s CI lies below
  0 (forgetting reversed); inconclusive otherwise (a failed (c) alone never refutes the combined claim).
* :func:`warmup_decider`: (c) alone: supported when the proportions meet both thresholds, not supported when a
  Wilson interval lies entirely on the wrong side of its threshold, inconclusive otherwise.

Preconditions (:data:`DQN_LEARNED`, :data:`FAST_LEARNED`, :data:`META_LEARNED`): the plain DQN (Reset), FAME's
fast learner and its meta learner learned the tasks, each at least halfway from a uniform random policy to the
shortest-path oracle; when one fails in some seed the claim is *not reproduced at this budget*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.decision.dual_learner_crl.continual import wilson_interval
from iclr26.harness.claims import (
    Comparison,
    Decider,
    Outcome,
    Precondition,
    Rows,
    Verdict,
    all_of,
    decider,
    difference_at_least,
)
from iclr26.harness.claims import (
    never_refutes as _never_refutes,
)
from iclr26.harness.stats import bootstrap_interval

__all__ = [
    "BASELINES",
    "DQN_LEARNED",
    "FAST_LEARNED",
    "META_LEARNED",
    "beats_best_baseline",
    "fame_decider",
    "warmup_decider",
]

PerSeed = Sequence[Mapping[str, float]]
COUNTS = ("seen_meta", "seen_n", "new_meta", "new_n")
BASELINES = ("reset", "finetune", "largebuffer")

FAST_LEARNED = Precondition(
    "end_of_task_fame",
    ">=",
    0.5,
    "FAME's fast learner learned the tasks: its greedy score at the end of each task, averaged over the "
    "sequence, is at least halfway from a uniform random policy (0) to the shortest-path oracle (1)",
)
DQN_LEARNED = Precondition(
    "end_of_task_reset",
    ">=",
    0.5,
    "the plain DQN recipe learns a task from scratch within one task's budget: Reset's greedy score at the end "
    "of each task, averaged over the sequence, is at least halfway from a uniform random policy (0) to the "
    "shortest-path oracle (1); otherwise no baseline comparison means anything",
)
META_LEARNED = Precondition(
    "meta_acc_norm_final",
    ">=",
    0.5,
    "FAME's meta learner learned the tasks: its shortest-path-action accuracy after the last task is at least "
    "halfway from a uniform random policy's (the chance rate of each task's start cells) to the oracle's (1)",
)


def _counts(rows: PerSeed) -> tuple[int, int, int, int]:
    s, n_s, m, n_m = (int(round(sum(float(r[k]) for r in rows))) for k in COUNTS)
    return s, n_s, m, n_m


def _warmup_verdict(rows: PerSeed, seen_at: float, new_at: float) -> Verdict:
    s, n_s, m, n_m = _counts(rows)
    if n_s == 0 or n_m == 0:
        return Verdict(
            Outcome.INCONCLUSIVE, f"no seen ({n_s}) or new ({n_m}) arrivals to judge", n_seeds=len(rows)
        )
    p_s, p_m = s / n_s, m / n_m
    lo_s, hi_s = wilson_interval(s, n_s)
    lo_m, hi_m = wilson_interval(m, n_m)
    text = (
        f"meta chosen on {s}/{n_s} seen arrivals = {p_s:.2f} [{lo_s:.2f}, {hi_s:.2f}] (claimed >= {seen_at:.2f}) "
        f"and {m}/{n_m} new arrivals = {p_m:.2f} [{lo_m:.2f}, {hi_m:.2f}] (claimed <= {new_at:.2f}), Wilson 95%"
    )
    if p_s >= seen_at and p_m <= new_at:
        outcome = Outcome.SUPPORTED
    elif hi_s < seen_at or lo_m > new_at:
        outcome = Outcome.NOT_SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, p_s, None, len(rows))


def _clear_warmup(rows: Rows) -> Rows:
    """A clear win: meta on all of 10 returning arrivals and on none of 5 new ones, in every seed."""
    return [{**r, "seen_meta": 10.0, "seen_n": 10.0, "new_meta": 0.0, "new_n": 5.0} for r in rows]


def warmup_decider(seen_at: float = 0.8, new_at: float = 0.5) -> Decider:
    """Claim (c): the adaptive warm-up picks the meta learner for seen tasks and not for new ones."""

    @decider(
        *COUNTS,
        description=f"meta chosen >= {seen_at:.0%} on seen, <= {new_at:.0%} on new arrivals",
        synthesize=_clear_warmup,
    )
    def fn(rows: PerSeed) -> Verdict:
        return _warmup_verdict(rows, seen_at, new_at)

    return fn


def beats_best_baseline(method: str = "fame", baselines: Sequence[str] = BASELINES) -> Decider:
    """(a): ``avg_<method> - max_b avg_<b>`` per seed; supported when its 95% bootstrap CI lies above 0, not
    supported when it lies below 0."""
    a = f"avg_{method}"
    bs = [f"avg_{b}" for b in baselines]

    def best(r: Mapping[str, float]) -> float:
        return max(float(r[b]) for b in bs)

    def synthesize(rows: Rows) -> Rows:
        return [{**r, a: best(r) + 0.3 * (1.0 + 1e-3 * ((i % 3) - 1))} for i, r in enumerate(rows)]

    @decider(
        a,
        *bs,
        description=f"{a} > max({', '.join(bs)})",
        compares=[Comparison(a, b, True) for b in bs],
        synthesize=synthesize,
    )
    def fn(rows: PerSeed) -> Verdict:
        adv = np.array([float(r[a]) - best(r) for r in rows])
        iv = bootstrap_interval(adv)
        outcome = (
            Outcome.SUPPORTED if iv.lo > 0 else Outcome.NOT_SUPPORTED if iv.hi < 0 else Outcome.INCONCLUSIVE
        )
        return Verdict(
            outcome,
            f"FAME - best baseline avg. perf. = {iv.estimate:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] "
            f"(95% paired bootstrap, {len(rows)} seeds)",
            iv.estimate,
            (iv.lo, iv.hi),
            len(rows),
        )

    return fn


def fame_decider(seen_at: float = 0.8, new_at: float = 0.5) -> Decider:
    """The brief's combined rule (a) + (b) + (c) on per-seed ``avg_<method>``, ``forget_<method>`` and the
    warm-up counts."""
    forgets_less = difference_at_least(
        "forget_fame", "forget_finetune", margin=0.0, method="bootstrap", higher_is_better=False
    )
    rule = all_of(beats_best_baseline(), forgets_less, _never_refutes(warmup_decider(seen_at, new_at)))
    rule.description = "FAME > best baseline, forgets less, adaptive warm-up"
    return rule
