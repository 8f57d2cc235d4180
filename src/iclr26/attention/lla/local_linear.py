"""Local linear attention (LLA): a query-specific, kernel-weighted linear regression of values on keys.

Paper: "Local Linear Attention: An Optimal Interpolation of Linear and Softmax Attention For Test-Time
Regression" (arXiv 2510.01450, OpenReview WGpzi489XY).

For query i with the (causal) keys and values (k_j, v_j) and kernel weights w_ij, LLA solves

    min_{b, W}  1/2 sum_j w_ij ||v_j - b - W (k_j - q_i)||^2 + lam ||W||_F^2

and outputs the intercept b (the local fit evaluated at q_i). In closed form, with

    omega_i = sum_j w_ij,   s_ij = w_ij / omega_i,   kbar_i = sum_j s_ij k_j,
    Sigma_i = sum_j s_ij (k_j - kbar_i)(k_j - kbar_i)^T,   rho_i = 2 lam / omega_i  ("scaled" ridge)
                                                            rho_i = lam            ("const" ridge),
    z_i = (Sigma_i + rho_i I)^{-1} (kbar_i - q_i),
    o_i = sum_j a_ij v_j,   a_ij = s_ij [1 - (k_j - kbar_i)^T z_i]      (sum_j a_ij = 1, a_ij may be < 0).

Kernels (log-weights ``S_ij = log w_ij``, bandwidth h, default h = d ** 0.25 so that h^2 = sqrt(d)):

* ``"exp_dot"``: S_ij = q_i . k_j / h^2 (softmax attention's weights);
* ``"rbf"``: S_ij = -||q_i - k_j||^2 / (2 h^2) (a Gaussian kernel; h is statsmodels' ``bw``);
* ``"uniform"``: S_ij = 0 (the global limit).

Two evaluations are given: the materialised form (``block_size=None``: the (T, T) weights and the (T, d, d)
covariances in memory) and a FlashAttention-style blockwise form over query and key tiles of ``block_size``:
pass 1 streams omega (with a running max m_i of the log-weights, so ``rho_i = 2 lam exp(-m_i) / omega~_i``
in log space), sum_j w_ij k_j and, for the Cholesky solver, sum_j w_ij k_j k_j^T; conjugate gradients
instead applies Sigma_i matrix-free by streaming the keys once per iteration; pass 2 streams the output.
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_float, check_int, check_logits, check_tensor

__all__ = [
    "KERNELS",
    "RIDGES",
    "SOLVERS",
    "kernel_scores",
    "lla_weights",
    "local_linear_attention",
    "ridge_coefficients",
]

KERNELS = ("exp_dot", "rbf", "uniform")
RIDGES = ("scaled", "const")
SOLVERS = ("cholesky", "cg")


def _check_lam(lam: float | Tensor, ridge: str) -> None:
    if isinstance(lam, Tensor):
        if not lam.is_floating_point():
            raise TypeError(f"lam must be a float or a floating tensor, got dtype {lam.dtype}")
        if (lam < 0).any() or not torch.isfinite(lam).all():
            raise ValueError(
                "lam must be finite and >= 0 (the ridge strength), got a negative or non-finite entry"
            )
        zero = bool((lam == 0).any())
    else:
        check_float("lam (the ridge strength)", lam, low=0.0, type_error=True)
        zero = lam == 0
    if zero and ridge == "scaled":
        raise ValueError(
            "lam = 0 with ridge='scaled' leaves Sigma_1 = 0 singular at the first position; use lam > 0"
        )


def _check_inputs(q: Tensor, k: Tensor, v: Tensor, causal: bool) -> None:
    for name, x in (("q", q), ("k", k), ("v", v)):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
        if x.ndim != 4:
            raise ValueError(f"{name} must be 4-D (batch, heads, seq, dim), got shape {tuple(x.shape)}")
        if not x.is_floating_point():
            raise ValueError(f"{name} must be floating point, got {x.dtype}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share the last dimension, got {q.shape[-1]} and {k.shape[-1]}")
    if q.shape[:2] != k.shape[:2] or k.shape[:3] != v.shape[:3]:
        raise ValueError(
            "q, k, v must agree on (batch, heads) and k, v on seq, got "
            f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        )
    if k.shape[2] < 1:
        raise ValueError("k must hold at least one key (seq >= 1)")
    if causal and q.shape[2] != k.shape[2]:
        raise ValueError(f"causal=True needs as many queries as keys, got {q.shape[2]} and {k.shape[2]}")
    if not (q.dtype == k.dtype == v.dtype):
        raise ValueError(f"q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")


def resolve_bandwidth(bandwidth: float | None, d: int) -> float:
    """`bandwidth`, or the default d ** 0.25 when it is None (a finite float > 0 otherwise)."""
    if bandwidth is None:
        return d**0.25
    return check_float("bandwidth", bandwidth, low=0.0, low_open=True, type_error=True)


def kernel_scores(q: Tensor, k: Tensor, kernel: str = "exp_dot", bandwidth: float | None = None) -> Tensor:
    """Log kernel weights ``S_ij = log w(q_i, k_j)`` for (..., Tq, d) queries and (..., Tk, d) keys."""
    for name, x in (("q", q), ("k", k)):
        check_tensor(name, x, floating=True)
        if x.ndim < 2:
            raise ValueError(f"{name} must be at least 2-D (..., points, dim), got shape {tuple(x.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share the last dimension, got {q.shape[-1]} and {k.shape[-1]}")
    check_choice("kernel", kernel, KERNELS)
    h2 = resolve_bandwidth(bandwidth, q.shape[-1]) ** 2
    if kernel == "exp_dot":
        return q @ k.transpose(-1, -2) / h2
    if kernel == "rbf":
        # -||q - k||^2 / (2 h^2), expanded so no (Tq, Tk, d) tensor is formed
        sq = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - 2 * q @ k.transpose(-1, -2)
        return -sq.clamp_min(0) / (2 * h2)
    return q.new_zeros(*q.shape[:-1], k.shape[-2])


def _lam_tensor(lam: float | Tensor, like: Tensor) -> Tensor:
    """lam as a tensor broadcastable to (B, H, Tq); a (H,) tensor is read as one value per head."""
    if not isinstance(lam, Tensor):
        return torch.tensor(float(lam), dtype=like.dtype, device=like.device)
    if lam.ndim == 1:
        if lam.shape[0] != like.shape[1]:
            raise ValueError(f"a 1-D lam holds one value per head: need {like.shape[1]}, got {lam.shape[0]}")
        return lam.to(like.dtype)[None, :, None]
    return lam.to(like.dtype)


def _rho(lam: Tensor, log_omega: Tensor, ridge: str) -> Tensor:
    """rho_i = 2 lam / omega_i (formed as 2 lam exp(-log omega_i)) or the constant lam."""
    if ridge == "scaled":
        return 2 * lam * torch.exp(-log_omega)
    return lam + torch.zeros_like(log_omega)


def ridge_coefficients(
    scores: Tensor, lam: float | Tensor, ridge: str = "scaled", block_size: int | None = None
) -> Tensor:
    """The ridge rho_i of each query from its log-weights ``scores`` (..., Tq, Tk) (``-inf`` = masked key).

    ``block_size=None`` uses the literal ``2 lam / sum_j exp(S_ij)``; an integer streams the keys in blocks with a
    running max m_i and rescaled sum omega~_i and returns ``2 lam exp(-m_i) / omega~_i`` as FlashLLA does.
    """
    check_tensor("scores", scores, floating=True)
    if scores.ndim < 1 or scores.shape[-1] < 1:
        raise ValueError(f"scores must be (..., Tq, Tk) with Tk >= 1 keys, got shape {tuple(scores.shape)}")
    check_logits("scores", scores)  # NaN and +inf refused (+inf would give a ridge of 0); -inf masks a key
    if scores.numel() and not bool((scores > float("-inf")).any(-1).all()):
        raise ValueError("scores must leave every query at least one key (a row of all -inf has no ridge)")
    check_choice("ridge", ridge, RIDGES)
    _check_lam(lam, ridge)
    if block_size is not None:
        check_int("block_size", block_size, low=1)
    lam_t = torch.as_tensor(lam, dtype=scores.dtype, device=scores.device)
    if ridge == "const":
        return lam_t + torch.zeros(scores.shape[:-1], dtype=scores.dtype, device=scores.device)
    if block_size is None:
        return 2 * lam_t / scores.exp().sum(-1)
    m = torch.full(scores.shape[:-1], float("-inf"), dtype=scores.dtype, device=scores.device)
    acc = torch.zeros_like(m)
    for j0 in range(0, scores.shape[-1], block_size):
        blk = scores[..., j0 : j0 + block_size]
        m_new = torch.maximum(m, blk.amax(-1))
        acc = acc * torch.exp(m - m_new).nan_to_num(0.0) + torch.exp(blk - m_new[..., None]).sum(-1)
        m = m_new
    return 2 * lam_t * torch.exp(-m) / acc


def _causal_mask(tq: int, tk: int, q0: int, k0: int, device: torch.device) -> Tensor:
    """True where key k0 + c is visible from query q0 + r (key index <= query index)."""
    rows = torch.arange(q0, q0 + tq, device=device)[:, None]
    cols = torch.arange(k0, k0 + tk, device=device)[None, :]
    return cols <= rows


def _cg(matvec, b: Tensor, rho: Tensor, maxiter: int, tol: float) -> Tensor:
    """Batched conjugate gradients for (Sigma + rho I) z = b, Sigma applied by ``matvec`` (rows = systems)."""
    z = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rs = (r * r).sum(-1, keepdim=True)
    stop = (tol * b.norm(dim=-1, keepdim=True)) ** 2
    for _ in range(maxiter):
        if bool((rs <= stop).all()):
            break
        ap = matvec(p) + rho[..., None] * p
        pap = (p * ap).sum(-1, keepdim=True)
        active = (rs > stop) & (pap > 0)
        alpha = torch.where(
            active, rs / torch.where(active, pap, torch.ones_like(pap)), torch.zeros_like(pap)
        )
        z = z + alpha * p
        r = r - alpha * ap
        rs_new = (r * r).sum(-1, keepdim=True)
        beta = torch.where(
            active, rs_new / torch.where(active, rs, torch.ones_like(rs)), torch.zeros_like(rs)
        )
        p = r + beta * p
        rs = torch.where(active, rs_new, rs)
    return z


def _weighted_outer(w: Tensor, k: Tensor) -> Tensor:
    """sum_j w_ij k_j k_j^T, (..., Tq, d, d), as one matmul against the flattened (Tk, d * d) outer products."""
    d = k.shape[-1]
    outer = (k[..., :, None] * k[..., None, :]).flatten(-2)
    return (w @ outer).unflatten(-1, (d, d))


def _solve(sigma: Tensor, rho: Tensor, rhs: Tensor) -> Tensor:
    """z = (Sigma + rho I)^{-1} rhs by a batched Cholesky factorisation."""
    eye = torch.eye(sigma.shape[-1], dtype=sigma.dtype, device=sigma.device)
    a = sigma + rho[..., None, None] * eye
    chol, info = torch.linalg.cholesky_ex(a)
    if bool((info != 0).any()):
        # rounding made a nearly singular system indefinite (tiny rho): fall back to an LU solve
        return torch.linalg.solve(a, rhs[..., None])[..., 0]
    return torch.cholesky_solve(rhs[..., None], chol)[..., 0]


def _masked_scores(
    q: Tensor, k: Tensor, kernel: str, bandwidth: float | None, bias: Tensor | None, mask: Tensor | None
) -> Tensor:
    s = kernel_scores(q, k, kernel, bandwidth)
    if bias is not None:
        s = s + bias
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return s


def _naive(q, k, v, lam, kernel, bandwidth, ridge, solver, causal, bias, maxiter, tol):
    """Materialised LLA: returns (output, corrected weights a_ij)."""
    mask = _causal_mask(q.shape[2], k.shape[2], 0, 0, q.device) if causal else None
    s_log = _masked_scores(q, k, kernel, bandwidth, bias, mask)
    m = s_log.amax(-1, keepdim=True)
    w = torch.exp(s_log - m)  # w~_ij = w_ij e^{-m_i}; masked entries are exactly 0
    omega_t = w.sum(-1, keepdim=True)
    s = w / omega_t  # s_ij
    log_omega = (m + omega_t.log())[..., 0]
    rho = _rho(_lam_tensor(lam, q), log_omega, ridge)
    kbar = s @ k  # kbar_i = sum_j s_ij k_j
    rhs = kbar - q
    if solver == "cholesky":
        # Sigma_i = sum_j s_ij k_j k_j^T - kbar_i kbar_i^T
        second = _weighted_outer(s, k)
        sigma = second - kbar[..., :, None] * kbar[..., None, :]
        sigma = 0.5 * (sigma + sigma.transpose(-1, -2))
        z = _solve(sigma, rho, rhs)
    else:

        def matvec(p: Tensor) -> Tensor:
            # Sigma_i p_i = sum_j s_ij k_j (k_j . p_i) - kbar_i (kbar_i . p_i)
            kp = p @ k.transpose(-1, -2)
            return (s * kp) @ k - kbar * (kbar * p).sum(-1, keepdim=True)

        z = _cg(matvec, rhs, rho, maxiter, tol)
    # a_ij = s_ij [1 - (k_j - kbar_i)^T z_i]
    a = s * (1 + (kbar * z).sum(-1, keepdim=True) - z @ k.transpose(-1, -2))
    return a @ v, a


def _blockwise(q, k, v, lam, kernel, bandwidth, ridge, solver, causal, bias, block, maxiter, tol):
    """Two-pass tiled LLA; working memory O(block^2 + block d^2) per (batch, head) besides the output."""
    tq, tk, d = q.shape[2], k.shape[2], q.shape[-1]
    lam_t = _lam_tensor(lam, q)
    outs = []
    for q0 in range(0, tq, block):
        qb = q[:, :, q0 : q0 + block]
        nq = qb.shape[2]
        k_end = min(tk, q0 + nq) if causal else tk
        lam_b = lam_t[..., q0 : q0 + nq] if lam_t.ndim == 3 and lam_t.shape[-1] == tq else lam_t

        def tile(
            j0: int, qb: Tensor = qb, q0: int = q0, nq: int = nq, k_end: int = k_end
        ) -> tuple[Tensor, Tensor]:
            kb = k[:, :, j0 : min(j0 + block, k_end)]
            mask = _causal_mask(nq, kb.shape[2], q0, j0, q.device) if causal else None
            bb = None if bias is None else bias[..., q0 : q0 + nq, j0 : j0 + kb.shape[2]]
            return _masked_scores(qb, kb, kernel, bandwidth, bb, mask), kb

        # pass 1: running max m, rescaled omega~, sum w~ k and (Cholesky) sum w~ k k^T
        m = torch.full(qb.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
        omega_t = torch.zeros_like(m)
        m1 = torch.zeros_like(qb)
        m2 = qb.new_zeros(*qb.shape, d) if solver == "cholesky" else None
        for j0 in range(0, k_end, block):
            sc, kb = tile(j0)
            m_new = torch.maximum(m, sc.amax(-1))
            scale = torch.exp(m - m_new).nan_to_num(0.0)
            w = torch.exp(sc - m_new[..., None])
            omega_t = omega_t * scale + w.sum(-1)
            m1 = m1 * scale[..., None] + w @ kb
            if m2 is not None:
                m2 = m2 * scale[..., None, None] + _weighted_outer(w, kb)
            m = m_new
        log_omega = m + omega_t.log()  # log omega_i = m_i + log omega~_i: the shift is undone here
        rho = _rho(lam_b, log_omega, ridge)
        kbar = m1 / omega_t[..., None]
        rhs = kbar - qb
        if m2 is not None:
            sigma = m2 / omega_t[..., None, None] - kbar[..., :, None] * kbar[..., None, :]
            z = _solve(0.5 * (sigma + sigma.transpose(-1, -2)), rho, rhs)
        else:

            def matvec(
                p: Tensor, m: Tensor = m, omega_t: Tensor = omega_t, kbar: Tensor = kbar, k_end: int = k_end
            ) -> Tensor:
                acc = torch.zeros_like(p)
                for j0 in range(0, k_end, block):
                    sc, kb = tile(j0)
                    w = torch.exp(sc - m[..., None]) / omega_t[..., None]
                    acc = acc + (w * (p @ kb.transpose(-1, -2))) @ kb
                return acc - kbar * (kbar * p).sum(-1, keepdim=True)

            z = _cg(matvec, rhs, rho, maxiter, tol)
        # pass 2: o_i = sum_j s_ij [1 + kbar_i . z_i - k_j . z_i] v_j
        c = 1 + (kbar * z).sum(-1, keepdim=True)
        o = qb.new_zeros(*qb.shape[:-1], v.shape[-1])
        for j0 in range(0, k_end, block):
            sc, kb = tile(j0)
            s = torch.exp(sc - m[..., None]) / omega_t[..., None]
            o = o + (s * (c - z @ kb.transpose(-1, -2))) @ v[:, :, j0 : j0 + kb.shape[2]]
        outs.append(o)
    return torch.cat(outs, dim=2)


def _validate(
    q, k, v, lam, kernel, bandwidth, ridge, solver, block_size, causal, cg_maxiter, cg_tol, score_bias=None
):
    _check_inputs(q, k, v, causal)
    check_choice("kernel", kernel, KERNELS)
    check_choice("ridge", ridge, RIDGES)
    check_choice("solver", solver, SOLVERS)
    _check_lam(lam, ridge)
    if isinstance(lam, Tensor) and lam.ndim != 1:
        want = (q.shape[0], q.shape[1], q.shape[2])
        try:
            ok = torch.broadcast_shapes(lam.shape, want) == want
        except RuntimeError:
            ok = False
        if not ok:
            raise ValueError(
                f"lam must be a float, a (heads,) tensor or broadcastable to (B, H, Tq) = {want}, "
                f"got shape {tuple(lam.shape)}"
            )
    resolve_bandwidth(bandwidth, q.shape[-1])
    if block_size is not None:
        check_int("block_size", block_size, low=1)
    if cg_maxiter is not None:
        check_int("cg_maxiter (CG iterations)", cg_maxiter, low=1)
    check_float("cg_tol", cg_tol, low=0.0)
    if score_bias is not None:
        check_tensor("score_bias", score_bias, floating=True)
        want = (q.shape[0], q.shape[1], q.shape[2], k.shape[2])
        try:
            ok = torch.broadcast_shapes(score_bias.shape, want) == want
        except RuntimeError:
            ok = False
        if not ok:
            raise ValueError(
                f"score_bias must broadcast to (B, H, Tq, Tk) = {want}, got shape {tuple(score_bias.shape)}"
            )
        if bool(score_bias.isnan().any()):
            raise ValueError("score_bias must hold no NaN (-inf masks a key)")


def local_linear_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    *,
    lam: float | Tensor,
    kernel: str = "exp_dot",
    bandwidth: float | None = None,
    ridge: str = "scaled",
    solver: str = "cholesky",
    block_size: int | None = None,
    causal: bool = True,
    score_bias: Tensor | None = None,
    cg_maxiter: int | None = None,
    cg_tol: float = 1e-13,
) -> Tensor:
    """Local linear attention of (B, H, Tq, d) queries over (B, H, Tk, d) keys and (B, H, Tk, d_v) values.

    Parameters
    ----------
    lam : ridge strength (>= 0; > 0 for ``ridge="scaled"``): a float, a (H,) tensor (one per head) or a tensor
        broadcastable to (B, H, Tq).
    kernel : ``"exp_dot"`` (softmax weights), ``"rbf"`` (Gaussian, bandwidth h) or ``"uniform"`` (w = 1).
    bandwidth : h (default d ** 0.25, so h^2 = sqrt(d)).
    ridge : ``"scaled"`` (rho_i = 2 lam / omega_i, the objective's ridge) or ``"const"`` (rho_i = lam).
    solver : ``"cholesky"`` (batched d x d factorisation) or ``"cg"`` (matrix-free conjugate gradients).
    block_size : None for the materialised form, an int for the two-pass blockwise form with this tile size.
    causal : keys j <= i only (needs Tq == Tk); False evaluates every query against all keys.
    score_bias : optional additive bias on the log-weights, broadcastable to (B, H, Tq, Tk).
    cg_maxiter, cg_tol : CG iteration cap (default 2 d + 10) and relative residual tolerance.

    Returns
    -------
    Tensor (B, H, Tq, d_v): the local linear fit of each query's visible (k, v) pairs, evaluated at the query.

    Example
    -------
    >>> g = torch.Generator().manual_seed(0)
    >>> q, k, v = (torch.randn(1, 2, 6, 3, generator=g, dtype=torch.float64) for _ in range(3))
    >>> o = local_linear_attention(q, k, v, lam=1.0)
    >>> o.shape, bool(torch.allclose(o[..., 0, :], v[..., 0, :]))
    (torch.Size([1, 2, 6, 3]), True)
    """
    _validate(
        q, k, v, lam, kernel, bandwidth, ridge, solver, block_size, causal, cg_maxiter, cg_tol, score_bias
    )
    maxiter = cg_maxiter if cg_maxiter is not None else 2 * q.shape[-1] + 10
    args = (q, k, v, lam, kernel, bandwidth, ridge, solver, causal, score_bias)
    if block_size is None:
        return _naive(*args, maxiter, cg_tol)[0]
    return _blockwise(*args, block_size, maxiter, cg_tol)


def lla_weights(
    q: Tensor,
    k: Tensor,
    *,
    lam: float | Tensor,
    kernel: str = "exp_dot",
    bandwidth: float | None = None,
    ridge: str = "scaled",
    causal: bool = True,
) -> Tensor:
    """The corrected attention weights a_ij (B, H, Tq, Tk) of LLA: rows sum to 1, entries may be negative."""
    check_tensor("k", k, floating=True)
    v = k.new_zeros(*k.shape[:-1], 1)
    _validate(q, k, v, lam, kernel, bandwidth, ridge, "cholesky", None, causal, None, 0.0)
    return _naive(q, k, v, lam, kernel, bandwidth, ridge, "cholesky", causal, None, 1, 0.0)[1]
