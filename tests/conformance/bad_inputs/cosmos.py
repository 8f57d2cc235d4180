"""Bad input to the COSMOS optimizer and its baseline factory (arXiv 2502.17410)."""

import torch
from torch import nn

from iclr26.optim.cosmos import COSMOS, newton_schulz5
from iclr26.optim.cosmos.baselines import make_optimizer


def _w() -> list[nn.Parameter]:
    return [nn.Parameter(torch.zeros(4, 6))]


def _sparse_step() -> None:
    w = nn.Parameter(torch.zeros(4, 6))
    opt = COSMOS([w], rank=2)
    w.grad = torch.zeros(4, 6).to_sparse()
    opt.step()


def _complex_step() -> None:
    w = nn.Parameter(torch.zeros(4, 6, dtype=torch.complex64))
    opt = COSMOS([w], rank=2)
    w.grad = torch.ones(4, 6, dtype=torch.complex64)
    opt.step()


def _nan_step() -> None:
    w, b = nn.Parameter(torch.ones(4, 6)), nn.Parameter(torch.ones(6))
    opt = COSMOS([w, b], rank=2)
    w.grad, b.grad = torch.ones(4, 6), torch.full((6,), float("nan"))
    before = w.detach().clone()
    try:
        opt.step()
    finally:
        assert torch.equal(w.detach(), before), "a refused step must leave every parameter untouched"


CASES = [
    (_nan_step, ValueError, ["gradient of parameter 1", "NaN or infinite", "no parameter was updated"]),
    (lambda: COSMOS(_w(), lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: COSMOS(_w(), lr=float("nan")), ValueError, ["lr", "finite"]),
    (lambda: COSMOS(_w(), rank=0), ValueError, ["rank", ">= 1"]),
    (lambda: COSMOS(_w(), rank=5, strict=True), ValueError, ["rank", "exceeds"]),
    (lambda: COSMOS(_w(), lr=-1.0), ValueError, ["lr", ">= 0"]),
    (lambda: COSMOS(_w(), eps=-1e-8), ValueError, ["eps", ">= 0"]),
    (lambda: COSMOS(_w(), weight_decay=-0.1), ValueError, ["weight_decay", ">= 0"]),
    (lambda: COSMOS(_w(), betas=(0.9, 1.0)), ValueError, ["betas[1]", "[0, 1)"]),
    (lambda: COSMOS(_w(), betas=(0.9,)), ValueError, ["betas", "pair"]),
    (lambda: COSMOS(_w(), variant="soap"), ValueError, ["variant"]),
    (lambda: COSMOS(_w(), ns_steps=-1), ValueError, ["ns_steps"]),
    (lambda: COSMOS([{"params": _w(), "rank": 2.5}]), ValueError, ["rank", "int"]),
    (_sparse_step, ValueError, ["sparse"]),
    (_complex_step, ValueError, ["complex"]),
    (lambda: newton_schulz5(torch.zeros(3)), ValueError, ["2-D"]),
    (lambda: make_optimizer("adam", nn.Linear(2, 2), 1e-3), ValueError, ["name"]),
    (lambda: make_optimizer("adamw", nn.Linear(2, 2), 0.0), ValueError, ["lr"]),
]
