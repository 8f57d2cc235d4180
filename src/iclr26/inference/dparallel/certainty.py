"""Certainty-forcing distillation (dParallel, arXiv 2509.26488): semi-AR block masking and the loss.

For a (prompt, response) sequence of length L with prompt length P and response length R = L - P, pick a block
index ``b ~ U{0, ..., floor(R / B)}``. Response tokens before the segment ``[P + bB, P + (b+1)B)`` stay clean,
tokens after it are all ``[MASK]`` (input noise, never supervised), and each token inside the segment is
masked i.i.d. with probability ``(1 - eps) * rate + eps`` (``rate = 0.5``, ``eps = 1e-3`` in the official code).
When ``b = floor(R / B)`` the segment runs to the end of the sequence (it is empty when B divides R). A second,
complementary copy masks exactly the segment tokens the first one leaves visible, so every segment token is
supervised once.

Loss of one copy, with ``M`` its masked segment positions, ``y`` the teacher tokens and
``C = {i in M : argmax_v z_i = y_i}`` the correctly predicted ones:

    L = mean_{i in M} CE(z_i, y_i) + beta * mean_{i in C} H(softmax(z_i / T)),

``T = 0.5``, ``beta = 2``; the two copies' losses are summed. The entropy term pushes the student to be
certain early, in parallel, but only where its guess is already right.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.harness.progress import task
from iclr26.inference.dparallel.decoding import resolve_mask_id

__all__ = [
    "CertaintyForcingTrainer",
    "DistillResult",
    "certainty_forcing_loss",
    "semi_ar_masks",
    "tempered_entropy",
]


def _check_ids(input_ids: Tensor) -> None:
    if not torch.is_tensor(input_ids) or input_ids.dtype not in (torch.int64, torch.int32):
        raise ValueError("input_ids must be an integer tensor of token ids")
    if input_ids.ndim != 2:
        raise ValueError(f"input_ids must have shape (batch, length), got {tuple(input_ids.shape)}")
    if input_ids.numel() and int(input_ids.min()) < 0:
        raise ValueError(f"input_ids must hold token ids >= 0, got {int(input_ids.min())}")


def _rand(shape: tuple[int, ...], generator: torch.Generator | None, device: torch.device) -> Tensor:
    """Uniforms drawn on the generator's device (the CPU for a CPU generator) and moved to ``device``, so a run
    on cuda draws the very numbers a CPU run draws."""
    where = generator.device if generator is not None else device
    return torch.rand(shape, generator=generator, device=where).to(device)


def semi_ar_masks(
    input_ids: Tensor,
    prompt_len: int | Tensor,
    block_size: int,
    rate: float = 0.5,
    generator: torch.Generator | None = None,
    *,
    mask_id: int | None = None,
    eps: float = 1e-3,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Semi-autoregressive block masking with a complementary copy (module docstring).

    Parameters
    ----------
    input_ids : (B, L) clean prompt + response ids.
    prompt_len : an int, or a (B,) integer tensor of per-row prompt lengths.
    block_size : B, the block length of the semi-AR decoder.
    rate : masking rate t inside the segment (the mask probability is ``(1 - eps) t + eps``).
    generator : torch generator for the block index and the in-segment masks (a CPU generator is fine for
        cuda ``input_ids``: the uniforms are drawn on the generator's device and moved).
    mask_id : the [MASK] id; required.
    eps : the official floor on the mask probability.

    Returns
    -------
    noisy, noisy_rev : (B, L) inputs of the two copies.
    mask, mask_rev : (B, L) bool supervised positions (masked segment positions) of each copy; they are
        disjoint and their union is the segment.
    """
    _check_ids(input_ids)
    check_int("mask_id", mask_id, low=0)
    check_int("block_size", block_size, low=1)
    check_float("rate", rate, 0.0, 1.0)
    if not 0.0 <= float(eps) < 1.0:
        raise ValueError(f"eps must lie in [0, 1), got {eps!r}")
    if bool((input_ids == mask_id).any()):
        raise ValueError(f"input_ids contains the mask id {mask_id}; clean sequences must not")
    b, length = input_ids.shape
    dev = input_ids.device
    plen = torch.as_tensor(prompt_len, dtype=torch.long).to(dev)
    plen = plen.expand(b) if plen.ndim == 0 else plen
    if plen.shape != (b,) or bool(((plen < 0) | (plen > length)).any()):
        raise ValueError(f"prompt_len must be an int or a (batch,) tensor with values in [0, {length}]")
    n_blocks = (length - plen) // block_size  # floor(R / B) per row
    u = _rand((b,), generator, dev)
    blk = torch.minimum((u * (n_blocks + 1).double()).long(), n_blocks)  # uniform on {0..n_blocks}
    start = plen + blk * block_size
    end = torch.where(blk == n_blocks, torch.full_like(start, length), start + block_size)
    pos = torch.arange(length, device=dev)[None]
    segment = (pos >= start[:, None]) & (pos < end[:, None])
    after = pos >= end[:, None]
    p_mask = (1.0 - eps) * float(rate) + eps
    coin = _rand((b, length), generator, dev) < p_mask
    mask = segment & coin
    mask_rev = segment & ~coin
    fill = torch.full_like(input_ids, mask_id)
    noisy = torch.where(mask | after, fill, input_ids)
    noisy_rev = torch.where(mask_rev | after, fill, input_ids)
    return noisy, noisy_rev, mask, mask_rev


def tempered_entropy(logits: Tensor, temperature: float = 0.5) -> Tensor:
    """Entropy of ``softmax(logits / T)`` over the last axis (exact, no log offset)."""
    check_tensor("logits", logits, floating=True)
    logp = F.log_softmax(logits / temperature, dim=-1)
    return -(logp.exp() * logp).sum(-1)


def certainty_forcing_loss(
    logits: Tensor,
    labels: Tensor,
    mask: Tensor,
    temperature: float = 0.5,
    beta: float = 2.0,
) -> Tensor:
    """Masked cross-entropy plus ``beta`` times the tempered entropy on correctly predicted masked positions.

    ``logits`` (B, L, V), ``labels`` (B, L) teacher tokens, ``mask`` (B, L) bool supervised positions. Each
    mean is over its own set; an empty set contributes 0 (with a graph, so ``backward`` still works).
    """
    if not torch.is_tensor(logits) or logits.ndim != 3:
        raise ValueError(
            f"logits must have shape (batch, length, vocab), got {getattr(logits, 'shape', None)}"
        )
    check_tensor("logits", logits, floating=True)
    check_tensor("labels", labels, floating=False)
    check_tensor("mask", mask)
    if labels.shape != logits.shape[:2] or mask.shape != logits.shape[:2]:
        raise ValueError(
            f"labels and mask must have shape {tuple(logits.shape[:2])}, got {tuple(labels.shape)} and "
            f"{tuple(mask.shape)}"
        )
    if mask.dtype != torch.bool:
        raise ValueError("mask must be a bool tensor")
    if not float(temperature) > 0.0:
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    if not float(beta) >= 0.0:
        raise ValueError(f"beta must be >= 0, got {beta!r}")
    zero = 0.0 * logits.sum()
    n = int(mask.sum())
    if n == 0:
        return zero
    z = logits[mask]
    y = check_token_ids("labels", labels[mask], logits.shape[-1])  # the supervised positions' teacher tokens
    ce = F.cross_entropy(z, y, reduction="sum") / n
    if beta == 0:
        return ce
    correct = z.detach().argmax(-1) == y
    n_c = int(correct.sum())
    if n_c == 0:
        return ce + zero
    ent = tempered_entropy(z[correct], temperature).sum() / n_c
    return ce + beta * ent


@dataclass
class DistillResult:
    """Per-step training losses of :class:`CertaintyForcingTrainer`."""

    losses: list[float] = field(default_factory=list)


class CertaintyForcingTrainer:
    """Plain loop: semi-AR masks, two forward passes, certainty-forcing loss, AdamW at a constant rate.

    Parameters
    ----------
    model : a masked diffusion LM (``model(ids) -> logits``, ``mask_id`` attribute), trained in place.
    block_size, rate, temperature, beta : as in :func:`semi_ar_masks` / :func:`certainty_forcing_loss`
        (``beta = 0`` gives CE-only self-distillation, the paper's ablation).
    lr, weight_decay, grad_clip : AdamW settings (the official run uses a constant lr, as here).
    exclude_mask_logit : drop the ``[MASK]`` column from the logits before the loss (right for SUBS-style
        denoisers that never predict ``[MASK]``; harmless otherwise).

    Example
    -------
    >>> import torch
    >>> from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer
    >>> m = MaskedDiffusionTransformer(n_tokens=5, seq_len=12, d_model=16, n_layers=1, n_heads=2, init_seed=0)
    >>> data = torch.randint(0, 5, (16, 12), generator=torch.Generator().manual_seed(0))
    >>> res = CertaintyForcingTrainer(m, block_size=4, lr=1e-3).fit(data, prompt_len=4, steps=3, batch_size=8)
    >>> len(res.losses)
    3
    """

    def __init__(
        self,
        model: nn.Module,
        *,
        block_size: int,
        rate: float = 0.5,
        temperature: float = 0.5,
        beta: float = 2.0,
        lr: float = 2e-5,
        weight_decay: float = 0.0,
        grad_clip: float | None = 1.0,
        exclude_mask_logit: bool = True,
        mask_id: int | None = None,
    ) -> None:
        if not float(temperature) > 0.0:
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        if not float(beta) >= 0.0:
            raise ValueError(f"beta must be >= 0, got {beta!r}")
        if not float(lr) > 0.0:
            raise ValueError(f"lr must be > 0, got {lr!r}")
        self.model = model
        self.mask_id = resolve_mask_id(model, mask_id)
        self.block_size, self.rate = block_size, rate
        self.temperature, self.beta = temperature, beta
        self.exclude_mask_logit = exclude_mask_logit
        self.grad_clip = grad_clip
        params = [p for p in model.parameters() if p.requires_grad]
        self.params = params
        self.optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)

    def loss(self, input_ids: Tensor, prompt_len: int | Tensor, generator: torch.Generator) -> Tensor:
        """The summed certainty-forcing loss of both complementary copies for one batch."""
        noisy, noisy_rev, mask, mask_rev = semi_ar_masks(
            input_ids, prompt_len, self.block_size, self.rate, generator, mask_id=self.mask_id
        )
        logits = self.model(torch.cat([noisy, noisy_rev]))
        if self.exclude_mask_logit:
            logits = logits.clone()
            logits[..., self.mask_id] = -1e4  # finite: 0 * log p stays 0 in the entropy and its gradient
        labels = torch.cat([input_ids, input_ids])
        b = input_ids.shape[0]
        return certainty_forcing_loss(
            logits[:b], labels[:b], mask, self.temperature, self.beta
        ) + certainty_forcing_loss(logits[b:], labels[b:], mask_rev, self.temperature, self.beta)

    def step(self, input_ids: Tensor, prompt_len: int | Tensor, generator: torch.Generator) -> float:
        """One optimiser step on a batch; returns the loss."""
        self.model.train()
        loss = self.loss(input_ids, prompt_len, generator)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(self.params, self.grad_clip)
        self.optimizer.step()
        return float(loss.detach())

    def fit(
        self,
        data: Tensor,
        prompt_len: int | Tensor,
        *,
        steps: int,
        batch_size: int,
        seed: int = 0,
        description: str = "certainty forcing",
    ) -> DistillResult:
        """``steps`` steps on shuffled mini-batches of ``data`` (N, L) (epochs reshuffled from ``seed``).

        ``data`` must be on the model's device; the shuffles and masks are drawn on a CPU generator either way.
        """
        _check_ids(data)
        check_int("steps", steps, low=1)
        check_int("batch_size", batch_size, low=1)
        gen = torch.Generator().manual_seed(int(seed))
        plen = torch.as_tensor(prompt_len, dtype=torch.long)
        result = DistillResult()
        batches = _batches(data.shape[0], batch_size, gen)
        with task(description, total=steps) as bar:
            for _ in range(steps):
                idx = next(batches)  # drawn on the CPU generator, then moved to the data's device
                pl = plen if plen.ndim == 0 else plen[idx]
                result.losses.append(self.step(data[idx.to(data.device)], pl, gen))
                bar.advance()
        self.model.eval()
        return result


def _batches(n: int, batch_size: int, gen: torch.Generator) -> Iterator[Tensor]:
    """Endless shuffled index batches (a fresh permutation per epoch)."""
    while True:
        perm = torch.randperm(n, generator=gen)
        for i in range(0, n - batch_size + 1 if n >= batch_size else 1, batch_size):
            yield perm[i : i + batch_size]
