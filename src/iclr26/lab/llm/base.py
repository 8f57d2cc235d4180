"""The chat-backend contract: messages in, a completion out, with the arguments checked in one place.

Every backend subclasses :class:`LLMBackend` and implements ``_chat``; the public :meth:`LLMBackend.chat`
validates the arguments, normalises them into a :class:`ChatRequest`, calls ``_chat`` and stamps the
wall-clock latency on the result. Code that consumes an LLM (agents, judges, self-refinement loops) depends
only on this module, so a scripted, cached, local or remote backend can be swapped in without change.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from iclr26.checks import check_choice, check_float, check_int

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")


class LLMError(RuntimeError):
    """A backend could not produce a completion (HTTP error, unreachable server, exhausted script ...).

    Attributes
    ----------
    status : int or None
        The HTTP status code when the failure came from a server response, else None.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Message:
    """One chat turn.

    Examples
    --------
    >>> Message("user", "What is 2 + 2?")
    Message(role='user', content='What is 2 + 2?')
    """

    role: str
    content: str

    def __post_init__(self) -> None:
        check_choice("message role", self.role, ROLES)
        if not isinstance(self.content, str):
            raise ValueError(f"message content must be a str, got {type(self.content).__name__}")

    def to_dict(self) -> dict[str, str]:
        """The OpenAI / Hugging Face chat-template form ``{"role": ..., "content": ...}``."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Completion:
    """What a backend returns for one request.

    Attributes
    ----------
    text : str
        The generated reply, already cut at the first stop string.
    prompt_tokens, completion_tokens : int or None
        Token counts as the backend reports them; None when unknown.
    model : str
        The model that answered.
    raw : dict or None
        The backend's raw JSON-compatible response, when there is one.
    latency_s : float
        Wall-clock seconds the request took (near zero for a cache hit).
    logprobs : list of float or None
        Log-probability of each generated token, when the backend can give them.
    finish_reason : str or None
        ``"stop"`` (end-of-sequence token or stop string), ``"length"`` (``max_tokens`` reached) or the
        server's own value; None when unknown.
    """

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str = ""
    raw: dict[str, Any] | None = None
    latency_s: float = 0.0
    logprobs: list[float] | None = None
    finish_reason: str | None = None


@dataclass(frozen=True)
class ChatRequest:
    """A validated request, as passed to ``LLMBackend._chat`` and recorded by scripted backends."""

    messages: tuple[Message, ...]
    max_tokens: int = 256
    temperature: float = 0.0
    stop: tuple[str, ...] = field(default_factory=tuple)
    seed: int | None = None

    @property
    def deterministic(self) -> bool:
        """True when the same request must give the same reply: greedy, or sampling with a fixed seed."""
        return self.temperature == 0.0 or self.seed is not None

    @property
    def last_user_message(self) -> str:
        """Content of the last ``user`` message, or ``""`` when there is none."""
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")


def as_message(message: Message | Mapping[str, str]) -> Message:
    """Accept a :class:`Message` or an OpenAI-style ``{"role": ..., "content": ...}`` mapping."""
    if isinstance(message, Message):
        return message
    if isinstance(message, Mapping) and "role" in message and "content" in message:
        return Message(message["role"], message["content"])
    raise ValueError(f"messages must hold Message objects or {{'role', 'content'}} dicts, got {message!r}")


def make_request(
    messages: Sequence[Message | Mapping[str, str]],
    *,
    max_tokens: int = 256,
    temperature: float = 0.0,
    stop: str | Sequence[str] | None = None,
    seed: int | None = None,
) -> ChatRequest:
    """Validate the arguments of a chat call; each error names the argument and the accepted range."""
    if isinstance(messages, (str, Mapping, Message)) or not isinstance(messages, Sequence):
        raise ValueError(f"messages must be a non-empty sequence of messages, got {type(messages).__name__}")
    if len(messages) == 0:
        raise ValueError("messages must be non-empty")
    msgs = tuple(as_message(m) for m in messages)
    check_int("max_tokens", max_tokens, low=1)
    temperature = check_float("temperature", temperature, low=0.0)
    stops = (stop,) if isinstance(stop, str) else tuple(stop or ())
    if any(not isinstance(s, str) or s == "" for s in stops):
        raise ValueError(f"stop must be a non-empty str or a sequence of non-empty str, got {stop!r}")
    if seed is not None:
        check_int("seed (or None)", seed, low=0)
    return ChatRequest(msgs, max_tokens, float(temperature), stops, seed)


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut ``text`` before the earliest occurrence of any stop string; also say whether one was found.

    Examples
    --------
    >>> truncate_at_stop("a b\\nc", ["\\n"])
    ('a b', True)
    """
    cuts = [i for i in (text.find(s) for s in stop) if i >= 0]
    return (text[: min(cuts)], True) if cuts else (text, False)


class LLMBackend(ABC):
    """A chat model behind a uniform interface.

    Subclasses set :attr:`model` and implement ``_chat(request) -> Completion``; :meth:`chat` and
    :meth:`complete` are shared. :attr:`identity` names the backend for cache keys and must differ
    between backends that could answer the same request differently.

    Examples
    --------
    >>> from iclr26.lab.llm import ScriptedBackend
    >>> llm = ScriptedBackend(["4"])
    >>> llm.chat([Message("user", "What is 2 + 2?")]).text
    '4'
    """

    model: str = ""

    @property
    def identity(self) -> str:
        """A stable description of where completions come from (backend kind and endpoint, no secrets)."""
        return type(self).__name__

    @abstractmethod
    def _chat(self, request: ChatRequest) -> Completion:
        """Answer one validated request."""

    def chat(
        self,
        messages: Sequence[Message | Mapping[str, str]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: str | Sequence[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        """Reply to a conversation.

        Parameters
        ----------
        messages : sequence of Message or {"role", "content"} dicts
            The conversation so far; roles are ``system``, ``user``, ``assistant`` or ``tool``.
        max_tokens : int
            Upper bound on generated tokens (>= 1).
        temperature : float
            0 for greedy decoding, > 0 for sampling.
        stop : str or sequence of str, optional
            The reply is cut before the first occurrence of any of these.
        seed : int, optional
            Makes sampling reproducible where the backend supports it.
        """
        request = make_request(messages, max_tokens=max_tokens, temperature=temperature, stop=stop, seed=seed)
        start = time.perf_counter()
        completion = self._chat(request)
        return replace(completion, latency_s=time.perf_counter() - start)

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: str | Sequence[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        """Reply to a single user message ``prompt``; same keyword arguments as :meth:`chat`."""
        if not isinstance(prompt, str):
            raise ValueError(f"prompt must be a str, got {type(prompt).__name__}")
        messages = [Message("user", prompt)]
        return self.chat(messages, max_tokens=max_tokens, temperature=temperature, stop=stop, seed=seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"
