"""DirMoE: Dirichlet-Routed Mixture of Experts (ICLR 2026, OpenReview a15cDnzr6r).

A router that splits "which experts fire" (independent Bernoulli selections, relaxed with a Gumbel-sigmoid) from
"how much each contributes" (a Dirichlet over the experts, reparameterised), trained with an ELBO-style
regulariser whose sparsity term sets the expected number of active experts ``sum_e pi_e``. The baselines (top-k
softmax, noisy top-k, ReLU routing, dense soft routing) share the same router interface, and :class:`MoEFFN`
plugs any of them into :class:`iclr26.lab.transformer.Transformer` as its FFN.
"""

from iclr26.attention.dirmoe.baselines import (
    NoisyTopKRouter,
    ReLURouter,
    SoftMoE,
    TopKSoftmaxRouter,
    switch_balance_loss,
)
from iclr26.attention.dirmoe.dirichlet import (
    DirichletRouter,
    bernoulli_kl,
    combine_gates,
    dirichlet_kl,
    expected_active,
    inference_gates,
    relaxed_selection,
    sparsity_penalty,
)
from iclr26.lab.moe.layer import ExpertBank, MoEFFN, moe_aux_loss, moe_ffn, moe_layers
from iclr26.lab.moe.router import LinearRamp, Router, TauSchedule, set_progress

__all__ = [
    "DirichletRouter",
    "ExpertBank",
    "LinearRamp",
    "MoEFFN",
    "NoisyTopKRouter",
    "ReLURouter",
    "Router",
    "SoftMoE",
    "TauSchedule",
    "TopKSoftmaxRouter",
    "bernoulli_kl",
    "combine_gates",
    "dirichlet_kl",
    "expected_active",
    "inference_gates",
    "moe_aux_loss",
    "moe_ffn",
    "moe_layers",
    "relaxed_selection",
    "set_progress",
    "sparsity_penalty",
    "switch_balance_loss",
]
