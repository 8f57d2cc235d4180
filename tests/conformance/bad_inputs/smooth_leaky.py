"""Bad input to Smooth-Leaky's activations, registry and continual scaffolding (arXiv 2509.22562)."""

import warnings

import torch

from iclr26.optim.smooth_leaky import (
    ContinualMLP,
    NonPositiveFloorWarning,
    RandomizedSmoothLeaky,
    SmoothLeaky,
    class_incremental_tasks,
    get_activation,
    permuted_tasks,
    train_continual,
)


def _warning_as_error(make):
    def call():
        with warnings.catch_warnings():
            warnings.simplefilter("error", NonPositiveFloorWarning)
            make()

    return call


X = torch.zeros(4, 3)
Y = torch.zeros(4, dtype=torch.long)
MLP = ContinualMLP([3, 4, 2], torch.nn.ReLU, init_seed=0)
TASKS = permuted_tasks(X, Y, X, Y, 1)

CASES = [
    (lambda: SmoothLeaky(alpha=0.0), ValueError, ["alpha", "(0, 1)"]),
    (lambda: SmoothLeaky(alpha=1.5), ValueError, ["alpha", "(0, 1)"]),
    (lambda: SmoothLeaky(power=0.0), ValueError, ["power", "> 0"]),
    (lambda: SmoothLeaky(curvature=-1.0), ValueError, ["curvature", "> 0"]),
    (lambda: SmoothLeaky(alpha="0.1"), TypeError, ["alpha", "real number"]),
    (lambda: RandomizedSmoothLeaky(lower=0.3, upper=0.2), ValueError, ["lower", "upper", "<="]),
    (lambda: RandomizedSmoothLeaky(lower=0.2, upper=1.0), ValueError, ["upper", "[0, 1)"]),
    (lambda: RandomizedSmoothLeaky(sampling="batch"), ValueError, ["sampling"]),
    (lambda: SmoothLeaky()(torch.ones(3, dtype=torch.long)), TypeError, ["input", "floating-point"]),
    (
        lambda: RandomizedSmoothLeaky()(torch.ones(3, dtype=torch.int32)),
        TypeError,
        ["input", "floating-point"],
    ),
    (_warning_as_error(lambda: SmoothLeaky(alpha=0.05)), NonPositiveFloorWarning, ["alpha", "not positive"]),
    (
        _warning_as_error(lambda: RandomizedSmoothLeaky(lower=0.01)),
        NonPositiveFloorWarning,
        ["lower", "not positive"],
    ),
    (lambda: get_activation("swishy"), ValueError, ["unknown activation", "swishy"]),
    (lambda: get_activation(3), TypeError, ["name", "string"]),
    (lambda: permuted_tasks(X, Y, X, Y, 0), ValueError, ["n_tasks"]),
    (lambda: permuted_tasks(X, Y.float(), X, Y, 2), ValueError, ["y_train", "integer"]),
    (lambda: class_incremental_tasks(X, Y, X, Y, 0), ValueError, ["classes_per_task"]),
    (lambda: train_continual(MLP, TASKS, max_grad_norm=0.0), ValueError, ["max_grad_norm", "> 0"]),
    (lambda: train_continual(MLP, TASKS, epochs=0), ValueError, ["epochs", ">= 1"]),
    (lambda: ContinualMLP([3], torch.nn.ReLU), ValueError, ["sizes"]),
]
