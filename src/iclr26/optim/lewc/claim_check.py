"""The claim check of the LEWC reproduction (arXiv 2510.08023), the brief's rule over harness seeds (pairs).

For one task, with per-seed metrics at the narrowest (``wmin``, w = 1) and widest (``wmax``, w = 64) widths and
95% Student-t intervals over seeds:

- C1: calibrated no-permutation loss barrier at wmax: upper bound < 0.05 nats, and upper bound of
  (B_wmax - 0.2 B_wmin) < 0 (paired);
- C3: output-layer R^2 of the two-coefficient LEWC fit at lambda = 1/2 at wmax: lower bound > 0.9; R^2 grows
  with width (lower bound of R^2_wmax - R^2_wmin > 0); merged accuracy at lambda = 1/2 within 1 point of the
  logit ensemble (upper bound of acc_ens - acc_merged < 0.01).

Not supported when the calibrated barrier does not decrease with width (the interval of B_wmax - B_wmin reaches
0 or lies above it) and the data exclude the claimed size of the decrease (the interval of B_wmax - 0.2 B_wmin
lies above 0, or the barrier clearly grows: B_wmax - B_wmin above 0); supported when every part of C1 and C3
holds; inconclusive otherwise. (Before, an interval of B_wmax - B_wmin that merely contained 0 refuted.)

The experiment checks, as preconditions, that the narrowest and the widest pairs trained.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Verdict, decider
from iclr26.harness.stats import Interval, t_interval

__all__ = ["BARRIER_MAX", "ENSEMBLE_GAP_MAX", "R2_MIN", "RELATIVE_MAX", "lewc_decider"]

BARRIER_MAX = 0.05  # nats
RELATIVE_MAX = 0.2  # B_wmax <= 0.2 B_wmin
R2_MIN = 0.9
ENSEMBLE_GAP_MAX = 0.01  # one accuracy point


def _iv(rows: Sequence[Mapping[str, float]], fn: Callable[[Mapping[str, float]], float]) -> Interval:
    return t_interval(np.array([float(fn(r)) for r in rows]))


def _text(name: str, iv: Interval, rel: str, bound: float, ok: bool) -> str:
    where = f"[{iv.lo:.3g}, {iv.hi:.3g}]" if iv.defined else "(no interval)"
    return f"{name} = {iv.estimate:.3g} {where} {rel} {bound:g}: {'yes' if ok else 'no'}"


def _synthetic_win(p: str) -> Callable[[list[dict[str, float]]], list[dict[str, float]]]:
    """Rows that meet every part: a 0.01-nat barrier at wmax vs 1 nat at wmin, R^2 0.99 vs 0.5, no ensemble gap."""

    def fn(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            j = 1e-3 * (i % 3)
            merged = float(r[p + "wmax_acc_merged"])
            out.append(
                {
                    **r,
                    p + "wmin_barrier_cal": 1.0 + j,
                    p + "wmax_barrier_cal": 0.01 + j,
                    p + "wmin_r2_out": 0.5 - j,
                    p + "wmax_r2_out": 0.99 - j,
                    p + "wmax_acc_ensemble": merged - j,
                }
            )
        return out

    return fn


def lewc_decider(task: str) -> Decider:
    """The brief's supported / not supported / inconclusive rule for one task's metrics."""
    p = f"{task}_"
    names = [
        p + "wmax_barrier_cal",
        p + "wmin_barrier_cal",
        p + "wmax_r2_out",
        p + "wmin_r2_out",
        p + "wmax_acc_ensemble",
        p + "wmax_acc_merged",
    ]

    @decider(
        *names,
        description=f"{task}: C1 and C3 at the widest width; refuted when the barrier does not fall",
        # the merged-vs-ensemble part is a within-1-point bound, which a merged model equal to the ensemble meets:
        # it is no method-versus-baseline comparison
        compares=[
            Comparison(p + "wmax_barrier_cal", p + "wmin_barrier_cal", higher_is_better=False),
            Comparison(p + "wmax_r2_out", p + "wmin_r2_out", higher_is_better=True),
        ],
        synthesize=_synthetic_win(p),
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        b_max = _iv(rows, lambda r: r[p + "wmax_barrier_cal"])
        rel = _iv(rows, lambda r: r[p + "wmax_barrier_cal"] - RELATIVE_MAX * r[p + "wmin_barrier_cal"])
        r2 = _iv(rows, lambda r: r[p + "wmax_r2_out"])
        r2_gain = _iv(rows, lambda r: r[p + "wmax_r2_out"] - r[p + "wmin_r2_out"])
        gap = _iv(rows, lambda r: r[p + "wmax_acc_ensemble"] - r[p + "wmax_acc_merged"])
        drop = _iv(rows, lambda r: r[p + "wmax_barrier_cal"] - r[p + "wmin_barrier_cal"])
        checks = [
            ("C1 barrier_cal(wmax)", b_max, "<", BARRIER_MAX, b_max.hi < BARRIER_MAX),
            (f"C1 barrier_cal(wmax) - {RELATIVE_MAX:g} barrier_cal(wmin)", rel, "<", 0.0, rel.hi < 0.0),
            ("C3 R^2 output layer (wmax, lambda=1/2)", r2, ">", R2_MIN, r2.lo > R2_MIN),
            ("C3 R^2(wmax) - R^2(wmin)", r2_gain, ">", 0.0, r2_gain.lo > 0.0),
            ("C3 acc_ensemble - acc_merged (wmax)", gap, "<", ENSEMBLE_GAP_MAX, gap.hi < ENSEMBLE_GAP_MAX),
        ]
        falls = drop.hi < 0.0
        excluded = drop.lo > 0.0 or rel.lo > 0.0  # the barrier grows, or falls by clearly less than 5x
        if not falls and excluded:
            outcome = Outcome.NOT_SUPPORTED
        elif falls and all(c[-1] for c in checks):
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        parts = [_text(*c) for c in checks]
        parts.append(
            _text("barrier_cal(wmax) - barrier_cal(wmin)", drop, "<", 0.0, falls)
            + " (refutes if no and the claimed 5x decrease is excluded)"
        )
        return Verdict(
            outcome,
            f"{task} (95% t, {b_max.n} pairs): " + "; ".join(parts),
            b_max.estimate,
            (b_max.lo, b_max.hi),
            b_max.n,
        )

    return decide
