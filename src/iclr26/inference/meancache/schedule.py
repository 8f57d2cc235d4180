"""Peak-Suppressed Shortest-Path (PSSP) scheduling of MeanCache (Gao et al., ICLR 2026, arXiv 2601.19961).

Nodes are step indices 0..N; an edge (i -> j), i < j, means "compute at step i, estimate steps i+1..j-1 from the
cache with window K". Its cost C[i, j, k] is the relative L1 deviation of the latents at j from the full-step
reference, the rollout starting from the reference state and history at i (path-independent, as the DP needs).
A schedule is a path 0 = n_0 < ... < n_m = N with m <= B edges (B network calls) minimising

    sum_e min_K C(e, K)^gamma        (gamma > 1 suppresses one large deviation in favour of several small ones)

solved exactly by DP over (node, #edges used) in O(N^2 B); ``pssp_brute_force`` enumerates every path.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from iclr26.checks import check_float, check_int
from iclr26.inference.meancache.sampler import (
    CacheLog,
    VelocityFn,
    check_sigmas,
    check_velocity_fn,
    check_z,
    checked_velocity,
)

__all__ = [
    "estimate_edge_costs",
    "force_compute",
    "path_cost",
    "pssp_brute_force",
    "pssp_schedule",
    "schedule_from_path",
]


def estimate_edge_costs(
    velocity_fn: VelocityFn,
    sigmas: Sequence[float],
    calib_inputs: torch.Tensor,
    K_values: Sequence[int],  # noqa: N803 - the brief's name
    cond: Any = None,
) -> np.ndarray:
    """Edge costs C[i, j, k] (shape (N+1, N+1, len(K_values))) from reference rollouts on `calib_inputs`.

    C[i, j, k] = sum|z_j - z_j^ref| / sum|z_j^ref| when steps i+1..j-1 are estimated with K = K_values[k] from
    the reference history up to step i; 0 for j = i + 1; inf for j <= i or when K exceeds the i + 1 logged steps.
    Only the N reference network calls are made (estimated steps need none).
    """
    check_velocity_fn(velocity_fn)
    sig = check_sigmas(sigmas)
    if isinstance(K_values, (str, bytes)):
        raise ValueError(f"K_values must be a non-empty list of ints >= 1, got {K_values!r}")
    ks = [int(k) for k in K_values]
    if not ks or any(k < 1 for k in ks):
        raise ValueError(f"K_values must be a non-empty list of ints >= 1, got {list(K_values)}")
    for i, k in enumerate(K_values):
        check_int(f"K_values[{i}]", k, low=1)
    n = len(sig) - 1
    ref = CacheLog()
    z = check_z("calib_inputs", calib_inputs)
    for i in range(n):
        v = checked_velocity(velocity_fn, z, sig[i], cond)
        z_next = z + (sig[i + 1] - sig[i]) * v
        ref.add(z, z_next, sig[i], sig[i + 1], v, True)
        z = z_next
    z_ref = [*ref.z_before, ref.z_after[-1]]
    norms = [float(x.abs().sum().clamp_min(1e-30)) for x in z_ref]
    cost = np.full((n + 1, n + 1, len(ks)), np.inf)
    for i in range(n):
        cost[i, i + 1, :] = 0.0
        for kk, k in enumerate(ks):
            if k > i + 1:
                continue
            log = CacheLog(
                ref.z_before[: i + 1],
                ref.z_after[: i + 1],
                ref.sig[: i + 1],
                ref.sig_next[: i + 1],
                ref.v[: i + 1],
            )
            z = ref.z_after[i]
            for s in range(i + 1, n):  # estimate step s; its end state is node s + 1
                dt = sig[s + 1] - sig[s]
                v = log.v[-1] if k == 1 else log.v[-1] - log.jvp_hat(k) * dt
                z_next = z + dt * v
                log.add(z, z_next, sig[s], sig[s + 1], v, False)
                z = z_next
                cost[i, s + 1, kk] = float((z - z_ref[s + 1]).abs().sum()) / norms[s + 1]
    return cost


def _costs(C: Any) -> np.ndarray:  # noqa: N803
    """C as an (N+1, N+1, n_K) float array, N >= 1."""
    try:
        c = np.asarray(C, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"C must be an array of edge costs, got {type(C).__name__}") from None
    if c.ndim == 2:
        c = c[:, :, None]
    if c.ndim != 3 or c.shape[0] != c.shape[1] or c.shape[0] < 2 or c.shape[2] < 1:
        raise ValueError(f"C must have shape (N+1, N+1) or (N+1, N+1, n_K) with N >= 1, got {np.shape(C)}")
    return c


def _prepare(C: Any, budget: int, gamma: float) -> tuple[np.ndarray, np.ndarray, int]:  # noqa: N803
    c = _costs(C)
    n = c.shape[0] - 1
    upper = c[np.triu_indices(n + 1, 1)]
    if np.isnan(upper).any() or (upper < 0).any():
        raise ValueError("C must hold non-negative costs (inf marks a missing edge; NaN is not allowed)")
    check_int(f"budget (network calls, N = {n})", budget, 2, n)
    check_float("gamma", gamma, low=0.0, low_open=True)
    best_k = c.argmin(axis=2)
    w = np.take_along_axis(c, best_k[:, :, None], axis=2)[:, :, 0] ** gamma
    w[np.tril_indices(n + 1)] = np.inf
    return w, best_k, n


def schedule_from_path(
    nodes: Sequence[int], best_k: np.ndarray, K_values: Sequence[int]
) -> tuple[list[int], list[int]]:  # noqa: N803
    """(compute_steps, K_per_step) from a path 0 = n_0 < ... < n_m = N; K_per_step is 0 on computed steps."""
    n = nodes[-1]
    k_per = [0] * n
    for a, b in zip(nodes, nodes[1:]):
        for s in range(a + 1, b):
            k_per[s] = int(K_values[int(best_k[a, b])])
    return list(nodes[:-1]), k_per


def pssp_schedule(
    C: Any,  # noqa: N803 - the brief's name
    budget: int,
    gamma: float = 2.0,
    *,
    K_values: Sequence[int] | None = None,  # noqa: N803
) -> tuple[list[int], list[int]]:
    """Exact PSSP: minimise sum_e min_K C(e, K)^gamma over paths 0 -> N with at most `budget` edges.

    Parameters
    ----------
    C : array (N+1, N+1, n_K) (or (N+1, N+1) for a single K) of non-negative edge costs; C[i, j, k] is the cost
        of computing at i and estimating i+1..j-1 with the k-th window; entries with j <= i are ignored, inf marks
        a forbidden edge.
    budget : maximum number of network calls B, 2 <= B <= N.
    gamma : peak-suppression exponent (> 0; the paper's idea needs gamma > 1, gamma = 1 is the plain sum).
    K_values : the window of each K index (default k -> k + 1).

    Returns
    -------
    compute_steps : sorted step indices (in 0..N-1, starting with 0) where the network is called.
    K_per_step : N ints, the window K of every skipped step (the argmin over K of its edge) and 0 on computed steps.
    """
    w, best_k, n = _prepare(C, budget, gamma)
    n_k = int(np.prod(np.shape(C)[2:], dtype=int))
    kv = (
        list(range(1, n_k + 1))
        if K_values is None
        else [check_int(f"K_values[{i}]", k, low=1) for i, k in enumerate(K_values)]
    )
    if len(kv) != n_k:
        raise ValueError(f"K_values must have one entry per K index of C ({n_k}), got {len(kv)}")
    dp = np.full((budget + 1, n + 1), np.inf)
    parent = np.full((budget + 1, n + 1), -1, dtype=int)
    dp[0, 0] = 0.0
    for m in range(1, budget + 1):
        for j in range(1, n + 1):
            cand = dp[m - 1, :j] + w[:j, j]
            i = int(np.argmin(cand))
            dp[m, j], parent[m, j] = cand[i], i
    m = int(np.argmin(dp[:, n]))
    if not np.isfinite(dp[m, n]):
        raise ValueError(f"no finite-cost path 0 -> N={n} within budget={budget}")
    nodes = [n]
    while m > 0:
        nodes.append(int(parent[m, nodes[-1]]))
        m -= 1
    return schedule_from_path(nodes[::-1], best_k, kv)


def path_cost(C: Any, compute_steps: Sequence[int], gamma: float = 2.0) -> float:  # noqa: N803
    """sum over the path's edges of min_K C(e, K)^gamma for the path given by `compute_steps` (+ terminal N)."""
    c = _costs(C)
    check_float("gamma", gamma, low=0.0, low_open=True)
    n = c.shape[0] - 1
    steps = [check_int(f"compute_steps[{i}]", s, 0, n - 1) for i, s in enumerate(compute_steps)]
    if not steps or steps[0] != 0 or any(b <= a for a, b in zip(steps, steps[1:])):
        raise ValueError(
            f"compute_steps must be strictly increasing step indices starting at 0, got {list(compute_steps)}"
        )
    nodes = [*steps, n]
    return float(sum(c[a, b].min() ** gamma for a, b in zip(nodes, nodes[1:])))


def pssp_brute_force(C: Any, budget: int, gamma: float = 2.0) -> tuple[list[int], float]:  # noqa: N803
    """Slow reference: enumerate every path 0 -> N with <= `budget` edges; returns (compute_steps, cost)."""
    w, _, n = _prepare(C, budget, gamma)
    best: tuple[list[int], float] = ([], np.inf)
    for m in range(0, budget):
        for mid in itertools.combinations(range(1, n), m):
            nodes = [0, *mid, n]
            cost = float(sum(w[a, b] for a, b in zip(nodes, nodes[1:])))
            if cost < best[1]:
                best = (nodes[:-1], cost)
    if not np.isfinite(best[1]):
        raise ValueError(f"no finite-cost path 0 -> N={n} within budget={budget}")
    return best


def force_compute(C: Any, steps: Sequence[int]) -> np.ndarray:  # noqa: N803
    """Copy of C with every edge that would skip one of `steps` set to inf (those steps are always computed)."""
    _costs(C)
    c = np.array(C, dtype=float, copy=True)
    n = c.shape[0] - 1
    for i, f in enumerate(steps):
        check_int(f"steps[{i}]", f)
        if not 0 <= f < n:
            raise ValueError(f"forced step {f} outside 0..N-1={n - 1}")
        c[:f, f + 1 :] = np.inf
    return c
