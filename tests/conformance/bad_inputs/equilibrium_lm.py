"""Bad input to the ELM components (OpenReview lqJT6xmuH3)."""

from dataclasses import replace

import torch

from iclr26.inference.equilibrium_lm import (
    ELMTrainer,
    FixedPointBlock,
    GPPOPolicy,
    GPPOSearch,
    LinearGroup,
    arithmetic_items,
    cached_decode_loss,
    count_parameters,
    find_fixed_point_block,
    group_activations,
    kv_bytes_per_token,
    linear_replacement,
    lm_weight,
    make_elm,
    one_step_reference_decode,
    replace_group,
    single_layer_replacement,
)
from iclr26.lab.tinylm import SMOKE_CONFIG, build_model


def _dense():
    return build_model(replace(SMOKE_CONFIG, n_layers=4), vocab_size=64)


NAN, INF = float("nan"), float("inf")
IDS = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(0))


def _trainer(**kw):
    dense = _dense()
    return ELMTrainer(make_elm(dense, 0, 2), dense, steps=kw.pop("steps", 2), **kw)


CASES = [
    (lambda: make_elm(_dense(), start=3, group_len=2), ValueError, ["start + group_len", "n_layers=4"]),
    (lambda: make_elm(_dense(), start=0, group_len=1), ValueError, ["group_len", ">= 2"]),
    (lambda: make_elm(torch.nn.Linear(2, 2), 0, 2), ValueError, ["unsupported architecture", "layer list"]),
    (lambda: make_elm(_dense(), "1", 2), TypeError, ["start", "int"]),
    (lambda: FixedPointBlock(torch.nn.Identity(), 0), ValueError, ["d_model"]),
    (lambda: FixedPointBlock(torch.nn.Identity(), 4, init="zeros"), ValueError, ["init"]),
    (
        lambda: FixedPointBlock(torch.nn.Identity(), 4)(torch.zeros(1, 2, 3)),
        ValueError,
        ["x must be", "(batch"],
    ),
    (lambda: GPPOPolicy(3, clip_eps=1.5), ValueError, ["clip_eps"]),
    (lambda: lm_weight(0.5, "linear"), ValueError, ["schedule"]),
    (lambda: lm_weight(NAN), ValueError, ["progress", "[0, 1]"]),
    (lambda: lm_weight(2.0), ValueError, ["progress", "[0, 1]"]),
    (lambda: _trainer(lr=INF), ValueError, ["lr", "finite"]),
    (lambda: _trainer(clip=INF), ValueError, ["clip", "finite"]),
    (lambda: _trainer(min_lr_ratio=NAN), ValueError, ["min_lr_ratio", "[0, 1]"]),
    (lambda: _trainer(weight_decay=-1.0), ValueError, ["weight_decay", ">= 0"]),
    (lambda: _trainer(lambda_d=NAN), ValueError, ["lambda_d", "finite"]),
    (lambda: _trainer(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: _trainer().step(torch.full((2, 8), 99)), ValueError, ["batch", "[0, 64)"]),
    (lambda: _trainer().step(IDS.float()), TypeError, ["batch", "integer"]),
    (lambda: _trainer().train(torch.randint(0, 64, (100,)), 0, 8), ValueError, ["batch_size", ">= 1"]),
    (lambda: _trainer().train(torch.full((100,), 99), 2, 8), ValueError, ["ids", "[0, 64)"]),
    (lambda: ELMTrainer(None, _dense(), steps=2), TypeError, ["model", "nn.Module"]),
    (lambda: FixedPointBlock(torch.nn.Identity(), 4, eps_exit=INF), ValueError, ["eps_exit", "finite"]),
    (lambda: FixedPointBlock(torch.nn.Identity(), 4, eps_exit=True), ValueError, ["eps_exit", "float"]),
    (lambda: FixedPointBlock(torch.nn.Identity(), 4, generator=5), TypeError, ["generator", "Generator"]),
    (
        lambda: FixedPointBlock(torch.nn.Identity(), 4)(torch.ones(1, 2, 4).long()),
        TypeError,
        ["x", "floating"],
    ),
    (
        lambda: FixedPointBlock(torch.nn.Identity(), 4)(torch.ones(1, 2, 4), n_iter_grad=True),
        ValueError,
        ["n_iter_grad", "int"],
    ),
    (lambda: GPPOPolicy(3, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: GPPOPolicy(3).record(7, 1.0, -1.0), ValueError, ["arm", "<= 2"]),
    (lambda: GPPOPolicy(3).record(1, 1.0, NAN), ValueError, ["logp_old", "finite"]),
    (lambda: GPPOPolicy(3).record(1, 1.0, 1.0), ValueError, ["logp_old", "<= 0"]),
    (lambda: GPPOSearch(_dense(), 2, [0.5]), ValueError, ["candidates[0]", "int"]),
    (lambda: GPPOSearch(_dense(), 2, [0], module_lr=INF), ValueError, ["module_lr", "finite"]),
    (lambda: LinearGroup(torch.ones(2, 3), torch.ones(2)), ValueError, ["bias", "shape"]),
    (lambda: LinearGroup(torch.ones(2, 2).long(), torch.ones(2).long()), TypeError, ["weight", "floating"]),
    (lambda: arithmetic_items("Q: 1+2= A: 3", 0), ValueError, ["n", ">= 1"]),
    (lambda: arithmetic_items(None, 2), TypeError, ["text", "str"]),
    (lambda: count_parameters([1]), TypeError, ["modules[0]", "nn.Module"]),
    (lambda: find_fixed_point_block(None), TypeError, ["model", "nn.Module"]),
    (lambda: group_activations(_dense(), torch.full((2, 8), 99)), ValueError, ["batch", "[0, 64)"]),
    (lambda: kv_bytes_per_token(_dense(), seq_len=0), ValueError, ["seq_len", ">= 1"]),
    (lambda: kv_bytes_per_token(_dense(), vocab_hi=999), ValueError, ["vocab_hi", "<= 64"]),
    (lambda: cached_decode_loss(_dense(), torch.zeros(2, 4)), TypeError, ["windows", "integer"]),
    (lambda: linear_replacement(_dense(), 0, 2, IDS, ridge=NAN), ValueError, ["ridge", "finite"]),
    (lambda: make_elm(_dense(), 0, 2, max_iter=0), ValueError, ["max_iter", ">= 1"]),
    (lambda: make_elm(_dense(), 0, 2, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_elm(_dense(), 0, 2, eps_exit="x"), ValueError, ["eps_exit", "auto"]),
    (
        lambda: one_step_reference_decode(make_elm(_dense(), 0, 2), torch.full((1, 3), 99), 2),
        ValueError,
        ["input_ids", "[0, 64)"],
    ),
    (
        lambda: one_step_reference_decode(
            make_elm(_dense(), 0, 2), torch.zeros(1, 3).long(), 2, eos_token_id=999
        ),
        ValueError,
        ["eos_token_id", "<= 63"],
    ),
    (lambda: replace_group(_dense(), 0, 2, 5), TypeError, ["replacement", "nn.Module"]),
    (lambda: single_layer_replacement(_dense(), 9, 2), ValueError, ["start + group_len", "n_layers=4"]),
]
