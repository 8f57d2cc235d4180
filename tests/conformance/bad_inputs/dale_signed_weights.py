"""Bad input to the signed-segregation measures (OpenReview lnTX3GoeTY)."""

import torch
from torch import nn

from iclr26.mechanisms.dale_signed_weights import (
    SmallCNN,
    dale_index,
    feature_viz,
    graded_ablation,
    make_texture_digits,
    mask_fraction,
    sign_split_logits,
    spectral_centroid,
)

_LIN = nn.Sequential(nn.Flatten(), nn.Linear(4, 2))

CASES = [
    (lambda: dale_index(torch.ones(5)), ValueError, ["weight", "2 dims"]),
    (lambda: dale_index(torch.ones(2, 3), axis=4), ValueError, ["axis", "range"]),
    (lambda: dale_index([[1.0, -1.0]]), TypeError, ["weight", "Tensor"]),
    (
        lambda: mask_fraction(torch.ones(2, 4, 4), torch.zeros(2, 4, 4, dtype=torch.bool)),
        ValueError,
        ["mask", "non-empty"],
    ),
    (lambda: mask_fraction(torch.ones(2, 4, 4), torch.ones(2, 3, 3)), ValueError, ["same shape"]),
    (lambda: graded_ablation(torch.ones(2, 2), 1.2, "positive"), ValueError, ["alpha"]),
    (lambda: graded_ablation(torch.ones(2, 2), 0.5, "both"), ValueError, ["sign"]),
    (lambda: graded_ablation(torch.ones(2), 0.5, "positive"), ValueError, ["weight", "2 dims"]),
    (
        lambda: sign_split_logits(SmallCNN(2), "convs.0", torch.ones(1, 1, 32, 32)),
        TypeError,
        ["layer", "Linear"],
    ),
    (lambda: feature_viz(_LIN, lambda o: o[:, 0].mean(), steps=0), ValueError, ["steps"]),
    (lambda: feature_viz(_LIN, lambda o: o[:, 0].mean(), param="gan"), ValueError, ["param"]),
    (lambda: make_texture_digits(0, seed=0), ValueError, ["n", "positive"]),
    (lambda: spectral_centroid(torch.ones(4)), ValueError, ["images", "2 dims"]),
    (lambda: SmallCNN(8, activation="gelu"), ValueError, ["activation"]),
]
