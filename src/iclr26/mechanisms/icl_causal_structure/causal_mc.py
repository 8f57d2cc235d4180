"""Markov chains on a random causal tree, shared by in-context examples, and exact Bayesian model averaging.

Conventions (0-based throughout):

* a *task* is one row-stochastic kernel ``pi`` of shape (d, d), ``pi[a, b] = P(child = b | parent = a)``;
* a *context* is ``tokens[b]`` of shape (L + 1, H): rows ``0..L-1`` are the L in-context examples, row ``L``
  (the last one) is the query; ``parents[b, h]`` is the parent position of position ``h`` (``-1`` for ``h = 0``,
  otherwise uniform on ``0..h-1``), shared by every row of the context;
* position 0 of every row is uniform on ``[d]``; position ``h >= 1`` is drawn from ``pi[x[pa(h)], :]``;
* every predictor also takes a single context (L + 1, H): :func:`bma_predict` then returns unbatched outputs,
  the baselines a batch of one.

Bayesian model averaging with a uniform prior on every ``pa(h)`` (the parents of different positions are
independent a priori and, given the examples, a posteriori):

    s_h(h') = sum_{l < L} log pi[x^l_{h'}, x^l_h]                       (h' < h; the query row is NOT used)
    w_h(h') = softmax_{h' < h} s_h(h')
    p_BMA(x^L_h = c) = sum_{h' < h} w_h(h') pi[x^L_{h'}, c]

Example
-------
>>> pi = sample_task(3, alpha=1.0, eps=0.1, seed=0)
>>> tokens, parents = sample_contexts(pi, batch=2, L=4, H=5, seed=1)
>>> w, pred = bma_predict(tokens, pi)
>>> tuple(w.shape), tuple(pred.shape)
((2, 5, 5), (2, 5, 3))
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_array, check_float, check_int, check_tensor

__all__ = [
    "bma",
    "bma_direct",
    "bma_predict",
    "check_kernel",
    "kl_divergence",
    "log_loss",
    "map_parent_predict",
    "oracle_predict",
    "previous_parent_predict",
    "sample_contexts",
    "sample_task",
    "uniform_parent_predict",
    "unigram_predict",
]


def check_kernel(pi: Tensor | np.ndarray, name: str = "pi", atol: float = 1e-6) -> Tensor:
    """Return `pi` as a float64 tensor after checking it is a (d, d) row-stochastic matrix with d >= 2."""
    if not isinstance(pi, (Tensor, np.ndarray)):
        raise TypeError(f"{name} must be a torch tensor or numpy array, got {type(pi).__name__}")
    if isinstance(pi, np.ndarray):
        p = torch.as_tensor(check_array(name, pi))
    else:
        p = check_tensor(name, pi, floating=True).detach().to(torch.float64)
    if p.ndim != 2 or p.shape[0] != p.shape[1] or p.shape[0] < 2:
        raise ValueError(f"{name} must be a square (d, d) matrix with d >= 2, got shape {tuple(p.shape)}")
    if not torch.isfinite(p).all() or (p < 0).any():
        raise ValueError(f"{name} must have finite non-negative entries")
    if not torch.allclose(p.sum(1), torch.ones(p.shape[0], dtype=torch.float64), atol=atol):
        raise ValueError(f"{name} must be row-stochastic (rows sum to 1), got row sums {p.sum(1).tolist()}")
    return p


def sample_task(d: int, alpha: float = 1.0, eps: float = 0.1, seed: int = 0) -> Tensor:
    """Draw the task's fixed kernel: rows ~ Dirichlet(alpha 1_d), then ``pi <- (1 - eps) pi + eps / d``.

    The mixing with the uniform kernel gives every entry at least ``eps / d`` (the lower-bound assumption of the
    paper's analysis). Returns a float64 tensor of shape (d, d), rows summing to 1.
    """
    d = check_int("d", d, low=2, type_error=True)
    check_float("alpha", alpha, low=0.0, low_open=True)
    check_float("eps", eps, 0.0, 1.0, high_open=True)
    rng = np.random.default_rng(check_int("seed", seed, low=0, type_error=True))
    rows = rng.dirichlet(np.full(d, float(alpha)), size=d)
    rows = (1.0 - eps) * rows + eps / d
    rows /= rows.sum(1, keepdims=True)
    return torch.as_tensor(rows, dtype=torch.float64)


def sample_contexts(
    pi: Tensor | np.ndarray, batch: int, L: int, H: int, seed: int = 0
) -> tuple[Tensor, Tensor]:
    """Draw `batch` contexts of L examples + 1 query of length H, each with a fresh random parent tree.

    Returns ``tokens`` (batch, L + 1, H) int64 in ``[0, d)`` and ``parents`` (batch, H) int64 with
    ``parents[:, 0] = -1`` and ``parents[:, h]`` uniform on ``0..h-1``.
    """
    p = check_kernel(pi)
    batch = check_int("batch", batch, low=1, type_error=True)
    L = check_int("L", L, low=1, type_error=True)
    H = check_int("H", H, low=2, type_error=True)
    d = p.shape[0]
    gen = torch.Generator().manual_seed(check_int("seed", seed, low=0, type_error=True))
    cdf = p.cumsum(1)
    cdf[:, -1] = 1.0
    tokens = torch.empty(batch, L + 1, H, dtype=torch.int64)
    parents = torch.full((batch, H), -1, dtype=torch.int64)
    tokens[:, :, 0] = torch.randint(0, d, (batch, L + 1), generator=gen)
    for h in range(1, H):
        pa = torch.randint(0, h, (batch,), generator=gen)
        parents[:, h] = pa
        prev = tokens[torch.arange(batch), :, pa]  # (batch, L + 1)
        u = torch.rand(batch, L + 1, 1, generator=gen, dtype=torch.float64)
        # inverse-CDF draw from row pi[prev]
        tokens[:, :, h] = (cdf[prev] < u).sum(-1).clamp_max(d - 1)
    return tokens, parents


def _tokens(tokens: Tensor | np.ndarray, d: int) -> tuple[Tensor, bool, bool]:
    """Validate tokens; return a (B, L + 1, H) int64 tensor, whether input was numpy, whether it was 2-D."""
    if not isinstance(tokens, (Tensor, np.ndarray)):
        raise TypeError(f"tokens must be a torch tensor or numpy array, got {type(tokens).__name__}")
    is_np = isinstance(tokens, np.ndarray)
    t = torch.as_tensor(tokens)
    if t.dtype.is_floating_point or t.dtype == torch.bool or t.dtype.is_complex:
        raise TypeError(f"tokens must hold integer ids, got dtype {t.dtype}")
    squeeze = t.ndim == 2
    if squeeze:
        t = t[None]
    if t.ndim != 3:
        raise ValueError(f"tokens must have shape (batch, L + 1, H) or (L + 1, H), got {tuple(t.shape)}")
    if t.shape[2] < 2:
        raise ValueError(f"tokens must have H >= 2 positions, got H = {t.shape[2]}")
    if t.numel() and (int(t.min()) < 0 or int(t.max()) >= d):
        raise ValueError(f"tokens must lie in [0, d={d}), got range [{int(t.min())}, {int(t.max())}]")
    return t.long(), is_np, squeeze


def _out(x: Tensor, is_np: bool, squeeze: bool) -> Tensor | np.ndarray:
    x = x[0] if squeeze else x
    return x.numpy() if is_np else x


def _log_scores(t: Tensor, logpi: Tensor) -> Tensor:
    """s[b, h, h'] = sum over example rows l < L of log pi[x^l_{h'}, x^l_h]; -inf where h' >= h."""
    ex = t[:, :-1]  # (B, L, H): the examples only
    # logpi[parent value at h', child value at h] -> (B, L, h, h')
    pair = logpi[ex[:, :, None, :], ex[:, :, :, None]]
    s = pair.sum(1)
    H = t.shape[2]
    allowed = torch.ones(H, H, dtype=torch.bool).tril(-1)
    return s.masked_fill(~allowed, float("-inf"))


def _predict(w: Tensor, query: Tensor, p: Tensor) -> Tensor:
    """p(x^L_h = c) = sum_{h'} w[b, h, h'] pi[query[b, h'], c]; position 0 is uniform."""
    pred = torch.einsum("bhk,bkc->bhc", w, p[query])
    pred[:, 0] = 1.0 / p.shape[0]
    return pred


def bma_predict(tokens: Tensor | np.ndarray, pi: Tensor | np.ndarray) -> tuple[Tensor, Tensor]:
    """Exact Bayesian model averaging over the parent of every query position (log-space, float64).

    Parameters
    ----------
    tokens : (B, L + 1, H) or (L + 1, H) integer ids in ``[0, d)``. Rows ``0..L-1`` are the examples; the
        LAST row is the query, whose tokens enter only as the parents' values (never the likelihood). L = 0
        (a query alone) gives the uniform prior.
    pi : (d, d) row-stochastic kernel, ``pi[a, b] = P(child = b | parent = a)``; zero entries are allowed.

    Returns
    -------
    w : (B, H, H) float64, ``w[b, h, h'] = P(pa(h) = h' | examples)``, a distribution over ``h' < h`` for
        ``h >= 1`` (zeros at ``h' >= h``); row ``h = 0`` (no parent) is all zeros.
    pred : (B, H, d) float64, ``pred[b, h, c] = sum_{h'<h} w[b, h, h'] pi[x^L_{h'}, c]``; ``pred[b, 0]`` is
        uniform (position 0 has no parent). Numpy in -> numpy out; a 2-D ``tokens`` gives unbatched outputs.

    Raises ValueError when some position has zero likelihood under every candidate parent.
    """
    p = check_kernel(pi)
    t, is_np, squeeze = _tokens(tokens, p.shape[0])
    with np.errstate(divide="ignore"):
        logpi = torch.log(p)
    s = _log_scores(t, logpi)
    dead = torch.isneginf(s[:, 1:]).all(-1)
    if dead.any():
        raise ValueError("tokens are impossible under pi: some position has zero likelihood for every parent")
    w = torch.softmax(s[:, 1:], dim=-1)
    w = torch.cat([torch.zeros_like(w[:, :1]), w], dim=1)
    pred = _predict(w, t[:, -1], p)
    return _out(w, is_np, squeeze), _out(pred, is_np, squeeze)


bma = bma_predict  # the brief's name


def bma_direct(tokens: Tensor | np.ndarray, pi: Tensor | np.ndarray) -> tuple[Tensor, Tensor]:
    """Slow reference for :func:`bma_predict`: products of probabilities, loops, no log-space (float64)."""
    p = check_kernel(pi)
    t, is_np, squeeze = _tokens(tokens, p.shape[0])
    B, Lp1, H = t.shape
    w = torch.zeros(B, H, H, dtype=torch.float64)
    for b in range(B):
        for h in range(1, H):
            lik = torch.ones(h, dtype=torch.float64)
            for hp in range(h):
                for row in range(Lp1 - 1):
                    lik[hp] = lik[hp] * p[t[b, row, hp], t[b, row, h]]
            w[b, h, :h] = lik / lik.sum()
    pred = _predict(w, t[:, -1], p)
    return _out(w, is_np, squeeze), _out(pred, is_np, squeeze)


def _weights_predict(tokens: Tensor, pi: Tensor, w: Tensor) -> Tensor:
    p = check_kernel(pi)
    t, _, _ = _tokens(tokens, p.shape[0])
    return _predict(w, t[:, -1], p)


def oracle_predict(tokens: Tensor, parents: Tensor, pi: Tensor) -> Tensor:
    """Knows the parent tree: ``pi[x^L_{pa(h)}, :]`` (uniform at h = 0). Returns (B, H, d) float64."""
    t, _, _ = _tokens(tokens, check_kernel(pi).shape[0])
    if isinstance(parents, np.ndarray):
        parents = torch.as_tensor(check_array("parents", parents, integer=True))
    parents = check_tensor("parents", parents, floating=False).long()
    if parents.shape != (t.shape[0], t.shape[2]):
        raise ValueError(
            f"parents must have shape (batch, H) = {(t.shape[0], t.shape[2])} of the tokens, "
            f"got {tuple(parents.shape)}"
        )
    H = t.shape[2]
    w = torch.zeros(t.shape[0], H, H, dtype=torch.float64)
    w[:, 1:].scatter_(2, parents[:, 1:, None].clamp_min(0), 1.0)
    return _weights_predict(t, pi, w)


def map_parent_predict(tokens: Tensor, pi: Tensor) -> Tensor:
    """Plug-in with the MAP parent ``argmax_{h'} w_h(h')`` (first index on ties). Returns (B, H, d)."""
    p = check_kernel(pi)
    t, _, _ = _tokens(tokens, p.shape[0])
    w, _ = bma_predict(t, p)
    hard = torch.zeros_like(w)
    hard[:, 1:].scatter_(2, w[:, 1:].argmax(-1, keepdim=True), 1.0)
    return _weights_predict(t, p, hard)


def uniform_parent_predict(tokens: Tensor, pi: Tensor) -> Tensor:
    """No posterior updating: the prior mixture, w uniform over ``h' < h``. Returns (B, H, d)."""
    t, _, _ = _tokens(tokens, check_kernel(pi).shape[0])
    H = t.shape[2]
    prior = torch.ones(H, H, dtype=torch.float64).tril(-1)
    prior[1:] /= prior[1:].sum(-1, keepdim=True)
    return _weights_predict(t, pi, prior.expand(t.shape[0], H, H).clone())


def previous_parent_predict(tokens: Tensor, pi: Tensor) -> Tensor:
    """Fixed first-order chain ``pa(h) = h - 1``: ``pi[x^L_{h-1}, :]``. Returns (B, H, d)."""
    t, _, _ = _tokens(tokens, check_kernel(pi).shape[0])
    H = t.shape[2]
    w = torch.diag_embed(torch.ones(H - 1, dtype=torch.float64), offset=-1)
    return _weights_predict(t, pi, w.expand(t.shape[0], H, H).clone())


def unigram_predict(tokens: Tensor, pi: Tensor, prior: float = 0.5) -> Tensor:
    """Position-wise in-context unigram: counts of ``x^l_h`` over the L examples plus `prior` per symbol."""
    p = check_kernel(pi)
    t, _, _ = _tokens(tokens, p.shape[0])
    check_float("prior", prior, low=0.0, low_open=True)
    counts = torch.nn.functional.one_hot(t[:, :-1], p.shape[0]).sum(1).to(torch.float64) + prior
    return counts / counts.sum(-1, keepdim=True)


def log_loss(pred: Tensor, targets: Tensor) -> Tensor:
    """Per-position negative log-likelihood ``-log pred[b, h, targets[b, h]]``, shape (B, H)."""
    check_tensor("pred", pred, floating=True, finite=True)
    check_tensor("targets", targets, floating=False)
    if targets.shape != pred.shape[:-1]:
        raise ValueError(
            f"targets must have the shape of pred without its last axis, {tuple(pred.shape[:-1])}, "
            f"got {tuple(targets.shape)}"
        )
    if targets.numel() and (int(targets.min()) < 0 or int(targets.max()) >= pred.shape[-1]):
        raise ValueError(f"targets must hold symbols in [0, {pred.shape[-1]})")
    return -torch.log(pred.gather(-1, targets[..., None].long()).squeeze(-1).clamp_min(1e-300))


def kl_divergence(p: Tensor, q: Tensor) -> Tensor:
    """Per-position ``KL(p || q) = sum_c p log(p / q)`` over the last axis (0 log 0 = 0)."""
    check_tensor("p", p, floating=True, finite=True)
    check_tensor("q", q, floating=True)
    if q.shape != p.shape:
        raise ValueError(f"q must have the shape of p, {tuple(p.shape)}, got {tuple(q.shape)}")
    p = p.to(torch.float64)
    q = q.to(torch.float64).clamp_min(1e-300)
    ratio = torch.where(p > 0, p * (torch.log(p.clamp_min(1e-300)) - torch.log(q)), torch.zeros_like(p))
    return ratio.sum(-1)
