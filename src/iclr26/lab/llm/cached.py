"""An on-disk cache in front of any backend, so repeated deterministic requests cost nothing.

One JSON file per entry, named by the SHA-256 of the canonical JSON of (backend identity, model, messages,
max_tokens, temperature, stop, seed), written atomically (temp file + ``os.replace``). JSON only: loading
the cache never executes anything, and an unreadable entry is treated as a miss and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from iclr26.lab.llm.base import ChatRequest, Completion, LLMBackend
from iclr26.lab.llm.redact import redact_tree

CACHE_FORMAT = "iclr26.llm-cache/1"
_COMPLETION_FIELDS = {f.name for f in fields(Completion)}


def request_key(backend: LLMBackend, request: ChatRequest) -> tuple[str, dict[str, Any]]:
    """The cache key of ``request`` sent to ``backend``: a SHA-256 hex digest and the material hashed."""
    material = {
        "format": CACHE_FORMAT,
        "backend": backend.identity,
        "model": backend.model,
        "messages": [m.to_dict() for m in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "stop": list(request.stop),
        "seed": request.seed,
    }
    canonical = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest(), material


def _completion_from_json(data: Any, key: str) -> Completion | None:
    """Rebuild a stored completion, or None when the entry is not one this version wrote."""
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("completion"), dict):
        return None
    stored = data["completion"]
    if not _COMPLETION_FIELDS.issuperset(stored) or not isinstance(stored.get("text"), str):
        return None
    try:
        completion = Completion(**stored)
    except TypeError:
        return None
    counts_ok = all(
        c is None or (isinstance(c, int) and c >= 0)
        for c in (completion.prompt_tokens, completion.completion_tokens)
    )
    raw_ok = completion.raw is None or isinstance(completion.raw, dict)
    logprobs_ok = completion.logprobs is None or isinstance(completion.logprobs, list)
    return completion if counts_ok and raw_ok and logprobs_ok else None


class CachedBackend(LLMBackend):
    """Serve deterministic requests from ``cache_dir``; forward everything else to ``backend``.

    A request is cached only when it is deterministic (``temperature == 0`` or a ``seed`` is given); sampled
    requests without a seed always reach the wrapped backend. The key includes ``backend.identity``, so
    two backends sharing a directory only share entries when they claim to be the same model.

    Parameters
    ----------
    backend : LLMBackend
        The backend to wrap.
    cache_dir : str or path
        Directory for the entries; created if missing.

    Attributes
    ----------
    hits, misses : int
        Deterministic requests served from disk / forwarded and stored.

    Examples
    --------
    >>> import tempfile
    >>> from iclr26.lab.llm import ScriptedBackend
    >>> inner = ScriptedBackend(["only once"])
    >>> llm = CachedBackend(inner, tempfile.mkdtemp())
    >>> [llm.complete("hi").text for _ in range(2)], len(inner.calls)
    (['only once', 'only once'], 1)
    """

    def __init__(self, backend: LLMBackend, cache_dir: str | os.PathLike[str]) -> None:
        if not isinstance(backend, LLMBackend):
            raise ValueError(f"backend must be an LLMBackend, got {type(backend).__name__}")
        self.backend = backend
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.hits = 0
        self.misses = 0

    @property
    def model(self) -> str:  # type: ignore[override]
        return self.backend.model

    @property
    def identity(self) -> str:
        return self.backend.identity

    def path_for(self, key: str) -> Path:
        """The file that holds (or would hold) the entry with this key."""
        return self.cache_dir / f"{key}.json"

    def _load(self, key: str) -> Completion | None:
        try:
            with open(self.path_for(key), encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None
        return _completion_from_json(data, key)

    def _store(self, key: str, material: dict[str, Any], completion: Completion) -> None:
        # Only what a cache hit returns; never the server's raw response (a server may echo credentials), and
        # any credential-shaped string in what remains is redacted.
        kept = asdict(completion) | {"raw": None}
        entry = redact_tree({"key": key, "request": material, "completion": kept})
        entry["key"] = key
        fd, tmp = tempfile.mkstemp(dir=self.cache_dir, prefix=f".{key[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False, indent=1)
            os.replace(tmp, self.path_for(key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _chat(self, request: ChatRequest) -> Completion:
        forward = {
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stop": list(request.stop),
            "seed": request.seed,
        }
        if not request.deterministic:
            return self.backend.chat(list(request.messages), **forward)
        key, material = request_key(self.backend, request)
        cached = self._load(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        completion = self.backend.chat(list(request.messages), **forward)
        self._store(key, material, completion)
        return completion

    def __repr__(self) -> str:
        return f"CachedBackend({self.backend!r}, cache_dir={str(self.cache_dir)!r})"
