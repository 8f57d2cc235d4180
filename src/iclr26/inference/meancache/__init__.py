"""MeanCache (Gao et al., ICLR 2026, arXiv 2601.19961): average-velocity caching for flow-matching inference.

Public API: :class:`MeanCacheSampler` (cached JVP estimate on skipped steps), :func:`estimate_edge_costs` and
:func:`pssp_schedule` (peak-suppressed shortest-path schedule, exact DP) plus the caching baselines.
"""

from iclr26.inference.meancache.sampler import (
    MeanCacheSampler,
    euler_sample,
    shifted_sigmas,
    taylorseer_sample,
    teacache_sample,
    tune_teacache,
    uniform_schedule,
)
from iclr26.inference.meancache.schedule import (
    estimate_edge_costs,
    force_compute,
    path_cost,
    pssp_brute_force,
    pssp_schedule,
)

__all__ = [
    "MeanCacheSampler",
    "estimate_edge_costs",
    "euler_sample",
    "force_compute",
    "path_cost",
    "pssp_brute_force",
    "pssp_schedule",
    "shifted_sigmas",
    "taylorseer_sample",
    "teacache_sample",
    "tune_teacache",
    "uniform_schedule",
]
