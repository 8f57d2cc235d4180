"""SE(3) utilities, the coarse RNA geometry builder and the self-consistency metrics of the RNA co-design toy.

Frames: per nucleotide a rotation ``R`` (3 x 3, columns e1, e2, e3) and a position ``p`` (the C4' pseudo-atom).
e1 points from C4' to the base pseudo-atom N (N1/N9), e2 lies in the plane of e1 and the backbone tangent. The
three pseudo-atoms are rigid in the frame (:data:`LOCAL_ATOMS`), so atoms follow from frames
(:func:`atoms_from_frames`) and frames from atoms (:func:`frames_from_atoms`).

Rotations: ``so3_exp`` / ``so3_log`` (Rodrigues), uniform random rotations, and the isotropic Gaussian on SO(3)
(IGSO(3)) with its angle density (series form) and an inverse-CDF sampler.

Geometry: :func:`build_coarse_3d` lays a dot-bracket out as a planar loop tree (loops on circles, the exterior
loop on a line) whose stems are ideal A-form-like helices (rise 2.8 A, twist 32.7 deg), and places the base atom
of a paired nucleotide towards its partner so that paired C4' atoms sit :data:`PAIR_DISTANCE` apart.
:func:`pairs_from_frames` reads the pairs back (C4'-C4' distance window plus both base directions pointing at the
partner), and :func:`tm_score` uses RNA-align's d0.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_array, check_float, check_int, check_tensor

__all__ = [
    "LOCAL_ATOMS",
    "PAIR_DISTANCE",
    "atoms_from_frames",
    "base_pair_f1",
    "build_coarse_3d",
    "check_frames",
    "check_rotations",
    "d0_rna",
    "dot_bracket_to_pairs",
    "frames_from_atoms",
    "igso3_angle_density",
    "igso3_sample",
    "kabsch",
    "kabsch_batch",
    "pairs_from_frames",
    "pairs_to_dot_bracket",
    "random_rotations",
    "rmsd",
    "so3_exp",
    "so3_log",
    "tm_score",
]

#: C4'-C4' distance of a base pair in the builder (A)
PAIR_DISTANCE = 10.5
#: helix rise per base pair (A) and twist per base pair (radians)
RISE = 2.8
TWIST = math.radians(32.7)
#: backbone C4'-C4' distance between neighbours in loops (A)
BACKBONE = 6.0
#: C4' -> base pseudo-atom distance (A); pseudo-atoms in the local frame: C4' (origin), N (along e1), P
BASE_LEN = 0.4 * PAIR_DISTANCE
LOCAL_ATOMS = torch.tensor([[0.0, 0.0, 0.0], [BASE_LEN, 0.0, 0.0], [-1.2, 2.6, 0.0]], dtype=torch.float64)
ROT_TOL = 1e-4


# ----------------------------------------------------------------------------------------------- rotations
def _hat(w: Tensor) -> Tensor:
    z = torch.zeros_like(w[..., 0])
    return torch.stack(
        [
            torch.stack([z, -w[..., 2], w[..., 1]], -1),
            torch.stack([w[..., 2], z, -w[..., 0]], -1),
            torch.stack([-w[..., 1], w[..., 0], z], -1),
        ],
        -2,
    )


def so3_exp(w: Tensor) -> Tensor:
    """Rotation matrices ``exp(hat(w))`` of rotation vectors ``w`` (..., 3) by Rodrigues' formula (Taylor near 0)."""
    check_tensor("w", w, floating=True)
    if w.shape[-1:] != (3,):
        raise ValueError(f"w must have a last dimension of 3, got shape {tuple(w.shape)}")
    theta2 = (w * w).sum(-1, keepdim=True)[..., None]
    theta = theta2.clamp_min(1e-30).sqrt()
    small = theta2 < 1e-8
    a = torch.where(small, 1 - theta2 / 6, torch.sin(theta) / theta)
    b = torch.where(small, 0.5 - theta2 / 24, (1 - torch.cos(theta)) / theta2.clamp_min(1e-30))
    k = _hat(w)
    eye = torch.eye(3, dtype=w.dtype, device=w.device).expand(k.shape)
    return eye + a * k + b * (k @ k)


def so3_log(r: Tensor) -> Tensor:
    """Rotation vectors (..., 3) of rotation matrices ``r`` (..., 3, 3), the inverse of :func:`so3_exp` (angle < pi;
    near pi the axis comes from the symmetric part)."""
    check_tensor("r", r, floating=True)
    if r.ndim < 2 or r.shape[-2:] != (3, 3):
        raise ValueError(f"r must have trailing shape (3, 3), got {tuple(r.shape)}")
    tr = r.diagonal(dim1=-2, dim2=-1).sum(-1)
    cos = ((tr - 1) / 2).clamp(-1.0, 1.0)
    vee = torch.stack(
        [r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]], -1
    )
    sin = vee.norm(dim=-1) / 2
    theta = torch.atan2(sin, cos)
    small = theta < 1e-4
    scale = torch.where(small, 0.5 + theta**2 / 12, theta / (2 * sin.clamp_min(1e-30)))
    w = scale[..., None] * vee
    near_pi = theta > math.pi - 1e-2
    if bool(near_pi.any()):
        # symmetric part: (R + R^T) / 2 = cos(theta) I + (1 - cos(theta)) n n^T; axis from its largest column
        eye = torch.eye(3, dtype=r.dtype, device=r.device)
        nn_t = ((r + r.transpose(-1, -2)) / 2 - cos[..., None, None] * eye) / (1 - cos).clamp_min(1e-30)[
            ..., None, None
        ]
        idx = nn_t.diagonal(dim1=-2, dim2=-1).argmax(-1)
        col = torch.gather(nn_t, -1, idx[..., None, None].expand(*nn_t.shape[:-1], 1)).squeeze(-1)
        n = col / col.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        sign = torch.where((n * vee).sum(-1, keepdim=True) < 0, -1.0, 1.0).to(r.dtype)
        w = torch.where(near_pi[..., None], sign * n * theta[..., None], w)
    # a non-finite matrix has no rotation vector: NaN there (the clamp above would hide an infinity)
    bad = ~torch.isfinite(r).flatten(-2).all(-1)
    return torch.where(bad[..., None], torch.full_like(w, math.nan), w) if bool(bad.any()) else w


def random_rotations(n: int, generator: torch.Generator | None = None, dtype=torch.float32) -> Tensor:
    """``n`` rotations drawn uniformly (Haar) on SO(3), from normalised Gaussian quaternions; shape (n, 3, 3)."""
    n = check_int("n", n, low=0)
    q = torch.randn(n, 4, generator=generator, dtype=torch.float64)
    q = q / q.norm(dim=-1, keepdim=True)
    w, x, y, z = q.unbind(-1)
    r = torch.stack(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - z * w),
            2 * (x * z + y * w),
            2 * (x * y + z * w),
            1 - 2 * (x * x + z * z),
            2 * (y * z - x * w),
            2 * (x * z - y * w),
            2 * (y * z + x * w),
            1 - 2 * (x * x + y * y),
        ],
        -1,
    ).reshape(n, 3, 3)
    return r.to(dtype)


def igso3_angle_density(omega: np.ndarray | float, eps: float, terms: int = 200) -> np.ndarray:
    """Density on [0, pi] of the rotation angle of IGSO(3)(eps): ``(1 - cos w) / pi * f(w)`` with the series
    ``f(w) = sum_l (2l+1) exp(-l(l+1) eps^2 / 2) sin((l+1/2) w) / sin(w/2)`` (eps^2 = variance of the generator).
    For small eps the angle density approaches that of a 3-D Gaussian's norm (Maxwell with scale eps)."""
    eps = check_float("eps", eps, low=0.0, low_open=True)
    w = check_array("omega", omega)
    ell = np.arange(terms)[:, None]
    s = np.sin(w / 2)
    s = np.where(np.abs(s) < 1e-12, 1e-12, s)
    f = ((2 * ell + 1) * np.exp(-ell * (ell + 1) * eps**2 / 2) * np.sin((ell + 0.5) * w) / s).sum(0)
    return np.clip((1 - np.cos(w)) / np.pi * f, 0.0, None).reshape(np.shape(omega))


def igso3_sample(
    n: int, eps: float, generator: torch.Generator | None = None, dtype=torch.float32, grid: int = 2048
) -> Tensor:
    """``n`` rotations from IGSO(3)(eps) about the identity: uniform axis, angle by inverse CDF of
    :func:`igso3_angle_density` on a grid; small eps (< 0.05) uses the Gaussian-tangent limit exp(eps z)."""
    n = check_int("n", n, low=0)
    eps = check_float("eps", eps, low=0.0, low_open=True)
    grid = check_int("grid", grid, low=2)
    if eps < 0.05:
        return so3_exp(eps * torch.randn(n, 3, generator=generator, dtype=torch.float64)).to(dtype)
    w = np.linspace(0, np.pi, grid)
    pdf = igso3_angle_density(w, eps, terms=max(50, int(10 / eps)))
    cdf = np.concatenate([[0.0], np.cumsum((pdf[1:] + pdf[:-1]) / 2 * np.diff(w))])
    cdf /= cdf[-1]
    u = torch.rand(n, generator=generator, dtype=torch.float64).numpy()
    angle = torch.from_numpy(np.interp(u, cdf, w))
    axis = torch.randn(n, 3, generator=generator, dtype=torch.float64)
    axis = axis / axis.norm(dim=-1, keepdim=True)
    return so3_exp(axis * angle[:, None]).to(dtype)


def check_rotations(name: str, r: Tensor, tol: float = ROT_TOL) -> Tensor:
    """`r` (..., 3, 3) must be rotations: R^T R = I and det R = 1 within `tol`."""
    check_tensor(name, r, floating=True, finite=True)
    if r.shape[-2:] != (3, 3):
        raise ValueError(f"{name} must have trailing shape (3, 3), got {tuple(r.shape)}")
    eye = torch.eye(3, dtype=r.dtype, device=r.device)
    ortho = float((r.transpose(-1, -2) @ r - eye).abs().max()) if r.numel() else 0.0
    det = torch.linalg.det(r.double()) if r.numel() else torch.ones(1, dtype=torch.float64)
    det_err = float((det - 1).abs().max())
    if ortho > tol or det_err > tol:
        raise ValueError(
            f"{name} must hold rotation matrices (orthonormal, det 1 within {tol:g}); got max |R^T R - I| = "
            f"{ortho:.3g}, max |det - 1| = {det_err:.3g}"
        )
    return r


def check_frames(rots: Tensor, trans: Tensor, length: int | None = None) -> None:
    """Frames (B, L, 3, 3) rotations and (B, L, 3) positions, consistent in shape (and of `length` if given)."""
    check_rotations("rots", rots)
    check_tensor("trans", trans, floating=True, finite=True)
    if rots.ndim != 4 or trans.ndim != 3 or rots.shape[:2] != trans.shape[:2] or trans.shape[-1] != 3:
        raise ValueError(
            f"frames must be rots (B, L, 3, 3) and trans (B, L, 3) of the same B, L; got {tuple(rots.shape)} "
            f"and {tuple(trans.shape)}"
        )
    if length is not None and trans.shape[1] != length:
        raise ValueError(f"frames must have length {length} (the sequence length), got {trans.shape[1]}")


def atoms_from_frames(rots: Tensor, trans: Tensor) -> Tensor:
    """Pseudo-atoms (..., 3 atoms, 3) = p + R @ LOCAL_ATOMS (C4', N, P)."""
    check_tensor("rots", rots, floating=True)
    check_tensor("trans", trans, floating=True)
    if rots.ndim < 2 or rots.shape[-2:] != (3, 3) or trans.shape != rots.shape[:-1]:
        raise ValueError(
            f"rots (..., 3, 3) and trans (..., 3) must share their leading shape; got {tuple(rots.shape)} and "
            f"{tuple(trans.shape)}"
        )
    local = LOCAL_ATOMS.to(rots.dtype).to(rots.device)
    return trans[..., None, :] + torch.einsum("...ij,aj->...ai", rots, local)


def frames_from_atoms(atoms: Tensor) -> tuple[Tensor, Tensor]:
    """Frames from pseudo-atoms (..., 3, 3) [C4', N, P] by Gram-Schmidt: e1 = C4'->N, e2 from C4'->P."""
    check_tensor("atoms", atoms, floating=True)
    if atoms.ndim < 2 or atoms.shape[-2:] != (3, 3):
        raise ValueError(f"atoms must have trailing shape (3 atoms, 3), got {tuple(atoms.shape)}")
    c4, nb, pb = atoms[..., 0, :], atoms[..., 1, :], atoms[..., 2, :]
    e1 = nb - c4
    e1 = e1 / e1.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    v = pb - c4
    e2 = v - (v * e1).sum(-1, keepdim=True) * e1
    e2 = e2 / e2.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    e3 = torch.cross(e1, e2, dim=-1)
    return torch.stack([e1, e2, e3], -1), c4


# ----------------------------------------------------------------------------------------------- dot-brackets
def dot_bracket_to_pairs(dot_bracket: str) -> list[int]:
    """Partner index of every position (-1 when unpaired); brackets must balance and only '(' ')' '.' occur."""
    if not isinstance(dot_bracket, str):
        raise TypeError(f"dot_bracket must be a str, got {type(dot_bracket).__name__}")
    bad = sorted(set(dot_bracket) - set("()."))
    if bad:
        raise ValueError(f"dot_bracket may hold only '(', ')' and '.', got {bad} in {dot_bracket!r}")
    stack: list[int] = []
    pairs = [-1] * len(dot_bracket)
    for i, c in enumerate(dot_bracket):
        if c == "(":
            stack.append(i)
        elif c == ")":
            if not stack:
                raise ValueError(
                    f"dot_bracket has unbalanced brackets: ')' at {i} closes nothing in {dot_bracket!r}"
                )
            j = stack.pop()
            pairs[i], pairs[j] = j, i
    if stack:
        raise ValueError(
            f"dot_bracket has unbalanced brackets: '(' at {stack[-1]} is never closed in {dot_bracket!r}"
        )
    return pairs


def pairs_to_dot_bracket(pairs: list[int]) -> str:
    """Dot-bracket of a nested partner list (the inverse of :func:`dot_bracket_to_pairs`)."""
    return "".join("." if j < 0 else ("(" if j > i else ")") for i, j in enumerate(pairs))


# ----------------------------------------------------------------------------------------------- builder
def _loop_radius(n_pair_gaps: int, n_backbone_gaps: int) -> float:
    """Radius of a circle whose chords are PAIR_DISTANCE (n_pair_gaps) and BACKBONE (n_backbone_gaps)."""

    def total(r: float) -> float:
        return 2 * n_pair_gaps * math.asin(
            min(1.0, PAIR_DISTANCE / (2 * r))
        ) + 2 * n_backbone_gaps * math.asin(min(1.0, BACKBONE / (2 * r)))

    lo, hi = PAIR_DISTANCE / 2 + 1e-9, 1e4
    if total(lo) < 2 * math.pi:  # e.g. a single gap: no circle needed
        return lo
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if total(mid) > 2 * math.pi else (lo, mid)
    return (lo + hi) / 2


def _layout(pairs: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """C4' positions (L, 3) and base directions (L, 3) of a nested structure (module docstring)."""
    n = len(pairs)
    pos = np.zeros((n, 3))
    base = np.zeros((n, 3))

    def stem(i: int, j: int, start_i: np.ndarray, start_j: np.ndarray, u: np.ndarray) -> None:
        """Helix from the pair (i, j) whose C4' atoms are given, axis `u` (away from the loop it leaves);
        continues while the pairs stack, then lays out the loop the last pair closes."""
        axis_v = (start_j - start_i) / np.linalg.norm(
            start_j - start_i
        )  # strand i -> strand j across the pair
        normal = np.cross(u, axis_v)
        centre = (start_i + start_j) / 2
        k = 0
        while True:
            ang = k * TWIST
            d = math.cos(ang) * axis_v + math.sin(ang) * normal
            c = centre + u * (k * RISE)
            pos[i] = c - d * PAIR_DISTANCE / 2
            pos[j] = c + d * PAIR_DISTANCE / 2
            base[i], base[j] = d, -d
            if j - i > 2 and pairs[i + 1] == j - 1:
                i, j, k = i + 1, j - 1, k + 1
                continue
            break
        loop(i, j, c, u, d)

    def loop(i: int, j: int, c: np.ndarray, u: np.ndarray, d: np.ndarray) -> None:
        """Loop closed by the pair (i, j) (midpoint c, stem axis u, direction i -> j d) on a circle beyond it."""
        items: list[tuple[int, int]] = []  # (k, partner) for branches, (k, -1) for unpaired
        k = i + 1
        while k < j:
            if pairs[k] > k:
                items.append((k, pairs[k]))
                k = pairs[k] + 1
            else:
                items.append((k, -1))
                k += 1
        r = _loop_radius(1 + sum(1 for _, q in items if q >= 0), len(items) + 1)
        half_pair = math.asin(min(1.0, PAIR_DISTANCE / (2 * r)))
        half_back = math.asin(min(1.0, BACKBONE / (2 * r)))
        o = c + u * math.sqrt(max(r * r - (PAIR_DISTANCE / 2) ** 2, 0.0))  # loop centre
        e_a, e_b = -u, d  # pos[i] at angle -half_pair, pos[j] at +half_pair; walk from i away from j

        def point(theta: float) -> np.ndarray:
            return o + r * (math.cos(theta) * e_a + math.sin(theta) * e_b)

        theta = -half_pair
        for k, q in items:
            theta -= 2 * half_back
            if q < 0:
                pos[k] = point(theta)
                base[k] = (o - pos[k]) / np.linalg.norm(o - pos[k])
            else:
                p_k = point(theta)
                theta -= 2 * half_pair
                p_q = point(theta)
                out = (p_k + p_q) / 2 - o
                stem(k, q, p_k, p_q, out / np.linalg.norm(out))

    # exterior loop: unpaired on a line along x, stems pointing along +y
    x = 0.0
    k = 0
    while k < n:
        if pairs[k] > k:
            start_i = np.array([x, 0.0, 0.0])
            start_j = np.array([x + PAIR_DISTANCE, 0.0, 0.0])
            stem(k, pairs[k], start_i, start_j, np.array([0.0, 1.0, 0.0]))
            x += PAIR_DISTANCE + BACKBONE
            k = pairs[k] + 1
        else:
            pos[k] = [x, -3.0, 0.0]
            base[k] = [0.0, 1.0, 0.0]
            x += BACKBONE
            k += 1
    return pos, base


def build_coarse_3d(
    dot_bracket: str, jitter: float = 0.0, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Deterministic coarse 3D model of a secondary structure: frames ``(R (L, 3, 3), p (L, 3))`` in A (float64).

    Stems are helices (rise 2.8 A, twist 32.7 deg; paired C4' atoms :data:`PAIR_DISTANCE` apart across the
    axis), loops are arcs on circles (neighbouring C4' 6 A apart), the exterior loop a line. Each base direction
    e1 points at the partner (paired) or at the loop centre (unpaired); e2 follows the backbone. Positions are
    centred; `jitter` adds Gaussian noise (std in A) to the positions and rotates each frame by IGSO(3)(jitter/10).
    """
    pairs = dot_bracket_to_pairs(dot_bracket)
    jitter = check_float("jitter", jitter, low=0.0)
    n = len(pairs)
    if n == 0:
        raise ValueError("dot_bracket must not be empty")
    pos, base = _layout(pairs)
    tang = np.gradient(pos, axis=0) if n > 1 else np.array([[0.0, 1.0, 0.0]])
    e1 = torch.from_numpy(base)
    t = torch.from_numpy(tang)
    e2 = t - (t * e1).sum(-1, keepdim=True) * e1
    bad = e2.norm(dim=-1) < 1e-6
    if bool(bad.any()):  # tangent along the base: any perpendicular
        alt = torch.cross(e1, torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64).expand_as(e1), dim=-1)
        e2 = torch.where(bad[:, None], alt, e2)
    e2 = e2 / e2.norm(dim=-1, keepdim=True)
    rots = torch.stack([e1, e2, torch.cross(e1, e2, dim=-1)], -1)
    trans = torch.from_numpy(pos)
    trans = trans - trans.mean(0)
    if jitter > 0:
        trans = trans + jitter * torch.randn(trans.shape, generator=generator, dtype=torch.float64)
        rots = rots @ igso3_sample(n, jitter / 10, generator, dtype=torch.float64)
    return rots, trans


# ----------------------------------------------------------------------------------------------- read-out and scores
def pairs_from_frames(
    rots: Tensor, trans: Tensor, window: float = 1.5, max_angle_deg: float = 25.0, min_sep: int = 4
) -> list[int]:
    """Pairs read off one structure (L, 3, 3), (L, 3): C4'-C4' distance within PAIR_DISTANCE +- `window`, both
    base directions within `max_angle_deg` of the direction to the partner, ``|i - j| >= min_sep``; conflicts are
    resolved greedily by the summed angle and crossing pairs dropped (the result is nested)."""
    check_tensor("rots", rots, ndim=3, floating=True, finite=True, shape=(None, 3, 3))
    check_tensor("trans", trans, floating=True, finite=True, shape=(rots.shape[0], 3))
    p = trans.double()
    e1 = rots.double()[..., :, 0]
    diff = p[None, :, :] - p[:, None, :]  # diff[i, j] = p_j - p_i
    dist = diff.norm(dim=-1)
    unit = diff / dist.clamp_min(1e-9)[..., None]
    cos_i = (e1[:, None, :] * unit).sum(-1)
    cos_j = (e1[None, :, :] * -unit).sum(-1)
    n = p.shape[0]
    idx = torch.arange(n)
    ok = (dist - PAIR_DISTANCE).abs() <= window
    cmin = math.cos(math.radians(max_angle_deg))
    ok &= (cos_i >= cmin) & (cos_j >= cmin) & ((idx[None, :] - idx[:, None]) >= min_sep)
    score = (2 - cos_i - cos_j).numpy()
    cand = sorted((float(score[i, j]), int(i), int(j)) for i, j in ok.nonzero().tolist())
    partner = [-1] * n
    chosen: list[tuple[int, int]] = []
    for _, i, j in cand:
        if partner[i] >= 0 or partner[j] >= 0:
            continue
        if any(a < i < b < j or i < a < j < b for a, b in chosen):
            continue
        partner[i], partner[j] = j, i
        chosen.append((i, j))
    return partner


def base_pair_f1(pred: list[int], true: list[int]) -> float:
    """F1 between two pairings (partner lists); 1.0 when both have no pairs."""
    a = {(i, j) for i, j in enumerate(pred) if j > i}
    b = {(i, j) for i, j in enumerate(true) if j > i}
    if not a and not b:
        return 1.0
    tp = len(a & b)
    return 2 * tp / (len(a) + len(b))


def _check_point_sets(x: Tensor, y: Tensor, ndim: int) -> None:
    """`x` and `y`: finite floating point sets of the same shape, (N, 3) (``ndim`` 2) or (B, N, 3) (3)."""
    check_tensor("x", x, ndim=ndim, floating=True, finite=True, shape=(None,) * (ndim - 1) + (3,))
    check_tensor("y", y, floating=True, finite=True, shape=tuple(x.shape))


def kabsch(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Rotation ``R`` and translation ``t`` minimising ``|R x_i + t - y_i|^2`` over points (N, 3) (proper, det 1)."""
    _check_point_sets(x, y, 2)
    xc, yc = x.mean(0), y.mean(0)
    h = (x - xc).T @ (y - yc)
    u, _, vt = torch.linalg.svd(h)
    d = torch.sign(torch.linalg.det(vt.T @ u.T))
    s = torch.diag(torch.stack([torch.ones_like(d), torch.ones_like(d), d]))
    r = vt.T @ s @ u.T
    return r, yc - r @ xc


def kabsch_batch(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Batched :func:`kabsch` over point sets (B, N, 3): rotations (B, 3, 3) and translations (B, 3) with
    ``x @ R^T + t`` closest to y."""
    _check_point_sets(x, y, 3)
    xc, yc = x.mean(-2, keepdim=True), y.mean(-2, keepdim=True)
    h = (x - xc).transpose(-1, -2) @ (y - yc)
    u, _, vt = torch.linalg.svd(h)
    d = torch.sign(torch.linalg.det(vt.transpose(-1, -2) @ u.transpose(-1, -2)))
    s = torch.diag_embed(torch.stack([torch.ones_like(d), torch.ones_like(d), d], -1))
    r = vt.transpose(-1, -2) @ s @ u.transpose(-1, -2)
    return r, (yc - xc @ r.transpose(-1, -2)).squeeze(-2)


def rmsd(x: Tensor, y: Tensor) -> float:
    """RMSD of points (N, 3) after the optimal (Kabsch) superposition of x onto y."""
    _check_point_sets(x, y, 2)
    r, t = kabsch(x.double(), y.double())
    return float(((x.double() @ r.T + t - y.double()) ** 2).sum(-1).mean().sqrt())


def d0_rna(length: int) -> float:
    """RNA-align's (US-align, RNA mode) TM-score scale: 0.6 sqrt(L - 0.5) - 2.5 A for L >= 30; below 30 the fixed
    values 0.3 (L <= 11), 0.4 (12-15), 0.5 (16-19), 0.6 (20-23), 0.7 (24-29)."""
    length = check_int("length", length, low=1)
    if length <= 11:
        return 0.3
    if length <= 15:
        return 0.4
    if length <= 19:
        return 0.5
    if length <= 23:
        return 0.6
    if length < 30:
        return 0.7
    return 0.6 * math.sqrt(length - 0.5) - 2.5


def tm_score(x: Tensor, y: Tensor, iterations: int = 6) -> float:
    """TM-score of model ``x`` against reference ``y`` (N, 3), d0 from :func:`d0_rna`, same residue order.

    The superposition starts from Kabsch on all points and is refined by re-superposing on the points closer
    than d0 + 1, 2, 4, 8 A (TM-score's heuristic); the best score over these superpositions is returned.
    """
    _check_point_sets(x, y, 2)
    x, y = x.double(), y.double()
    n = x.shape[0]
    d0 = d0_rna(n)
    best = 0.0
    sel = torch.ones(n, dtype=torch.bool)
    for it in range(iterations):
        if int(sel.sum()) < 3:
            sel = torch.ones(n, dtype=torch.bool)
        r, t = kabsch(x[sel], y[sel])
        d = ((x @ r.T + t - y) ** 2).sum(-1).sqrt()
        best = max(best, float((1.0 / (1.0 + (d / d0) ** 2)).mean()))
        sel = d < d0 + 2.0**it
    return best
