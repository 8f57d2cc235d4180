"""Reference results: the project's own quick-budget seeds, shipped in the package and produced by the code as is.

``iclr26 report`` shows them beside the user's results, the README's catalog table is generated from them
(:func:`catalog_table`, ``python -m iclr26.harness.reference``), and ``iclr26 verify`` reruns them.
They live in ``iclr26/reference_results/<slug>/quick/seed_<seed>.json``: the store's own layout and schema, with
long curves thinned to at most :data:`MAX_CURVE_POINTS` points, the floats only figures read (curves, artifacts)
rounded to :data:`FIGURE_DIGITS` significant digits, in compact JSON (:func:`shrink_record`); metrics are never touched.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iclr26.catalog import load_catalog
from iclr26.harness.claims import Outcome
from iclr26.harness.store import ResultStore, SeedResult, atomic_write_text

__all__ = [
    "MAX_CURVE_POINTS",
    "REFERENCE_BUDGET",
    "ReferencePaper",
    "catalog_table",
    "reference_papers",
    "reference_root",
    "reference_stamp",
    "reference_store",
    "compact_json",
    "shrink_record",
    "thin_curves",
    "write_readme_table",
]

REFERENCE_BUDGET = "quick"
MAX_CURVE_POINTS = 200
BEGIN, END = "<!-- catalog:begin -->", "<!-- catalog:end -->"
_MARK = {
    "supported": "✅",
    "not supported": "❌",
    "inconclusive": "❔",
    "not reproduced": "🚧",
    "not judged": "·",
}


def reference_root() -> Path:
    return Path(__file__).resolve().parents[1] / "reference_results"


def reference_store(root: str | Path | None = None) -> ResultStore:
    return ResultStore(reference_root() if root is None else root)


def thin_curves(record: dict[str, Any], max_points: int = MAX_CURVE_POINTS) -> dict[str, Any]:
    """The record with every curve longer than `max_points` thinned evenly (first and last points kept)."""
    curves = {}
    for name, c in record.get("curves", {}).items():
        n = len(c.get("x", []))
        if n > max_points:
            idx = sorted({round(i * (n - 1) / (max_points - 1)) for i in range(max_points)})
            c = {**c, "x": [c["x"][i] for i in idx], "y": [c["y"][i] for i in idx], "thinned_from": n}
        curves[name] = c
    return {**record, "curves": curves}


FIGURE_DIGITS = 6


def _round_floats(obj: Any, digits: int) -> Any:
    if isinstance(obj, float):
        return float(f"{obj:.{digits}g}") if math.isfinite(obj) else obj
    if isinstance(obj, list):
        return [_round_floats(v, digits) for v in obj]
    if isinstance(obj, dict):
        return {k: _round_floats(v, digits) for k, v in obj.items()}
    return obj


def shrink_record(record: dict[str, Any], digits: int = FIGURE_DIGITS) -> dict[str, Any]:
    """What a shipped reference seed stores: curves thinned (:func:`thin_curves`) and the floats of curves and
    artifacts, which only figures read, rounded to `digits` significant digits. Metrics, the numbers every claim
    and ``iclr26 verify`` read, are kept exactly."""
    out = thin_curves(record)
    return {
        **out,
        "curves": _round_floats(out.get("curves", {}), digits),
        "artifacts": _round_floats(out.get("artifacts", {}), digits),
    }


def compact_json(record: dict[str, Any]) -> str:
    """One top-level key per line, each value without whitespace: a third of the size of an indented file and
    still a readable diff per field."""
    lines = [f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in record.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


@dataclass
class ReferencePaper:
    slug: str
    results: list[SeedResult]
    verdicts: list[Any]  # list[ClaimVerdict]
    excluded: list[str]


def reference_papers(store: ResultStore | None = None) -> dict[str, ReferencePaper]:
    """Verdicts recomputed from the reference seeds of every reproduced paper that has them."""
    from iclr26.harness.registry import get_experiment
    from iclr26.harness.runner import judge, usable

    store = store or reference_store()
    out = {}
    for paper in load_catalog():
        if paper.status != "reproduced" or REFERENCE_BUDGET not in store.budgets(paper.slug):
            continue
        exp = get_experiment(paper.slug)
        loaded = store.load(paper.slug, REFERENCE_BUDGET)
        results, excluded = usable(exp, REFERENCE_BUDGET, loaded.results)
        excluded += [str(e) for e in loaded.errors]
        if results:
            out[paper.slug] = ReferencePaper(
                paper.slug, results, judge(exp, REFERENCE_BUDGET, results), excluded
            )
    return out


def reference_stamp(results: Sequence[SeedResult]) -> str:
    """``commit abc1234, 2026-12-01``: where and when the reference seeds were made."""
    commits = sorted({str(r.provenance.get("git") or "unknown")[:12] for r in results})
    dates = sorted(str(r.provenance.get("finished", ""))[:10] for r in results)
    return f"commit {', '.join(commits)}, {dates[-1] if dates else 'undated'}"


def _outcome_key(cv: Any) -> str:
    return cv.verdict.outcome.value if cv.claim.kind == "claim" else "check"


def catalog_table(store: ResultStore | None = None) -> str:
    """The README's catalog: one row a paper, with each claim's reference verdict, and a line of totals."""
    papers = reference_papers(store)
    counts: Counter = Counter()
    lines = ["| paper | title | domain | status | verdicts (reference, quick) |", "|---|---|---|---|---|"]
    for p in load_catalog():
        ref = papers.get(p.slug)
        cells = []
        for cv in ref.verdicts if ref else []:
            key = _outcome_key(cv)
            counts[key] += 1
            label = "check holds" if key == "check" and cv.verdict.outcome is Outcome.SUPPORTED else None
            label = label or ("check fails" if key == "check" else Outcome(key).label)
            cells.append(f"{_MARK.get(key, '✔')} `{cv.claim.id}`: {label}")
        title = p.title.replace("|", "\\|")
        lines.append(f"| `{p.slug}` | {title} | {p.domain} | {p.status} | {'<br>'.join(cells)} |")
    reproduced = sum(p.status == "reproduced" for p in load_catalog())
    total = (
        f"Totals over {len(papers)} of {reproduced} reproduced papers with reference results: "
        f"{counts['supported']} supported, {counts['not supported']} not supported, "
        f"{counts['inconclusive']} inconclusive, {counts['not reproduced']} not reproduced at this budget"
        + (
            f"; {counts['check']} check{'s' if counts['check'] != 1 else ''} (true by construction, not counted)"
            if counts["check"]
            else ""
        )
        + "."
    )
    return total + "\n\n" + "\n".join(lines)


def write_readme_table(readme: str | Path, store: ResultStore | None = None) -> bool:
    """Replace the README's catalog block with :func:`catalog_table`; True when the file changed."""
    path = Path(readme)
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{path} has no {BEGIN} ... {END} block to regenerate")
    new = pattern.sub(lambda _m: f"{BEGIN}\n{catalog_table(store)}\n{END}", text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m iclr26.harness.reference",
        description="Regenerate the README's catalog table from the shipped reference results.",
    )
    parser.add_argument("--readme", default="README.md")
    parser.add_argument(
        "--thin",
        action="store_true",
        help="shrink the reference seed files in place (curves thinned, figure-only floats rounded, compact JSON)",
    )
    args = parser.parse_args(argv)
    if args.thin:
        root = reference_root()
        for path in sorted(root.glob("*/*/seed_*.json")):
            text = path.read_text(encoding="utf-8")
            shrunk = compact_json(shrink_record(json.loads(text)))
            if shrunk != text:
                atomic_write_text(path, shrunk)
    changed = write_readme_table(args.readme)
    print(f"{args.readme}: catalog table {'regenerated' if changed else 'already current'}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
