"""SMC-DDM: Inference-Time Scaling of Discrete Diffusion Models via Importance Weighting and Optimal Proposal Design.

Ou, Pani, Li (ICLR 2026); arXiv 2505.22524 (earlier title "Test-Time Alignment of Discrete Diffusion Models with
Sequential Monte Carlo"); OpenReview boKSD5T8aU. Twisted sequential Monte Carlo towards
``p_theta(x) exp(r(x) / alpha)`` for a masked discrete diffusion model, with base, first-order (gradient) and
amortised (log-variance trained) proposals, plus the baselines and exact enumeration oracles.
"""

from iclr26.generative.smc_discrete_diffusion.amortised import AmortisedProposal, train_log_variance
from iclr26.generative.smc_discrete_diffusion.baselines import ancestral, base_smc, best_of_n, guidance_only
from iclr26.generative.smc_discrete_diffusion.exact import ExactSampler, all_sequences, enumerate_sampler
from iclr26.generative.smc_discrete_diffusion.smc import (
    SMCResult,
    ess_from_log_weights,
    logmeanexp,
    lookahead_twist,
    resample_indices,
    smc_sample,
    tempering_schedule,
    tilted_transition,
    token_reward,
)
from iclr26.generative.smc_discrete_diffusion.task import (
    MarkovChain,
    MotifReward,
    TaskConfig,
    make_chain,
    trained_denoiser,
)
from iclr26.lab.masked_diffusion import (
    MaskedDiffusionLM,
    MaskedDiffusionTransformer,
    ancestral_sample,
    mdlm_loss,
    reverse_step,
    reverse_transition,
    train_mdlm,
)

__all__ = [
    "AmortisedProposal",
    "ExactSampler",
    "MarkovChain",
    "MaskedDiffusionLM",
    "MaskedDiffusionTransformer",
    "MotifReward",
    "SMCResult",
    "TaskConfig",
    "all_sequences",
    "ancestral",
    "ancestral_sample",
    "base_smc",
    "best_of_n",
    "enumerate_sampler",
    "ess_from_log_weights",
    "guidance_only",
    "logmeanexp",
    "lookahead_twist",
    "make_chain",
    "mdlm_loss",
    "resample_indices",
    "reverse_step",
    "reverse_transition",
    "smc_sample",
    "tempering_schedule",
    "tilted_transition",
    "token_reward",
    "train_log_variance",
    "train_mdlm",
    "trained_denoiser",
]
