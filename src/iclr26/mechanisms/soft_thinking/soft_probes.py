"""Probes of how a model reads a soft token.

* :func:`top1_dominance` (paper): for a prefix and soft weights over a support, the next-step distribution given
  the soft input s, given the top-1 token's embedding and given the top-2 token's embedding; Jensen-Shannon
  divergences JS(s, top-1) and JS(s, top-2) (natural log, at most ln 2) and argmax agreement.
* :func:`layer_overlap` (paper): logit lens at every layer for s = w e_a + (1 - w) e_b; how many of the top-5
  lens tokens of the a-only and of the b-only inputs are in the top-10 of the soft input.
* :func:`swap_test` (library addition, not in the paper): swap the top-1 and top-2 weights and check whether
  the next step follows the new top-1.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_tensor, check_token_ids
from iclr26.mechanisms.soft_thinking.decode import as_embedding_lm, mix_embeddings

__all__ = ["DominanceProbe", "js_divergence", "layer_overlap", "swap_test", "top1_dominance"]


def js_divergence(p: Tensor, q: Tensor) -> Tensor:
    """Jensen-Shannon divergence (natural log) between distributions along the last axis; in [0, ln 2]."""
    check_tensor("p", p, floating=True)
    check_tensor("q", q, floating=True)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {tuple(p.shape)} and {tuple(q.shape)}")
    for name, t in (("p", p), ("q", q)):
        if not bool(((t >= 0) & torch.isfinite(t)).all()):
            raise ValueError(f"{name} must hold finite non-negative probabilities")
    p, q = p.double(), q.double()
    m = 0.5 * (p + q)

    def kl(a: Tensor, b: Tensor) -> Tensor:
        return torch.where(a > 0, a * (a.clamp_min(1e-300).log() - b.clamp_min(1e-300).log()), 0.0).sum(-1)

    return (0.5 * kl(p, m) + 0.5 * kl(q, m)).clamp(0.0, float(torch.log(torch.tensor(2.0))))


def _check_prefix(prefix: Tensor, d: int) -> None:
    check_tensor("prefix", prefix, floating=True, finite=True)
    if prefix.ndim != 3 or prefix.shape[-1] != d:
        raise ValueError(f"prefix must be an embedding tensor of shape (batch, seq, {d})")


def _check_support(ids: Tensor, weights: Tensor, batch: int, vocab: int) -> None:
    check_token_ids("ids", ids, vocab)
    check_tensor("weights", weights, floating=True, finite=True)
    if ids.shape != weights.shape or ids.ndim != 2 or ids.shape[0] != batch:
        raise ValueError(
            f"ids and weights must both have shape ({batch}, k), got {tuple(ids.shape)} and "
            f"{tuple(weights.shape)}"
        )
    if ids.shape[1] < 2:
        raise ValueError("ids must hold at least 2 support tokens (top-1 and top-2)")
    if bool((weights < 0).any()) or not torch.allclose(
        weights.double().sum(-1), torch.ones(batch, dtype=torch.float64), atol=1e-5
    ):
        raise ValueError("weights must be non-negative and sum to 1 over the support")


@dataclass
class DominanceProbe:
    """Per-step results of :func:`top1_dominance` (all tensors of shape (batch,))."""

    js_top1: Tensor
    js_top2: Tensor
    agree_top1: Tensor  # argmax(next | s) == argmax(next | e_top1)
    agree_top2: Tensor
    p_top1: Tensor

    def __post_init__(self) -> None:
        check_tensor("js_top1", self.js_top1, ndim=1, floating=True)
        shape = tuple(self.js_top1.shape)
        for name in ("js_top2", "p_top1"):
            check_tensor(name, getattr(self, name), floating=True, shape=shape)
        for name in ("agree_top1", "agree_top2"):
            x = check_tensor(name, getattr(self, name), shape=shape)
            if x.dtype != torch.bool:
                raise TypeError(f"{name} must be a bool tensor, got {x.dtype}")


@torch.no_grad()
def _next(logits_fn, prefix: Tensor, emb: Tensor) -> Tensor:
    x = torch.cat([prefix, emb[:, None].to(prefix.dtype)], dim=1)
    return torch.softmax(logits_fn(x)[:, -1].double(), -1)


@torch.no_grad()
def top1_dominance(model: nn.Module, prefix: Tensor, ids: Tensor, weights: Tensor) -> DominanceProbe:
    """Compare next-step distributions after the soft input vs after its top-1 / top-2 token alone.

    prefix : (B, T, d) input embeddings so far; ids, weights : (B, k) support of the soft token (the top-1 and
    top-2 are the two largest weights).
    """
    table, logits_fn = as_embedding_lm(model)
    _check_prefix(prefix, table.shape[1])
    _check_support(ids, weights, prefix.shape[0], table.shape[0])
    order = weights.argsort(-1, descending=True)
    top1 = ids.gather(-1, order[:, :1]).squeeze(-1)
    top2 = ids.gather(-1, order[:, 1:2]).squeeze(-1)
    p_soft = _next(logits_fn, prefix, mix_embeddings(table, ids, weights))
    p1 = _next(logits_fn, prefix, table[top1])
    p2 = _next(logits_fn, prefix, table[top2])
    am = p_soft.argmax(-1)
    return DominanceProbe(
        js_divergence(p_soft, p1),
        js_divergence(p_soft, p2),
        am == p1.argmax(-1),
        am == p2.argmax(-1),
        weights.gather(-1, order[:, :1]).squeeze(-1).double(),
    )


@torch.no_grad()
def swap_test(model: nn.Module, prefix: Tensor, ids: Tensor, weights: Tensor) -> Tensor:
    """Whether, after swapping the top-1 and top-2 weights, the next step's argmax is the one given the new
    top-1 token alone (B,) bool. A single-threaded reader follows the swap."""
    table, logits_fn = as_embedding_lm(model)
    _check_prefix(prefix, table.shape[1])
    _check_support(ids, weights, prefix.shape[0], table.shape[0])
    order = weights.argsort(-1, descending=True)
    i1, i2 = order[:, :1], order[:, 1:2]
    w = weights.clone()
    w1, w2 = weights.gather(-1, i1), weights.gather(-1, i2)
    w.scatter_(-1, i1, w2)
    w.scatter_(-1, i2, w1)
    new_top = ids.gather(-1, i2).squeeze(-1)
    p_swap = _next(logits_fn, prefix, mix_embeddings(table, ids, w))
    p_new = _next(logits_fn, prefix, table[new_top])
    return p_swap.argmax(-1) == p_new.argmax(-1)


@torch.no_grad()
def layer_overlap(
    model: nn.Module,
    prefix: Tensor,
    a: Tensor,
    b: Tensor,
    weight: float = 0.6,
    top_single: int = 5,
    top_soft: int = 10,
) -> Tensor:
    """Logit-lens overlap per layer for s = weight e_a + (1 - weight) e_b appended to `prefix`.

    Returns (n_layers + 1, 2) mean counts over the batch: column 0 = how many of the top-`top_single` lens tokens
    of the a-only input are in the top-`top_soft` of the soft input, column 1 the same for b. Row 0 is the
    embedding layer, row l the output of block l (lens = final norm then unembedding). Needs the lab
    Transformer (its blocks are run one by one).
    """
    if not (hasattr(model, "blocks") and hasattr(model, "forward_embeds") and hasattr(model, "unembed")):
        raise TypeError(
            f"model must be the lab Transformer (blocks, unembed) for the logit lens, got {type(model).__name__}"
        )
    check_float("weight", weight, 0.0, 1.0, low_open=True, high_open=True)
    table = model.W_E
    _check_prefix(prefix, table.shape[1])
    batch = prefix.shape[0]
    v = table.shape[0]
    check_token_ids("a", a, v)
    check_token_ids("b", b, v)
    if a.shape != (batch,) or b.shape != (batch,):
        raise ValueError(f"a and b must be id tensors of shape ({batch},)")
    if not (1 <= top_single <= top_soft <= v):
        raise ValueError(f"need 1 <= top_single <= top_soft <= vocab size {v}, got {top_single}, {top_soft}")

    def lens(last: Tensor) -> list[Tensor]:
        x = torch.cat([prefix, last[:, None]], dim=1)
        seq = x.shape[1]
        pos = model.positions.embed(seq, x.device)
        if pos is not None:
            x = x + pos
        bias = model.positions.score_bias(seq, x.device)
        outs = []

        def read(h: Tensor) -> Tensor:
            h = h[:, -1]
            if model.ln_final is not None:
                h = model.ln_final(h)
            lo = h @ model.unembed
            return lo if model.b_U is None else lo + model.b_U

        outs.append(read(x))
        for block in model.blocks:
            x = block(x, bias)
            outs.append(read(x))
        return outs

    la, lb = lens(table[a]), lens(table[b])
    ls = lens(weight * table[a] + (1 - weight) * table[b])
    rows = []
    for za, zb, zs in zip(la, lb, ls):
        soft_top = zs.topk(top_soft, -1).indices
        ta, tb = za.topk(top_single, -1).indices, zb.topk(top_single, -1).indices
        ca = (ta[:, :, None] == soft_top[:, None, :]).any(-1).sum(-1).double().mean()
        cb = (tb[:, :, None] == soft_top[:, None, :]).any(-1).sum(-1).double().mean()
        rows.append(torch.stack([ca, cb]))
    return torch.stack(rows)
