"""Autoregressive rollout with a fixed, cyclic or arbitrary patch schedule (the paper's inference modes).

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (ICLR 2026, arXiv
2507.09264). A fixed patch size is the compute knob; the cyclic schedule uses set[t mod |set|] at step t (the
official code's ``choose_kernel_size_alternating``), so the error does not stay phase-locked to one patch lattice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from iclr26.checks import check_int, check_tensor

__all__ = ["patch_at", "rollout"]

Schedule = int | Sequence[int] | Callable[[int], int]


def patch_at(schedule: Schedule, t: int):
    """The patch of step t: an int is fixed, a sequence is cycled (schedule[t mod n]), a callable is called."""
    if isinstance(schedule, bool):
        raise ValueError(f"schedule must be an int, a sequence or a callable t -> patch, got {schedule!r}")
    if isinstance(schedule, int):
        return schedule
    if callable(schedule):
        return schedule(t)
    if isinstance(schedule, (list, tuple)) and schedule:
        return schedule[t % len(schedule)]
    raise ValueError(
        f"schedule must be an int, a non-empty sequence or a callable t -> patch, got {schedule!r}"
    )


@torch.no_grad()
def rollout(model: Callable, history: torch.Tensor, n_steps: int, schedule: Schedule) -> torch.Tensor:
    """Roll ``model(history, patch) -> next frame`` forward ``n_steps`` steps from history (B, T, C, H, W).

    Returns the predicted frames (B, n_steps, C, H, W); step t (0-based) uses ``patch_at(schedule, t)``.
    """
    check_tensor("history", history, ndim=5, floating=True)
    n_steps = check_int("n_steps", n_steps, low=0)
    patch_at(schedule, 0)  # validate the schedule before any work
    frames = []
    window = history
    for t in range(n_steps):
        nxt = model(window, patch_at(schedule, t))
        frames.append(nxt)
        window = torch.cat([window[:, 1:], nxt[:, None]], dim=1)
    if not frames:
        return history.new_zeros(history.shape[0], 0, *history.shape[2:])
    return torch.stack(frames, dim=1)
