"""LEWC: linear mode connectivity without permutations in wide models (arXiv 2510.08023, ICLR 2026).

"Do We Really Need Permutations? Impact of Model Width on Linear Mode Connectivity" (Ito, Yamada, Chijiwa,
Kumagai). Components: :func:`merge_linear` (theta_lambda = (1 - lambda) theta_A + lambda theta_B, optional
BatchNorm reset), :func:`calibrate_temperature` (argmin_T NLL(softmax(z / T))), :func:`lmc_curve` (loss and
accuracy along lambda and the barriers), :func:`lewc_fit` (per-layer fit h_lambda ~ c_A h_A + c_B h_B against
the predicted ((1 - lambda)^l, lambda^l)), :func:`linear_path_expansion` (the exact deep-linear expansion) and
the permutation baseline :func:`weight_matching_permute` (Ainsworth et al.'s weight matching for MLPs).
"""

from iclr26.optim.lewc.calibration import calibrate_temperature, nll
from iclr26.optim.lewc.coefficients import LayerFit, lewc_fit, linear_path_expansion
from iclr26.optim.lewc.lmc import barrier, lmc_curve, predict_logits
from iclr26.optim.lewc.merging import check_same_architecture, merge_linear, reset_batchnorm
from iclr26.optim.lewc.tasks import Splits, digits_task, gmm_task
from iclr26.optim.lewc.training import make_mlp, train_mlp
from iclr26.optim.lewc.weight_matching import permute_hidden_units, weight_matching, weight_matching_permute

__all__ = [
    "LayerFit",
    "Splits",
    "barrier",
    "calibrate_temperature",
    "check_same_architecture",
    "digits_task",
    "gmm_task",
    "lewc_fit",
    "linear_path_expansion",
    "lmc_curve",
    "make_mlp",
    "merge_linear",
    "nll",
    "permute_hidden_units",
    "predict_logits",
    "reset_batchnorm",
    "train_mlp",
    "weight_matching",
    "weight_matching_permute",
]
