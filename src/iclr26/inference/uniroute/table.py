"""A user-supplied routing table (EmbedLLM, RouterBench, SPROUT, ... exported to CSV) as :class:`RoutingData`.

Schema: one row per (prompt, LLM) evaluation, with the columns

=============  ============================================================================================
prompt_id      any string; rows with the same id are the same prompt
embedding      the prompt's embedding: a JSON list ``[0.1, -0.3, ...]`` or numbers separated by spaces,
               commas or semicolons (same length on every row) -- or, instead of it:
prompt_text    the prompt, embedded with `embedder` (default: :class:`TfidfSvdEmbedder` fitted on all prompts)
llm            the LLM's name
correct        1 if the LLM answered correctly, 0 if not (soft scores in [0, 1] allowed); or instead
error          1 - correct
cost           the cost of this query on this LLM (> 0); an LLM's cost c(h) is the mean over its rows
split          optional: ``train`` / ``val`` / ``test`` per prompt (``validation`` is read as ``val``)
=============  ============================================================================================

Every (prompt, LLM) pair must appear exactly once, and every LLM must have a row for every validation prompt
(``split == "val"``, or the ids in `val_prompt_ids`): UniRoute describes an LLM by its errors on S_val. Every
problem raises ``ValueError`` naming the column, the row or the LLM. Parquet files need ``pyarrow``.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from iclr26.inference.uniroute.embedders import TfidfSvdEmbedder
from iclr26.inference.uniroute.synthetic import RoutingData

__all__ = ["REQUIRED_COLUMNS", "load_routing_table", "save_routing_table"]

REQUIRED_COLUMNS = ("prompt_id", "llm", "cost")
_SPLITS = {"train": "train", "val": "val", "validation": "val", "test": "test"}


def _read_rows(path: Path) -> tuple[list[str], list[dict[str, Any]]]:
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            import pyarrow.parquet as pq
        except ImportError as err:
            raise ImportError(
                f"reading {path.name} needs pyarrow (pip install pyarrow), or export it to CSV"
            ) from err
        table = pq.read_table(path)
        return list(table.column_names), table.to_pylist()
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        columns = list(reader.fieldnames or [])
        return columns, list(reader)


def _number(value: Any, column: str, row: int, llm: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        out = float("nan")
    if not np.isfinite(out):
        raise ValueError(f"column {column!r} must be numeric: row {row} (llm {llm!r}) has {value!r}")
    return out


def _vector(value: Any, row: int) -> np.ndarray:
    if isinstance(value, (list, tuple, np.ndarray)):
        parts = list(value)
    else:
        text = str(value).strip()
        parts = json.loads(text) if text.startswith("[") else [p for p in re.split(r"[\s,;]+", text) if p]
    try:
        vec = np.array([float(p) for p in parts], dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"column 'embedding' must hold numbers: row {row} has {str(value)[:60]!r}") from err
    if vec.size == 0 or not np.all(np.isfinite(vec)):
        raise ValueError(f"column 'embedding' must hold finite numbers: row {row} has {str(value)[:60]!r}")
    return vec


def load_routing_table(
    path: str | os.PathLike[str],
    embedder: Callable[[list[str]], np.ndarray] | None = None,
    val_prompt_ids: Sequence[str] | None = None,
) -> RoutingData:
    """Read a routing table (CSV, or Parquet with pyarrow) into :class:`RoutingData`; see the module docstring.

    embedder : used when the table has ``prompt_text`` and no ``embedding``; default a TF-IDF + SVD embedder
        fitted on the table's prompts.
    val_prompt_ids : the prompts of S_val, when the table has no ``split`` column; every LLM must have a row
        for each of them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("prompt_id,embedding,llm,correct,cost,split\\n"
    ...                     "p1,0.0 1.0,a,1,2.0,val\\np1,0.0 1.0,b,0,1.0,val\\n"
    ...                     "p2,1.0 0.0,a,0,2.0,test\\np2,1.0 0.0,b,1,1.0,test\\n")
    >>> data = load_routing_table(path)
    >>> data.llm_names, data.errors.tolist(), data.costs.tolist(), data.split.tolist()
    (['a', 'b'], [[0.0, 1.0], [1.0, 0.0]], [2.0, 1.0], ['val', 'test'])
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file")
    columns, rows = _read_rows(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if "correct" not in columns and "error" not in columns:
        missing.append("correct (or error)")
    if "embedding" not in columns and "prompt_text" not in columns:
        missing.append("embedding (or prompt_text)")
    if missing:
        raise ValueError(
            f"routing table {path.name} lacks column(s) {', '.join(missing)}; required: prompt_id, llm, "
            "correct (or error), cost, and embedding or prompt_text (optional: split)"
        )
    if not rows:
        raise ValueError(f"routing table {path.name} has no rows")
    label = "correct" if "correct" in columns else "error"
    prompts: dict[str, int] = {}
    llms: dict[str, int] = {}
    first_row: list[dict[str, Any]] = []
    cells: dict[tuple[int, int], float] = {}
    cost_sum: dict[int, list[float]] = {}
    for r, row in enumerate(rows, start=2):  # row 1 is the header
        llm = str(row["llm"])
        pid = str(row["prompt_id"])
        if not llm or not pid:
            raise ValueError(f"row {r}: columns 'llm' and 'prompt_id' must not be empty")
        value = _number(row[label], label, r, llm)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"column {label!r} must lie in [0, 1]: row {r} (llm {llm!r}) has {row[label]!r}")
        cost = _number(row["cost"], "cost", r, llm)
        if cost <= 0:
            raise ValueError(f"column 'cost' must be > 0: row {r} (llm {llm!r}) has {row['cost']!r}")
        i = prompts.setdefault(pid, len(prompts))
        if i == len(first_row):
            first_row.append(row | {"_row": r})
        j = llms.setdefault(llm, len(llms))
        if (i, j) in cells:
            raise ValueError(f"row {r}: prompt {pid!r} appears twice for llm {llm!r}")
        cells[(i, j)] = value if label == "error" else 1.0 - value
        cost_sum.setdefault(j, []).append(cost)
    names = list(llms)
    split = _splits(first_row, columns, prompts, val_prompt_ids, path.name)
    errors = np.full((len(prompts), len(names)), np.nan)
    for (i, j), e in cells.items():
        errors[i, j] = e
    val = split == "val"
    if not val.any():
        raise ValueError(
            f"routing table {path.name} has no validation prompt (split == 'val'): S_val is empty"
        )
    for j, name in enumerate(names):
        have = ~np.isnan(errors[val, j])
        if not have.any():
            raise ValueError(
                f"llm {name!r} has no validation rows: UniRoute needs every LLM's errors on the "
                f"{int(val.sum())} validation prompts"
            )
        if not have.all():
            raise ValueError(
                f"llm {name!r} lacks validation rows for {int((~have).sum())} of {int(val.sum())} prompts"
            )
    for j, name in enumerate(names):
        lacking = int(np.isnan(errors[:, j]).sum())
        if lacking:
            raise ValueError(
                f"llm {name!r} has no row for {lacking} of {len(prompts)} prompts (the table must be complete)"
            )
    embeddings = _embeddings(first_row, columns, embedder)
    costs = np.array([np.mean(cost_sum[j]) for j in range(len(names))])
    return RoutingData(
        embeddings=embeddings,
        errors=errors,
        costs=costs,
        llm_names=names,
        prompt_ids=list(prompts),
        split=split,
        info={"source": str(path), "label": label},
    )


def _splits(
    first_row: list[dict[str, Any]],
    columns: list[str],
    prompts: dict[str, int],
    val_prompt_ids: Sequence[str] | None,
    name: str,
) -> np.ndarray:
    if val_prompt_ids is not None:
        unknown = [p for p in val_prompt_ids if str(p) not in prompts]
        if unknown:
            raise ValueError(f"val_prompt_ids has {len(unknown)} id(s) not in the table, e.g. {unknown[0]!r}")
        val = {str(p) for p in val_prompt_ids}
        return np.array(["val" if pid in val else "train" for pid in prompts], dtype=object)
    if "split" not in columns:
        raise ValueError(
            f"routing table {name} has no 'split' column: pass val_prompt_ids to say which prompts form S_val"
        )
    out = []
    for row in first_row:
        value = str(row["split"]).strip().lower()
        if value not in _SPLITS:
            raise ValueError(
                f"column 'split' must be train, val or test: row {row['_row']} has {row['split']!r}"
            )
        out.append(_SPLITS[value])
    return np.array(out, dtype=object)


def _embeddings(first_row: list[dict[str, Any]], columns: list[str], embedder: Any) -> np.ndarray:
    if "embedding" in columns:
        vecs = [_vector(row["embedding"], row["_row"]) for row in first_row]
        sizes = {v.size for v in vecs}
        if len(sizes) > 1:
            raise ValueError(
                f"column 'embedding' must have the same length on every row, found lengths {sorted(sizes)}"
            )
        return np.vstack(vecs)
    texts = [str(row["prompt_text"]) for row in first_row]
    if embedder is None:
        embedder = TfidfSvdEmbedder(n_components=64).fit(texts)
    return np.asarray(embedder(texts), dtype=float)


def save_routing_table(
    data: RoutingData, path: str | os.PathLike[str], split: Sequence[str] | None = None
) -> None:
    """Write `data` as a CSV routing table (embedding column, ``correct = 1 - error``, per-LLM cost).

    split : a ``train`` / ``val`` / ``test`` label per prompt; default ``data.split`` (the column is omitted when
        both are None).
    """
    if not isinstance(data, RoutingData):
        raise TypeError(f"data must be a RoutingData, got {type(data).__name__}")
    labels = split if split is not None else data.split
    ids = data.prompt_ids or [f"p{i}" for i in range(data.n_prompts)]
    columns = ["prompt_id", "embedding", "llm", "correct", "cost"] + (["split"] if labels is not None else [])
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for i, pid in enumerate(ids):
            emb = " ".join(repr(float(v)) for v in data.embeddings[i])
            for j, name in enumerate(data.llm_names):
                row = [pid, emb, name, repr(1.0 - float(data.errors[i, j])), repr(float(data.costs[j]))]
                writer.writerow(row + ([labels[i]] if labels is not None else []))
