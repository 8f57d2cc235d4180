"""The small CNN zoo: 4 conv blocks with 2x2 pooling, global average pooling and a linear readout."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor, check_token_ids

__all__ = ["SmallCNN", "ZooConfig", "accuracy", "pgd_attack", "train_cnn"]


class SmallCNN(nn.Module):
    """Conv(3x3)-act-pool x 4 (channels w, w, 2w, 2w), global average pooling, linear readout ``fc``."""

    def __init__(
        self, width: int = 16, activation: str = "relu", n_classes: int = 10, in_ch: int = 1
    ) -> None:
        super().__init__()
        check_int("width", width, low=1)
        if activation not in ("relu", "tanh"):
            raise ValueError(f"activation must be 'relu' or 'tanh', got {activation!r}")
        check_int("n_classes", n_classes, low=2)
        check_int("in_ch", in_ch, low=1)
        chans = [in_ch, width, width, 2 * width, 2 * width]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, padding=1) for a, b in zip(chans, chans[1:]))
        self.act = torch.relu if activation == "relu" else torch.tanh
        self.fc = nn.Linear(chans[-1], n_classes)
        for conv in self.convs:  # He-normal init so the un-normalised 4-layer stack trains in a few epochs
            nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
            nn.init.zeros_(conv.bias)

    def features(self, x: torch.Tensor, upto: int | None = None) -> torch.Tensor:
        """Pooled penultimate features (GAP), or the activation map after conv ``upto`` (0-based)."""
        if not isinstance(x, torch.Tensor) or x.dim() != 4:
            raise ValueError(f"x must be (batch, channels, H, W), got shape {tuple(getattr(x, 'shape', ()))}")
        check_tensor("x", x, floating=True, shape=(None, self.convs[0].in_channels, None, None))
        if upto is not None:
            check_int("upto", upto, 0, len(self.convs) - 1)
        x = x - 0.5  # centre the [0, 1] images
        for i, conv in enumerate(self.convs):
            x = self.act(conv(x))
            if upto is not None and i == upto:
                return x
            x = F.max_pool2d(x, 2)
        return x.mean(dim=(2, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x))


@dataclass(frozen=True)
class ZooConfig:
    """One zoo member: architecture and training recipe."""

    width: int = 16
    epochs: int = 3
    seed: int = 0
    weight_decay: float = 0.0
    activation: str = "relu"
    adversarial: bool = False
    lr: float = 3e-3
    batch: int = 128
    eps: float = 4 / 255
    pgd_steps: int = 3

    def __post_init__(self) -> None:
        check_int("width", self.width, low=1)
        check_int("epochs", self.epochs, low=1)
        check_int("seed", self.seed, low=0)
        check_float("weight_decay", self.weight_decay, low=0.0)
        check_choice("activation", self.activation, ("relu", "tanh"))
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_int("batch", self.batch, low=1)
        check_float("eps", self.eps, low=0.0)
        check_int("pgd_steps", self.pgd_steps, low=1)
        check_bool("adversarial", self.adversarial)


def _check_xy(x: torch.Tensor, y: torch.Tensor, n_classes: int | None = None) -> None:
    check_tensor("x", x, ndim=4, floating=True)
    if x.shape[0] < 1:
        raise ValueError("x must hold at least one image")
    check_tensor("y", y, floating=False, shape=(x.shape[0],))
    if n_classes is not None:
        check_token_ids("y", y, n_classes)


def pgd_attack(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, steps: int) -> torch.Tensor:
    """L-inf PGD from a random start (step 2.5 eps / steps), images clipped to [0, 1]."""
    check_float("eps", eps, low=0.0)
    check_int("steps", steps, low=1)
    _check_xy(x, y)
    check_tensor("x", x, finite=True)  # the [0, 1] clip would turn an infinite pixel into a valid one
    step = 2.5 * eps / steps
    delta = (torch.rand_like(x) * 2 - 1) * eps
    for i in range(steps):
        delta.requires_grad_(True)
        with torch.enable_grad():  # the attack needs input gradients, also inside a caller's torch.no_grad()
            logits = model((x + delta).clamp(0, 1))
            if i == 0:
                check_token_ids("y", y, logits.shape[-1])
            loss = F.cross_entropy(logits, y)
            (g,) = torch.autograd.grad(loss, delta)
        delta = (delta.detach() + step * g.sign()).clamp(-eps, eps)
    return (x + delta).clamp(0, 1).detach()


@torch.enable_grad()
def train_cnn(cfg: ZooConfig, x: torch.Tensor, y: torch.Tensor) -> SmallCNN:
    """Train a :class:`SmallCNN` with AdamW (optionally on PGD examples); deterministic given ``cfg.seed``."""
    if not isinstance(cfg, ZooConfig):
        raise TypeError(f"cfg must be a ZooConfig, got {type(cfg).__name__}")
    _check_xy(x, y, 10)
    torch.manual_seed(cfg.seed)
    model = SmallCNN(cfg.width, cfg.activation)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    gen = torch.Generator().manual_seed(cfg.seed + 7919)
    n = x.shape[0]
    total = cfg.epochs * ((n + cfg.batch - 1) // cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=max(total, 1), pct_start=0.15)
    for _ in range(cfg.epochs):
        perm = torch.randperm(n, generator=gen)
        for i in range(0, n, cfg.batch):
            b = perm[i : i + cfg.batch]
            xb, yb = x[b], y[b]
            if cfg.adversarial:
                model.eval()
                xb = pgd_attack(model, xb, yb, cfg.eps, cfg.pgd_steps)
                model.train()
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    return model


@torch.no_grad()
def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor, batch: int = 512) -> float:
    """Top-1 accuracy."""
    check_int("batch", batch, low=1)
    check_tensor("x", x, ndim=4, floating=True, finite=True)
    check_tensor("y", y, ndim=1, floating=False)
    if len(y) == 0 or len(x) != len(y):
        raise ValueError(f"x and y must be non-empty and of equal length, got {len(x)} and {len(y)}")
    hits = 0
    for i in range(0, len(y), batch):
        logits = model(x[i : i + batch])
        if i == 0:
            check_token_ids("y", y, logits.shape[1])
        hits += int((logits.argmax(1) == y[i : i + batch]).sum())
    return hits / len(y)
