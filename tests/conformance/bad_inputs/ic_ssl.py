"""Bad input to the IC-SSL model, tasks and baselines (arXiv 2512.15934)."""

import numpy as np
import torch

from iclr26.mechanisms.ic_ssl import (
    GDSoftmaxLayer,
    ICSSLTransformer,
    PlainICLTransformer,
    PowerIterLayer,
    RBFAttention,
    eigenmap_logreg,
    label_spreading,
    laplacian_eigenmap,
    make_task,
    orthonormalize,
    softmax_regression_gd,
    task_batch,
    tokens_from_task,
)

NAN, INF = float("nan"), float("inf")
RNG = np.random.default_rng(0)
TASK = make_task("moons", 40, 10, 4, 2, np.random.default_rng(0))


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
    (lambda: PowerIterLayer(4, eta=1.5), ValueError, ["eta", "(0, 1)"]),
    (lambda: ICSSLTransformer(8, 2, k=1), ValueError, ["k must be"]),
    (
        lambda: tokens_from_task(np.zeros((5, 8)), np.full(5, 4), np.zeros((2, 8)), 2),
        ValueError,
        ["y_ctx labels"],
    ),
    (_no_labels, ValueError, ["no labelled"]),
    (lambda: GDSoftmaxLayer(4, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: GDSoftmaxLayer(0), ValueError, ["k", ">= 1"]),
    (lambda: PowerIterLayer(0), ValueError, ["k", ">= 1"]),
    (lambda: RBFAttention(h=INF), ValueError, ["h", "finite"]),
    (lambda: ICSSLTransformer(4, 2, lr=INF), ValueError, ["lr", "finite"]),
    (
        lambda: ICSSLTransformer(4, 2)(torch.zeros(1, 5, 6).long(), torch.zeros(1, 5, dtype=torch.bool)),
        TypeError,
        ["tokens", "floating"],
    ),
    (lambda: PlainICLTransformer(4, 2, width=0), ValueError, ["width", ">= 1"]),
    (lambda: make_task("moons", 40, 10, 4, 2, RNG, noise=NAN), ValueError, ["noise", "finite"]),
    (lambda: make_task("moons", 40, 10, 4, 2, RNG, noise=-1.0), ValueError, ["noise", ">= 0"]),
    (lambda: make_task("moons", 40, 10, 4, 2, None), TypeError, ["rng", "Generator"]),
    (lambda: task_batch([], 2, 40, 10, 4, 2, 2, RNG), ValueError, ["families", "non-empty"]),
    (lambda: task_batch(["moons"], 0, 40, 10, 4, 2, 2, RNG), ValueError, ["batch", ">= 1"]),
    (
        lambda: tokens_from_task(np.full((5, 8), NAN), -np.ones(5), np.zeros((2, 8)), 2),
        ValueError,
        ["x_ctx", "finite"],
    ),
    (lambda: label_spreading(TASK, alpha=1.0), ValueError, ["alpha", "(0, 1)"]),
    (lambda: label_spreading(TASK, n_neighbors=0), ValueError, ["n_neighbors", ">= 1"]),
    (lambda: eigenmap_logreg(TASK, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: laplacian_eigenmap(np.full((10, 2), NAN), 2), ValueError, ["x", "finite"]),
    (
        lambda: orthonormalize(torch.zeros(1, 5, 3), torch.ones(1, 4, dtype=torch.bool)),
        ValueError,
        ["ctx", "shape"],
    ),
    (
        lambda: softmax_regression_gd(torch.zeros(5, 3), torch.zeros(5, 2), torch.zeros(4, 3), NAN, 3),
        ValueError,
        ["lr", "finite"],
    ),
    (
        lambda: softmax_regression_gd(torch.zeros(5, 3), torch.zeros(5, 2), torch.zeros(4, 3), 0.1, -1),
        ValueError,
        ["steps", ">= 0"],
    ),
    (
        lambda: softmax_regression_gd(torch.zeros(5, 3), torch.zeros(4, 2), torch.zeros(4, 3), 0.1, 3),
        ValueError,
        ["y_lab", "shape"],
    ),
]
