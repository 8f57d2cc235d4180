"""Offline string sources standing in for a model's "random" strings (as code matrices [N, L]).

* ``iid``: i.i.d. uniform over the 62 ASCII alphanumerics;
* ``bigram``: a character-bigram model fitted at run time on Python standard-library docstrings (a fixed,
  sorted list of modules read with ``inspect.getdoc``; printable ASCII only) - human-text-like strings;
* ``keyboard``: keyboard mash, a random walk on the QWERTY adjacency graph of the 36 letter/digit keys;
* ``even``: the adversarial negative control, every code even (Sum-Mod with n = 2 always gives 0).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import string
import warnings

import numpy as np

from iclr26.checks import check_choice, check_int

__all__ = ["SOURCES", "STDLIB_MODULES", "bigram_model", "sample_codes", "stdlib_docstrings"]

SOURCES = ("iid", "bigram", "keyboard", "even")
ALNUM = np.array([ord(c) for c in string.ascii_letters + string.digits], dtype=np.int64)
EVEN = ALNUM[ALNUM % 2 == 0]
STDLIB_MODULES = (
    "argparse", "collections", "csv", "datetime", "functools", "heapq", "inspect", "itertools", "json",
    "os", "pathlib", "random", "re", "shutil", "statistics", "string", "textwrap", "typing",
)  # fmt: skip
ROWS = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")


def stdlib_docstrings() -> str:
    """All docstrings of the modules in STDLIB_MODULES and their public members, in a fixed order."""
    parts = []
    for name in STDLIB_MODULES:
        mod = importlib.import_module(name)
        parts.append(inspect.getdoc(mod) or "")
        for attr in sorted(a for a in dir(mod) if not a.startswith("_")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                doc = inspect.getdoc(getattr(mod, attr, None))
            if doc:
                parts.append(doc)
    return "\n".join(parts)


@functools.lru_cache(maxsize=1)
def bigram_model() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, start distribution, transition matrix) of the printable-ASCII character bigram model."""
    text = "".join(c for c in stdlib_docstrings().replace("\n", " ") if 32 <= ord(c) < 127)
    codes = np.arange(32, 127)
    idx = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64) - 32
    counts = np.zeros((95, 95))
    np.add.at(counts, (idx[:-1], idx[1:]), 1.0)
    counts += 1e-3  # a tiny smoothing keeps every row a distribution
    start = np.bincount(idx, minlength=95) + 1e-3
    return codes, start / start.sum(), counts / counts.sum(1, keepdims=True)


@functools.lru_cache(maxsize=1)
def _keyboard_graph() -> tuple[np.ndarray, list[np.ndarray]]:
    pos = {c: (r, i + 0.5 * r * (r > 0)) for r, row in enumerate(ROWS) for i, c in enumerate(row)}
    keys = sorted(pos)
    nbrs = []
    for c in keys:
        r, x = pos[c]
        near = [
            j for j, d in enumerate(keys) if d != c and abs(pos[d][0] - r) <= 1 and abs(pos[d][1] - x) <= 1.0
        ]
        nbrs.append(np.array(near))
    return np.array([ord(c) for c in keys]), nbrs


def _markov(rng, n, L, start, trans) -> np.ndarray:
    out = np.empty((n, L), dtype=np.int64)
    cum = np.cumsum(trans, axis=1)
    state = np.minimum(np.searchsorted(np.cumsum(start), rng.random(n)), len(start) - 1)
    for j in range(L):
        out[:, j] = state
        u = rng.random(n)[:, None]
        state = np.minimum((u > cum[state]).sum(1), trans.shape[1] - 1)
    return out


def sample_codes(source: str, n: int, L: int, rng: np.random.Generator) -> np.ndarray:
    """`n` strings of length `L` from `source`, as their character codes [n, L] (int64)."""
    source = check_choice("source", source, SOURCES)
    n = check_int("n", n, low=1)
    L = check_int("L", L, low=1)
    if source == "iid":
        return rng.choice(ALNUM, size=(n, L))
    if source == "even":
        return rng.choice(EVEN, size=(n, L))
    if source == "bigram":
        codes, start, trans = bigram_model()
        return codes[_markov(rng, n, L, start, trans)]
    codes, nbrs = _keyboard_graph()
    trans = np.zeros((len(codes), len(codes)))
    for i, nb in enumerate(nbrs):
        trans[i, nb] = 1.0 / len(nb)
    return codes[_markov(rng, n, L, np.full(len(codes), 1.0 / len(codes)), trans)]


def to_string(codes_row) -> str:
    """One code row as a str."""
    return "".join(chr(int(c)) for c in codes_row)
