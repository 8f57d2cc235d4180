"""Claim check of the BAM reproduction (arXiv 2505.22842): passkey extrapolation with comparable loss.

Pooled over seeds (each seed contributes ``n`` depth-stratified episodes per scheme), at the claim length:

- (a) BAM-SSMax's exact-match accuracy ``p1`` against the best baseline's ``p2`` (the baseline with the highest
  pooled accuracy), with a Newcombe hybrid-score 95% interval of ``p1 - p2`` (Wilson intervals per proportion);
- (b) the mean over seeds of ``loss(BAM-SSMax) / min loss(baselines)`` on held-out filler at 1x.

Supported: ``p1 >= 0.8``, ``p1 - p2 >= 0.2``, the interval's lower end > 0, and (b) ``<= 1.03``. Not supported:
``p1 <= p2``, or (b) above 1.03. Inconclusive otherwise.

Preconditions (declared on the claims, checked per seed): BAM-SSMax retrieves the passkey at the training length
above chance, and some scheme of the comparison solves some episode at the claim length (no floor effect). Chance
is the exact-match rate of guessing the 4 digits, ``10**-4``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from scipy.stats import norm

from iclr26.harness.claims import Decider, Outcome, Verdict, decider

__all__ = [
    "CHANCE",
    "LOSS_SLACK",
    "MIN_ACC",
    "MIN_GAP",
    "extrapolation_decider",
    "newcombe_interval",
    "wilson_interval",
]

MIN_ACC = 0.8
MIN_GAP = 0.2
LOSS_SLACK = 1.03
CHANCE = 0.1**4  # exact match of 4 digits guessed uniformly from 10


def wilson_interval(k: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``k / n``."""
    if n <= 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    z = float(norm.ppf(0.5 + level / 2))
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(k1: float, n1: float, k2: float, n2: float, level: float = 0.95) -> tuple[float, float]:
    """Newcombe's hybrid-score interval (method 10) of ``k1/n1 - k2/n2`` for independent proportions."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, level)
    l2, u2 = wilson_interval(k2, n2, level)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return lo, hi


def extrapolation_decider(method: str, baselines: Sequence[str]) -> Decider:
    """The brief's rule for ``method`` against ``baselines`` (metric keys ``<scheme>_acc_claim`` etc.)."""
    acc = [f"{s}_acc_claim" for s in (method, *baselines)]
    cnt = [f"{s}_n_claim" for s in (method, *baselines)]

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        """A clear win: the method solves 95% of the episodes, every baseline 5%, loss ratio 1."""
        out = []
        for r in rows:
            row = {**r, f"{method}_acc_claim": 0.95, "loss_ratio_x1": 1.0}
            for s in (method, *baselines):
                row[f"{s}_n_claim"] = max(float(r[f"{s}_n_claim"]), 32.0)
            for s in baselines:
                row[f"{s}_acc_claim"] = 0.05
            out.append(row)
        return out

    @decider(
        *acc,
        *cnt,
        "loss_ratio_x1",
        description=f"{method} passkey acc >= {MIN_ACC} and >= best baseline + {MIN_GAP} (Newcombe > 0); "
        f"1x loss ratio <= {LOSS_SLACK}",
        compares=[(f"{method}_acc_claim", f"{b}_acc_claim", True) for b in baselines],
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        def pooled(s: str) -> tuple[float, float]:
            k = sum(float(r[f"{s}_acc_claim"]) * float(r[f"{s}_n_claim"]) for r in rows)
            return round(k), sum(float(r[f"{s}_n_claim"]) for r in rows)

        k1, n1 = pooled(method)
        best = max(baselines, key=lambda s: pooled(s)[0] / pooled(s)[1])
        k2, n2 = pooled(best)
        p1, p2 = k1 / n1, k2 / n2
        lo, hi = newcombe_interval(k1, n1, k2, n2)
        ratio = sum(float(r["loss_ratio_x1"]) for r in rows) / len(rows)
        if p1 <= p2 or ratio > LOSS_SLACK:
            outcome = Outcome.NOT_SUPPORTED
        elif p1 >= MIN_ACC and p1 - p2 >= MIN_GAP and lo > 0:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"{method} {p1:.3f} ({int(k1)}/{int(n1)}) vs best baseline {best} {p2:.3f} ({int(k2)}/{int(n2)}); "
            f"difference {p1 - p2:.3f} [{lo:.3f}, {hi:.3f}] (Newcombe 95%); need acc >= {MIN_ACC}, gap >= "
            f"{MIN_GAP}, lower end > 0; 1x loss ratio {ratio:.3f} (need <= {LOSS_SLACK})"
        )
        return Verdict(outcome, text, p1 - p2, (lo, hi), len(rows))

    return decide
