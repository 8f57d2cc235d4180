"""Baselines of the Hyper-SET reproduction, all on the same input stem and output head as Hyper-SET.

- :class:`VanillaTransformer`: pre-norm ``torch.nn.TransformerEncoderLayer`` (feedforward width 4d, dropout 0),
  either ``n_layers`` distinct layers or one layer iterated ``n_layers`` times (``shared=True``, the official
  code's "transformer_shared").
- :class:`CRATE`: white-box transformer layer (shared-QKV subspace attention + one ISTA sparse-coding step).
- :class:`EnergyTransformer`: Hoover et al.'s energy transformer, tokens updated by ``-grad`` of an attention +
  Hopfield energy of layer-normalised tokens (autograd with a graph so it trains end to end).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.architectures.hyper_set.model import TokenHead, TokenStem, check_heads
from iclr26.checks import check_bool, check_int

__all__ = ["CRATE", "EnergyTransformer", "VanillaTransformer"]


class _Recurrent(nn.Module):
    """Stem -> layers (each applied ``n_recur`` times) -> head; ``n_iter`` overrides the repeats of a 1-layer stack.

    Built from ``make_layer``: ``depth`` distinct layers (``shared=False``), or one layer applied ``depth`` times;
    the layers are made before the stem and the head (the order the seeded parameters are drawn in).
    """

    def __init__(
        self,
        make_layer: Callable[[], nn.Module],
        depth: int,
        shared: bool,
        d_model: int,
        n_classes: int,
        n_tokens: int,
        task: str,
        in_features: int | None,
        vocab_size: int | None,
    ) -> None:
        super().__init__()
        self.layers = nn.ModuleList([make_layer()] if shared else [make_layer() for _ in range(depth)])
        self.n_recur = depth if shared else 1
        self.stem = TokenStem(d_model, n_tokens, task, in_features, vocab_size)
        self.head = TokenHead(d_model, n_classes, task)

    def forward(self, x: Tensor, n_iter: int | None = None) -> Tensor:
        """Logits; ``n_iter`` (weight-shared models only) changes the number of repeats."""
        if n_iter is not None and len(self.layers) > 1:
            raise ValueError(
                f"n_iter only applies to a weight-shared (1-layer) stack; this model has {len(self.layers)} "
                "distinct layers"
            )
        n = self.n_recur if n_iter is None else check_int("n_iter", n_iter, low=1, type_error=True)
        h = self.stem(x)
        for layer in self.layers:
            for _ in range(n):
                h = layer(h)
        return self.head(h)


class VanillaTransformer(_Recurrent):
    """Pre-norm Transformer with ``n_layers`` distinct layers, or one layer iterated ``n_layers`` times."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        n_layers: int,
        n_classes: int,
        n_tokens: int,
        *,
        task: str = "image",
        in_features: int | None = None,
        vocab_size: int | None = None,
        shared: bool = False,
    ) -> None:
        check_int("n_layers", n_layers, low=1, type_error=True)
        check_heads(d_model, n_heads)
        check_bool("shared", shared)

        def layer() -> nn.Module:
            return nn.TransformerEncoderLayer(
                d_model,
                n_heads,
                dim_feedforward=4 * d_model,
                dropout=0.0,
                activation="gelu" if task == "image" else "relu",
                batch_first=True,
                norm_first=True,
            )

        super().__init__(layer, n_layers, shared, d_model, n_classes, n_tokens, task, in_features, vocab_size)


class _CRATELayer(nn.Module):
    """x + MSSA(LN(x)), then ReLU(z + eta (D^T z - D^T D z) - eta lambda) with z = LN(.)."""

    def __init__(self, d_model: int, n_heads: int, step: float = 0.1, lambd: float = 0.1) -> None:
        super().__init__()
        self.h, self.p = n_heads, d_model // n_heads
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.U = nn.Linear(d_model, d_model, bias=False)
        self.out = nn.Linear(d_model, d_model)
        self.D = nn.Parameter(torch.empty(d_model, d_model))
        nn.init.kaiming_uniform_(self.D, a=math.sqrt(5))
        self.step, self.lambd = step, lambd

    def forward(self, x: Tensor) -> Tensor:
        b, n, d = x.shape
        w = self.U(self.ln1(x)).view(b, n, self.h, self.p).transpose(1, 2)
        att = F.softmax(w @ w.transpose(-1, -2) / math.sqrt(self.p), -1) @ w
        x = x + self.out(att.transpose(1, 2).reshape(b, n, d))
        z = self.ln2(x)
        grad = F.linear(z, self.D.t()) - F.linear(F.linear(z, self.D), self.D.t())
        return F.relu(z + self.step * grad - self.step * self.lambd)


class CRATE(_Recurrent):
    """CRATE (Yu et al., 2023) with ``n_layers`` distinct layers (or one shared layer iterated)."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        n_layers: int,
        n_classes: int,
        n_tokens: int,
        *,
        task: str = "image",
        in_features: int | None = None,
        vocab_size: int | None = None,
        shared: bool = False,
    ) -> None:
        check_int("n_layers", n_layers, low=1, type_error=True)
        check_heads(d_model, n_heads)
        check_bool("shared", shared)
        super().__init__(
            lambda: _CRATELayer(d_model, n_heads),
            n_layers,
            shared,
            d_model,
            n_classes,
            n_tokens,
            task,
            in_features,
            vocab_size,
        )


class EnergyBlock(nn.Module):
    """Energy Transformer block: ``x <- x - step * dE/dg`` with g = EnergyLayerNorm(x).

    ``E(g) = -1/beta sum_h sum_i logsumexp_j(beta <Wq_h g_i, Wk_h g_j>) - 1/2 sum_i ||ReLU(Xi g_i)||^2``.
    """

    def __init__(self, d_model: int, n_heads: int, hopfield_mult: float = 4.0, step: float = 1.0) -> None:
        super().__init__()
        p = d_model // n_heads
        self.beta = 1.0 / math.sqrt(p)
        self.wq = nn.Parameter(torch.randn(n_heads, p, d_model) * 0.002)
        self.wk = nn.Parameter(torch.randn(n_heads, p, d_model) * 0.002)
        self.xi = nn.Parameter(torch.randn(int(hopfield_mult * d_model), d_model) * 0.02)
        self.gamma = nn.Parameter(torch.ones(()))
        self.delta = nn.Parameter(torch.zeros(d_model))
        self.step = step

    def norm(self, x: Tensor) -> Tensor:
        """EnergyLayerNorm: scalar gain, vector bias."""
        xc = x - x.mean(-1, keepdim=True)
        return self.gamma * xc / torch.sqrt(xc.pow(2).mean(-1, keepdim=True) + 1e-5) + self.delta

    def energy(self, g: Tensor) -> Tensor:
        """Energy per sample, shape (B,)."""
        q = torch.einsum("bnd,hpd->bhnp", g, self.wq)
        k = torch.einsum("bnd,hpd->bhnp", g, self.wk)
        e_att = -torch.logsumexp(self.beta * q @ k.transpose(-1, -2), -1).flatten(1).sum(1) / self.beta
        e_hop = -0.5 * F.relu(F.linear(g, self.xi)).pow(2).flatten(1).sum(1)
        return e_att + e_hop

    def forward(self, x: Tensor) -> Tensor:
        with torch.enable_grad():
            g = self.norm(x)
            if not g.requires_grad:
                g = g.detach().requires_grad_(True)
            (grad,) = torch.autograd.grad(self.energy(g).sum(), g, create_graph=self.training)
        return x - self.step * grad


class EnergyTransformer(_Recurrent):
    """Energy Transformer (Hoover et al., 2023): one energy block iterated ``n_iter`` times."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        n_iter: int,
        n_classes: int,
        n_tokens: int,
        *,
        task: str = "image",
        in_features: int | None = None,
        vocab_size: int | None = None,
    ) -> None:
        check_int("n_iter", n_iter, low=1, type_error=True)
        check_heads(d_model, n_heads)
        super().__init__(
            lambda: EnergyBlock(d_model, n_heads),
            n_iter,
            True,
            d_model,
            n_classes,
            n_tokens,
            task,
            in_features,
            vocab_size,
        )
