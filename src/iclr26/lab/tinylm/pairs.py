"""A draft/target pair of tiny Hugging Face causal LMs for speculative decoding, trained offline and cached.

Both models are ``LlamaForCausalLM`` with the same character tokenizer, trained by :func:`load_or_train` on the
``"worded-arithmetic"`` corpus (multi-step problems whose steps are worded several ways, ending in a checkable
``Answer: N``, mixed with docstring paragraphs; see :mod:`iclr26.lab.corpora.worded`). The target is wider and
deeper and trained longer; the drafter is one narrow layer, cheap, and makes real arithmetic slips, so
speculative decoders see both wording disagreements and genuine errors. Each model is cached by its config hash,
so every reproduction and benchmark that asks for the same budget shares one trained pair.

Example
-------
>>> from iclr26.lab.tinylm.pairs import draft_target_pair, pair_configs
>>> target_cfg, drafter_cfg = pair_configs("quick")
>>> (target_cfg.d_model, target_cfg.n_layers), (drafter_cfg.d_model, drafter_cfg.n_layers)
((128, 4), (32, 1))
>>> pair = draft_target_pair("quick")  # doctest: +SKIP
>>> problem = pair.heldout(1, seed=1)[0]  # doctest: +SKIP
>>> ids = pair.tokenizer(problem.prompt(), return_tensors="pt").input_ids  # doctest: +SKIP
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from iclr26.checks import check_int
from iclr26.lab.corpora import WordedProblem, worded_problems
from iclr26.lab.tinylm.cache import load_or_train
from iclr26.lab.tinylm.config import TinyLMConfig
from iclr26.lab.tinylm.training import TrainedLM, corpus_splits, train_tiny_lm

__all__ = ["PAIR_BUDGETS", "DraftTargetPair", "draft_target_pair", "pair_configs"]

PAIR_BUDGETS = ("smoke", "quick", "full")

# (d_model, n_layers, n_heads, steps, corpus_chars) for target and drafter at each budget.
_SIZES = {
    "smoke": ((32, 2, 2, 8, 8_000), (16, 1, 2, 4, 8_000)),
    "quick": ((128, 4, 4, 2000, 400_000), (32, 1, 2, 300, 400_000)),
    "full": ((384, 6, 6, 6000, 2_000_000), (128, 1, 2, 1500, 2_000_000)),
}


def pair_configs(budget: str = "quick") -> tuple[TinyLMConfig, TinyLMConfig]:
    """The (target, drafter) :class:`TinyLMConfig` of a budget in :data:`PAIR_BUDGETS`."""
    if budget not in _SIZES:
        raise ValueError(f"budget must be one of {PAIR_BUDGETS}, got {budget!r}")

    def config(d: int, layers: int, heads: int, steps: int, chars: int) -> TinyLMConfig:
        return TinyLMConfig(
            arch="llama",
            corpus="worded-arithmetic",
            corpus_chars=chars,
            tokenizer="char",
            d_model=d,
            n_layers=layers,
            n_heads=heads,
            seq_len=64,
            batch_size=24 if steps > 50 else 4,
            steps=steps,
            lr=3e-3,
            seed=0,
        )

    target, drafter = _SIZES[budget]
    return config(*target), config(*drafter)


@dataclass
class DraftTargetPair:
    """A trained target and drafter sharing one tokenizer, plus held-out problems from their corpus."""

    target: TrainedLM
    drafter: TrainedLM

    def __post_init__(self) -> None:
        if self.target.tokenizer.get_vocab() != self.drafter.tokenizer.get_vocab():
            raise ValueError("target and drafter must share one tokenizer (same vocabulary)")

    @property
    def tokenizer(self):
        """The shared tokenizer."""
        return self.target.tokenizer

    def heldout(self, n: int, seed: int = 1) -> list[WordedProblem]:
        """``n`` problems whose prompts never occur in the pair's training text (seed 0 made the corpus)."""
        check_int("seed (seed 0 generated the training corpus)", seed, low=1)
        train = corpus_splits(self.target.config)["train"]
        out: list[WordedProblem] = []
        for problem in worded_problems(20 * n + 100, seed=seed):
            if problem.prompt() not in train and problem not in out:
                out.append(problem)
                if len(out) == n:
                    return out
        raise RuntimeError(f"could not find {n} held-out problems; ask for fewer")


def draft_target_pair(
    budget: str = "quick", *, cache: bool = True, cache_dir: str | os.PathLike[str] | None = None
) -> DraftTargetPair:
    """Load (or train and cache) the target and drafter of ``budget``; ``cache=False`` trains in-process."""
    target_cfg, drafter_cfg = pair_configs(budget)
    if cache:
        return DraftTargetPair(load_or_train(target_cfg, cache_dir), load_or_train(drafter_cfg, cache_dir))
    return DraftTargetPair(train_tiny_lm(target_cfg), train_tiny_lm(drafter_cfg))
