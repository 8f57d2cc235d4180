"""The brief's claim rule for Cactus as a custom decider.

(a) controlled divergence as the method enforces it: the exact solver never exceeds the budget
(``a_exact_kl_excess <= 1e-9`` in every seed), the mean emitted ``KL(r || q)`` is non-decreasing in delta in
every seed (``a_klr_monotone == 1``) and small at delta = 1e-4 (``a_klr_small_delta < 0.01`` in every seed);
(b) better frontier than TAS: ``b_kl_diff`` (Cactus minus TAS mean KL(r||q) at matched acceptance) is below 0
in every seed and its 95% t-interval lies below 0, with Cactus's held-out acceptance at least 99% of TAS's
(``b_acc_ratio >= 0.99``; when TAS accepts less than SpS no delta >= 0 can match it and Cactus's is higher); (c) end-to-end sanity: the 95% t-interval of
``c_tau_gain`` (Cactus tau minus SpS tau) lies above 0 and the mean accuracy drop ``c_acc_drop`` is <= 0.02.
Supported if (a), (b), (c) hold; not supported if (a) or (b) fails; inconclusive if only (c) fails.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Outcome, PerSeed, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["cactus_decider"]

METRICS = (
    "a_exact_kl_excess",
    "a_klr_monotone",
    "a_klr_small_delta",
    "b_kl_diff",
    "b_acc_ratio",
    "c_tau_gain",
    "c_acc_drop",
)


def _col(rows: PerSeed, m: str) -> np.ndarray:
    return np.array([float(r[m]) for r in rows], dtype=float)


@decider(*METRICS, description="Cactus (a) controlled divergence, (b) beats TAS frontier, (c) tau gain")
def cactus_decider(rows: PerSeed) -> Verdict:
    """Judge the combined Cactus claim from per-seed metrics (see the module docstring)."""
    excess, mono, small = (
        _col(rows, "a_exact_kl_excess"),
        _col(rows, "a_klr_monotone"),
        _col(rows, "a_klr_small_delta"),
    )
    ratio = _col(rows, "b_acc_ratio")
    diff, gain, drop = _col(rows, "b_kl_diff"), _col(rows, "c_tau_gain"), _col(rows, "c_acc_drop")
    a_ok = bool(np.all(excess <= 1e-9) and np.all(mono == 1.0) and np.all(small < 0.01))
    iv = t_interval(diff) if diff.size >= 2 else None
    b_ok = bool(np.all(diff < 0) and np.all(ratio >= 0.99) and iv is not None and iv.hi < 0)
    giv = t_interval(gain) if gain.size >= 2 else None
    c_ok = bool(giv is not None and giv.lo > 0 and float(np.mean(drop)) <= 0.02)
    if not (a_ok and b_ok):
        outcome = Outcome.NOT_SUPPORTED
    elif c_ok:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"(a) {'holds' if a_ok else 'fails'}: max exact-solver KL excess {excess.max():.2g}, KL(r||q) monotone in "
        f"{int(mono.sum())}/{mono.size} seeds, KL(r||q) at delta=1e-4 max {small.max():.3g}; "
        f"(b) {'holds' if b_ok else 'fails'}: Cactus - TAS mean KL(r||q) at matched acceptance "
        f"{diff.mean():.4g}" + (f" [{iv.lo:.4g}, {iv.hi:.4g}]" if iv else "") + f", < 0 in "
        f"{int((diff < 0).sum())}/{diff.size} seeds, Cactus/TAS acceptance min {ratio.min():.3f}; (c) {'holds' if c_ok else 'fails'}: tau gain vs SpS "
        f"{gain.mean():.3g}" + (f" [{giv.lo:.3g}, {giv.hi:.3g}]" if giv else "") + f", accuracy drop "
        f"{drop.mean():.3g}"
    )
    return Verdict(outcome, text, float(diff.mean()), (iv.lo, iv.hi) if iv else None, len(rows))
