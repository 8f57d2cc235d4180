"""Argument checks shared by every layer (harness, lab, papers): each error names the argument, the value given
and what is accepted, so bad input never surfaces as an obscure error from deep inside torch or NumPy.

>>> check_int("gamma", 0, low=1)
Traceback (most recent call last):
...
ValueError: gamma must be an int >= 1, got 0
>>> check_float("lr", float("inf"), low=0.0, low_open=True)
Traceback (most recent call last):
...
ValueError: lr must be a finite float > 0, got inf
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "check_array",
    "check_bool",
    "check_choice",
    "check_fit_data",
    "check_float",
    "check_gradients",
    "check_int",
    "check_logits",
    "check_parameters",
    "check_probability",
    "check_tensor",
    "check_token_ids",
]


def _range(
    low: float | None,
    high: float | None,
    low_open: bool = False,
    high_open: bool = False,
    interval: bool = False,
) -> str:
    if interval and low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return (" " + " and ".join(parts)) if parts else ""


def check_int(
    name: str, value: Any, low: int | None = None, high: int | None = None, *, type_error: bool = False
) -> int:
    """`value` as an int within ``[low, high]``; bools and floats are refused (``ValueError``, or ``TypeError``
    for a value that is not an integer at all when ``type_error``: the components that always raised it keep it).
    """
    ok = isinstance(value, int) and not isinstance(value, bool)
    if (
        not ok and hasattr(value, "dtype") and getattr(value, "ndim", None) == 0
    ):  # NumPy / torch integer scalars
        kind = str(value.dtype)
        ok = "int" in kind and "uint8" not in kind or kind.startswith("uint")
        value = int(value) if ok else value
    if not ok or (low is not None and value < low) or (high is not None and value > high):
        error = TypeError if type_error and not ok else ValueError
        raise error(f"{name} must be an int{_range(low, high)}, got {value!r}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """`value` if it is a bool (NumPy's ``bool_`` too); anything else, 0 and 1 included, is a ``TypeError``."""
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        value = bool(value)
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return value


def check_float(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
    type_error: bool = False,
) -> float:
    """`value` as a float within the range (a NaN never passes; infinities only with ``finite=False``); a value
    that is not a real number at all is a ``ValueError``, or a ``TypeError`` with ``type_error``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        and not (hasattr(value, "dtype") and getattr(value, "ndim", None) == 0)
    ):
        raise (TypeError if type_error else ValueError)(
            f"{name} must be a {'finite ' if finite else ''}float{_range(low, high, low_open, high_open, True)}, got {value!r}"
        )
    x = float(value)
    bad = math.isnan(x) or (finite and math.isinf(x))
    bad = bad or (low is not None and (x <= low if low_open else x < low))
    bad = bad or (high is not None and (x >= high if high_open else x > high))
    if bad:
        kind = "finite float" if finite else "float"
        raise ValueError(
            f"{name} must be a {kind}{_range(low, high, low_open, high_open, True)}, got {value!r}"
        )
    return x


def check_probability(name: str, value: Any, *, open_low: bool = False, open_high: bool = False) -> float:
    return check_float(name, value, 0.0, 1.0, low_open=open_low, high_open=open_high)


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")
    return value


def _check_ndim(name: str, shape: tuple[int, ...], ndim: int | Sequence[int] | None) -> None:
    """The rank test :func:`check_tensor` and :func:`check_array` share (``ndim`` None: any rank)."""
    if ndim is None:
        return
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if len(shape) not in allowed:
        raise ValueError(f"{name} must be {'/'.join(map(str, allowed))}-D, got shape {tuple(shape)}")


def check_tensor(
    name: str,
    x: Any,
    *,
    ndim: int | Sequence[int] | None = None,
    floating: bool | None = None,
    finite: bool = False,
    shape: Sequence[int | None] | None = None,
) -> Any:
    """A torch tensor of the given rank, dtype kind (floating or integer) and shape (None = any size); with
    ``finite=True`` it must hold no NaN or infinity."""
    import torch

    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    _check_ndim(name, tuple(x.shape), ndim)
    if shape is not None and (
        len(shape) != x.ndim or any(s is not None and s != d for s, d in zip(shape, x.shape))
    ):
        want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {want}, got {tuple(x.shape)}")
    if floating is True and not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if floating is False and (x.is_floating_point() or x.is_complex() or x.dtype == torch.bool):
        raise TypeError(f"{name} must be an integer tensor, got {x.dtype}")
    if finite and x.is_floating_point() and not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must be finite, but holds NaN or infinite values")
    return x


def check_array(
    name: str,
    x: Any,
    *,
    ndim: int | Sequence[int] | None = None,
    integer: bool = False,
    finite: bool = False,
) -> Any:
    """An array-like of real numbers as a NumPy array (the counterpart of :func:`check_tensor` for NumPy code):
    float64, where an integer or bool input converts exactly (a torch tensor must then be floating-point), or with
    ``integer=True`` an integer array (a float, bool or complex one is a ``TypeError``). None or a string is a
    ``TypeError`` and an array of complex numbers, strings or objects a ``ValueError``, each naming the argument;
    ``finite=True`` refuses NaN and infinities.

    >>> check_array("p", [0.1, 1]).tolist()
    [0.1, 1.0]
    >>> check_array("p", [0.1, 1j])
    Traceback (most recent call last):
    ...
    ValueError: p must hold real numbers, got dtype complex128
    """
    import numpy as np

    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of {'integers' if integer else 'real numbers'}, got {x!r}")
    torch_like = hasattr(x, "is_floating_point") and hasattr(x, "dtype")
    if torch_like and not integer and not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor or array, got {x.dtype}")
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {type(x).__name__}") from None
    kind = a.dtype.kind
    if integer and kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    if not integer:
        if kind not in "biuf":
            raise ValueError(f"{name} must hold real numbers, got dtype {a.dtype}")
        a = np.asarray(a, dtype=float)
    _check_ndim(name, a.shape, ndim)
    if finite and a.size and not bool(np.isfinite(a).all()):
        raise ValueError(f"{name} must be finite, but holds NaN or infinite values")
    return a


def check_logits(
    name: str,
    x: Any,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
) -> Any:
    """A floating-point tensor of logits or log-probabilities (see :func:`check_tensor` for ``ndim`` and
    ``shape``): a NaN or +inf entry is refused, while -inf (a masked or impossible token) is allowed.

    >>> import torch
    >>> check_logits("scores", torch.tensor([0.5, float("-inf")])).tolist()
    [0.5, -inf]
    >>> check_logits("scores", torch.tensor([0.5, float("nan")]))
    Traceback (most recent call last):
    ...
    ValueError: scores must hold no NaN or +inf (a masked token is -inf), got 1 such entries
    >>> check_logits("scores", torch.tensor([1, 2]))
    Traceback (most recent call last):
    ...
    TypeError: scores must be a floating-point tensor, got torch.int64
    """
    import torch

    check_tensor(name, x, ndim=ndim, shape=shape, floating=True)
    bad = int((torch.isnan(x) | torch.isposinf(x)).sum())
    if bad:
        raise ValueError(f"{name} must hold no NaN or +inf (a masked token is -inf), got {bad} such entries")
    return x


def check_token_ids(name: str, ids: Any, vocab_size: int) -> Any:
    """An integer tensor of token ids, each in ``[0, vocab_size)``."""
    check_tensor(name, ids, floating=False)
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        raise ValueError(
            f"{name} must hold token ids in [0, {vocab_size}), got values in [{int(ids.min())}, {int(ids.max())}]"
        )
    return ids


def check_parameters(optimizer: str, param_groups: Iterable[dict[str, Any]]) -> None:
    """Refuse, when an optimizer is built, a parameter that is not a floating-point (or complex) tensor: an integer
    or bool tensor never receives a gradient, so every step would skip it without a word.

    >>> import torch
    >>> check_parameters("SGD", [{"params": [torch.zeros(2, dtype=torch.long)]}])
    Traceback (most recent call last):
    ...
    TypeError: SGD: parameter 0 of group 0 (shape (2,)) must be a floating-point tensor, got torch.int64
    """
    import torch

    for g_index, group in enumerate(param_groups):
        for p_index, p in enumerate(group["params"]):
            if not isinstance(p, torch.Tensor):
                raise TypeError(
                    f"{optimizer}: parameter {p_index} of group {g_index} must be a torch.Tensor, got {type(p).__name__}"
                )
            if not (p.is_floating_point() or p.is_complex()):
                raise TypeError(
                    f"{optimizer}: parameter {p_index} of group {g_index} (shape {tuple(p.shape)}) must be a "
                    f"floating-point tensor, got {p.dtype}"
                )


def check_gradients(optimizer: str, param_groups: Iterable[dict[str, Any]]) -> None:
    """Refuse a step before any parameter moves when a gradient is sparse, complex or holds NaN/infinity.

    One device synchronisation for all parameters; the error names the optimizer, the group, the parameter's index
    in it and its shape, so a diverging loss is reported where it starts rather than as a linear-algebra failure
    or non-finite weights several steps later.
    """
    import torch

    where, flags = [], []
    for g_index, group in enumerate(param_groups):
        for p_index, p in enumerate(group["params"]):
            grad = p.grad
            if grad is None:
                continue
            at = f"parameter {p_index} of group {g_index} (shape {tuple(p.shape)})"
            if grad.is_sparse:
                raise ValueError(f"{optimizer} does not support sparse gradients; got one for {at}")
            if p.is_complex() or grad.is_complex():
                raise ValueError(f"{optimizer} does not support complex parameters or gradients; got {at}")
            where.append(at)
            flags.append(torch.isfinite(grad).all())
    if not flags:
        return
    one_device = len({f.device for f in flags}) == 1
    if not (bool(torch.stack(flags).all()) if one_device else all(bool(f) for f in flags)):
        bad = next(at for at, f in zip(where, flags) if not bool(f))
        raise ValueError(
            f"{optimizer}: the gradient of {bad} holds NaN or infinite values; no parameter was updated "
            "(lower the learning rate, clip gradients, or skip the step as a GradScaler does)"
        )


def check_fit_data(estimator: Any, X: Any, y: Any, **kwargs: Any) -> tuple[Any, Any]:
    """scikit-learn's ``validate_data(estimator, X, y, **kwargs)`` for ``fit``, each error prefixed with the
    argument it concerns (``"X: Expected 2D array, ..."``, ``"y: Found input variables with inconsistent numbers
    of samples ..."``). scikit-learn's own types and messages are kept after the prefix (``check_estimator``
    matches them); ``X`` is checked alone first (with the ``dtype`` and ``ensure_*`` options given), so an error
    about ``X`` never reads as one about ``y``.
    """
    from sklearn.utils.validation import check_array as sk_check_array
    from sklearn.utils.validation import validate_data

    x_options = {k: v for k, v in kwargs.items() if k == "dtype" or k.startswith(("ensure_", "accept_"))}
    try:
        sk_check_array(X, input_name="X", **x_options)
    except (TypeError, ValueError) as error:
        raise type(error)(f"X: {error}") from None
    try:
        return validate_data(estimator, X, y, **kwargs)
    except (TypeError, ValueError) as error:
        raise type(error)(f"y: {error}") from None
