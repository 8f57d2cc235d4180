"""Bad input to the Mamba training-dynamics reproduction (arXiv 2602.12499): data generators, model, trainer."""

import torch

from iclr26.architectures.mamba_theory import (
    SelectiveSSMClassifier,
    make_locality_data,
    make_majority_data,
    orthonormal_patterns,
    train_gd,
)


def _maj(**kw):
    args = dict(n=4, L=20, d=16, M=8, alpha_r=0.3, alpha_c=0.1, sigma=0.1, seed=0) | kw
    return make_majority_data(**args)


def _loc(**kw):
    args = dict(n=4, L=10, d=16, M=8, dL_pos=1, dL_neg=3, sigma=0.1, seed=0) | kw
    return make_locality_data(**args)


CASES = [
    (lambda: _maj(alpha_r=0.1, alpha_c=0.2), ValueError, ["alpha_c", "alpha_r"]),
    (lambda: _maj(alpha_r=0.2, alpha_c=0.2), ValueError, ["alpha_c", "alpha_r"]),
    (lambda: _maj(alpha_r=0.7, alpha_c=0.4), ValueError, ["alpha_r + alpha_c", "<= 1"]),
    (lambda: _maj(alpha_r=0.33), ValueError, ["alpha_r", "integer"]),
    (lambda: _maj(M=1), ValueError, ["M", ">= 2"]),
    (lambda: _maj(d=4, M=8), ValueError, ["orthonormal", "d >= M"]),
    (lambda: _maj(sigma=-0.1), ValueError, ["sigma", ">= 0"]),
    (lambda: _loc(dL_pos=3, dL_neg=3), ValueError, ["dL_pos", "dL_neg"]),
    (lambda: _loc(dL_pos=2, dL_neg=10), ValueError, ["dL_neg", "< L"]),
    (lambda: orthonormal_patterns(3, 5), ValueError, ["orthonormal"]),
    (lambda: _maj(patterns=torch.ones(8, 16)), ValueError, ["patterns", "orthonormal"]),
    (lambda: SelectiveSSMClassifier(8, decay="linear"), ValueError, ["decay"]),
    (lambda: SelectiveSSMClassifier(8, m=3), ValueError, ["m", "even"]),
    (lambda: SelectiveSSMClassifier(8)(torch.ones(2, 5, 7)), ValueError, ["X", "shape"]),
    (lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.0, 5), ValueError, ["eta", "> 0"]),
    (lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 5, loss="mse"), ValueError, ["loss"]),
]
