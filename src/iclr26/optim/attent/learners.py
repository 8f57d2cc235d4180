"""Tiny attention learners and their data: a ViT-like digits classifier and a sequence-property classifier.

* :func:`digits_patches`: sklearn's bundled 8x8 digits, each image cut into 16 patches of 2x2 pixels
  (tokens of dimension 4), split 1437 / 360 (stratified, seeded).
* :func:`sequence_property_data`: token sequences of length 24 over 16 symbols; label = (count of token 3 >
  count of token 5) XOR (first token is even).
* :class:`AttentionClassifier`: a class token plus patch (linear) or token (embedding) inputs, fed through the
  shared bidirectional :class:`iclr26.lab.transformer.Transformer` (``causal=False``) with an untied read-out
  of the class token.
* :func:`train_learner`: AdamW over the subset a :class:`~iclr26.optim.attent.selection.SubsetSampler`
  hands out each epoch, with a per-epoch cosine learning rate, cost counted in forward-pass units.

Example
-------
>>> import torch
>>> model = AttentionClassifier(n_classes=3, seq_len=4, d_model=16, n_layers=1, n_heads=2, patch_dim=5, init_seed=0)
>>> model(torch.zeros(2, 4, 5)).shape
torch.Size([2, 3])
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.transformer import Transformer
from iclr26.optim.attent.selection import CostMeter, SubsetSampler

__all__ = [
    "AttentionClassifier",
    "TrainHistory",
    "digits_patches",
    "sequence_property_data",
    "sequence_property_labels",
    "train_learner",
]


def digits_patches(seed: int, patch: int = 2, n_test: int = 360) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Digits as (N, (8/patch)^2, patch^2) patch tokens in [0, 1]; returns x_train, y_train, x_test, y_test."""
    check_int("patch (it must divide 8)", patch, low=1, high=8)
    if 8 % patch:
        raise ValueError(f"patch must divide 8 (1, 2, 4 or 8), got {patch!r}")
    check_int("seed", seed, low=0)
    check_int("n_test", n_test, 10, 1787)
    data = load_digits()
    img = data.images.astype(np.float32) / 16.0  # (1797, 8, 8)
    g = 8 // patch
    tokens = img.reshape(-1, g, patch, g, patch).transpose(0, 1, 3, 2, 4).reshape(-1, g * g, patch * patch)
    x_tr, x_te, y_tr, y_te = train_test_split(
        tokens, data.target, test_size=n_test, stratify=data.target, random_state=seed
    )
    return (
        torch.from_numpy(x_tr),
        torch.from_numpy(y_tr).long(),
        torch.from_numpy(x_te),
        torch.from_numpy(y_te).long(),
    )


def sequence_property_labels(tokens: Tensor) -> Tensor:
    """label = (count of token 3 > count of token 5) XOR (first token is even), as int64."""
    check_tensor("tokens", tokens, floating=False)
    if tokens.ndim != 2 or tokens.shape[1] < 1:
        raise ValueError(f"tokens must be (N, T), got {tuple(tokens.shape)}")
    more3 = (tokens == 3).sum(1) > (tokens == 5).sum(1)
    even = tokens[:, 0] % 2 == 0
    return (more3 ^ even).long()


def sequence_property_data(
    n_train: int, n_test: int, seed: int, seq_len: int = 24, vocab: int = 16
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Uniform random token sequences with :func:`sequence_property_labels`; x_train, y_train, x_test, y_test."""
    for name, v in (("n_train", n_train), ("n_test", n_test), ("seq_len", seq_len)):
        check_int(name, v, low=1)
    check_int("seed", seed, low=0)
    check_int("vocab (tokens 3 and 5 are used)", vocab, low=6)
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, vocab, (n_train + n_test, seq_len), generator=g)
    y = sequence_property_labels(x)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


class AttentionClassifier(nn.Module):
    """Class token + inputs -> bidirectional lab Transformer -> linear read-out of the class token.

    Give ``patch_dim`` for continuous patch tokens (ViT-like) or ``vocab`` for token ids (sequence task).
    ``seq_len`` is the number of input tokens (the class token is added on top).
    """

    def __init__(
        self,
        n_classes: int,
        seq_len: int,
        d_model: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        d_mlp: int | None = None,
        patch_dim: int | None = None,
        vocab: int | None = None,
        init_seed: int | None = None,
    ) -> None:
        super().__init__()
        if (patch_dim is None) == (vocab is None):
            raise ValueError("give exactly one of patch_dim (patch tokens) and vocab (token ids)")
        check_int("n_classes", n_classes, low=2)
        if patch_dim is not None:
            check_int("patch_dim", patch_dim, low=1)
        if vocab is not None:
            check_int("vocab", vocab, low=1)
        self.trunk = Transformer(
            vocab_size=n_classes,
            seq_len=seq_len + 1,
            d_model=d_model,
            n_layers=n_layers,
            n_heads=n_heads,
            d_mlp=d_mlp,
            causal=False,
            tie=False,
            unembed_bias=True,
            init_seed=init_seed,
        )
        # the trunk's token table is not used: inputs are embedded here and passed to forward_embeds
        self.trunk.W_E.requires_grad_(False)
        self.patch_dim, self.vocab, self.seq_len = patch_dim, vocab, seq_len
        self.embed = nn.Linear(patch_dim, d_model) if patch_dim is not None else nn.Embedding(vocab, d_model)
        self.cls = nn.Parameter(torch.empty(1, 1, d_model))
        g = torch.Generator().manual_seed(init_seed + 1) if init_seed is not None else None
        with torch.no_grad():
            fan_in = patch_dim if patch_dim is not None else d_model
            self.embed.weight.normal_(0.0, fan_in**-0.5, generator=g)
            if isinstance(self.embed, nn.Linear):
                self.embed.bias.zero_()
            self.cls.normal_(0.0, d_model**-0.5, generator=g)

    def forward(self, x: Tensor) -> Tensor:
        """Class logits (batch, n_classes) for patches (batch, T, patch_dim) or token ids (batch, T)."""
        if self.patch_dim is not None:
            check_tensor("x", x)
            if x.ndim != 3 or x.shape[-1] != self.patch_dim:
                raise ValueError(
                    f"x: patch inputs must be (batch, T, {self.patch_dim}), got {tuple(x.shape)}"
                )
            check_tensor("x", x, floating=True)
        else:
            check_tensor("x", x)
            if x.ndim != 2 or x.dtype not in (torch.int64, torch.int32):
                raise ValueError(
                    f"x: token inputs must be integer ids of shape (batch, T), got {x.dtype} of shape "
                    f"{tuple(x.shape)}"
                )
            check_token_ids("x", x, self.vocab)
        if x.shape[1] > self.seq_len:
            raise ValueError(f"x holds {x.shape[1]} tokens, more than seq_len={self.seq_len}")
        h = self.embed(x)
        h = torch.cat([self.cls.expand(h.shape[0], -1, -1), h], dim=1)
        return self.trunk.forward_embeds(h)[:, 0]


@dataclass
class TrainHistory:
    """Per-epoch record of one training run (cost in forward-pass units, test accuracy, selected fraction)."""

    cost: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    ratio: list[float] = field(default_factory=list)
    n_trained: list[int] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)


def _accuracy(model: nn.Module, x: Tensor, y: Tensor, batch: int = 1024) -> float:
    was = model.training
    model.eval()
    with torch.no_grad():
        correct = sum(
            int((model(x[i : i + batch]).argmax(-1) == y[i : i + batch]).sum())
            for i in range(0, len(x), batch)
        )
    model.train(was)
    return correct / len(x)


def train_learner(
    model: nn.Module,
    train: tuple[Tensor, Tensor],
    test: tuple[Tensor, Tensor],
    sampler: SubsetSampler,
    epochs: int,
    batch_size: int,
    lr: float = 1e-3,
    weight_decay: float = 0.01,
    clip: float = 1.0,
) -> TrainHistory:
    """Train `model` with cross-entropy for `epochs` epochs on the subsets `sampler` selects (refreshed each
    epoch); the learning rate follows a cosine over epochs (same in epoch e for every sampler).

    Returns the per-epoch history; cost counts 3 units per trained example and 1 per example scored by the
    sampler.
    """
    check_int("epochs", epochs, low=1)
    check_int("batch_size", batch_size, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("weight_decay", weight_decay, low=0.0)
    check_float("clip", clip, low=0.0)
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    for name, pair in (("train", train), ("test", test)):
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(t, Tensor) for t in pair)
        ):
            raise ValueError(f"{name} must be an (inputs, labels) pair of tensors")
        if pair[0].shape[0] != pair[1].shape[0] or pair[0].shape[0] == 0:
            raise ValueError(f"{name} inputs and labels must be non-empty and of equal length")
        check_tensor(f"{name} labels", pair[1], floating=False)
    if not isinstance(sampler, SubsetSampler):
        raise TypeError(f"sampler must be a SubsetSampler, got {type(sampler).__name__}")
    if sampler.n != train[0].shape[0]:
        raise ValueError(f"sampler covers a pool of {sampler.n} examples but train holds {train[0].shape[0]}")
    x, y = train
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    meter, hist, wall = CostMeter(), TrainHistory(), 0.0
    model.train()
    for epoch in range(epochs):
        t0 = time.perf_counter()
        scored_before = getattr(sampler, "n_scored", 0)
        sampler.refresh(epoch)
        meter.score(getattr(sampler, "n_scored", 0) - scored_before)
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1.0 + math.cos(math.pi * epoch / epochs))
        order = torch.tensor(list(iter(sampler)), dtype=torch.long)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(params, clip)
            opt.step()
            meter.train(len(idx))
        wall += time.perf_counter() - t0
        hist.cost.append(meter.units)
        hist.accuracy.append(_accuracy(model, *test))
        hist.ratio.append(len(order) / len(x))
        hist.n_trained.append(len(order))
        hist.wall.append(wall)
    return hist
