"""JARF: Jacobian Aligned Random Forests (Rauniyar, ICLR 2026; arXiv 2512.08306, OpenReview lpYHuxPEXV).

An axis-aligned forest is fitted after a global linear preconditioning of the standardised features by the
square root of the expected Jacobian outer product (EJOP; EGOP for regression) of a surrogate forest, estimated
by central finite differences of its class probabilities (or predictions).

Public API: :class:`JARFClassifier`, :class:`JARFRegressor` (scikit-learn estimators), :class:`EJOPTransformer`
(the supervised transformer alone), :func:`ejop_from_callable` (finite-difference EJOP of any callable),
:func:`preconditioner`, and the Rotation Forest baseline (:class:`RotationForestClassifier`,
:class:`RotationForestRegressor`).
"""

from iclr26.science.jarf.ejop import (
    ejop_from_callable,
    fd_jacobians,
    normalize_ejop,
    preconditioner,
    sorted_eigh,
    subspace_overlap,
)
from iclr26.science.jarf.estimators import EJOPTransformer, JARFClassifier, JARFRegressor, surrogate_ejop
from iclr26.science.jarf.rotation_forest import RotationForestClassifier, RotationForestRegressor

__all__ = [
    "EJOPTransformer",
    "JARFClassifier",
    "JARFRegressor",
    "RotationForestClassifier",
    "RotationForestRegressor",
    "ejop_from_callable",
    "fd_jacobians",
    "normalize_ejop",
    "preconditioner",
    "sorted_eigh",
    "subspace_overlap",
    "surrogate_ejop",
]
