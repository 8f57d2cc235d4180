"""Terminal features h_k(I) in [0, 1] and the 1-D maximum-entropy fit of one term.

Paper: the ICLR 2026 compositional AND-OR template (reconstruction after Si & Zhu, PAMI 2013). Candidate terms:

* presence of a category (indicator);
* a Gaussian bump of a part's centre around an anchor on a 9 x 9 grid, h = exp(-|c - a|^2 / (2 * 0.05^2));
* bumps of log scale and of angle;
* relations between the subject and another part: a bump of the relative offset (5 x 5 grid), a bump of the log
  size ratio, alignment flags (|dx| or |dy| < 0.04), and "subject inside the frame".

Per term, the information projection p(I) = q(I) exp(lambda h(I)) / Z(lambda), Z = E_q[exp(lambda h)], with
lambda solving E_p[h] = mean_data h (Newton safeguarded by bisection, all terms at once), on a fixed reference
sample of q. Gain G = lambda * mean_data h - log Z(lambda) (the KL from q to the tilted model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_array
from iclr26.generative.and_or_template.scenes import CATEGORIES, as_parts

__all__ = ["TERMS", "Term", "fit_lambdas", "geometry", "term_features"]

C = {c: i for i, c in enumerate(CATEGORIES)}
GRID = np.round(np.arange(1, 10) / 10, 6)
POS_SIGMA = 0.05
OFF = np.array([-0.5, -0.25, 0.0, 0.25, 0.5])
OFF_SIGMA = 0.1
LOGS = np.log([0.08, 0.15, 0.25, 0.4, 0.65])
LOGS_SIGMA = 0.25
ANG = np.array([-0.3, -0.15, 0.0, 0.15, 0.3])
ANG_SIGMA = 0.05
RATIO = np.array([-1.5, -0.75, 0.0, 0.75])
RATIO_SIGMA = 0.3
ALIGN = 0.04
LAMBDA_MAX = 10.0


@dataclass(frozen=True)
class Term:
    """One candidate term: its kind, the part(s) it reads, and its anchor (a tuple)."""

    name: str
    kind: str  # presence | pos | scale | angle | offset | ratio | align_x | align_y | inside
    category: str
    other: str | None = None
    anchor: tuple[float, ...] = ()


def _dictionary() -> list[Term]:
    terms = []
    for c in CATEGORIES:
        terms.append(Term(f"{c}:present", "presence", c))
        for ax in GRID:
            for ay in GRID:
                terms.append(Term(f"{c}:pos({ax:.1f},{ay:.1f})", "pos", c, anchor=(float(ax), float(ay))))
        for a in LOGS:
            terms.append(Term(f"{c}:scale({np.exp(a):.2f})", "scale", c, anchor=(float(a),)))
        for a in ANG:
            terms.append(Term(f"{c}:angle({a:+.2f})", "angle", c, anchor=(float(a),)))
    for o in ("secondary", "horizon", "frame"):
        for dx in OFF:
            for dy in OFF:
                terms.append(
                    Term(
                        f"{o}-subject:offset({dx:+.2f},{dy:+.2f})",
                        "offset",
                        "subject",
                        o,
                        (float(dx), float(dy)),
                    )
                )
        for r in RATIO:
            terms.append(Term(f"{o}/subject:ratio({r:+.2f})", "ratio", "subject", o, (float(r),)))
        terms.append(Term(f"{o}~subject:align_x", "align_x", "subject", o))
        terms.append(Term(f"{o}~subject:align_y", "align_y", "subject", o))
    terms.append(Term("subject-in-frame", "inside", "subject", "frame"))
    return terms


TERMS: tuple[Term, ...] = tuple(_dictionary())


def geometry(scenes) -> np.ndarray:
    """(n, 4 categories, 5): present, cx, cy, log scale, angle of each category's largest part (order-free)."""
    out = np.zeros((len(scenes), len(CATEGORIES), 5))
    for i, s in enumerate(scenes):
        best: dict[str, tuple] = {}
        for p in as_parts(s, f"scenes[{i}]"):
            key = (p.scale, p.cx, p.cy, p.angle)
            if p.category not in best or key > best[p.category][0]:
                best[p.category] = (key, p)
        for c, (_, p) in best.items():
            out[i, C[c]] = (1.0, p.cx, p.cy, np.log(p.scale), p.angle)
    return out


def _bump(d2: np.ndarray, sigma: float) -> np.ndarray:
    return np.exp(-d2 / (2 * sigma**2))


def term_features(geo: np.ndarray) -> np.ndarray:
    """(n, K) terminal features of the geometry array (column order = TERMS)."""
    geo = check_array("geo", geo, ndim=3)
    if geo.shape[1:] != (len(CATEGORIES), 5):
        raise ValueError(f"geo must have shape (n, {len(CATEGORIES)}, 5) (see geometry), got {geo.shape}")
    cols = []
    for c in CATEGORIES:
        g = geo[:, C[c]]
        pres = g[:, 0]
        cols.append(pres[:, None])
        ax, ay = np.meshgrid(GRID, GRID, indexing="ij")
        d2 = (g[:, 1:2] - ax.ravel()) ** 2 + (g[:, 2:3] - ay.ravel()) ** 2
        cols.append(pres[:, None] * _bump(d2, POS_SIGMA))
        cols.append(pres[:, None] * _bump((g[:, 3:4] - LOGS) ** 2, LOGS_SIGMA))
        cols.append(pres[:, None] * _bump((g[:, 4:5] - ANG) ** 2, ANG_SIGMA))
    s = geo[:, C["subject"]]
    for o in ("secondary", "horizon", "frame"):
        g = geo[:, C[o]]
        both = (s[:, 0] * g[:, 0])[:, None]
        dx, dy = g[:, 1] - s[:, 1], g[:, 2] - s[:, 2]
        ox, oy = np.meshgrid(OFF, OFF, indexing="ij")
        d2 = (dx[:, None] - ox.ravel()) ** 2 + (dy[:, None] - oy.ravel()) ** 2
        cols.append(both * _bump(d2, OFF_SIGMA))
        cols.append(both * _bump(((g[:, 3] - s[:, 3])[:, None] - RATIO) ** 2, RATIO_SIGMA))
        cols.append(both * (np.abs(dx) < ALIGN)[:, None])
        cols.append(both * (np.abs(dy) < ALIGN)[:, None])
    f = geo[:, C["frame"]]
    half = np.exp(f[:, 3]) / 2
    inside = (np.abs(s[:, 1] - f[:, 1]) < half) & (np.abs(s[:, 2] - f[:, 2]) < half)
    cols.append((s[:, 0] * f[:, 0] * inside)[:, None])
    return np.concatenate(cols, axis=1)


def _tilted(h: np.ndarray, lam: np.ndarray):
    """log Z, E_lambda[h], Var_lambda[h] per column of the reference features h (n_ref, K)."""
    a = h * lam
    m = a.max(axis=0)
    w = np.exp(a - m)
    z = w.mean(axis=0)
    e1 = (w * h).mean(axis=0) / z
    e2 = (w * h * h).mean(axis=0) / z
    return m + np.log(z), e1, np.maximum(e2 - e1 * e1, 0.0)


def fit_lambdas(h_ref: np.ndarray, target: np.ndarray, tol: float = 1e-10, max_iter: int = 60):
    """lambda_k solving E_q[h_k exp(lambda_k h_k)] / Z_k = target_k; returns (lambda, log Z, gain, clipped).

    Targets at or outside the reference sample's range of h_k push lambda to +-LAMBDA_MAX (``clipped``): there
    the moments cannot be matched exactly and the term acts as a near-hard constraint.
    """
    h_ref = check_array("h_ref", h_ref, ndim=2)
    target = check_array("target", target, ndim=1)
    if target.shape[0] != h_ref.shape[1]:
        raise ValueError(
            f"target must hold one value per column of h_ref ({h_ref.shape[1]}), got {target.shape[0]}"
        )
    lam = np.zeros_like(target)
    hmin, hmax = h_ref.min(axis=0), h_ref.max(axis=0)
    low, high = target <= hmin + 1e-12, target >= hmax - 1e-12
    lam[low], lam[high] = -LAMBDA_MAX, LAMBDA_MAX
    act = np.flatnonzero(~(low | high))
    if act.size:
        h, t = h_ref[:, act], target[act]
        lo, hi = np.full(act.size, -LAMBDA_MAX), np.full(act.size, LAMBDA_MAX)
        x = np.zeros(act.size)
        live = np.arange(act.size)
        for _ in range(max_iter):
            _, e, v = _tilted(h[:, live], x[live])
            f = e - t[live]
            ok = np.abs(f) < tol
            keep = ~ok
            if not keep.any():
                break
            live, f, v = live[keep], f[keep], v[keep]
            lo[live] = np.where(f < 0, x[live], lo[live])
            hi[live] = np.where(f > 0, x[live], hi[live])
            step = x[live] - f / np.maximum(v, 1e-300)
            bad = ~np.isfinite(step) | (step <= lo[live]) | (step >= hi[live])
            x[live] = np.where(bad, 0.5 * (lo[live] + hi[live]), step)
        lam[act] = x
    log_z, e, _ = _tilted(h_ref, lam)
    clipped = ~(np.abs(e - target) < 1e-8)
    gain = lam * target - log_z
    return lam, log_z, gain, clipped
