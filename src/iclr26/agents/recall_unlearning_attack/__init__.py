"""RECALL: "Image Can Bring Your Memory Back: A Novel Multi-Modal Guided Attack against Image Generation Model
Unlearning" (Liu, Li, Zhang, Ng; ICLR 2026, arXiv 2507.07139).

An unlearned diffusion model keeps its image-to-image pathway; RECALL optimises an adversarial image latent,
seeded by one reference image of the erased concept, with momentum-normalised sign steps on the MSE between the
unlearned model's noise predictions for the noised reference and the noised adversarial latent, and generates
with the unchanged prompt. Here: the attack over any epsilon-prediction denoiser (:mod:`.attack`), a
text-embedding baseline, a tiny text-conditioned DDPM on 8x8 digits with DDIM image-to-image (:mod:`.tiny`) and
three unlearning methods (:mod:`.unlearning`).

Example
-------
>>> import numpy as np, torch
>>> from iclr26.agents.recall_unlearning_attack import DigitsDDPM, DigitsSampler, RecallAttack, prompt_tokens
>>> m = DigitsDDPM(); s = DigitsSampler(m)
>>> atk = RecallAttack(m, s.img2img, lambda x: np.zeros(len(x), bool), num_timesteps=2, iters=1, steps=5)
>>> r = atk(torch.zeros(2, 64), m.encode(prompt_tokens(["3 thin", "3 thick"])), s.uncond(2), torch.Generator())
>>> r.latent.shape, r.step.tolist()
(torch.Size([2, 64]), [-1, -1])
"""

from iclr26.agents.recall_unlearning_attack.attack import (
    AttackResult,
    RecallAttack,
    TextEmbeddingAttack,
    recall_timesteps,
)
from iclr26.agents.recall_unlearning_attack.tiny import (
    DigitsDDPM,
    DigitsSampler,
    Judges,
    add_noise,
    alphas_cumprod_schedule,
    ddim_timesteps,
    img2img_timesteps,
    prompt_tokens,
    styled_digits,
)
from iclr26.agents.recall_unlearning_attack.unlearning import (
    METHODS,
    ablate_unlearn,
    anchor_of,
    esd_unlearn,
    uce_unlearn,
    unlearn,
)

__all__ = [
    "METHODS",
    "AttackResult",
    "DigitsDDPM",
    "DigitsSampler",
    "Judges",
    "RecallAttack",
    "TextEmbeddingAttack",
    "ablate_unlearn",
    "add_noise",
    "alphas_cumprod_schedule",
    "anchor_of",
    "ddim_timesteps",
    "esd_unlearn",
    "img2img_timesteps",
    "prompt_tokens",
    "recall_timesteps",
    "styled_digits",
    "uce_unlearn",
    "unlearn",
]
