"""C-Evolve's LLM pieces: the reflective prompt mutator and the LLM-selection aggregator (open-ended answers).

Both take any :class:`iclr26.lab.llm.LLMBackend` (OpenAI-compatible endpoint, local HF model, scripted). The
exact mutation prompt of the paper is not published; the template below is our wording of what the sources say
it contains (parent prompt, its outputs and feedback on b = 3 feedback examples; in the voting phase the group
it sat in, every member's output and the consensus).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from iclr26.agents.c_evolve.cevolve import majority_vote
from iclr26.checks import check_int
from iclr26.lab.evolution import PromptMutator

__all__ = ["AGGREGATE_TEMPLATE", "REFLECT_TEMPLATE", "LLMAggregator", "LLMReflectiveMutator", "parse_prompt"]

REFLECT_TEMPLATE = (
    "You improve an instruction prompt for a language model.\n"
    "Current prompt:\n<<<{genome}>>>\n\n"
    "Its behaviour on feedback examples:\n{feedback}\n\n"
    "{group}"
    "Write an improved prompt. Reply with the new prompt only, between <<< and >>>."
)

AGGREGATE_TEMPLATE = (
    "Several candidate answers to the same question follow. Select the single most representative answer "
    "(the one most candidates agree with). Reply with its number only.\n\n{candidates}"
)


def parse_prompt(text: str) -> str | None:
    """The text between ``<<<`` and ``>>>`` (else the stripped reply); None when empty."""
    m = re.search(r"<<<(.*?)>>>", text, flags=re.S)
    body = (m.group(1) if m else text).strip()
    return body or None


class LLMReflectiveMutator:
    """Reflective mutation: the LLM rewrites the parent prompt from its feedback (and, when voting, its group).

    Parameters
    ----------
    backend : LLMBackend
    feedback : callable, optional
        ``feedback(genome, rng) -> str``: the parent's outputs and feedback on ``n_examples`` feedback-set
        examples (the caller owns the feedback split). None gives ``"(none)"``.
    n_examples : b, the number of feedback examples (paper 3), passed to `feedback` as ``rng``-drawn choice.
    template : must contain ``{genome}``, ``{feedback}`` and ``{group}``.
    temperature, max_tokens : for ``backend.chat``.
    """

    def __init__(
        self,
        backend: Any,
        feedback: Callable[[Any, np.random.Generator, int], str] | None = None,
        *,
        n_examples: int = 3,
        template: str = REFLECT_TEMPLATE,
        temperature: float = 0.7,
        max_tokens: int = 512,
    ) -> None:
        for f in ("{genome}", "{feedback}", "{group}"):
            if not isinstance(template, str) or f not in template:
                raise ValueError(f"template must be a str containing {f}, got {template!r}")
        if feedback is not None and not callable(feedback):
            raise ValueError(f"feedback must be callable as feedback(genome, rng, n), got {feedback!r}")
        self.n_examples = check_int("n_examples", n_examples, low=1)
        self.feedback = feedback
        self._inner = PromptMutator(
            backend, template, parse_prompt, temperature=temperature, max_tokens=max_tokens
        )

    @property
    def failures(self) -> int:
        return self._inner.failures

    def __call__(
        self, genome: Any, rng: np.random.Generator, context: Mapping[str, Any] | None = None
    ) -> Any:
        context = context or {}
        fb = self.feedback(genome, rng, self.n_examples) if self.feedback is not None else "(none)"
        group = ""
        if "group" in context:
            members = context["group"]
            cons = context.get("consensus", {})
            lines = [f"- member {k + 1} prompt: {m.genome!r}" for k, m in enumerate(members)]
            ids = list(cons)[: self.n_examples]
            for i in ids:
                outs = ", ".join(repr(m.outputs.get(i)) for m in members)
                lines.append(f"- item {i!r}: member outputs [{outs}] -> consensus {cons[i]!r}")
            group = "It is voted in a group:\n" + "\n".join(lines) + "\n\n"
        return self._inner(genome, rng, {"feedback": fb, "group": group})


class LLMAggregator:
    """The paper's "LLM-selection" aggregator: the LLM picks the most representative of the K answers.

    The reply must name a candidate by number; an unparsable or out-of-range reply falls back to
    :func:`majority_vote` (counted in ``fallbacks``). It never writes a new answer."""

    def __init__(self, backend: Any, *, template: str = AGGREGATE_TEMPLATE, max_tokens: int = 16) -> None:
        if not hasattr(backend, "chat"):
            raise ValueError(f"backend must be an LLMBackend (with .chat), got {type(backend).__name__}")
        if not isinstance(template, str) or "{candidates}" not in template:
            raise ValueError(f"template must be a str containing {{candidates}}, got {template!r}")
        self.backend, self.template, self.max_tokens = backend, template, max_tokens
        self.fallbacks = 0

    def __call__(self, answers: Sequence[Any], rng: np.random.Generator | None = None) -> Any:
        from iclr26.lab.llm import Message

        if len(answers) == 0:
            raise ValueError("answers must hold at least one answer, got an empty sequence")
        if len(answers) == 1:
            return answers[0]
        text = "\n".join(f"[{k + 1}] {a}" for k, a in enumerate(answers))
        reply = self.backend.chat(
            [Message("user", self.template.format(candidates=text))],
            temperature=0.0,
            max_tokens=self.max_tokens,
        ).text
        m = re.search(r"\d+", reply)
        if m and 1 <= int(m.group()) <= len(answers):
            return answers[int(m.group()) - 1]
        self.fallbacks += 1
        return majority_vote(answers, rng)
