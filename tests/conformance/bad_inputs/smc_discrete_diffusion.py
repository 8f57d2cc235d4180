"""Bad input to the SMC-DDM sampler (arXiv 2505.22524)."""

import torch

from iclr26.generative.smc_discrete_diffusion import AmortisedProposal, MaskedDiffusionTransformer, smc_sample

_MODEL = MaskedDiffusionTransformer(3, 3, d_model=8, n_layers=1, n_heads=2, init_seed=0)


def _reward(onehot):
    return onehot[..., 0].sum(-1)


def _wrong_shape(onehot):
    return onehot.sum(-1)


def _nan(onehot):
    return onehot[..., 0].sum(-1) * float("nan")


CASES = [
    (lambda: smc_sample(_MODEL, _reward, 4, 2, alpha=0.0), ValueError, ["alpha", "> 0"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, alpha=-1.0), ValueError, ["alpha"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, lambdas=[1.0, 1.0]), ValueError, ["lambdas", "steps + 1"]),
    (lambda: smc_sample(_MODEL, _wrong_shape, 4, 2), ValueError, ["reward_fn", "shape"]),
    (lambda: smc_sample(_MODEL, _nan, 4, 2), ValueError, ["reward_fn", "NaN"]),
    (lambda: smc_sample(_MODEL, _reward, 0, 2), ValueError, ["num_particles"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 0), ValueError, ["steps"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, proposal="optimal"), ValueError, ["proposal"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, proposal="amortised"), ValueError, ["amortised"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, ess_threshold=1.5), ValueError, ["ess_threshold"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, resample="stratified"), ValueError, ["resample"]),
    (lambda: smc_sample(_MODEL, _reward, 4, 2, mask_mass="global"), ValueError, ["mask_mass"]),
    (lambda: AmortisedProposal(4, 3, init_scale=-1.0), ValueError, ["init_scale"]),
    (
        lambda: AmortisedProposal(4, 3)(torch.zeros(2, 3, 5), torch.zeros(2, 3, dtype=torch.long), 0.5),
        ValueError,
        ["logits", "shape"],
    ),
]
