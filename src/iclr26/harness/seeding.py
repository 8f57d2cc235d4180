"""Seeding of every random source an experiment may touch, and the device choice."""

from __future__ import annotations

import random

import numpy as np

DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")


def seed_everything(seed: int) -> None:
    """Seed Python's `random`, NumPy's global generator and torch (CPU and CUDA).

    Experiments should still draw from explicit generators built from their seed; this makes stray global
    draws reproducible too. On CPU, runs are deterministic for a given seed.
    """
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - seeds the legacy global state on purpose
    import torch

    torch.manual_seed(seed)


class UnsupportedDeviceError(ValueError):
    """An experiment was asked to run on a device it does not support."""


def resolve_device(device: str, supported: tuple[str, ...] = ("cpu", "cuda"), what: str = "") -> str:
    """The concrete device to run on.

    ``auto`` means ``cuda`` when a GPU is visible and ``cuda`` is among `supported`, else ``cpu``. An explicit
    device outside `supported` raises :class:`UnsupportedDeviceError` (whether or not a GPU is present: an
    experiment that ignores the device must never be labelled as a GPU run); ``cuda`` without a visible GPU
    raises ValueError.
    """
    import torch

    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    if device == "auto":
        return "cuda" if "cuda" in supported and torch.cuda.is_available() else "cpu"
    if device not in supported:
        raise UnsupportedDeviceError(
            f"{what or 'this experiment'} supports --device {' or '.join(supported)} only, got {device!r}"
        )
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was requested but torch sees no GPU; use --device cpu or auto")
    return device
