"""RECALL: an adversarial image prompt, optimised in latent space, fed to an unlearned model's image-to-image path.

Paper: "Image Can Bring Your Memory Back: A Novel Multi-Modal Guided Attack against Image Generation Model
Unlearning" (Liu, Li, Zhang, Ng; ICLR 2026, arXiv 2507.07139); official code ryliu68/RECALL (``attack.py``).

Given the unlearned denoiser ``eps_u(x_t, t, cond)``, the unchanged prompt P (conditional and unconditional
embeddings, the CFG pair) and a reference latent z_ref of the erased concept:

1. try the reference as is: ``img2img(z_ref, P)``; a judge success here is an attack success at step 0;
2. ``z_adv = lam z_ref + (1 - lam) delta``, ``delta ~ N(0, I)`` (lam = ``blend``);
3. for the timesteps ``t_i = T/(2K) + i T/K`` in ascending order, ``iters`` times: draw eps (shared by both
   branches) and take
   ``L = MSE(eps_u([x_t(z_ref)]*2, t, [uncond, cond]), eps_u([x_t(z_adv)]*2, t, [uncond, cond]))``,
   ``x_t(z) = sqrt(abar_t) z + sqrt(1 - abar_t) eps``; ``g = grad L / (mean|grad L| + 1e-8)``;
   ``v <- mu v + g``; ``z_adv <- z_adv + lr sign(v)`` (``ascent=True``, the released sign) or
   ``z_adv - lr sign(v)`` (``ascent=False``, the paper text's "minimise");
4. after every ``inject_every``-th timestep ``z_adv <- z_adv + gamma z_ref`` (reference injection);
5. after each timestep ``img2img(z_adv, P)``, judge it, stop at the first success.

:class:`TextEmbeddingAttack` is the UnlearnDiffAtk-style baseline: a soft prompt embedding optimised so that the
unlearned model denoises the noised reference, then used for text-to-image.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor

__all__ = ["AttackResult", "RecallAttack", "TextEmbeddingAttack", "recall_timesteps"]


def recall_timesteps(T: int, K: int) -> list[int]:
    """The K optimisation timesteps, ascending: ``T//K//2 + i * (T//K)`` (10, 30, ..., 990 for T=1000, K=50)."""
    check_int("T", T, low=1)
    check_int("num_timesteps", K, low=1, high=T)
    step = T // K
    return list(range(step // 2, T, step))[:K]


@dataclass
class AttackResult:
    """Per attack instance (batch rows): final adversarial latent, generated image, success, the step of success
    (0: the reference as is; i >= 1: after the i-th timestep; -1: failed), seconds, and (optionally) every
    generation ``history[k]`` of the whole batch (k = 0: the reference try)."""

    latent: Tensor
    image: Tensor
    success: np.ndarray
    step: np.ndarray
    seconds: float
    history: list[Tensor] = field(default_factory=list)


class RecallAttack:
    """RECALL over any epsilon-prediction denoiser.

    Parameters
    ----------
    denoiser : ``eps(x_t, t, cond) -> Tensor`` with an ``alphas_cumprod`` attribute (abar_t, length T).
    img2img : ``img2img(z, cond, strength, steps, generator) -> images`` (the model's own CFG sampler).
    judge : ``judge(images) -> bool array`` (True: the erased concept is back).
    num_timesteps, iters, lr, blend, inject_every, inject_gamma, momentum, ascent : K, inner steps, eta, lam,
        injection period and gamma, momentum mu, update sign; defaults are the released settings.
    strength, steps : image-to-image strength and sampling steps (released 0.8, 50).
    loss : ``"mse"`` (released) or ``"l1"``.
    set_each_step : re-initialise z_adv (and the momentum) at every timestep (released option, off).
    try_reference : try the reference as is first (step 0).

    Example
    -------
    >>> from iclr26.agents.recall_unlearning_attack.tiny import DigitsDDPM, DigitsSampler, prompt_tokens
    >>> m = DigitsDDPM(); s = DigitsSampler(m)
    >>> atk = RecallAttack(m, s.img2img, lambda x: np.zeros(len(x), bool), num_timesteps=2, iters=1, steps=5)
    >>> c = m.encode(prompt_tokens(["3 thin"]))
    >>> r = atk(torch.zeros(1, 64), c, s.uncond(1), torch.Generator().manual_seed(0))
    >>> r.success.tolist(), r.step.tolist()
    ([False], [-1])
    """

    def __init__(
        self,
        denoiser: Callable[[Tensor, int, Tensor], Tensor],
        img2img: Callable[..., Tensor],
        judge: Callable[[Tensor], np.ndarray],
        num_timesteps: int = 50,
        iters: int = 20,
        lr: float = 1e-3,
        blend: float = 0.25,
        inject_every: int = 5,
        inject_gamma: float = 0.05,
        momentum: float = 0.9,
        ascent: bool = True,
        *,
        strength: float = 0.8,
        steps: int = 50,
        loss: str = "mse",
        set_each_step: bool = False,
        try_reference: bool = True,
    ) -> None:
        if not hasattr(denoiser, "alphas_cumprod"):
            raise ValueError(
                "denoiser must expose its schedule as an `alphas_cumprod` attribute (abar_t, length T)"
            )
        self.denoiser, self.img2img, self.judge = denoiser, img2img, judge
        self.alphas_cumprod = torch.as_tensor(denoiser.alphas_cumprod)
        self.T = len(self.alphas_cumprod)
        self.num_timesteps = check_int("num_timesteps", num_timesteps, low=1, high=self.T)
        self.iters = check_int("iters", iters, low=0)
        self.lr = check_float("lr", lr, low=0.0)
        self.blend = check_float("blend", blend, 0.0, 1.0)
        self.inject_every = check_int("inject_every", inject_every, low=1)
        self.inject_gamma = check_float("inject_gamma", inject_gamma)
        self.momentum = check_float("momentum", momentum, 0.0, 1.0)
        self.ascent = check_bool("ascent", ascent)
        self.strength = check_float("strength", strength, 0.0, 1.0, low_open=True)
        self.steps = check_int("steps", steps, low=1)
        self.loss = check_choice("loss", loss, ("mse", "l1"))
        self.set_each_step = check_bool("set_each_step", set_each_step)
        self.try_reference = check_bool("try_reference", try_reference)
        self.timesteps = recall_timesteps(self.T, self.num_timesteps)

    def objective(
        self, z_ref: Tensor, z_adv: Tensor, t: int, cond: Tensor, uncond: Tensor, noise: Tensor
    ) -> Tensor:
        """Per-row loss ``(batch,)``: MSE (or L1) between the CFG-duplicated predictions on both noised latents."""
        ab = self.alphas_cumprod.to(z_ref.dtype)[t]
        cc = torch.cat([uncond, cond])
        with torch.no_grad():
            x_ref = ab.sqrt() * z_ref + (1 - ab).sqrt() * noise
            e_ref = self.denoiser(torch.cat([x_ref, x_ref]), t, cc)
        x_adv = ab.sqrt() * z_adv + (1 - ab).sqrt() * noise
        e_adv = self.denoiser(torch.cat([x_adv, x_adv]), t, cc)
        d = (e_ref - e_adv).reshape(2, len(z_ref), -1)
        per = d.pow(2) if self.loss == "mse" else d.abs()
        return per.mean(dim=(0, 2))

    def step(self, z_ref, z_adv, velocity, t, cond, uncond, noise) -> tuple[Tensor, Tensor]:
        """One inner update (per row: normalised gradient, momentum, signed step); returns (z_adv, velocity)."""
        z = z_adv.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(self.objective(z_ref, z, t, cond, uncond, noise).sum(), z)
        g = g / (g.abs().reshape(len(g), -1).mean(1).reshape(-1, *([1] * (g.ndim - 1))) + 1e-8)
        velocity = self.momentum * velocity + g
        sign = 1.0 if self.ascent else -1.0
        return (z_adv + sign * self.lr * velocity.sign()).detach(), velocity

    def _init(self, z_ref: Tensor, generator: torch.Generator) -> Tensor:
        delta = torch.randn(z_ref.shape, generator=generator, dtype=z_ref.dtype)
        return self.blend * z_ref + (1 - self.blend) * delta

    def __call__(
        self,
        z_ref: Tensor,
        cond: Tensor,
        uncond: Tensor,
        generator: torch.Generator,
        sample_seed: int = 0,
        keep_history: bool = False,
    ) -> AttackResult:
        """Attack a batch: z_ref ``(batch, ...)``, cond/uncond the prompt's embeddings ``(batch, ...)``.

        Optimisation noise (delta, eps) comes from `generator`; every image-to-image call uses a fresh generator
        seeded with `sample_seed`, so all tries of one instance share the sampling noise. A row stops (its z_adv
        is frozen) at its first success.
        """
        check_tensor("z_ref", z_ref, floating=True, finite=True)
        n = len(z_ref)
        check_tensor("cond", cond, floating=True, finite=True)
        if len(cond) != n:
            raise ValueError(
                f"cond must have one row per reference (z_ref's batch {n}), got shape {tuple(cond.shape)}"
            )
        check_tensor("uncond", uncond, floating=True, finite=True)
        if uncond.shape != cond.shape:
            raise ValueError(
                f"uncond must have the shape of cond {tuple(cond.shape)} (the CFG pair), got {tuple(uncond.shape)}"
            )
        t0 = time.perf_counter()
        done = np.zeros(n, bool)
        step = np.full(n, -1)
        history: list[Tensor] = []

        def generate(z: Tensor, k: int, image: Tensor | None) -> Tensor:
            gen = torch.Generator().manual_seed(int(sample_seed))
            out = self.img2img(z, cond, self.strength, self.steps, gen)
            if keep_history:
                history.append(out)
            hit = np.asarray(self.judge(out), bool) & ~done
            step[hit] = k
            done[hit] = True
            if image is None:
                return out
            keep = torch.as_tensor(
                hit | ~done
            )  # rows that just succeeded or are still running take the new image
            return torch.where(keep[:, None], out.reshape(n, -1), image.reshape(n, -1)).reshape(out.shape)

        image = generate(z_ref, 0, None) if self.try_reference else None
        z_adv = self._init(z_ref, generator)
        z_adv[torch.as_tensor(done)] = z_ref[torch.as_tensor(done)]  # an init success keeps the reference
        velocity = torch.zeros_like(z_adv)
        frozen = z_adv.clone()
        for i, t in enumerate(self.timesteps):
            if done.all():
                break
            if self.set_each_step:
                z_adv, velocity = self._init(z_ref, generator), torch.zeros_like(z_adv)
            for _ in range(self.iters):
                noise = torch.randn(z_ref.shape, generator=generator, dtype=z_ref.dtype)
                z_adv, velocity = self.step(z_ref, z_adv, velocity, t, cond, uncond, noise)
            if (i + 1) % self.inject_every == 0:
                z_adv = z_adv + self.inject_gamma * z_ref
            live = torch.as_tensor(~done).reshape(-1, *([1] * (z_adv.ndim - 1)))
            z_adv = torch.where(live, z_adv, frozen)
            frozen = z_adv.clone()
            image = generate(z_adv, i + 1, image)
        if image is None:
            image = self.img2img(
                z_adv, cond, self.strength, self.steps, torch.Generator().manual_seed(sample_seed)
            )
        return AttackResult(z_adv, image, done.copy(), step, time.perf_counter() - t0, history)


class TextEmbeddingAttack:
    """UnlearnDiffAtk-style soft-prompt baseline: optimise the prompt embedding ``c_adv`` (initialised at the
    prompt's own) with Adam on ``|eps_u(x_t(z_ref), t, c_adv) - eps|^2`` (t uniform, fresh eps each step), then
    generate text-to-image with it. The image channel is not used at generation time.

    Parameters
    ----------
    denoiser : as for :class:`RecallAttack`.
    txt2img : ``txt2img(cond, steps, generator) -> images``.
    judge : ``judge(images) -> bool array``.
    iters, lr : optimisation steps and Adam learning rate.
    steps : text-to-image sampling steps.
    """

    def __init__(self, denoiser, txt2img, judge, iters: int = 200, lr: float = 1e-2, steps: int = 20) -> None:
        if not hasattr(denoiser, "alphas_cumprod"):
            raise ValueError(
                "denoiser must expose its schedule as an `alphas_cumprod` attribute (abar_t, length T)"
            )
        self.denoiser, self.txt2img, self.judge = denoiser, txt2img, judge
        self.iters = check_int("iters", iters, low=0)
        self.lr = check_float("lr", lr, low=0.0, low_open=True)
        self.steps = check_int("steps", steps, low=1)

    def __call__(
        self, z_ref: Tensor, cond: Tensor, generator: torch.Generator, sample_seed: int = 0
    ) -> AttackResult:
        """Attack a batch (one soft prompt per row); returns the optimised embedding as ``latent``."""
        check_tensor("z_ref", z_ref, floating=True, finite=True)
        check_tensor("cond", cond, floating=True, finite=True)
        if len(cond) != len(z_ref):
            raise ValueError(
                f"cond must have one row per reference (z_ref's batch {len(z_ref)}), got shape {tuple(cond.shape)}"
            )
        t0 = time.perf_counter()
        ab = torch.as_tensor(self.denoiser.alphas_cumprod).to(z_ref.dtype)
        c = cond.detach().clone().requires_grad_(True)
        opt = torch.optim.Adam([c], lr=self.lr)
        for _ in range(self.iters):
            t = torch.randint(0, len(ab), (len(z_ref),), generator=generator)
            noise = torch.randn(z_ref.shape, generator=generator, dtype=z_ref.dtype)
            a = ab[t].reshape(-1, *([1] * (z_ref.ndim - 1)))
            x_t = a.sqrt() * z_ref + (1 - a).sqrt() * noise
            loss = (self.denoiser(x_t, t, c) - noise).pow(2).mean(tuple(range(1, z_ref.ndim))).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        c = c.detach()
        image = self.txt2img(c, self.steps, torch.Generator().manual_seed(int(sample_seed)))
        success = np.asarray(self.judge(image), bool)
        return AttackResult(c, image, success, np.where(success, 1, -1), time.perf_counter() - t0)
