"""CuL-PAC-Bayes: "PAC-Bayes bounds for cumulative loss in Continual Learning" (ICLR 2026, OpenReview hWw269fPov).

High-probability certificates on the cumulative loss CuL = sum_t E_(h~Q_t) L(h, D_t) of a continual learner whose
prior for task t is its posterior after task t-1 (:mod:`.bounds`), the posteriors they certify (:mod:`.posteriors`,
:mod:`.learners`, :mod:`.sgld`) and the task families (:mod:`.tasks`).
"""

from iclr26.decision.pac_bayes_continual.bounds import (
    catoni_bound,
    cumulative_bound,
    eq3_bound_fn,
    kl_diag_gauss,
    lambda_grid,
    mc_correction,
    running_bound,
    split_delta,
)
from iclr26.decision.pac_bayes_continual.learners import ReplayLearner, VILearner
from iclr26.decision.pac_bayes_continual.posteriors import (
    BayesLinear,
    BayesMLP,
    EWCLearner,
    GaussianGibbsLinReg,
    kl_full_gauss,
)
from iclr26.decision.pac_bayes_continual.sgld import SGLDGibbs
from iclr26.decision.pac_bayes_continual.tasks import (
    DigitsTask,
    LinRegTask,
    digits_pool,
    linreg_tasks,
    oracle_rhs,
    permuted_digits,
    seen_before,
    split_digits,
)

__all__ = [
    "BayesLinear",
    "BayesMLP",
    "DigitsTask",
    "EWCLearner",
    "GaussianGibbsLinReg",
    "LinRegTask",
    "ReplayLearner",
    "SGLDGibbs",
    "VILearner",
    "catoni_bound",
    "cumulative_bound",
    "digits_pool",
    "eq3_bound_fn",
    "kl_diag_gauss",
    "kl_full_gauss",
    "lambda_grid",
    "linreg_tasks",
    "mc_correction",
    "oracle_rhs",
    "permuted_digits",
    "running_bound",
    "seen_before",
    "split_delta",
    "split_digits",
]
