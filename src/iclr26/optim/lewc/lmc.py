"""Linear mode connectivity curves and barriers (LEWC, arXiv 2510.08023, ICLR 2026).

Along theta_lambda = (1 - lambda) theta_A + lambda theta_B the test loss and accuracy are measured, optionally
after recalibrating the softmax temperature of every merged model (endpoints included) on a held-out split.
The barriers are

    B_loss = max_lambda [ L(theta_lambda) - ((1 - lambda) L(theta_A) + lambda L(theta_B)) ],
    B_acc  = max_lambda [ ((1 - lambda) acc(theta_A) + lambda acc(theta_B)) - acc(theta_lambda) ],

with the linear interpolation of the endpoints written ``L_A + lambda (L_B - L_A)`` so that a model merged
with itself has a barrier of exactly 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from iclr26.checks import check_int, check_tensor
from iclr26.optim.lewc.calibration import calibrate_temperature, nll
from iclr26.optim.lewc.merging import check_lambda, check_same_architecture, merge_linear

__all__ = ["DEFAULT_LAMBDAS", "barrier", "lmc_curve", "predict_logits"]

DEFAULT_LAMBDAS: tuple[float, ...] = tuple(i / 10 for i in range(11))


@torch.no_grad()
def predict_logits(model: nn.Module, x: torch.Tensor, batch_size: int = 4096) -> torch.Tensor:
    """The model's logits on `x` in eval mode, in chunks of `batch_size`, as a float64 CPU tensor."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    check_tensor("x", x, floating=True, finite=True)
    if x.ndim < 1:
        raise ValueError("x must hold a leading batch axis, got a 0-D tensor")
    check_int("batch_size", batch_size, low=1)
    model.eval()
    return torch.cat([model(x[i : i + batch_size]) for i in range(0, len(x), batch_size)]).to(
        "cpu", torch.float64
    )


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    """Fraction of rows whose argmax equals the label."""
    return float((logits.argmax(1) == y.to(logits.device)).double().mean())


def barrier(values: Sequence[float], lambdas: Sequence[float], higher_is_better: bool = False) -> float:
    """Largest excess of `values` over the straight line between its endpoints (sign flipped for accuracies).

    Examples
    --------
    >>> barrier([1.0, 3.0, 1.0], [0.0, 0.5, 1.0])
    2.0
    """
    v, lam = np.asarray(values, dtype=float), np.asarray(lambdas, dtype=float)
    if v.shape != lam.shape or v.size < 2:
        raise ValueError(f"values and lambdas must have the same length >= 2, got {v.shape} and {lam.shape}")
    if lam[0] != 0.0 or lam[-1] != 1.0:
        raise ValueError(f"lambdas must start at 0 and end at 1, got {lam[0]} and {lam[-1]}")
    if np.any(np.diff(lam) <= 0):
        raise ValueError(f"lambdas must increase strictly from 0 to 1, got {lam.tolist()}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite (no NaN or infinity)")
    line = v[0] + lam * (v[-1] - v[0])  # (1 - lambda) v_A + lambda v_B
    excess = line - v if higher_is_better else v - line
    return float(excess.max())


def _split(data: Mapping[str, Any], key: str) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(data, Mapping):
        raise TypeError(f"data must be a mapping of splits (x, y), got {type(data).__name__}")
    if key not in data:
        raise ValueError(f"data must contain a {key!r} split (x, y), got keys {sorted(data)}")
    x, y = data[key]
    if len(x) == 0:
        raise ValueError(f"the {key!r} split of data is empty")
    if len(x) != len(y):
        raise ValueError(f"data[{key!r}] has {len(x)} inputs but {len(y)} labels")
    return x, torch.as_tensor(y)


def lmc_curve(
    model_a: nn.Module,
    model_b: nn.Module,
    data: Mapping[str, Any],
    lambdas: Sequence[float] = DEFAULT_LAMBDAS,
    calibrate: bool = True,
) -> dict[str, Any]:
    """Test loss and accuracy along the linear path from `model_a` to `model_b`, and the barriers.

    Parameters
    ----------
    model_a, model_b : two models of identical architecture.
    data : mapping with ``"test": (x, y)``; ``"cal": (x, y)`` (required when `calibrate`), and optionally
        ``"bn"``: a re-iterable (list, DataLoader) of input batches on which the BatchNorm statistics
        of each merged model are reset.
    lambdas : increasing interpolation coefficients from 0 to 1.
    calibrate : recalibrate the temperature of every model on the path (endpoints included) on ``"cal"``.

    Returns
    -------
    dict with lists ``lambdas``, ``loss`` (calibrated when `calibrate`), ``loss_raw`` (T = 1), ``acc``,
    ``temperature``, and floats ``barrier_loss``, ``barrier_loss_raw``, ``barrier_acc``.

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    >>> x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    >>> lmc_curve(net, net, {"test": (x, y), "cal": (x, y)})["barrier_loss"]
    0.0
    """
    check_same_architecture(model_a, model_b)
    lams = [check_lambda(v) for v in lambdas]
    if len(lams) < 2 or lams[0] != 0.0 or lams[-1] != 1.0 or any(b <= a for a, b in zip(lams, lams[1:])):
        raise ValueError(f"lambdas must increase strictly from 0 to 1, got {lams}")
    x_test, y_test = _split(data, "test")
    if calibrate:
        x_cal, y_cal = _split(data, "cal")
    bn: Iterable[torch.Tensor] | None = data.get("bn")
    out: dict[str, Any] = {"lambdas": lams, "loss": [], "loss_raw": [], "acc": [], "temperature": []}
    for lam in lams:
        merged = merge_linear(model_a, model_b, lam, reset_bn_loader=bn)
        z_test = predict_logits(merged, x_test)
        temp = calibrate_temperature(predict_logits(merged, x_cal), y_cal) if calibrate else 1.0
        out["temperature"].append(temp)
        out["loss_raw"].append(nll(z_test, y_test))
        out["loss"].append(nll(z_test, y_test, temp))
        out["acc"].append(accuracy(z_test, y_test))
    out["barrier_loss"] = barrier(out["loss"], lams)
    out["barrier_loss_raw"] = barrier(out["loss_raw"], lams)
    out["barrier_acc"] = barrier(out["acc"], lams, higher_is_better=True)
    return out
