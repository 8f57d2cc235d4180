"""Bad input to the DirMoE router, its baselines and the MoE FFN (OpenReview a15cDnzr6r)."""

import torch

from iclr26.attention.dirmoe import DirichletRouter, MoEFFN, TauSchedule, TopKSoftmaxRouter, expected_active


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
]
