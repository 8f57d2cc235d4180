"""One on-disk cache for what reproductions train once and reuse: a root, config keys, atomic saves.

Everything trained offline (a denoiser, a teacher and its distillation set, a tiny GPT) is stored under

    <root>/<namespace>/<config key>.pt

where ``<root>`` is the ``cache_dir`` argument, else ``$ICLR26_CACHE``, else ``platformdirs.user_cache_dir("iclr26")``
(:func:`cache_root`), and the key is a hash of the config that determines the artifact (:func:`config_key`). Files
are written to a temporary sibling and renamed into place (:func:`atomic_torch_save`), so a crashed or concurrent
writer never leaves a half file under the final name; an entry that exists but cannot be read raises
:class:`CacheEntryError` naming the file (no silent retraining). :func:`cached_torch` is the load-or-build step;
it builds on :data:`BUILD_THREADS` CPU threads whatever the caller's setting, because float reductions depend on
the thread count: an entry trained under ``--jobs 1`` would otherwise differ from one trained under ``--jobs 2``,
and every result computed from it would differ with it (``iclr26 verify`` would not agree with the shipped seeds).

Example
-------
>>> import tempfile, torch
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Cfg:
...     width: int = 4
>>> with tempfile.TemporaryDirectory() as root:
...     first = cached_torch("demo", Cfg(), lambda: {"w": torch.ones(Cfg().width)}, cache_dir=root)
...     again = cached_torch("demo", Cfg(), lambda: 1 / 0, cache_dir=root)  # loaded, not rebuilt
>>> torch.equal(first["w"], again["w"])
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import platformdirs
import torch

from iclr26.harness.provenance import note_cache_use
from iclr26.harness.threads import limited_threads

__all__ = [
    "BUILD_THREADS",
    "CacheEntryError",
    "atomic_torch_save",
    "cache_file",
    "cache_root",
    "cached_torch",
    "config_key",
]

BUILD_THREADS = 1
"""CPU threads every cached artifact is built on (the harness's default per seed, so a cache entry built inside a
seed and one built outside it are the same)."""

T = TypeVar("T")


class CacheEntryError(RuntimeError):
    """A cache entry exists but cannot be loaded; the message names the file to delete."""


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``cache_dir``, else ``$ICLR26_CACHE``, else ``platformdirs.user_cache_dir("iclr26")``."""
    root = cache_dir if cache_dir is not None else os.environ.get("ICLR26_CACHE")
    return Path(root or platformdirs.user_cache_dir("iclr26"))


def config_key(config: object, version: int = 1) -> str:
    """16 hex digits of SHA-256 over the sorted JSON of ``config`` (a dataclass or a mapping) and ``version``.

    Bump ``version`` when the code that builds the artifact changes, so old entries are not reused.

    >>> config_key({"a": 1, "b": [2, 3]}) == config_key({"b": [2, 3], "a": 1})
    True
    """
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        fields = dataclasses.asdict(config)
    elif isinstance(config, Mapping):
        fields = dict(config)
    else:
        raise TypeError(f"config must be a dataclass instance or a mapping, got {type(config).__name__}")
    text = json.dumps({"version": version, "config": fields}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_file(
    namespace: str, config: object, cache_dir: str | os.PathLike[str] | None = None, version: int = 1
) -> Path:
    """``<root>/<namespace>/<config key>.pt``."""
    if not isinstance(namespace, str) or not namespace or "/" in namespace or namespace.startswith("."):
        raise ValueError(f"namespace must be a plain folder name, got {namespace!r}")
    return cache_root(cache_dir) / namespace / f"{config_key(config, version)}.pt"


def atomic_torch_save(obj: object, path: str | os.PathLike[str]) -> None:
    """``torch.save`` into a temporary file next to ``path``, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def cached_torch(
    namespace: str,
    config: object,
    build: Callable[[], T],
    *,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    version: int = 1,
) -> T | Any:
    """Load the entry for ``config`` (tensors and plain containers, ``weights_only``), or ``build()`` and store it.

    ``build()`` runs on :data:`BUILD_THREADS` torch and BLAS threads (so the entry is the same bit for bit whatever
    thread count the caller runs on). ``cache=False`` always builds (the same way) and stores nothing. The built object must be loadable with
    ``torch.load(weights_only=True)``: tensors, state dicts, lists, dicts, numbers, strings.
    """
    if not cache:
        return _build(build)
    path = cache_file(namespace, config, cache_dir, version)
    if path.exists():
        note_cache_use(namespace, path.stem, loaded=True)
        try:
            return torch.load(path, weights_only=True)
        except Exception as exc:  # any failure means the same thing to the caller: this entry is unusable
            raise CacheEntryError(
                f"cache entry {path} cannot be loaded ({type(exc).__name__}: {exc}); delete it to rebuild"
            ) from exc
    note_cache_use(namespace, path.stem, loaded=False)
    obj = _build(build)
    atomic_torch_save(obj, path)
    return obj


def _build(build: Callable[[], T]) -> T:
    with limited_threads(BUILD_THREADS, blas=True):
        return build()
