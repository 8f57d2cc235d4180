"""The on-disk cache of trained tiny LMs, keyed by config hash and written atomically."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as hf_logging

from iclr26.harness.provenance import note_cache_use
from iclr26.lab.cache import cache_root
from iclr26.lab.tinylm.config import FORMAT_VERSION, TinyLMConfig, config_hash
from iclr26.lab.tinylm.training import Progress, TrainedLM, train_tiny_lm

__all__ = ["TinyLMCacheError", "cache_path", "load_or_train"]


class TinyLMCacheError(RuntimeError):
    """A cache entry exists but cannot be loaded; the message names the directory to delete."""


def cache_path(cfg: TinyLMConfig, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The directory ``<cache>/tinylm/<config_hash>`` where the model for ``cfg`` is cached.

    ``<cache>`` is ``cache_dir``, else the ``ICLR26_CACHE`` environment variable, else
    ``platformdirs.user_cache_dir("iclr26")``.

    Example
    -------
    >>> cache_path(TinyLMConfig(), "cache").parent.as_posix()
    'cache/tinylm'
    """
    return cache_root(cache_dir) / "tinylm" / config_hash(cfg)


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """Silence transformers' save/load progress bars (progress belongs to the harness), then restore."""
    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()


def _load(path: Path, cfg: TinyLMConfig) -> TrainedLM:
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_VERSION or meta.get("config") != dataclasses.asdict(cfg):
            raise ValueError("meta.json does not match this config and format version")
        with _no_progress_bars():
            model = AutoModelForCausalLM.from_pretrained(path)
            tokenizer = AutoTokenizer.from_pretrained(path)
    except Exception as exc:  # any failure means the same thing to the caller: this entry is unusable
        raise TinyLMCacheError(
            f"cache entry {path} cannot be loaded ({type(exc).__name__}: {exc}); delete it to retrain"
        ) from exc
    model.eval()
    history = [(int(step), float(loss)) for step, loss in meta["history"]]
    return TrainedLM(model, tokenizer, cfg, history, float(meta["val_loss"]), meta["train_seconds"], path)


def load_or_train(
    cfg: TinyLMConfig,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> TrainedLM:
    """Load the cached model for ``cfg``, or train it with :func:`train_tiny_lm` and cache it atomically.

    The entry is saved into a hidden temporary directory next to :func:`cache_path` and renamed into
    place only when complete; leftover temporary directories are ignored. If another process renamed its
    entry into place first, that entry is kept and this result is returned (both are identical up to the
    CPU's arithmetic). A final directory that fails to load raises :class:`TinyLMCacheError` (no silent
    retraining).

    Parameters
    ----------
    cfg : TinyLMConfig
    cache_dir : path or None
        Cache root; see :func:`cache_path`.
    progress : callable or None
        Passed to :func:`train_tiny_lm` when training is needed.

    Returns
    -------
    TrainedLM
        With ``path`` set to the cache entry.

    Example
    -------
    >>> import tempfile
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG
    >>> cfg = SMOKE_CONFIG
    >>> with tempfile.TemporaryDirectory() as root:
    ...     first = load_or_train(cfg, root)
    ...     again = load_or_train(cfg, root)  # loaded, not retrained
    >>> again.history == first.history
    True
    """
    final = cache_path(cfg, cache_dir)
    if final.is_dir():
        note_cache_use("tinylm", final.name, loaded=True)
        return _load(final, cfg)
    note_cache_use("tinylm", final.name, loaded=False)
    trained = train_tiny_lm(cfg, progress)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=final.parent))
    try:
        with _no_progress_bars():
            trained.model.save_pretrained(temporary)
            trained.tokenizer.save_pretrained(temporary)
        meta = {
            "format": FORMAT_VERSION,
            "config": dataclasses.asdict(cfg),
            "history": trained.history,
            "val_loss": trained.val_loss,
            "train_seconds": trained.train_seconds,
        }
        (temporary / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        try:
            os.replace(temporary, final)
        except OSError:
            if not final.is_dir():  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    trained.path = final
    return trained
