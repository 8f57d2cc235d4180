"""Period detection, bucketing and the period fold of PHAT ("PHAT: Modeling Period Heterogeneity for
Multivariate Time Series Forecasting", ICLR 2026, arXiv 2602.00654).

* :func:`detect_periods`: amplitude ``|rFFT(x)|`` over time, averaged over the batch, DC bin zeroed, top-k
  frequencies per variable, ``P = round(L / f)``, periods >= L mapped to the horizon F; fusion weights
  ``softmax_r |rFFT(x)|_{f_r}`` per sample.
* :func:`fold` / :func:`unfold`: (B, F, d) <-> (B, P, N, d) with ``N = ceil(F / P)`` and zero padding; the paper
  layout ``Z[o, n] = z[n P + o]`` (offset first, cycle second) or the released code's ``Z[i, n] = z[i N + n]``.
* :func:`periodic_distance`, :func:`periodic_modulation_index`: the index sets of the modulation term.
"""

from __future__ import annotations

import math

import torch

from iclr26.checks import check_bool, check_choice, check_int, check_tensor

__all__ = ["detect_periods", "fold", "periodic_distance", "periodic_modulation_index", "unfold"]

LAYOUTS = ("paper", "code")


@torch.no_grad()
def detect_periods(
    x: torch.Tensor, k: int = 1, horizon: int | None = None, shared: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """Top-`k` periods per variable, ``(k, C)`` long, and fusion weights ``(B, k, C)`` (no gradient).

    ``shared=True`` ranks the frequencies of the variable-averaged spectrum instead, so every variable gets
    the same periods (the single-period assumption); weights are still each variable's own amplitudes.
    """
    check_tensor("x", x, ndim=3, floating=True, finite=True)
    B, L, C = x.shape
    if B < 1 or C < 1:
        raise ValueError(f"x must have B >= 1 windows and C >= 1 variables, got shape {tuple(x.shape)}")
    k = check_int(f"k (in [1, L/2={L // 2}])", k, 1, max(1, L // 2))
    if L < 2:
        raise ValueError(f"x needs a lookback L >= 2 for a spectrum, got L={L}")
    horizon = L if horizon is None else check_int("horizon", horizon, low=1)
    check_bool("shared", shared)
    amp = torch.fft.rfft(x, dim=1).abs()  # (B, L//2+1, C)
    spec = amp.mean(0)
    spec[0] = 0
    if shared:
        top = spec.mean(1, keepdim=True).topk(k, dim=0).indices.expand(k, C)
    else:
        top = spec.topk(k, dim=0).indices  # (k, C) frequency bins
    periods = torch.round(L / top).long()
    periods[periods >= L] = horizon
    weights = torch.softmax(torch.gather(amp, 1, top[None].expand(B, -1, -1)), dim=1)
    return periods, weights


def fold(z: torch.Tensor, P: int, layout: str = "paper") -> torch.Tensor:
    """(B, F, d) -> (B, P, N, d), zero-padded to ``N P`` steps (``N = ceil(F / P)``)."""
    check_tensor("z", z, ndim=3, floating=True)
    P = check_int("P", P, low=1)
    check_choice("layout", layout, LAYOUTS)
    B, T, d = z.shape
    N = math.ceil(T / P)
    z = torch.nn.functional.pad(z, (0, 0, 0, N * P - T))
    if layout == "paper":
        return z.reshape(B, N, P, d).transpose(1, 2)  # Z[o, n] = z[n P + o]
    return z.reshape(B, P, N, d)  # Z[i, n] = z[i N + n]


def unfold(Z: torch.Tensor, length: int, layout: str = "paper") -> torch.Tensor:
    """Inverse of :func:`fold`: (B, P, N, d) -> (B, length, d), padding dropped."""
    check_tensor("Z", Z, ndim=4, floating=True)
    check_choice("layout", layout, LAYOUTS)
    B, P, N, d = Z.shape
    length = check_int(f"length (in [1, P*N={P * N}])", length, 1, P * N)
    z = Z.transpose(1, 2).reshape(B, P * N, d) if layout == "paper" else Z.reshape(B, P * N, d)
    return z[:, :length]


def periodic_distance(P: int, cyclic: bool = True) -> torch.Tensor:
    """(P, P) long: ``min((i - j) mod P, (j - i) mod P)``, or ``|i - j|`` when not `cyclic`."""
    P = check_int("P", P, low=1)
    check_bool("cyclic", cyclic)
    pos = torch.arange(P)
    d = (pos[:, None] - pos[None, :]).abs()
    return torch.minimum(d % P, (-d) % P) if cyclic else d


def periodic_modulation_index(P: int, cyclic: bool = True) -> torch.Tensor:
    """(P, P, P, 2) float, indexed ``[i, s, j, e]``: which penalties ``softplus(l[i, s])`` logit ``l[i, j]`` pays.

    e = 0 (positive): ``(s != i and delta(i, s) < delta(i, j)) or s == j``;
    e = 1 (negative): ``(s != i and delta(i, s) > delta(i, j)) or s == j`` when `cyclic`, else the positive set
    (the released code's rule for single-cycle grids).
    """
    dist = periodic_distance(P, cyclic)
    i, s, j = (torch.arange(P).view(*shape) for shape in ((-1, 1, 1), (1, -1, 1), (1, 1, -1)))
    d_is, d_ij = dist[i, s], dist[i, j]
    not_self, hit = s != i, (s == j)
    pos = (not_self & (d_is < d_ij)) | hit
    neg = (not_self & (d_is > d_ij)) | hit if cyclic else pos
    return torch.stack([pos, neg], -1).float()
