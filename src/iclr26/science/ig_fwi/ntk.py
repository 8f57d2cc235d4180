"""Kernels of CR-FWI: the representation NTK Theta and the wave-based NTK K_wave = J Theta J^T.

Paper: "Unveiling the Mechanism of Continuous Representation Full-Waveform Inversion" (ICLR 2026, arXiv
2603.22362). Under gradient flow on L = 1/2 ||F(v_theta) - d||^2 the residual obeys dr/dt = -K r with
K = J(v) Theta J(v)^T, Theta = (dv/dtheta)(dv/dtheta)^T = s^2 Theta_G (v = v_0 + s G), J = dF/dv the Born
operator. ``representation_ntk`` returns Theta_G on nodes (torch.func.jacrev); ``wave_ntk_topk`` the top
eigenvalues of K, matrix-free (scipy eigsh on a LinearOperator of Born / adjoint products).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator, eigsh
from torch.func import functional_call, jacrev

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.pde.wave import AcousticWave2D
from iclr26.science.ig_fwi.representations import PixelGrid, Representation, check_coords, grid_coords

__all__ = ["power_law_exponent", "representation_ntk", "subsample_nodes", "wave_ntk_topk"]

MAX_NODES = 1500


def subsample_nodes(n: int, max_nodes: int = MAX_NODES) -> torch.Tensor:
    """Evenly strided node indices, at most `max_nodes` of `n` (all of them when n <= max_nodes)."""
    if n <= max_nodes:
        return torch.arange(n)
    return torch.linspace(0, n - 1, max_nodes).round().long().unique()


def representation_ntk(rep: Representation, coords: torch.Tensor, **forward_kw) -> torch.Tensor:
    """Theta_G = (dG/dtheta)(dG/dtheta)^T on `coords` (N, 2), N <= 1500, over all of `rep`'s parameters.

    ``forward_kw`` go to ``rep.forward`` (e.g. ``branch="grid"`` for IGRep's Theta_h).
    """
    coords = check_coords(coords)
    if coords.shape[0] > MAX_NODES:
        raise ValueError(f"coords has {coords.shape[0]} nodes; subsample to <= {MAX_NODES} (subsample_nodes)")
    params = {k: p.detach() for k, p in rep.named_parameters()}
    buffers = {k: b for k, b in rep.named_buffers()}

    def out(p):
        return functional_call(rep, (p, buffers), (coords,), forward_kw)

    jac = jacrev(out)(params)
    theta = torch.zeros(coords.shape[0], coords.shape[0], dtype=coords.dtype)
    for j in jac.values():
        flat = j.reshape(coords.shape[0], -1)
        theta = theta + flat @ flat.T
    return theta


def power_law_exponent(eigenvalues, top: int = 200) -> float:
    """p of the least-squares fit log lambda_j = c - p log j over the `top` largest eigenvalues (> 0)."""
    lam = np.sort(np.asarray(eigenvalues, dtype=float))[::-1][:top]
    lam = lam[lam > lam[0] * 1e-12]
    if lam.size < 2:
        return float("nan")
    j = np.arange(1, lam.size + 1)
    return float(-np.polyfit(np.log(j), np.log(lam), 1)[0])


def wave_ntk_topk(
    rep: Representation,
    op: AcousticWave2D,
    v: torch.Tensor,
    k: int = 4,
    *,
    scale: float = 1000.0,
    tol: float = 1e-3,
    theta: torch.Tensor | None = None,
) -> np.ndarray:
    """The `k` largest eigenvalues of K_wave = J(v) Theta J(v)^T, Theta = scale^2 Theta_G, descending.

    Theta_G is formed on the model's nodes (<= 1500, a PixelGrid's is the identity); J and J^T are Born and
    adjoint marches, so K is never formed in data space. ``theta``: Theta_G on the nodes if already computed.
    """
    k = check_int("k", k, low=1)
    scale = check_float("scale", scale, low=0.0, low_open=True)
    nz, nx = op.shape
    check_tensor("v", v, floating=True, shape=op.shape)
    lin = op.linearize(v.detach().double())
    if isinstance(rep, PixelGrid):
        theta = None
    elif theta is not None:
        theta = theta.double() * scale**2
    else:
        if nz * nx > MAX_NODES:
            raise ValueError(f"the model has {nz * nx} nodes; wave_ntk_topk forms Theta on <= {MAX_NODES}")
        p = next(rep.parameters())
        theta = representation_ntk(rep, grid_coords(nz, nx, p.dtype).to(p.device)).double() * scale**2
    shape = tuple(lin.data.shape)
    size = int(np.prod(shape))
    if k >= size - 1:
        raise ValueError(f"k = {k} must be < {size - 1} (the data size minus one)")

    def matvec(r: np.ndarray) -> np.ndarray:
        g = lin.vjp(torch.from_numpy(np.ascontiguousarray(r, dtype=np.float64)).view(shape))
        g = g * scale**2 if theta is None else (theta @ g.reshape(-1)).view(nz, nx)
        return lin.jvp(g).reshape(-1).numpy()

    operator = LinearOperator((size, size), matvec=matvec, dtype=np.float64)
    start = np.ones(size) / np.sqrt(size)  # a fixed start vector: deterministic
    vals = eigsh(operator, k=k, which="LA", v0=start, tol=tol, return_eigenvectors=False)
    return np.sort(vals)[::-1]
