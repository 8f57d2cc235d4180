"""Sample-based policy evaluation on a junction tree: values V, Q and advantages A of DADO.

On a batch of designs (optionally weighted), leaves to root, for every clique ``c`` and sample ``n``:

    V_c(n) = f_c(x~_c) + sum_{k in ch(c)} mean_{m : x~_c(m) = x~_c(n)} Q_k(m)
    Q_c(n) = f_{pa(c),c}(x~_pa, x~_c) + V_c(n)
    A_c(n) = Q_c(n) - mean_{m : x~_pa(m) = x~_pa(n)} Q_c(m)          (c != root)
    A_r(n) = V_r(n)                                                  (the root is not centred)

Means run over the samples sharing the conditioning state (weighted means when weights are given: with the
exact probabilities of the full support these are exact conditional expectations under the current policy).
One depth level is processed at a time with scatter-sums over the parent's joint states.
"""

from __future__ import annotations

import torch

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.generative.dado.objective import TreeStructure

__all__ = ["WEIGHT_CLIP", "advantage_weights", "effective_sample_size", "group_mean", "tree_values"]

WEIGHT_CLIP = 1e30


def group_mean(
    values: torch.Tensor, keys: torch.Tensor, n_keys: int, weights: torch.Tensor | None = None
) -> torch.Tensor:
    """Column-wise mean of `values` [N, k] over rows sharing the same key `keys` [N, k] (ints < n_keys).

    Returns [N, k]: entry (n, j) is the (weighted) mean of ``values[m, j]`` over rows ``m`` with
    ``keys[m, j] == keys[n, j]``.
    """
    check_tensor("values", values, ndim=2, floating=True)
    n_keys = check_int("n_keys", n_keys, low=1)
    check_tensor("keys", keys, floating=False, shape=tuple(values.shape))
    if keys.numel() and (int(keys.min()) < 0 or int(keys.max()) >= n_keys):
        raise ValueError(
            f"keys must lie in [0, n_keys={n_keys}), got values in [{int(keys.min())}, {int(keys.max())}]"
        )
    _check_weights(weights, values.shape[0])
    return _group_mean(values, keys, n_keys, weights)


def _group_mean(
    values: torch.Tensor, keys: torch.Tensor, n_keys: int, weights: torch.Tensor | None = None
) -> torch.Tensor:
    """:func:`group_mean` without the argument checks (tree_values checks its inputs once)."""
    n, k = values.shape
    w = torch.ones(n, dtype=values.dtype) if weights is None else weights.to(values.dtype)
    kt = keys.T
    sums = torch.zeros(k, n_keys, dtype=values.dtype).scatter_add_(1, kt, (values * w[:, None]).T)
    cnt = torch.zeros(k, n_keys, dtype=values.dtype).scatter_add_(1, kt, w[None, :].expand(k, n).contiguous())
    mean = sums / cnt.clamp_min(torch.finfo(values.dtype).tiny)
    return mean.gather(1, kt).T


def _check_weights(weights: torch.Tensor | None, n: int) -> None:
    if weights is None:
        return
    check_tensor("weights", weights, floating=True, shape=(n,))
    if not bool(((weights >= 0) & ~torch.isnan(weights)).all()):
        raise ValueError(f"weights must be a non-negative vector of length {n} (no NaN)")


def tree_values(
    structure: TreeStructure,
    node_vals: torch.Tensor,
    edge_vals: torch.Tensor,
    states: torch.Tensor,
    weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(V, Q, A), each [N, C], from the batch's term values and clique joint states [N, C].

    ``Q[:, root]`` is set to ``V[:, root]``. `weights` [N] (optional, >= 0) turns every mean into a weighted mean.
    """
    if not isinstance(structure, TreeStructure):
        raise TypeError(f"structure must be a TreeStructure, got {type(structure).__name__}")
    check_tensor("node_vals", node_vals, ndim=2, floating=True, finite=True)
    check_tensor("edge_vals", edge_vals, floating=True, finite=True)
    check_tensor("states", states, floating=False)
    n, c_n = node_vals.shape
    if edge_vals.shape != (n, c_n) or states.shape != (n, c_n):
        raise ValueError(
            f"node_vals, edge_vals and states must share the shape [N, C]; got {tuple(node_vals.shape)}, "
            f"{tuple(edge_vals.shape)} and {tuple(states.shape)}"
        )
    if c_n != structure.n_cliques:
        raise ValueError(f"term arrays have {c_n} columns but the tree has {structure.n_cliques} cliques")
    _check_weights(weights, n)
    n_keys = structure.n_states**structure.width
    if states.numel() and (int(states.min()) < 0 or int(states.max()) >= n_keys):
        raise ValueError(
            f"states must be joint clique states in [0, {n_keys}), got values in [{int(states.min())}, {int(states.max())}]"
        )
    v = node_vals.clone()
    q = torch.zeros_like(v)
    a = torch.zeros_like(v)
    parent = torch.tensor(structure.parent, dtype=torch.long)
    for level in reversed(structure.levels[1:]):
        cols = torch.tensor(level, dtype=torch.long)
        pcols = parent[cols]
        q[:, cols] = edge_vals[:, cols] + v[:, cols]
        expected = _group_mean(q[:, cols], states[:, pcols], n_keys, weights)
        a[:, cols] = q[:, cols] - expected
        v.index_add_(1, pcols, expected)
    r = structure.root
    q[:, r] = v[:, r]
    a[:, r] = v[:, r]
    return v, q, a


def advantage_weights(advantages: torch.Tensor, beta: float) -> torch.Tensor:
    """w = min(exp(A / beta), 1e30): unnormalised, clipped exponential weights (float64, never inf or NaN)."""
    check_float("beta (a positive temperature)", beta, low=0.0, low_open=True)
    check_tensor("advantages", advantages, floating=True)
    if bool(torch.isnan(advantages).any()):
        raise ValueError("advantages must not hold NaN")
    return torch.exp(advantages.to(torch.float64) / beta).clamp(max=WEIGHT_CLIP)


def effective_sample_size(weights: torch.Tensor) -> torch.Tensor:
    """Kish effective sample size (sum w)^2 / sum w^2 along the first axis (per factor)."""
    check_tensor("weights", weights, floating=True)
    if not bool(((weights >= 0) & ~torch.isnan(weights)).all()):
        raise ValueError("weights must be non-negative (no NaN)")
    w = weights.to(torch.float64)
    return w.sum(0) ** 2 / (w.square().sum(0) + 1e-300)
