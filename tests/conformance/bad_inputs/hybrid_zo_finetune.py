"""Bad input to the hybrid ZO/FO optimizers, LoRA and the reshuffling sampler (arXiv 2604.09940)."""

import torch
from torch import nn

from iclr26.optim.hybrid_zo_finetune import (
    FinetuneSpec,
    HybridZOFO,
    LoRADelta,
    LoRALinear,
    MeZO,
    ReshuffleLoader,
    TinyClassifier,
    accuracy,
    add_lora,
    finetune,
    key_sequences,
    perturb_,
    pretrain,
    spsa_projections,
    step_seed,
    task_a,
    task_b_mapping,
    zo_update_,
)

NAN, INF = float("nan"), float("inf")


def _w():
    return nn.Parameter(torch.ones(3))


def _step_with(loss):
    w = _w()
    return HybridZOFO([w], None, lr_zo=0.1, lr_fo=0.0, seed=0).step(lambda need_grad: loss)


def _inf_grad_step():
    theta, phi = _w(), _w()
    opt = HybridZOFO([theta], [phi], lr_zo=0.0, lr_fo=0.1)
    before = phi.detach().clone()
    try:
        opt.step(lambda need_grad: torch.sqrt(phi - 1).sum())  # loss 0, gradient +inf
    finally:
        assert torch.equal(phi.detach(), before), "a refused step must leave every parameter untouched"


def _spec(**kw):
    return FinetuneSpec(**({"steps": 1, "batch": 2, "eval_every": 1} | kw))


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
    (lambda: LoRALinear(nn.Linear(5, 3), r=4), ValueError, ["r (LoRA rank)", "<= 3", "got 4"]),
    (lambda: LoRADelta((2, 6, 4), 7), ValueError, ["r (LoRA rank)", "<= 6", "got 7"]),
    (lambda: task_b_mapping(4, 17, 0), ValueError, ["n_classes"]),
    (_inf_grad_step, ValueError, ["HybridZOFO", "NaN or infinite", "non-finite", "no parameter was updated"]),
    (lambda: MeZO([_w()], lr=INF), ValueError, ["lr", "finite"]),
    (lambda: MeZO([_w()], lr=True), ValueError, ["lr", "float"]),
    (lambda: HybridZOFO([_w()], [_w()], 0.1, INF), ValueError, ["lr_fo", "finite"]),
    (
        lambda: HybridZOFO([_w()], [_w()], 0.1, 0.1, fo_kwargs={"momentum": NAN}),
        ValueError,
        ["fo_kwargs", "momentum"],
    ),
    (lambda: MeZO([_w()], lr=0.1).load_state_dict({}), ValueError, ["state", "steps"]),
    (lambda: MeZO([_w()], lr=0.1).load_state_dict({"steps": -1}), ValueError, ["steps", ">= 0"]),
    (lambda: perturb_([torch.zeros(3)], -1, 1.0), ValueError, ["seed", ">= 0"]),
    (lambda: perturb_([torch.zeros(3)], 0, NAN), ValueError, ["scale", "finite"]),
    (lambda: perturb_(torch.zeros(3), 0, 1.0), TypeError, ["params", "iterable"]),
    (lambda: perturb_([torch.zeros(3).long()], 0, 1.0), TypeError, ["params", "floating"]),
    (lambda: spsa_projections([torch.zeros(3)], lambda g: 1.0, 0.0, [1]), ValueError, ["mu", "> 0"]),
    (lambda: spsa_projections([torch.zeros(3)], lambda g: 1.0, 0.1, [-1]), ValueError, ["seeds[0]", ">= 0"]),
    (lambda: spsa_projections([], lambda g: 1.0, 0.1, [1]), ValueError, ["params", "empty"]),
    (lambda: step_seed(1.5, 0), ValueError, ["seed", "int"]),
    (lambda: zo_update_([torch.zeros(3)], [1], [1.0], INF), ValueError, ["lr", "finite"]),
    (lambda: zo_update_([torch.zeros(3)], [1], [NAN], 0.1), ValueError, ["coeffs[0]", "finite"]),
    (lambda: zo_update_([torch.zeros(3)], [1, 2], [1.0], 0.1), ValueError, ["coeffs", "one number per seed"]),
    (lambda: LoRADelta((3, 3), 2, alpha=INF), ValueError, ["alpha", "finite"]),
    (lambda: add_lora(None, 2), TypeError, ["model", "nn.Module"]),
    (lambda: add_lora(TinyClassifier(), 2, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: ReshuffleLoader(5, 2).batches(-1), ValueError, ["epoch", ">= 0"]),
    (lambda: TinyClassifier(init_seed=-1), ValueError, ["init_seed", ">= 0"]),
    (
        lambda: accuracy(TinyClassifier(), torch.zeros(2, 16).long(), torch.zeros(3).long()),
        ValueError,
        ["y", "shape"],
    ),
    (
        lambda: accuracy(TinyClassifier(), torch.zeros(0, 16).long(), torch.zeros(0).long()),
        ValueError,
        ["x", "at least one"],
    ),
    (lambda: key_sequences(5, None), TypeError, ["rng", "Generator"]),
    (lambda: task_a(5, -1), ValueError, ["seed", ">= 0"]),
    (lambda: task_b_mapping(4, 2, -1), ValueError, ["task_seed", ">= 0"]),
    (lambda: _spec(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: _spec(mu=NAN), ValueError, ["mu", "finite"]),
    (lambda: _spec(lora_alpha=INF), ValueError, ["lora_alpha", "finite"]),
    (lambda: pretrain({"vocab_size": 32, "seq_len": 16}, 8, 1, INF, 4, 0), ValueError, ["lr", "finite"]),
    (lambda: pretrain({}, 8, 1, 0.1, 4, 0), ValueError, ["model_kw", "vocab_size"]),
    (
        lambda: finetune("mezo", (INF,), {}, {"vocab_size": 32, "seq_len": 16}, (), _spec(), 0),
        ValueError,
        ["lrs[0]", "finite"],
    ),
    (
        lambda: finetune("hybrid", (0.1,), {}, {"vocab_size": 32, "seq_len": 16}, (), _spec(), 0),
        ValueError,
        ["lrs", "2"],
    ),
]
