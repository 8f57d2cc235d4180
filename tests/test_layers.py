"""The import graph keeps its layers: ``iclr26.checks`` < ``harness`` < ``lab`` < papers.

* ``harness`` imports nothing from ``lab``, a domain or a paper;
* ``lab`` imports nothing from a domain or a paper;
* a paper imports ``lab``, ``harness`` and ``checks``, never another paper (nor a module of its domain's own
  folder outside a paper: shared pieces live in ``lab``);
* no import cycle between modules.
"""

import ast
from pathlib import Path

import networkx as nx

SRC = Path(__file__).resolve().parents[1] / "src" / "iclr26"
DOMAINS = (
    "agents",
    "architectures",
    "attention",
    "decision",
    "generative",
    "inference",
    "mechanisms",
    "optim",
    "science",
)


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in out if m.startswith("iclr26")}


MODULES = {_module_name(p): p for p in SRC.rglob("*.py")}
EDGES = {m: {i for i in _imports(p) if i in MODULES} for m, p in MODULES.items()}


def _layer(module: str) -> tuple[str, str | None]:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in DOMAINS:
        return ("paper", ".".join(parts[:3])) if len(parts) >= 3 else ("domain", None)
    if len(parts) >= 2 and parts[1] in ("harness", "lab"):
        return parts[1], None
    return "top", None


def _is_domain_init(module: str) -> bool:
    parts = module.split(".")
    return len(parts) == 2 and parts[1] in DOMAINS


def test_no_arrow_climbs():
    bad = []
    for src, targets in EDGES.items():
        layer, paper = _layer(src)
        for dst in targets:
            dlayer, dpaper = _layer(dst)
            if layer == "harness" and dlayer in ("lab", "paper", "domain"):
                bad.append(f"{src} -> {dst} (harness must not import lab or papers)")
            elif layer == "lab" and dlayer in ("paper", "domain"):
                bad.append(f"{src} -> {dst} (lab must not import papers)")
            elif layer == "paper" and dlayer == "paper" and dpaper != paper:
                bad.append(f"{src} -> {dst} (a paper must not import another paper; move the piece to lab)")
            elif layer == "paper" and dlayer == "domain" and not _is_domain_init(dst):
                bad.append(f"{src} -> {dst} (shared pieces live in lab, not in a domain folder)")
    assert not bad, "\n".join(sorted(bad))


def test_no_import_cycles():
    graph = nx.DiGraph([(s, d) for s, ts in EDGES.items() for d in ts if s != d])
    # a package's __init__ re-exporting its own modules is not a cycle that matters
    graph.remove_edges_from([(s, d) for s, d in list(graph.edges) if d.startswith(s + ".")])
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles[:10])


def test_no_private_name_is_imported_from_another_module():
    """A helper one module of a package imports from another is part of the package's API: it gets a name
    without the leading underscore (and stays out of ``__all__``)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("iclr26"):
                found += [
                    f"{path.relative_to(SRC).as_posix()}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert not found, "private names imported across modules:\n" + "\n".join(found)
