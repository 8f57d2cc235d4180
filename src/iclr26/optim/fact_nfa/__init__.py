"""FACT: the Features At Convergence Theorem (OpenReview j4964wtJMz, arXiv 2507.05644, ICLR 2026).

Feature matrices of a trained layer: :func:`fact_matrix` (``W^T W = -(1/(n lambda)) sum_i r_i h_i^T`` at
stationarity), :func:`agop_matrix` (the NFA's AGOP^power), :func:`feature_agreement` (Pearson, cosine);
Recursive Feature Machines with the FACT or NFA update as scikit-learn estimators: :class:`FactRFM`,
:class:`RFM` (regressors) and :class:`FactRFMClassifier`, :class:`RFMClassifier`; the kernel steps
:func:`laplace_kernel`, :func:`gaussian_kernel`, :func:`kernel_matrix`, :func:`kernel_fact_and_agop`,
:func:`rfm_iterates`.
"""

from iclr26.optim.fact_nfa.features import agop_matrix, fact_matrix, feature_agreement, psd_power
from iclr26.optim.fact_nfa.kernel_features import (
    KERNELS,
    UPDATES,
    gaussian_kernel,
    kernel_fact_and_agop,
    kernel_input_gradients,
    kernel_matrix,
    laplace_kernel,
    rfm_iterates,
    solve_kernel_ridge,
    update_features,
)
from iclr26.optim.fact_nfa.rfm import RFM, FactRFM, FactRFMClassifier, RFMClassifier

__all__ = [
    "KERNELS",
    "RFM",
    "UPDATES",
    "FactRFM",
    "FactRFMClassifier",
    "RFMClassifier",
    "agop_matrix",
    "fact_matrix",
    "feature_agreement",
    "gaussian_kernel",
    "kernel_fact_and_agop",
    "kernel_input_gradients",
    "kernel_matrix",
    "laplace_kernel",
    "psd_power",
    "rfm_iterates",
    "solve_kernel_ridge",
    "update_features",
]
