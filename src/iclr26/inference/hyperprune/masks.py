"""n:m mask primitives: pattern enumeration, group-wise selection, the straight-through Gumbel pattern sampler.

Convention (as in the brief): a weight matrix ``W`` is ``(d_out, d_in)`` and every row is cut into consecutive
groups of ``m`` input-dimension weights; an n:m mask keeps exactly ``n`` weights of each group. A group's mask is
one of the ``C(m, n)`` rows of :func:`nm_patterns`.
"""

from __future__ import annotations

import itertools
import math

import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = [
    "apply_nm_mask",
    "anneal_tau",
    "gumbel_pattern_mask",
    "is_nm_sparse",
    "nm_mask_from_scores",
    "nm_patterns",
    "pattern_logits_from_scores",
]


def check_nm(n: int, m: int) -> None:
    check_int("n", n, type_error=True)
    check_int("m", m, low=2, type_error=True)
    check_int(f"n (< m = {m}: n >= m keeps everything)", n, low=1, high=m - 1)


def check_matrix(weight: torch.Tensor, m: int, name: str = "weight") -> None:
    if not isinstance(weight, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(weight).__name__}")
    if weight.dim() != 2:
        raise ValueError(f"{name} must be 2-D (d_out, d_in), got shape {tuple(weight.shape)}")
    if weight.shape[1] % m:
        raise ValueError(f"{name}: in_features {weight.shape[1]} is not divisible by m={m}")


def nm_patterns(n: int, m: int) -> torch.Tensor:
    """All admissible masks of one group: a ``(C(m, n), m)`` float tensor of 0/1 rows with ``n`` ones each.

    Rows are in lexicographic order of the kept positions (``itertools.combinations``), which fixes tie-breaking.

    Example
    -------
    >>> nm_patterns(2, 4).shape
    torch.Size([6, 4])
    >>> nm_patterns(2, 4)[0].tolist()
    [1.0, 1.0, 0.0, 0.0]
    """
    check_nm(n, m)
    combos = list(itertools.combinations(range(m), n))
    out = torch.zeros(len(combos), m)
    for k, keep in enumerate(combos):
        out[k, list(keep)] = 1.0
    assert out.shape[0] == math.comb(m, n)
    return out


def pattern_logits_from_scores(scores: torch.Tensor, n: int, m: int) -> torch.Tensor:
    """Per group, the sum of ``scores`` over the kept positions of every pattern: ``(d_out, d_in/m, C(m,n))``."""
    check_nm(n, m)
    check_matrix(scores, m, "scores")
    check_tensor("scores", scores, floating=True)
    if not bool(scores.isfinite().all()):
        raise ValueError("scores must be finite (a NaN or infinite score would pick a pattern silently)")
    pats = nm_patterns(n, m).to(scores.dtype)
    return scores.reshape(scores.shape[0], -1, m) @ pats.T


def nm_mask_from_scores(scores: torch.Tensor, n: int, m: int) -> torch.Tensor:
    """Boolean n:m mask keeping, in each group of ``m``, the ``n`` positions of largest score.

    Selection is the argmax over :func:`nm_patterns` of the summed kept scores (first pattern wins a tie), so
    every scorer in this package (magnitude, Wanda, a hypernetwork's argmax) breaks ties the same way.

    Example
    -------
    >>> nm_mask_from_scores(torch.tensor([[4.0, 1.0, 3.0, 2.0]]), 2, 4).tolist()
    [[True, False, True, False]]
    """
    logits = pattern_logits_from_scores(scores, n, m)
    pats = nm_patterns(n, m).bool()
    return pats[logits.argmax(-1)].reshape(scores.shape)


def is_nm_sparse(weight: torch.Tensor, n: int, m: int) -> bool:
    """True iff every group of ``m`` consecutive input-dim weights of every row has exactly ``n`` non-zeros.

    Example
    -------
    >>> is_nm_sparse(torch.tensor([[1.0, 0.0, 0.0, 2.0]]), 2, 4)
    True
    """
    check_nm(n, m)
    check_matrix(weight, m)
    nz = (weight.detach() != 0).reshape(weight.shape[0], -1, m).sum(-1)
    return bool((nz == n).all())


def apply_nm_mask(weight: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``weight`` with the entries where ``mask`` is False set to exactly zero (a new tensor)."""
    check_tensor("weight", weight, floating=True)
    check_tensor("mask", mask)
    if weight.shape != mask.shape:
        raise ValueError(f"mask shape {tuple(mask.shape)} must equal weight shape {tuple(weight.shape)}")
    if mask.dtype != torch.bool and not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError(f"mask must be a bool (or 0/1) keep mask, got dtype {mask.dtype} with other values")
    return torch.where(mask.bool(), weight, torch.zeros((), dtype=weight.dtype, device=weight.device))


def anneal_tau(step: int, total: int, tau_start: float = 4.0, tau_end: float = 0.05) -> float:
    """Geometric temperature schedule from ``tau_start`` (step 0) to ``tau_end`` (step ``total - 1``)."""
    check_int("total", total, low=1)
    check_int("step", step, 0, total - 1)
    check_float("tau_start", tau_start, low=0.0, low_open=True)
    check_float("tau_end", tau_end, low=0.0, low_open=True)
    if total <= 1:
        return tau_end
    return float(tau_start * (tau_end / tau_start) ** (step / (total - 1)))


def gumbel_pattern_mask(
    logits: torch.Tensor,
    patterns: torch.Tensor,
    tau: float,
    noise: torch.Tensor | None = None,
    hard: bool = True,
) -> torch.Tensor:
    """Differentiable group mask from pattern logits ``(..., P)``: returns ``(..., m)``.

    ``patterns`` is the ``(P, m)`` 0/1 table of :func:`nm_patterns` (any real dtype: it is cast to the logits').

    Soft path: ``pi = softmax((logits + g) / tau)``, ``mask = pi @ patterns`` with Gumbel noise ``g`` (``noise``
    if given, zero-noise when ``noise`` is a zero tensor). With ``hard=True`` the forward value is the hard
    pattern of ``argmax(logits + g)`` and the backward pass is the soft path's (straight-through).
    """
    check_float("tau", tau, low=0.0, low_open=True)
    check_tensor("logits", logits, floating=True)
    check_tensor("patterns", patterns, ndim=2)
    if patterns.is_complex():
        raise TypeError(f"patterns must be a real 0/1 pattern table, got {patterns.dtype}")
    if logits.ndim < 1:
        raise ValueError(f"logits must be (..., P) pattern logits, got shape {tuple(logits.shape)}")
    if noise is not None:
        check_tensor("noise", noise, floating=True)
        if noise.shape != logits.shape:
            raise ValueError(
                f"noise must have the shape of logits {tuple(logits.shape)}, got {tuple(noise.shape)}"
            )
    if logits.shape[-1] != patterns.shape[0]:
        raise ValueError(
            f"logits last dim {logits.shape[-1]} must equal the number of patterns {patterns.shape[0]}"
        )
    g = noise if noise is not None else -torch.empty_like(logits).exponential_().log()
    y = logits + g
    pi = torch.softmax(y / tau, dim=-1)
    pats = patterns.to(logits.dtype)
    if hard:
        one = torch.nn.functional.one_hot(y.argmax(-1), patterns.shape[0]).to(logits.dtype)
        pi = one - pi.detach() + pi
    return pi @ pats
