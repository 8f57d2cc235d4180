"""End-to-end speculative generation with the tensor verifiers, on top of the lab's decoding loop.

:func:`speculative_generate` adapts a :class:`~iclr26.inference.cactus.verifiers.BaseVerifier` to the verifier
callable of :func:`iclr26.lab.speculative.speculative_decode` (which owns the KV caches and the draft/verify
rounds) through :class:`LoopVerifier`: logits are divided by ``temperature`` and soft-maxed, drafts are sampled
from the drafter, the first rejected position emits its residual token, and if every draft passes the bonus
token is drawn from the target's unmodified last row. :class:`TableLM` is a bigram "model" given as a fixed table, with the small part
of the Hugging Face interface the loop needs; it makes exact tests of the whole loop cheap.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.inference.cactus.verifiers import BaseVerifier
from iclr26.lab.speculative import DecodeStats, check_verifier_inputs, speculative_decode

__all__ = ["LoopVerifier", "TableLM", "speculative_generate", "target_sample"]


class _Out(dict):
    """Minimal model output: ``out.logits`` and ``out.get("past_key_values")``."""

    def __init__(self, logits: Tensor, cache: object) -> None:
        super().__init__(logits=logits, past_key_values=cache)
        self.logits = logits


class _TableCache:
    def __init__(self) -> None:
        self.n = 0

    def get_seq_length(self) -> int:
        return self.n

    def crop(self, length: int) -> None:
        self.n = self.n + length if length < 0 else min(self.n, length)


class TableLM(nn.Module):
    """A first-order (bigram) "language model": the next-token logits are ``log(table[last_token])``.

    Parameters
    ----------
    table : (V, V) row-stochastic matrix; row ``a`` is the next-token law after token ``a``.
    """

    def __init__(self, table: Tensor) -> None:
        super().__init__()
        if not isinstance(table, Tensor) or table.ndim != 2 or table.shape[0] != table.shape[1]:
            raise ValueError(f"table must be a square (V, V) tensor, got {getattr(table, 'shape', None)}")
        if bool((table < 0).any()) or float((table.sum(-1) - 1).abs().max()) > 1e-6:
            raise ValueError("table must be row-stochastic (non-negative rows summing to 1)")
        self.register_buffer("log_table", torch.log(table.double()))
        self.head = nn.Linear(1, table.shape[0], bias=False)
        self.config = {"vocab_size": table.shape[0]}

    def get_output_embeddings(self) -> nn.Linear:
        return self.head

    def forward(self, ids: Tensor, use_cache: bool = True, past_key_values: object | None = None) -> _Out:
        check_tensor("ids", ids, ndim=2, floating=False)
        check_token_ids("ids", ids, self.log_table.shape[0])
        cache = past_key_values if past_key_values is not None else _TableCache()
        cache.n += ids.shape[1]
        return _Out(self.log_table[ids], cache)


class LoopVerifier:
    """A tensor verifier as the lab loop's verifier ``(target_logits, draft_logits, ids, gen) -> (n, next)``.

    Both rows of logits are divided by ``temperature`` and soft-maxed; the first rejected draft emits its residual
    token; if every draft passes, the bonus token is drawn from the target's last row. This is what
    :func:`speculative_generate` runs, and what the component registry's cactus verifiers are.
    """

    def __init__(self, verifier: BaseVerifier, temperature: float = 1.0) -> None:
        if not isinstance(verifier, BaseVerifier):
            raise TypeError(
                f"verifier must be a Cactus/SpS/Typical/TopK/Interp verifier, got {type(verifier).__name__}"
            )
        check_float("temperature", temperature, low=0.0, low_open=True, finite=False)
        self.verifier, self.temperature = verifier, float(temperature)

    def __repr__(self) -> str:
        return f"LoopVerifier({self.verifier!r}, temperature={self.temperature:g})"

    def __call__(
        self, target_logits: Tensor, draft_logits: Tensor, draft_ids: Tensor, generator: torch.Generator
    ) -> tuple[int, int]:
        k = check_verifier_inputs(target_logits, draft_logits, draft_ids)
        q = torch.softmax(target_logits.double() / self.temperature, -1)
        if k > 0:
            p = torch.softmax(draft_logits.double() / self.temperature, -1)
            accepted, residual = self.verifier.verify(q[None, :k], p[None], draft_ids[None].long(), generator)
            rejected = (~accepted[0]).nonzero()
            if rejected.numel():
                i = int(rejected[0])
                return i, int(residual[0, i])
        return k, int(torch.multinomial(q[k], 1, generator=generator))


def target_sample(temperature: float = 1.0):
    """A draft sampler for :func:`speculative_decode`: one draw from ``softmax(logits / temperature)``."""
    check_float("temperature", temperature, low=0.0, low_open=True)

    def sample(logits: Tensor, generator: torch.Generator) -> int:
        return int(
            torch.multinomial(torch.softmax(logits.double() / temperature, -1), 1, generator=generator)
        )

    return sample


def speculative_generate(
    target: nn.Module,
    drafter: nn.Module,
    input_ids: Tensor,
    verifier: BaseVerifier,
    gamma: int = 5,
    temperature: float = 1.0,
    max_new_tokens: int = 32,
    seed: int = 0,
    eos_token_id: int | None = None,
) -> tuple[Tensor, DecodeStats]:
    """Sample up to ``max_new_tokens`` tokens after ``input_ids`` (1, n) with draft-then-verify rounds.

    The drafter samples ``gamma`` tokens at ``temperature``; ``verifier`` decides acceptance per position
    (:class:`SpSVerifier` keeps the target's law exactly). Returns ``(ids (1, n + emitted), stats)`` where
    ``stats`` is the lab's :class:`~iclr26.lab.speculative.DecodeStats` (``stats.acceptance_length`` is tau).
    """
    if not isinstance(verifier, BaseVerifier):
        raise TypeError(
            f"verifier must be a Cactus/SpS/Typical/TopK/Interp verifier, got {type(verifier).__name__}"
        )
    check_int("gamma", gamma, low=1)
    check_float("temperature", temperature, low=0.0, low_open=True, finite=False)
    return speculative_decode(
        target,
        drafter,
        input_ids,
        LoopVerifier(verifier, float(temperature)),
        gamma=gamma,
        max_new_tokens=max_new_tokens,
        draft_sampler=target_sample(float(temperature)),
        eos_token_id=eos_token_id,
        seed=seed,
    )
