"""Structured token data of the Mamba training-dynamics theory (arXiv 2602.12499), reconstructed.

Orthonormal patterns o_1..o_M in R^d: o_1 = o+ and o_2 = o- are the relevant patterns, the rest irrelevant.
Token ``x_l = o_(k_l) + xi_l`` with ``xi_l ~ N(0, sigma^2 I_d)``; label y in {+1, -1}; o^y is label-consistent,
o^(-y) confusing.

- Majority voting: exactly ``alpha_r L`` positions carry o^y, ``alpha_c L`` carry o^(-y), the rest uniformly random
  irrelevant patterns, positions shuffled.
- Locality: exactly one o^y at distance ``dL_pos`` from the end and one o^(-y) at ``dL_neg > dL_pos``, every other
  position an irrelevant pattern; the label is the relevant pattern nearest the end. Distance counts from the last
  token (distance 0), so at w = 0 a token at distance ΔL has gated weight (1/2)^(ΔL+1).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr26.checks import check_float, check_int, check_probability, check_tensor, check_token_ids

__all__ = [
    "SequenceData",
    "locality_labels",
    "make_locality_data",
    "make_majority_data",
    "majority_labels",
    "orthonormal_patterns",
]


@dataclass(frozen=True)
class SequenceData:
    """A labelled set of token sequences.

    X : (n, L, d) tokens; y : (n,) labels in {+1, -1}; patterns : (M, d) orthonormal rows (o+ = row 0,
    o- = row 1); pattern_ids : (n, L) index of the pattern each token carries.
    """

    X: torch.Tensor
    y: torch.Tensor
    patterns: torch.Tensor
    pattern_ids: torch.Tensor

    def __post_init__(self) -> None:
        check_tensor("X", self.X, ndim=3, floating=True, finite=True)
        n, L, d = self.X.shape
        check_tensor("y", self.y, shape=(n,), floating=True)
        check_tensor("patterns", self.patterns, ndim=2, floating=True, shape=(None, d))
        check_tensor("pattern_ids", self.pattern_ids, floating=False, shape=(n, L))
        check_token_ids("pattern_ids", self.pattern_ids, self.patterns.shape[0])

    def __len__(self) -> int:
        return int(self.X.shape[0])


def _check_dtype(dtype: object) -> None:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")


def orthonormal_patterns(
    d: int, M: int, seed: int | None = None, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """M orthonormal patterns in R^d as rows: the standard basis (seed None) or a random rotation of it."""
    d, M = check_int("d", d, low=1), check_int("M (o+ and o- are patterns 1 and 2)", M, low=2)
    _check_dtype(dtype)
    if seed is not None:
        check_int("seed (None or an int)", seed, low=0)
    if d < M:
        raise ValueError(f"patterns cannot be orthonormal: need d >= M, got d={d} < M={M}")
    if seed is None:
        return torch.eye(M, d, dtype=dtype)
    gen = torch.Generator().manual_seed(int(seed))
    q, _ = torch.linalg.qr(torch.randn(d, M, generator=gen, dtype=torch.float64))
    return q.T.contiguous().to(dtype)


def _check_patterns(patterns: torch.Tensor | None, d: int, M: int, dtype: torch.dtype) -> torch.Tensor:
    if patterns is None:
        return orthonormal_patterns(d, M, dtype=dtype)
    if not isinstance(patterns, torch.Tensor) or patterns.shape != (M, d):
        got = tuple(patterns.shape) if isinstance(patterns, torch.Tensor) else type(patterns).__name__
        raise ValueError(f"patterns must be a tensor of shape (M, d) = ({M}, {d}), got {got}")
    p = patterns.to(torch.float64)
    if not torch.allclose(p @ p.T, torch.eye(M, dtype=torch.float64), atol=1e-5):
        raise ValueError("patterns must have orthonormal rows (P P^T = I)")
    return patterns.to(dtype)


def _count(alpha: float, L: int, name: str) -> int:
    check_probability(f"{name} (a fraction)", alpha)
    k = round(alpha * L)
    if abs(alpha * L - k) > 1e-9:
        raise ValueError(f"{name} * L must be an integer token count, got {name}={alpha} with L={L}")
    return k


def _tokens(ids: torch.Tensor, patterns: torch.Tensor, sigma: float, gen: torch.Generator) -> torch.Tensor:
    X = patterns[ids]
    noise = torch.randn(X.shape, generator=gen, dtype=torch.float64).to(X.dtype)
    return X + sigma * noise


def make_majority_data(
    n: int,
    L: int,
    d: int,
    M: int,
    alpha_r: float,
    alpha_c: float,
    sigma: float,
    seed: int,
    patterns: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> SequenceData:
    """Majority-voting sequences: alpha_r L label-consistent, alpha_c L confusing tokens, shuffled."""
    n, L = check_int("n", n, low=1), check_int("L", L, low=1)
    check_int("M (o+ and o- are patterns 1 and 2)", M, low=2)
    check_int("seed", seed, low=0)
    _check_dtype(dtype)
    n_r, n_c = _count(alpha_r, L, "alpha_r"), _count(alpha_c, L, "alpha_c")
    if alpha_c >= alpha_r:
        raise ValueError(
            f"alpha_c must be < alpha_r (the majority must be label-consistent), got {alpha_c} >= {alpha_r}"
        )
    if n_r + n_c > L:
        raise ValueError(f"alpha_r + alpha_c must be <= 1, got {alpha_r} + {alpha_c}")
    P = _check_patterns(patterns, d, M, dtype)
    if n_r + n_c < L and M < 3:
        raise ValueError(f"M must be >= 3 when irrelevant positions exist (alpha_r + alpha_c < 1), got {M}")
    sigma = check_float("sigma (token noise std)", sigma, low=0.0)
    gen = torch.Generator().manual_seed(int(seed))
    y = torch.where(torch.rand(n, generator=gen) < 0.5, 1, -1)
    cons = torch.where(y > 0, 0, 1)[:, None]  # index of o^y
    ids = torch.randint(2, max(M, 3), (n, L), generator=gen)
    ids[:, :n_r] = cons
    ids[:, n_r : n_r + n_c] = 1 - cons
    perm = torch.argsort(torch.rand(n, L, generator=gen), dim=1)
    ids = torch.gather(ids, 1, perm)
    return SequenceData(_tokens(ids, P, sigma, gen), y.to(dtype), P, ids)


def make_locality_data(
    n: int,
    L: int,
    d: int,
    M: int,
    dL_pos: int,
    dL_neg: int,
    sigma: float,
    seed: int,
    patterns: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> SequenceData:
    """Locality sequences: o^y at distance dL_pos from the end, o^(-y) at dL_neg > dL_pos, the rest irrelevant."""
    n, L = check_int("n", n, low=1), check_int("L", L, low=1)
    check_int("M (two relevant patterns plus irrelevant ones)", M, low=3)
    check_int("seed", seed, low=0)
    _check_dtype(dtype)
    dL_pos, dL_neg = check_int("dL_pos", dL_pos, low=0), check_int("dL_neg", dL_neg, low=0)
    if dL_pos >= dL_neg:
        raise ValueError(
            f"dL_pos must be < dL_neg (the consistent token is nearest the end), got {dL_pos} >= {dL_neg}"
        )
    if dL_neg >= L:
        raise ValueError(
            f"dL_neg must be < L (distances count from the last token, 0..L-1), got {dL_neg} >= L={L}"
        )
    P = _check_patterns(patterns, d, M, dtype)
    sigma = check_float("sigma (token noise std)", sigma, low=0.0)
    gen = torch.Generator().manual_seed(int(seed))
    y = torch.where(torch.rand(n, generator=gen) < 0.5, 1, -1)
    cons = torch.where(y > 0, 0, 1)
    ids = torch.randint(2, M, (n, L), generator=gen)
    ids[:, L - 1 - dL_pos] = cons
    ids[:, L - 1 - dL_neg] = 1 - cons
    return SequenceData(_tokens(ids, P, sigma, gen), y.to(dtype), P, ids)


def _check_ids(pattern_ids: torch.Tensor) -> None:
    check_tensor("pattern_ids", pattern_ids, ndim=2, floating=False)
    if pattern_ids.numel() and int(pattern_ids.min()) < 0:
        raise ValueError(f"pattern_ids must be pattern indices >= 0, got min {int(pattern_ids.min())}")


def majority_labels(pattern_ids: torch.Tensor) -> torch.Tensor:
    """Label implied by counts: +1 if o+ (id 0) outnumbers o- (id 1), -1 if fewer, 0 on a tie."""
    _check_ids(pattern_ids)
    return torch.sign((pattern_ids == 0).sum(1) - (pattern_ids == 1).sum(1))


def locality_labels(pattern_ids: torch.Tensor) -> torch.Tensor:
    """Label implied by order: +1 / -1 if the relevant token nearest the end is o+ / o-, 0 if none."""
    _check_ids(pattern_ids)
    rel = pattern_ids < 2
    L = pattern_ids.shape[1]
    pos = torch.where(rel, torch.arange(L), -1)
    last = pos.argmax(1)
    lab = torch.where(pattern_ids.gather(1, last[:, None])[:, 0] == 0, 1, -1)
    return torch.where(rel.any(1), lab, 0)
