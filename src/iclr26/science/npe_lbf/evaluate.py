"""Scores of a trained conditional density estimator: held-out NLL, HPD coverage (SBC), C2ST, grid references."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor

__all__ = ["coverage", "grid_reference_samples", "heldout_nll", "hpd_ranks", "two_sample_accuracy"]


@torch.no_grad()
def heldout_nll(est: object, z: Tensor, x: Tensor, batch: int = 1000) -> float:
    """-mean log q(z | x) over paired held-out rows (a proper score: differences are forward-KL differences)."""
    if z.shape[0] != x.shape[0]:
        raise ValueError(f"z and x must have the same batch, got {z.shape[0]} and {x.shape[0]}")
    total = 0.0
    for i in range(0, z.shape[0], batch):
        lp = est.log_prob(z[i : i + batch].float(), x[i : i + batch].float()).double()
        total += float(lp.sum())
    return -total / z.shape[0]


@torch.no_grad()
def hpd_ranks(est: object, z: Tensor, x: Tensor, n_samples: int = 256, seed: int = 0) -> np.ndarray:
    """Per test pair, the posterior mass of {z': q(z'|x) > q(z*|x)}: uniform on [0, 1] under calibration."""
    torch.manual_seed(seed)
    samples = est.sample(torch.Size([n_samples]), x.float())  # (n, B, d)
    lp_s = est.log_prob(samples, x.float()).reshape(n_samples, -1)  # (n, B)
    lp_t = est.log_prob(z.float().unsqueeze(0), x.float()).reshape(
        1, -1
    )  # (1, B); some estimators keep a sample dim
    if lp_s.shape[1] != lp_t.shape[1]:
        raise ValueError(f"log_prob shapes disagree: samples {tuple(lp_s.shape)}, truth {tuple(lp_t.shape)}")
    return (lp_s > lp_t).double().mean(0).numpy()


def coverage(ranks: np.ndarray, levels: Sequence[float] = (0.5, 0.9)) -> dict[float, float]:
    """Empirical coverage of the level-alpha HPD regions: the fraction of ranks below alpha."""
    ranks = np.asarray(ranks, dtype=float)
    return {float(a): float(np.mean(ranks < a)) for a in levels}


def grid_reference_samples(
    log_post: Callable[[Tensor, Tensor], Tensor],
    x_o: Tensor,
    low: Sequence[float],
    high: Sequence[float],
    n: int,
    generator: torch.Generator,
    grid: int = 4096,
) -> Tensor:
    """Samples (n, 1) of a 1-D reference posterior exp(log_post) on [low, high] (fine grid + uniform jitter)."""
    lo, hi = float(low[0]), float(high[0])
    width = (hi - lo) / grid
    nodes = lo + (torch.arange(grid, dtype=torch.float64) + 0.5) * width
    lp = log_post(nodes.unsqueeze(-1), x_o)
    w = torch.softmax(lp - lp.max(), dim=0)
    idx = torch.multinomial(w.float(), n, replacement=True, generator=generator)
    u = torch.rand(n, generator=generator, dtype=torch.float64)
    return (lo + (idx.double() + u) * width).unsqueeze(-1).float()


def two_sample_accuracy(a: Tensor, b: Tensor, seed: int = 0) -> float:
    """Classifier two-sample test accuracy (sbi's c2st, random forest, 5-fold CV): 0.5 = indistinguishable."""
    from sbi.utils.metrics import c2st

    acc = float(c2st(a.float(), b.float(), seed=seed))
    return acc if math.isfinite(acc) else float("nan")
