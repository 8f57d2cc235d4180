"""Claim check of the LLA reproduction (arXiv 2510.01450): the brief's two-part rule.

(A) Test-time regression at the decisive setting (n = 256, d = 4). Each harness seed stores the per-draw MSEs
``claimA_<family>_<estimator>_mse_<r>``; all draws of all seeds are pooled. Per family the best baseline is the
one with the lowest mean log-MSE, and the 95% percentile-bootstrap interval of mean log(MSE_LLA / MSE_best) is
formed. A family favours LLA when the interval lies below 0 and favours the baseline when it lies above 0.

(B) In-context regression: per seed the held-out MSE of the LLA and softmax models; r = exp(mean log ratio)
with its paired 95% t-interval (reported). B favours LLA when LLA is lower in every seed and r <= 0.9, and
favours softmax when r >= 1 / 0.9. Guard: when neither model's mean MSE is below 0.95 x the zero predictor's
(``b_trivial_mse``), neither has learned the task and B is inconclusive.

Supported: A favours LLA in >= 2 of 3 families and B favours LLA. Not supported: A favours the baselines in
>= 2 families, or B favours softmax. Inconclusive otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = [
    "LEARNED",
    "MARGIN_B",
    "lla_claim_decider",
    "study_a_decider",
    "study_b_decider",
    "study_a_summary",
]

MARGIN_B = 0.9
LEARNED = 0.95


def _draws(row: Mapping[str, float], family: str, estimator: str) -> list[float]:
    pat = re.compile(rf"^claimA_{family}_{estimator}_mse_(\d+)$")
    keyed = sorted((int(m.group(1)), v) for key, v in row.items() if (m := pat.match(key)))
    return [float(v) for _, v in keyed]


def study_a_summary(
    rows: Sequence[Mapping[str, float]], families: Sequence[str], baselines: Sequence[str]
) -> dict[str, dict]:
    """Per family: best baseline, pooled per-draw log-ratios, bootstrap interval and the side it lies on."""
    out = {}
    for fam in families:
        lla = np.concatenate([_draws(r, fam, "lla") for r in rows])
        base = {b: np.concatenate([_draws(r, fam, b) for r in rows]) for b in baselines}
        best = min(baselines, key=lambda b: float(np.mean(np.log(base[b]))))
        ratio = np.log(lla) - np.log(base[best])
        iv = bootstrap_interval(ratio, seed=0) if ratio.size >= 2 else None
        side = 0
        if iv is not None and iv.defined and np.isfinite(ratio).all():
            side = -1 if iv.hi < 0 else (1 if iv.lo > 0 else 0)
        out[fam] = {"best": best, "ratio": ratio, "interval": iv, "side": side}
    return out


def _a_outcome(summary: dict[str, dict]) -> tuple[Outcome, str]:
    wins = sum(s["side"] < 0 for s in summary.values())
    losses = sum(s["side"] > 0 for s in summary.values())
    parts = []
    for fam, s in summary.items():
        iv = s["interval"]
        ci = f"[{iv.lo:.3g}, {iv.hi:.3g}]" if iv is not None and iv.defined else "[n/a]"
        parts.append(f"{fam}: log(MSE_LLA/MSE_{s['best']}) = {float(np.mean(s['ratio'])):.3g} {ci}")
    text = "; ".join(parts) + f" ({summary[next(iter(summary))]['ratio'].size} draws)"
    if any(s["interval"] is None or not s["interval"].defined for s in summary.values()):
        return Outcome.INCONCLUSIVE, text
    if wins >= 2:
        return Outcome.SUPPORTED, text
    if losses >= 2:
        return Outcome.NOT_SUPPORTED, text
    return Outcome.INCONCLUSIVE, text


def _b_outcome(
    rows: Sequence[Mapping[str, float]], method: str, base: str
) -> tuple[Outcome, str, float, tuple]:
    a = np.array([float(r[f"b_{method}_mse"]) for r in rows])
    b = np.array([float(r[f"b_{base}_mse"]) for r in rows])
    if not (np.isfinite(a).all() and np.isfinite(b).all() and (a > 0).all() and (b > 0).all()):
        return Outcome.INCONCLUSIVE, "non-finite or non-positive Study B MSEs", float("nan"), (np.nan, np.nan)
    trivial = float(np.mean([float(r["b_trivial_mse"]) for r in rows]))
    if min(a.mean(), b.mean()) > LEARNED * trivial:
        text = (
            f"neither model learned the task: mean MSE {method} {a.mean():.3g}, {base} {b.mean():.3g} vs "
            f"{trivial:.3g} for the zero predictor (need < {LEARNED} x)"
        )
        return Outcome.INCONCLUSIVE, text, float(np.exp(np.mean(np.log(a) - np.log(b)))), (np.nan, np.nan)
    logr = np.log(a) - np.log(b)
    iv = t_interval(logr)
    r = float(np.exp(logr.mean()))
    interval = (float(np.exp(iv.lo)), float(np.exp(iv.hi))) if iv.defined else (np.nan, np.nan)
    text = (
        f"MSE_{method}/MSE_{base} = {r:.3g} (paired 95% t of the log-ratio -> [{interval[0]:.3g}, "
        f"{interval[1]:.3g}], {len(rows)} seeds; {method} lower in {int((a < b).sum())}/{len(rows)})"
    )
    if len(rows) >= 2 and (a < b).all() and r <= MARGIN_B:
        return Outcome.SUPPORTED, text, r, interval
    if r >= 1 / MARGIN_B:
        return Outcome.NOT_SUPPORTED, text, r, interval
    return Outcome.INCONCLUSIVE, text, r, interval


def study_a_decider(families: Sequence[str], baselines: Sequence[str]) -> Decider:
    """Part (A) alone: LLA's per-draw log-MSE ratio to the best baseline, bootstrap CI per family."""
    needed = [f"claimA_{f}_{e}_mse_00" for f in families for e in ("lla", *baselines)]

    @decider(
        *needed, description="Study A: bootstrap CI of log(MSE_LLA / best baseline) < 0 in >= 2 families"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        summary = study_a_summary(rows, families, baselines)
        outcome, text = _a_outcome(summary)
        means = [float(np.mean(s["ratio"])) for s in summary.values()]
        n = summary[families[0]]["ratio"].size
        return Verdict(outcome, text, float(np.median(means)), None, n)

    return decide


def study_b_decider(method: str = "lla", base: str = "softmax") -> Decider:
    """Part (B) alone: the trained LLA model's held-out MSE against softmax's, paired over seeds."""

    @decider(
        f"b_{method}_mse", f"b_{base}_mse", description=f"Study B: MSE_{method} <= {MARGIN_B} MSE_{base}"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        outcome, text, r, interval = _b_outcome(rows, method, base)
        return Verdict(outcome, text, r, interval, len(rows))

    return decide


def lla_claim_decider(families: Sequence[str], baselines: Sequence[str]) -> Decider:
    """The brief's combined rule over (A) and (B)."""
    part_a = study_a_decider(families, baselines)

    @decider(
        *part_a.metrics, "b_lla_mse", "b_softmax_mse", description="LLA: Study A and Study B both favour LLA"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        a_out, a_text = _a_outcome(study_a_summary(rows, families, baselines))
        b_out, b_text, r, interval = _b_outcome(rows, "lla", "softmax")
        if a_out == Outcome.SUPPORTED and b_out == Outcome.SUPPORTED:
            outcome = Outcome.SUPPORTED
        elif a_out == Outcome.NOT_SUPPORTED or b_out == Outcome.NOT_SUPPORTED:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = f"A ({a_out.value}): {a_text}. B ({b_out.value}): {b_text}"
        return Verdict(outcome, text, r, interval, len(rows))

    return decide
