"""Anchor networks for KLAS stitching (arXiv 2605.29259, ICLR 2026): tiny MLP-Mixers and CNNs on 8x8 digits.

Every anchor exposes the interface :class:`~iclr26.inference.klas.stitching.StitchedNet` needs: ``embed(x)``
mapping images (B, 64) to tokens (B, T, d), an ordered ``blocks`` list acting on (B, T, d), and ``head`` mapping
tokens to logits (token-mean pooling, LayerNorm, linear). For the CNN family the 16 tokens are the 4x4 spatial
positions of a feature map with d channels, so a linear stitch d_A -> d_B is a 1x1 convolution.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.baselines import nearest_class_mean_accuracy

__all__ = [
    "Anchor",
    "DigitsData",
    "TinyCNN",
    "TinyMixer",
    "digits_data",
    "make_anchor",
    "nearest_centroid_accuracy",
    "noisy_digits_data",
    "train_anchor",
]

N_TOKENS = 16  # 8x8 digits as 16 patches of 2x2 (mixer) or a 4x4 feature map (CNN)


class DigitsData:
    """A seeded train/test split of scikit-learn's bundled 8x8 digits (pixels scaled to [0, 1])."""

    def __init__(
        self, x_train: torch.Tensor, y_train: torch.Tensor, x_test: torch.Tensor, y_test: torch.Tensor
    ):
        self.x_train, self.y_train, self.x_test, self.y_test = x_train, y_train, x_test, y_test


def digits_data(seed: int, n_train: int = 1200) -> DigitsData:
    """Shuffle the 1797 bundled digits with `seed` and split off `n_train` training images."""
    from sklearn.datasets import load_digits

    check_int("seed", seed, low=0)
    x, y = load_digits(return_X_y=True)
    check_int("n_train", n_train, 1, len(x) - 1)
    perm = np.random.default_rng(seed).permutation(len(x))
    xt = torch.tensor(x[perm] / 16.0, dtype=torch.float32)
    yt = torch.tensor(y[perm], dtype=torch.long)
    return DigitsData(xt[:n_train], yt[:n_train], xt[n_train:], yt[n_train:])


def _perturb(x: torch.Tensor, gen: torch.Generator, noise: float, shift: int) -> torch.Tensor:
    """Shift each (B, 64) image by a uniform offset in [-shift, shift]^2 (zero fill) and add N(0, noise^2) pixels."""
    b = x.shape[0]
    pad = nn.functional.pad(x.view(b, 8, 8), (shift, shift, shift, shift))
    off = torch.randint(0, 2 * shift + 1, (b, 2), generator=gen)
    rows = off[:, 0, None] + torch.arange(8)  # (B, 8)
    cols = off[:, 1, None] + torch.arange(8)
    out = pad[torch.arange(b)[:, None, None], rows[:, :, None], cols[:, None, :]]
    return (out + noise * torch.randn(out.shape, generator=gen)).reshape(b, 64)


def noisy_digits_data(
    seed: int, n_train: int = 9600, n_test: int = 6000, noise: float = 0.3, shift: int = 1
) -> DigitsData:
    """Independent draws from the "noisy digits" distribution: one of the 1797 bundled digits chosen uniformly,
    shifted by up to `shift` pixels (zero fill) and corrupted by Gaussian pixel noise of s.d. `noise`.

    Train and test sets are independent samples of that one distribution (they share its 1797 prototypes, not
    their draws), so a test accuracy is a binomial proportion over `n_test` independent examples. It measures
    accuracy on this distribution, not generalisation to new writers; the noise makes capacity matter, so
    narrow anchors are clearly worse than wide ones.
    """
    from sklearn.datasets import load_digits

    check_int("seed", seed, low=0)
    check_int("n_train", n_train, low=1)
    check_int("n_test", n_test, low=1)
    check_float("noise", noise, low=0.0)
    check_int("shift (pixels)", shift, 0, 4)
    x, y = load_digits(return_X_y=True)
    xt = torch.tensor(x / 16.0, dtype=torch.float32)
    yt = torch.tensor(y, dtype=torch.long)
    gen = torch.Generator().manual_seed(seed)
    parts = []
    for n in (n_train, n_test):
        idx = torch.randint(0, len(xt), (n,), generator=gen)
        parts.append((_perturb(xt[idx], gen, noise, shift), yt[idx]))
    (a, b), (c, d) = parts
    return DigitsData(a, b, c, d)


class Head(nn.Module):
    """Token-mean pooling, LayerNorm and a linear classifier."""

    def __init__(self, d: int, n_classes: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, n_classes)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.fc(self.norm(h.mean(dim=1)))


class Anchor(nn.Module):
    """An anchor: ``embed`` -> ``blocks`` (ModuleList on (B, T, d)) -> ``head``; ``width`` d, ``n_classes``."""

    width: int
    n_classes: int
    embed: nn.Module
    blocks: nn.ModuleList
    head: nn.Module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Token activations after 0, 1, ..., n blocks: a list of n + 1 tensors (B, T, d)."""
        h = self.embed(x)
        out = [h]
        for block in self.blocks:
            h = block(h)
            out.append(h)
        return out


def _check_images(x: torch.Tensor) -> None:
    """A (B, 64) floating batch of flattened 8x8 images, B >= 1."""
    check_tensor("x", x, floating=True)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] != 64:
        raise ValueError(
            f"x must be a (B >= 1, 64) batch of flattened 8x8 images, got shape {tuple(x.shape)}"
        )


def _check_arch(width: int, depth: int, n_classes: int) -> None:
    check_int("width", width, low=1)
    check_int("depth", depth, low=1)
    check_int("n_classes", n_classes, low=2)


class PatchEmbed(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.proj = nn.Linear(4, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_images(x)
        b = x.shape[0]
        patches = x.view(b, 4, 2, 4, 2).permute(0, 1, 3, 2, 4).reshape(b, N_TOKENS, 4)
        return self.proj(patches)


class MixerBlock(nn.Module):
    """Pre-norm MLP-Mixer block: token mixing (T -> 2T -> T) then channel mixing (d -> 2d -> d)."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.tok = nn.Sequential(
            nn.Linear(N_TOKENS, 2 * N_TOKENS), nn.GELU(), nn.Linear(2 * N_TOKENS, N_TOKENS)
        )
        self.ch = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        h = h + self.tok(self.n1(h).transpose(1, 2)).transpose(1, 2)
        return h + self.ch(self.n2(h))


class TinyMixer(Anchor):
    """An MLP-Mixer (the ViT-family stand-in) of width `width` and `depth` blocks on 16 patches of 2x2."""

    def __init__(self, width: int, depth: int, n_classes: int = 10) -> None:
        super().__init__()
        _check_arch(width, depth, n_classes)
        self.width, self.n_classes = width, n_classes
        self.embed = PatchEmbed(width)
        self.blocks = nn.ModuleList(MixerBlock(width) for _ in range(depth))
        self.head = Head(width, n_classes)


class ConvEmbed(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, d, kernel_size=2, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_images(x)
        z = self.conv(x.view(-1, 1, 8, 8))  # (B, d, 4, 4)
        return z.flatten(2).transpose(1, 2)


class ConvBlock(nn.Module):
    """Residual 3x3 conv block on the 4x4 map: h + conv(relu(BN-free GroupNorm(h)))."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.norm = nn.GroupNorm(1, d)
        self.conv = nn.Conv2d(d, d, kernel_size=3, padding=1)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        b, t, d = h.shape
        z = h.transpose(1, 2).reshape(b, d, 4, 4)
        z = z + self.conv(torch.relu(self.norm(z)))
        return z.flatten(2).transpose(1, 2)


class TinyCNN(Anchor):
    """A residual CNN (the second family) of `width` channels and `depth` blocks on a 4x4 feature map."""

    def __init__(self, width: int, depth: int, n_classes: int = 10) -> None:
        super().__init__()
        _check_arch(width, depth, n_classes)
        self.width, self.n_classes = width, n_classes
        self.embed = ConvEmbed(width)
        self.blocks = nn.ModuleList(ConvBlock(width) for _ in range(depth))
        self.head = Head(width, n_classes)


def make_anchor(family: str, width: int, depth: int, seed: int, n_classes: int = 10) -> Anchor:
    """Build a seeded ``"mixer"`` or ``"cnn"`` anchor."""
    check_choice("family", family, ("mixer", "cnn"))
    _check_arch(width, depth, n_classes)
    check_int("seed", seed, low=0)
    torch.manual_seed(seed)
    if family == "mixer":
        return TinyMixer(width, depth, n_classes)
    if family == "cnn":
        return TinyCNN(width, depth, n_classes)
    raise ValueError(f"family must be 'mixer' or 'cnn', got {family!r}")


def warmup_cosine(opt: torch.optim.Optimizer, total_steps: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Linear warm-up over the first 10% of `total_steps` (at least one step), then cosine decay to 0."""
    warm = max(1, total_steps // 10)

    def factor(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1.0 + float(np.cos(np.pi * min(1.0, (step - warm) / max(1, total_steps - warm)))))

    return torch.optim.lr_scheduler.LambdaLR(opt, factor)


def train_anchor(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    epochs: int,
    seed: int,
    lr: float = 3e-3,
    batch: int = 64,
    schedule: str = "constant",
) -> nn.Module:
    """Adam on cross-entropy for `epochs` passes in a seeded order; returns the model in eval mode.

    ``schedule="onecycle"`` warms the learning rate up linearly over the first 10% of the steps to `lr` and
    anneals it (cosine) to 0 (:func:`warmup_cosine`); ``"constant"`` keeps `lr` throughout.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    _check_images(x)
    check_tensor("y", y, shape=(x.shape[0],))
    check_token_ids("y", y, int(getattr(model, "n_classes", 0)) or int(y.max()) + 1)
    check_int("epochs", epochs, low=1)
    check_int("seed", seed, low=0)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("batch", batch, low=1)
    check_choice("schedule", schedule, ("constant", "onecycle"))
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = epochs * -(-len(x) // batch)
    sched = warmup_cosine(opt, steps) if schedule == "onecycle" else None
    model.train()
    for _ in range(epochs):
        for idx in torch.randperm(len(x), generator=gen).split(batch):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
            if sched is not None:
                sched.step()
    return model.eval()


def nearest_centroid_accuracy(data: DigitsData) -> float:
    """Test accuracy of the trivial nearest-class-mean classifier on raw pixels (the "learned" baseline)."""
    return nearest_class_mean_accuracy(data.x_train, data.y_train, data.x_test, data.y_test)
