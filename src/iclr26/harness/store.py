"""The results store: one JSON file per (slug, budget, seed), written atomically, never unpickled.

Layout: ``<root>/<slug>/<budget>/seed_<seed>.json``. A write goes to a temporary file in the same folder,
is flushed to disk, then renamed over the target, so a reader sees either the old file or the new one and
a killed run never leaves half a file (a killed writer's temporary file is removed by the next run). Verdicts
are not stored: the report recomputes them from the seeds.

Reading is defensive: every file is validated against a pydantic schema (:class:`SeedRecord`), its slug, budget
and seed must match where it lies, and a seed is keyed by its content, so ``seed_0.json`` beside
``seed_000.json`` is one seed, not two. Whatever is excluded is reported with the reason, never silently used.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from iclr26.harness.budget import BUDGETS, check_budget

__all__ = [
    "CorruptResultError",
    "LoadedResults",
    "ResultStore",
    "SeedResult",
    "SCHEMA_VERSION",
    "validate_record",
]

SCHEMA_VERSION = 1
DEFAULT_ROOT = "iclr26-results"
_SEED_FILE = re.compile(r"^seed_(\d+)\.json$")
_TEMP_FILE = re.compile(r"^\.seed_\d+\.json\.(\d+)\.[^.]+\.tmp$")
MAX_FILE_BYTES = 64 * 2**20


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


@lru_cache(maxsize=1)
def _schema() -> Any:
    """The pydantic model of a results file, built on first use (pydantic is not needed at CLI start-up)."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

    number = StrictFloat | StrictInt

    class SeedRecord(BaseModel):
        model_config = ConfigDict(extra="allow")

        schema_: Literal[1] = Field(default=SCHEMA_VERSION, alias="schema")
        slug: str = Field(min_length=1, max_length=200)
        budget: Literal["smoke", "quick", "full"]
        seed: StrictInt = Field(ge=0, le=10**9)
        config: dict[str, Any]
        metrics: dict[str, number]
        curves: dict[str, dict[str, Any]]
        artifacts: dict[str, Any] = Field(default_factory=dict)
        wall_s: number = Field(ge=0)
        peak_rss_mb: number | None = None
        peak_cuda_mb: number | None = None
        provenance: dict[str, Any]

    return SeedRecord


def validate_record(record: Any, path: Path) -> dict[str, Any]:
    """Check `record` against the results schema; raise :class:`CorruptResultError` naming the first problems."""
    from pydantic import ValidationError

    if not isinstance(record, dict):
        raise CorruptResultError(path, f"expected a JSON object, found {type(record).__name__}")
    try:
        _schema().model_validate(record)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in e['loc']) or 'record'}: {e['msg']}" for e in err.errors()[:3]
        )
        raise CorruptResultError(path, problems) from None
    return record


_validate = validate_record


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
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


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists (another user's) or cannot tell: leave the file alone
    return True


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
        if not path.is_file():
            raise CorruptResultError(path, "not a regular file")
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise CorruptResultError(path, f"larger than {MAX_FILE_BYTES // 2**20} MiB")
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
            reason = "nested too deeply" if isinstance(err, RecursionError) else str(err)
            raise CorruptResultError(path, f"not valid JSON ({reason})") from None
        try:
            return SeedResult.from_record(validate_record(record, path), path)
        except (KeyError, TypeError, ValueError, RecursionError) as err:
            if isinstance(err, CorruptResultError):
                raise
            raise CorruptResultError(path, f"unexpected content ({type(err).__name__})") from None

    def load(self, slug: str, budget: str) -> LoadedResults:
        """Every valid seed of (slug, budget) in seed order, one per seed; excluded files are collected with
        the reason (unreadable, invalid, in the wrong folder, a second file for a seed), never raised."""
        out = LoadedResults()
        folder = self.root / slug / check_budget(budget)
        if not folder.is_dir():
            return out
        by_seed: dict[int, SeedResult] = {}
        for path in sorted(folder.iterdir()):
            match = _SEED_FILE.match(path.name)
            if not match:
                continue
            try:
                result = self._read_path(path)
                if (result.slug, result.budget) != (slug, budget):
                    raise CorruptResultError(
                        path,
                        f"holds {result.slug}/{result.budget}, but lies in the folder of {slug}/{budget}",
                    )
                if result.seed != int(match.group(1)):
                    raise CorruptResultError(
                        path, f"holds seed {result.seed}, but its name says {match.group(1)}"
                    )
                if result.seed in by_seed:
                    canonical = self.path(slug, budget, result.seed)
                    keep, drop = (
                        (result, by_seed[result.seed])
                        if path == canonical
                        else (by_seed[result.seed], result)
                    )
                    by_seed[result.seed] = keep
                    raise CorruptResultError(
                        drop.path or path, f"a second file for seed {result.seed}; {keep.path} is used"
                    )
                by_seed[result.seed] = result
            except CorruptResultError as err:
                out.errors.append(err)
        out.results = [by_seed[k] for k in sorted(by_seed)]
        return out

    def clean_stale_temp(self, slug: str, budget: str) -> list[Path]:
        """Remove temporary files left by killed writers (their process is gone); returns what was removed."""
        folder = self.root / slug / check_budget(budget)
        removed = []
        if not folder.is_dir():
            return removed
        for path in folder.iterdir():
            match = _TEMP_FILE.match(path.name)
            if match and not _pid_alive(int(match.group(1))):
                path.unlink(missing_ok=True)
                removed.append(path)
        return removed

    def slugs(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def budgets(self, slug: str) -> list[str]:
        return [b for b in BUDGETS if (self.root / slug / b).is_dir()]
