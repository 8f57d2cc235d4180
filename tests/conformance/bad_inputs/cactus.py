"""Bad input to the Cactus verifiers and generation (arXiv 2604.04987)."""

import torch

from iclr26.inference.cactus import (
    CactusVerifier,
    SpSVerifier,
    TableLM,
    TopKVerifier,
    cactus_h,
    one_step_output_distribution,
    speculative_generate,
)

Q = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
P = torch.tensor([[0.2, 0.6, 0.2]], dtype=torch.float64)
T = TableLM(torch.full((3, 3), 1 / 3, dtype=torch.float64))

CASES = [
    (lambda: cactus_h(Q, torch.tensor([0]), -0.1), ValueError, ["delta", ">= 0"]),
    (lambda: CactusVerifier(delta=-1.0), ValueError, ["delta"]),
    (lambda: cactus_h(Q * 2, torch.tensor([0]), 0.1), ValueError, ["q", "sum to 1"]),
    (lambda: cactus_h(Q, torch.tensor([0]), 0.1, solver="newton"), ValueError, ["solver"]),
    (lambda: cactus_h(Q, torch.tensor([0, 1]), 0.1), ValueError, ["n", "shape"]),
    (
        lambda: one_step_output_distribution(P[:, :2] / P[:, :2].sum(), Q, SpSVerifier()),
        ValueError,
        ["shape"],
    ),
    (
        lambda: SpSVerifier().verify(Q[None], P[None] * 3, torch.tensor([[0]])),
        ValueError,
        ["draft_probs", "sum to 1"],
    ),
    (
        lambda: SpSVerifier().verify(Q[None], P[None], torch.tensor([[0, 1]])),
        ValueError,
        ["draft_ids", "shape"],
    ),
    (lambda: speculative_generate(T, T, torch.tensor([[0]]), SpSVerifier(), gamma=0), ValueError, ["gamma"]),
    (
        lambda: speculative_generate(T, T, torch.tensor([[0]]), SpSVerifier(), temperature=0.0),
        ValueError,
        ["temperature"],
    ),
    (lambda: TopKVerifier(k=0), ValueError, ["k"]),
]
