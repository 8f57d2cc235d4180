"""Claim check of the function-induction reproduction (arXiv 2507.09875): the brief's three parts as three claims.

Per seed the experiment reports (accuracies are fractions, drops are in accuracy points / 100):

* ``acc_off_by_one`` (8-shot off-by-one accuracy) and ``acc_standard`` (8-shot standard addition): the
  preconditions (>= 0.5, the brief's gate), declared in ``experiment.py``.
* (a) ``drop_off_fi`` / ``drop_std_fi``: the drop of off-by-one accuracy when the <= 4 heads F found by path
  patching are ablated (outputs patched to the base prompt's) and of standard-addition accuracy when F is
  mean-ablated; ``drop_off_random``: the same for 4 random heads (the baseline).
* (b) ``n_sig_fi``: heads of F with an individually significant relative effect (r < -10% and the upper end of
  the bootstrap interval over prompts < 0); ``min_profile_corr``: the smallest correlation between the naive-prompt
  offset profiles of two significant heads of F (1.0 when fewer than two are significant).
* (c) ``gap_<task>`` and ``gap_<task>_lo``: (accuracy drop with F ablated) - (drop with 4 random heads) on the
  held-out transfer task, and the lower end of its bootstrap interval over prompts; ``acc_<task>``: clean
  contrast-task accuracy.

Rules (intervals over seeds are t-intervals):

* (a) supported if the interval of ``drop_off_fi`` lies above 0.40 and that of ``drop_std_fi`` below 0.10;
  not supported if the interval of ``drop_off_fi`` lies below 0.20 (no <= 4-head set explains 20 points);
  inconclusive otherwise.
* (b) supported if every seed has ``n_sig_fi >= 2`` and the interval of ``min_profile_corr`` lies below 0.5;
  not supported if every seed has ``n_sig_fi < 2`` or the interval lies above 0.5; inconclusive otherwise.
* (c) for each transfer task whose clean accuracy is >= 0.2 in every seed (otherwise a 20-point drop is
  impossible and the task is not testable): supported if the mean gap is >= 0.20 and every seed's bootstrap lower
  end is > 0; the claim is supported if one task is; not supported if every testable task's gap interval lies
  below 0.20; inconclusive otherwise (also when no task is testable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = [
    "ACC_GATE",
    "CORR_MAX",
    "DROP_MIN",
    "DROP_NONE",
    "STD_MAX",
    "TRANSFER_MIN",
    "TRANSFER_TASKS",
    "ablation_decider",
    "pieces_decider",
    "transfer_decider",
]

ACC_GATE = 0.5
DROP_MIN = 0.40
DROP_NONE = 0.20
STD_MAX = 0.10
CORR_MAX = 0.5
TRANSFER_MIN = 0.20
TESTABLE = 0.20
TRANSFER_TASKS = ("base8", "shift")

Rows = Sequence[Mapping[str, float]]


def _col(rows: Rows, m: str) -> np.ndarray:
    return np.array([float(r[m]) for r in rows])


def _iv(x: np.ndarray) -> tuple[float, float]:
    iv = t_interval(x)
    return (iv.lo, iv.hi) if iv.defined else (float("nan"), float("nan"))


def _jit(i: int) -> float:
    return 1e-3 * ((i % 3) - 1)


def ablation_decider() -> Decider:
    """(a): ablating F removes >= 40 points of off-by-one accuracy and <= 10 of standard addition."""

    def win(rows):
        return [
            {**r, "drop_off_fi": 0.8 + _jit(i), "drop_std_fi": 0.02 + _jit(i), "drop_off_random": 0.05}
            for i, r in enumerate(rows)
        ]

    @decider(
        "drop_off_fi",
        "drop_std_fi",
        "drop_off_random",
        description="F ablation: off-by-one drop > 0.40, standard-addition drop < 0.10 (t-intervals over seeds)",
        compares=[("drop_off_fi", "drop_off_random", True)],
        synthesize=win,
    )
    def decide(rows: Rows) -> Verdict:
        off, std, rnd = _col(rows, "drop_off_fi"), _col(rows, "drop_std_fi"), _col(rows, "drop_off_random")
        lo, hi = _iv(off)
        slo, shi = _iv(std)
        text = (
            f"off-by-one accuracy drop with F ablated = {off.mean():.3f} [{lo:.3f}, {hi:.3f}] (need > {DROP_MIN}); "
            f"4 random heads {rnd.mean():.3f}; standard-addition drop with F mean-ablated = {std.mean():.3f} "
            f"[{slo:.3f}, {shi:.3f}] (need < {STD_MAX})"
        )
        est, ivl = float(off.mean()), (lo, hi)
        if hi < DROP_NONE:
            return Verdict(
                Outcome.NOT_SUPPORTED, f"no <= 4-head set explains {DROP_NONE}: " + text, est, ivl, len(rows)
            )
        if lo > DROP_MIN and shi < STD_MAX:
            return Verdict(Outcome.SUPPORTED, text, est, ivl, len(rows))
        return Verdict(Outcome.INCONCLUSIVE, text, est, ivl, len(rows))

    return decide


def pieces_decider() -> Decider:
    """(b): >= 2 heads of F are individually significant and push different offsets on naive prompts."""

    def win(rows):
        return [{**r, "n_sig_fi": 3.0, "min_profile_corr": -0.5 + _jit(i)} for i, r in enumerate(rows)]

    @decider(
        "n_sig_fi",
        "min_profile_corr",
        description=">= 2 significant FI heads whose naive-prompt offset profiles correlate < 0.5",
        synthesize=win,
    )
    def decide(rows: Rows) -> Verdict:
        n_sig, corr = _col(rows, "n_sig_fi"), _col(rows, "min_profile_corr")
        lo, hi = _iv(corr)
        text = (
            f"significant heads in F per seed {n_sig.astype(int).tolist()} (need >= 2); smallest offset-profile "
            f"correlation between two of them = {corr.mean():.3f} [{lo:.3f}, {hi:.3f}] (need < {CORR_MAX})"
        )
        est, ivl = float(corr.mean()), (lo, hi)
        if np.all(n_sig < 2) or lo > CORR_MAX:
            return Verdict(Outcome.NOT_SUPPORTED, text, est, ivl, len(rows))
        if np.all(n_sig >= 2) and hi < CORR_MAX:
            return Verdict(Outcome.SUPPORTED, text, est, ivl, len(rows))
        return Verdict(Outcome.INCONCLUSIVE, text, est, ivl, len(rows))

    return decide


def transfer_decider(tasks: Sequence[str] = TRANSFER_TASKS) -> Decider:
    """(c): ablating F hurts a held-out task >= 20 points more than 4 random heads."""
    metrics = [m for t in tasks for m in (f"gap_{t}", f"gap_{t}_lo", f"acc_{t}")]

    def win(rows):
        return [
            {
                **r,
                **{
                    m: v
                    for t in tasks
                    for m, v in ((f"gap_{t}", 0.5 + _jit(i)), (f"gap_{t}_lo", 0.3), (f"acc_{t}", 0.9))
                },
            }
            for i, r in enumerate(rows)
        ]

    @decider(
        *metrics,
        description="F ablation hurts base-8 or the numeric shift >= 0.20 more than random heads",
        synthesize=win,
    )
    def decide(rows: Rows) -> Verdict:
        parts, supported, refuted, best = [], [], [], None
        for t in tasks:
            gap, glo, acc = _col(rows, f"gap_{t}"), _col(rows, f"gap_{t}_lo"), _col(rows, f"acc_{t}")
            lo, hi = _iv(gap)
            if np.any(acc < TESTABLE):
                parts.append(
                    f"{t}: clean accuracy {np.round(acc, 3).tolist()} < {TESTABLE} in some seed, not testable"
                )
                continue
            parts.append(
                f"{t}: gap = {gap.mean():.3f} [{lo:.3f}, {hi:.3f}], per-seed bootstrap lower ends "
                f"{np.round(glo, 3).tolist()}"
            )
            if best is None or gap.mean() > best[0]:
                best = (float(gap.mean()), (lo, hi))
            supported.append(gap.mean() >= TRANSFER_MIN and np.all(glo > 0))
            refuted.append(hi < TRANSFER_MIN)
        text = "; ".join(parts) + f" (need mean gap >= {TRANSFER_MIN} and every lower end > 0)"
        est, ivl = best if best else (None, None)
        n = len(rows)
        if any(supported):
            return Verdict(Outcome.SUPPORTED, text, est, ivl, n)
        if refuted and all(refuted):
            return Verdict(Outcome.NOT_SUPPORTED, text, est, ivl, n)
        return Verdict(Outcome.INCONCLUSIVE, text, est, ivl, n)

    return decide
