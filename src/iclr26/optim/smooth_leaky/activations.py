"""Smooth-Leaky and Randomized Smooth-Leaky activations (Lillo & Cheney, ICLR 2026, arXiv 2509.22562).

Smooth-Leaky (the paper's Eq. 1) blends a leaky line with a Swish-shaped gate:

    f(x) = alpha * x + (1 - alpha) * x * sigmoid(curvature * x / power),

so f(x) ~ alpha x for x << 0, f(x) ~ x for x >> 0, f(0) = 0 and f is smooth. With k = curvature / power,
f'(x) = alpha + (1 - alpha) s(k x) where s(z) = sigmoid(z) + z sigmoid(z) (1 - sigmoid(z)) ranges over
[S_MIN, S_MAX] = [-0.0998, 1.0998]; the derivative floor alpha + (1 - alpha) S_MIN is positive only for
alpha > ALPHA_FLOOR_MIN (about 0.0908). Randomized Smooth-Leaky draws the slope r ~ U(lower, upper) in training
(per element by default, like RReLU) and uses r = (lower + upper) / 2 in evaluation.

Example
-------
>>> import torch
>>> act = SmoothLeaky()
>>> float(act(torch.zeros(1)))
0.0
>>> round(min_derivative(0.1), 4)
0.0101
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import torch
from torch import Tensor, nn

from iclr26.checks import check_choice, check_float, check_tensor

__all__ = [
    "ACTIVATIONS",
    "ALPHA_FLOOR_MIN",
    "S_MAX",
    "S_MIN",
    "NonPositiveFloorWarning",
    "RandomizedSmoothLeaky",
    "SmoothLeaky",
    "activation_names",
    "get_activation",
    "max_derivative",
    "min_derivative",
    "smooth_leaky",
    "smooth_leaky_derivative",
]


def _gate_extremum() -> float:
    """The z > 0 where s(z) = sigmoid(z)(1 + z(1 - sigmoid(z))) is largest: the root of z tanh(z / 2) = 2."""
    z = 2.4
    for _ in range(50):  # Newton on g(z) = z tanh(z/2) - 2
        t = math.tanh(z / 2)
        z -= (z * t - 2) / (t + z * (1 - t * t) / 2)
    return z


def _s(z: float) -> float:
    sig = 1.0 / (1.0 + math.exp(-z))
    return sig + z * sig * (1.0 - sig)


_Z_STAR = _gate_extremum()
S_MAX: float = _s(_Z_STAR)  # about 1.09984, at z = +2.3994
S_MIN: float = _s(-_Z_STAR)  # about -0.09984, at z = -2.3994 (S_MIN = 1 - S_MAX)
ALPHA_FLOOR_MIN: float = -S_MIN / (1.0 - S_MIN)  # about 0.09078: floor > 0 iff alpha above this


class NonPositiveFloorWarning(UserWarning):
    """The chosen slope leaves Smooth-Leaky's derivative floor at or below zero (non-monotone activation)."""


def min_derivative(alpha: float) -> float:
    """Exact minimum over x of Smooth-Leaky's derivative: alpha + (1 - alpha) * S_MIN."""
    alpha = check_float("alpha", alpha, type_error=True)
    return alpha + (1.0 - alpha) * S_MIN


def max_derivative(alpha: float) -> float:
    """Exact maximum over x of Smooth-Leaky's derivative: alpha + (1 - alpha) * S_MAX."""
    alpha = check_float("alpha", alpha, type_error=True)
    return alpha + (1.0 - alpha) * S_MAX


def _check_input(x: Tensor) -> None:
    """A floating tensor; under TorchScript (which cannot compile the checks module) the dtype test alone."""
    if not torch.jit.is_scripting():
        check_tensor("x (the input)", x, floating=True)
    elif not x.is_floating_point():
        raise TypeError("x (the input) must be a floating-point tensor")


def _warn_floor(value: float, name: str) -> None:
    if value <= ALPHA_FLOOR_MIN:
        warnings.warn(
            f"{name} = {value:g} <= {ALPHA_FLOOR_MIN:.4f}: the derivative floor "
            f"{min_derivative(value):.4g} is not positive (the activation is non-monotone)",
            NonPositiveFloorWarning,
            stacklevel=3,
        )


def _check_functional(x: Tensor, alpha: float, power: float, curvature: float) -> None:
    _check_input(x)
    check_float("alpha", alpha, type_error=True)
    check_float("power", power, low=0.0, low_open=True, type_error=True)
    check_float("curvature", curvature, low=0.0, low_open=True, type_error=True)


def smooth_leaky(x: Tensor, alpha: float = 0.1, power: float = 3.0, curvature: float = 5.0) -> Tensor:
    """Functional Smooth-Leaky: ``alpha x + (1 - alpha) x sigmoid(curvature x / power)``."""
    _check_functional(x, alpha, power, curvature)
    return x * (alpha + (1.0 - alpha) * torch.sigmoid(x * (curvature / power)))


def smooth_leaky_derivative(
    x: Tensor, alpha: float = 0.1, power: float = 3.0, curvature: float = 5.0
) -> Tensor:
    """Closed-form derivative ``alpha + (1 - alpha) (sigma(kx) + kx sigma(kx) (1 - sigma(kx)))``, k = c / p."""
    _check_functional(x, alpha, power, curvature)
    z = x * (curvature / power)
    sig = torch.sigmoid(z)
    return alpha + (1.0 - alpha) * (sig + z * sig * (1.0 - sig))


class SmoothLeaky(nn.Module):
    """Smooth-Leaky activation ``f(x) = alpha x + (1 - alpha) x sigmoid(curvature x / power)`` (elementwise).

    Parameters
    ----------
    alpha : slope of the negative branch, in (0, 1); a :class:`NonPositiveFloorWarning` is issued when
        alpha <= ALPHA_FLOOR_MIN (about 0.0908), where the minimum derivative is no longer positive.
    power, curvature : > 0; only their ratio k = curvature / power (the sharpness of the blend) matters.
    """

    def __init__(self, alpha: float = 0.1, power: float = 3.0, curvature: float = 5.0) -> None:
        super().__init__()
        alpha = check_float("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True, type_error=True)
        self.alpha: float = alpha
        self.power: float = check_float("power", power, low=0.0, low_open=True, type_error=True)
        self.curvature: float = check_float("curvature", curvature, low=0.0, low_open=True, type_error=True)
        _warn_floor(alpha, "alpha")

    def forward(self, x: Tensor) -> Tensor:
        _check_input(x)
        return x * (self.alpha + (1.0 - self.alpha) * torch.sigmoid(x * (self.curvature / self.power)))

    def extra_repr(self) -> str:
        return f"alpha={self.alpha:g}, power={self.power:g}, curvature={self.curvature:g}"


_SAMPLING = ("element", "unit", "forward")


class RandomizedSmoothLeaky(nn.Module):
    """Randomized Smooth-Leaky: the slope r ~ U(lower, upper) in training, r = (lower + upper) / 2 in evaluation.

    ``f(x) = r x + (1 - r) x sigmoid(curvature x / power)``. Draws use torch's global generator (like
    ``nn.RReLU``), so ``torch.manual_seed`` makes training reproducible.

    Parameters
    ----------
    lower, upper : bounds of the slope, 0 <= lower <= upper < 1 (defaults 1/8 and 1/3, RReLU's); a
        :class:`NonPositiveFloorWarning` is issued when lower <= ALPHA_FLOOR_MIN (some draws give a
        non-positive derivative floor).
    power, curvature : > 0, as in :class:`SmoothLeaky`.
    sampling : "element" (one r per element, default), "unit" (one r per non-batch position, shared over the
        batch dimension 0) or "forward" (one r per call).
    """

    def __init__(
        self,
        lower: float = 1.0 / 8.0,
        upper: float = 1.0 / 3.0,
        power: float = 3.0,
        curvature: float = 5.0,
        sampling: str = "element",
    ) -> None:
        super().__init__()
        lower = check_float("lower", lower, type_error=True)
        upper = check_float("upper", upper, type_error=True)
        if not (0.0 <= lower < 1.0 and 0.0 <= upper < 1.0):
            raise ValueError(f"lower and upper must lie in [0, 1), got lower={lower}, upper={upper}")
        if lower > upper:
            raise ValueError(f"lower must be <= upper, got lower={lower} > upper={upper}")
        check_choice("sampling", sampling, _SAMPLING)
        self.lower: float = lower
        self.upper: float = upper
        self.power: float = check_float("power", power, low=0.0, low_open=True, type_error=True)
        self.curvature: float = check_float("curvature", curvature, low=0.0, low_open=True, type_error=True)
        self.sampling: str = sampling
        _warn_floor(lower, "lower")

    @property
    def mean_slope(self) -> float:
        """The evaluation-mode slope (lower + upper) / 2."""
        return 0.5 * (self.lower + self.upper)

    def forward(self, x: Tensor) -> Tensor:
        _check_input(x)
        gate = torch.sigmoid(x * (self.curvature / self.power))
        if not self.training:
            r = 0.5 * (self.lower + self.upper)
            return x * (r + (1.0 - r) * gate)
        if self.sampling == "element":
            rt = torch.empty_like(x).uniform_(self.lower, self.upper)
        elif self.sampling == "unit" and x.dim() > 1:
            rt = torch.empty_like(x[0]).uniform_(self.lower, self.upper)
        else:
            rt = torch.empty([1], dtype=x.dtype, device=x.device).uniform_(self.lower, self.upper)
        return x * (rt + (1.0 - rt) * gate)

    def extra_repr(self) -> str:
        return (
            f"lower={self.lower:g}, upper={self.upper:g}, power={self.power:g}, curvature={self.curvature:g}, "
            f"sampling={self.sampling}"
        )


ACTIVATIONS: dict[str, Callable[..., nn.Module]] = {
    "relu": nn.ReLU,
    "leaky_relu": nn.LeakyReLU,
    "rrelu": nn.RReLU,
    "prelu": nn.PReLU,
    "elu": nn.ELU,
    "celu": nn.CELU,
    "selu": nn.SELU,
    "gelu": nn.GELU,
    "silu": nn.SiLU,
    "tanh": nn.Tanh,
    "sigmoid": nn.Sigmoid,
    "softplus": nn.Softplus,
    "smooth_leaky": SmoothLeaky,
    "randomized_smooth_leaky": RandomizedSmoothLeaky,
}
_ALIASES = {"swish": "silu", "leakyrelu": "leaky_relu", "rand_smooth_leaky": "randomized_smooth_leaky"}


def activation_names() -> list[str]:
    """The canonical names :func:`get_activation` accepts (aliases: swish, leakyrelu, rand_smooth_leaky)."""
    return list(ACTIVATIONS)


def get_activation(name: str, **kwargs: float | str) -> nn.Module:
    """A new activation module by name (case-insensitive; '-' and ' ' read as '_'); `kwargs` go to its class.

    Examples
    --------
    >>> get_activation("Leaky-ReLU", negative_slope=0.1)
    LeakyReLU(negative_slope=0.1)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = _ALIASES.get(key, key)
    if key not in ACTIVATIONS:
        raise ValueError(f"unknown activation name {name!r}; known: {', '.join(activation_names())}")
    return ACTIVATIONS[key](**kwargs)
