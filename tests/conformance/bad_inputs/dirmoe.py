"""Bad input to the DirMoE router (both variants), its spike-and-slab prior, its baselines and the MoE FFN
(OpenReview a15cDnzr6r)."""

import torch

from iclr26.attention.dirmoe import (
    DirichletRouter,
    LinearRamp,
    MoEFFN,
    NoisyTopKRouter,
    ReLURouter,
    SpikeSlabPrior,
    TauSchedule,
    TopKSoftmaxRouter,
    bernoulli_kl,
    combine_gates,
    dirichlet_kl,
    expected_active,
    inference_gates,
    moe_aux_loss,
    moe_ffn,
    prior_base,
    relaxed_selection,
    set_progress,
    simpson_concentration,
    sparsity_penalty,
    spike_slab_concentrations,
    switch_balance_loss,
)

NAN, INF = float("nan"), float("inf")


def _topk(d, e):
    return TopKSoftmaxRouter(d, e)


def _nan_router_forward():
    router = DirichletRouter(8, 4, k_target=1)
    with torch.no_grad():
        router.selection.bias.fill_(float("nan"))
    MoEFFN(8, 8, 4, router, layer=2).eval()(torch.randn(1, 3, 8))


CASES = [
    (lambda: DirichletRouter(8, 4, k_target=0), ValueError, ["k_target"]),
    (lambda: DirichletRouter(8, 4, k_target=4), ValueError, ["k_target", "n_experts"]),
    (lambda: DirichletRouter(8, 4, k_target=1, tau_schedule=-1.0), ValueError, ["tau"]),
    (lambda: TauSchedule(start=0.0), ValueError, ["tau"]),
    (lambda: DirichletRouter(8, 4, k_target=1, alpha_min=0.0), ValueError, ["alpha_min"]),
    (lambda: DirichletRouter(8, 4, k_target=1, gate="mean"), ValueError, ["gate"]),
    (lambda: MoEFFN(16, 8, 4, DirichletRouter(8, 4, k_target=1)), ValueError, ["d_model", "match"]),
    (lambda: MoEFFN(8, 8, 5, DirichletRouter(8, 4, k_target=1)), ValueError, ["n_experts", "match"]),
    (lambda: DirichletRouter(8, 4, k_target=1)(torch.randn(2, 5)), ValueError, ["d_model", "mismatch"]),
    (_nan_router_forward, ValueError, ["non-finite", "layer 2"]),
    (lambda: TopKSoftmaxRouter(8, 4, k=4), ValueError, ["k"]),
    (lambda: MoEFFN(8, 8, 4, DirichletRouter(8, 4, k_target=1), dispatch="lazy"), ValueError, ["dispatch"]),
    (lambda: expected_active(torch.tensor([1.5, 0.2])), ValueError, ["pi", "probabilities"]),
    (lambda: DirichletRouter(8, 4, 1, kappa_z=INF), ValueError, ["kappa_z", "finite"]),
    (lambda: DirichletRouter(8, 4, 1, lambda_s=NAN), ValueError, ["lambda_s", "finite"]),
    (lambda: DirichletRouter(8, 4, 1, k_max=9), ValueError, ["k_max", "<= 4"]),
    (lambda: DirichletRouter(8, 4, 1, prior_pi=NAN), ValueError, ["prior_pi", "(0, 1)"]),
    (lambda: DirichletRouter(8, 4, 1).eval()(torch.zeros(0, 8)), ValueError, ["h", "at least one token"]),
    (lambda: LinearRamp(NAN), ValueError, ["frac", "[0, 1]"]),
    (lambda: TauSchedule(anneal_frac=NAN), ValueError, ["anneal_frac", "(0, 1]"]),
    (lambda: TauSchedule(start=INF), ValueError, ["tau start", "finite"]),
    (lambda: TopKSoftmaxRouter(8, 4, balance_coef=INF), ValueError, ["balance_coef", "finite"]),
    (lambda: NoisyTopKRouter(8, 4, w_importance=-1.0), ValueError, ["w_importance", ">= 0"]),
    (lambda: NoisyTopKRouter(8, 4, w_load=INF), ValueError, ["w_load", "finite"]),
    (lambda: ReLURouter(8, 4, lambda_step=INF), ValueError, ["lambda_step", "finite"]),
    (lambda: MoEFFN(8, 8, 4, TopKSoftmaxRouter(8, 4), layer=-1), ValueError, ["layer", ">= 0"]),
    (lambda: moe_ffn(None, 4), TypeError, ["router_factory", "callable"]),
    (lambda: moe_ffn(_topk, 4, d_hidden=0), ValueError, ["d_hidden", ">= 1"]),
    (lambda: moe_ffn(_topk, 4, dispatch="lazy"), ValueError, ["dispatch"]),
    (lambda: moe_aux_loss(None), TypeError, ["model", "nn.Module"]),
    (lambda: set_progress(None, 0.5), TypeError, ["model", "nn.Module"]),
    (lambda: set_progress(torch.nn.Linear(2, 2), NAN), ValueError, ["progress", "[0, 1]"]),
    (lambda: bernoulli_kl(torch.tensor([0.5]), 2.0), ValueError, ["pi0", "(0, 1)"]),
    (lambda: bernoulli_kl(torch.tensor([2.0]), 0.5), ValueError, ["pi", "probabilities"]),
    (lambda: combine_gates(torch.ones(2, 3), torch.ones(2, 4)), ValueError, ["theta", "shape"]),
    (lambda: combine_gates(torch.ones(2, 3), torch.ones(2, 3), delta=NAN), ValueError, ["delta", "finite"]),
    (lambda: dirichlet_kl(torch.tensor([-1.0, 1.0]), 1.0), ValueError, ["alpha", "> 0"]),
    (lambda: dirichlet_kl(torch.ones(2), 0.0), ValueError, ["alpha0", "> 0"]),
    (lambda: dirichlet_kl(torch.ones(2), torch.ones(3)), ValueError, ["alpha0", "broadcast"]),
    (lambda: expected_active(torch.tensor([NAN, 0.5])), ValueError, ["pi", "probabilities"]),
    (
        lambda: inference_gates(torch.rand(2, 4), torch.rand(2, 4) + 0.1, k_max=0),
        ValueError,
        ["k_max", ">= 1"],
    ),
    (lambda: inference_gates(torch.rand(2, 4), torch.rand(2, 3)), ValueError, ["alpha", "shape"]),
    (lambda: inference_gates(torch.rand(2, 4), -torch.rand(2, 4)), ValueError, ["alpha", "> 0"]),
    (lambda: relaxed_selection(torch.zeros(3).long(), 1.0), TypeError, ["logits", "floating-point"]),
    (lambda: sparsity_penalty(torch.rand(2, 4), NAN), ValueError, ["k_target", "finite"]),
    (lambda: sparsity_penalty(torch.rand(0, 4), 1.0), ValueError, ["pi", "at least one token"]),
    (
        lambda: switch_balance_loss(torch.rand(3, 4), torch.full((3, 2), 7), 4),
        ValueError,
        ["indices", "[0, 4)"],
    ),
    (
        lambda: switch_balance_loss(torch.rand(3, 4), torch.zeros(3, 2).long(), 5),
        ValueError,
        ["probs", "n_experts=5"],
    ),
    (lambda: switch_balance_loss(torch.rand(3, 4), torch.zeros(3, 2), 4), TypeError, ["indices", "integer"]),
    (lambda: DirichletRouter(8, 4, 1, variant="both"), ValueError, ["variant", "'paper'"]),
    (lambda: DirichletRouter(8, 4, 1, lambda_q=0.0), ValueError, ["lambda_q", "> 0"]),
    (lambda: DirichletRouter(8, 4, 1, recon_weight=NAN), ValueError, ["recon_weight", "finite"]),
    (lambda: DirichletRouter(8, 4, 1, kappa_theta=-1.0), ValueError, ["kappa_theta", ">= 0"]),
    (lambda: DirichletRouter(8, 4, 1, prior_alpha=2.0), ValueError, ["prior_alpha", "variant='abstract'"]),
    (lambda: DirichletRouter(8, 4, 1, variant="abstract", lambda_q=2.0), ValueError, ["lambda_q", "'paper'"]),
    (lambda: DirichletRouter(8, 4, 1, prior="flat"), TypeError, ["prior", "SpikeSlabPrior"]),
    (lambda: DirichletRouter(8, 4, 2, prior=SpikeSlabPrior(simpson=0.3)), ValueError, ["simpson", "k=2"]),
    (lambda: SpikeSlabPrior(mass_end=1.0), ValueError, ["mass_end", "(0, 1)"]),
    (lambda: SpikeSlabPrior(anneal_frac=0.0), ValueError, ["anneal_frac", "(0, 1]"]),
    (lambda: SpikeSlabPrior(simpson=INF), ValueError, ["simpson", "finite"]),
    (lambda: prior_base(0.9, 4, 4), ValueError, ["k", "(0, 4)"]),
    (lambda: simpson_concentration(0.1, [0.25] * 4), ValueError, ["simpson", "(0.25, 1)"]),
    (lambda: simpson_concentration(0.5, [0.5, 0.6]), ValueError, ["base", "probability vector"]),
    (lambda: spike_slab_concentrations(torch.tensor([1.5]), 1.0, 0.1, 1.0), ValueError, ["z", "[0, 1]"]),
    (lambda: spike_slab_concentrations(torch.ones(2), 1.0, -0.1, 1.0), ValueError, ["low", "> 0"]),
    (lambda: spike_slab_concentrations(torch.ones(2), 1.0, 0.1, 0.0), ValueError, ["scale", "> 0"]),
]
