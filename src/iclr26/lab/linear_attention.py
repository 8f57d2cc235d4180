"""Rank-generalized linear attention: a diagonal-plus-low-rank state transition, step-by-step and chunk-wise.

Per head the state ``S_t`` is a (d_k, d_v) matrix and the output is ``o_t = scale * S_t^T q_t`` with

    S_t = P_t S_{t-1} + sum_m k_t^m v_t^{m T},        P_t = diag(f_t) + sum_r b_t^r a_t^{r T},

i.e. ``S_t = diag(f_t) S_{t-1} + sum_r b_t^r (a_t^{r T} S_{t-1}) + sum_m k_t^m v_t^{m T}``: ``a_r`` is the factor
contracted with the old state and ``b_r`` the outer factor (the convention of the HDLA kernel and of
flash-linear-attention's DPLR ops). ``r_ab`` low-rank terms and ``r_kv`` writes per step are stored interleaved as
(time, rank) rows: ``a[:, t * r_ab + r]`` is ``a_t^r``, ``k[:, t * r_kv + m]`` is ``k_t^m``.

Known mixers are special cases (builders below return the arguments):

* GLA — ``r_ab = 0`` (diagonal gate only): :func:`gla_terms`;
* DeltaNet / Gated DeltaNet — ``P = alpha (I - beta k k^T)``, write ``beta k v^T``: :func:`delta_rule_terms`;
* Gated DeltaProduct with two Householders — rank 2, two writes: :func:`delta_product_terms`;
* HDLA — ``P = H D H`` with ``H = I - beta k k^T``, diagonal plus rank 2 (see ``iclr26.attention.hdla``).

:func:`rank_generalized_recurrence` is the oracle: one step at a time, exactly the equation above.
:func:`rank_generalized_chunk` is the chunk-wise form: within a chunk of ``C`` steps, with cumulative log-decays
``g_i = sum_{s<=i} log f_s`` and ``ge_i = g_i - log f_i``, the pseudo-values ``u_i^r = a_i^{r T} S_{i-1}`` solve
the unit-lower-triangular system ``(I - A_ab) U = (a * e^{ge}) S_0 + A_ak V`` (the WY form), and then

    O   = (q * e^{g}) S_0 + A_qk V + A_qb U,
    S_C = e^{g_C} * S_0 + (k * e^{g_C - g})^T V + (b * e^{g_C - g})^T U,

where ``A_xy[i, j] = sum_c x_ic y_jc exp(g_ic - g_jc)`` on the causal (A_qk, A_qb: j <= i) or strictly causal
(A_ak, A_ab: j < i, with ``ge`` for the row) triangle. When every chunk's cumulative log-decay stays above -30
(float32; -300 in float64) each A is one matmul of ``x e^{g}`` and ``y e^{-g}``; otherwise the exponentials are
formed only on the triangle from differences of cumulative log-decays, so nothing overflows however small ``f``
gets. The chunk-internal work runs
for all chunks at once; only the (d_k, d_v) state is carried from chunk to chunk.

Shapes: ``q, log_f``: (B, T, H, d_k); ``k``: (B, T*r_kv, H, d_k); ``v``: (B, T*r_kv, H, d_v); ``a, b``:
(B, T*r_ab, H, d_k); ``initial_state``: (B, H, d_k, d_v). Both functions return ``(o, S_T)`` with ``o`` of shape
(B, T, H, d_v).

Example
-------
>>> import torch
>>> B, T, H, d = 1, 10, 2, 4
>>> q, kh, v = (torch.randn(B, T, H, d, dtype=torch.float64) for _ in range(3))
>>> kh = torch.nn.functional.normalize(kh, dim=-1)
>>> terms = delta_rule_terms(kh, v, beta=torch.full((B, T, H), 0.5, dtype=torch.float64))
>>> o1, s1 = rank_generalized_recurrence(q, **terms)
>>> o2, s2 = rank_generalized_chunk(q, **terms, chunk_size=4)
>>> bool(torch.allclose(o1, o2, atol=1e-12)) and bool(torch.allclose(s1, s2, atol=1e-12))
True
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch import Tensor

from iclr26.checks import check_int, check_tensor

__all__ = [
    "delta_product_terms",
    "delta_rule_terms",
    "gla_terms",
    "rank_generalized_chunk",
    "rank_generalized_recurrence",
]


def _check(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    a: Tensor,
    b: Tensor,
    log_f: Tensor,
    r_ab: int,
    r_kv: int,
    initial_state: Tensor | None,
) -> tuple[Tensor, ...]:
    check_int("r_ab", r_ab, low=0)
    check_int("r_kv", r_kv, low=1)
    tensors = {"q": q, "k": k, "v": v, "a": a, "b": b, "log_f": log_f}
    for name, t in tensors.items():
        if not isinstance(t, Tensor) or t.ndim != 4:
            raise ValueError(f"{name} must be a 4-D tensor (B, T, H, d), got {getattr(t, 'shape', type(t))}")
        check_tensor(name, t, floating=True)
    bsz, t_len, heads, dk = q.shape
    expected = {
        "log_f": (bsz, t_len, heads, dk),
        "k": (bsz, t_len * r_kv, heads, dk),
        "v": (bsz, t_len * r_kv, heads, v.shape[-1]),
        "a": (bsz, t_len * r_ab, heads, dk),
        "b": (bsz, t_len * r_ab, heads, dk),
    }
    for name, shape in expected.items():
        if tuple(tensors[name].shape) != shape:
            what = {"k": "T*r_kv", "v": "T*r_kv", "a": "T*r_ab", "b": "T*r_ab", "log_f": "T"}[name]
            raise ValueError(
                f"{name} must have shape {shape} (length {what}, matching B/H/d_k of q {tuple(q.shape)}), "
                f"got {tuple(tensors[name].shape)}"
            )
    if not bool((log_f <= 0).all()):  # NaN fails this test too
        bad = log_f[~(log_f <= 0)].flatten()[0].item()
        raise ValueError(
            f"log_f must be <= 0 everywhere (a decay above 1 makes the state grow without bound), got {bad}"
        )
    if not bool(torch.isfinite(log_f).all()):
        raise ValueError(
            "log_f must be finite, got -inf: a forget gate of exactly 0 breaks the chunked cumulative sums; "
            "use a large finite negative value (e.g. -1e4) instead"
        )
    if initial_state is not None and tuple(initial_state.shape) != (bsz, heads, dk, v.shape[-1]):
        raise ValueError(
            f"initial_state must have shape {(bsz, heads, dk, v.shape[-1])}, got {tuple(initial_state.shape)}"
        )
    dtype = torch.promote_types(q.dtype, v.dtype)
    if dtype in (torch.float16, torch.bfloat16) and q.device.type == "cpu":
        warnings.warn("half-precision linear attention on CPU is upcast to float32", stacklevel=3)
        dtype = torch.float32
    out = tuple(t.to(dtype) for t in (q, k, v, a, b, log_f))
    return (*out, None if initial_state is None else initial_state.to(dtype))


def rank_generalized_recurrence(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    a: Tensor,
    b: Tensor,
    log_f: Tensor,
    *,
    r_ab: int,
    r_kv: int,
    scale: float = 1.0,
    initial_state: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Step-by-step oracle of the rank-generalized recurrence (see the module docstring); returns ``(o, S_T)``."""
    q, k, v, a, b, log_f, s0 = _check(q, k, v, a, b, log_f, r_ab, r_kv, initial_state)
    bsz, t_len, heads, dk = q.shape
    dv = v.shape[-1]
    state = q.new_zeros(bsz, heads, dk, dv) if s0 is None else s0
    f = log_f.exp()
    outs = []
    for t in range(t_len):
        new = f[:, t, :, :, None] * state
        for r in range(r_ab):
            u = torch.einsum("bhk,bhkv->bhv", a[:, t * r_ab + r], state)
            new = new + b[:, t * r_ab + r, :, :, None] * u[:, :, None, :]
        for m in range(r_kv):
            new = new + k[:, t * r_kv + m, :, :, None] * v[:, t * r_kv + m, :, None, :]
        state = new
        outs.append(torch.einsum("bhk,bhkv->bhv", q[:, t] * scale, state))
    o = torch.stack(outs, dim=1) if outs else q.new_zeros(bsz, 0, heads, dv)
    return o, state


def _pairwise(x: Tensor, gx: Tensor, y: Tensor, gy: Tensor, mask: Tensor, factorized: bool) -> Tensor:
    """``sum_c x_ic y_jc exp(gx_ic - gy_jc)`` on ``mask`` (I, J), zero elsewhere; leading dims broadcast.

    ``factorized`` computes it as one matmul ``(x e^{gx}) (y e^{-gy})^T`` — valid when the cumulative log-decays
    are small enough that ``e^{-gy}`` cannot overflow (checked by the caller); otherwise the exponent is formed
    from differences on the mask only, which is exact for any decay but costs a (I, J, d) tensor.
    """
    if factorized:
        return ((x * gx.exp()) @ (y * (-gy).exp()).transpose(-1, -2)) * mask
    diff = gx[..., :, None, :] - gy[..., None, :, :]
    decay = torch.where(mask[..., None], diff, torch.full_like(diff, float("-inf"))).exp()
    return torch.einsum("...ic,...jc,...ijc->...ij", x, y, decay)


def rank_generalized_chunk(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    a: Tensor,
    b: Tensor,
    log_f: Tensor,
    *,
    r_ab: int,
    r_kv: int,
    scale: float = 1.0,
    initial_state: Tensor | None = None,
    chunk_size: int = 16,
) -> tuple[Tensor, Tensor]:
    """Chunk-wise form of :func:`rank_generalized_recurrence` (same contract); pads T up to a multiple of C."""
    check_int("chunk_size", chunk_size, low=1)
    q, k, v, a, b, log_f, s0 = _check(q, k, v, a, b, log_f, r_ab, r_kv, initial_state)
    bsz, t_len, heads, dk = q.shape
    dv = v.shape[-1]
    c = chunk_size
    n = max(1, -(-t_len // c))
    pad = n * c - t_len

    def prep(x: Tensor, rows: int) -> Tensor:
        # (B, T*rows, H, d) -> (B, H, N, C*rows, d), zero-padded in time
        x = x.transpose(1, 2)
        if pad:
            x = F.pad(x, (0, 0, 0, pad * rows))
        return x.reshape(bsz, heads, n, c * rows, x.shape[-1])

    qc, gl = prep(q * scale, 1), prep(log_f, 1)
    kc, vc = prep(k, r_kv), prep(v, r_kv)
    g = gl.cumsum(dim=3)  # g_i, (B, H, N, C, dk)
    ge = g - gl  # g_{i-1}
    t_kv = torch.arange(c * r_kv, device=q.device) // r_kv
    t_q = torch.arange(c, device=q.device)
    g_k = g[..., t_kv, :]
    g_end = g[..., -1:, :]  # g_C
    # one matmul per block when e^{-g} stays far from overflow in this dtype (g is cumulative within a chunk)
    limit = 300.0 if q.dtype == torch.float64 else 30.0
    factorized = bool(q.numel()) and float(-g_end.detach().min()) < limit
    a_qk = _pairwise(qc, g, kc, g_k, t_q[:, None] >= t_kv[None, :], factorized)
    inter_q = qc * g.exp()  # multiplies S_0
    if r_ab:
        ac, bc = prep(a, r_ab), prep(b, r_ab)
        t_ab = torch.arange(c * r_ab, device=q.device) // r_ab
        g_b, ge_a = g[..., t_ab, :], ge[..., t_ab, :]
        a_qb = _pairwise(qc, g, bc, g_b, t_q[:, None] >= t_ab[None, :], factorized)
        a_ak = _pairwise(ac, ge_a, kc, g_k, t_ab[:, None] > t_kv[None, :], factorized)
        a_ab = _pairwise(ac, ge_a, bc, g_b, t_ab[:, None] > t_ab[None, :], factorized)
        eye = torch.eye(c * r_ab, dtype=q.dtype, device=q.device)
        tri = eye - a_ab  # unit lower triangular
        w = torch.linalg.solve_triangular(tri, ac * ge_a.exp(), upper=False, unitriangular=True)
        u0 = torch.linalg.solve_triangular(tri, a_ak @ vc, upper=False, unitriangular=True)
        b_end = bc * (g_end - g_b).exp()
    k_end = kc * (g_end - g_k).exp()
    decay_end = g_end[..., 0, :].exp()  # (B, H, N, dk)

    state = q.new_zeros(bsz, heads, dk, dv) if s0 is None else s0
    starts = []
    for i in range(n):
        starts.append(state)
        new = decay_end[:, :, i, :, None] * state + k_end[:, :, i].transpose(-1, -2) @ vc[:, :, i]
        if r_ab:
            u = w[:, :, i] @ state + u0[:, :, i]
            new = new + b_end[:, :, i].transpose(-1, -2) @ u
        state = new
    s_start = torch.stack(starts, dim=2)  # (B, H, N, dk, dv)
    o = inter_q @ s_start + a_qk @ vc
    if r_ab:
        o = o + a_qb @ (w @ s_start + u0)
    o = o.reshape(bsz, heads, n * c, dv)[:, :, :t_len].transpose(1, 2)
    return o, state


# ------------------------------------------------------------------------------------ special-case builders


def gla_terms(k: Tensor, v: Tensor, log_f: Tensor) -> dict[str, Tensor | int]:
    """Arguments for GLA: ``S_t = diag(f_t) S_{t-1} + k_t v_t^T`` (no low-rank term)."""
    _check_terms(k, k=k, v=v, log_f=log_f)
    if log_f.shape != k.shape:
        raise ValueError(f"log_f must have the shape of k {tuple(k.shape)}, got {tuple(log_f.shape)}")
    empty = k.new_zeros(k.shape[0], 0, k.shape[2], k.shape[3])
    return {"k": k, "v": v, "a": empty, "b": empty, "log_f": log_f, "r_ab": 0, "r_kv": 1}


def _check_terms(like: Tensor, **tensors: Tensor) -> None:
    """Floating tensors whose (B, T, H) agree with the first one's: (B, T, H, d) keys and values, (B, T, H)
    strengths."""
    for name, t in tensors.items():
        check_tensor(name, t, floating=True)
        rank = 3 if name.startswith("beta") else 4
        if t.ndim != rank or t.shape[:3] != like.shape[:3]:
            first = next(iter(tensors))
            want = "(B, T, H)" if rank == 3 else "(B, T, H, d)"
            raise ValueError(
                f"{name} must be a {rank}-D tensor {want} matching {first} {tuple(like.shape)} on (B, T, H), "
                f"got shape {tuple(t.shape)}"
            )


def _gate(log_alpha: Tensor | None, like: Tensor) -> Tensor:
    if log_alpha is None:
        return torch.zeros_like(like)
    if log_alpha.shape != like.shape[:3]:
        raise ValueError(
            f"log_alpha must have shape (B, T, H) = {tuple(like.shape[:3])}, got {tuple(log_alpha.shape)}"
        )
    return log_alpha[..., None].expand_as(like)


def delta_rule_terms(
    k_hat: Tensor, v: Tensor, beta: Tensor, log_alpha: Tensor | None = None
) -> dict[str, Tensor | int]:
    """Arguments for (Gated) DeltaNet: ``S_t = alpha_t (I - beta_t k k^T) S_{t-1} + beta_t k v^T``.

    ``k_hat`` (B, T, H, d_k) should be L2-normalised; ``beta`` (B, T, H) in [0, 2]; ``log_alpha`` (B, T, H) <= 0
    (None for plain DeltaNet, alpha = 1). As DPLR: ``D = alpha I``, ``b = k``, ``a = -alpha beta k``.
    """
    _check_terms(k_hat, k_hat=k_hat, v=v, beta=beta)
    if beta.shape != k_hat.shape[:3]:
        raise ValueError(
            f"beta must have shape (B, T, H) = {tuple(k_hat.shape[:3])}, got {tuple(beta.shape)}"
        )
    if ((beta < 0) | (beta > 2)).any():
        raise ValueError("beta must lie in [0, 2]")
    log_f = _gate(log_alpha, k_hat)
    a = -(log_f.exp() * beta[..., None]) * k_hat
    return {"k": beta[..., None] * k_hat, "v": v, "a": a, "b": k_hat, "log_f": log_f, "r_ab": 1, "r_kv": 1}


def delta_product_terms(
    k1: Tensor,
    k2: Tensor,
    v1: Tensor,
    v2: Tensor,
    beta1: Tensor,
    beta2: Tensor,
    log_alpha: Tensor | None = None,
) -> dict[str, Tensor | int]:
    """Arguments for Gated DeltaProduct with two Householder steps per token.

    ``S_t = H2 (H1 (alpha S_{t-1}) + beta1 k1 v1^T) + beta2 k2 v2^T`` with ``H_i = I - beta_i k_i k_i^T``, so
    ``P = alpha H2 H1 = alpha I + k1 (-alpha beta1 k1)^T + k2 (-alpha beta2 k2 + alpha beta1 beta2 (k2.k1) k1)^T``
    (diagonal plus rank 2) and the two writes are ``(beta1 H2 k1) v1^T`` and ``beta2 k2 v2^T``.
    """
    _check_terms(k1, k1=k1, k2=k2, v1=v1, v2=v2, beta1=beta1, beta2=beta2)
    if k2.shape != k1.shape or v2.shape != v1.shape:
        bad = "k2" if k2.shape != k1.shape else "v2"
        want = k1.shape if bad == "k2" else v1.shape
        raise ValueError(
            f"{bad} must have shape {tuple(want)}, got {tuple((k2 if bad == 'k2' else v2).shape)}"
        )
    for name, beta in (("beta1", beta1), ("beta2", beta2)):
        if beta.shape != k1.shape[:3]:
            raise ValueError(
                f"{name} must have shape (B, T, H) = {tuple(k1.shape[:3])}, got {tuple(beta.shape)}"
            )
        if ((beta < 0) | (beta > 2)).any():
            raise ValueError(f"{name} must lie in [0, 2]")
    log_f = _gate(log_alpha, k1)
    alpha = log_f.exp()
    b1, b2 = beta1[..., None], beta2[..., None]
    dot = (k1 * k2).sum(-1, keepdim=True)
    a1 = -alpha * b1 * k1
    a2 = -alpha * b2 * k2 + alpha * b1 * b2 * dot * k1
    w1 = b1 * (k1 - b2 * dot * k2)  # beta1 H2 k1
    w2 = b2 * k2

    def interleave(x: Tensor, y: Tensor) -> Tensor:
        return torch.stack([x, y], dim=2).flatten(1, 2)

    return {
        "k": interleave(w1, w2),
        "v": interleave(v1, v2),
        "a": interleave(a1, a2),
        "b": interleave(k1, k2),
        "log_f": log_f,
        "r_ab": 2,
        "r_kv": 2,
    }
