"""Routing-Contribution: cross-layer contributions to mixture-of-experts routing (ICLR 2026, OpenReview BqyPLOkxFY).

Wengang Li, Lingqi Zhang, Toshio Endo, Mohamed Wahib, "Routing-Contribution: Understanding Cross-Layer
Contributions to Mixture-of-Experts Routing in LLMs". A router's expert scores are split additively into the
contributions of the token embedding and of every earlier attention and MoE output (down to heads and experts),
by sharing the normaliser's scale among the components; influence is the variance of a component's sub-scores
across the receiver's experts, and zeroing a component's sub-scores tests its effect on the top-k ranking (AARV).
"""

from iclr26.mechanisms.moe_routing_attribution.attribution import (
    InfluenceMatrix,
    RoutingTrace,
    aarv,
    ablation_contributions,
    cofiring,
    decompose,
    expert_firing,
    influence,
    influence_matrix,
    linear_subscores,
    rank_change,
    router_scores,
    trace_routing,
)
from iclr26.mechanisms.moe_routing_attribution.model import (
    TinyMoEConfig,
    corpus_tokens,
    tiny_moe_lm,
    train_tiny_moe,
)

__all__ = [
    "InfluenceMatrix",
    "RoutingTrace",
    "TinyMoEConfig",
    "aarv",
    "ablation_contributions",
    "cofiring",
    "corpus_tokens",
    "decompose",
    "expert_firing",
    "influence",
    "influence_matrix",
    "linear_subscores",
    "rank_change",
    "router_scores",
    "tiny_moe_lm",
    "train_tiny_moe",
    "trace_routing",
]
