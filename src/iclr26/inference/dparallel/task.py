"""Synthetic, checkable tasks with left-to-right dependence for the dParallel reproduction.

``op="seeded_max"`` (the reproduction's task): the prompt holds ``n_segments * (segment_len - 1)`` random
letters from an alphabet of ``n_values``, then ``SEP``. The answer has ``n_segments`` segments of
``segment_len`` tokens; segment j starts with a free *seed* letter ``s_j`` followed by the running maximum
``max(s_j, x_1, ..., x_k)`` over that segment's letters. Any seed gives a correct answer (the checker accepts
every consistent answer); in the training data the seed is the smallest letter with probability
``seed_prob`` and uniform otherwise. So each segment's tokens are uncertain until its seed is chosen, and then
determined: certainty arrives left to right, as in a dLLM's answers, while the greedy (modal) answer is a
simple function of the prompt that a student can learn to emit in parallel.

``op="running_max"``: one running maximum of ``n_items`` letters, padded with ``EOS`` to ``gen_len``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_int, check_probability

__all__ = ["OPS", "SymbolTask"]

OPS = ("seeded_max", "running_max")


@dataclass(frozen=True)
class SymbolTask:
    """Token layout, sampler and checker; the denoiser's ``mask_id`` is ``n_tokens``."""

    op: str = "seeded_max"
    n_values: int = 26
    n_segments: int = 4
    segment_len: int = 8
    seed_prob: float = 0.5
    n_items: int = 24  # running_max only
    pad_to: int = 32  # running_max only: gen_len

    def __post_init__(self) -> None:
        check_choice("op", self.op, OPS)
        check_int("n_values", self.n_values, low=2)
        check_int("n_segments", self.n_segments, low=1)
        check_int("segment_len", self.segment_len, low=2)
        check_int("n_items", self.n_items, low=1)
        check_int("pad_to", self.pad_to, low=1)
        check_probability("seed_prob", self.seed_prob)
        if self.op == "running_max" and self.pad_to < self.n_items:
            raise ValueError(f"pad_to ({self.pad_to}) must be >= n_items ({self.n_items})")

    @property
    def sep(self) -> int:
        return self.n_values

    @property
    def eos(self) -> int:
        return self.n_values + 1

    @property
    def n_tokens(self) -> int:
        """Clean token ids (letters, SEP, EOS); the denoiser's ``[MASK]`` is this number."""
        return self.n_values + 2

    @property
    def n_prompt_items(self) -> int:
        return self.n_segments * (self.segment_len - 1) if self.op == "seeded_max" else self.n_items

    @property
    def prompt_len(self) -> int:
        return self.n_prompt_items + 1

    @property
    def gen_len(self) -> int:
        return self.n_segments * self.segment_len if self.op == "seeded_max" else self.pad_to

    @property
    def seq_len(self) -> int:
        return self.prompt_len + self.gen_len

    def answer(self, items: Tensor, seeds: Tensor | None = None) -> Tensor:
        """The answer (N, gen_len) for items (N, n_prompt_items); seeded_max takes seeds (N, n_segments)."""
        if self.op == "running_max":
            ans = torch.cummax(items, dim=1).values
            pad = torch.full(
                (items.shape[0], self.gen_len - self.n_items),
                self.eos,
                dtype=items.dtype,
                device=items.device,
            )
            return torch.cat([ans, pad], dim=1)
        if seeds is None:
            seeds = torch.zeros(items.shape[0], self.n_segments, dtype=items.dtype, device=items.device)
        seg = items.view(items.shape[0], self.n_segments, self.segment_len - 1)
        full = torch.cat([seeds[..., None].to(items.dtype), seg], dim=2)
        return torch.cummax(full, dim=2).values.flatten(1)

    def sample(self, n: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        """``n`` problems: prompts (n, prompt_len) and sampled reference answers (n, gen_len)."""
        items = torch.randint(0, self.n_values, (n, self.n_prompt_items), generator=generator)
        prompts = torch.cat([items, torch.full((n, 1), self.sep, dtype=items.dtype)], dim=1)
        seeds = None
        if self.op == "seeded_max":
            free = torch.randint(0, self.n_values, (n, self.n_segments), generator=generator)
            low = torch.rand(n, self.n_segments, generator=generator) < self.seed_prob
            seeds = torch.where(low, torch.zeros_like(free), free)
        return prompts, self.answer(items, seeds)

    def correct(self, prompts: Tensor, generated: Tensor) -> Tensor:
        """(N,) bool: the generated region is a correct answer (for seeded_max: for its own seeds)."""
        items = prompts[:, : self.n_prompt_items]
        if self.op == "running_max":
            return (generated == self.answer(items)).all(1)
        seeds = generated[:, :: self.segment_len]
        valid = (seeds >= 0) & (seeds < self.n_values)
        ref = self.answer(items, seeds.clamp(0, self.n_values - 1))
        return valid.all(1) & (generated == ref).all(1)
