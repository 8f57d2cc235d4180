"""Stitching, similarity and selection of KLAS (arXiv 2605.29259, ICLR 2026) and its baselines.

A binary stitch (A, i) -> (B, j) runs anchor A's embedding and blocks 1..i, a linear stitch S: d_A -> d_B applied
per token, then anchor B's blocks j+1..n_B and head. S is initialised by least squares on calibration activations,
S = argmin ||S H_A,i - H_B,j||^2 (+ ridge). KLAS similarity (a reconstruction, flagged (R) in the brief):

- ``"repr"`` (default): KL(Q || P) with Q = softmax(pool(H_B,j) / T) and P = softmax(S pool(H_A,i) / T) over the
  d_B features, per sample, averaged over the calibration set (pool = token mean);
- ``"head"``: KL between B's class posteriors from its native activation at j and from the stitched one.

Selection: candidates with FLOPs outside [FLOPs(smallest anchor), FLOPs(largest anchor)] are dropped, the range
is split into equal-width bins, and each bin keeps the candidate with the lowest score (KL; -CKA; SN-Net's depth
mismatch |i/n_A - j/n_B|; a random number). FLOPs come from ``torch.utils.flop_counter.FlopCounterMode``
(matmuls and convolutions; norms and activations are not counted).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from iclr26.checks import check_array, check_choice, check_float, check_int, check_tensor

__all__ = [
    "StitchedNet",
    "candidate_flops",
    "cka_similarity_matrix",
    "count_flops",
    "fit_stitch_ls",
    "kl_similarity_matrix",
    "linear_cka",
    "pareto_auc",
    "random_scores",
    "select_stitches",
    "snnet_scores",
]


def _check_anchor(model: nn.Module, name: str) -> None:
    for attr in ("embed", "blocks", "head"):
        if not hasattr(model, attr):
            raise TypeError(f"{name} must expose embed, blocks and head; it lacks {attr!r}")


def _n_classes(model: nn.Module) -> int:
    last = [m for m in model.head.modules() if isinstance(m, nn.Linear)]
    if not last:
        raise TypeError("anchor head must end in an nn.Linear classifier")
    return last[-1].out_features


def _check_pair(anchor_a: nn.Module, anchor_b: nn.Module) -> None:
    _check_anchor(anchor_a, "anchor_a")
    _check_anchor(anchor_b, "anchor_b")
    ca, cb = _n_classes(anchor_a), _n_classes(anchor_b)
    if ca != cb:
        raise ValueError(f"anchors have different head classes: anchor_a has {ca}, anchor_b has {cb}")


class StitchedNet(nn.Module):
    """Anchor A's blocks 1..i, a linear stitch, then anchor B's blocks j+1..n_B and head.

    Parameters
    ----------
    anchor_a, anchor_b : modules with ``embed``, an ordered ``blocks`` list and ``head`` (same number of classes).
    i : number of A's blocks run, 0 <= i <= len(anchor_a.blocks).
    j : number of B's blocks skipped, 0 <= j <= len(anchor_b.blocks).
    stitch : ``nn.Linear(d_A, d_B)`` applied to every token.
    """

    def __init__(self, anchor_a: nn.Module, anchor_b: nn.Module, i: int, j: int, stitch: nn.Linear) -> None:
        super().__init__()
        _check_pair(anchor_a, anchor_b)
        n_a, n_b = len(anchor_a.blocks), len(anchor_b.blocks)
        check_int("i (at most anchor_a's depth)", i, 0, n_a)
        check_int("j (at most anchor_b's depth)", j, 0, n_b)
        if not isinstance(stitch, nn.Linear):
            raise TypeError(f"stitch must be an nn.Linear, got {type(stitch).__name__}")
        d_a, d_b = getattr(anchor_a, "width", None), getattr(anchor_b, "width", None)
        if (d_a is not None and stitch.in_features != d_a) or (
            d_b is not None and stitch.out_features != d_b
        ):
            raise ValueError(
                f"stitch must map anchor_a's width {d_a} to anchor_b's width {d_b}, "
                f"got nn.Linear({stitch.in_features}, {stitch.out_features})"
            )
        self.i, self.j = i, j
        self.front = nn.ModuleList([anchor_a.embed, *list(anchor_a.blocks)[:i]])
        self.stitch = stitch
        self.back = nn.ModuleList(list(anchor_b.blocks)[j:])
        self.head = anchor_b.head

    def run_front(self, x: torch.Tensor) -> torch.Tensor:
        for m in self.front:
            x = m(x)
        return x

    def run_back(self, h: torch.Tensor) -> torch.Tensor:
        h = self.stitch(h)
        for m in self.back:
            h = m(h)
        return self.head(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run_back(self.run_front(x))

    def flops(self, example: torch.Tensor) -> int:
        """FLOPs of one forward pass on `example`, per sample (FlopCounterMode; matmuls and convolutions)."""
        return count_flops(self, example)


def count_flops(module: nn.Module, example: torch.Tensor) -> int:
    """FLOPs per sample of ``module(example)`` counted by ``torch.utils.flop_counter.FlopCounterMode``."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be an nn.Module, got {type(module).__name__}")
    check_tensor("example", example)
    if example.ndim < 1 or example.shape[0] < 1:
        raise ValueError(
            f"example must be a batch with at least one sample, got shape {tuple(example.shape)}"
        )
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        _named("example", module, example)
    return int(counter.get_total_flops()) // max(1, example.shape[0])


def _named(name: str, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``; a ValueError or TypeError of the model on bad input is re-raised naming the argument
    `name` the input came from."""
    try:
        return call(*args)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{name}: {err}") from err


def fit_stitch_ls(H_a: torch.Tensor, H_b: torch.Tensor, ridge: float = 1e-4) -> nn.Linear:
    """Least-squares stitch S (with bias) minimising ||S H_a - H_b||^2 + ridge ||W||^2.

    Parameters
    ----------
    H_a : (C, d_A) or (..., d_A) activations of A (leading axes are flattened to rows).
    H_b : matching activations of B, same leading shape, last axis d_B.
    ridge : L2 penalty on the weight (not the bias). With ridge = 0 and fewer rows than d_A + 1 the problem is
        underdetermined: a warning is issued and ridge = 1e-4 is used.

    Returns
    -------
    nn.Linear(d_A, d_B) in the dtype of `H_a`.
    """
    for name, h in (("H_a", H_a), ("H_b", H_b)):
        check_tensor(name, h, floating=True)
        if h.ndim < 2 or h.shape[-1] < 1:
            raise ValueError(
                f"{name} must be (..., d) activations with at least one row, got shape {tuple(h.shape)}"
            )
    if H_a.shape[:-1] != H_b.shape[:-1]:
        raise ValueError(
            f"H_a and H_b must have the same leading shape, got {tuple(H_a.shape)} and {tuple(H_b.shape)}"
        )
    if H_a.numel() == 0:
        raise ValueError(f"H_a must hold at least one row, got shape {tuple(H_a.shape)}")
    for name, h in (("H_a", H_a), ("H_b", H_b)):
        check_tensor(name, h, finite=True)
    check_float("ridge", ridge, low=0.0)
    xa = H_a.detach().reshape(-1, H_a.shape[-1])
    xb = H_b.detach().reshape(-1, H_b.shape[-1]).to(xa.dtype)
    c, d_a = xa.shape
    if c < d_a + 1 and ridge == 0:
        warnings.warn(
            f"calibration set has {c} rows, fewer than d_A + 1 = {d_a + 1}: least squares is underdetermined; "
            "using ridge = 1e-4",
            stacklevel=2,
        )
        ridge = 1e-4
    mu_a, mu_b = xa.mean(0), xb.mean(0)
    za, zb = xa - mu_a, xb - mu_b
    gram = za.T @ za + ridge * c * torch.eye(d_a, dtype=xa.dtype)
    w = torch.linalg.solve(gram, za.T @ zb).T  # (d_B, d_A)
    lin = nn.Linear(d_a, xb.shape[1]).to(xa.dtype)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(mu_b - w @ mu_a)
    return lin


def _stack(calib: torch.Tensor | Iterable) -> torch.Tensor:
    """The calibration inputs as one finite floating tensor."""
    if isinstance(calib, torch.Tensor):
        return check_tensor("calib_loader", calib, floating=True, finite=True)
    if calib is None or isinstance(calib, (str, bytes)) or not isinstance(calib, Iterable):
        raise TypeError(
            f"calib_loader must be a tensor or an iterable of batches, got {type(calib).__name__}"
        )
    parts = [b[0] if isinstance(b, (tuple, list)) else b for b in calib]
    if not parts:
        raise ValueError("calib_loader is empty")
    for i, part in enumerate(parts):
        check_tensor(f"calib_loader (batch {i})", part, floating=True, finite=True)
    return torch.cat(parts)


def _kl_rows(log_q: torch.Tensor, log_p: torch.Tensor) -> float:
    return float((log_q.exp() * (log_q - log_p)).sum(-1).clamp_min(0.0).mean())


@torch.no_grad()
def kl_similarity_matrix(
    anchor_a: nn.Module,
    anchor_b: nn.Module,
    calib_loader: torch.Tensor | Iterable,
    variant: str = "repr",
    T: float = 1.0,
    ridge: float = 1e-4,
) -> np.ndarray:
    """KLAS dissimilarity of every candidate (i, j), i = 1..n_A, j = 1..n_B: a [n_A, n_B] array (lower = better).

    ``variant="repr"``: mean over samples of KL(softmax(pool H_B,j / T) || softmax(S pool H_A,i / T)) with S the
    least-squares stitch; ``"head"``: KL between B's posteriors finishing from H_B,j and from S H_A,i.
    `calib_loader` is a tensor of inputs or an iterable of batches (``x`` or ``(x, y)``).
    """
    _check_pair(anchor_a, anchor_b)
    check_choice("variant", variant, ("repr", "head"))
    check_float("T", T, low=0.0, low_open=True)  # a temperature
    check_float("ridge", ridge, low=0.0)
    x = _stack(calib_loader)
    fa, fb = _named("calib_loader", anchor_a.features, x), _named("calib_loader", anchor_b.features, x)
    n_a, n_b = len(fa) - 1, len(fb) - 1
    out = np.zeros((n_a, n_b))
    for i in range(1, n_a + 1):
        for j in range(1, n_b + 1):
            s = fit_stitch_ls(fa[i], fb[j], ridge)
            if variant == "repr":
                log_q = torch.log_softmax(fb[j].mean(1) / T, -1)
                log_p = torch.log_softmax(s(fa[i]).mean(1) / T, -1)
            else:
                back = list(anchor_b.blocks)[j:]
                hq, hp = fb[j], s(fa[i])
                for m in back:
                    hq, hp = m(hq), m(hp)
                log_q = torch.log_softmax(anchor_b.head(hq) / T, -1)
                log_p = torch.log_softmax(anchor_b.head(hp) / T, -1)
            out[i - 1, j - 1] = _kl_rows(log_q, log_p)
    return out


def linear_cka(X: torch.Tensor | np.ndarray, Y: torch.Tensor | np.ndarray) -> float:
    """Linear CKA (Kornblith et al. 2019): ||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F), in [0, 1]."""
    x = check_array("X", X)
    y = check_array("Y", Y)
    for name, a in (("X", x), ("Y", y)):
        if a.ndim != 2 or a.shape[0] < 2 or a.shape[1] < 1:
            raise ValueError(f"{name} must be a (n >= 2, d) matrix of representations, got shape {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must hold finite values (no NaN or infinity)")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"X and Y must have the same number of rows, got {x.shape[0]} and {y.shape[0]}")
    x, y = x - x.mean(0), y - y.mean(0)
    num = np.linalg.norm(y.T @ x) ** 2
    den = np.linalg.norm(x.T @ x) * np.linalg.norm(y.T @ y)
    return float(num / den) if den > 0 else 0.0


@torch.no_grad()
def cka_similarity_matrix(
    anchor_a: nn.Module, anchor_b: nn.Module, calib_loader: torch.Tensor | Iterable
) -> np.ndarray:
    """Linear CKA of token-mean pooled activations for every (i, j), i = 1..n_A, j = 1..n_B (higher = more similar)."""
    _check_pair(anchor_a, anchor_b)
    x = _stack(calib_loader)
    fa = [h.mean(1).numpy() for h in _named("calib_loader", anchor_a.features, x)[1:]]
    fb = [h.mean(1).numpy() for h in _named("calib_loader", anchor_b.features, x)[1:]]
    return np.array([[linear_cka(a, b) for b in fb] for a in fa])


def candidate_flops(anchor_a: nn.Module, anchor_b: nn.Module, example: torch.Tensor) -> np.ndarray:
    """FLOPs per sample of every stitch (i, j), i = 1..n_A, j = 1..n_B, from per-component counts.

    FLOPs = embed_A + sum(A blocks 1..i) + FLOPs(S) + sum(B blocks j+1..n_B) + head_B, each counted once with
    FlopCounterMode; equal to ``StitchedNet(...).flops(example)`` (tested).
    """
    _check_pair(anchor_a, anchor_b)
    check_tensor("example", example)
    with torch.no_grad():
        ha = _named("example", anchor_a.features, example)
        hb = _named("example", anchor_b.features, example)
    ea = count_flops(anchor_a.embed, example)
    ba = [count_flops(m, ha[k]) for k, m in enumerate(anchor_a.blocks)]
    bb = [count_flops(m, hb[k]) for k, m in enumerate(anchor_b.blocks)]
    head_b = count_flops(anchor_b.head, hb[-1])
    d_a, d_b = ha[0].shape[-1], hb[0].shape[-1]
    s_flops = count_flops(nn.Linear(d_a, d_b), ha[0])
    n_a, n_b = len(ba), len(bb)
    return np.array(
        [
            [ea + sum(ba[:i]) + s_flops + sum(bb[j:]) + head_b for j in range(1, n_b + 1)]
            for i in range(1, n_a + 1)
        ],
        dtype=float,
    )


def select_stitches(
    kl: np.ndarray, flops: np.ndarray, n_bins: int, flops_range: tuple[float, float] | None = None
) -> list[tuple[int, int]]:
    """One stitch per non-empty FLOPs bin: the candidate with the lowest score in that bin.

    Parameters
    ----------
    kl : [n_A, n_B] scores (KL, or any "lower is better" score); NaN entries are never chosen.
    flops : [n_A, n_B] FLOPs of the candidates.
    n_bins : number of equal-width bins over `flops_range`.
    flops_range : (lo, hi), by default (FLOPs(smallest anchor), FLOPs(largest anchor)) should be passed; when
        None the candidates' own min and max are used. Candidates outside [lo, hi] are discarded.

    Returns
    -------
    list of (row, col) indices into `kl` (0-based: stitch (i, j) = (row + 1, col + 1)), ordered by bin.
    """
    kl, flops = check_array("kl", kl), check_array("flops", flops, finite=True)
    if kl.shape != flops.shape:
        raise ValueError(f"kl and flops must have the same shape, got {kl.shape} and {flops.shape}")
    check_int("n_bins", n_bins, low=1)
    if flops_range is not None:
        if not isinstance(flops_range, (tuple, list)) or len(flops_range) != 2:
            raise ValueError(f"flops_range must be a (lo, hi) pair, got {flops_range!r}")
        check_float("flops_range[0]", flops_range[0])
        check_float("flops_range[1]", flops_range[1])
    lo, hi = flops_range if flops_range is not None else (float(np.nanmin(flops)), float(np.nanmax(flops)))
    if not hi >= lo:
        raise ValueError(f"flops_range must have lo <= hi, got ({lo}, {hi})")
    width = (hi - lo) / n_bins
    best: dict[int, tuple[float, tuple[int, int]]] = {}
    for idx in zip(*np.nonzero(np.isfinite(kl) & (flops >= lo) & (flops <= hi))):
        f = flops[idx]
        b = min(n_bins - 1, int((f - lo) / width)) if width > 0 else 0
        key = (kl[idx], (int(idx[0]), int(idx[1])))
        if b not in best or key < best[b]:
            best[b] = key
    return [best[b][1] for b in sorted(best)]


def snnet_scores(n_a: int, n_b: int, window: int = 1) -> np.ndarray:
    """SN-Net's heuristic as a score: relative-depth mismatch |i/n_A - j/n_B|, NaN outside the sliding window.

    Candidates (i, j) are kept when j lies within `window` layers of the depth-matched layer round(i n_B / n_A).
    """
    check_int("n_a", n_a, low=1)
    check_int("n_b", n_b, low=1)
    check_int("window", window, low=0)
    i = np.arange(1, n_a + 1)[:, None]
    j = np.arange(1, n_b + 1)[None, :]
    score = np.abs(i / n_a - j / n_b)
    inside = np.abs(j - np.round(i * n_b / n_a)) <= window
    return np.where(inside, score, np.nan)


def random_scores(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Uniform random scores: selecting their minimum per bin is random selection within each bin."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise ValueError(f"shape must be an (n_a, n_b) tuple, got {shape!r}")
    for k, n in enumerate(shape):
        check_int(f"shape[{k}]", n, low=0)
    return rng.random(shape)


def pareto_auc(flops: Sequence[float], acc: Sequence[float], f_lo: float, f_hi: float) -> float:
    """Area under the accuracy-FLOPs Pareto frontier on normalised FLOPs x = (f - f_lo) / (f_hi - f_lo) in [0, 1].

    The frontier at x is the best accuracy among points with normalised FLOPs <= x (0 before the first point).
    """
    check_float("f_lo", f_lo)
    check_float("f_hi", f_hi)
    if not f_hi > f_lo:
        raise ValueError(f"need f_hi > f_lo, got {f_lo}, {f_hi}")
    f = np.clip((np.asarray(flops, dtype=float) - f_lo) / (f_hi - f_lo), 0.0, 1.0)
    a = np.asarray(acc, dtype=float)
    if f.shape != a.shape:
        raise ValueError(f"flops and acc must have the same length, got {f.shape} and {a.shape}")
    if f.ndim != 1 or not f.size:
        raise ValueError(f"flops and acc must be non-empty 1-D sequences, got shape {f.shape}")
    for name, v in (("flops", np.asarray(flops, dtype=float)), ("acc", a)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must hold finite values (no NaN or infinity)")
    order = np.argsort(f, kind="stable")
    xs = np.append(f[order], 1.0)
    best = np.maximum.accumulate(a[order])
    return float(np.sum(best * np.diff(xs)))
