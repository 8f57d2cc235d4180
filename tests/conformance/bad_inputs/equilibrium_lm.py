"""Bad input to the ELM components (OpenReview lqJT6xmuH3)."""

from dataclasses import replace

import torch

from iclr26.inference.equilibrium_lm import FixedPointBlock, GPPOPolicy, lm_weight, make_elm
from iclr26.lab.tinylm import SMOKE_CONFIG, build_model


def _dense():
    return build_model(replace(SMOKE_CONFIG, n_layers=4), vocab_size=64)


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
]
