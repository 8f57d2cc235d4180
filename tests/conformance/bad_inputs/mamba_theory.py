"""Bad input to the Mamba training-dynamics reproduction (arXiv 2602.12499): data generators, model, trainer."""

import torch

from iclr26.architectures.mamba_theory import (
    AttentionClassifier,
    SelectiveSSMClassifier,
    SequenceData,
    classification_error,
    locality_labels,
    majority_labels,
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

_NAN = float("nan")

CASES += [
    (lambda: _maj(M=2.5), ValueError, ["M", "2.5"]),
    (lambda: _maj(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: _maj(seed=1.5), ValueError, ["seed", "1.5"]),
    (lambda: _maj(dtype=torch.int64), TypeError, ["dtype", "floating-point"]),
    (lambda: _maj(sigma=float("inf")), ValueError, ["sigma", "finite"]),
    (lambda: _maj(alpha_r=_NAN), ValueError, ["alpha_r", "[0, 1]"]),
    (lambda: _loc(M=2), ValueError, ["M", ">= 3"]),
    (lambda: _loc(dL_pos=1.5), ValueError, ["dL_pos", "1.5"]),
    (lambda: orthonormal_patterns(4, 3, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: orthonormal_patterns(4, 3, dtype=torch.int64), TypeError, ["dtype", "floating-point"]),
    (lambda: majority_labels(torch.zeros(3, dtype=torch.long)), ValueError, ["pattern_ids", "2-D"]),
    (lambda: majority_labels(torch.zeros(2, 3)), TypeError, ["pattern_ids", "integer"]),
    (lambda: locality_labels(torch.full((2, 3), -1)), ValueError, ["pattern_ids", ">= 0"]),
    (
        lambda: SequenceData(
            torch.zeros(2, 3, 4), torch.zeros(3), torch.eye(4), torch.zeros(2, 3, dtype=torch.long)
        ),
        ValueError,
        ["y", "shape"],
    ),
    (
        lambda: SequenceData(
            torch.full((2, 3, 4), _NAN), torch.zeros(2), torch.eye(4), torch.zeros(2, 3, dtype=torch.long)
        ),
        ValueError,
        ["X", "finite"],
    ),
    (lambda: SelectiveSSMClassifier(True), ValueError, ["d", "True"]),
    (lambda: SelectiveSSMClassifier(8, init_std=float("inf")), ValueError, ["init_std", "finite"]),
    (lambda: SelectiveSSMClassifier(8, seed=1.5), ValueError, ["seed", "1.5"]),
    (lambda: SelectiveSSMClassifier(8, train_a="no"), TypeError, ["train_a", "bool"]),
    (lambda: SelectiveSSMClassifier(8, freeze_gate="no"), TypeError, ["freeze_gate", "bool"]),
    (lambda: SelectiveSSMClassifier(8, dtype=torch.int64), TypeError, ["dtype", "floating-point"]),
    (
        lambda: SelectiveSSMClassifier(8)(torch.zeros(2, 5, 8, dtype=torch.float64)),
        TypeError,
        ["X", "dtype"],
    ),
    (lambda: AttentionClassifier(8, seed=-1), ValueError, ["seed", ">= 0"]),
    (
        lambda: classification_error(SelectiveSSMClassifier(16, m=4), None),
        TypeError,
        ["data", "SequenceData"],
    ),
    (lambda: train_gd(None, _maj(), 0.1, 5), TypeError, ["model", "Module"]),
    (lambda: train_gd(torch.nn.Linear(16, 1), _maj(), 0.1, 5), TypeError, ["model.w", "gate"]),
    (
        lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 2, test_data=3),
        TypeError,
        ["test_data"],
    ),
    (
        lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 2, full_batch="no"),
        TypeError,
        ["full_batch"],
    ),
    (
        lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 2, eval_every=True),
        ValueError,
        ["eval_every"],
    ),
    (
        lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 2, target_error="a"),
        ValueError,
        ["target_error", "'a'"],
    ),
    (
        lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 2, full_batch=False, batch_size=True),
        ValueError,
        ["batch_size", "True"],
    ),
    (
        lambda: train_gd(SelectiveSSMClassifier(16, m=4), _maj(), 0.1, 2, seed=-1),
        ValueError,
        ["seed", ">= 0"],
    ),
]
