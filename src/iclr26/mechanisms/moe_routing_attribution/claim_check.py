"""Claim check of the Routing-Contribution reproduction (OpenReview BqyPLOkxFY), the brief's rule over seeds.

Per seed the experiment stores, token-averaged:

- ``moe_influence`` / ``attn_influence``: over receiver MoE layers l >= 3 (1-based), the summed
  variance-across-experts influence of the earlier MoE outputs / of the earlier attention outputs;
- ``aarv_top`` / ``aarv_random``: for receivers at least 3 layers above the sender MoE layer, AARV of zeroing the
  sender's highest-influence expert (chosen on held-out tokens) / the mean AARV of its other experts.

Each seed gives one number per quantity; the intervals are 95% Student-t intervals of the paired differences
over seeds, so that seeds that disagree widen them (the per-seed token-bootstrap standard errors measure only the
noise within one trained model). SUPPORTED if both intervals lie above 0; NOT SUPPORTED if the influence interval
lies below 0 (attention outputs dominate); INCONCLUSIVE otherwise. The claim is judged only when the LM beats the
bigram floor on held-out text (:data:`LEARNED`). Spearman agreements below 0.5 are flagged in the text.
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.harness.claims import (
    Decider,
    PerSeed,
    Precondition,
    Verdict,
    all_of,
    difference_at_least,
    effect_at_least,
)

__all__ = ["LEARNED", "RELIABILITY", "routing_contribution_decider"]

RELIABILITY = 0.5
RELIABILITY_METRICS = ("spearman_var_aarv", "spearman_linear_dense")

LEARNED = Precondition(
    "loss_below_bigram",
    ">",
    0.0,
    "the MoE LM learned to use its context: its held-out loss is below that of the bigram predictor "
    "(Witten-Bell interpolated training-split bigram, the trivial floor of a model that looks one token back)",
)


def _finite_mean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else float("nan")


def routing_contribution_decider() -> Decider:
    """(a) MoE > attention influence and (b) top-expert AARV > the other experts', t intervals over seeds.

    (b) never refutes (the brief refutes only on (a)); the reliability metrics are reported, may be NaN, and never
    change the outcome.
    """
    inner = all_of(
        difference_at_least("moe_influence", "attn_influence", 0.0),
        effect_at_least("aarv_top", "aarv_random", support_at=0.0, refute_below=-math.inf),
    )

    def fn(rows: PerSeed) -> Verdict:
        verdict = inner(rows)
        means = {k: _finite_mean([float(r[k]) for r in rows]) for k in RELIABILITY_METRICS}
        flags = [k for k, v in means.items() if v < RELIABILITY]
        text = verdict.explanation
        if flags:
            text += (
                "; decomposition flagged unreliable ("
                + ", ".join(f"{k} = {means[k]:.2f}" for k in flags)
                + f" < {RELIABILITY})"
            )
        return Verdict(verdict.outcome, text, verdict.estimate, verdict.interval, verdict.n_seeds)

    return Decider(
        fn,
        [*inner.metrics, *RELIABILITY_METRICS],
        "MoE > attention influence and top-expert AARV > other experts (t intervals over seeds)",
        min_seeds=inner.min_seeds,
        compares=inner.compares,
        synthesize=inner.synthesize,
        allow_nonfinite=RELIABILITY_METRICS,
    )
