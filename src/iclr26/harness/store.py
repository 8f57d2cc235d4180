"""The results store: one JSON file per (slug, budget, seed), written atomically, never unpickled.

Layout: ``<root>/<slug>/<budget>/seed_<seed>.json``. A write goes to a temporary file in the same folder,
is flushed to disk, then renamed over the target, so a reader sees either the old file or the new one and
a killed run never leaves half a file. Verdicts are not stored: the report recomputes them from the seeds.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclr26.harness.budget import BUDGETS, check_budget

__all__ = ["CorruptResultError", "LoadedResults", "ResultStore", "SeedResult", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1
DEFAULT_ROOT = "iclr26-results"
_REQUIRED = ("slug", "budget", "seed", "config", "metrics", "curves", "wall_s", "provenance")
_SEED_FILE = re.compile(r"^seed_(\d+)\.json$")


class CorruptResultError(ValueError):
    """A results file that cannot be read; names the file and the problem."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"corrupt results file {path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class SeedResult:
    """One stored seed of one experiment at one budget."""

    slug: str
    budget: str
    seed: int
    config: dict[str, Any]
    metrics: dict[str, float]
    curves: dict[str, dict[str, Any]]
    artifacts: dict[str, Any]
    wall_s: float
    peak_rss_mb: float | None
    provenance: dict[str, Any]
    path: Path | None = None

    @classmethod
    def from_record(cls, record: dict[str, Any], path: Path | None = None) -> SeedResult:
        return cls(
            slug=record["slug"],
            budget=record["budget"],
            seed=int(record["seed"]),
            config=record["config"],
            metrics=record["metrics"],
            curves=record.get("curves", {}),
            artifacts=record.get("artifacts", {}),
            wall_s=float(record["wall_s"]),
            peak_rss_mb=record.get("peak_rss_mb"),
            provenance=record["provenance"],
            path=path,
        )


@dataclass
class LoadedResults:
    """The readable seeds of one (slug, budget), and the files that could not be read."""

    results: list[SeedResult] = field(default_factory=list)
    errors: list[CorruptResultError] = field(default_factory=list)


def _validate(record: Any, path: Path) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise CorruptResultError(path, f"expected a JSON object, found {type(record).__name__}")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise CorruptResultError(path, f"missing field(s) {', '.join(missing)}")
    if not isinstance(record["metrics"], dict):
        raise CorruptResultError(path, "field 'metrics' is not an object")
    bad = [k for k, v in record["metrics"].items() if not isinstance(v, (int, float)) or isinstance(v, bool)]
    if bad:
        raise CorruptResultError(path, f"non-numeric metric(s) {', '.join(bad)}")
    return record


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; results are ordinary files
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ResultStore:
    """Results on disk under `root` (default ``./iclr26-results``)."""

    def __init__(self, root: str | os.PathLike[str] = DEFAULT_ROOT) -> None:
        self.root = Path(root)

    def path(self, slug: str, budget: str, seed: int) -> Path:
        check_budget(budget)
        if seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
        return self.root / slug / budget / f"seed_{seed:03d}.json"

    def write(self, record: dict[str, Any]) -> Path:
        """Validate and atomically write one seed's record; returns its path."""
        record = {"schema": SCHEMA_VERSION, **record}
        path = self.path(record["slug"], record["budget"], int(record["seed"]))
        _validate(record, path)
        atomic_write_text(path, json.dumps(record, indent=1, sort_keys=False) + "\n")
        return path

    def read(self, slug: str, budget: str, seed: int) -> SeedResult | None:
        """The stored seed, None when absent; raises :class:`CorruptResultError` when unreadable."""
        path = self.path(slug, budget, seed)
        if not path.exists():
            return None
        return self._read_path(path)

    @staticmethod
    def _read_path(path: Path) -> SeedResult:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CorruptResultError(path, f"not valid JSON ({err})") from err
        try:
            return SeedResult.from_record(_validate(record, path), path)
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, CorruptResultError):
                raise
            raise CorruptResultError(path, f"unexpected content ({err})") from err

    def load(self, slug: str, budget: str) -> LoadedResults:
        """Every readable seed of (slug, budget) in seed order; unreadable files are collected, not raised."""
        out = LoadedResults()
        folder = self.root / slug / check_budget(budget)
        if not folder.is_dir():
            return out
        for path in sorted(folder.iterdir()):
            if not _SEED_FILE.match(path.name):
                continue
            try:
                out.results.append(self._read_path(path))
            except CorruptResultError as err:
                out.errors.append(err)
        out.results.sort(key=lambda r: r.seed)
        return out

    def slugs(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def budgets(self, slug: str) -> list[str]:
        return [b for b in BUDGETS if (self.root / slug / b).is_dir()]

    def iter_all(self) -> Iterator[tuple[str, str, LoadedResults]]:
        for slug in self.slugs():
            for budget in self.budgets(slug):
                yield slug, budget, self.load(slug, budget)
