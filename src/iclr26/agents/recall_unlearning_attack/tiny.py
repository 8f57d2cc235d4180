"""Offline substrate for RECALL: a tiny text-conditioned DDPM on scikit-learn's 8x8 digits, with image-to-image.

Paper: "Image Can Bring Your Memory Back: A Novel Multi-Modal Guided Attack against Image Generation Model
Unlearning" (Liu, Li, Zhang, Ng; ICLR 2026, arXiv 2507.07139).

Pixels (scaled to [-1, 1], shape ``(batch, 64)``) play the role of Stable Diffusion's VAE latent. A prompt is two
tokens, ``"<digit> <style>"`` with style ``thin`` (grey erosion) or ``thick`` (grey dilation); the unconditional
prompt is two ``<null>`` tokens. The text encoder is a token embedding table; its output, ``(batch, 2, D_TOK)``, is
the ``cond`` every denoiser call takes, so soft-prompt attacks can optimise it directly. Inside the denoiser the
tokens go through one bias-free text projection ``W`` (summed over tokens) and then per-block conditioning layers
-- the "text-conditioning layers" the unlearning methods edit.

Noise schedule: Stable Diffusion's scaled-linear betas (sqrt-linear from 0.00085 to 0.012 over 1000 steps)
rescaled to ``T = 100`` steps (betas x 10), so the signal left at strength 0.8 matches SD's. Forward noising
``x_t = sqrt(abar_t) x_0 + sqrt(1 - abar_t) eps``. Sampling: deterministic DDIM (eta = 0, x_0 clipped to [-1, 1])
on diffusers' "leading" grid ``t_j = j * T // n``; image-to-image skips the first ``n - int(n * strength)``
steps, noises the start latent to the first remaining timestep and denoises with classifier-free guidance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy import ndimage
from torch import Tensor, nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor

__all__ = [
    "CLASSES",
    "D_TOK",
    "N_PIX",
    "NULL",
    "STYLES",
    "T_TRAIN",
    "VOCAB",
    "DigitsDDPM",
    "DigitsSampler",
    "Judges",
    "add_noise",
    "alphas_cumprod_schedule",
    "ddim_timesteps",
    "img2img_timesteps",
    "prompt_tokens",
    "styled_digits",
]

CLASSES = tuple(str(i) for i in range(10))
STYLES = ("thin", "thick")
NULL = "<null>"
VOCAB = (*CLASSES, *STYLES, NULL)
D_TOK = 32
N_PIX = 64
T_TRAIN = 100


def alphas_cumprod_schedule(T: int = T_TRAIN) -> Tensor:
    """abar_t, t = 0..T-1, for SD's scaled-linear betas rescaled from 1000 to `T` steps (float64)."""
    check_int("T", T, low=2)
    scale = 1000.0 / T
    betas = torch.linspace((0.00085 * scale) ** 0.5, (0.012 * scale) ** 0.5, T, dtype=torch.float64) ** 2
    return torch.cumprod(1.0 - betas.clamp(max=0.999), 0)


def add_noise(x0: Tensor, noise: Tensor, t: Tensor | int, alphas_cumprod: Tensor) -> Tensor:
    """The forward marginal ``x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) noise`` (t per row or one int)."""
    check_tensor("alphas_cumprod", alphas_cumprod, ndim=1, floating=True, finite=True)
    check_tensor("x0", x0, floating=True)
    if x0.ndim < 1:
        raise ValueError("x0 must have a leading batch axis, got a 0-d tensor")
    check_tensor("noise", noise, floating=True)
    if noise.shape != x0.shape:
        raise ValueError(f"noise must have the shape of x0 {tuple(x0.shape)}, got {tuple(noise.shape)}")
    _check_timesteps(t, x0.shape[0], "x0", alphas_cumprod.shape[0])
    a = alphas_cumprod.to(x0.dtype)[torch.as_tensor(t, dtype=torch.long)]
    a = a.reshape(-1, *([1] * (x0.ndim - 1))) if a.ndim else a
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def _check_timesteps(t: Tensor | int, batch: int, rows: str, T: int | None = None) -> None:
    """One integer timestep, or an integer tensor of one or `batch` of them (each in [0, T) when T is given)."""
    high = None if T is None else T - 1
    if not isinstance(t, Tensor):
        check_int("t", t, low=0, high=high)
        return
    check_tensor("t", t, ndim=(0, 1), floating=False)
    if t.numel() not in (1, batch):
        raise ValueError(
            f"t must hold one timestep or one per row of {rows} ({batch}), got shape {tuple(t.shape)}"
        )
    if t.numel() and (int(t.min()) < 0 or (high is not None and int(t.max()) > high)):
        raise ValueError(
            f"t must hold timesteps in [0, {high}], got values in [{int(t.min())}, {int(t.max())}]"
        )


def ddim_timesteps(T: int, steps: int) -> list[int]:
    """diffusers' DDIM "leading" grid, descending: ``[(steps-1)*T//steps, ..., T//steps, 0]``."""
    check_int("steps", steps, low=1, high=T)
    ratio = T // steps
    return [j * ratio for j in reversed(range(steps))]


def img2img_timesteps(T: int, steps: int, strength: float) -> list[int]:
    """The timesteps image-to-image visits: the DDIM grid from index ``steps - int(steps * strength)`` on."""
    check_float("strength", strength, 0.0, 1.0, low_open=True)
    init = min(int(steps * strength), steps)
    return ddim_timesteps(T, steps)[max(steps - init, 0) :]


def styled_digits() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All 1,797 digits in both styles: images ``(3594, 64)`` in [-1, 1], class labels, style labels (0 thin)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x, y = d.images / 16.0, d.target
    fp = np.ones((1, 2))
    thin = np.stack([ndimage.grey_erosion(im, footprint=fp) for im in x])
    thick = np.stack([ndimage.grey_dilation(im, footprint=fp) for im in x])
    imgs = np.concatenate([thin, thick]).reshape(-1, N_PIX) * 2.0 - 1.0
    return imgs.astype(np.float32), np.concatenate([y, y]), np.repeat([0, 1], len(y))


def prompt_tokens(prompts: Sequence[str]) -> Tensor:
    """Token ids ``(batch, 2)`` of prompts ``"<digit> <style>"`` (or ``"<null> <null>"``); unknown words raise."""
    if isinstance(prompts, str):
        prompts = [prompts]
    ids = []
    for p in prompts:
        words = str(p).split()
        if len(words) != 2:
            raise ValueError(f"prompt must be two words '<digit> <style>', got {p!r}")
        for w in words:
            if w not in VOCAB:
                raise ValueError(f"prompt {p!r}: unknown concept token {w!r}; accepted: {', '.join(VOCAB)}")
        ids.append([VOCAB.index(w) for w in words])
    return torch.tensor(ids, dtype=torch.long)


def _time_embedding(t: Tensor, dim: int) -> Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(1000.0) * torch.arange(half, dtype=torch.float32) / half)
    ang = t.float()[:, None] * freqs[None] * (1000.0 / T_TRAIN)
    return torch.cat([ang.sin(), ang.cos()], 1)


@dataclass(frozen=True)
class DDPMConfig:
    """Denoiser size (about 0.3M parameters at the defaults)."""

    hidden: int = 256
    blocks: int = 3
    d_cond: int = 64


class DigitsDDPM(nn.Module):
    """epsilon-prediction MLP denoiser ``eps(x_t, t, cond)``: x_t ``(batch, 64)``, t ``(batch,)`` or int,
    cond ``(batch, 2, D_TOK)`` token embeddings (from :meth:`encode`). ``alphas_cumprod`` is its schedule.

    Example
    -------
    >>> m = DigitsDDPM()
    >>> c = m.encode(prompt_tokens(["3 thin"]))
    >>> m(torch.zeros(1, 64), 50, c).shape
    torch.Size([1, 64])
    """

    def __init__(self, cfg: DDPMConfig = DDPMConfig()) -> None:
        super().__init__()
        h = cfg.hidden
        self.token_embedding = nn.Embedding(len(VOCAB), D_TOK)
        self.text_proj = nn.Linear(D_TOK, cfg.d_cond, bias=False)  # W: the matrix the UCE-like edit changes
        self.inp = nn.Linear(N_PIX, h)
        self.temb = nn.Sequential(nn.Linear(64, h), nn.SiLU(), nn.Linear(h, h))
        self.cond_layers = nn.ModuleList(nn.Linear(cfg.d_cond, h) for _ in range(cfg.blocks))
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(h), nn.Linear(h, h), nn.SiLU(), nn.Linear(h, h))
            for _ in range(cfg.blocks)
        )
        self.out = nn.Sequential(nn.LayerNorm(h), nn.Linear(h, N_PIX))
        self.register_buffer("alphas_cumprod", alphas_cumprod_schedule(T_TRAIN), persistent=False)

    def encode(self, tokens: Tensor) -> Tensor:
        """The text encoder: token ids ``(batch, 2)`` -> embeddings ``(batch, 2, D_TOK)``."""
        return self.token_embedding(tokens)

    def conditioning_parameters(self) -> list[nn.Parameter]:
        """The text-conditioning layers (W and the per-block conditioning maps) that fine-tuning unlearning edits."""
        return [*self.text_proj.parameters(), *self.cond_layers.parameters()]

    def forward(self, x_t: Tensor, t: Tensor | int, cond: Tensor) -> Tensor:
        check_tensor("x_t", x_t, ndim=2, floating=True, shape=(None, self.inp.in_features))
        check_tensor(
            "cond", cond, ndim=3, floating=True, shape=(x_t.shape[0], None, self.text_proj.in_features)
        )
        _check_timesteps(t, x_t.shape[0], "x_t")
        t = torch.as_tensor(t, device=x_t.device).reshape(-1).expand(x_t.shape[0])
        c = self.text_proj(cond).sum(1)
        h = self.inp(x_t) + self.temb(_time_embedding(t, 64).to(x_t.dtype))
        for layer, block in zip(self.cond_layers, self.blocks):
            h = h + block(h + layer(c))
        return self.out(h)


class DigitsSampler:
    """DDIM text-to-image and image-to-image for a :class:`DigitsDDPM` with classifier-free guidance.

    ``sampler.img2img(z, cond, strength, steps, generator)`` is the image-to-image sampler RECALL attacks through:
    z ``(batch, 64)``, cond ``(batch, 2, D_TOK)``; the unconditional embedding is the model's ``<null> <null>``.
    """

    def __init__(self, model: DigitsDDPM, guidance: float = 3.0) -> None:
        self.model = model
        self.guidance = check_float("guidance", guidance, low=0.0)

    def uncond(self, n: int) -> Tensor:
        """The unconditional embedding ``(n, 2, D_TOK)``."""
        return self.model.encode(prompt_tokens([f"{NULL} {NULL}"]).expand(n, 2))

    def eps_cfg(self, x: Tensor, t: int, cond: Tensor) -> Tensor:
        """Guided noise prediction ``eps_u + s (eps_c - eps_u)`` from one duplicated forward pass."""
        e = self.model(torch.cat([x, x]), t, torch.cat([self.uncond(len(x)), cond]))
        eu, ec = e.chunk(2)
        return eu + self.guidance * (ec - eu)

    @torch.no_grad()
    def _denoise(self, x: Tensor, ts: list[int], cond: Tensor) -> Tensor:
        ab = self.model.alphas_cumprod.float()
        for j, t in enumerate(ts):
            a_t = ab[t]
            a_prev = ab[ts[j + 1]] if j + 1 < len(ts) else torch.tensor(1.0)
            eps = self.eps_cfg(x, t, cond)
            x0 = ((x - (1 - a_t).sqrt() * eps) / a_t.sqrt()).clamp(-1, 1)  # diffusers DDIM, clip_sample
            x = a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps
        return x

    def img2img(
        self,
        z: Tensor,
        cond: Tensor,
        strength: float = 0.8,
        steps: int = 20,
        generator: torch.Generator | None = None,
    ) -> Tensor:
        """Image-to-image: noise `z` to the first timestep of :func:`img2img_timesteps` and denoise with CFG."""
        check_tensor("z", z, ndim=2, floating=True, shape=(None, N_PIX))
        check_tensor("cond", cond, ndim=3, floating=True, shape=(z.shape[0], 2, D_TOK))
        ts = img2img_timesteps(T_TRAIN, check_int("steps", steps, low=1, high=T_TRAIN), strength)
        noise = torch.randn(z.shape, generator=generator)
        x = add_noise(z.detach(), noise, ts[0], self.model.alphas_cumprod)
        return self._denoise(x, ts, cond.detach())

    def txt2img(self, cond: Tensor, steps: int = 20, generator: torch.Generator | None = None) -> Tensor:
        """Text-to-image from pure noise over the full DDIM grid."""
        check_tensor("cond", cond, ndim=3, floating=True, shape=(None, 2, D_TOK))
        ts = ddim_timesteps(T_TRAIN, check_int("steps", steps, low=1, high=T_TRAIN))
        x = torch.randn((cond.shape[0], N_PIX), generator=generator)
        return self._denoise(x, ts, cond.detach())


class Judges:
    """The judges: a scikit-learn ``MLPClassifier`` for the digit class and one for the stroke style, trained on
    a fixed 80% split of the styled real digits and cached (their weights, via :func:`iclr26.lab.cache.cached_torch`);
    ``acc_class`` / ``acc_style`` are their held-out accuracies. Prediction is the classifiers' own forward pass
    (ReLU hidden layer, arg-max of the output logits), equal to ``MLPClassifier.predict``."""

    def __init__(self, seed: int = 0) -> None:
        from iclr26.lab.cache import cached_torch

        self.seed = check_int("seed", seed, low=0)
        state = cached_torch(
            "recall_unlearning_attack_judges", {"seed": self.seed, "version": 1}, self._train
        )
        self._digit = [(w.numpy(), b.numpy()) for w, b in zip(state["digit_w"], state["digit_b"])]
        self._style = [(w.numpy(), b.numpy()) for w, b in zip(state["style_w"], state["style_b"])]
        self.acc_class = float(state["acc_class"])
        self.acc_style = float(state["acc_style"])

    def _train(self) -> dict:
        from sklearn.neural_network import MLPClassifier

        x, y, s = styled_digits()
        perm = np.random.default_rng(self.seed).permutation(len(x))
        tr, te = perm[: int(0.8 * len(x))], perm[int(0.8 * len(x)) :]
        kw = {"max_iter": 200, "random_state": self.seed, "alpha": 1e-3}
        digit = MLPClassifier((64,), **kw).fit(x[tr], y[tr])
        style = MLPClassifier((16,), **kw).fit(x[tr], s[tr])

        def weights(clf):
            return [torch.as_tensor(w) for w in clf.coefs_], [torch.as_tensor(b) for b in clf.intercepts_]

        (dw, db), (sw, sb) = weights(digit), weights(style)
        return {
            "digit_w": dw,
            "digit_b": db,
            "style_w": sw,
            "style_b": sb,
            "acc_class": float(digit.score(x[te], y[te])),
            "acc_style": float(style.score(x[te], s[te])),
        }

    @staticmethod
    def _predict(layers, images: Tensor) -> np.ndarray:
        h = images.detach().clamp(-1, 1).reshape(len(images), -1).numpy().astype(np.float64)
        for i, (w, b) in enumerate(layers):
            h = h @ w + b
            if i + 1 < len(layers):
                h = np.maximum(h, 0.0)
        return (h[:, 0] > 0).astype(int) if h.shape[1] == 1 else h.argmax(1)

    def digit_of(self, images: Tensor) -> np.ndarray:
        """Predicted digit per image ``(batch, 64)``."""
        return self._predict(self._digit, images)

    def style_of(self, images: Tensor) -> np.ndarray:
        """Predicted style index per image (0 thin, 1 thick)."""
        return self._predict(self._style, images)

    def concept_judge(self, concept: int):
        """``judge(images) -> bool array``: the image shows digit `concept` (RECALL's success test)."""
        concept = check_choice("concept", concept, range(10))
        return lambda images: self.digit_of(images) == concept
