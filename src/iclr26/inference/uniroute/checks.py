"""Argument checks shared by the routers, the synthetic pools and the table loader.

Every check raises ``ValueError`` with a message that names the argument and says what was wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from iclr26.checks import check_array, check_float

__all__ = ["check_cost", "check_costs", "check_embeddings", "check_errors", "check_rng", "is_text"]


def is_text(X: object) -> bool:
    """True when `X` is a sequence of strings (raw prompts for an embedder) rather than numbers."""
    if isinstance(X, str):
        return True
    if isinstance(X, np.ndarray):
        return X.dtype.kind in "USO" and X.size > 0 and isinstance(X.flat[0], str)
    return isinstance(X, Sequence) and len(X) > 0 and isinstance(X[0], str)


def check_embeddings(X: object, name: str, n_features: int | None = None) -> np.ndarray:
    """`X` as a finite float array of shape (n, D) with n >= 1 (and D == n_features when given)."""
    arr = check_array(name, X)  # None, a string, complex or non-numeric entries: refused by name
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have shape (n, D) with n, D >= 1, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features per row, but the router was fitted on {n_features}"
        )
    return arr


def check_errors(E: object, name: str, shape: tuple[int | None, ...] | None = None) -> np.ndarray:
    """`E` as a float array of 0/1 errors (soft errors in [0, 1] allowed; 1 = wrong) of the given shape.

    ``None`` in `shape` leaves that axis free.
    """
    arr = check_array(name, E)  # None, a string, complex or non-numeric entries: refused by name
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    if arr.min() < 0.0 or arr.max() > 1.0:
        raise ValueError(
            f"{name} must hold 0/1 errors (or soft errors in [0, 1]); found values in "
            f"[{arr.min():g}, {arr.max():g}]"
        )
    return arr


def check_cost(cost: object, name: str = "cost") -> float:
    """`cost` as a finite float > 0."""
    return check_float(name, cost, low=0.0, low_open=True)


def check_costs(
    costs: object, name: str = "costs", size: int | None = None, positive: bool = True
) -> np.ndarray:
    """`costs` as a non-empty finite 1-D float array (of `size` entries when given; all > 0 if `positive`)."""
    arr = check_array(name, costs)  # None, a string, complex or non-numeric entries: refused by name
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array (one cost per LLM), got shape {arr.shape}")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} must have one entry per LLM ({size}), got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} must all be > 0, got minimum {arr.min():g}")
    return arr


def check_rng(rng: object, name: str = "rng") -> np.random.Generator:
    """`rng` if it is a ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}"
        )
    return rng
