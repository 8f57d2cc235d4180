"""Data of the Hyper-SET reproduction: sklearn digits as 2x2 patches, and a 9x9 Sudoku generator.

The Sudoku generator fills a random complete grid by randomised backtracking, then blanks cells in random order,
keeping a blank only if the puzzle still has exactly one solution (checked by a bitmask backtracking counter
that stops at two), until the number of givens reaches a target drawn in ``givens``.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import Tensor

from iclr26.checks import check_array, check_float, check_int

__all__ = ["count_solutions", "digit_patches", "generate_sudoku", "is_solution", "sudoku_dataset"]

_ROW = [i // 9 for i in range(81)]
_COL = [i % 9 for i in range(81)]
_BOX = [(i // 27) * 3 + (i % 9) // 3 for i in range(81)]
_FULL = 0x3FE  # bits 1..9


def digit_patches(seed: int, patch: int = 2, test_size: float = 0.2) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """sklearn ``load_digits`` as (n, (8/patch)^2, patch^2) patch tokens in [0, 1]; stratified split by `seed`.

    Returns ``x_train, y_train, x_test, y_test`` (float32 patches, int64 labels).
    """
    check_int("patch", patch, low=1)
    if patch not in (1, 2, 4, 8):
        raise ValueError(f"patch must divide 8 (1, 2, 4 or 8), got {patch}")
    check_int("seed", seed, low=0, high=2**32 - 1)
    check_float("test_size", test_size, 0.0, 1.0, low_open=True, high_open=True)
    d = load_digits()
    img = d.images.astype(np.float32) / 16.0
    g = 8 // patch
    tok = img.reshape(-1, g, patch, g, patch).transpose(0, 1, 3, 2, 4).reshape(len(img), g * g, patch * patch)
    x_tr, x_te, y_tr, y_te = train_test_split(
        tok, d.target, test_size=test_size, stratify=d.target, random_state=seed
    )
    t = torch.from_numpy
    return t(np.ascontiguousarray(x_tr)), t(y_tr).long(), t(np.ascontiguousarray(x_te)), t(y_te).long()


def _masks(grid: list[int]) -> tuple[list[int], list[int], list[int]] | None:
    rows, cols, boxes = [0] * 9, [0] * 9, [0] * 9
    for i, v in enumerate(grid):
        if v:
            bit = 1 << v
            if (rows[_ROW[i]] | cols[_COL[i]] | boxes[_BOX[i]]) & bit:
                return None
            rows[_ROW[i]] |= bit
            cols[_COL[i]] |= bit
            boxes[_BOX[i]] |= bit
    return rows, cols, boxes


def _search(grid: list[int], rows, cols, boxes, limit: int, rng: np.random.Generator | None) -> int:
    """Count completions of `grid` up to `limit` (fills `grid` with the first solution found when rng is set)."""
    best, best_free, best_n = -1, 0, 10
    for i in range(81):
        if grid[i] == 0:
            free = _FULL & ~(rows[_ROW[i]] | cols[_COL[i]] | boxes[_BOX[i]])
            n = bin(free).count("1")
            if n < best_n:
                best, best_free, best_n = i, free, n
                if n <= 1:
                    break
    if best < 0:
        return 1
    if best_n == 0:
        return 0
    digits = [v for v in range(1, 10) if best_free >> v & 1]
    if rng is not None:
        rng.shuffle(digits)
    r, c, b = _ROW[best], _COL[best], _BOX[best]
    total = 0
    for v in digits:
        bit = 1 << v
        grid[best] = v
        rows[r] |= bit
        cols[c] |= bit
        boxes[b] |= bit
        total += _search(grid, rows, cols, boxes, limit - total, rng)
        if rng is not None and total:
            return total  # keep the filled grid
        rows[r] ^= bit
        cols[c] ^= bit
        boxes[b] ^= bit
        grid[best] = 0
        if total >= limit:
            break
    return total


def count_solutions(grid: np.ndarray | list[int], limit: int = 2) -> int:
    """Number of solutions of a 9x9 Sudoku (81 cells, 0 = blank), counted up to `limit`."""
    arr = np.asarray(grid).ravel()
    if arr.size != 81 or not np.issubdtype(arr.dtype, np.number) or arr.dtype == bool:
        raise ValueError("grid must hold 81 cells with values in 0..9 (0 = blank)")
    if not np.all(np.isfinite(arr)) or np.any(arr % 1) or np.any(arr < 0) or np.any(arr > 9):
        raise ValueError("grid must hold 81 cells with values in 0..9 (0 = blank)")
    check_int("limit", limit, low=1)
    return _count_solutions([int(v) for v in arr], limit)


def _count_solutions(g: list[int], limit: int) -> int:
    """:func:`count_solutions` on a checked list of 81 cells (the generator's inner loop skips the checks)."""
    m = _masks(g)
    return 0 if m is None else _search(g, *m, limit, None)


def is_solution(solution: np.ndarray, puzzle: np.ndarray | None = None) -> bool:
    """True when `solution` (81 cells, any layout) is a complete valid grid agreeing with the givens of `puzzle`;
    a grid of 81 cells with a value outside 1..9 (a blank, say) is not a solution, anything but 81 numbers is an
    error."""
    if puzzle is not None and np.asarray(puzzle).size != 81:
        raise ValueError(f"puzzle must hold 81 cells (0 = blank), got {np.asarray(puzzle).size}")
    s = check_array("solution", solution, finite=True).ravel()
    if s.size != 81:
        raise ValueError(f"solution must hold 81 cells, got {s.size}")
    if np.any(s < 1) or np.any(s > 9) or np.any(s % 1):
        return False
    g = s.reshape(9, 9)
    boxes = g.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
    ok = all(len(set(a.tolist())) == 9 for m in (g, g.T, boxes) for a in m)
    if puzzle is not None:
        p = np.asarray(puzzle).ravel()
        ok = ok and bool(np.all((p == 0) | (p == s)))
    return ok


def _full_grid(rng: np.random.Generator) -> list[int]:
    g = [0] * 81
    _search(g, [0] * 9, [0] * 9, [0] * 9, 1, rng)
    return g


def generate_sudoku(n: int, seed: int, givens: tuple[int, int] = (36, 45)) -> tuple[np.ndarray, np.ndarray]:
    """`n` puzzles with a unique solution and a number of givens drawn uniformly in ``givens`` (inclusive).

    Returns ``(puzzles, solutions)``, int64 arrays of shape (n, 81); 0 marks a blank in a puzzle.
    """
    n = check_int("n", n, low=1)
    check_int("seed", seed, low=0)
    if isinstance(givens, (str, bytes)) or not hasattr(givens, "__len__") or len(givens) != 2:
        raise ValueError(f"givens must be a pair (low, high), got {givens!r}")
    lo, hi = check_int("givens low", givens[0]), check_int("givens high", givens[1])
    if not 17 <= lo <= hi <= 81:
        raise ValueError(f"givens must satisfy 17 <= low <= high <= 81, got {givens}")
    rng = np.random.default_rng(seed)
    puzzles, solutions = np.zeros((n, 81), np.int64), np.zeros((n, 81), np.int64)
    k = 0
    while k < n:
        sol = _full_grid(rng)
        target = int(rng.integers(lo, hi + 1))
        puz = list(sol)
        filled = 81
        for i in rng.permutation(81).tolist():
            if filled <= target:
                break
            v, puz[i] = puz[i], 0
            if _count_solutions(list(puz), 2) == 1:
                filled -= 1
            else:
                puz[i] = v
        if filled != target:
            continue  # could not blank enough cells with uniqueness; draw a new grid
        puzzles[k], solutions[k] = puz, sol
        k += 1
    return puzzles, solutions


def sudoku_dataset(
    n_train: int, n_test: int, seed: int, givens: tuple[int, int] = (36, 45)
) -> dict[str, Tensor]:
    """Train/test Sudoku tensors: inputs 0..9 (0 = blank), targets 0..8 (digit - 1)."""
    check_int("n_train", n_train, low=1)
    check_int("n_test", n_test, low=1)
    p, s = generate_sudoku(n_train + n_test, seed, givens)
    p, s = torch.from_numpy(p), torch.from_numpy(s) - 1
    return {"x_train": p[:n_train], "y_train": s[:n_train], "x_test": p[n_train:], "y_test": s[n_train:]}
