"""HDLA's state transition: a Householder congruence of a diagonal decay, written as diagonal plus rank 2.

Per head and step, with a unit key ``k`` (L2-normalised), a per-channel decay ``f`` in (0, 1]^{d_k} and a
strength ``beta`` in [0, 2]:

    H = I - beta k k^T                                   (generalized Householder, eigenvalue 1 - beta on k)
    P = H diag(f) H
      = diag(f) - beta (f*k) k^T - beta k (f*k)^T + beta^2 (k^T diag(f) k) k k^T
      = diag(f) + b_1 a_1^T + b_2 a_2^T,

    b_1 = f*k,   a_1 = -beta k,
    b_2 = k,     a_2 = -beta f*k + beta^2 (k^T diag(f) k) k.

``a_r`` is contracted with the old state and ``b_r`` is the outer factor, the convention of
:mod:`iclr26.lab.linear_attention` and of the official kernel. The two rank terms of a step are stored as
interleaved (time, rank) rows, so :func:`hdla_decay_terms` returns ``a, b`` of shape (B, 2T, H, d_k).

Example
-------
>>> import torch
>>> kh = torch.nn.functional.normalize(torch.randn(1, 3, 2, 4, dtype=torch.float64), dim=-1)
>>> f = torch.rand(1, 3, 2, 4, dtype=torch.float64)
>>> a, b = hdla_decay_terms(kh, f, torch.full((1, 3, 2), 1.5, dtype=torch.float64))
>>> a.shape
torch.Size([1, 6, 2, 4])
>>> p = transition_matrices(f.log(), a, b, r_ab=2)
>>> h = torch.eye(4, dtype=torch.float64) - 1.5 * kh[..., :, None] * kh[..., None, :]
>>> bool(torch.allclose(p, h @ torch.diag_embed(f) @ h, atol=1e-12))
True
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_int, check_tensor

__all__ = ["hdla_decay_terms", "transition_matrices"]


def hdla_decay_terms(k_hat: Tensor, f: Tensor, beta: Tensor) -> tuple[Tensor, Tensor]:
    """Rank-2 factors ``(a, b)`` of ``P = (I - beta k k^T) diag(f) (I - beta k k^T) - diag(f)``.

    Parameters
    ----------
    k_hat : (B, T, H, d_k) unit-norm keys.
    f : (B, T, H, d_k) per-channel decay in (0, 1].
    beta : (B, T, H) Householder strength in [0, 2] (the eigenvalue ``1 - beta`` lies in [-1, 1]).

    Returns
    -------
    a, b : (B, 2T, H, d_k) each, rows interleaved as (time, rank): ``a[:, 2t + r]`` is ``a_t^{r+1}``.
    """
    for name, t in (("k_hat", k_hat), ("f", f), ("beta", beta)):
        check_tensor(name, t, floating=True)
    if k_hat.ndim != 4:
        raise ValueError(f"k_hat must have shape (B, T, H, d_k), got {tuple(k_hat.shape)}")
    if tuple(f.shape) != tuple(k_hat.shape):
        raise ValueError(f"f must have the shape of k_hat {tuple(k_hat.shape)}, got {tuple(f.shape)}")
    if tuple(beta.shape) != tuple(k_hat.shape[:3]):
        raise ValueError(
            f"beta must have shape (B, T, H) = {tuple(k_hat.shape[:3])}, got {tuple(beta.shape)}"
        )
    if ((beta < 0) | (beta > 2)).any() or beta.isnan().any():
        raise ValueError("beta must lie in [0, 2] (outside it the Householder factor expands the state)")
    if ((f <= 0) | (f > 1)).any() or f.isnan().any():
        raise ValueError("f must lie in (0, 1] (a decay above 1 makes the state grow without bound)")
    norm = k_hat.norm(dim=-1)
    if not bool((norm <= 1.01).all()):  # also refuses NaN/inf; zero keys (normalised zero vectors) pass
        raise ValueError(
            f"k_hat must hold unit-norm keys (L2-normalise them), got norms up to {float(norm.nan_to_num(float('inf')).max()):.4g}"
        )
    bt = beta[..., None]
    fk = f * k_hat
    kdk = (k_hat * fk).sum(-1, keepdim=True)  # k^T diag(f) k
    a1 = -bt * k_hat
    a2 = -bt * fk + bt.square() * kdk * k_hat
    a = torch.stack([a1, a2], dim=2).flatten(1, 2)
    b = torch.stack([fk, k_hat], dim=2).flatten(1, 2)
    return a, b


def transition_matrices(log_f: Tensor, a: Tensor, b: Tensor, *, r_ab: int) -> Tensor:
    """Materialise ``P_t = diag(f_t) + sum_r b_t^r a_t^{r T}`` as a (B, T, H, d_k, d_k) tensor.

    ``log_f``: (B, T, H, d_k); ``a, b``: (B, T*r_ab, H, d_k) interleaved as (time, rank). Used by the tests and
    by the eigenvalue figure; the mixers never form these matrices.
    """
    check_int("r_ab", r_ab, low=0)
    check_tensor("log_f", log_f, ndim=4, floating=True)
    check_tensor("a", a, floating=True)
    check_tensor("b", b, floating=True)
    if not bool((log_f <= 0).all()):
        raise ValueError("log_f must be <= 0 (no NaN): a log-decay above 0 makes the state grow")
    bsz, t_len, heads, dk = log_f.shape
    if tuple(a.shape) != (bsz, t_len * r_ab, heads, dk) or tuple(b.shape) != tuple(a.shape):
        raise ValueError(
            f"a and b must have shape {(bsz, t_len * r_ab, heads, dk)} (length T*r_ab), "
            f"got {tuple(a.shape)} and {tuple(b.shape)}"
        )
    p = torch.diag_embed(log_f.exp())
    if r_ab:
        ar = a.reshape(bsz, t_len, r_ab, heads, dk)
        br = b.reshape(bsz, t_len, r_ab, heads, dk)
        p = p + torch.einsum("btrhi,btrhj->bthij", br, ar)
    return p
