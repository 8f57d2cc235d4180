"""Small rectified-flow models for the MeanCache reproduction (arXiv 2601.19961), trained in-process.

Rectified flow: z_t = t eps + (1 - t) x, target velocity dz/dt = eps - x, sampled by Euler from t = 1 to 0.
Two tasks: sklearn's bundled 8x8 digits (class-conditional, classifier-free guidance) and a generated 2-D
mixture of 8 Gaussians. Also a small digits classifier whose hidden layer is the feature space of the
Frechet distance, and the sliced Wasserstein distance for 2-D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy import linalg
from sklearn.datasets import load_digits
from torch import nn

__all__ = [
    "FlowMLP",
    "cfg_velocity",
    "digits_data",
    "eight_gaussians",
    "frechet_distance",
    "psnr",
    "sliced_wasserstein",
    "train_classifier",
    "train_flow",
]


class FlowMLP(nn.Module):
    """v(z, t, y): MLP on [z, sin/cos time features, label embedding] (label `n_classes` = unconditional)."""

    def __init__(self, dim: int, hidden: int = 256, n_classes: int = 0) -> None:
        super().__init__()
        self.n_classes = n_classes
        self.emb = nn.Embedding(n_classes + 1, 32) if n_classes else None
        d_in = dim + 16 + (32 if n_classes else 0)
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim)
        )

    def forward(self, z: torch.Tensor, t: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
        freqs = torch.arange(8, dtype=z.dtype, device=z.device) * 1.0
        ang = t[:, None] * freqs[None] * math.pi
        feats = [z, torch.sin(ang), torch.cos(ang)]
        if self.emb is not None:
            feats.append(self.emb(y))
        return self.net(torch.cat(feats, dim=1))


def digits_data(seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Digits scaled to [-1, 1], split in half by a seeded permutation: (x_train, y_train, x_test, y_test)."""
    d = load_digits()
    x = torch.tensor(d.data / 8.0 - 1.0, dtype=torch.float32)
    y = torch.tensor(d.target, dtype=torch.long)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    h = len(x) // 2
    return x[perm[:h]], y[perm[:h]], x[perm[h:]], y[perm[h:]]


def eight_gaussians(n: int, gen: torch.Generator) -> torch.Tensor:
    """n points of a mixture of 8 Gaussians (std 0.1) on the circle of radius 1.5."""
    k = torch.randint(0, 8, (n,), generator=gen)
    ang = k.float() * (2 * math.pi / 8)
    centers = 1.5 * torch.stack([torch.cos(ang), torch.sin(ang)], 1)
    return centers + 0.1 * torch.randn(n, 2, generator=gen)


@dataclass(frozen=True)
class FlowTrainConfig:
    steps: int = 1500
    batch: int = 256
    lr: float = 2e-3
    hidden: int = 256
    p_uncond: float = 0.1


def train_flow(
    x: torch.Tensor, y: torch.Tensor | None, n_classes: int, cfg: FlowTrainConfig, seed: int
) -> FlowMLP:
    """Train a rectified-flow velocity MLP on `x` (labels `y` dropped with prob. p_uncond when conditional).

    The model lives on `x`'s device; the random draws come from a CPU generator (same numbers on every device).
    """
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    dev = x.device
    model = FlowMLP(x.shape[1], cfg.hidden, n_classes).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.steps)
    for _ in range(cfg.steps):
        idx = torch.randint(0, len(x), (cfg.batch,), generator=gen).to(dev)
        x0 = x[idx]
        eps = torch.randn(x0.shape, generator=gen).to(dev)
        t = torch.rand(cfg.batch, generator=gen).to(dev)
        zt = t[:, None] * eps + (1 - t[:, None]) * x0
        yy = None
        if n_classes:
            yy = y[idx].clone()
            yy[(torch.rand(cfg.batch, generator=gen) < cfg.p_uncond).to(dev)] = n_classes
        loss = ((model(zt, t, yy) - (eps - x0)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    return model


def cfg_velocity(model: FlowMLP, guidance: float = 2.0):
    """velocity_fn(z, sigma, y) with classifier-free guidance v_u + w (v_c - v_u) (y None: unconditional)."""

    @torch.no_grad()
    def v(z: torch.Tensor, sigma: float, y: torch.Tensor | None) -> torch.Tensor:
        t = torch.full((len(z),), float(sigma), device=z.device)
        if y is None or not model.n_classes:
            uncond = torch.full((len(z),), model.n_classes, device=z.device)
            return model(z, t, None if not model.n_classes else uncond)
        vu = model(z, t, torch.full_like(y, model.n_classes))
        vc = model(z, t, y)
        return vu + guidance * (vc - vu)

    return v


class _Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.SiLU())
        self.head = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def train_classifier(x: torch.Tensor, y: torch.Tensor, seed: int, steps: int = 400) -> _Classifier:
    """A 64-64-10 MLP digits classifier; its hidden layer (``.body``) is the Frechet feature space (on `x`'s
    device)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    clf = _Classifier().to(x.device)
    opt = torch.optim.Adam(clf.parameters(), lr=3e-3)
    for _ in range(steps):
        idx = torch.randint(0, len(x), (128,), generator=gen).to(x.device)
        loss = nn.functional.cross_entropy(clf(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    clf.eval()
    return clf


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Frechet distance between Gaussians fitted to feature sets `a` and `b` (rows = samples)."""
    mu1, mu2 = a.mean(0), b.mean(0)
    s1, s2 = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    covmean = linalg.sqrtm(s1 @ s2)
    covmean = np.real(covmean)
    return float(((mu1 - mu2) ** 2).sum() + np.trace(s1 + s2 - 2 * covmean))


def psnr(x: torch.Tensor, ref: torch.Tensor, data_range: float = 2.0) -> torch.Tensor:
    """Per-sample PSNR (dB) of `x` against `ref` (rows = samples)."""
    mse = ((x - ref) ** 2).flatten(1).mean(1).clamp_min(1e-20)
    return 10 * torch.log10(data_range**2 / mse)


def sliced_wasserstein(a: torch.Tensor, b: torch.Tensor, n_proj: int = 64, seed: int = 0) -> float:
    """Sliced Wasserstein-1 distance between equal-size point clouds `a`, `b`."""
    gen = torch.Generator().manual_seed(seed)
    dirs = torch.randn(a.shape[1], n_proj, generator=gen).to(a.device)
    dirs = dirs / dirs.norm(dim=0, keepdim=True)
    pa, _ = torch.sort(a @ dirs, dim=0)
    pb, _ = torch.sort(b @ dirs, dim=0)
    return float((pa - pb).abs().mean())
