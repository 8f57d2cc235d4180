"""Smooth-Leaky (Lillo & Cheney, ICLR 2026; arXiv 2509.22562, OpenReview XZf6wObHX4).

"Activation Function Design Sustains Plasticity in Continual Learning": Smooth-Leaky and Randomized
Smooth-Leaky activations, an activation registry over torch.nn, and continual-learning scaffolding
(:mod:`iclr26.optim.smooth_leaky.continual`: task sequences, a no-reset training loop, plasticity diagnostics,
the desaturation stress test and the shrink-and-perturb / L2-init interventions).
"""

from iclr26.optim.smooth_leaky import continual
from iclr26.optim.smooth_leaky.activations import (
    ACTIVATIONS,
    ALPHA_FLOOR_MIN,
    S_MAX,
    S_MIN,
    NonPositiveFloorWarning,
    RandomizedSmoothLeaky,
    SmoothLeaky,
    activation_names,
    get_activation,
    max_derivative,
    min_derivative,
    smooth_leaky,
    smooth_leaky_derivative,
)
from iclr26.optim.smooth_leaky.continual import (
    ContinualMLP,
    L2Init,
    Task,
    class_incremental_tasks,
    dead_band_width,
    desaturation_stress_test,
    digits_split,
    effective_negative_slope,
    permuted_tasks,
    saturated_fraction,
    shrink_and_perturb,
    train_continual,
)

__all__ = [
    "ACTIVATIONS",
    "ALPHA_FLOOR_MIN",
    "S_MAX",
    "S_MIN",
    "ContinualMLP",
    "L2Init",
    "NonPositiveFloorWarning",
    "RandomizedSmoothLeaky",
    "SmoothLeaky",
    "Task",
    "activation_names",
    "class_incremental_tasks",
    "continual",
    "dead_band_width",
    "desaturation_stress_test",
    "digits_split",
    "effective_negative_slope",
    "get_activation",
    "max_derivative",
    "min_derivative",
    "permuted_tasks",
    "saturated_fraction",
    "shrink_and_perturb",
    "smooth_leaky",
    "smooth_leaky_derivative",
    "train_continual",
]
