"""A draft-then-verify decoding loop for any pair of Hugging Face causal LMs that share a tokenizer.

Speculative decoding papers differ in one place: the rule that decides how many drafted tokens the target model
accepts and which token it emits next. This module holds everything else, once:

* :class:`CachedLM` wraps a causal LM with its KV cache: ``feed(ids)`` runs only the tokens the cache has not
  seen and returns their logits; ``crop(n)`` rolls the cache back to ``n`` tokens after a rejection.
* :func:`speculative_decode` drafts ``gamma`` tokens with the drafter (one cached forward per token), scores the
  last committed token plus all drafts with one target forward, asks the ``verifier`` for ``(n_accepted,
  next_token)``, commits ``drafts[:n_accepted] + [next_token]``, and crops both caches to the committed prefix.
  Batch size 1.
* A verifier is any callable ``verifier(target_logits (K+1, V), draft_logits (K, V), draft_ids (K,), generator)
  -> (n_accepted, next_token)``: row ``i`` of ``target_logits`` is the target's prediction for draft position
  ``i`` (row K predicts the token after all drafts). :class:`ExactMatchVerifier` is the greedy lossless rule and
  :class:`SamplingVerifier` the standard speculative-sampling rule (Leviathan et al., 2023; Chen et al., 2023).
* :class:`DecodeStats` counts draft rounds, forwards of each model, emitted and accepted tokens and wall time.

With :class:`ExactMatchVerifier` and a greedy drafter the output is token-identical to the target's own greedy
decoding (and to transformers' assisted generation), which the tests check.

Example
-------
>>> import torch
>>> from transformers import GPT2Config, GPT2LMHeadModel
>>> torch.manual_seed(0)  # doctest: +ELLIPSIS
<torch._C.Generator object at ...>
>>> cfg = GPT2Config(vocab_size=40, n_embd=16, n_layer=1, n_head=2, n_positions=64)
>>> target, drafter = GPT2LMHeadModel(cfg).eval(), GPT2LMHeadModel(cfg).eval()
>>> prompt = torch.tensor([[1, 2, 3]])
>>> ids, stats = speculative_decode(target, drafter, prompt, ExactMatchVerifier(), gamma=3, max_new_tokens=8)
>>> greedy = target.generate(prompt, max_new_tokens=8, do_sample=False, pad_token_id=0)
>>> bool(torch.equal(ids, greedy)), stats.emitted
(True, 8)
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_logits, check_tensor, check_token_ids

__all__ = [
    "CachedLM",
    "DecodeStats",
    "ExactMatchVerifier",
    "SamplingVerifier",
    "Verifier",
    "check_verifier_inputs",
    "crop_cache",
    "speculative_decode",
]

Verifier = Callable[[Tensor, Tensor, Tensor, torch.Generator], tuple[int, int]]


def crop_cache(cache: object, length: int) -> None:
    """Roll a Hugging Face KV cache back to its first ``length`` tokens (any transformers version)."""
    current = int(cache.get_seq_length())
    if length < current:
        cache.crop(
            -(current - length)
        )  # a negative count removes that many tokens, in transformers 4.x and 5.x


class CachedLM:
    """A causal LM and its KV cache; the cache always holds a prefix of the committed sequence."""

    def __init__(self, model: nn.Module) -> None:
        if not hasattr(model, "forward") or not hasattr(model, "config"):
            raise TypeError(f"model must be a Hugging Face causal LM, got {type(model).__name__}")
        self.model = model
        params = inspect.signature(model.forward).parameters
        self._cache_arg = "cache" if "cache" in params else "past_key_values"
        self.cache: object | None = None
        self.forwards = 0

    @property
    def length(self) -> int:
        return 0 if self.cache is None else int(self.cache.get_seq_length())

    @torch.no_grad()
    def feed(self, ids: Tensor) -> Tensor:
        """Run ``ids`` (1, n) after the cached prefix; returns their logits (n, V) in float64 on the CPU."""
        if ids.ndim != 2 or ids.shape[0] != 1 or ids.shape[1] < 1:
            raise ValueError(f"ids must have shape (1, n>=1), got {tuple(ids.shape)}")
        out = self.model(ids, use_cache=True, **{self._cache_arg: self.cache})
        self.cache = out.get("cache", None) or out.get("past_key_values", None)
        self.forwards += 1
        return out.logits[0].double().cpu()

    def crop(self, length: int) -> None:
        if self.cache is not None:
            crop_cache(self.cache, length)


@dataclass
class DecodeStats:
    """Counts of one :func:`speculative_decode` call."""

    draft_rounds: int = 0
    target_forwards: int = 0
    draft_forwards: int = 0
    drafted: int = 0
    accepted: int = 0
    emitted: int = 0
    wall_time: float = 0.0

    @property
    def acceptance_length(self) -> float:
        """Mean tokens emitted per target forward (accepted drafts + the target's own token)."""
        return self.emitted / self.target_forwards if self.target_forwards else 0.0

    @property
    def acceptance_rate(self) -> float:
        """Fraction of drafted tokens accepted."""
        return self.accepted / self.drafted if self.drafted else 0.0


def check_verifier_inputs(target_logits: Tensor, draft_logits: Tensor, draft_ids: Tensor) -> int:
    """Check a verifier's arguments and return K, the number of drafts: ``draft_ids`` (K,) integer ids below V,
    ``target_logits`` (K + 1, V) and ``draft_logits`` (K, V) floating-point logits without NaN or +inf (-inf, a
    masked token, is allowed). Each error names the argument."""
    check_tensor("draft_ids", draft_ids, ndim=1, floating=False)
    k = draft_ids.numel()
    check_logits("target_logits", target_logits, ndim=2)
    if target_logits.shape[0] != k + 1:
        raise ValueError(
            f"target_logits must have K + 1 = {k + 1} rows (one per draft in draft_ids, then the bonus row), "
            f"got shape {tuple(target_logits.shape)}"
        )
    check_tensor("draft_logits", draft_logits)
    if tuple(draft_logits.shape) != (k, target_logits.shape[1]):
        raise ValueError(
            f"draft_logits must have shape (K, V) = ({k}, {target_logits.shape[1]}) (K drafts in draft_ids, V the "
            f"vocabulary of target_logits), got {tuple(draft_logits.shape)}"
        )
    check_logits("draft_logits", draft_logits)
    check_token_ids("draft_ids", draft_ids, target_logits.shape[1])
    return k


class ExactMatchVerifier:
    """Greedy lossless rule: accept drafts while they equal the target's argmax; emit the target's argmax next."""

    def __call__(
        self, target_logits: Tensor, draft_logits: Tensor, draft_ids: Tensor, generator: torch.Generator
    ) -> tuple[int, int]:
        check_verifier_inputs(target_logits, draft_logits, draft_ids)
        greedy = target_logits.argmax(-1)
        n = 0
        while n < draft_ids.numel() and int(draft_ids[n]) == int(greedy[n]):
            n += 1
        return n, int(greedy[n])


class SamplingVerifier:
    """Speculative sampling: accept draft x with prob min(1, p(x)/q(x)); on rejection sample (p - q)+.

    ``p`` is the target's and ``q`` the drafter's distribution at ``temperature``; the emitted sequence then has
    exactly the target's law. If all drafts pass, the next token is sampled from the target's last row.
    """

    def __init__(self, temperature: float = 1.0) -> None:
        self.temperature = check_float("temperature", temperature, low=0.0, low_open=True, finite=False)

    def __call__(
        self, target_logits: Tensor, draft_logits: Tensor, draft_ids: Tensor, generator: torch.Generator
    ) -> tuple[int, int]:
        check_verifier_inputs(target_logits, draft_logits, draft_ids)
        p = torch.softmax(target_logits / self.temperature, -1)
        q = torch.softmax(draft_logits / self.temperature, -1)
        for i, x in enumerate(draft_ids.tolist()):
            u = float(torch.rand((), generator=generator, dtype=torch.float64))
            if u * float(q[i, x]) < float(p[i, x]):  # u < p/q without dividing by zero
                continue
            residual = (p[i] - q[i]).clamp_min(0)
            residual = residual / residual.sum() if residual.sum() > 0 else p[i]
            return i, int(torch.multinomial(residual, 1, generator=generator))
        return draft_ids.numel(), int(torch.multinomial(p[-1], 1, generator=generator))


def _generator(seed: int) -> torch.Generator:
    """A generator seeded through NumPy's SeedSequence: the first draws of torch generators seeded with
    consecutive small integers are correlated enough to fail a chi-square test over runs seeded 0, 1, 2, ..."""
    mixed = int(np.random.SeedSequence(int(seed)).generate_state(1, dtype=np.uint64)[0]) & ((1 << 63) - 1)
    return torch.Generator().manual_seed(mixed)


def _greedy(logits: Tensor, generator: torch.Generator) -> int:
    return int(logits.argmax())


def _vocab(model: nn.Module) -> int:
    return int(model.get_output_embeddings().weight.shape[0])


def speculative_decode(
    target: nn.Module,
    drafter: nn.Module,
    input_ids: Tensor,
    verifier: Verifier,
    *,
    gamma: int = 5,
    max_new_tokens: int = 32,
    draft_sampler: Callable[[Tensor, torch.Generator], int] | None = None,
    eos_token_id: int | None = None,
    seed: int = 0,
) -> tuple[Tensor, DecodeStats]:
    """Generate up to ``max_new_tokens`` tokens after ``input_ids`` (1, n) by draft-then-verify rounds.

    ``draft_sampler(logits (V,), generator) -> id`` picks each drafted token from the drafter's logits (greedy by
    default; pass a sampler for stochastic drafting). Generation stops after ``eos_token_id`` or the budget; a
    round never emits past the budget. Returns ``(ids (1, n + emitted), stats)``.
    """
    if not isinstance(input_ids, Tensor) or input_ids.ndim != 2 or input_ids.shape[0] != 1:
        raise ValueError(
            f"input_ids must have shape (1, n); batch size 1 only, got {getattr(input_ids, 'shape', None)}"
        )
    if input_ids.shape[1] < 1:
        raise ValueError("input_ids must hold at least one token")
    if not callable(verifier):
        raise TypeError(f"verifier must be a Verifier (callable), got {type(verifier).__name__}")
    check_int("gamma", gamma, low=1)
    check_int("max_new_tokens", max_new_tokens, low=1)
    check_int("seed", seed, low=0)
    if _vocab(target) != _vocab(drafter):
        raise ValueError(
            f"target and drafter must share a vocabulary, got {_vocab(target)} and {_vocab(drafter)}"
        )
    check_token_ids("input_ids", input_ids, _vocab(target))
    if eos_token_id is not None:
        check_int("eos_token_id", eos_token_id, low=0, high=_vocab(target) - 1)
    sampler = draft_sampler or _greedy
    gen = _generator(seed)
    device = next(target.parameters()).device
    t_lm, d_lm = CachedLM(target), CachedLM(drafter)
    seq = input_ids[0].tolist()
    n_prompt = len(seq)
    stats = DecodeStats()
    t0 = time.perf_counter()
    while len(seq) - n_prompt < max_new_tokens:
        k = min(gamma, max_new_tokens - (len(seq) - n_prompt) - 1)
        drafts: list[int] = []
        draft_rows: list[Tensor] = []
        if k > 0:
            d_lm.crop(len(seq) - 1)
            logits = d_lm.feed(torch.tensor([seq[d_lm.length :]], device=device))[-1]
            for j in range(k):
                drafts.append(sampler(logits, gen))
                draft_rows.append(logits)
                if j < k - 1:
                    logits = d_lm.feed(torch.tensor([[drafts[-1]]], device=device))[-1]
            stats.draft_rounds += 1
        t_lm.crop(len(seq) - 1)
        pending = seq[t_lm.length :] + drafts
        target_rows = t_lm.feed(torch.tensor([pending], device=device))[-(k + 1) :]
        draft_ids = torch.tensor(drafts, dtype=torch.long)
        draft_logits = torch.stack(draft_rows) if draft_rows else target_rows[:0]
        n_acc, nxt = verifier(target_rows, draft_logits, draft_ids, gen)
        if not 0 <= n_acc <= k:
            raise RuntimeError(f"verifier returned n_accepted={n_acc} outside [0, {k}]")
        new = drafts[:n_acc] + [int(nxt)]
        stats.drafted += k
        stats.accepted += n_acc
        if eos_token_id is not None and eos_token_id in new:
            new = new[: new.index(eos_token_id) + 1]
        seq.extend(new)
        stats.emitted += len(new)
        if eos_token_id is not None and seq[-1] == eos_token_id:
            break
    stats.target_forwards, stats.draft_forwards = t_lm.forwards, d_lm.forwards
    stats.wall_time = time.perf_counter() - t0
    return torch.tensor([seq], dtype=input_ids.dtype, device=input_ids.device), stats
