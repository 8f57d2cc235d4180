"""Softmax temperature calibration of a merged model (LEWC, arXiv 2510.08023, ICLR 2026).

The paper's point: the merged model's logits are a temperature-shrunk ensemble, so its loss barrier vanishes
once its temperature is recalibrated. The calibration procedure is a reconstruction (the brief's):

    T* = argmin_T  NLL(softmax(z / T), y)     over a held-out calibration split,

a bounded 1-D search over log T in [-6, 6] with ``scipy.optimize.minimize_scalar``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.optimize import minimize_scalar

from iclr26.checks import check_array, check_float, check_tensor

__all__ = ["calibrate_temperature", "nll"]

LOG_T_BOUNDS = (-6.0, 6.0)


def _as_logits_labels(
    logits: torch.Tensor | np.ndarray, y: torch.Tensor | np.ndarray
) -> tuple[torch.Tensor, torch.Tensor]:
    if isinstance(logits, torch.Tensor):
        check_tensor("logits", logits, floating=True)
    else:
        logits = check_array("logits", logits)
    if not isinstance(y, torch.Tensor):
        y = check_array("y", y, integer=True)
    z = torch.as_tensor(logits).detach().to("cpu", torch.float64)
    t = torch.as_tensor(y).detach()
    if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
        raise TypeError(f"y must hold integer class labels, got dtype {t.dtype}")
    t = t.to("cpu", torch.long)
    if z.ndim != 2:
        raise ValueError(f"logits must have shape (n, classes), got {tuple(z.shape)}")
    if z.shape[0] == 0:
        raise ValueError("calibration set is empty: logits has 0 rows")
    if t.shape != (z.shape[0],):
        raise ValueError(f"y must have shape ({z.shape[0]},) to match logits, got {tuple(t.shape)}")
    if not bool(torch.isfinite(z).all()):
        raise ValueError("logits must be finite (no NaN or infinity)")
    if int(t.min()) < 0 or int(t.max()) >= z.shape[1]:
        raise ValueError(
            f"y must hold class labels in [0, {z.shape[1]}), got values in [{int(t.min())}, {int(t.max())}]"
        )
    return z, t


def nll(logits: torch.Tensor | np.ndarray, y: torch.Tensor | np.ndarray, temperature: float = 1.0) -> float:
    """Mean negative log-likelihood of softmax(logits / temperature) at the labels `y` (nats).

    Examples
    --------
    >>> import torch
    >>> round(nll(torch.zeros(4, 2), torch.tensor([0, 1, 0, 1])), 4)
    0.6931
    """
    check_float("temperature", temperature, low=0.0, low_open=True)
    z, t = _as_logits_labels(logits, y)
    return float(torch.nn.functional.cross_entropy(z / temperature, t))  # -mean log softmax(z/T)[y]


def calibrate_temperature(logits: torch.Tensor | np.ndarray, y: torch.Tensor | np.ndarray) -> float:
    """The temperature T minimising the NLL of softmax(logits / T) on a calibration split.

    Parameters
    ----------
    logits : (n, classes) logits of the calibration split.
    y : (n,) integer labels.

    Returns
    -------
    T in [e^-6, e^6] (bounded search over log T).

    Examples
    --------
    >>> import torch
    >>> g = torch.Generator().manual_seed(0)
    >>> z = 3 * torch.randn(4000, 5, generator=g)
    >>> y = torch.multinomial(torch.softmax(z, 1), 1, generator=g).squeeze(1)
    >>> abs(calibrate_temperature(z / 2.0, y) - 0.5) < 0.05
    True
    """
    z, t = _as_logits_labels(logits, y)

    def objective(log_t: float) -> float:
        return float(torch.nn.functional.cross_entropy(z * math.exp(-log_t), t))

    res = minimize_scalar(objective, bounds=LOG_T_BOUNDS, method="bounded", options={"xatol": 1e-6})
    return float(math.exp(res.x))
