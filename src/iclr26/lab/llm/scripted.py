"""A deterministic backend whose replies are written in advance: the offline stand-in for an LLM in tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from iclr26.lab.llm.base import ChatRequest, Completion, LLMBackend, LLMError, Message, truncate_at_stop

Responder = Callable[[list[Message]], str]


def echo_last_user_message(messages: list[Message]) -> str:
    """Reply with the content of the last ``user`` message (the ``--llm scripted`` default)."""
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


class ScriptedBackend(LLMBackend):
    """Replies from a list, a keyword table or a function, and records every request.

    Token counts are whitespace-separated word counts, so code that budgets tokens can be tested. Stop
    strings are honoured (the reply is cut before the first one); ``max_tokens`` is not applied.

    Parameters
    ----------
    responses : list of str, dict of str to str, or callable
        * list: replies returned in order; when exhausted, raise :class:`LLMError` or start over (``cycle``).
        * dict: the first key (in insertion order) that is a substring of the last user message selects
          the reply; no match falls back to ``default`` or raises :class:`LLMError`.
        * callable: ``responses(messages) -> str`` with ``messages`` a list of :class:`Message`.
    cycle : bool
        For a list, start again from the first reply instead of raising once all are used.
    default : str, optional
        For a dict, the reply when no key matches.
    model : str
        The model name reported in completions.

    Attributes
    ----------
    calls : list of ChatRequest
        Every request received, in order, with its validated arguments.

    Examples
    --------
    >>> llm = ScriptedBackend({"capital": "Paris", "2 + 2": "4"})
    >>> llm.complete("What is 2 + 2?").text
    '4'
    >>> llm.calls[0].last_user_message
    'What is 2 + 2?'
    """

    def __init__(
        self,
        responses: Sequence[str] | Mapping[str, str] | Responder,
        *,
        cycle: bool = False,
        default: str | None = None,
        model: str = "scripted",
    ) -> None:
        if isinstance(responses, Mapping):
            if any(not isinstance(k, str) or not isinstance(v, str) for k, v in responses.items()):
                raise ValueError("responses as a dict must map str substrings to str replies")
        elif isinstance(responses, Sequence) and not isinstance(responses, str):
            if len(responses) == 0 or any(not isinstance(r, str) for r in responses):
                raise ValueError("responses as a list must be a non-empty list of str replies")
        elif not callable(responses):
            raise ValueError(
                f"responses must be a list of str, a dict substring -> reply or a callable, got {responses!r}"
            )
        if default is not None and not isinstance(default, str):
            raise ValueError(f"default must be None or a str, got {default!r}")
        self.responses = (
            responses if callable(responses) or isinstance(responses, Mapping) else list(responses)
        )
        self.cycle = cycle
        self.default = default
        self.model = model
        self.calls: list[ChatRequest] = []
        self._next = 0
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        return f"scripted:{self.model}"

    def _reply(self, request: ChatRequest) -> str:
        if isinstance(self.responses, list):
            if self._next >= len(self.responses):
                if not self.cycle:
                    raise LLMError(
                        f"ScriptedBackend ran out of responses after {len(self.responses)} calls "
                        "(pass cycle=True to start over)"
                    )
                self._next = 0
            self._next += 1
            return self.responses[self._next - 1]
        if isinstance(self.responses, Mapping):
            text = request.last_user_message
            for key, reply in self.responses.items():
                if key in text:
                    return reply
            if self.default is not None:
                return self.default
            raise LLMError(
                f"ScriptedBackend has no reply for {text[:200]!r}; keys are {list(self.responses)} "
                "(pass default=... for a fallback)"
            )
        reply = self.responses(list(request.messages))
        if not isinstance(reply, str):
            raise LLMError(f"ScriptedBackend's responder returned {type(reply).__name__}, expected str")
        return reply

    def _chat(self, request: ChatRequest) -> Completion:
        with self._lock:
            self.calls.append(request)
            reply = self._reply(request)
        text, _ = truncate_at_stop(reply, request.stop)
        prompt_words = sum(len(m.content.split()) for m in request.messages)
        return Completion(
            text=text,
            prompt_tokens=prompt_words,
            completion_tokens=len(text.split()),
            model=self.model,
            finish_reason="stop",
        )

    def __repr__(self) -> str:
        kind = type(self.responses).__name__ if not callable(self.responses) else "callable"
        return f"ScriptedBackend(model={self.model!r}, responses={kind}, calls={len(self.calls)})"
