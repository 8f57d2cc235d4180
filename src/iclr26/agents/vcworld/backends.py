"""The brief's backend names (OpenAI-compatible, HF local) on top of the lab's LLM backends (iclr26.lab.llm)."""

from __future__ import annotations

from iclr26.lab.llm import LLMBackend, OpenAICompatibleBackend, make_backend

__all__ = ["HFLocalBackend", "OpenAIChatBackend"]


def OpenAIChatBackend(base_url: str, model: str, api_key: str | None = None, **kw) -> LLMBackend:  # noqa: N802
    """An OpenAI-compatible chat server (vLLM, ollama, OpenAI): the lab's OpenAICompatibleBackend."""
    return OpenAICompatibleBackend(base_url, model, api_key=api_key, **kw)


def HFLocalBackend(model_dir: str, **kw) -> LLMBackend:  # noqa: N802
    """A local Hugging Face model directory (nothing is downloaded)."""
    return make_backend("hf:" + str(model_dir), **kw)
