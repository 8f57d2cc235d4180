"""Training and fit/impute wrappers (pypots-style) for T1 (arXiv 2602.21043) and the SAITS-like baseline.

Training follows the official imputation recipe: every batch draws a fresh MCAR mask at rate r over the observed
entries, the network sees only what survives (masked values set to 0), and the loss is the MSE on the
artificially hidden entries (plus an optional observed-reconstruction term, weight 0 for T1 as in the official code,
1 for SAITS as in its joint loss). Plain Adam at a constant learning rate.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from iclr26.architectures.t1_imputation.baselines import SAITSLike
from iclr26.architectures.t1_imputation.model import T1Config, T1Imputer
from iclr26.checks import check_array, check_float, check_int, check_tensor

__all__ = ["SAITS", "T1", "DeepImputer", "masked_mse"]


def masked_mse(pred: torch.Tensor, target: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Mean squared error over entries with weight 1 (0 if there are none)."""
    check_tensor("pred", pred, floating=True)
    check_tensor("target", target, floating=True)
    check_tensor("weight", weight)
    for name, other in (("target", target), ("weight", weight)):
        if other.shape != pred.shape:
            raise ValueError(
                f"{name} must have the shape of pred {tuple(pred.shape)}, got {tuple(other.shape)}"
            )
    if weight.is_complex():
        raise TypeError(f"weight must be a real 0/1 weight (bool, integer or float), got {weight.dtype}")
    if not bool(((weight == 0) | (weight == 1)).all()):
        raise ValueError("weight must be binary (1 = entry counted, 0 = ignored)")
    w = weight.to(pred.dtype)
    return ((pred - target) ** 2 * w).sum() / w.sum().clamp_min(1.0)


def _as_arrays(x: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    given = x
    try:
        x = np.asarray(x, dtype=np.float32)
    except (TypeError, ValueError):
        raise ValueError(f"X must be a numeric (N, T, M) array, got {type(x).__name__}") from None
    check_array("X", given)  # real numbers: a complex array is refused, not cast to its real part
    if mask is not None:
        check_array("mask", mask)
    if x.ndim != 3 or x.shape[0] < 1:
        raise ValueError(f"X must have shape (N >= 1, T, M), got {x.shape}")
    if mask is None:
        mask = (~np.isnan(x)).astype(np.float32)
    mask = np.asarray(mask, dtype=np.float32)
    if mask.shape != x.shape:
        raise ValueError(f"mask shape {mask.shape} does not match X shape {x.shape}")
    if not np.isin(mask, (0.0, 1.0)).all():
        raise ValueError("mask must be binary (1 = observed, 0 = missing)")
    if np.isnan(x[mask > 0]).any():
        raise ValueError("X has NaN at positions the mask marks as observed")
    if not np.isfinite(x[mask > 0]).all():
        raise ValueError("X has infinite values at positions the mask marks as observed")
    return np.where(mask > 0, x, 0.0).astype(np.float32), mask


class DeepImputer:
    """fit(X, mask) / impute(X, mask) on (N, T, M) arrays around a torch imputer ``net(x, mask) -> (B,T,M)``.

    `rate` is the artificial MCAR rate of training; `steps` Adam steps of `batch_size` random windows; the network
    lives on `device` (minibatches and masks are drawn on the CPU from the seeded generator and moved there, so a
    CPU run is the same whatever the device default).
    """

    ort_weight = 0.0

    def __init__(
        self,
        rate: float = 0.5,
        steps: int = 1000,
        batch_size: int = 16,
        lr: float = 1e-3,
        seed: int = 0,
        log_every: int = 0,
        device: str | torch.device = "cpu",
    ) -> None:
        check_float("rate (an artificial missing fraction)", rate, 0.0, 1.0, low_open=True, high_open=True)
        check_int("steps (a positive integer)", steps, low=1)
        check_int("batch_size (a positive integer)", batch_size, low=1)
        check_float("lr (positive)", lr, low=0.0, low_open=True)
        check_int("seed", seed, low=0)
        check_int("log_every (0: no log)", log_every, low=0)
        self.rate, self.steps, self.batch_size, self.lr, self.seed = rate, steps, batch_size, lr, seed
        self.log_every = log_every
        try:
            self.device = torch.device(device)
        except (RuntimeError, TypeError):
            raise ValueError(
                f"device must be a torch device such as 'cpu' or 'cuda', got {device!r}"
            ) from None
        self.net: nn.Module | None = None
        self.losses: list[tuple[int, float]] = []

    def build(self, n_vars: int, seq_len: int) -> nn.Module:  # pragma: no cover - overridden
        """The torch imputer for windows of `seq_len` steps and `n_vars` variables."""
        raise NotImplementedError

    def fit(
        self, X: np.ndarray, mask: np.ndarray | None = None, progress: Callable[[int], None] | None = None
    ) -> DeepImputer:
        """Train on windows X (N, T, M); mask 1 = observed (default: not NaN). Returns self."""
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be None or a callable, got {type(progress).__name__}")
        x, k = _as_arrays(X, mask)
        if k.sum() == 0:
            raise ValueError("X has no observed entry (all-missing training data); nothing to train on")
        torch.manual_seed(self.seed)
        gen = torch.Generator().manual_seed(self.seed)
        self.net = self.build(x.shape[2], x.shape[1]).to(self.device)
        opt = torch.optim.Adam(self.net.parameters(), lr=self.lr)
        xt, kt = torch.from_numpy(x), torch.from_numpy(k)
        self.net.train()
        for step in range(self.steps):
            idx = torch.randint(0, len(xt), (self.batch_size,), generator=gen)
            xb, kb = xt[idx], kt[idx]
            keep = (torch.rand(xb.shape, generator=gen) >= self.rate).to(xb.dtype)
            xb, kb, keep = xb.to(self.device), kb.to(self.device), keep.to(self.device)
            k_in = kb * keep
            hidden = kb * (1 - keep)
            pred = self.net(xb * k_in, k_in)
            loss = masked_mse(pred, xb, hidden)
            if self.ort_weight:
                loss = loss + self.ort_weight * masked_mse(pred, xb, k_in)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if self.log_every and (step % self.log_every == 0 or step == self.steps - 1):
                self.losses.append((step, float(loss.detach())))
            if progress is not None:
                progress(step)
        self.net.eval()
        return self

    @torch.no_grad()
    def reconstruct(self, X: np.ndarray, mask: np.ndarray | None = None, batch_size: int = 64) -> np.ndarray:
        """The network's reconstruction of every entry (observed ones included), (N, T, M)."""
        if self.net is None:
            raise ValueError("the imputer is not fitted: call fit(X, mask) first")
        check_int("batch_size", batch_size, low=1)
        x, k = _as_arrays(X, mask)
        self.net.eval()
        outs = [
            self.net(
                torch.from_numpy(x[i : i + batch_size]).to(self.device),
                torch.from_numpy(k[i : i + batch_size]).to(self.device),
            ).cpu()
            for i in range(0, len(x), batch_size)
        ]
        return torch.cat(outs).numpy()

    def impute(self, X: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """X with its missing entries (mask 0) replaced by the reconstruction, (N, T, M)."""
        x, k = _as_arrays(X, mask)
        return np.where(k > 0, x, self.reconstruct(x, k))


class T1(DeepImputer):
    """T1 with the pypots-like fit/impute interface; `config` is a :class:`T1Config`."""

    def __init__(self, config: T1Config | None = None, **kwargs: float | int) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        if config is not None and not isinstance(config, T1Config):
            raise TypeError(f"config must be None or a T1Config, got {type(config).__name__}")
        self.config = config or T1Config()

    def build(self, n_vars: int, seq_len: int) -> nn.Module:
        """A fresh :class:`T1Imputer`."""
        return T1Imputer(n_vars, seq_len, self.config)


class SAITS(DeepImputer):
    """The SAITS-like baseline (joint masked-imputation + observed-reconstruction loss) with fit/impute."""

    ort_weight = 1.0

    def __init__(self, d_model: int = 64, n_layers: int = 2, n_heads: int = 4, **kwargs: float | int) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        for name, v in (("d_model", d_model), ("n_layers", n_layers), ("n_heads", n_heads)):
            check_int(name, v, low=1)
        self.d_model, self.n_layers, self.n_heads = d_model, n_layers, n_heads

    def build(self, n_vars: int, seq_len: int) -> nn.Module:
        """A fresh :class:`SAITSLike`."""
        return SAITSLike(n_vars, seq_len, self.d_model, self.n_layers, self.n_heads)
