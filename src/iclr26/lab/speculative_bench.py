"""What the speculative-decoding reproductions share on top of :mod:`iclr26.lab.speculative`: the protocol.

Cactus and FLy compare decoders on the lab's draft/target pair (:func:`iclr26.lab.tinylm.pairs.draft_target_pair`,
worded multi-step arithmetic ending in ``Answer: N``). This module holds that protocol once, so that a paper's
``experiment.py`` keeps only its own verifier settings and metrics:

* :func:`load_pair` loads (or trains and caches) the pair and moves both models to the run's device;
* :func:`heldout_prompts` turns the pair's held-out problems into :class:`Prompt` (token ids on the device and the
  checkable answer); :func:`line_end` is the token that ends a problem's line, where decoding stops;
* :func:`decode_prompts` runs every named decoding method on every prompt (one prompt at a time, the methods in
  turn, so that wall times are measured side by side), each call timed the same way, and tallies per method the
  tokens emitted, the target forwards, the answers graded right and the wall times (:class:`MethodTally`:
  ``tau`` = emitted tokens per target forward, pooled over prompts; ``accuracy``; ``median_wall``);
* :func:`answer_of`, :func:`majority_answer` (the trivial always-the-most-frequent-answer baseline) and
  :func:`continuation_nll` (the target's mean NLL of the emitted tokens) grade the outputs;
* :func:`tau_accuracy_figure` draws tau and accuracy per method, one bar per method with a dot per seed.

A *method* is ``method(prompt, seed) -> (ids (1, n + emitted), stats)`` where ``stats`` has ``emitted`` and
``target_forwards`` (:class:`~iclr26.lab.speculative.DecodeStats` or a paper's own) or is None for a decoder that
is not speculative (the target's own ``generate``); ``seed`` is the prompt's seed from ``seeds`` (0 when none).

Example
-------
>>> import torch
>>> from transformers import GPT2Config, GPT2LMHeadModel
>>> from iclr26.lab.speculative import ExactMatchVerifier, speculative_decode
>>> _ = torch.manual_seed(0)
>>> cfg = GPT2Config(vocab_size=40, n_embd=16, n_layer=1, n_head=2, n_positions=64)
>>> target, drafter = GPT2LMHeadModel(cfg).eval(), GPT2LMHeadModel(cfg).eval()
>>> prompts = [Prompt(torch.tensor([[1, 2, 3]])), Prompt(torch.tensor([[4, 5]]))]
>>> def exact(prompt, seed):
...     return speculative_decode(target, drafter, prompt.ids, ExactMatchVerifier(), gamma=3, max_new_tokens=6)
>>> tally = decode_prompts(prompts, {"exact": exact})["exact"]
>>> tally.emitted, tally.accuracy
(12, 0.0)
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure
from torch import Tensor, nn

from iclr26.harness.figures import metric_values, new_figure, seed_bars
from iclr26.harness.progress import track
from iclr26.harness.store import SeedResult
from iclr26.lab.corpora import parse_answer
from iclr26.lab.tinylm import corpus_splits
from iclr26.lab.tinylm.pairs import DraftTargetPair, draft_target_pair

__all__ = [
    "Method",
    "MethodTally",
    "Prompt",
    "answer_of",
    "continuation_nll",
    "decode_prompts",
    "heldout_prompts",
    "line_end",
    "load_pair",
    "majority_answer",
    "tau_accuracy_figure",
]


@dataclass(frozen=True)
class Prompt:
    """One prompt to decode: its token ids (1, n) on the models' device and its answer (None: not graded)."""

    ids: Tensor
    answer: int | None = None

    @property
    def length(self) -> int:
        """Number of prompt tokens (the decoded continuation starts there)."""
        return int(self.ids.shape[1])


Method = Callable[[Prompt, int], tuple[Tensor, Any]]


def load_pair(
    budget: str, device: torch.device | str = "cpu", *, cache: bool = True
) -> tuple[nn.Module, nn.Module, DraftTargetPair]:
    """``(target, drafter, pair)``: the pair of ``budget`` loaded (or trained) on the CPU, both models moved to
    ``device`` in eval mode; ``cache=False`` trains in-process (see :func:`draft_target_pair`)."""
    pair = draft_target_pair(budget, cache=cache)
    dev = torch.device(device)
    return pair.target.model.to(dev).eval(), pair.drafter.model.to(dev).eval(), pair


def line_end(pair: DraftTargetPair) -> int:
    """The newline token: one problem per line, so decoding stops at the end of the answer."""
    return int(pair.tokenizer.convert_tokens_to_ids("\n"))


def heldout_prompts(
    pair: DraftTargetPair, n: int, seed: int, device: torch.device | str = "cpu"
) -> list[Prompt]:
    """``n`` held-out problems of the pair (prompts never in its training text, see
    :meth:`DraftTargetPair.heldout`) as :class:`Prompt`, their ids on ``device``."""
    tok = pair.tokenizer
    return [
        Prompt(torch.tensor([tok(p.prompt()).input_ids], device=device), p.answer)
        for p in pair.heldout(n, seed=seed)
    ]


def answer_of(pair: DraftTargetPair, ids: Tensor, n_prompt: int) -> int | None:
    """The answer a decoded sequence ``ids`` (1, n) gives on the first line after its ``n_prompt`` prompt tokens."""
    text = pair.tokenizer.decode(ids[0, n_prompt:].tolist())
    return parse_answer(text.split("\n")[0])


def majority_answer(pair: DraftTargetPair) -> int | None:
    """The most frequent final answer of the pair's training text (the trivial answer-only baseline)."""
    answers = Counter(parse_answer(line) for line in corpus_splits(pair.target.config)["train"].splitlines())
    answers.pop(None, None)
    return answers.most_common(1)[0][0] if answers else None


@torch.no_grad()
def continuation_nll(model: nn.Module, ids: Tensor, n_prompt: int) -> float:
    """Mean negative log-likelihood under ``model`` of the tokens of ``ids`` (1, n) after the first ``n_prompt``."""
    logp = torch.log_softmax(model(ids).logits[0, :-1].double(), -1)
    tgt = ids[0, 1:]
    return float(-logp[n_prompt - 1 :].gather(-1, tgt[n_prompt - 1 :, None]).mean())


@dataclass
class MethodTally:
    """What one decoding method did over the prompts of :func:`decode_prompts` (in prompt order)."""

    emitted: int = 0
    target_forwards: int = 0
    correct: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    outputs: list[Tensor] = field(default_factory=list)
    stats: list[Any] = field(default_factory=list)

    @property
    def tau(self) -> float:
        """Acceptance length: tokens emitted per target forward, pooled over the prompts (NaN without forwards)."""
        return self.emitted / self.target_forwards if self.target_forwards else float("nan")

    @property
    def accuracy(self) -> float:
        """Share of prompts whose decoded answer is right (pass@1)."""
        return float(np.mean(self.correct)) if self.correct else float("nan")

    @property
    def median_wall(self) -> float:
        """Median wall time of one call, in seconds."""
        return float(np.median(self.wall)) if self.wall else float("nan")


def decode_prompts(
    prompts: Sequence[Prompt],
    methods: Mapping[str, Method],
    *,
    pair: DraftTargetPair | None = None,
    seeds: Sequence[int] | None = None,
    description: str = "decoding prompts",
) -> dict[str, MethodTally]:
    """Run every method on every prompt and tally each (see the module docstring).

    A prompt is graded right when ``pair`` is given, its ``answer`` is not None and :func:`answer_of` equals it;
    otherwise it counts as wrong (the accuracy of ungraded prompts is 0). Each call is timed with
    ``time.perf_counter`` around it, after a ``cuda.synchronize`` when the prompt lives on a GPU.
    """
    if seeds is not None and len(seeds) != len(prompts):
        raise ValueError(
            f"seeds must give one seed per prompt: {len(seeds)} seeds for {len(prompts)} prompts"
        )
    tallies = {name: MethodTally() for name in methods}
    for i, prompt in enumerate(track(list(prompts), description=description)):
        seed = int(seeds[i]) if seeds is not None else 0
        cuda = prompt.ids.device.type == "cuda"
        for name, method in methods.items():
            t0 = time.perf_counter()
            ids, stats = method(prompt, seed)
            if cuda:
                torch.cuda.synchronize(prompt.ids.device)
            tally = tallies[name]
            tally.wall.append(time.perf_counter() - t0)
            tally.outputs.append(ids)
            tally.stats.append(stats)
            if stats is not None:
                tally.emitted += int(stats.emitted)
                tally.target_forwards += int(stats.target_forwards)
            graded = pair is not None and prompt.answer is not None
            tally.correct.append(float(graded and answer_of(pair, ids, prompt.length) == prompt.answer))
    return tallies


def tau_accuracy_figure(
    results: Sequence[SeedResult],
    tau: Sequence[tuple[str, str]],
    accuracy: Sequence[tuple[str, str]],
) -> Figure:
    """Acceptance length and accuracy per method: ``tau`` and ``accuracy`` list ``(metric, label)`` pairs; one bar
    of the mean over seeds per method, a dot per seed; a dashed line at tau = 1 (no draft accepted)."""
    fig, axes = new_figure(ncols=2, width=8, height=3.2)
    for ax, pairs, ylabel in (
        (axes[0], tau, "tokens per target forward (tau)"),
        (axes[1], accuracy, "final-answer accuracy (pass@1)"),
    ):
        values = [metric_values(results, metric) for metric, _ in pairs]
        seed_bars(ax, range(len(pairs)), values, color=[f"C{i}" for i in range(len(pairs))], alpha=0.6)
        ax.set_xticks(range(len(pairs)), [label for _, label in pairs])
        ax.set(ylabel=ylabel)
    axes[0].axhline(1.0, color="k", lw=0.8, ls="--")
    return fig
