"""Bad input to the IC-SSL model, tasks and baselines (arXiv 2512.15934)."""

import numpy as np
import torch

from iclr26.mechanisms.ic_ssl import (
    ICSSLTransformer,
    PowerIterLayer,
    RBFAttention,
    eigenmap_logreg,
    make_task,
    tokens_from_task,
)


def _no_labels():
    t = make_task("moons", 16, 4, 8, 0, np.random.default_rng(0))
    return eigenmap_logreg(t)


CASES = [
    (
        lambda: tokens_from_task(np.zeros((5, 8)), -np.ones(5), np.zeros((2, 6)), 2),
        ValueError,
        ["feature dims"],
    ),
    (
        lambda: ICSSLTransformer(8, 2)(torch.zeros(1, 6, 9), torch.zeros(1, 6, dtype=torch.bool)),
        ValueError,
        ["feature dim mismatch"],
    ),
    (lambda: make_task("cubes", 16, 4, 8, 1, np.random.default_rng(0)), ValueError, ["family"]),
    (
        lambda: make_task("moons", 4, 4, 8, 3, np.random.default_rng(0)),
        ValueError,
        ["labels_per_class", "exceeds"],
    ),
    (lambda: make_task("swiss_roll", 16, 4, 2, 1, np.random.default_rng(0)), ValueError, ["d must be"]),
    (lambda: RBFAttention(h=-1.0), ValueError, ["h must be", "positive"]),
    (lambda: PowerIterLayer(4, eta=1.5), ValueError, ["eta must lie"]),
    (lambda: ICSSLTransformer(8, 2, k=1), ValueError, ["k must be"]),
    (
        lambda: tokens_from_task(np.zeros((5, 8)), np.full(5, 4), np.zeros((2, 8)), 2),
        ValueError,
        ["y_ctx labels"],
    ),
    (_no_labels, ValueError, ["no labelled"]),
]
