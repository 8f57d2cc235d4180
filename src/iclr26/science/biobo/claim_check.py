"""Claim check of the BioBO reproduction (arXiv 2509.19988): labeling-efficiency gain over conventional BO.

Per seed and landscape, r* = the smaller final top-1% recall of the two methods compared and L(r) = labels at the
first cycle with recall >= r; the run stores ``L_method(r*)`` and ``L_baseline(r*)`` (:func:`labels_at_rstar`),
and the gain is ``1 - L_method(r*) / L_baseline(r*)`` (0 when r* = 0, where both L are the initial labels).

Main claim (:func:`biobo_decider`, :func:`~iclr26.harness.claims.all_of` two parts):

* pathway landscape, :func:`label_saving`, the three-way effect rule on the mean gain with a 95% bootstrap
  interval: supported when the mean gain is >= 20% and the interval lies above 0; not supported when the whole
  interval lies below 20% (the data exclude the claimed saving);
* control landscape without pathway signal, :func:`control_band` (the brief's point-estimate band): supported
  when the mean gain is >= -10%, not supported when it is < -25% (the prior misleads), inconclusive between.

Ablation: BioBO's gain over multimodal BO without EA, :func:`label_saving` with a t-interval: supported when the
interval lies above 0, not supported when it lies below 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.checks import check_float
from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider
from iclr26.harness.stats import interval

__all__ = [
    "CONTROL_FAIL",
    "CONTROL_OK",
    "GAIN_BAR",
    "biobo_decider",
    "control_band",
    "efficiency_gain",
    "label_saving",
    "labels_at_rstar",
    "labels_to_recall",
    "rstar_metrics",
]

GAIN_BAR = 0.20
CONTROL_OK = -0.10
CONTROL_FAIL = -0.25

Rows = list[dict[str, float]]


def labels_to_recall(labels: Sequence[float], recall: Sequence[float], r: float) -> float:
    """Labels at the first cycle whose recall reaches r (NaN if never)."""
    lab, rec = np.asarray(labels, dtype=float), np.asarray(recall, dtype=float)
    if lab.shape != rec.shape or lab.ndim != 1:
        raise ValueError(f"labels and recall must be 1-D of the same length, got {lab.shape} and {rec.shape}")
    if not (np.all(np.isfinite(lab)) and np.all(np.isfinite(rec))):
        raise ValueError("labels and recall must be finite (a NaN recall would never count as reached)")
    check_float("r", r, 0.0, 1.0)
    hit = np.flatnonzero(rec >= r - 1e-12)
    return float(lab[hit[0]]) if hit.size else float("nan")


def labels_at_rstar(
    labels: Sequence[float], recall_a: Sequence[float], recall_b: Sequence[float]
) -> tuple[float, float]:
    """``(L_a(r*), L_b(r*))`` with r* = min of the final recalls: both methods reach r* by the last cycle."""
    r_star = max(min(float(recall_a[-1]), float(recall_b[-1])), 0.0)
    return labels_to_recall(labels, recall_a, r_star), labels_to_recall(labels, recall_b, r_star)


def efficiency_gain(labels: Sequence[float], recall_a: Sequence[float], recall_b: Sequence[float]) -> float:
    """1 - L_a(r*) / L_b(r*) with r* = min of the final recalls (0 if r* = 0): a's label saving over b."""
    r_star = min(float(recall_a[-1]), float(recall_b[-1]))
    if r_star <= 0:
        return 0.0
    la, lb = labels_at_rstar(labels, recall_a, recall_b)
    return 1.0 - la / lb


def rstar_metrics(prefix: str, method: str, baseline: str, tag: str = "") -> tuple[str, str]:
    """Names of the stored ``L(r*)`` metrics of `method` and `baseline` on landscape `prefix`."""
    return f"{prefix}_rstar{tag}_labels_{method}", f"{prefix}_rstar{tag}_labels_{baseline}"


def _gains(rows: Sequence[Mapping[str, float]], la: str, lb: str) -> np.ndarray:
    return np.array([1.0 - float(r[la]) / float(r[lb]) for r in rows])


def label_saving(
    la: str,
    lb: str,
    *,
    support_at: float,
    null: float = 0.0,
    refute_below: float | None = None,
    method: str = "t",
) -> Decider:
    """Three-way effect rule on the mean per-seed gain ``1 - la / lb`` (labels of the method and the baseline at
    the same recall): supported when the mean is >= `support_at` and the interval lies above `null`, not
    supported when the whole interval lies below `refute_below` (default `support_at`)."""
    refute = support_at if refute_below is None else refute_below

    def win(rows: Rows) -> Rows:
        saving = max(2.0 * support_at, 0.5)
        return [
            {**r, la: (1.0 - saving) * float(r[lb]) * (1.0 + 0.01 * ((i % 3) - 1))}
            for i, r in enumerate(rows)
        ]

    @decider(
        la,
        lb,
        description=f"mean 1 - {la} / {lb} >= {support_at:.0%}, interval > {null:g}",
        compares=[(la, lb, False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        if any(float(r[lb]) <= 0 for r in rows):
            return Verdict(Outcome.INCONCLUSIVE, f"{lb} must be positive", n_seeds=len(rows))
        iv = interval(_gains(rows, la, lb), method=method)
        if not iv.defined:
            outcome = Outcome.INCONCLUSIVE
        elif iv.estimate >= support_at and iv.lo > null:
            outcome = Outcome.SUPPORTED
        elif iv.hi < refute:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"label-efficiency gain 1 - {la}/{lb} = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% {iv.method}, "
            f"{iv.n} seeds); supported at >= {support_at:.3g} with the interval above {null:.3g}, refuted when "
            f"the interval lies below {refute:.3g}",
            iv.estimate,
            (iv.lo, iv.hi) if iv.defined else None,
            iv.n,
        )

    return decide


def control_band(la: str, lb: str) -> Decider:
    """The brief's control part, a point estimate of the mean gain ``1 - la / lb``: supported at >=
    :data:`CONTROL_OK`, not supported below :data:`CONTROL_FAIL`, inconclusive in between. A non-inferiority
    part: the baseline against itself passes, so it declares no comparison."""

    def tie(rows: Rows) -> Rows:
        return [{**r, la: float(r[lb])} for r in rows]

    @decider(la, lb, description=f"control: mean 1 - {la} / {lb} >= {CONTROL_OK:.0%}", synthesize=tie)
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        if any(float(r[lb]) <= 0 for r in rows):
            return Verdict(Outcome.INCONCLUSIVE, f"{lb} must be positive", n_seeds=len(rows))
        cm = float(np.mean(_gains(rows, la, lb)))
        if cm < CONTROL_FAIL:
            outcome = Outcome.NOT_SUPPORTED
        elif cm >= CONTROL_OK:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"control gain = {cm:.3g} (need >= {CONTROL_OK}, fails < {CONTROL_FAIL})",
            cm,
            None,
            len(rows),
        )

    return decide


def biobo_decider(pathway: str = "pathway", control: str = "control") -> Decider:
    """The brief's rule on the landscapes `pathway` (with signal) and `control` (without), BioBO vs conventional."""
    return all_of(
        label_saving(*rstar_metrics(pathway, "biobo", "conv"), support_at=GAIN_BAR, method="bootstrap"),
        control_band(*rstar_metrics(control, "biobo", "conv")),
    )
