"""Prompt configurations and the chat protocol every block speaks.

A block's agent is an LLM role (``predictor``, ``reflector``, ``debater``, ``summarizer``) with a
:class:`PromptConfig`: an instruction (the system message) and few-shot demos. Blocks ask three things of an
agent, over a batch of items: ``answer`` (pick an option; possibly after a reviewer or failed tests rejected
a previous answer, or after seeing the other debaters' answers), ``verify`` (is this proposed answer correct?)
and ``summarize`` (condense the question's context). :class:`ChatOps` renders each request as chat messages,
sends it to any :class:`~iclr26.lab.llm.LLMBackend` (one call per item, seeded) and parses the reply; the
offline :class:`~iclr26.agents.mass.simulated.SimulatedLLM` answers the same messages, and also the same
requests vectorised (its fast path), with identical results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iclr26.agents.mass.items import LETTERS, ItemSet
from iclr26.lab.llm import LLMBackend, Message

__all__ = [
    "REASONS",
    "ROLES",
    "ChatOps",
    "Demo",
    "PromptConfig",
    "answer_messages",
    "call_seed",
    "parse_letter",
    "parse_verdict",
    "summarize_messages",
    "verify_messages",
]

ROLES = ("predictor", "reflector", "debater", "summarizer")
REASONS = (None, "reflect", "tests", "debate")
VERIFY_ASK = "Is it correct? Reply CORRECT or WRONG."
SUMMARIZE_ASK = "Summarize the facts needed to answer this question, in one or two sentences."
ANSWER_ASK = "Answer with the letter of one option only."


@dataclass(frozen=True)
class Demo:
    """One few-shot example: the input shown and the output expected."""

    question: str
    answer: str


@dataclass(frozen=True)
class PromptConfig:
    """An agent's prompt: its instruction (system message) and few-shot demos.

    Examples
    --------
    >>> PromptConfig("Think step by step.").demos
    ()
    """

    instruction: str
    demos: tuple[Demo, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.instruction, str) or not self.instruction.strip():
            raise ValueError(f"PromptConfig.instruction must be a non-empty str, got {self.instruction!r}")
        object.__setattr__(self, "demos", tuple(self.demos))
        if any(not isinstance(d, Demo) for d in self.demos):
            raise ValueError("PromptConfig.demos must hold Demo objects")


def call_seed(seed: int, key: Sequence[int]) -> int:
    """A 31-bit seed for one agent call: the evaluation seed and the call's place in the workflow."""
    h = 0x9E3779B97F4A7C15
    for v in (int(seed), *(int(k) for k in key)):
        h ^= v & 0xFFFFFFFFFFFFFFFF
        h = (h * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        h ^= h >> 31
    return int(h & 0x7FFFFFFF)


def _demo_text(demos: Sequence[Demo]) -> str:
    return "".join(f"Example question: {d.question}\nExample answer: {d.answer}\n\n" for d in demos)


def _question_text(question: str, options: Sequence[str]) -> str:
    opts = " ".join(f"{LETTERS[k]}) {o}" for k, o in enumerate(options))
    return f"Question: {question}\nOptions: {opts}\n"


def answer_messages(
    prompt: PromptConfig,
    question: str,
    options: Sequence[str],
    context: str | None = None,
    exclude: int | None = None,
    peers: Sequence[int] | None = None,
    reason: str | None = None,
) -> list[Message]:
    """The chat messages of one ``answer`` request."""
    text = _demo_text(prompt.demos) + _question_text(question, options)
    if context is not None:
        text += f"Context summary: {context}\n"
    if reason == "reflect":
        text += f"A reviewer judged your previous answer ({LETTERS[exclude]}) wrong. Answer again with a different option.\n"
    elif reason == "tests":
        text += f"Your previous answer ({LETTERS[exclude]}) failed the tests. Answer again with a different option.\n"
    elif reason == "debate":
        text += f"Other agents answered: {', '.join(LETTERS[p] if p >= 0 else '?' for p in peers)}. Considering their answers, give your final answer.\n"
    return [Message("system", prompt.instruction), Message("user", text + ANSWER_ASK)]


def verify_messages(
    prompt: PromptConfig, question: str, options: Sequence[str], proposed: int, context: str | None = None
) -> list[Message]:
    """The chat messages of one ``verify`` request."""
    text = _demo_text(prompt.demos) + _question_text(question, options)
    if context is not None:
        text += f"Context summary: {context}\n"
    shown = LETTERS[proposed] if proposed >= 0 else "?"
    return [
        Message("system", prompt.instruction),
        Message("user", text + f"Proposed answer: {shown}. {VERIFY_ASK}"),
    ]


def summarize_messages(prompt: PromptConfig, question: str) -> list[Message]:
    """The chat messages of one ``summarize`` request."""
    return [
        Message("system", prompt.instruction),
        Message("user", _demo_text(prompt.demos) + f"{SUMMARIZE_ASK}\n\n{question}"),
    ]


def parse_letter(text: str, n_options: int) -> int:
    """The option index of the first standalone option letter in `text` (``Answer: B`` -> 1), or -1."""
    for m in re.finditer(r"(?<![A-Za-z])([A-J])(?![A-Za-z])", text):
        k = LETTERS.index(m.group(1))
        if k < n_options:
            return k
    return -1


def parse_verdict(text: str) -> bool:
    """True when the reply judges the proposed answer wrong (the first of WRONG / CORRECT / INCORRECT wins)."""
    m = re.search(r"\b(WRONG|INCORRECT|CORRECT)\b", text.upper())
    return bool(m) and m.group(1) in ("WRONG", "INCORRECT")


class ChatOps:
    """The three agent requests over any chat backend: one seeded ``chat`` call per item.

    ``context`` is an object array of summaries (or None); ``answer`` returns option indices (-1 when the reply
    names no option), ``verify`` a boolean array (True: judged wrong), ``summarize`` the summaries.
    """

    def __init__(self, backend: LLMBackend, *, temperature: float = 0.7, max_tokens: int = 64) -> None:
        if not isinstance(backend, LLMBackend):
            raise TypeError(f"backend must be an LLMBackend, got {type(backend).__name__}")
        self.backend, self.temperature, self.max_tokens = backend, temperature, max_tokens

    def _text(self, messages: list[Message], seed: int, max_tokens: int | None = None) -> str:
        return self.backend.chat(
            messages, temperature=self.temperature, max_tokens=max_tokens or self.max_tokens, seed=seed
        ).text

    def answer(
        self,
        prompt: PromptConfig,
        items: ItemSet,
        seed: int,
        context: np.ndarray | None = None,
        exclude: np.ndarray | None = None,
        peers: np.ndarray | None = None,
        reason: str | None = None,
    ) -> np.ndarray:
        out = np.empty(len(items), dtype=int)
        for i in range(len(items)):
            msgs = answer_messages(
                prompt,
                items.questions[i],
                items.options[i],
                None if context is None else str(context[i]),
                None if exclude is None else int(exclude[i]),
                None if peers is None else [int(p) for p in peers[i]],
                reason,
            )
            out[i] = parse_letter(self._text(msgs, seed), len(items.options[i]))
        return out

    def verify(
        self,
        prompt: PromptConfig,
        items: ItemSet,
        answers: np.ndarray,
        seed: int,
        context: np.ndarray | None = None,
    ) -> np.ndarray:
        out = np.zeros(len(items), dtype=bool)
        for i in range(len(items)):
            ctx = None if context is None else str(context[i])
            msgs = verify_messages(prompt, items.questions[i], items.options[i], int(answers[i]), ctx)
            out[i] = parse_verdict(self._text(msgs, seed))
        return out

    def summarize(self, prompt: PromptConfig, items: ItemSet, seed: int) -> np.ndarray:
        texts = [
            " ".join(self._text(summarize_messages(prompt, q), seed, 128).split()) for q in items.questions
        ]
        return np.array(texts, dtype=object)
