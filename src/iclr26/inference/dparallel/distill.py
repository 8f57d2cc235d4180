"""Self-distillation data for dParallel: the teacher's own decoded answers to training prompts.

The official data are the original dLLM's outputs (256 steps, semi-AR blocks of 32, low-confidence
remasking, i.e. one token per call) to GSM8K/PRM12K-style and code prompts, kept when correct where a label
exists. :func:`self_distill_dataset` does the same for any masked diffusion LM with :func:`decode`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_int
from iclr26.harness.progress import track
from iclr26.inference.dparallel.decoding import decode, resolve_mask_id
from iclr26.lab.masked_diffusion import check_mask_id

__all__ = ["DistillDataset", "self_distill_dataset"]


@dataclass
class DistillDataset:
    """Teacher trajectories' final outputs: ``ids`` (N, P + gen_len), the prompt length, and what was dropped."""

    ids: Tensor
    prompt_len: int
    n_dropped: int = 0


@torch.no_grad()
def self_distill_dataset(
    teacher: nn.Module,
    prompts: Tensor,
    gen_len: int,
    block_size: int,
    *,
    steps: int | None = None,
    batch_size: int = 256,
    keep: Callable[[Tensor, Tensor], Tensor] | None = None,
    mask_id: int | None = None,
) -> DistillDataset:
    """Decode every prompt (N, P) with the teacher (``steps`` fixed calls, default ``gen_len``) and keep the result.

    ``keep(prompts, generated) -> (N,) bool`` optionally filters (e.g. only correct answers); ``batch_size``
    bounds memory.

    Example
    -------
    >>> from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer
    >>> t = MaskedDiffusionTransformer(n_tokens=5, seq_len=8, d_model=16, n_layers=1, n_heads=2, init_seed=0)
    >>> data = self_distill_dataset(t, torch.zeros(3, 4, dtype=torch.long), gen_len=4, block_size=2)
    >>> data.ids.shape, data.prompt_len
    (torch.Size([3, 8]), 4)
    """
    mask_id = resolve_mask_id(teacher, mask_id)
    if not torch.is_tensor(prompts) or prompts.ndim != 2 or prompts.shape[0] == 0:
        raise ValueError("prompts must be a non-empty (N, P) integer tensor")
    check_mask_id(prompts, mask_id, "prompts")
    check_int("batch_size", batch_size, low=1)
    was = teacher.training
    teacher.eval()
    outs = []
    starts = range(0, prompts.shape[0], batch_size)
    for i in track(starts, description="teacher trajectories", total=len(starts)):
        outs.append(
            decode(teacher, prompts[i : i + batch_size], gen_len, block_size, steps, mask_id=mask_id).ids
        )
    teacher.train(was)
    ids = torch.cat(outs)
    p = prompts.shape[1]
    n_dropped = 0
    if keep is not None:
        ok = keep(prompts, ids[:, p:]).bool()
        n_dropped = int((~ok).sum())
        ids = ids[ok]
    return DistillDataset(ids, p, n_dropped)
