"""Pluggable chat backends for the agent and LLM papers: one interface, offline by default.

Code that needs an LLM takes an :class:`LLMBackend` and calls ``chat(messages, ...)`` or
``complete(prompt, ...)``, getting a :class:`Completion` back. Which model answers is the user's choice,
usually through a ``--llm`` string parsed by :func:`make_backend`:

* :class:`ScriptedBackend` (``"scripted"``): replies written in advance; the tested offline default.
* :class:`OpenAICompatibleBackend` (``"http://host:port/v1@model"``): any OpenAI-compatible server, with
  the standard library only.
* :class:`TransformersBackend` (``"hf:/local/dir"``): a local Hugging Face causal LM.
* :class:`CachedBackend`: a JSON on-disk cache in front of any of them, for deterministic requests.

Examples
--------
>>> from iclr26.lab.llm import Message, make_backend
>>> llm = make_backend("scripted", responses={"2 + 2": "4"})
>>> llm.chat([Message("system", "Be brief."), Message("user", "What is 2 + 2?")]).text
'4'
"""

from iclr26.lab.llm.base import (
    ROLES,
    ChatRequest,
    Completion,
    LLMBackend,
    LLMError,
    Message,
    truncate_at_stop,
)
from iclr26.lab.llm.cached import CachedBackend
from iclr26.lab.llm.openai_compatible import OpenAICompatibleBackend
from iclr26.lab.llm.scripted import ScriptedBackend, echo_last_user_message
from iclr26.lab.llm.spec import ACCEPTED_SPECS, make_backend
from iclr26.lab.llm.transformers_backend import TransformersBackend, transcript

__all__ = [
    "ACCEPTED_SPECS",
    "ROLES",
    "CachedBackend",
    "ChatRequest",
    "Completion",
    "LLMBackend",
    "LLMError",
    "Message",
    "OpenAICompatibleBackend",
    "ScriptedBackend",
    "TransformersBackend",
    "echo_last_user_message",
    "make_backend",
    "transcript",
    "truncate_at_stop",
]
