"""Bad input to RACS and Alice (arXiv 2502.07752)."""

import torch
from torch import nn

from iclr26.optim.racs_alice import RACS, Alice


def _w():
    return [nn.Parameter(torch.zeros(3, 4))]


def _sparse_step():
    w = nn.Parameter(torch.zeros(3, 4))
    opt = RACS([w])
    w.grad = torch.zeros(3, 4).to_sparse()
    opt.step()


CASES = [
    (lambda: RACS(_w(), lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: Alice(_w(), lr=float("nan")), ValueError, ["lr", "finite"]),
    (lambda: Alice(_w(), seed=1.5), ValueError, ["seed", "int"]),
    (lambda: RACS(_w(), lr=-1.0), ValueError, ["lr", ">= 0"]),
    (lambda: RACS(_w(), beta=1.0), ValueError, ["beta", "[0, 1)"]),
    (lambda: RACS(_w(), gamma=0.5), ValueError, ["gamma", ">= 1"]),
    (lambda: RACS(_w(), normalize="max"), ValueError, ["normalize"]),
    (lambda: RACS([nn.Parameter(torch.zeros(5))]), ValueError, ["2-D", "AdamW", "fallback"]),
    (lambda: Alice(_w(), betas=(0.9, 1.2, 0.99)), ValueError, ["betas[1]", "[0, 1)"]),
    (lambda: Alice(_w(), rank=0), ValueError, ["rank", ">= 1"]),
    (lambda: Alice(_w(), rank=4, leading_basis=8), ValueError, ["leading_basis", "<= rank"]),
    (lambda: Alice(_w(), alpha_c=-0.1), ValueError, ["alpha_c", ">= 0"]),
    (lambda: Alice(_w(), update_interval=0), ValueError, ["update_interval"]),
    (lambda: Alice([nn.Parameter(torch.zeros(2, 2, dtype=torch.complex64))]), TypeError, ["complex"]),
    (_sparse_step, ValueError, ["sparse"]),
    (lambda: RACS.from_model("not a model"), TypeError, ["model"]),
]
