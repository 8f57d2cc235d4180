"""Claim check of the ELM reproduction (OpenReview lqJT6xmuH3): the brief's rule over harness seeds.

Per seed: ``elm_acc`` and ``dense_acc`` (greedy exact match on held-out arithmetic), and
``elm_minus_best_baseline`` = ELM accuracy minus the best of the layer-drop + fine-tune, single-layer
replacement and least-squares linear-map baselines at the same pruned group. Retention = mean ELM accuracy /
mean dense accuracy. Inconclusive when the dense model's mean accuracy is below 0.30. Not supported when
retention < 0.90 or the paired 95% t-interval of the difference has lower end <= 0. Supported when retention
>= 0.97, the mean difference >= 0.03 (3 points) and the interval is above 0. Inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["MIN_DENSE_ACC", "elm_claim_decider", "loss_gain_decider"]

MIN_DENSE_ACC = 0.30
RETAIN_SUPPORT, RETAIN_FAIL, MARGIN = 0.97, 0.90, 0.03


def elm_claim_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule on retention and the gain over baselines."""

    @decider(
        "elm_acc",
        "dense_acc",
        "elm_minus_best_baseline",
        description="ELM retains >= 97% of dense accuracy and beats the best baseline by >= 3 points",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        elm = np.array([float(r["elm_acc"]) for r in rows])
        dense = np.array([float(r["dense_acc"]) for r in rows])
        diff = np.array([float(r["elm_minus_best_baseline"]) for r in rows])
        if not all(np.all(np.isfinite(a)) for a in (elm, dense, diff)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(diff)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        text = (
            f"dense acc = {dense.mean():.3g}; retention = {{r}}; ELM - best baseline = {iv.estimate:.3g} "
            f"[{iv.lo:.3g}, {iv.hi:.3g}] (paired 95% t, {iv.n} seeds)"
        )
        if dense.mean() < MIN_DENSE_ACC:
            msg = text.format(r="n/a") + f"; dense accuracy below {MIN_DENSE_ACC}: retention is meaningless"
            return Verdict(Outcome.INCONCLUSIVE, msg, iv.estimate, (iv.lo, iv.hi), iv.n)
        retention = float(elm.mean() / dense.mean())
        text = text.format(r=f"{retention:.3g}")
        if retention < RETAIN_FAIL or iv.lo <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif retention >= RETAIN_SUPPORT and iv.estimate >= MARGIN:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        need = f" (need retention >= {RETAIN_SUPPORT}, gain >= {MARGIN} with lower end > 0)"
        return Verdict(outcome, text + need, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide


def loss_gain_decider(baselines: Sequence[str] = ("drop_ft", "single_layer", "linear")) -> Decider:
    """Secondary: held-out loss of the best baseline minus ELM's (> 0: ELM closer to the dense model).

    Supported when the 95% t-interval of the per-seed gain lies above 0, not supported when it lies below 0,
    inconclusive when it contains 0.
    """
    keys = [f"{b}_loss" for b in baselines]

    @decider("elm_loss", *keys, description="best baseline loss - ELM loss > 0 (95% t-interval)")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        gain = np.array([min(float(r[k]) for k in keys) - float(r["elm_loss"]) for r in rows])
        if not np.all(np.isfinite(gain)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite losses in some seeds", n_seeds=len(rows))
        iv = t_interval(gain)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        outcome = (
            Outcome.SUPPORTED if iv.lo > 0 else Outcome.NOT_SUPPORTED if iv.hi < 0 else Outcome.INCONCLUSIVE
        )
        text = f"best baseline loss - ELM loss = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] nats (95% t, {iv.n} seeds)"
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
