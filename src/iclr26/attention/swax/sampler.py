"""Stochastic window sampler of SWAX (arXiv 2509.24552): one sliding-window size per optimizer step.

At step ``s`` of ``total_steps`` the window is drawn from ``choices`` with probabilities ``probs`` (one draw per
step, shared by every SWA layer, so a batch uses one mask); during the last ``anneal_last_frac`` of the steps the
window is fixed to ``anneal_window`` (the largest choice by default). Each step's draw depends only on
``(seed, step)``, so a sampler can be queried in any order and gives the same schedule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iclr26.attention.swax.swa import check_window
from iclr26.checks import check_float, check_int

__all__ = ["StochasticWindowSampler"]


class StochasticWindowSampler:
    """Callable ``step -> window``: a seeded random window per training step, with a final fixed-window phase.

    Parameters
    ----------
    choices : the candidate window sizes (ints >= 1), e.g. ``(128, 2048)`` in the paper.
    probs : their probabilities (sum to 1); uniform when None.
    anneal_last_frac : fraction of the final steps that use ``anneal_window`` (needs ``total_steps``).
    seed : seed of the draws.
    total_steps : length of training (only needed for the annealing phase).
    anneal_window : window of the final phase (default ``max(choices)``).

    Examples
    --------
    >>> sampler = StochasticWindowSampler((16, 128), (0.5, 0.5), anneal_last_frac=0.1, seed=0, total_steps=100)
    >>> all(sampler(s) == 128 for s in range(90, 100))
    True
    >>> sampler(3) in (16, 128)
    True
    """

    def __init__(
        self,
        choices: Sequence[int],
        probs: Sequence[float] | None = None,
        anneal_last_frac: float = 0.0,
        seed: int = 0,
        total_steps: int | None = None,
        anneal_window: int | None = None,
    ) -> None:
        if isinstance(choices, (str, bytes)) or not isinstance(choices, Sequence) or len(choices) == 0:
            raise ValueError(f"choices must be a non-empty sequence of window sizes, got {choices!r}")
        self.choices = tuple(check_window(c, f"choices[{i}]") for i, c in enumerate(choices))
        if probs is None:
            probs = [1.0 / len(self.choices)] * len(self.choices)
        if len(probs) != len(self.choices):
            raise ValueError(f"probs must have one entry per choice ({len(self.choices)}), got {len(probs)}")
        p = np.asarray([check_float(f"probs[{i}]", v, low=0.0) for i, v in enumerate(probs)], dtype=float)
        if not math.isclose(float(p.sum()), 1.0, abs_tol=1e-9):
            raise ValueError(f"probs must sum to 1, got sum {float(p.sum()):.6g} for {list(probs)}")
        check_float("anneal_last_frac", anneal_last_frac, 0.0, 1.0, high_open=True)
        if anneal_last_frac > 0 and total_steps is None:
            raise ValueError("total_steps is required when anneal_last_frac > 0")
        if total_steps is not None:
            check_int("total_steps", total_steps, low=1)
        check_int("seed", seed, low=0)
        self.probs = tuple(float(v) for v in p)
        self._cdf = np.cumsum(p)
        self.anneal_last_frac, self.seed, self.total_steps = float(anneal_last_frac), seed, total_steps
        self.anneal_window = (
            max(self.choices) if anneal_window is None else check_window(anneal_window, "anneal_window")
        )
        self.anneal_start = (
            total_steps - int(round(anneal_last_frac * total_steps)) if total_steps is not None else None
        )

    def __call__(self, step: int) -> int:
        """The window of training step ``step`` (0-based)."""
        check_int("step", step, low=0)
        if self.anneal_start is not None and self.anneal_last_frac > 0 and step >= self.anneal_start:
            return self.anneal_window
        if len(self.choices) == 1:
            return self.choices[0]
        u = np.random.Generator(np.random.PCG64([self.seed, int(step)])).random()
        return self.choices[min(int(np.searchsorted(self._cdf, u, side="right")), len(self.choices) - 1)]

    def __repr__(self) -> str:
        return (
            f"StochasticWindowSampler(choices={self.choices}, probs={self.probs}, "
            f"anneal_last_frac={self.anneal_last_frac}, seed={self.seed}, total_steps={self.total_steps})"
        )
