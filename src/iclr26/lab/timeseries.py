"""Shared pieces of the multivariate time-series forecasting family: a generator of series with planted,
heterogeneous (optionally drifting) periods, chronological windowing, a seeded training loop with the
Time-Series-Library learning-rate schedules, evaluation, and minimal offline baselines.

Every forecaster here maps ``x (batch, lookback L, variables C) -> (batch, horizon F, C)``.

Example
-------
>>> import torch
>>> values = make_heterogeneous_periodic(6, 600, groups=2, periods=(12, 24), seed=0)
>>> data = make_windows(values, seq_len=48, pred_len=12)
>>> model = DLinear(48, 12, 6)
>>> losses = train_forecaster(model, data, epochs=1, steps_per_epoch=3, seed=0)
>>> mse, mae = evaluate(model, data, "test", stride=12)
>>> model(torch.zeros(2, 48, 6)).shape
torch.Size([2, 12, 6])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from iclr26.checks import check_choice, check_float, check_int, check_probability, check_tensor

__all__ = [
    "DLinear",
    "ForecastWindows",
    "ITransformer",
    "PatchTST",
    "SeasonalNaive",
    "TimesNetLite",
    "check_series_input",
    "evaluate",
    "group_labels",
    "lr_at_epoch",
    "make_heterogeneous_periodic",
    "make_windows",
    "train_forecaster",
    "trivial_mse",
    "window_norm",
]


# ----------------------------------------------------------------------------------------------- data


def group_labels(N: int, groups: int) -> np.ndarray:
    """Group of each variable: contiguous blocks, variable ``c`` in group ``c * groups // N``."""
    N = check_int("N", N, low=1)
    groups = check_int(f"groups (in [1, N={N}])", groups, 1, N)
    return (np.arange(N) * groups) // N


def _harmonic_pair(theta: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """sin(theta + phi1) + a2 sin(2 theta + phi2), scaled to unit variance (random phases, a2 ~ U(0.3, 0.6))."""
    a2 = rng.uniform(0.3, 0.6)
    phi = rng.uniform(0, 2 * np.pi, 2)
    s = np.sin(theta + phi[0]) + a2 * np.sin(2 * theta + phi[1])
    return s / math.sqrt(0.5 * (1 + a2**2))


def make_heterogeneous_periodic(
    N: int = 21,
    T: int = 8000,
    groups: int = 3,
    periods: Sequence[int] = (12, 24, 48),
    drift: float = 0.0,
    noise: float = 0.45,
    corr: float = 0.8,
    seed: int = 0,
) -> np.ndarray:
    """Series (T, N) float32 whose variables fall into `groups` groups with different periods.

    Variable ``c`` of group ``g`` (see :func:`group_labels`) is
    ``scale_c * (sqrt(corr) s_g(t) + sqrt(1 - corr) u_c(t) + trend_c(t) + e_c(t)) + offset_c``:
    ``s_g`` a group latent and ``u_c`` a variable's own mixture of two harmonics of the group period with random
    phases (each of unit variance, so the seasonal parts of two group mates correlate `corr` in expectation over
    the phases), ``trend_c`` a slow sinusoid (period T/2..2T, amplitude 0.5), ``e_c`` AR(1) noise (coefficient
    0.5) of standard deviation `noise` (signal-to-noise variance ratio ``1 / noise**2``, 5 at the default).
    With ``drift > 0`` each group's period changes once, at a random time in the middle 40% of the series, to
    ``P * (1 +- drift)`` (phase kept continuous).
    """
    N = check_int("N", N, low=1)
    T = check_int("T", T, low=2)
    labels = group_labels(N, groups)
    if isinstance(periods, (str, bytes)) or not hasattr(periods, "__len__") or len(periods) != groups:
        raise ValueError(f"periods must be a sequence of {groups} periods (one per group), got {periods!r}")
    periods = [check_int("periods entry", p, low=2) for p in periods]
    drift = check_float("drift", drift, 0.0, 0.9)
    noise = check_float("noise", noise, low=0.0)
    corr = check_probability("corr", corr)
    seed = check_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    t = np.arange(T, dtype=float)
    thetas = []
    for p in periods:
        step = np.full(T, 2 * np.pi / p)
        if drift > 0:
            t0 = int(rng.uniform(0.3, 0.7) * T)
            step[t0:] = 2 * np.pi / (p * (1 + rng.choice([-1.0, 1.0]) * drift))
        thetas.append(np.cumsum(step) - step[0])
    latents = [_harmonic_pair(th, rng) for th in thetas]
    out = np.empty((T, N))
    for c in range(N):
        g = labels[c]
        season = math.sqrt(corr) * latents[g] + math.sqrt(1 - corr) * _harmonic_pair(thetas[g], rng)
        trend = 0.5 * np.sin(2 * np.pi * t / rng.uniform(T / 2, 2 * T) + rng.uniform(0, 2 * np.pi))
        shocks = rng.standard_normal(T) * noise * math.sqrt(1 - 0.5**2)
        e = np.empty(T)
        e[0] = noise * rng.standard_normal()
        for i in range(1, T):
            e[i] = 0.5 * e[i - 1] + shocks[i]
        out[:, c] = rng.uniform(0.5, 2.0) * (season + trend + e) + rng.standard_normal()
    return out.astype(np.float32)


@dataclass
class ForecastWindows:
    """Standardised series (training statistics) and the chronological train/val/test boundaries."""

    series: torch.Tensor  # (T, C)
    seq_len: int
    pred_len: int
    train_end: int
    val_end: int

    def windows(self, starts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(x (B, L, C), y (B, F, C)) for window start indices `starts`."""
        check_tensor("starts", starts, ndim=1, floating=False)
        last = self.series.shape[0] - self.seq_len - self.pred_len
        if starts.numel() and (int(starts.min()) < 0 or int(starts.max()) > last):
            raise ValueError(f"starts must be window starts in [0, {last}] (T - seq_len - pred_len)")
        li = starts[:, None] + torch.arange(self.seq_len)
        fi = starts[:, None] + self.seq_len + torch.arange(self.pred_len)
        return self.series[li], self.series[fi]

    def split_starts(self, split: str, stride: int = 1) -> torch.Tensor:
        """Window starts whose targets lie inside `split` ("train", "val" or "test")."""
        check_choice("split", split, ("train", "val", "test"))
        check_int("stride", stride, low=1)
        lo, hi = {
            "train": (0, self.train_end),
            "val": (self.train_end - self.seq_len, self.val_end),
            "test": (self.val_end - self.seq_len, self.series.shape[0]),
        }[split]
        return torch.arange(lo, hi - self.seq_len - self.pred_len + 1, stride)


def make_windows(
    values: np.ndarray, seq_len: int, pred_len: int, train: float = 0.7, val: float = 0.1
) -> ForecastWindows:
    """Standardise `values` (T, C) with training statistics and split chronologically (default 70/10/20)."""
    if not isinstance(values, np.ndarray) or values.ndim != 2:
        raise ValueError(
            f"values must be a numpy array of shape (T, C), got {getattr(values, 'shape', values)}"
        )
    if not np.issubdtype(values.dtype, np.number) or not np.all(np.isfinite(values)):
        raise ValueError("values must hold finite numbers (no NaN or inf)")
    seq_len = check_int("seq_len", seq_len, low=1)
    pred_len = check_int("pred_len", pred_len, low=1)
    train = check_float("train", train, 0.0, 1.0, low_open=True, high_open=True)
    val = check_float(f"val (in [0, 1 - train={1 - train:g}))", val, 0.0, 1.0 - train, high_open=True)
    T = values.shape[0]
    train_end, val_end = int(train * T), int((train + val) * T)
    need = seq_len + pred_len
    if min(train_end, T - val_end + seq_len) < need + 1:
        raise ValueError(f"values has T={T} steps, too few for seq_len={seq_len} + pred_len={pred_len}")
    mu, sd = values[:train_end].mean(0), values[:train_end].std(0) + 1e-6
    series = torch.from_numpy(((values - mu) / sd).astype(np.float32))
    return ForecastWindows(series, seq_len, pred_len, train_end, val_end)


# ---------------------------------------------------------------------------------------- training


def lr_at_epoch(lr: float, epoch: int, schedule: str = "type3") -> float:
    """Learning rate of 0-based `epoch` under a Time-Series-Library schedule: ``constant``; ``type1`` (halve
    every epoch); ``type3`` (PHAT's default: lr for epochs 0-3, then x0.9 per epoch, as the official loop sets
    it after each epoch)."""
    check_int("epoch", epoch, low=0)
    check_choice("schedule", schedule, ("constant", "type1", "type3"))
    if schedule == "type1":
        return lr * 0.5**epoch
    if schedule == "type3":
        return lr * 0.9 ** max(0, epoch - 3)
    return lr


_LOSSES = ("huber", "mse", "mae")


def train_forecaster(
    model: nn.Module,
    data: ForecastWindows,
    epochs: int = 6,
    batch: int = 64,
    lr: float = 1e-3,
    schedule: str = "constant",
    loss: str = "huber",
    huber_delta: float = 0.5,
    steps_per_epoch: int | None = None,
    seed: int = 0,
) -> list[float]:
    """Adam over shuffled training windows; an epoch is one pass (or its first `steps_per_epoch` batches);
    the learning rate follows `schedule` per epoch. Returns the per-step training losses."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module forecaster, got {type(model).__name__}")
    if not isinstance(data, ForecastWindows):
        raise TypeError(f"data must be a ForecastWindows (from make_windows), got {type(data).__name__}")
    epochs = check_int("epochs", epochs, low=1)
    batch = check_int("batch", batch, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_choice("schedule", schedule, ("constant", "type1", "type3"))
    check_choice("loss", loss, _LOSSES)
    huber_delta = check_float("huber_delta", huber_delta, low=0.0, low_open=True)
    if steps_per_epoch is not None:
        check_int("steps_per_epoch", steps_per_epoch, low=1)
    seed = check_int("seed", seed, low=0)
    crit = {"huber": nn.HuberLoss(delta=huber_delta), "mse": nn.MSELoss(), "mae": nn.L1Loss()}[loss]
    gen = torch.Generator().manual_seed(seed)
    starts = data.split_starts("train")
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses: list[float] = []
    model.train()
    for epoch in range(epochs):
        for group in opt.param_groups:
            group["lr"] = lr_at_epoch(lr, epoch, schedule)
        order = starts[torch.randperm(len(starts), generator=gen)]
        chunks = order.split(batch)
        for idx in chunks[: steps_per_epoch or len(chunks)]:
            x, y = data.windows(idx)
            value = crit(model(x), y)
            opt.zero_grad()
            value.backward()
            opt.step()
            losses.append(value.item())
    return losses


@torch.no_grad()
def evaluate(
    model: nn.Module, data: ForecastWindows, split: str = "test", stride: int = 1
) -> tuple[float, float]:
    """(MSE, MAE) over the split's windows on the standardised scale, in eval mode."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module forecaster, got {type(model).__name__}")
    model.eval()
    se = ae = 0.0
    count = 0
    for chunk in data.split_starts(split, stride).split(256):
        x, y = data.windows(chunk)
        err = model(x) - y
        se += float((err**2).sum())
        ae += float(err.abs().sum())
        count += err.numel()
    return se / count, ae / count


@torch.no_grad()
def trivial_mse(data: ForecastWindows, split: str = "test", stride: int = 1) -> dict[str, float]:
    """Test MSE of the last observed value repeated (``last``) and of the lookback mean (``mean``)."""
    se = {"last": 0.0, "mean": 0.0}
    count = 0
    for chunk in data.split_starts(split, stride).split(256):
        x, y = data.windows(chunk)
        se["last"] += float(((x[:, -1:] - y) ** 2).sum())
        se["mean"] += float(((x.mean(1, keepdim=True) - y) ** 2).sum())
        count += y.numel()
    return {k: v / count for k, v in se.items()}


# --------------------------------------------------------------------------------------- baselines


def check_series_input(x: object, seq_len: int, n_vars: int) -> torch.Tensor:
    """`x` as a finite floating tensor of shape (B >= 1, seq_len, n_vars)."""
    check_tensor("x", x, ndim=3, floating=True, finite=True, shape=(None, seq_len, n_vars))
    if x.shape[0] < 1:
        raise ValueError(f"x must hold at least one window (B >= 1), got shape {tuple(x.shape)}")
    return x


def window_norm(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each window and variable standardised over time (RevIN without the affine part): (x_n, mean, std)."""
    mean = x.mean(1, keepdim=True)
    std = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + 1e-5)
    return (x - mean) / std, mean, std


def _sizes(**sizes: int) -> None:
    for name, v in sizes.items():
        check_int(name, v, low=1)


def _heads(d_model: int, n_heads: int) -> None:
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")


class SeasonalNaive(nn.Module):
    """Repeat the last `period` observed steps over the horizon (no parameters)."""

    def __init__(self, seq_len: int, pred_len: int, n_vars: int, period: int) -> None:
        super().__init__()
        _sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars)
        self.period = check_int(f"period (in [1, seq_len={seq_len}])", period, 1, seq_len)
        self.seq_len, self.pred_len, self.n_vars = seq_len, pred_len, n_vars

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_series_input(x, self.seq_len, self.n_vars)
        idx = self.seq_len - self.period + torch.arange(self.pred_len) % self.period
        return x[:, idx]


class DLinear(nn.Module):
    """DLinear: moving-average trend + remainder, one linear L -> F map for each part, shared by variables."""

    def __init__(self, seq_len: int, pred_len: int, n_vars: int, kernel: int = 25) -> None:
        super().__init__()
        _sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars, kernel=kernel)
        self.seq_len, self.n_vars, self.kernel = seq_len, n_vars, kernel
        self.trend = nn.Linear(seq_len, pred_len)
        self.seasonal = nn.Linear(seq_len, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        check_series_input(x, self.seq_len, self.n_vars)
        k = self.kernel
        xp = torch.cat([x[:, :1].expand(-1, (k - 1) // 2, -1), x, x[:, -1:].expand(-1, k // 2, -1)], 1)
        trend = F.avg_pool1d(xp.transpose(1, 2), k, stride=1)
        season = x.transpose(1, 2) - trend
        return (self.trend(trend) + self.seasonal(season)).transpose(1, 2)


class ITransformer(nn.Module):
    """iTransformer: each variable's normalised lookback (and each of ``n_mark`` time-mark series, when given) is
    one token; a Transformer encoder mixes the tokens; a linear head maps d_model -> F per variable."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        n_mark: int = 0,
        d_model: int = 64,
        d_ff: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        _sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars, d_model=d_model, d_ff=d_ff)
        _sizes(n_layers=n_layers, n_heads=n_heads)
        self.n_mark = check_int("n_mark", n_mark, 0)
        _heads(d_model, n_heads)
        check_probability("dropout", dropout)
        self.seq_len, self.n_vars = seq_len, n_vars
        self.embed = nn.Linear(seq_len, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True
        )
        self.encoder = nn.TransformerEncoder(
            layer, n_layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False
        )
        self.head = nn.Linear(d_model, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        check_series_input(x, self.seq_len, self.n_vars)
        marks = x_mark is not None and self.n_mark > 0
        if marks:
            check_tensor("x_mark", x_mark, floating=True, finite=True, shape=(*x.shape[:2], self.n_mark))
        x, mean, std = window_norm(x)
        if marks:
            x = torch.cat([x, x_mark], -1)
        z = self.encoder(self.embed(x.transpose(1, 2)))
        return self.head(z).transpose(1, 2)[..., : self.n_vars] * std + mean


class PatchTST(nn.Module):
    """PatchTST (channel independent): each variable's normalised lookback is cut into patches that a
    Transformer encoder mixes; a flatten head maps to F."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        patch_len: int = 16,
        stride: int = 8,
        d_model: int = 32,
        d_ff: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        _sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars, patch_len=patch_len, stride=stride)
        _sizes(d_model=d_model, d_ff=d_ff, n_layers=n_layers, n_heads=n_heads)
        _heads(d_model, n_heads)
        check_probability("dropout", dropout)
        self.seq_len, self.n_vars, self.patch_len, self.stride = seq_len, n_vars, patch_len, stride
        n_patch = (seq_len + stride - patch_len) // stride + 1
        if n_patch < 1:
            raise ValueError(f"patch_len ({patch_len}) is too long for seq_len ({seq_len})")
        self.embed = nn.Linear(patch_len, d_model)
        self.pos = nn.Parameter(0.02 * torch.randn(n_patch, d_model))
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(n_patch * d_model, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        check_series_input(x, self.seq_len, self.n_vars)
        x, mean, std = window_norm(x)
        b, n = x.shape[0], x.shape[2]
        z = x.transpose(1, 2).reshape(b * n, -1)
        z = torch.cat([z, z[:, -1:].expand(-1, self.stride)], 1).unfold(1, self.patch_len, self.stride)
        z = self.encoder(self.embed(z) + self.pos)
        return self.head(z.flatten(1)).reshape(b, n, -1).transpose(1, 2) * std + mean


class TimesNetLite(nn.Module):
    """TimesNet-lite: embed the normalised series (C -> d per step), extend it linearly to L + F steps, and in
    each block fold it by its top-k FFT periods into 2-D (cycles x period) maps mixed by two 3x3 convolutions,
    summed with softmax weights of the period amplitudes (residual, LayerNorm); project d -> C."""

    def __init__(
        self, seq_len: int, pred_len: int, n_vars: int, d_model: int = 16, top_k: int = 2, n_blocks: int = 1
    ) -> None:
        super().__init__()
        _sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars, d_model=d_model, n_blocks=n_blocks)
        self.top_k = check_int(
            "top_k (in [1, (seq_len + pred_len) // 2])", top_k, 1, (seq_len + pred_len) // 2
        )
        self.seq_len, self.pred_len, self.n_vars = seq_len, pred_len, n_vars
        self.embed = nn.Linear(n_vars, d_model)
        self.extend = nn.Linear(seq_len, seq_len + pred_len)
        self.convs = nn.ModuleList(
            nn.Sequential(
                nn.Conv2d(d_model, d_model, 3, padding=1),
                nn.GELU(),
                nn.Conv2d(d_model, d_model, 3, padding=1),
            )
            for _ in range(n_blocks)
        )
        self.norm = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, n_vars)

    def _block(self, h: torch.Tensor, conv: nn.Module) -> torch.Tensor:
        b, t, d = h.shape
        amp = torch.fft.rfft(h, dim=1).abs().mean(-1)  # (B, T/2+1)
        amp[:, 0] = 0
        top = amp.mean(0).topk(self.top_k).indices
        outs = []
        for f in top.tolist():
            p = max(1, t // f)
            n = math.ceil(t / p)
            z = F.pad(h, (0, 0, 0, n * p - t)).reshape(b, n, p, d).permute(0, 3, 1, 2)
            outs.append(conv(z).permute(0, 2, 3, 1).reshape(b, n * p, d)[:, :t])
        w = torch.softmax(amp[:, top], -1)  # (B, k)
        return self.norm(h + (torch.stack(outs, -1) * w[:, None, None]).sum(-1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_series_input(x, self.seq_len, self.n_vars)
        x, mean, std = window_norm(x)
        h = self.extend(self.embed(x).transpose(1, 2)).transpose(1, 2)
        for conv in self.convs:
            h = self._block(h, conv)
        return self.out(h)[:, -self.pred_len :] * std + mean
