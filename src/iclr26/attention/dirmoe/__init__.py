"""DirMoE: Dirichlet-Routed Mixture of Experts (ICLR 2026, OpenReview a15cDnzr6r, arXiv 2602.09001).

A router that splits "which experts fire" (independent Bernoulli selections, relaxed with a Gumbel-sigmoid) from
"how much each contributes" (a Dirichlet over the experts whose concentrations are conditioned on the sampled
selection: a slab head for selected experts, a spike head for the others; reparameterised), trained with an ELBO:
a reconstruction of the token from the routing vector, the KL to a calibrated spike-and-slab Dirichlet prior, and a
penalty that sets the number of active experts. The baselines (top-k softmax, noisy top-k, ReLU routing, dense
soft routing) share the same router interface, and :class:`MoEFFN` plugs any of them into
:class:`iclr26.lab.transformer.Transformer` as its FFN.
"""

from iclr26.attention.dirmoe.baselines import (
    NoisyTopKRouter,
    ReLURouter,
    SoftMoE,
    TopKSoftmaxRouter,
    switch_balance_loss,
)
from iclr26.attention.dirmoe.dirichlet import (
    bernoulli_kl,
    combine_gates,
    dirichlet_kl,
    expected_active,
    inference_gates,
    inference_selection,
    relaxed_selection,
    sparsity_penalty,
)
from iclr26.attention.dirmoe.dirichlet_router import DirichletRouter
from iclr26.attention.dirmoe.spike_slab import (
    PriorParams,
    SpikeSlabPrior,
    expected_simpson,
    prior_base,
    simpson_concentration,
    spike_slab_concentrations,
)
from iclr26.lab.moe.layer import ExpertBank, MoEFFN, moe_aux_loss, moe_ffn, moe_layers
from iclr26.lab.moe.router import LinearRamp, Router, TauSchedule, set_progress

__all__ = [
    "DirichletRouter",
    "ExpertBank",
    "LinearRamp",
    "MoEFFN",
    "NoisyTopKRouter",
    "PriorParams",
    "ReLURouter",
    "Router",
    "SoftMoE",
    "SpikeSlabPrior",
    "TauSchedule",
    "TopKSoftmaxRouter",
    "bernoulli_kl",
    "combine_gates",
    "dirichlet_kl",
    "expected_active",
    "expected_simpson",
    "inference_gates",
    "inference_selection",
    "moe_aux_loss",
    "moe_ffn",
    "moe_layers",
    "prior_base",
    "relaxed_selection",
    "set_progress",
    "simpson_concentration",
    "sparsity_penalty",
    "spike_slab_concentrations",
    "switch_balance_loss",
]
