"""Labelled-manifold tasks for in-context semi-supervised learning (IC-SSL, arXiv 2512.15934).

A task is one context of ``n`` points on a low-dimensional manifold, a few of them labelled, plus query points
from iclr26.checks import check_int
from the same manifold. Each family draws points in 2-4 ambient dimensions (sklearn's ``make_moons``,
``make_circles``, ``make_swiss_roll``; spirals and tori by hand; ``load_digits`` PCA features as an image-manifold
stand-in), standardises them, rotates them by a random
orthogonal map into ``d`` dimensions and adds isotropic noise. Tokens are ``[x_i; y_i]`` with ``y_i`` one-hot
for labelled points and all-zero for unlabelled context points and for queries.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.datasets import load_digits, make_circles, make_moons, make_swiss_roll

from iclr26.checks import check_array, check_float, check_int, check_tensor

__all__ = [
    "FAMILIES",
    "ID_FAMILIES",
    "OOD_FAMILIES",
    "ManifoldTask",
    "make_task",
    "task_batch",
    "tokens_from_task",
]

ID_FAMILIES = ("moons", "circles", "spirals2", "spirals3")
OOD_FAMILIES = ("swiss_roll", "torus")
FAMILIES = (*ID_FAMILIES, *OOD_FAMILIES, "digits")
N_CLASSES = {"moons": 2, "circles": 2, "spirals2": 2, "spirals3": 3, "swiss_roll": 3, "torus": 3, "digits": 3}
DIGITS_DIM = 16


@functools.lru_cache(maxsize=1)
def _digits() -> tuple[np.ndarray, np.ndarray]:
    data = load_digits()
    return data.data / 16.0, data.target


@dataclass(frozen=True)
class ManifoldTask:
    """One in-context task: context points with partial labels (-1 = unlabelled) and labelled queries."""

    x_ctx: np.ndarray  # (n, d)
    y_ctx: np.ndarray  # (n,) int, -1 where unlabelled
    x_qry: np.ndarray  # (q, d)
    y_qry: np.ndarray  # (q,) int
    n_classes: int
    family: str
    y_ctx_true: np.ndarray  # (n,) the hidden labels of every context point

    def __post_init__(self) -> None:
        check_int("n_classes", self.n_classes, low=2)
        x_ctx = check_array("x_ctx", self.x_ctx, ndim=2)
        n, d = x_ctx.shape
        x_qry = check_array("x_qry", self.x_qry, ndim=2)
        if x_qry.shape[1] != d:
            raise ValueError(f"x_qry must have d={d} columns (as x_ctx), got shape {x_qry.shape}")
        for name, rows, low in (("y_ctx", n, -1), ("y_qry", x_qry.shape[0], 0), ("y_ctx_true", n, 0)):
            y = check_array(name, getattr(self, name), ndim=1, integer=True)
            if y.shape != (rows,):
                raise ValueError(f"{name} must have shape ({rows},), got {y.shape}")
            if y.size and (int(y.min()) < low or int(y.max()) >= self.n_classes):
                raise ValueError(
                    f"{name} must hold labels in [{low}, n_classes={self.n_classes}), got values in "
                    f"[{int(y.min())}, {int(y.max())}]"
                )


def _spirals(m: int, arms: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`arms` interlaced Archimedean spiral arms; class = arm."""
    y = rng.integers(0, arms, size=m)
    t = np.sqrt(rng.uniform(0.0, 1.0, size=m)) * 1.6 * np.pi + 0.8
    ang = t + 2 * np.pi * y / arms
    return np.stack([t * np.cos(ang), t * np.sin(ang)], 1), y


def _raw(family: str, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points in the family's native low dimension and their class labels."""
    state = int(rng.integers(0, 2**31 - 1))
    if family == "moons":
        x, y = make_moons(m, noise=0.05, random_state=state)
    elif family == "circles":
        x, y = make_circles(m, noise=0.03, factor=0.45, random_state=state)
    elif family == "spirals2":
        x, y = _spirals(m, 2, rng)
    elif family == "spirals3":
        x, y = _spirals(m, 3, rng)
    elif family == "swiss_roll":
        x, t = make_swiss_roll(m, noise=0.05, random_state=state)
        y = np.digitize(t, np.quantile(t, [1 / 3, 2 / 3]))  # three segments along the roll
    elif family == "digits":  # image-manifold stand-in: 3 random digit classes, PCA to 16 dims
        xs, ys = _digits()
        classes = rng.choice(10, size=3, replace=False)
        pool = np.flatnonzero(np.isin(ys, classes))
        idx = rng.choice(pool, size=m, replace=False)
        x = xs[idx] - xs[idx].mean(0)
        x = x @ np.linalg.svd(x, full_matrices=False)[2][:DIGITS_DIM].T
        y = np.searchsorted(np.sort(classes), ys[idx])
    elif family == "torus":
        a, b = rng.uniform(0, 2 * np.pi, size=(2, m))
        x = np.stack([np.cos(a), np.sin(a), 0.6 * np.cos(b), 0.6 * np.sin(b)], 1)
        y = np.floor(a / (2 * np.pi / 3)).astype(int) % 3  # three angular sectors of the first circle
    else:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    return np.asarray(x, dtype=float), np.asarray(y, dtype=int)


def make_task(
    family: str,
    n_context: int,
    n_query: int,
    d: int,
    labels_per_class: int,
    rng: np.random.Generator,
    noise: float = 0.02,
) -> ManifoldTask:
    """Draw one task of `family`: standardise, rotate into `d` dims, add noise, label `labels_per_class` per class.

    Example
    -------
    >>> t = make_task("moons", 32, 8, 8, 1, np.random.default_rng(0))
    >>> t.x_ctx.shape, int((t.y_ctx >= 0).sum()), t.n_classes
    ((32, 8), 2, 2)
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    check_int("n_context", n_context, low=2, type_error=True)
    check_int("n_query", n_query, low=1, type_error=True)
    check_int("labels_per_class", labels_per_class, low=0, type_error=True)
    check_float("noise", noise, low=0.0)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    n_cls = N_CLASSES[family]
    if n_cls * labels_per_class > n_context:
        raise ValueError(
            f"labels_per_class={labels_per_class} x {n_cls} classes exceeds n_context={n_context}"
        )
    m = n_context + n_query
    for _ in range(100):  # redraw until every class has enough context points to label
        x, y = _raw(family, m, rng)
        if all((y[:n_context] == c).sum() >= max(labels_per_class, 1) for c in range(n_cls)):
            break
    check_int("d", d, low=x.shape[1], type_error=True)
    x = (x - x.mean(0)) / x.std(0).mean()
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    x = np.pad(x, ((0, 0), (0, d - x.shape[1]))) @ q.T + noise * rng.standard_normal((m, d))
    y_ctx_true = y[:n_context]
    y_ctx = np.full(n_context, -1)
    for c in range(n_cls):
        idx = np.flatnonzero(y_ctx_true == c)
        y_ctx[rng.choice(idx, size=labels_per_class, replace=False)] = c
    return ManifoldTask(x[:n_context], y_ctx, x[n_context:], y[n_context:], n_cls, family, y_ctx_true)


def _points(name: str, x: np.ndarray | torch.Tensor) -> torch.Tensor:
    """Points as a float32 tensor: a floating-point tensor or a real array (an integer array converts exactly)."""
    if isinstance(x, torch.Tensor):
        check_tensor(name, x, floating=True)
    else:
        x = check_array(name, x)
    return torch.as_tensor(x, dtype=torch.float32)


def _labels(y: np.ndarray | torch.Tensor) -> np.ndarray | torch.Tensor:
    """Integer labels: an integer tensor, or an array of whole numbers (a float array of them converts)."""
    if isinstance(y, torch.Tensor):
        return check_tensor("y_ctx", y, floating=False)
    a = check_array("y_ctx", y)
    if not bool(np.all(a == np.round(a))):
        raise ValueError("y_ctx must hold integer labels (-1 = unlabelled), got fractional values")
    return a


def tokens_from_task(
    x_ctx: np.ndarray | torch.Tensor,
    y_ctx: np.ndarray | torch.Tensor,
    x_qry: np.ndarray | torch.Tensor,
    n_classes: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokens ``[x; onehot(y) or 0]`` of shape (n + q, d + n_classes) and the is-query mask (n + q,)."""
    x_ctx, x_qry = _points("x_ctx", x_ctx), _points("x_qry", x_qry)
    if x_ctx.ndim != 2 or x_qry.ndim != 2:
        raise ValueError(
            f"x_ctx and x_qry must be 2-D (points, dim), got {tuple(x_ctx.shape)}, {tuple(x_qry.shape)}"
        )
    if not (bool(torch.isfinite(x_ctx).all()) and bool(torch.isfinite(x_qry).all())):
        raise ValueError("x_ctx and x_qry must be finite (no NaN or infinity)")
    check_int("n_classes", n_classes, low=1)
    if x_ctx.shape[1] != x_qry.shape[1]:
        raise ValueError(f"feature dims differ: x_ctx has {x_ctx.shape[1]}, x_qry has {x_qry.shape[1]}")
    y_ctx = torch.as_tensor(_labels(y_ctx), dtype=torch.long)
    if y_ctx.shape != (x_ctx.shape[0],):
        raise ValueError(f"y_ctx must have shape ({x_ctx.shape[0]},), got {tuple(y_ctx.shape)}")
    if y_ctx.numel() and (int(y_ctx.max()) >= n_classes or int(y_ctx.min()) < -1):
        raise ValueError(f"y_ctx labels must lie in [-1, {n_classes - 1}] (-1 = unlabelled)")
    lab = torch.zeros(x_ctx.shape[0] + x_qry.shape[0], n_classes)
    known = torch.nonzero(y_ctx >= 0).squeeze(1)
    lab[known, y_ctx[known]] = 1.0
    tokens = torch.cat([torch.cat([x_ctx, x_qry]), lab], 1)
    is_query = torch.zeros(tokens.shape[0], dtype=torch.bool)
    is_query[x_ctx.shape[0] :] = True
    return tokens, is_query


def task_batch(
    families: Sequence[str],
    batch: int,
    n_context: int,
    n_query: int,
    d: int,
    labels_per_class: int | Sequence[int],
    n_classes: int,
    rng: np.random.Generator,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, list[ManifoldTask]]:
    """A batch of tasks (family and labels-per-class drawn per task): tokens (B, n+q, d+C), is_query, labels.

    ``labels`` holds the query labels at query positions and -1 elsewhere.
    """
    if isinstance(families, str) or not families or any(f not in FAMILIES for f in families):
        raise ValueError(f"families must be a non-empty sequence of {FAMILIES}, got {families!r}")
    check_int("batch", batch, low=1, type_error=True)
    lpcs = [labels_per_class] if isinstance(labels_per_class, (int, np.integer)) else list(labels_per_class)
    if not lpcs:
        raise ValueError("labels_per_class must be an int or a non-empty sequence of ints")
    toks, qs, labs, tasks = [], [], [], []
    for _ in range(batch):
        fam = families[int(rng.integers(len(families)))]
        t = make_task(fam, n_context, n_query, d, int(lpcs[int(rng.integers(len(lpcs)))]), rng)
        tok, q = tokens_from_task(t.x_ctx, t.y_ctx, t.x_qry, n_classes)
        toks.append(tok)
        qs.append(q)
        labs.append(torch.cat([torch.full((n_context,), -1), torch.as_tensor(t.y_qry)]))
        tasks.append(t)
    return torch.stack(toks), torch.stack(qs), torch.stack(labs), tasks
