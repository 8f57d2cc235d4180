"""Synthetic sensor grid: a 2-D advection-diffusion field with daily-periodic sources and a wind that switches
direction every few days, observed with noise; raster and permuted variable orderings; forecasting windows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor

__all__ = ["ForecastData", "make_grid_diffusion", "ordering", "prepare", "time_marks"]

PERIOD = 24


def make_grid_diffusion(
    S: int,
    T: int,
    dynamic: bool = True,
    seed: int = 0,
    n_sources: int | None = None,
    kappa: float = 0.12,
    speed: float = 0.6,
    decay: float = 0.03,
    switch_days: tuple[int, int] = (2, 5),
    noise: float = 0.05,
) -> np.ndarray:
    """Observations (T, S*S) in raster order (variable i = grid cell (i // S, i % S)).

    u <- u + dt (kappa Lap u - v . grad u - decay u + sources(t)), upwind advection, zero (open) boundary, two
    sub-steps per observation. Sources sit at random cells with amplitude (1 + sin(2 pi t / 24 + phi)) times a
    slowly varying log-normal factor. With ``dynamic`` the wind direction is redrawn every 2-5 days, otherwise
    it stays fixed. Observation = field + `noise` x (field std) Gaussian noise.
    """
    S = check_int("S", S, low=2)
    T = check_int("T (a positive int)", T, low=1)
    for name, v in (("kappa", kappa), ("speed", speed), ("decay", decay), ("noise", noise)):
        check_float(f"{name} (non-negative)", v, low=0.0)
    check_int("seed", seed, low=0)
    if n_sources is not None:
        check_int(f"n_sources (None or in [1, S*S={S * S}])", n_sources, 1, S * S)
    if isinstance(switch_days, (str, bytes)) or not hasattr(switch_days, "__len__") or len(switch_days) != 2:
        raise ValueError(f"switch_days must be a pair (low, high) of days, got {switch_days!r}")
    check_int("switch_days high", switch_days[1], low=check_int("switch_days low", switch_days[0], low=1))
    check_bool("dynamic", dynamic)
    dt = 0.5
    if dt * (4 * kappa + 2 * speed + decay) > 1:
        raise ValueError(
            f"unstable: need 0.5 * (4 kappa + 2 speed + decay) <= 1, got kappa={kappa}, speed={speed}"
        )
    rng = np.random.default_rng(seed)
    k = n_sources if n_sources is not None else max(2, S * S // 12)
    cells = rng.choice(S * S, size=k, replace=False)
    phase = rng.uniform(0, 2 * np.pi, k)
    strength = rng.uniform(0.5, 1.5, k)
    log_amp = np.zeros(k)
    burn = 4 * PERIOD
    u = np.zeros((S, S))
    out = np.empty((T, S * S))
    theta = rng.uniform(0, 2 * np.pi)
    next_switch = int(rng.integers(switch_days[0], switch_days[1] + 1)) * PERIOD
    for t in range(-burn, T):
        if dynamic and t + burn >= next_switch:
            theta = rng.uniform(0, 2 * np.pi)
            next_switch += int(rng.integers(switch_days[0], switch_days[1] + 1)) * PERIOD
        vx, vy = speed * np.cos(theta), speed * np.sin(theta)
        log_amp = 0.98 * log_amp + 0.1 * rng.standard_normal(k)
        src = np.zeros(S * S)
        src[cells] = strength * np.exp(log_amp) * (1 + np.sin(2 * np.pi * t / PERIOD + phase))
        src = src.reshape(S, S)
        for _ in range(2):
            p = np.pad(u, 1)
            lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
            dx = (u - p[1:-1, :-2]) if vx > 0 else (p[1:-1, 2:] - u)
            dy = (u - p[:-2, 1:-1]) if vy > 0 else (p[2:, 1:-1] - u)
            u = u + dt * (kappa * lap - vx * dx - vy * dy - decay * u + src)
        if t >= 0:
            out[t] = u.reshape(-1)
    out = out + noise * out.std() * rng.standard_normal(out.shape)
    return out.astype(np.float32)


def ordering(n_vars: int, kind: str = "raster", seed: int = 0) -> np.ndarray:
    """Variable order: ``"raster"`` (identity: grid neighbours close in the index) or ``"permuted"`` (random)."""
    check_int("n_vars", n_vars, low=1)
    check_choice("kind", kind, ("raster", "permuted"))
    check_int("seed", seed, low=0)
    if kind == "raster":
        return np.arange(n_vars)
    if kind == "permuted":
        return np.random.default_rng(seed).permutation(n_vars)
    raise ValueError(f"kind must be 'raster' or 'permuted', got {kind!r}")


def time_marks(T: int) -> np.ndarray:
    """(T, 2) daily-phase covariates sin/cos(2 pi t / 24)."""
    check_int("T", T, low=1)
    t = np.arange(T)
    return np.stack([np.sin(2 * np.pi * t / PERIOD), np.cos(2 * np.pi * t / PERIOD)], 1).astype(np.float32)


@dataclass
class ForecastData:
    """Standardised series (train statistics) with marks and the chronological 70/10/20 split boundaries."""

    series: torch.Tensor  # (T, N)
    marks: torch.Tensor  # (T, n_mark)
    seq_len: int
    pred_len: int
    train_end: int
    val_end: int

    def __post_init__(self) -> None:
        check_tensor("series", self.series, ndim=2, floating=True)
        T = self.series.shape[0]
        check_tensor("marks", self.marks, ndim=2, floating=True, shape=(T, None))
        check_int("seq_len", self.seq_len, low=1)
        check_int("pred_len", self.pred_len, low=1)
        check_int("train_end", self.train_end, 1, T)
        check_int("val_end", self.val_end, self.train_end, T)

    def windows(self, starts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(x (B, L, N), x_mark (B, L, n_mark), y (B, F, N)) for window start indices `starts`."""
        check_tensor("starts", starts, ndim=1, floating=False)
        last = self.series.shape[0] - self.seq_len - self.pred_len
        if starts.numel() and (int(starts.min()) < 0 or int(starts.max()) > last):
            raise ValueError(
                f"starts must be window starts in [0, {last}] (T - seq_len - pred_len), got values in "
                f"[{int(starts.min())}, {int(starts.max())}]"
            )
        li = starts[:, None] + torch.arange(self.seq_len)
        fi = starts[:, None] + self.seq_len + torch.arange(self.pred_len)
        return self.series[li], self.marks[li], self.series[fi]

    def split_starts(self, split: str, stride: int = 1) -> torch.Tensor:
        """Window starts whose targets lie inside `split` ("train", "val" or "test")."""
        check_choice("split", split, ("train", "val", "test"))
        check_int("stride", stride, low=1)
        w = self.seq_len + self.pred_len
        lo, hi = {
            "train": (0, self.train_end),
            "val": (self.train_end - self.seq_len, self.val_end),
            "test": (self.val_end - self.seq_len, self.series.shape[0]),
        }[split]
        return torch.arange(lo, hi - w + 1, stride)


def prepare(data: np.ndarray, seq_len: int, pred_len: int, order: np.ndarray | None = None) -> ForecastData:
    """Reorder variables, standardise with training statistics, attach daily marks, split 70/10/20."""
    if not isinstance(data, np.ndarray):
        raise TypeError(f"data must be a numpy array (T, N), got {type(data).__name__}")
    if data.ndim != 2:
        raise ValueError(f"data must have shape (T, N), got {data.shape}")
    if data.dtype.kind not in "iuf" or not np.all(np.isfinite(data)):
        raise ValueError("data must hold finite numbers (no NaN or inf)")
    check_int("seq_len", seq_len, low=1)
    check_int("pred_len", pred_len, low=1)
    if order is not None and (
        np.shape(order) != (data.shape[1],)
        or sorted(np.asarray(order).tolist()) != list(range(data.shape[1]))
    ):
        raise ValueError(
            f"order must be a permutation of the {data.shape[1]} variable indices, got {order!r}"
        )
    T = data.shape[0]
    if T < 5 * (seq_len + pred_len):
        raise ValueError(f"data has T={T} steps, too few for seq_len={seq_len} + pred_len={pred_len}")
    if order is not None:
        data = data[:, order]
    train_end, val_end = int(0.7 * T), int(0.8 * T)
    mu, sd = data[:train_end].mean(0), data[:train_end].std(0) + 1e-6
    series = torch.from_numpy(((data - mu) / sd).astype(np.float32))
    return ForecastData(series, torch.from_numpy(time_marks(T)), seq_len, pred_len, train_end, val_end)
