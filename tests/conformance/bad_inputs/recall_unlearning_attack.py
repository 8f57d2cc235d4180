"""Bad input to the RECALL attack, the tiny digits DDPM and its unlearning methods."""

import numpy as np
import torch

from iclr26.agents.recall_unlearning_attack import (
    DigitsDDPM,
    DigitsSampler,
    RecallAttack,
    TextEmbeddingAttack,
    img2img_timesteps,
    prompt_tokens,
    uce_unlearn,
    unlearn,
)
from iclr26.agents.recall_unlearning_attack.experiment import RecallConfig

_M = DigitsDDPM().eval()
_S = DigitsSampler(_M)
_C = _M.encode(prompt_tokens(["3 thin"])).detach()


def _never(x):
    return np.zeros(len(x), bool)


CASES = [
    (lambda: RecallAttack(_M, _S.img2img, _never, iters=-1), ValueError, ["iters", ">= 0", "-1"]),
    (lambda: RecallAttack(_M, _S.img2img, _never, num_timesteps=0), ValueError, ["num_timesteps", ">= 1"]),
    (lambda: RecallAttack(_M, _S.img2img, _never, blend=1.5), ValueError, ["blend", "[0, 1]", "1.5"]),
    (lambda: RecallAttack(_M, _S.img2img, _never, strength=0.0), ValueError, ["strength", "(0, 1]"]),
    (lambda: RecallAttack(_M, _S.img2img, _never, loss="l2"), ValueError, ["loss", "'mse'", "'l1'"]),
    (lambda: RecallAttack(lambda x, t, c: x, _S.img2img, _never), ValueError, ["alphas_cumprod"]),
    (
        lambda: RecallAttack(_M, _S.img2img, _never)(torch.zeros(2, 64), _C, _S.uncond(1), torch.Generator()),
        ValueError,
        ["cond", "one row per reference", "batch 2"],
    ),
    (lambda: _S.img2img(torch.zeros(1, 63), _C, 0.8, 20), ValueError, ["z", "(*, 64)", "(1, 63)"]),
    (lambda: _S.img2img(torch.zeros(1, 64), _C, 1.2, 20), ValueError, ["strength", "(0, 1]", "1.2"]),
    (lambda: img2img_timesteps(100, 20, -0.1), ValueError, ["strength", "(0, 1]"]),
    (lambda: prompt_tokens(["3 bold"]), ValueError, ["unknown concept token", "'bold'", "thin"]),
    (lambda: prompt_tokens(["three"]), ValueError, ["two words"]),
    (lambda: uce_unlearn(_M, 12), ValueError, ["concept", "12"]),
    (lambda: unlearn("sld", _M, 3, np.zeros((1, 64)), np.zeros(1), 1, 0), ValueError, ["method", "'esd'"]),
    (lambda: TextEmbeddingAttack(_M, _S.txt2img, _never, iters=-2), ValueError, ["iters", ">= 0"]),
    (lambda: RecallConfig(n_attacks=0), ValueError, ["n_attacks", ">= 1"]),
    (lambda: RecallConfig(methods=("esd", "sld")), ValueError, ["methods", "'sld'"]),
]
