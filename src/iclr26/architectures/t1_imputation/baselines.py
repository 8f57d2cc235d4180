"""Baselines for the T1 reproduction (arXiv 2602.21043) (pypots is not installed, so the always-available ones of the brief).

Classical: per-variable linear interpolation, last observation carried forward, scikit-learn's ``KNNImputer`` and
``IterativeImputer`` on (time x variables) rows. Deep: :class:`SAITSLike`, a small masked Transformer over time
steps trained like SAITS (masked-imputation + observed-reconstruction loss); it is wrapped for fit/impute in
``train.py``.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from iclr26.architectures.t1_imputation.model import check_series, masked_normalize
from iclr26.checks import check_array, check_int, check_probability

__all__ = ["SAITSLike", "iterative_impute", "knn_impute", "linear_interpolation", "locf"]


def _check_np(x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    for name, a in (("x", x), ("mask", mask)):
        if np.iscomplexobj(a):
            raise ValueError(f"{name} must hold real numbers, got a complex array")
    try:
        x, mask = np.asarray(x, dtype=float), np.asarray(mask, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("x and mask must be numeric (N, T, M) arrays") from None
    if x.ndim != 3:
        raise ValueError(f"x must have shape (N, T, M), got {x.shape}")
    if mask.shape != x.shape:
        raise ValueError(f"mask shape {mask.shape} does not match x shape {x.shape}")
    if not np.isin(mask, (0.0, 1.0)).all():
        raise ValueError("mask must be binary (1 = observed, 0 = missing)")
    if not np.isfinite(x[mask > 0]).all():
        raise ValueError("x must be finite at the observed entries (mask = 1)")
    return x, mask


def _check_reference(reference: np.ndarray, n_vars: int) -> np.ndarray:
    ref = check_array("reference", reference, finite=True)
    if ref.ndim != 2 or ref.shape[1] != n_vars or ref.shape[0] < 1:
        raise ValueError(f"reference must be (time, {n_vars}) training rows, got shape {ref.shape}")
    return ref


def linear_interpolation(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per window and variable, linear interpolation between observed steps (constant beyond the ends; 0 if none)."""
    x, mask = _check_np(x, mask)
    out = np.where(mask > 0, x, 0.0)
    t = np.arange(x.shape[1])
    for i in range(x.shape[0]):
        for j in range(x.shape[2]):
            obs = mask[i, :, j] > 0
            if obs.any():
                out[i, :, j] = np.interp(t, t[obs], x[i, obs, j])
    return out


def locf(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Last observation carried forward; steps before the first observation take the first observed value."""
    x, mask = _check_np(x, mask)
    n_t = x.shape[1]
    idx = np.where(mask > 0, np.arange(n_t)[None, :, None], -1)
    idx = np.maximum.accumulate(idx, axis=1)
    first = np.argmax(mask > 0, axis=1)  # (N, M)
    idx = np.where(idx < 0, first[:, None, :], idx)
    filled = np.take_along_axis(x, idx, axis=1)
    any_obs = (mask > 0).any(1, keepdims=True)
    return np.where(mask > 0, x, np.where(any_obs, filled, 0.0))


def _rows(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    r = np.where(mask > 0, x, np.nan)
    return r.reshape(-1, x.shape[-1])


def knn_impute(x: np.ndarray, mask: np.ndarray, reference: np.ndarray, n_neighbors: int = 5) -> np.ndarray:
    """scikit-learn KNNImputer on time-step rows; donors are the (time, M) rows of `reference` (training data)."""
    from sklearn.impute import KNNImputer

    x, mask = _check_np(x, mask)
    check_int("n_neighbors", n_neighbors, low=1)
    imp = KNNImputer(n_neighbors=n_neighbors).fit(_check_reference(reference, x.shape[2]))
    out = imp.transform(_rows(x, mask)).reshape(x.shape)
    return np.where(mask > 0, x, out)


def iterative_impute(x: np.ndarray, mask: np.ndarray, reference: np.ndarray, seed: int = 0) -> np.ndarray:
    """scikit-learn IterativeImputer (BayesianRidge chains) fitted on the (time, M) rows of `reference`."""
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer

    x, mask = _check_np(x, mask)
    check_int("seed", seed, 0, 2**32 - 1)
    imp = IterativeImputer(max_iter=10, random_state=seed).fit(_check_reference(reference, x.shape[2]))
    out = imp.transform(_rows(x, mask)).reshape(x.shape)
    return np.where(mask > 0, x, out)


class SAITSLike(nn.Module):
    """A minimal SAITS-style imputer: Transformer encoder over time steps on [x_norm, mask] features.

    ``forward(x (B,T,M), mask (B,T,M)) -> (B,T,M)`` reconstruction, de-normalised like T1.
    """

    def __init__(
        self,
        n_vars: int,
        seq_len: int,
        d_model: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        for name, v in (
            ("n_vars", n_vars),
            ("seq_len", seq_len),
            ("d_model", d_model),
            ("n_layers", n_layers),
            ("n_heads", n_heads),
        ):
            check_int(name, v, low=1)
        check_probability("dropout", dropout)
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        self.n_vars, self.seq_len = n_vars, seq_len
        self.inp = nn.Linear(2 * n_vars, d_model)
        self.pos = nn.Parameter(torch.randn(seq_len, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 2 * d_model, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.out = nn.Linear(d_model, n_vars)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Reconstruction (B, T, M) from the observed entries."""
        check_series(x, mask, self.n_vars)
        if x.shape[1] != self.seq_len:
            raise ValueError(f"x has length {x.shape[1]} but the model was built for seq_len={self.seq_len}")
        xn, mu, sigma = masked_normalize(x, mask)
        h = self.inp(torch.cat([xn, mask.to(x.dtype)], dim=-1)) + self.pos
        return self.out(self.encoder(h)) * sigma + mu
