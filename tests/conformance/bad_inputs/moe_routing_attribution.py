"""Bad input to the Routing-Contribution decomposition (OpenReview BqyPLOkxFY)."""

import torch

from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.moe_routing_attribution import (
    TinyMoEConfig,
    aarv,
    cofiring,
    decompose,
    influence,
    linear_subscores,
    rank_change,
    tiny_moe_lm,
    train_tiny_moe,
)

NAN, INF = float("nan"), float("inf")

_CFG = TinyMoEConfig(n_layers=2, d_model=8, n_heads=2, n_experts=4, d_hidden=8, vocab_size=20, seq_len=6)


def _moe():
    return tiny_moe_lm(_CFG, init_seed=0)


def _dense():
    return Transformer(vocab_size=20, seq_len=6, d_model=8, n_layers=2, n_heads=2, init_seed=0)


_T = torch.zeros(2, 6, dtype=torch.long)

CASES = [
    (lambda: decompose(_dense(), _T, 0), ValueError, ["layer", "no router"]),
    (
        lambda: decompose(_moe(), torch.zeros(2, 9, dtype=torch.long), 0),
        ValueError,
        ["tokens", "exceeds", "seq_len"],
    ),
    (lambda: decompose(_moe(), _T, 5), ValueError, ["layer (a block index)", "int >= 0 and <= 1", "got 5"]),
    (lambda: decompose(_moe(), _T, 1.0), TypeError, ["layer", "int"]),
    (lambda: decompose(_moe(), torch.zeros(6, dtype=torch.long), 0), ValueError, ["tokens", "shape"]),
    (lambda: aarv(_moe(), _T, "moe1", 1), ValueError, ["component", "does not feed"]),
    (
        lambda: rank_change(torch.zeros(3, 4), torch.zeros(3, 4), 5),
        ValueError,
        ["k must be an int", ">= 1 and <= 4", "got 5"],
    ),
    (lambda: influence(torch.zeros(3, 1)), ValueError, ["sub", "n_experts"]),
    (lambda: cofiring(torch.zeros(3, 4), torch.zeros(5, 4)), ValueError, ["firing_a", "equal tokens"]),
    (
        lambda: linear_subscores({}, torch.nn.LayerNorm(4), torch.zeros(2, 4)),
        ValueError,
        ["components", "empty"],
    ),
    (lambda: tiny_moe_lm(TinyMoEConfig(n_experts=2, k=3)), ValueError, ["k", "n_experts"]),
    (lambda: TinyMoEConfig(lr=INF), ValueError, ["lr", "finite"]),
    (lambda: TinyMoEConfig(lr=NAN), ValueError, ["lr", "finite"]),
    (lambda: TinyMoEConfig(balance_coef=NAN), ValueError, ["balance_coef", "finite"]),
    (lambda: TinyMoEConfig(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: TinyMoEConfig(n_experts=1, k=1), ValueError, ["n_experts", ">= 2"]),
    (lambda: tiny_moe_lm(_CFG, init_seed=-1), ValueError, ["init_seed", ">= 0"]),
    (lambda: tiny_moe_lm(None), TypeError, ["cfg", "TinyMoEConfig"]),
    (lambda: train_tiny_moe(_CFG, -1), ValueError, ["seed", ">= 0"]),
    (
        lambda: cofiring(torch.zeros(4, 2), torch.zeros(4, 2), n_shuffles=1.5),
        ValueError,
        ["n_shuffles", "int"],
    ),
    (lambda: cofiring(torch.zeros(4, 2), torch.zeros(4, 2), seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: cofiring(torch.full((4, 2), NAN), torch.zeros(4, 2)), ValueError, ["firing_a", "finite"]),
    (lambda: influence(torch.zeros(4, 3).long()), TypeError, ["sub", "floating"]),
    (lambda: rank_change(torch.full((4, 3), NAN), torch.zeros(4, 3), 1), ValueError, ["scores", "NaN"]),
]
