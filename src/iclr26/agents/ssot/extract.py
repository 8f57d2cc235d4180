"""Randomness extractors SSoT models were seen to use, and the Sum-Mod Fourier bound (our derivation).

Paper: "String Seed of Thought" (Misaki, Akiba; ICLR 2026, arXiv 2510.21150).

* Sum-Mod: Y = (sum of character codes) mod n, for uniform targets.
* Rolling-Hash: h_0 = 0, h_i = (b * h_{i-1} + code(c_i)) mod M, u = h_L / M, the option whose cumulative
  interval [P_{j-1}, P_j) holds u (for skewed targets). With codes <= 122 and M = 10^9 + 7 no wrap happens for
  L <= 5, so short strings can only pick the option covering the bottom of [0, 1) (expected, not a bug).
* For i.i.d. codes with distribution q, phi(k) = E exp(2 pi i k code / n) and
  P(Y = y) - 1/n = (1/n) sum_{k != 0} phi(k)^L exp(-2 pi i k y / n), so
  TV(Y, Unif_n) <= 1/2 sum_{k != 0} |phi(k)|^L <= (n - 1)/2 rho^L.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from iclr26.checks import check_array, check_int

__all__ = [
    "check_probs",
    "rolling_hash_choice",
    "rolling_hash_choices",
    "sum_mod",
    "sum_mod_choices",
    "sum_mod_distribution",
    "sum_mod_distribution_conv",
    "tv_bound_sum_mod",
    "tv_exact_sum_mod",
]

PROB_TOL = 1e-6


def check_probs(probs: Sequence[float], name: str = "probs", n: int | None = None) -> np.ndarray:
    """`probs` as a float64 vector: finite, non-negative, summing to 1 within 1e-6, length `n` when given."""
    try:
        p = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a sequence of numbers, got {probs!r}") from exc
    if p.ndim != 1 or p.size < 1:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of probabilities, got shape {p.shape}")
    if n is not None and p.size != n:
        raise ValueError(f"{name} has {p.size} entries but there are {n} options; lengths must match")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"{name} must be finite and non-negative, got {p.tolist()}")
    if abs(p.sum() - 1.0) > PROB_TOL:
        raise ValueError(f"{name} must sum to 1 (within {PROB_TOL:g}), got sum {p.sum():.9g}")
    return p


def _check_string(s: object) -> str:
    if not isinstance(s, str):
        raise ValueError(f"s must be a str, got {type(s).__name__}")
    return s


def sum_mod(s: str, n: int) -> int:
    """(sum of the characters' code points) mod n.

    >>> sum_mod("ab", 3)  # (97 + 98) % 3
    0
    """
    s = _check_string(s)
    n = check_int("n", n, low=1)
    return sum(ord(c) for c in s) % n


def rolling_hash_choice(s: str, probs: Sequence[float], base: int = 31, mod: int = 10**9 + 7) -> int:
    """Index of the option whose cumulative interval holds u = h_L / mod (h the rolling hash of `s`).

    >>> rolling_hash_choice("zzzzzzzz", [0.3, 0.7])
    1
    """
    s = _check_string(s)
    p = check_probs(probs)
    base = check_int("base", base, low=1)
    mod = check_int("mod", mod, low=2)
    h = 0
    for c in s:
        h = (base * h + ord(c)) % mod
    return _choose(np.array([h / mod]), p)[0].item()


def _choose(u: np.ndarray, p: np.ndarray) -> np.ndarray:
    cum = np.cumsum(p)
    cum[-1] = 1.0
    return np.minimum(np.searchsorted(cum, u, side="right"), len(p) - 1)


def sum_mod_choices(codes: np.ndarray, n: int) -> np.ndarray:
    """Vectorised :func:`sum_mod` over the rows of an integer code matrix [N, L]."""
    return check_array("codes", codes, ndim=2, integer=True).astype(np.int64).sum(axis=1) % n


def rolling_hash_choices(codes: np.ndarray, probs: Sequence[float], base: int = 31, mod: int = 10**9 + 7):
    """Vectorised :func:`rolling_hash_choice` over the rows of an integer code matrix [N, L]."""
    codes = check_array("codes", codes, ndim=2, integer=True).astype(np.int64)
    h = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        h = (base * h + codes[:, j]) % mod
    return _choose(h / mod, check_probs(probs))


def _code_dist(q: Sequence[float] | dict) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(q, dict):
        codes = np.array(list(q.keys()), dtype=np.int64)
        w = check_probs(list(q.values()), "q")
    else:
        w = check_probs(q, "q")
        codes = np.arange(w.size)
    return codes, w


def _phi(q, n: int) -> np.ndarray:
    codes, w = _code_dist(q)
    k = np.arange(n)[:, None]
    return (w[None, :] * np.exp(2j * np.pi * k * codes[None, :] / n)).sum(axis=1)


def sum_mod_distribution(q, n: int, L: int) -> np.ndarray:
    """Exact P(Y = y), y < n, for L i.i.d. codes with distribution `q`, by the Fourier formula.

    `q` is a probability vector over codes 0..len(q)-1 or a dict {code: probability}.
    """
    n = check_int("n", n, low=1)
    L = check_int("L", L, low=0)
    phi = _phi(q, n)
    y = np.arange(n)
    dist = (phi[:, None] ** L * np.exp(-2j * np.pi * np.arange(n)[:, None] * y[None, :] / n)).sum(0) / n
    return dist.real


def sum_mod_distribution_conv(q, n: int, L: int) -> np.ndarray:
    """The same distribution by L-fold cyclic convolution (the slow reference)."""
    n = check_int("n", n, low=1)
    L = check_int("L", L, low=0)
    codes, w = _code_dist(q)
    one = np.zeros(n)
    np.add.at(one, codes % n, w)
    dist = np.zeros(n)
    dist[0] = 1.0
    for _ in range(L):
        dist = np.array([sum(dist[(y - r) % n] * one[r] for r in range(n)) for y in range(n)])
    return dist


def tv_exact_sum_mod(q, n: int, L: int) -> float:
    """TV(Sum-Mod output, uniform over n) for L i.i.d. codes with distribution `q`."""
    return float(0.5 * np.abs(sum_mod_distribution(q, n, L) - 1.0 / n).sum())


def tv_bound_sum_mod(q, n: int, L: int) -> float:
    """The Fourier bound 1/2 sum_{k=1}^{n-1} |phi(k)|^L on TV(Sum-Mod output, Unif_n)."""
    n = check_int("n", n, low=1)
    L = check_int("L", L, low=0)
    return float(0.5 * (np.abs(_phi(q, n)[1:]) ** L).sum())
