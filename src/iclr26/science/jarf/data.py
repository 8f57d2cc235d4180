"""Datasets of the JARF reproduction: generated oblique problems and scikit-learn's bundled tables.

Every generator returns a :class:`Split` with the train/test arrays and, for the generated sets, the true
relevant directions ``B`` (d x k, in the raw feature coordinates) so that the EJOP's eigenvectors can be
compared with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_wine,
    make_classification,
)
from sklearn.model_selection import train_test_split

from iclr26.checks import check_float

__all__ = ["CLASSIFICATION", "DATASETS", "REGRESSION", "SYNTHETIC_CLASSIFICATION", "Split", "load_split"]

SYNTHETIC_CLASSIFICATION = ("xor", "checker", "rotclass")
CLASSIFICATION = (*SYNTHETIC_CLASSIFICATION, "breast_cancer", "wine", "digits")
REGRESSION = ("sinquad", "diabetes")
DATASETS = (*CLASSIFICATION, *REGRESSION)
CHECKER_CELL = 1.5  # cell width of the checkerboard along both hidden directions (unit-variance projections)


@dataclass
class Split:
    """A train/test split; ``B`` holds the true relevant directions (raw coordinates) or None."""

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    classification: bool
    B: np.ndarray | None = None


def _orthonormal(d: int, k: int, rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.normal(size=(d, k)))
    return q


def _synthetic(
    name: str, n: int, d: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if name == "rotclass":
        seed = int(rng.integers(2**31 - 1))
        X, y = make_classification(
            n_samples=n, n_features=d, n_informative=5, n_redundant=0, shuffle=False, random_state=seed
        )
        Q = _orthonormal(d, d, rng)
        return X @ Q, y, Q[:5].T  # informative coordinates 0..4 become the rows 0..4 of Q
    X = rng.normal(size=(n, d))
    B = _orthonormal(d, 2, rng)
    a, b = X @ B[:, 0], X @ B[:, 1]
    if name == "xor":
        y = ((a > 0) ^ (b > 0)).astype(int)
    elif name == "checker":
        y = ((np.floor(a / CHECKER_CELL) + np.floor(b / CHECKER_CELL)) % 2).astype(int)
    elif name == "sinquad":
        y = np.sin(a) + b**2 + 0.1 * rng.normal(size=n)
    else:
        raise ValueError(f"unknown synthetic dataset {name!r}")
    return X, y, B


def load_split(
    name: str,
    seed: int,
    n_samples: int = 2000,
    d: int = 10,
    test_fraction: float = 0.25,
    max_rows: int | None = None,
) -> Split:
    """The train/test split of dataset `name` for `seed` (generated sets: `n_samples` points in `d` dims).

    `max_rows` caps the bundled tables (a stratified subsample; used by the smoke budget only).
    """
    if name not in DATASETS:
        raise ValueError(f"name must be one of {DATASETS}, got {name!r}")
    check_float("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    rng = np.random.default_rng([seed, DATASETS.index(name)])
    classification = name in CLASSIFICATION
    B = None
    if name in (*SYNTHETIC_CLASSIFICATION, "sinquad"):
        X, y, B = _synthetic(name, n_samples, d, rng)
    else:
        loader = {
            "breast_cancer": load_breast_cancer,
            "wine": load_wine,
            "digits": load_digits,
            "diabetes": load_diabetes,
        }[name]
        X, y = loader(return_X_y=True)
        X = X.astype(float)
        if max_rows is not None and X.shape[0] > max_rows:
            keep = rng.choice(X.shape[0], size=max_rows, replace=False)
            X, y = X[keep], y[keep]
    split_seed = int(rng.integers(2**31 - 1))
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_fraction, random_state=split_seed, stratify=y if classification else None
    )
    return Split(X_tr, X_te, y_tr, y_te, classification, B)
