"""Standard-library text: the ``.py`` sources that ship with every interpreter, or only their docstrings.

The sources are read in sorted relative-path order, so the text is identical on every machine with the
same Python version; docstrings are extracted with :mod:`ast`.
"""

from __future__ import annotations

import ast
import functools
import os
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from iclr26.lab.corpora.checks import check_max_chars

__all__ = ["EXCLUDED_STDLIB_DIRS", "stdlib_files", "stdlib_text"]

#: Directories of the standard library that are not read: third-party packages, test suites, GUI code,
#: Python-2-era tools and bundled wheels.
EXCLUDED_STDLIB_DIRS = frozenset(
    {
        "site-packages",
        "dist-packages",
        "test",
        "tests",
        "idlelib",
        "lib2to3",
        "tkinter",
        "turtledemo",
        "ensurepip",
    }
)


@functools.lru_cache(maxsize=4)
def _stdlib_files(root: str) -> tuple[tuple[str, str], ...]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        # Prune in place so excluded trees are never walked.
        dirnames[:] = [d for d in dirnames if d not in EXCLUDED_STDLIB_DIRS and d != "__pycache__"]
        for name in filenames:
            if name.endswith(".py"):
                full = os.path.join(dirpath, name)
                found.append((Path(os.path.relpath(full, root)).as_posix(), full))
    return tuple(sorted(found))


def stdlib_files() -> list[str]:
    """Relative paths (POSIX style, sorted) of the standard-library sources that :func:`stdlib_text` reads.

    Returns
    -------
    list of str
        Paths relative to ``sysconfig.get_paths()["stdlib"]``, e.g. ``"json/decoder.py"``.

    Example
    -------
    >>> "json/decoder.py" in stdlib_files()
    True
    """
    return [rel for rel, _ in _stdlib_files(sysconfig.get_paths()["stdlib"])]


def _read_source(path: str) -> str:
    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _docstrings(source: str) -> Iterator[str]:
    """Docstrings of a module, its classes and functions, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield doc
        # Reverse so that popping from the stack visits children in source order.
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


@functools.cache
def _file_docstrings(path: str) -> tuple[str, ...]:
    # Parsing the whole library takes seconds; the docstrings (1.5 M characters) are kept once parsed.
    return tuple(_docstrings(_read_source(path)))


def stdlib_text(max_chars: int | None = None, docstrings_only: bool = False) -> str:
    """Text of the Python standard library's ``.py`` sources, identical on every machine with the same Python.

    Files are read in sorted relative-path order (see :func:`stdlib_files`), decoded as UTF-8 with
    undecodable bytes replaced, line endings normalised to ``"\\n"``, and separated by a blank line.

    Parameters
    ----------
    max_chars : int or None
        Stop once this many characters are collected; the result is cut to exactly ``max_chars``
        (or is shorter if the whole library is smaller). ``None`` reads everything (about 10 M characters
        of code, 1.5 M of docstrings on CPython 3.11).
    docstrings_only : bool
        Keep only the module, class and function docstrings (extracted with :mod:`ast`, indentation
        cleaned), one per paragraph.

    Returns
    -------
    str

    Example
    -------
    >>> text = stdlib_text(max_chars=1000, docstrings_only=True)
    >>> len(text)
    1000
    """
    check_max_chars(max_chars)
    parts: list[str] = []
    total = 0
    for _, path in _stdlib_files(sysconfig.get_paths()["stdlib"]):
        pieces = _file_docstrings(path) if docstrings_only else (_read_source(path).strip("\n"),)
        for piece in pieces:
            if not piece:
                continue
            total += len(piece) + (2 if parts else 0)  # length of the joined text so far
            parts.append(piece)
            if max_chars is not None and total >= max_chars:
                return "\n\n".join(parts)[:max_chars]
    return "\n\n".join(parts)
