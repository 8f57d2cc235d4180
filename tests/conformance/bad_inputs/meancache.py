"""Bad input to the MeanCache sampler and the PSSP scheduler (arXiv 2601.19961)."""

import numpy as np
import torch

from iclr26.inference.meancache import (
    MeanCacheSampler,
    estimate_edge_costs,
    euler_sample,
    force_compute,
    path_cost,
    pssp_brute_force,
    pssp_schedule,
    shifted_sigmas,
    teacache_sample,
    tune_teacache,
    uniform_schedule,
)

S = [1.0, 0.5, 0.0]
S3 = [1.0, 0.6, 0.3, 0.0]


def _v(z, t, c):
    return -z


C4 = np.ones((5, 5, 2))

CASES = [
    (lambda: MeanCacheSampler(_v, [1.0, 0.2, 0.5, 0.0], [True] * 3), ValueError, ["strictly decreasing"]),
    (lambda: MeanCacheSampler(_v, [1.0, 0.5, 0.0], [True] * 3), ValueError, ["schedule length"]),
    (lambda: MeanCacheSampler(_v, [1.0, 0.5, 0.0], [False, True]), ValueError, ["first step"]),
    (
        lambda: MeanCacheSampler(_v, [1.0, 0.6, 0.3, 0.0], [True, False, True], [1, 2, 1]),
        ValueError,
        ["K larger"],
    ),
    (lambda: MeanCacheSampler(_v, [1.0, 0.5, 0.0], [True, True], [1]), ValueError, ["jvp_window length"]),
    (lambda: pssp_schedule(C4, 1, 2.0), ValueError, ["budget"]),
    (lambda: pssp_schedule(C4, 5, 2.0), ValueError, ["budget"]),
    (lambda: pssp_schedule(-C4, 2, 2.0), ValueError, ["non-negative"]),
    (lambda: estimate_edge_costs(_v, [1.0, 0.5, 0.0], torch.ones(2), [0]), ValueError, ["K_values"]),
    (lambda: shifted_sigmas(True), ValueError, ["n_steps", "int"]),
    (lambda: shifted_sigmas(4, float("nan")), ValueError, ["shift", "finite"]),
    (lambda: shifted_sigmas(4, float("inf")), ValueError, ["shift", "finite"]),
    (lambda: uniform_schedule(4, 2.5), ValueError, ["budget", "int"]),
    (
        lambda: MeanCacheSampler(_v, S3, [True, False, False], [1, 1, 1.5]),
        ValueError,
        ["jvp_window[2]", "int"],
    ),
    (lambda: MeanCacheSampler(_v, S, [1, 2]), TypeError, ["schedule[0]", "bool"]),
    (lambda: MeanCacheSampler(_v, S, "ab"), TypeError, ["schedule", "bools"]),
    (lambda: MeanCacheSampler(_v, S, [True, True]).sample([1.0]), TypeError, ["z_init", "torch.Tensor"]),
    (
        lambda: MeanCacheSampler(lambda z, t, c: torch.ones(3), S, [True, True]).sample(torch.ones(2)),
        ValueError,
        ["velocity_fn", "shaped like z"],
    ),
    (lambda: euler_sample(_v, S, None), TypeError, ["z_init", "torch.Tensor"]),
    (
        lambda: teacache_sample(_v, S, torch.ones(2), threshold=float("inf")),
        ValueError,
        ["threshold", "finite"],
    ),
    (
        lambda: tune_teacache(_v, S3, torch.ones(2), None, 100),
        ValueError,
        ["budget", "N = 3", ">= 2 and <= 3"],
    ),
    (lambda: tune_teacache(_v, S3, torch.ones(2), None, 2, iters=0), ValueError, ["iters", ">= 1"]),
    (lambda: estimate_edge_costs(_v, S, torch.ones(2), [2.5]), ValueError, ["K_values[0]", "int"]),
    (lambda: estimate_edge_costs(_v, S, torch.ones(2).long(), [1]), TypeError, ["calib_inputs", "floating"]),
    (lambda: force_compute(np.ones(3), [0]), ValueError, ["C", "shape"]),
    (lambda: force_compute(C4, [1.5]), ValueError, ["steps[0]", "int"]),
    (lambda: path_cost(C4, [1, 2]), ValueError, ["compute_steps", "starting at 0"]),
    (lambda: path_cost(C4, [0, 3, 2]), ValueError, ["compute_steps", "strictly increasing"]),
    (lambda: path_cost(C4, [0, 9]), ValueError, ["compute_steps[1]", "<= 3"]),
    (lambda: path_cost(C4, [0, 2], float("nan")), ValueError, ["gamma", "finite"]),
    (lambda: pssp_schedule(C4, 2, K_values=[0, -1]), ValueError, ["K_values[0]", ">= 1"]),
    (lambda: pssp_schedule(C4, 2.5), ValueError, ["budget", "int"]),
    (lambda: pssp_brute_force(C4, 2, float("inf")), ValueError, ["gamma", "finite"]),
]
