"""Confidence radii shared by every algorithm of "Lipschitz Bandits with Stochastic Delayed Feedback".

Paper: Liu, Kang and Lee, ICLR 2026 (arXiv 2510.00309). Two formulas, both multiplied by the same
``conf_scale`` c (c = 1 is the theory; the reproduction uses c = 0.1 for every algorithm):

* zooming radius from v incorporated observations: r(v) = c sqrt((4 log T + 2 log(2 / delta)) / (1 + v));
* DLPP / BLiN observations per cube of edge r_m: v_m = ceil(c^2 (2 log T + log(2 / delta)) / (2 r_m^2)).
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.checks import check_float, check_int

__all__ = ["check_problem", "phase_observations", "zooming_radius", "zooming_radius_table"]


def check_problem(dim: int, horizon: int, delta: float | None, conf_scale: float) -> float:
    """Validate the arguments every algorithm shares; return delta (default 1 / horizon).

    Examples
    --------
    >>> check_problem(1, 1000, None, 1.0)
    0.001
    """
    check_int("dim", dim, low=1)
    horizon = check_int("horizon (T)", horizon, low=1)
    delta = 1.0 / horizon if delta is None else delta
    delta = check_float("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    check_float("conf_scale", conf_scale, low=0.0, low_open=True)
    return delta


def zooming_radius(v: float, horizon: int, delta: float, conf_scale: float) -> float:
    """r(v) = c sqrt((4 log T + 2 log(2 / delta)) / (1 + v)) for v incorporated observations.

    Examples
    --------
    >>> round(zooming_radius(0, 20_000, 1 / 20_000, 0.1), 3)
    0.78
    """
    return conf_scale * math.sqrt(_radius_budget(horizon, delta) / (1.0 + v))


def zooming_radius_table(horizon: int, delta: float, conf_scale: float) -> np.ndarray:
    """r(v) for v = 0..T as an array, bit-identical to :func:`zooming_radius` (sqrt is correctly rounded)."""
    return conf_scale * np.sqrt(_radius_budget(horizon, delta) / (1.0 + np.arange(horizon + 1)))


def _radius_budget(horizon: int, delta: float) -> float:
    return 4.0 * math.log(horizon) + 2.0 * math.log(2.0 / delta)


def phase_observations(edge: float, horizon: int, delta: float, conf_scale: float) -> int:
    """v_m = ceil(c^2 (2 log T + log(2 / delta)) / (2 r_m^2)) observations per cube of edge r_m.

    Examples
    --------
    >>> [phase_observations(2.0**-m, 20_000, 1 / 20_000, 0.1) for m in range(1, 6)]
    [1, 3, 10, 39, 156]
    """
    return max(
        1, math.ceil(conf_scale**2 * (2.0 * math.log(horizon) + math.log(2.0 / delta)) / (2.0 * edge**2))
    )
