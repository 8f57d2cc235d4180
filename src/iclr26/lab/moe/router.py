"""The router interface shared by DirMoE and its baselines, and the training-progress schedules.

Every router maps token representations ``h`` of shape ``(..., d_model)`` to

    gates : (..., n_experts), non-negative mixing weights of the experts (exact zeros = expert not run),
    aux   : dict with at least ``"loss"`` (scalar auxiliary loss, already weighted, added to the LM loss) and
            ``"expected_active"`` (..., the router's expected number of active experts per token),

so :class:`iclr26.attention.dirmoe.MoEFFN` can take any of them. A router may follow a schedule over training;
the trainer tells it where it is with :func:`set_progress` (a fraction in [0, 1]).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import Tensor, nn

from iclr26.checks import check_float, check_int

__all__ = ["LinearRamp", "Router", "TauSchedule", "set_progress"]


def check_module(name: str, model: object) -> nn.Module:
    """`model` if it is an ``nn.Module``, else a TypeError naming `name`."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"{name} must be an nn.Module, got {type(model).__name__}")
    return model


def check_progress(progress: float) -> float:
    """Training progress must be a number in [0, 1]."""
    return check_float("progress", progress, 0.0, 1.0)


@dataclass(frozen=True)
class TauSchedule:
    """Gumbel-sigmoid temperature over training: exponential from `start` to `end`, then constant.

    ``tau(p) = start * (end / start) ** min(p / anneal_frac, 1)`` for training progress ``p`` in [0, 1]
    (chosen default: 1.0 -> 0.1 over the first 70% of training, the "exploratory -> definitive" schedule).

    Examples
    --------
    >>> s = TauSchedule()
    >>> round(s(0.0), 6), round(s(0.7), 6), round(s(1.0), 6)
    (1.0, 0.1, 0.1)
    """

    start: float = 1.0
    end: float = 0.1
    anneal_frac: float = 0.7

    def __post_init__(self) -> None:
        check_float("tau start", self.start, low=0.0, low_open=True)
        check_float("tau end", self.end, low=0.0, low_open=True)
        check_float("anneal_frac", self.anneal_frac, 0.0, 1.0, low_open=True)

    def __call__(self, progress: float) -> float:
        p = min(check_progress(progress) / self.anneal_frac, 1.0)
        return self.start * (self.end / self.start) ** p


@dataclass(frozen=True)
class LinearRamp:
    """A weight that ramps linearly from 0 to 1 over the first `frac` of training (1 afterwards)."""

    frac: float = 0.1

    def __post_init__(self) -> None:
        check_float("ramp frac", self.frac, 0.0, 1.0)

    def __call__(self, progress: float) -> float:
        p = check_progress(progress)
        return 1.0 if self.frac == 0.0 else min(p / self.frac, 1.0)


def as_tau_schedule(tau_schedule: TauSchedule | float | Callable[[float], float]) -> Callable[[float], float]:
    """A constant ``tau`` (float) becomes a constant schedule; a schedule is returned as is."""
    if isinstance(tau_schedule, (int, float)) and not isinstance(tau_schedule, bool):
        tau = check_float("tau", tau_schedule, low=0.0, low_open=True)
        return TauSchedule(tau, tau, 1.0)
    if not callable(tau_schedule):
        raise TypeError(f"tau_schedule must be a TauSchedule, a float or a callable, got {tau_schedule!r}")
    return tau_schedule


class Router(nn.Module):
    """Base class: ``forward(h) -> (gates, aux)``; see the module docstring for the contract.

    Subclasses set ``d_model`` and ``n_experts`` and implement :meth:`route`. ``progress`` (in [0, 1]) is the
    fraction of training done; routers with schedules read it.
    """

    d_model: int
    n_experts: int

    def __init__(self, d_model: int, n_experts: int) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)
        self.n_experts = check_int("n_experts", n_experts, low=2)
        self.progress = 0.0

    def set_progress(self, progress: float) -> None:
        """Tell the router how far training has gone (a fraction in [0, 1])."""
        self.progress = check_progress(progress)

    def check_input(self, h: Tensor) -> None:
        """Raise unless `h` is a floating tensor whose last axis is ``d_model``."""
        if not isinstance(h, Tensor):
            raise TypeError(f"h must be a torch.Tensor, got {type(h).__name__}")
        if h.ndim < 1 or h.shape[-1] != self.d_model:
            raise ValueError(
                f"h must have last dimension d_model={self.d_model} (router/model dimension mismatch), "
                f"got shape {tuple(h.shape)}"
            )
        if not h.is_floating_point():
            raise ValueError(f"h must be a floating-point tensor, got {h.dtype}")
        if h.numel() == 0:
            raise ValueError(f"h must hold at least one token, got shape {tuple(h.shape)}")

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        """The router's gates and aux dict for a checked input (implemented by subclasses)."""
        raise NotImplementedError

    def forward(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        """Gates (..., n_experts) and the aux dict (``"loss"``, ``"expected_active"``, router-specific keys)."""
        self.check_input(h)
        return self.route(h)


def set_progress(model: nn.Module, progress: float) -> None:
    """Set the training progress of every :class:`Router` inside `model`."""
    check_module("model", model)
    check_progress(progress)
    for module in model.modules():
        if isinstance(module, Router):
            module.set_progress(progress)
