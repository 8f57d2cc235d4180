"""The reproduction's configuration and its one primitive: run a named sampler from x0 = 0 to time T.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614). Methods are named as in the metrics: ``lmc`` (ULMC for the underdamped dynamics), ``rlmc`` (its
underdamped version likewise), ``plmc`` (K fine steps), and PLMC variants ``plmc_K<k>`` / ``plmc_poisson`` (the
K = None limit). Chains start at x0 = 0 with, for the underdamped dynamics, v0 ~ N(0, u I), the velocity's
stationary law.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from iclr26.optim.poisson_midpoint.baselines import lmc, rlmc, rlmc_underdamped, ulmc
from iclr26.optim.poisson_midpoint.plmc import plmc

__all__ = ["PoissonMidpointConfig", "method_names", "run_sampler"]


@dataclass(frozen=True)
class PoissonMidpointConfig:
    """One budget of the reproduction; a seed is one group of `n_chains` chains.

    The 1-D log-cosh target (c) is always run; ``high_dim`` adds the d-dimensional log-cosh and Gaussian
    (condition number ``kappa``) targets with ``n_chains_high_dim`` chains, LMC and PLMC only.
    """

    n_chains: int
    step_sizes: tuple[float, ...]
    horizon: float = 8.0
    K: int = 8
    extra_K: tuple[int | None, ...] = ()
    c: float = 2.0
    gamma: float = 2.0
    u: float = 1.0
    form: str = "jump"
    floor_pairs: int = 5
    n_strong: int = 1000
    strong_max_step: float = 1 / 1024
    backend: str = "numpy"
    hist_bins: int = 80
    high_dim: bool = False
    high_dim_d: int = 20
    kappa: float = 10.0
    n_chains_high_dim: int = 200_000


def method_names(cfg: PoissonMidpointConfig) -> list[str]:
    """Metric names of the methods: ``lmc``, ``rlmc``, ``plmc``, then the PLMC variants of ``extra_K``."""
    return ["lmc", "rlmc", "plmc"] + [f"plmc_K{k}" if k is not None else "plmc_poisson" for k in cfg.extra_K]


def _sampler(cfg: PoissonMidpointConfig, setting: str, method: str) -> Any:
    over = setting == "over"
    if method == "lmc":
        return lmc if over else partial(ulmc, gamma=cfg.gamma, u=cfg.u)
    if method == "rlmc":
        return rlmc if over else partial(rlmc_underdamped, gamma=cfg.gamma, u=cfg.u)
    K = (
        cfg.K
        if method == "plmc"
        else (None if method == "plmc_poisson" else int(method.removeprefix("plmc_K")))
    )
    return partial(
        plmc, overdamped=over, K=K, form=cfg.form if K is not None else "jump", gamma=cfg.gamma, u=cfg.u
    )


def run_sampler(
    cfg: PoissonMidpointConfig,
    setting: str,
    method: str,
    grad_F: Callable[[Any], Any],
    L: float,
    shape: tuple[int, int],
    h: float,
    seed_seq: np.random.SeedSequence,
    device: str,
) -> tuple[np.ndarray, float]:
    """Run `method` ("over"/"under" `setting`) with step h to time T from x0 = 0 of `shape` (n, d).

    Returns the final positions as a NumPy array and the cost in gradient calls per unit time.
    """
    n_steps = round(cfg.horizon / h)
    if cfg.backend == "torch":
        rng = torch.Generator(device=device).manual_seed(int(seed_seq.generate_state(1)[0]))
        x0 = torch.zeros(shape, dtype=torch.float64, device=device)
        v0 = math.sqrt(cfg.u) * torch.randn(shape, generator=rng, dtype=torch.float64, device=device)
    else:
        rng = np.random.default_rng(seed_seq)
        x0 = np.zeros(shape)
        v0 = math.sqrt(cfg.u) * rng.standard_normal(shape)
    kwargs = {} if setting == "over" else {"v0": v0}
    samples, calls = _sampler(cfg, setting, method)(grad_F, x0, h, n_steps, rng, L=L, **kwargs)
    if isinstance(samples, torch.Tensor):
        samples, calls = samples.cpu().numpy(), calls.cpu().numpy()
    return samples, float(calls.mean()) / (n_steps * h)  # gradient calls per unit time
