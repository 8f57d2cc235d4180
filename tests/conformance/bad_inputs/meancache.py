"""Bad input to the MeanCache sampler and the PSSP scheduler (arXiv 2601.19961)."""

import numpy as np
import torch

from iclr26.inference.meancache import MeanCacheSampler, estimate_edge_costs, pssp_schedule


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
]
