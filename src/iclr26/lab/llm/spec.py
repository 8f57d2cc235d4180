"""Turn a user's ``--llm`` string into a backend."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import Any

from iclr26.lab.llm.base import LLMBackend
from iclr26.lab.llm.cached import CachedBackend
from iclr26.lab.llm.openai_compatible import OpenAICompatibleBackend
from iclr26.lab.llm.scripted import ScriptedBackend, echo_last_user_message

ACCEPTED_SPECS = (
    "'scripted' (offline echo backend)",
    "'http://host:port/v1@model-name' or 'https://host/v1@model-name' (OpenAI-compatible server)",
    "'hf:/path/to/local/model' (local Hugging Face model directory)",
)


def _bad_spec(spec: object, why: str) -> ValueError:
    return ValueError(f"--llm spec {spec!r} {why}; accepted forms: {'; '.join(ACCEPTED_SPECS)}")


def _load_local_hf(directory: str, **kw: Any) -> LLMBackend:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from iclr26.lab.llm.transformers_backend import TransformersBackend

    model = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    return TransformersBackend(model, tokenizer, name=kw.pop("name", None) or directory, **kw)


def make_backend(spec: str, *, cache_dir: str | os.PathLike[str] | None = None, **kw: Any) -> LLMBackend:
    """Build the backend a ``--llm`` string names.

    Parameters
    ----------
    spec : str
        * ``"scripted"``: :class:`ScriptedBackend` that echoes the last user message (or replies from
          ``responses=...`` when given in ``kw``).
        * ``"http://host:port/v1@model-name"`` or ``"https://host/v1@model-name"``:
          :class:`OpenAICompatibleBackend` for that API root and model (the text after the last ``@``).
        * ``"hf:/path/to/dir"``: a :class:`TransformersBackend` loaded with ``from_pretrained`` from a local
          directory only (nothing is downloaded).
    cache_dir : str or path, optional
        When given, wrap the backend in a :class:`CachedBackend` stored there.
    **kw
        Passed to the backend's constructor (``api_key``, ``timeout``, ``max_retries`` for HTTP; ``device``,
        ``name`` for ``hf:``; ``responses``, ``cycle``, ``default`` for ``scripted``).

    Examples
    --------
    >>> make_backend("scripted").complete("ping").text
    'ping'
    >>> make_backend("http://127.0.0.1:8000/v1@llama3:8b").model
    'llama3:8b'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _bad_spec(spec, "is empty or not a str")
    spec = spec.strip()
    backend: LLMBackend
    if spec == "scripted":
        backend = ScriptedBackend(kw.pop("responses", echo_last_user_message), **kw)
    elif spec.startswith(("http://", "https://")):
        base_url, at, model = spec.rpartition("@")
        if not at or not model:
            raise _bad_spec(spec, "has no '@model-name' after the URL")
        parts = urllib.parse.urlsplit(base_url)
        if not parts.hostname:
            raise _bad_spec(spec, "has no host before '@model-name'")
        if parts.username or parts.password:
            raise _bad_spec(spec, "embeds credentials; pass api_key or set OPENAI_API_KEY instead")
        backend = OpenAICompatibleBackend(base_url, model, **kw)
    elif spec.startswith("hf:"):
        directory = os.path.expanduser(spec[3:])
        if not directory or not Path(directory).is_dir():
            raise _bad_spec(spec, f"does not name an existing local directory ({directory!r})")
        backend = _load_local_hf(directory, **kw)
    else:
        raise _bad_spec(spec, "is not recognised")
    return CachedBackend(backend, cache_dir) if cache_dir is not None else backend
