"""Claim check of the task-vector reproduction (arXiv 2506.09048): the brief's three-part rule over seeds.

Per seed: the normalised risks R_0, R_n, R_TV and R_1 (``r0``, ``rn``, ``rtv``, ``r1``), from which the decider
computes G = (R_TV - R_n) / (R_0 - R_n) and R_TV / R_1; the rank shares S (TV outputs, ``s_tv``) and S_icl (n-shot
ICL outputs, ``s_icl``); in the discrete part the ICL - TV accuracy gap in points on bijection tasks
(``disc_gap_bijection``) and on the base/inverse maps (``disc_gap_base_inverse``), whose difference D has the
per-prompt standard error ``disc_diff_se``.

(a) supported if mean G >= 0.5 with 95% t-interval lower end > 0.2 and mean R_TV / R_1 in [0.67, 1.5]; not
    supported if mean G <= 0.2 (the TV carries the full map); inconclusive otherwise;
(b) supported if mean S >= 0.9 and mean S_icl <= 0.6; inconclusive otherwise;
(c) supported if mean D >= 20 points with its 95% interval (normal approximation over prompts, pooled over
    seeds) above 0; not supported if mean D <= 5 points; inconclusive otherwise.
The claim: supported if all three are; not supported if (a) or (c) is; inconclusive otherwise. It is judged only
when both models learned (:data:`PRECONDITIONS`): the linear model's n-shot risk is below the zero-output risk and
the GPT reaches 80% ICL accuracy on base, inverse and bijection tasks (the brief's gate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Precondition, Verdict, all_of, decider
from iclr26.harness.claims import column as _col
from iclr26.harness.claims import seed_spread as _spread
from iclr26.harness.stats import t_interval

__all__ = ["METRICS", "PRECONDITIONS", "task_vector_decider"]

METRICS = (
    "r0",
    "rn",
    "rtv",
    "r1",
    "s_tv",
    "s_icl",
    "disc_gap_bijection",
    "disc_gap_base_inverse",
    "disc_diff_se",
)

ICL_GATE = 0.8
LINEAR_GATE = 0.9

PRECONDITIONS = (
    Precondition(
        "rn",
        "<=",
        LINEAR_GATE,
        "the linear model learned in context: n-shot normalised risk at least 10% below R_0 = 1, the risk of "
        "the zero output",
    ),
    Precondition(
        "disc_icl_min",
        ">=",
        ICL_GATE,
        "the GPT learned in-context learning: ICL accuracy >= 80% on base, inverse and bijection tasks (the "
        "brief's gate)",
    ),
)

Rows = Sequence[Mapping[str, float]]


def _one_demo_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    out = []
    for i, r in enumerate(rows):
        r0, rn = float(r["r0"]), float(r["rn"])
        rtv = rn + (0.9 + 10 * _spread(i)) * (r0 - rn)
        out.append({**r, "rtv": rtv, "r1": rtv * (1.0 + _spread(i))})
    return out


@decider(
    "r0",
    "rn",
    "rtv",
    "r1",
    description="(a) G = (R_TV - R_n) / (R_0 - R_n) >= 0.5 (t lower > 0.2), R_TV / R_1 in [0.67, 1.5]",
    compares=[("rtv", "rn", True)],  # the claim: the TV's risk stays well above n-shot ICL's
    synthesize=_one_demo_win,
)
def _one_demo(rows: Rows) -> Verdict:
    rn = _col(rows, "rn")
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = (_col(rows, "rtv") - rn) / (_col(rows, "r0") - rn)
        ratio = float((_col(rows, "rtv") / _col(rows, "r1")).mean())
    if not (np.all(np.isfinite(gap)) and np.isfinite(ratio)):
        return Verdict(
            Outcome.INCONCLUSIVE, f"G or R_TV / R_1 not finite: G = {gap.tolist()}", n_seeds=len(rows)
        )
    iv = t_interval(gap)
    ok = iv.estimate >= 0.5 and iv.lo > 0.2 and 0.67 <= ratio <= 1.5
    outcome = (
        Outcome.SUPPORTED if ok else Outcome.NOT_SUPPORTED if iv.estimate <= 0.2 else Outcome.INCONCLUSIVE
    )
    return Verdict(
        outcome,
        f"G = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; need >= 0.5, lower > 0.2; <= 0.2 "
        f"refutes), R_TV/R_1 = {ratio:.3g} (need 0.67-1.5)",
        iv.estimate,
        (iv.lo, iv.hi),
        iv.n,
    )


def _rank_one_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [{**r, "s_tv": 0.99 + _spread(i), "s_icl": 0.4 + _spread(i)} for i, r in enumerate(rows)]


@decider(
    "s_tv",
    "s_icl",
    description="(b) rank share S >= 0.9 for TV outputs, <= 0.6 for n-shot ICL outputs (means)",
    compares=[("s_tv", "s_icl", True)],
    synthesize=_rank_one_win,
)
def _rank_one(rows: Rows) -> Verdict:
    s, s_icl = float(_col(rows, "s_tv").mean()), float(_col(rows, "s_icl").mean())
    ok = s >= 0.9 and s_icl <= 0.6
    return Verdict(
        Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE,
        f"S = {s:.3g} (need >= 0.9), S_icl = {s_icl:.3g} (need <= 0.6; never refutes)",
        s,
        None,
        len(rows),
    )


def _bijection_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [
        {
            **r,
            "disc_gap_base_inverse": 5.0 + _spread(i),
            "disc_gap_bijection": 45.0 + 100 * _spread(i),
            "disc_diff_se": 2.0,
            **{f"acc_{t}_tv": 0.9 for t in PROBE_TASKS},
            **{f"acc_{t}_zero": 0.3 for t in PROBE_TASKS},
        }
        for i, r in enumerate(rows)
    ]


#: (c) compares how much worse the task vector does than ICL on bijections and on the plain maps; that says
#: something only when the task vector works on the plain maps at all. Its trivial baseline is the zero-shot
#: prompt (the query alone), so the probe must beat it on the base and the inverse maps by this many points
#: (mean over seeds) before (c) can support or refute anything.
PROBE_TASKS = ("base", "inverse")
PROBE_MARGIN = 0.10


def _probe_gain(rows: Rows) -> float:
    """min over the base and inverse maps of the seed-mean (TV accuracy - zero-shot accuracy)."""
    return min(float((_col(rows, f"acc_{t}_tv") - _col(rows, f"acc_{t}_zero")).mean()) for t in PROBE_TASKS)


@decider(
    "disc_gap_bijection",
    "disc_gap_base_inverse",
    "disc_diff_se",
    *(f"acc_{t}_{kind}" for t in PROBE_TASKS for kind in ("tv", "zero")),
    description="(c) ICL - TV gap >= 20 points larger on bijections than on base/inverse maps",
    compares=[("disc_gap_bijection", "disc_gap_base_inverse", True)],
    synthesize=_bijection_win,
)
def _bijection(rows: Rows) -> Verdict:
    gain = _probe_gain(rows)
    if gain < PROBE_MARGIN:
        return Verdict(
            Outcome.INCONCLUSIVE,
            f"the task vector does not work on the plain maps: TV accuracy minus zero-shot accuracy is "
            f"{100 * gain:.3g} points on the worse of base/inverse (need >= {100 * PROBE_MARGIN:.0f}), so the "
            f"bijection comparison has nothing to compare",
            None,
            None,
            len(rows),
        )
    d = _col(rows, "disc_gap_bijection") - _col(rows, "disc_gap_base_inverse")
    diff = float(d.mean())
    se = float(np.sqrt((_col(rows, "disc_diff_se") ** 2).sum()) / len(rows))
    lo, hi = diff - 1.96 * se, diff + 1.96 * se
    outcome = (
        Outcome.SUPPORTED
        if diff >= 20.0 and lo > 0
        else Outcome.NOT_SUPPORTED
        if diff <= 5.0
        else Outcome.INCONCLUSIVE
    )
    return Verdict(
        outcome,
        f"D = {diff:.3g} points [{lo:.3g}, {hi:.3g}] (normal, prompts pooled over seeds; need >= 20 with lower "
        f"> 0; <= 5 refutes)",
        diff,
        (lo, hi),
        len(rows),
    )


def task_vector_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule (estimate: G with its t interval)."""
    return all_of(_one_demo, _rank_one, _bijection)
