"""Folding oracles and the stem-loop sequence grammar of the RNA co-design toy.

- :func:`nussinov`: maximum weighted base pairs (GC 3, AU 2, GU 1; hairpins of >= 3 unpaired), pure Python.
- :func:`zuker_lite`: minimum free energy under a small nearest-neighbour model (:func:`structure_energy`): stacked
  pairs score ``-(w(p) + w(q)) / 2`` (w: GC 3.3, AU 1.0, GU 0.6), a hairpin of n >= 3 unpaired costs
  ``4.5 + 1.1 ln(n / 3)``, every other loop closed by a pair (bulge, interior, multi-loop) costs
  ``3.4 + 0.4 * branches``, the exterior loop and unpaired bases are free. The dynamic programme is vectorised over
  a batch of sequences of one length and over the positions of each diagonal; the traceback is per sequence.
- :func:`fold`: ViennaRNA's ``RNA.fold`` when the ``RNA`` module imports (optional, not a dependency), else
  :func:`zuker_lite`.

The energies are a toy, not Turner's parameters; they keep what matters here: stems of complementary bases are
stable, isolated pairs and tiny loops are not.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence

import numpy as np
import torch

from iclr26.checks import check_choice, check_int, check_tensor
from iclr26.generative.rna_codesign.geometry import dot_bracket_to_pairs, pairs_to_dot_bracket

__all__ = [
    "MASK_ID",
    "NUCLEOTIDES",
    "PAIR_WEIGHT",
    "can_pair",
    "decode",
    "encode",
    "fold",
    "nussinov",
    "stem_loop_sequences",
    "structure_energy",
    "vienna_available",
    "zuker_lite",
]

NUCLEOTIDES = "ACGU"
MASK_ID = 4
MIN_HAIRPIN = 3
#: weight of a canonical or wobble pair (Nussinov score; stacking energy is minus the mean of two)
PAIR_WEIGHT = {"GC": 3.3, "CG": 3.3, "AU": 1.0, "UA": 1.0, "GU": 0.6, "UG": 0.6}
NUSSINOV_WEIGHT = {"GC": 3, "CG": 3, "AU": 2, "UA": 2, "GU": 1, "UG": 1}
LOOP_A, LOOP_B = 3.4, 0.4
_W = np.zeros((4, 4))
for _k, _v in PAIR_WEIGHT.items():
    _W[NUCLEOTIDES.index(_k[0]), NUCLEOTIDES.index(_k[1])] = _v
_CAN = _W > 0


def encode(seq: str) -> torch.Tensor:
    """Token ids (L,) of an RNA string over ACGU (T is refused)."""
    if not isinstance(seq, str):
        raise TypeError(f"seq must be a str over {NUCLEOTIDES}, got {type(seq).__name__}")
    bad = sorted(set(seq) - set(NUCLEOTIDES))
    if bad:
        raise ValueError(f"seq must hold only the nucleotides {NUCLEOTIDES}, got {bad} in {seq!r}")
    return torch.tensor([NUCLEOTIDES.index(c) for c in seq], dtype=torch.long)


def decode(ids: torch.Tensor) -> str:
    """RNA string of token ids (L,) in [0, 4); the mask id is refused."""
    check_tensor("ids", ids, ndim=1, floating=False)
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) > 3):
        raise ValueError(
            f"ids must be nucleotide ids in [0, 4) (no mask), got range [{int(ids.min())}, {int(ids.max())}]"
        )
    return "".join(NUCLEOTIDES[i] for i in ids.tolist())


def can_pair(a: str, b: str) -> bool:
    """Whether two nucleotides form a canonical (AU, GC) or wobble (GU) pair."""
    return (a + b) in PAIR_WEIGHT


def hairpin_energy(n: int) -> float:
    return 4.5 + 1.1 * math.log(n / MIN_HAIRPIN)


def structure_energy(seq: str, dot_bracket: str) -> float:
    """Free energy of `dot_bracket` on `seq` under the zuker-lite model (module docstring), +inf if invalid."""
    encode(seq)
    pairs = dot_bracket_to_pairs(dot_bracket)
    if len(pairs) != len(seq):
        raise ValueError(f"seq and dot_bracket must have the same length, got {len(seq)} and {len(pairs)}")
    e = 0.0
    for i, j in enumerate(pairs):
        if j <= i:
            continue
        if not can_pair(seq[i], seq[j]) or j - i - 1 < MIN_HAIRPIN:
            return math.inf
        inner = []
        k = i + 1
        while k < j:
            if pairs[k] > k:
                inner.append((k, pairs[k]))
                k = pairs[k] + 1
            else:
                k += 1
        if not inner:
            e += hairpin_energy(j - i - 1)
        elif inner == [(i + 1, j - 1)]:
            stack = -(PAIR_WEIGHT[seq[i] + seq[j]] + PAIR_WEIGHT[seq[i + 1] + seq[j - 1]]) / 2
            e += min(stack, LOOP_A + LOOP_B)
        else:
            e += LOOP_A + LOOP_B * len(inner)
    return e


def nussinov(seq: str, min_loop: int = MIN_HAIRPIN) -> str:
    """Maximum weighted pairing (weights GC 3, AU 2, GU 1) with hairpins of >= `min_loop` unpaired; dot-bracket."""
    encode(seq)
    min_loop = check_int("min_loop", min_loop, low=0)
    n = len(seq)
    s = np.zeros((n + 1, n + 1))

    def w(i: int, j: int) -> float:
        return NUSSINOV_WEIGHT.get(seq[i] + seq[j], 0)

    for d in range(min_loop + 1, n):
        for i in range(n - d):
            j = i + d
            best = s[i + 1, j]
            if w(i, j):
                best = max(best, s[i + 1, j - 1] + w(i, j))
            for k in range(i + min_loop + 1, j):  # i pairs with k < j
                if w(i, k):
                    best = max(best, s[i + 1, k - 1] + w(i, k) + s[k + 1, j])
            s[i, j] = best
    pairs = [-1] * n
    stack = [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if j - i <= min_loop:
            continue
        if math.isclose(s[i, j], s[i + 1, j]):
            stack.append((i + 1, j))
            continue
        if w(i, j) and math.isclose(s[i, j], s[i + 1, j - 1] + w(i, j)):
            pairs[i], pairs[j] = j, i
            stack.append((i + 1, j - 1))
            continue
        for k in range(i + min_loop + 1, j):
            if w(i, k) and math.isclose(s[i, j], s[i + 1, k - 1] + w(i, k) + s[k + 1, j]):
                pairs[i], pairs[k] = k, i
                stack += [(i + 1, k - 1), (k + 1, j)]
                break
    return pairs_to_dot_bracket(pairs)


def _dp(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batched zuker-lite tables V (pair i, j closes a loop), M (inside a loop, >= 1 branch), W (exterior prefix)."""
    b, n = ids.shape
    inf = np.inf
    v = np.full((b, n, n), inf)
    m = np.full((b, n, n), inf)
    wij = _W[ids[:, :, None], ids[:, None, :]]  # (B, L, L)
    can = wij > 0
    for d in range(MIN_HAIRPIN + 1, n):
        i = np.arange(n - d)
        j = i + d
        hp = hairpin_energy(d - 1)
        cand = np.full((b, i.size), hp)
        if d - 2 > MIN_HAIRPIN:
            stack = -(wij[:, i, j] + wij[:, i + 1, j - 1]) / 2
            inner = v[:, i + 1, j - 1]
            cand = np.minimum(cand, np.where(np.isfinite(inner), stack + inner, inf))
            cand = np.minimum(cand, LOOP_A + m[:, i + 1, j - 1])
        v[:, i, j] = np.where(can[:, i, j], cand, inf)
        # M[i, j]: at least one branch in [i, j]
        best = np.minimum(v[:, i, j] + LOOP_B, np.minimum(m[:, i + 1, j], m[:, i, j - 1]))
        if d >= 1:
            ks = i[:, None] + np.arange(d)[None, :]  # split after k: [i, k] + [k + 1, j]
            split = m[:, i[:, None], ks] + m[:, ks + 1, j[:, None]]
            best = np.minimum(best, split.min(-1))
        m[:, i, j] = best
    w = np.zeros((b, n + 1))  # w[:, j] = best energy of the prefix [0, j)
    for j in range(1, n + 1):
        opts = v[:, :j, j - 1] + w[:, :j]
        w[:, j] = np.minimum(w[:, j - 1], opts.min(-1))
    return v, m, w


def _trace(ids: np.ndarray, v: np.ndarray, m: np.ndarray, w: np.ndarray) -> list[int]:
    n = ids.size
    wij = _W[ids[:, None], ids[None, :]]
    pairs = [-1] * n
    tasks: list[tuple[str, int, int]] = [("W", 0, n)]
    close = np.isclose
    while tasks:
        kind, i, j = tasks.pop()
        if kind == "W":  # prefix [0, j)
            if j == 0:
                continue
            if close(w[j], w[j - 1]):
                tasks.append(("W", 0, j - 1))
                continue
            for k in range(j):
                if close(w[j], v[k, j - 1] + w[k]):
                    tasks += [("V", k, j - 1), ("W", 0, k)]
                    break
        elif kind == "V":
            pairs[i], pairs[j] = j, i
            e = v[i, j]
            if close(e, hairpin_energy(j - i - 1)):
                continue
            if j - i - 2 > MIN_HAIRPIN and np.isfinite(v[i + 1, j - 1]):
                if close(e, -(wij[i, j] + wij[i + 1, j - 1]) / 2 + v[i + 1, j - 1]):
                    tasks.append(("V", i + 1, j - 1))
                    continue
            tasks.append(("M", i + 1, j - 1))
        else:  # M: >= 1 branch in [i, j]
            e = m[i, j]
            if close(e, v[i, j] + LOOP_B):
                tasks.append(("V", i, j))
            elif close(e, m[i + 1, j]):
                tasks.append(("M", i + 1, j))
            elif close(e, m[i, j - 1]):
                tasks.append(("M", i, j - 1))
            else:
                for k in range(i, j):
                    if close(e, m[i, k] + m[k + 1, j]):
                        tasks += [("M", i, k), ("M", k + 1, j)]
                        break
    return pairs


def zuker_lite(seqs: str | Sequence[str]) -> list[str] | str:
    """Minimum-free-energy structures under :func:`structure_energy` (a str for one sequence, else a list)."""
    single = isinstance(seqs, str)
    batch = [seqs] if single else list(seqs)
    out: list[str] = [""] * len(batch)
    by_len: dict[int, list[int]] = {}
    for k, s in enumerate(batch):
        encode(s)
        by_len.setdefault(len(s), []).append(k)
    for n, members in by_len.items():
        ids = np.array([[NUCLEOTIDES.index(c) for c in batch[k]] for k in members], dtype=np.int64)
        if n == 0:
            continue
        v, m, w = _dp(ids)
        for r, k in enumerate(members):
            out[k] = pairs_to_dot_bracket(_trace(ids[r], v[r], m[r], w[r]))
    return out[0] if single else out


def vienna_available() -> bool:
    """Whether ViennaRNA's Python module ``RNA`` imports."""
    try:
        importlib.import_module("RNA")
    except ImportError:
        return False
    return True


def fold(seqs: str | Sequence[str], engine: str = "auto") -> list[str] | str:
    """MFE dot-brackets: ``engine`` "vienna" (``RNA.fold``), "zuker-lite", "nussinov", or "auto" (ViennaRNA if it
    imports, else zuker-lite)."""
    check_choice("engine", engine, ("auto", "vienna", "zuker-lite", "nussinov"))
    if engine == "auto":
        engine = "vienna" if vienna_available() else "zuker-lite"
    single = isinstance(seqs, str)
    batch = [seqs] if single else list(seqs)
    if engine == "zuker-lite":
        res = zuker_lite(batch)
    elif engine == "nussinov":
        res = [nussinov(s) for s in batch]
    else:
        rna = importlib.import_module("RNA")
        res = [rna.fold(s)[0] for s in batch]
    return res[0] if single else res


def stem_loop_sequences(
    n: int,
    length: int,
    generator: torch.Generator,
    loop_range: tuple[int, int] = (3, 6),
    stem_range: tuple[int, int] = (4, 7),
    wobble: float = 0.1,
) -> list[str]:
    """`n` sequences of `length` from a stem-loop grammar: one or two hairpins (stem, loop of
    ``loop_range`` random bases, complementary stem; GU wobble w.p. `wobble` per pair) in random linkers."""
    n = check_int("n", n, low=0)
    length = check_int("length", length, low=12)
    comp = {"A": "U", "U": "A", "G": "C", "C": "G"}
    out = []

    def ri(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=generator))

    def rb(k: int) -> str:
        return "".join(NUCLEOTIDES[i] for i in torch.randint(0, 4, (k,), generator=generator).tolist())

    def hairpin(budget: int) -> str:
        loop = ri(*loop_range)
        stem = min(ri(*stem_range), max((budget - loop) // 2, 2))
        left = rb(stem)
        right = []
        for c in reversed(left):
            wob = float(torch.rand(1, generator=generator)) < wobble
            right.append({"G": "U", "U": "G"}.get(c, comp[c]) if wob and c in "GU" else comp[c])
        return left + rb(loop) + "".join(right)

    while len(out) < n:
        two = length >= 30 and float(torch.rand(1, generator=generator)) < 0.5
        parts = [hairpin(length // 2 - 1), hairpin(length // 2 - 1)] if two else [hairpin(length - 2)]
        core = ("" if not two else rb(ri(0, 2))).join(parts)
        if len(core) > length:
            continue
        pad = length - len(core)
        left = ri(0, pad)
        out.append(rb(left) + core + rb(pad - left))
    return out
