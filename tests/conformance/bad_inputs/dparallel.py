"""Bad input to dParallel's decoder, masking, loss and trainer (arXiv 2509.26488)."""

import torch
from torch import nn

from iclr26.inference.dparallel import (
    CertaintyForcingTrainer,
    HFMaskedDiffusionAdapter,
    certainty_forcing_loss,
    generate,
    semi_ar_masks,
)
from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer


def _model() -> MaskedDiffusionTransformer:
    return MaskedDiffusionTransformer(n_tokens=5, seq_len=12, d_model=8, n_layers=1, n_heads=2, init_seed=0)


P = torch.zeros(1, 4, dtype=torch.long)
LOGITS = torch.zeros(1, 3, 6)
LABELS = torch.zeros(1, 3, dtype=torch.long)
MASK = torch.ones(1, 3, dtype=torch.bool)
IDS = torch.zeros(2, 8, dtype=torch.long)

CASES = [
    (
        lambda: generate(_model(), P, gen_len=6, block_size=4),
        ValueError,
        ["gen_len", "divisible", "block_size"],
    ),
    (lambda: generate(_model(), P, gen_len=8, block_size=4, steps=3), ValueError, ["steps", "divisible"]),
    (lambda: generate(_model(), P, 8, 4, entropy_threshold=-0.1), ValueError, ["entropy_threshold", ">= 0"]),
    (lambda: generate(_model(), P, 8, 4, confidence_threshold=1.5), ValueError, ["confidence_threshold"]),
    (
        lambda: generate(_model(), P, 8, 4, entropy_threshold=0.5, confidence_threshold=0.9),
        ValueError,
        ["at most one"],
    ),
    (lambda: generate(_model(), torch.full((1, 4), 5), 8, 4), ValueError, ["prompt_ids", "mask id"]),
    (lambda: generate(_model(), P, 8, 0), ValueError, ["block_size", ">= 1"]),
    (
        lambda: certainty_forcing_loss(LOGITS, LABELS, MASK, temperature=0.0),
        ValueError,
        ["temperature", "> 0"],
    ),
    (lambda: certainty_forcing_loss(LOGITS, LABELS, MASK, beta=-1.0), ValueError, ["beta", ">= 0"]),
    (lambda: certainty_forcing_loss(LOGITS, LABELS[:, :2], MASK), ValueError, ["labels", "shape"]),
    (lambda: semi_ar_masks(IDS, 2, 4, rate=1.5, mask_id=9), ValueError, ["rate"]),
    (lambda: semi_ar_masks(IDS, 9, 4, mask_id=9), ValueError, ["prompt_len"]),
    (lambda: semi_ar_masks(IDS, 2, 4), ValueError, ["mask_id"]),
    (lambda: CertaintyForcingTrainer(_model(), block_size=4, temperature=-1.0), ValueError, ["temperature"]),
    (lambda: HFMaskedDiffusionAdapter(nn.Linear(2, 2)), ValueError, ["mask_id"]),
]
