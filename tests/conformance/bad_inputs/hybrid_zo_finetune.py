"""Bad input to the hybrid ZO/FO optimizers, LoRA and the reshuffling sampler (arXiv 2604.09940)."""

import torch
from torch import nn

from iclr26.optim.hybrid_zo_finetune import HybridZOFO, LoRALinear, MeZO, ReshuffleLoader, task_b_mapping


def _w():
    return nn.Parameter(torch.ones(3))


def _step_with(loss):
    w = _w()
    return HybridZOFO([w], None, lr_zo=0.1, lr_fo=0.0, seed=0).step(lambda need_grad: loss)


CASES = [
    (lambda: HybridZOFO([_w()], [_w()], lr_zo=0.1, lr_fo=0.1, mu=0.0), ValueError, ["mu", "> 0"]),
    (lambda: HybridZOFO([_w()], [_w()], lr_zo=-1e-3, lr_fo=0.1), ValueError, ["lr_zo", ">= 0"]),
    (lambda: HybridZOFO([_w()], [_w()], lr_zo=0.1, lr_fo=-0.1), ValueError, ["lr_fo", ">= 0"]),
    (lambda: (lambda w: HybridZOFO([w], [w], lr_zo=0.1, lr_fo=0.1))(_w()), ValueError, ["overlap"]),
    (lambda: _step_with(torch.ones(2)), ValueError, ["scalar", "shape"]),
    (lambda: _step_with(torch.tensor(float("inf"))), ValueError, ["non-finite"]),
    (lambda: HybridZOFO([_w()], [_w()], 0.1, 0.1, fo_optimizer="lion"), ValueError, ["fo_optimizer"]),
    (lambda: HybridZOFO(None, None, 0.1, 0.1), ValueError, ["empty"]),
    (lambda: MeZO([_w()], lr=0.1, n_perturb=0), ValueError, ["n_perturb"]),
    (lambda: ReshuffleLoader(0, 4), ValueError, ["n", ">= 1"]),
    (lambda: LoRALinear(nn.Linear(3, 3), r=0), ValueError, ["r", "rank"]),
    (lambda: task_b_mapping(4, 17, 0), ValueError, ["n_classes"]),
]
