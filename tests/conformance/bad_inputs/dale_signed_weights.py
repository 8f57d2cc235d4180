"""Bad input to the signed-segregation measures (OpenReview lnTX3GoeTY)."""

import torch
from torch import nn

from iclr26.mechanisms.dale_signed_weights import (
    SmallCNN,
    ZooConfig,
    accuracy,
    dale_index,
    feature_viz,
    graded_ablation,
    input_attribution,
    make_texture_digits,
    mask_fraction,
    pgd_attack,
    random_sign_split,
    sign_split_logits,
    spatial_spread,
    spectral_centroid,
    train_cnn,
)

_LIN = nn.Sequential(nn.Flatten(), nn.Linear(4, 2))
_X = torch.rand(4, 1, 32, 32)
_Y = torch.tensor([0, 1, 2, 3])
NAN, INF = float("nan"), float("inf")

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
    (lambda: make_texture_digits(0, seed=0), ValueError, ["n must be an int >= 1", "got 0"]),
    (lambda: spectral_centroid(torch.ones(4)), ValueError, ["images", "2 dims"]),
    (lambda: SmallCNN(8, activation="gelu"), ValueError, ["activation"]),
    (lambda: ZooConfig(lr=INF), ValueError, ["lr", "finite"]),
    (lambda: ZooConfig(lr=NAN), ValueError, ["lr", "finite"]),
    (lambda: ZooConfig(weight_decay=NAN), ValueError, ["weight_decay", "finite"]),
    (lambda: ZooConfig(eps=INF), ValueError, ["eps", "finite"]),
    (lambda: ZooConfig(batch=0), ValueError, ["batch", ">= 1"]),
    (lambda: ZooConfig(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: train_cnn(ZooConfig(epochs=1), _X, torch.tensor([0, 1, 2, 30])), ValueError, ["y", "[0, 10)"]),
    (lambda: train_cnn(ZooConfig(epochs=1), _X.long(), _Y), TypeError, ["x", "floating"]),
    (lambda: pgd_attack(SmallCNN(2), _X, _Y, NAN, 3), ValueError, ["eps", "finite"]),
    (lambda: pgd_attack(SmallCNN(2), _X, _Y, 0.1, 0), ValueError, ["steps", ">= 1"]),
    (lambda: accuracy(SmallCNN(2), _X, _Y, batch=0), ValueError, ["batch", ">= 1"]),
    (lambda: accuracy(SmallCNN(2), _X, _Y[:2]), ValueError, ["x and y", "equal length"]),
    (lambda: SmallCNN(2)(torch.rand(1, 3, 32, 32)), ValueError, ["x", "shape"]),
    (lambda: SmallCNN(2, n_classes=1), ValueError, ["n_classes", ">= 2"]),
    (lambda: graded_ablation(torch.ones(2, 2), NAN, "positive"), ValueError, ["alpha", "[0, 1]"]),
    (lambda: dale_index(torch.ones(2, 3), axis=1.5), ValueError, ["axis", "int"]),
    (lambda: random_sign_split(torch.ones(2, 2), None), TypeError, ["generator", "Generator"]),
    (lambda: feature_viz(_LIN, lambda o: o[:, 0].mean(), steps=1, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: feature_viz(_LIN, lambda o: o[:, 0].mean(), steps=1, jitter=-1), ValueError, ["jitter", ">= 0"]),
    (lambda: feature_viz(None, lambda o: o, steps=1), TypeError, ["model", "nn.Module"]),
    (lambda: input_attribution(None, _X), TypeError, ["fn", "callable"]),
    (lambda: input_attribution(lambda x: x.sum((1, 2, 3)), _X.long()), TypeError, ["x", "floating"]),
    (lambda: spatial_spread(torch.ones(2, 4, 4).long()), TypeError, ["attribution", "floating"]),
    (lambda: make_texture_digits(4, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_texture_digits(4, seed=0, mask_threshold=NAN), ValueError, ["mask_threshold"]),
]
