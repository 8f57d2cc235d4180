"""Step-capped training (Adam, learning rate halved every epoch as in Time-Series-Library "type1"), evaluation
and cost measurement (wall time per step, bytes saved for backward) of the forecasters."""

from __future__ import annotations

import time

import torch
from torch import nn

from iclr26.architectures.fact_forecast.data import ForecastData
from iclr26.checks import check_bool, check_float, check_int

__all__ = ["evaluate", "saved_activation_bytes", "step_time", "train_forecaster"]


def _check_model_data(model: object, data: object, use_marks: object) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module forecaster, got {type(model).__name__}")
    if not isinstance(data, ForecastData):
        raise TypeError(f"data must be a ForecastData (from prepare), got {type(data).__name__}")
    check_bool("use_marks", use_marks)


def _check_sizes(batch: int, seq_len: int, n_vars: int, n_mark: int) -> None:
    check_int("batch", batch, low=1)
    check_int("seq_len", seq_len, low=1)
    check_int("n_vars", n_vars, low=1)
    check_int("n_mark", n_mark, low=0)


def train_forecaster(
    model: nn.Module,
    data: ForecastData,
    steps: int,
    batch: int = 64,
    lr: float = 1e-3,
    epochs: int = 6,
    seed: int = 0,
    use_marks: bool = True,
) -> list[float]:
    """Train with MSE for `steps` minibatches (random training windows), lr halved every steps/epochs steps."""
    _check_model_data(model, data, use_marks)
    check_int("steps", steps, low=1)
    check_int("epochs", epochs, low=1)
    check_int("batch", batch, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("seed", seed, low=0)
    gen = torch.Generator().manual_seed(seed)
    starts = data.split_starts("train")
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    per_epoch = max(1, steps // epochs)
    sched = torch.optim.lr_scheduler.StepLR(opt, per_epoch, 0.5)
    losses = []
    model.train()
    for _ in range(steps):
        idx = starts[torch.randint(len(starts), (batch,), generator=gen)]
        x, xm, y = data.windows(idx)
        loss = nn.functional.mse_loss(model(x, xm if use_marks else None), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate(
    model: nn.Module, data: ForecastData, split: str = "test", stride: int = 4, use_marks: bool = True
) -> tuple[float, float]:
    """(MSE, MAE) over the split's windows (standardised scale), eval mode."""
    _check_model_data(model, data, use_marks)
    model.eval()
    starts = data.split_starts(split, stride)
    se = ae = 0.0
    count = 0
    for chunk in starts.split(256):
        x, xm, y = data.windows(chunk)
        err = model(x, xm if use_marks else None) - y
        se += float((err**2).sum())
        ae += float(err.abs().sum())
        count += err.numel()
    return se / count, ae / count


def _batch(model: nn.Module, batch: int, seq_len: int, n_vars: int, n_mark: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, seq_len, n_vars, generator=g)
    xm = torch.randn(batch, seq_len, n_mark, generator=g) if n_mark else None
    return x, xm


def step_time(
    model: nn.Module, batch: int, seq_len: int, n_vars: int, n_mark: int = 0, steps: int = 20, warmup: int = 3
) -> float:
    """Mean wall seconds of one training step (forward, MSE, backward, Adam) after `warmup` steps."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module forecaster, got {type(model).__name__}")
    _check_sizes(batch, seq_len, n_vars, n_mark)
    check_int("steps", steps, low=1)
    check_int("warmup", warmup, low=0)
    x, xm = _batch(model, batch, seq_len, n_vars, n_mark, 0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    model.train()
    t0 = 0.0
    for i in range(warmup + steps):
        if i == warmup:
            t0 = time.perf_counter()
        out = model(x, xm)
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return (time.perf_counter() - t0) / steps


def saved_activation_bytes(model: nn.Module, batch: int, seq_len: int, n_vars: int, n_mark: int = 0) -> float:
    """Bytes of tensors autograd saves for backward in one training forward (deterministic memory proxy)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module forecaster, got {type(model).__name__}")
    _check_sizes(batch, seq_len, n_vars, n_mark)
    x, xm = _batch(model, batch, seq_len, n_vars, n_mark, 0)
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    model.train()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x, xm).sum()
    return float(sum(seen.values()))
