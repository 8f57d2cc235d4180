"""Claim check of the denoising-heads reproduction (arXiv 2509.21012): the brief's rule over seeds.

Per seed: ``acc_zero`` (zero-shot intended-task accuracy), ``acc_filter`` / ``acc_random`` (with the learned /
a random rank-r filter), ``acc_8shot`` (the learning gate), ``offsub_diff_hi`` (upper 95% bound of the
query-paired 8-shot minus zero-shot off-subspace ratio), ``drop_top`` / ``drop_rand`` (8-shot accuracy drop when
ablating the top-2 / 2 random heads), ``drop_top_absent`` / ``drop_top_present``.

* inconclusive if mean 8-shot accuracy < 0.85 (the analogue did not learn the tasks) or fewer than 2 seeds;
* supported if (1) mean acc_zero <= 0.40, mean acc_filter >= 0.80 and mean (acc_filter - acc_random) >= 0.30;
  (2) offsub_diff_hi < 0 in every seed; (3) mean (drop_top - drop_rand) >= 0.15 and the 95% t interval of
  (drop_top_absent - drop_top_present) lies above 0;
* not supported if (1) fails, or (3) fails with the 95% t interval of (drop_top - drop_rand) containing 0;
* inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["ACC_GATE", "denoising_claim_decider"]

ACC_GATE = 0.85
ZERO_MAX = 0.40
FILTER_MIN = 0.80
FILTER_MARGIN = 0.30
ABLATION_MARGIN = 0.15

METRICS = (
    "acc_zero",
    "acc_filter",
    "acc_random",
    "acc_8shot",
    "offsub_diff_hi",
    "drop_top",
    "drop_rand",
    "drop_top_absent",
    "drop_top_present",
)


def denoising_claim_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule on the per-seed metrics above."""

    @decider(
        *METRICS, description="low-rank filter steers zero-shot; ICL removes info; denoising heads matter"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        col = {m: np.array([float(r[m]) for r in rows]) for m in METRICS}
        n = len(rows)
        if not all(np.all(np.isfinite(v)) for v in col.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=n)
        gap = col["acc_filter"] - col["acc_random"]
        abl = col["drop_top"] - col["drop_rand"]
        cond = col["drop_top_absent"] - col["drop_top_present"]
        iv_abl = t_interval(abl) if n >= 2 else None
        text = (
            f"8-shot acc {col['acc_8shot'].mean():.3f} (gate >= {ACC_GATE}); (1) zero-shot acc {col['acc_zero'].mean():.3f} (need <= {ZERO_MAX}), filtered {col['acc_filter'].mean():.3f} "
            f"(need >= {FILTER_MIN}), filtered - random {gap.mean():.3f} (need >= {FILTER_MARGIN}); "
            f"(2) paired upper bound of 8-shot - zero-shot off-subspace ratio per seed "
            f"{np.round(col['offsub_diff_hi'], 4).tolist()} (need all < 0); "
            f"(3) top-2 minus random drop {abl.mean():.3f} (need >= {ABLATION_MARGIN}), absent - present drop "
            f"{cond.mean():.3f}"
        )
        est = float(abl.mean())
        band = (iv_abl.lo, iv_abl.hi) if iv_abl is not None and iv_abl.defined else None
        if col["acc_8shot"].mean() < ACC_GATE:
            return Verdict(
                Outcome.INCONCLUSIVE,
                "the analogue did not learn the tasks (8-shot acc < 0.85); " + text,
                est,
                band,
                n,
            )
        if n < 2:
            return Verdict(Outcome.INCONCLUSIVE, text + "; intervals need >= 2 seeds", est, band, n)
        iv_cond = t_interval(cond)
        text += (
            f" (95% t interval [{iv_cond.lo:.3f}, {iv_cond.hi:.3f}]); top-2 minus random drop 95% t interval "
            f"[{iv_abl.lo:.3f}, {iv_abl.hi:.3f}]"
        )
        c1 = (
            col["acc_zero"].mean() <= ZERO_MAX
            and col["acc_filter"].mean() >= FILTER_MIN
            and gap.mean() >= FILTER_MARGIN
        )
        c2 = bool(np.all(col["offsub_diff_hi"] < 0))
        c3 = abl.mean() >= ABLATION_MARGIN and iv_cond.lo > 0
        if not c1 or (not c3 and iv_abl.lo <= 0 <= iv_abl.hi):
            return Verdict(Outcome.NOT_SUPPORTED, text, est, band, n)
        return Verdict(Outcome.SUPPORTED if (c1 and c2 and c3) else Outcome.INCONCLUSIVE, text, est, band, n)

    return decide
