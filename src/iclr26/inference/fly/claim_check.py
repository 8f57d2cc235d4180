"""The brief's claim rule for FLy against exact-match speculative decoding, over harness seeds."""

from __future__ import annotations

import math

import numpy as np

from iclr26.harness.claims import Outcome, Verdict, decider
from iclr26.harness.stats import interval

__all__ = ["fly_decider"]


@decider("acc_retained", "acc_diff", "tau_ratio", description="FLy keeps accuracy and lengthens acceptance")
def fly_decider(rows) -> Verdict:
    """Supported: accuracy retained >= 0.99, CI of acc_FLy - acc_target above -0.02, tau_FLy / tau_SD >= 1.10
    with CI above 1. Not supported: accuracy retained < 0.97 or the tau-gain CI reaches 1. Else inconclusive."""
    ret = np.array([r["acc_retained"] for r in rows], dtype=float)
    diff = np.array([r["acc_diff"] for r in rows], dtype=float)
    ratio = np.array([r["tau_ratio"] for r in rows], dtype=float)
    if not (
        np.isfinite(ret).all() and np.isfinite(diff).all() and np.isfinite(ratio).all() and (ratio > 0).all()
    ):
        return Verdict(Outcome.INCONCLUSIVE, "non-finite accuracy or tau metrics (target accuracy 0?)")
    n = len(rows)
    tau = interval(np.log(ratio))
    t_est, t_lo, t_hi = math.exp(tau.estimate), math.exp(tau.lo), math.exp(tau.hi)
    d = interval(diff)
    acc = float(ret.mean())
    text = (
        f"tau_FLy/tau_SD = {t_est:.3g} [{t_lo:.3g}, {t_hi:.3g}]; accuracy retained {acc:.3g}; "
        f"acc_FLy - acc_target = {d.estimate:.3g} [{d.lo:.3g}, {d.hi:.3g}]"
    )
    iv = (t_lo, t_hi) if tau.defined else None
    if acc < 0.97 or (tau.defined and t_lo <= 1.0):
        return Verdict(Outcome.NOT_SUPPORTED, text, t_est, iv, n)
    if acc >= 0.99 and d.defined and d.lo > -0.02 and t_est >= 1.10 and tau.defined and t_lo > 1.0:
        return Verdict(Outcome.SUPPORTED, text, t_est, iv, n)
    return Verdict(Outcome.INCONCLUSIVE, text, t_est, iv, n)
