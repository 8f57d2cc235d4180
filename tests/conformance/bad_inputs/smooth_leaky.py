"""Bad input to Smooth-Leaky's activations, registry and continual scaffolding (arXiv 2509.22562)."""

import warnings

import torch

from iclr26.optim.smooth_leaky import (
    ContinualMLP,
    L2Init,
    NonPositiveFloorWarning,
    RandomizedSmoothLeaky,
    SmoothLeaky,
    class_incremental_tasks,
    dead_band_width,
    desaturation_stress_test,
    digits_split,
    effective_negative_slope,
    get_activation,
    max_derivative,
    min_derivative,
    permuted_tasks,
    saturated_fraction,
    shrink_and_perturb,
    smooth_leaky,
    smooth_leaky_derivative,
    train_continual,
)

NAN, INF = float("nan"), float("inf")


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
    (lambda: SmoothLeaky(alpha="0.1"), TypeError, ["alpha", "finite float"]),
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
    (lambda: train_continual(MLP, TASKS, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: train_continual(MLP, TASKS, lr=NAN), ValueError, ["lr", "finite"]),
    (lambda: train_continual(MLP, TASKS, momentum=NAN), ValueError, ["momentum", "finite"]),
    (lambda: train_continual(MLP, TASKS, l2_init=INF), ValueError, ["l2_init", "finite"]),
    (lambda: train_continual(MLP, TASKS, max_grad_norm=INF), ValueError, ["max_grad_norm", "finite"]),
    (lambda: train_continual(MLP, TASKS, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: train_continual(MLP, [object()]), TypeError, ["tasks[0]", "Task"]),
    (lambda: train_continual(MLP, TASKS, probe=torch.zeros(2, 5)), ValueError, ["probe", "shape"]),
    (lambda: desaturation_stress_test(MLP, TASKS[0], X, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: desaturation_stress_test(MLP, TASKS[0], X, recovery=NAN), ValueError, ["recovery", "(0, 1]"]),
    (lambda: desaturation_stress_test(MLP, TASKS[0], X, gammas=(INF,)), ValueError, ["gammas[0]", "finite"]),
    (lambda: smooth_leaky(torch.ones(3), alpha=NAN), ValueError, ["alpha", "finite"]),
    (lambda: smooth_leaky(torch.ones(3), power=0.0), ValueError, ["power", "> 0"]),
    (lambda: smooth_leaky(torch.ones(3, dtype=torch.long)), TypeError, ["input", "floating-point"]),
    (lambda: smooth_leaky_derivative(torch.ones(3), curvature=INF), ValueError, ["curvature", "finite"]),
    (lambda: min_derivative(NAN), ValueError, ["alpha", "finite"]),
    (lambda: max_derivative("0.1"), TypeError, ["alpha", "finite float"]),
    (lambda: SmoothLeaky(power=INF), ValueError, ["power", "finite"]),
    (lambda: shrink_and_perturb(MLP, shrink=NAN), ValueError, ["shrink", "(0, 1]"]),
    (lambda: shrink_and_perturb(MLP, noise=INF), ValueError, ["noise", "finite"]),
    (lambda: shrink_and_perturb(None), TypeError, ["model", "nn.Module"]),
    (lambda: L2Init(MLP, NAN), ValueError, ["strength", "finite"]),
    (lambda: dead_band_width(torch.nn.ReLU(), lo=NAN), ValueError, ["lo", "finite"]),
    (lambda: dead_band_width(torch.nn.ReLU(), n=1), ValueError, ["n", ">= 2"]),
    (lambda: saturated_fraction(MLP, X, threshold=NAN), ValueError, ["threshold", "finite"]),
    (lambda: saturated_fraction(MLP, torch.zeros(2, 5)), ValueError, ["probe", "shape"]),
    (lambda: effective_negative_slope(MLP, X.long()), TypeError, ["probe", "floating"]),
    (lambda: digits_split(n_train=True), ValueError, ["n_train", "int"]),
    (lambda: digits_split(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: ContinualMLP([3, 4, 2], torch.nn.ReLU, init_seed=-1), ValueError, ["init_seed", ">= 0"]),
    (lambda: ContinualMLP([3, True, 2], torch.nn.ReLU), ValueError, ["sizes"]),
]
