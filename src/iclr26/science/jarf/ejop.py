"""Expected Jacobian outer product (EJOP) by central finite differences, and the JARF preconditioner.

For a vector-valued map f: R^d -> R^C evaluated on points x_1..x_n, the finite-difference Jacobian is

    J_i[c, j] = (f_c(x_i + h e_j) - f_c(x_i - h e_j)) / (2 h),

and the EJOP is H = (1/n) sum_i J_i^T J_i (d x d, symmetric positive semi-definite). For regression (C = 1) this
is the expected gradient outer product (EGOP). The preconditioner P is built from the trace-normalised,
regularised H_eps = d H / tr(H) + eps I with eigendecomposition U diag(lam) U^T:

* ``transform="sqrt"``: P = U diag(lam)^(1/2) U^T (the symmetric square root);
* ``transform="eig"``:  P = U diag(lam)^(1/2) (projection onto the eigenvectors, largest first).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from iclr26.checks import check_array, check_choice, check_float

__all__ = [
    "TRANSFORMS",
    "ejop_from_callable",
    "fd_jacobians",
    "normalize_ejop",
    "preconditioner",
    "sorted_eigh",
    "subspace_overlap",
]

TRANSFORMS = ("sqrt", "eig")
_ROWS_PER_CALL = 200_000


def _matrix(name: str, x: object, square: bool = False) -> np.ndarray:
    """`x` as a finite, non-empty 2-D float array (square when asked)."""
    a = check_array(name, x)
    if a.ndim != 2 or a.size == 0 or (square and a.shape[0] != a.shape[1]):
        raise ValueError(
            f"{name} must be a non-empty {'square' if square else '2-D'} matrix, got shape {a.shape}"
        )
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must not contain NaN or inf")
    return a


def _numeric_output(values: object) -> np.ndarray:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"f must return numbers, got {type(values).__name__}") from None


def fd_jacobians(f: Callable[[np.ndarray], np.ndarray], X: np.ndarray, h: float) -> np.ndarray:
    """Central finite-difference Jacobians of `f` at every row of `X`, shape ``(n, C, d)``.

    `f` maps an ``(m, d)`` array to ``(m,)`` or ``(m, C)``. All ``2 d n`` shifted points are evaluated in one
    call (split into large chunks only when more than 200,000 rows are needed).
    """
    h = check_float("fd_step (h)", h, low=0.0, low_open=True)
    if not callable(f):
        raise TypeError(
            f"f must be a callable mapping (m, d) points to (m,) or (m, C) values, got {type(f).__name__}"
        )
    X = check_array("X", X)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-D array (n, d), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must not contain NaN or inf")
    n, d = X.shape
    eye = np.eye(d) * h
    # rows ordered (i, j, sign): x_i + h e_j then x_i - h e_j
    shifted = (X[:, None, None, :] + np.stack([eye, -eye], axis=1)[None]).reshape(n * d * 2, d)
    outs = [
        _numeric_output(f(shifted[s : s + _ROWS_PER_CALL]))
        for s in range(0, shifted.shape[0], _ROWS_PER_CALL)
    ]
    out = np.concatenate(outs, axis=0)
    if out.ndim not in (1, 2) or out.shape[0] != shifted.shape[0]:
        raise ValueError(
            f"f must return one value or one row per input point, shape (m,) or (m, C), got {out.shape} for "
            f"m = {shifted.shape[0]}"
        )
    if not np.all(np.isfinite(out)):
        raise ValueError("f returned NaN or inf values")
    out = out.reshape(n, d, 2, -1)
    return np.transpose((out[:, :, 0, :] - out[:, :, 1, :]) / (2.0 * h), (0, 2, 1))


def ejop_from_callable(f: Callable[[np.ndarray], np.ndarray], X: np.ndarray, h: float = 0.25) -> np.ndarray:
    """The (unnormalised) finite-difference EJOP ``H = mean_i J_i^T J_i`` of `f` over the rows of `X`.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> H = ejop_from_callable(lambda Z: Z @ np.array([1.0, 2.0, 0.0]), X, 0.1)
    >>> np.round(H, 6).tolist()
    [[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 0.0]]
    """
    J = fd_jacobians(f, X, h)
    H = np.einsum("ncd,nce->de", J, J) / J.shape[0]
    return 0.5 * (H + H.T)


def normalize_ejop(H: np.ndarray) -> tuple[np.ndarray, bool]:
    """Trace-normalise ``H <- d H / tr(H)``; a zero (or non-finite) trace gives the identity.

    Returns the normalised matrix and whether the identity fallback was used (the surrogate was flat at every
    probed point, so no direction is preferred).
    """
    H = check_array("H", H)
    if H.ndim != 2 or H.shape[0] != H.shape[1]:
        raise ValueError(f"H must be a square matrix, got shape {H.shape}")
    d = H.shape[0]
    tr = float(np.trace(H))
    if not np.isfinite(tr) or tr <= 1e-300:
        return np.eye(d), True
    return d * H / tr, False


def preconditioner(
    H: np.ndarray, epsilon: float = 1e-3, transform: str = "sqrt"
) -> tuple[np.ndarray, np.ndarray]:
    """The preconditioner ``P`` and the descending eigenvalues of ``H + epsilon I`` (H already normalised).

    Eigenvectors get a fixed sign (largest-magnitude entry positive) so that ``transform="eig"`` is
    deterministic.
    """
    check_choice("transform", transform, TRANSFORMS)
    check_float("epsilon", epsilon, low=0.0)
    H = _matrix("H", H, square=True)
    lam, U = sorted_eigh(H + epsilon * np.eye(H.shape[0]))
    root = np.sqrt(lam)
    P = (U * root) @ U.T if transform == "sqrt" else U * root
    return P, lam


def sorted_eigh(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending, clipped at 0) and eigenvectors (columns, sign-fixed) of the symmetric `H`."""
    H = _matrix("H", H, square=True)
    if not np.allclose(H, H.T):
        raise ValueError("H must be a symmetric matrix")
    d = H.shape[0]
    lam, U = np.linalg.eigh(0.5 * (H + H.T))
    order = np.argsort(lam, kind="stable")[::-1]
    lam, U = np.clip(lam[order], 0.0, None), U[:, order]
    signs = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(d)])
    return lam, U * np.where(signs == 0, 1.0, signs)


def subspace_overlap(U: np.ndarray, B: np.ndarray) -> float:
    """Mean squared cosine of the principal angles between span(U) and span(B) (both ``d x k``), in [0, 1]."""
    U, B = _matrix("U", U), _matrix("B", B)
    if U.shape[0] != B.shape[0]:
        raise ValueError(f"U and B must span subspaces of one space (same rows), got {U.shape} and {B.shape}")
    qu, _ = np.linalg.qr(U)
    qb, _ = np.linalg.qr(B)
    s = np.linalg.svd(qu.T @ qb, compute_uv=False)
    return float(np.mean(np.clip(s, 0.0, 1.0) ** 2))
