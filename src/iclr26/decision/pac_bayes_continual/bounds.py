"""PAC-Bayes certificates for the cumulative loss of a continual learner (OpenReview hWw269fPov).

Setting: tasks t = 1..T, sample S_t of m i.i.d. draws from D_t given the past, loss in [0, K], posteriors Q_t and
priors P_t that are measurable with respect to the past (default P_1 = P data-free, P_t = Q_(t-1)).

Default bound (Catoni / online-PAC-Bayes form, re-derived with Hoeffding's lemma for a mean of m terms in [0, K]):
with probability >= 1 - delta, simultaneously for every horizon T,

    (1/T) CuL <= (1/T) sum_t Lhat(Q_t, S_t) + (sum_t KL(Q_t || P_t) + ln(1/delta)) / (lambda T) + lambda K^2 / (8 m).

``prod_t E_(P_t) exp(lambda (L - Lhat) - lambda^2 K^2 / (8 m))`` is a non-negative supermartingale; Ville's
inequality and Donsker-Varadhan give the display. lambda is fixed in advance: the certificate takes the best
value of a grid Lambda and pays ``delta / |Lambda|`` (union bound). Any further grid (e.g. the EWC noise scale s)
is paid with :func:`split_delta`.

Example
-------
>>> b, lam = cumulative_bound([0.1, 0.2], [3.0, 1.0], m=400, delta=0.05)
>>> 0.15 < b < 1.0 and lam > 0
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch

from iclr26.checks import check_array, check_float, check_int

__all__ = [
    "BoundFn",
    "catoni_bound",
    "cumulative_bound",
    "eq3_bound_fn",
    "kl_diag_gauss",
    "lambda_grid",
    "mc_correction",
    "running_bound",
    "split_delta",
]

BoundFn = Callable[[np.ndarray, np.ndarray, int, float, float, float], float]


def _check_m(m: int) -> int:
    return check_int("m (samples per task)", m, low=1)


def _check_delta(delta: float, name: str = "delta") -> float:
    return check_float(name, delta, 0.0, 1.0, low_open=True, high_open=True)


def _check_K(K: float) -> float:
    return check_float("K (loss range [0, K])", K, low=0.0, low_open=True)


def _floats(name: str, x: object) -> np.ndarray:
    return check_array(name, x)


def kl_diag_gauss(mu_q, sd_q, mu_p, sd_p):
    """KL(N(mu_q, diag sd_q^2) || N(mu_p, diag sd_p^2)), summed over all elements.

    Works on torch tensors (differentiable, returns a 0-d tensor) or NumPy arrays / floats (returns a float).
    Scalars broadcast (e.g. one prior standard deviation); otherwise all shapes must agree.

    >>> round(kl_diag_gauss(np.zeros(3), np.ones(3), np.ones(3), np.ones(3)), 6)
    1.5
    """
    is_torch = any(isinstance(v, torch.Tensor) for v in (mu_q, sd_q, mu_p, sd_p))
    lib = torch if is_torch else np
    if is_torch:
        mu_q, sd_q, mu_p, sd_p = (
            torch.as_tensor(v, dtype=torch.float64) if not isinstance(v, torch.Tensor) else v
            for v in (mu_q, sd_q, mu_p, sd_p)
        )
    else:
        mu_q, sd_q, mu_p, sd_p = (
            _floats(n, v) for n, v in zip(("mu_q", "sd_q", "mu_p", "sd_p"), (mu_q, sd_q, mu_p, sd_p))
        )
    for name, v in (("mu_q", mu_q), ("sd_q", sd_q), ("mu_p", mu_p), ("sd_p", sd_p)):
        if not bool(lib.isfinite(v).all()):
            raise ValueError(f"kl_diag_gauss: {name} must be finite (no NaN or inf)")
    shapes = {tuple(v.shape) for v in (mu_q, sd_q, mu_p, sd_p) if v.ndim > 0}
    if len(shapes) > 1:
        raise ValueError(f"kl_diag_gauss: posterior/prior shape mismatch, got shapes {sorted(shapes)}")
    for name, sd in (("sd_q", sd_q), ("sd_p", sd_p)):
        if not bool((sd > 0).all()):
            raise ValueError(f"kl_diag_gauss: {name} must be strictly positive")
    var_q, var_p = sd_q**2, sd_p**2
    terms = lib.log(sd_p / sd_q) + (var_q + (mu_q - mu_p) ** 2) / (2.0 * var_p) - 0.5
    if not is_torch:
        terms = np.broadcast_to(terms, np.broadcast_shapes(*(v.shape for v in (mu_q, sd_q, mu_p, sd_p))))
        return float(terms.sum())
    shape = torch.broadcast_shapes(*(v.shape for v in (mu_q, sd_q, mu_p, sd_p)))
    return terms.expand(shape).sum()


def lambda_grid(m: int, K: float = 1.0, n: int = 20, lo: float = 1e-2, hi: float = 1e2) -> np.ndarray:
    """The fixed geometric grid Lambda: ``sqrt(8 m) / K * geomspace(lo, hi, n)``.

    The Catoni form is minimised at ``lambda* = sqrt(8 m C / T) / K`` with C = sum KL + ln(|Lambda|/delta), so the
    grid covers ``C / T`` from ``lo^2`` to ``hi^2`` nats per task; it depends only on m and K, never on data.
    """
    m, K = _check_m(m), _check_K(K)
    check_int("n (grid size)", n, low=1)
    check_float("lo", lo, low=0.0, low_open=True)
    check_float("hi (at least lo)", hi, low=lo)
    return math.sqrt(8.0 * m) / K * np.geomspace(lo, hi, n)


def split_delta(delta: float, *grid_sizes: int) -> float:
    """Union-bound accounting: the confidence left for one grid point, ``delta / prod(grid_sizes)``."""
    delta = _check_delta(delta)
    for g in grid_sizes:
        delta /= check_int("grid sizes (each)", g, low=1)
    return delta


def mc_correction(n_terms: int, n_horizons: int = 1, delta_mc: float = 0.01, K: float = 1.0) -> float:
    """One-sided Hoeffding slack ``K sqrt(ln(n_horizons / delta_mc) / (2 n_terms))`` for a Monte Carlo mean.

    `n_terms` independent losses in [0, K] estimate a sum of Gibbs empirical risks; the estimate undershoots the
    true value by more than the slack with probability <= delta_mc / n_horizons, and a union over `n_horizons`
    estimates (e.g. the T tasks, or the T running horizons) costs delta_mc in total.
    """
    check_int("n_terms (Monte Carlo sample count)", n_terms, low=1)
    check_int("n_horizons", n_horizons, low=1)
    delta_mc, K = _check_delta(delta_mc, "delta_mc"), _check_K(K)
    return K * math.sqrt(math.log(n_horizons / delta_mc) / (2.0 * n_terms))


def catoni_bound(emp_risks: np.ndarray, kls: np.ndarray, m: int, delta: float, K: float, lam: float) -> float:
    """The default ``bound_fn``: the Catoni-form display of the module docstring at one fixed lambda."""
    _check_bound_args(emp_risks, kls, m, delta, K, lam)
    T = len(emp_risks)
    return float(
        np.mean(emp_risks) + (np.sum(kls) + math.log(1.0 / delta)) / (lam * T) + lam * K**2 / (8.0 * m)
    )


def _check_bound_args(emp_risks, kls, m: int, delta: float, K: float, lam: float) -> None:
    """The arguments of a ``bound_fn`` (checked only; the bound is computed from the values as given)."""
    K = _check_K(K)
    _check_m(m), _check_delta(delta), _check_series(emp_risks, kls, K)
    check_float("lam", lam, low=0.0, low_open=True)


def eq3_bound_fn(m_term: Callable[[int, int, float], float]) -> BoundFn:
    """The shape of the paper's refined bound (Theorem 3.2 / Eq. 3) with a user-supplied m-dependent term.

    ``(1/T) sum Lhat + K / (T sqrt T) sum KL + m_term(m, T, K) + K (1 + ln(1/delta)) / (T sqrt T)``. The paper's
    m-term could not be read from the public sources, so it must be supplied; the paper fixes
    lambda = T sqrt(T) / K, so call :func:`cumulative_bound` with a single-element `lambdas` (the value is ignored).
    This is a different theorem from the default bound, not a re-tuning of it.
    """
    if not callable(m_term):
        raise TypeError(f"m_term must be a callable m_term(m, T, K) -> float, got {type(m_term).__name__}")

    def bound(emp_risks: np.ndarray, kls: np.ndarray, m: int, delta: float, K: float, lam: float) -> float:
        _check_bound_args(emp_risks, kls, m, delta, K, lam)
        T = len(emp_risks)
        scale = K / (T * math.sqrt(T))
        return float(
            np.mean(emp_risks) + scale * np.sum(kls) + m_term(m, T, K) + scale * (1 + math.log(1 / delta))
        )

    return bound


def _check_series(emp_risks, kls, K: float) -> tuple[np.ndarray, np.ndarray]:
    emp = _floats("emp_risks", emp_risks)
    kl = _floats("kls", kls)
    if emp.ndim != 1 or emp.size == 0:
        raise ValueError(f"emp_risks must be a non-empty 1-D sequence (one per task), got shape {emp.shape}")
    if kl.shape != emp.shape:
        raise ValueError(f"kls must have one entry per task like emp_risks {emp.shape}, got shape {kl.shape}")
    if not (np.all(np.isfinite(emp)) and np.all(np.isfinite(kl))):
        raise ValueError("emp_risks and kls must be finite")
    if np.any(emp < 0) or np.any(emp > K):
        raise ValueError(
            f"emp_risks must lie in [0, K] = [0, {K:g}] for the bounded-loss bound, got "
            f"min {emp.min():.4g}, max {emp.max():.4g}"
        )
    if np.any(kl < -1e-9):
        raise ValueError(f"kls must be non-negative, got min {kl.min():.4g}")
    return emp, np.maximum(kl, 0.0)


def _check_lambdas(lambdas, m: int, K: float) -> np.ndarray:
    lams = lambda_grid(m, K) if lambdas is None else np.atleast_1d(_floats("lambdas", lambdas))
    if lams.ndim != 1 or lams.size == 0 or not np.all(np.isfinite(lams)) or np.any(lams <= 0):
        raise ValueError(f"lambdas must be a non-empty list of finite positive numbers, got {lambdas!r}")
    return lams


def cumulative_bound(
    emp_risks: Sequence[float] | np.ndarray,
    kls: Sequence[float] | np.ndarray,
    m: int,
    delta: float,
    K: float = 1.0,
    lambdas: Sequence[float] | np.ndarray | None = None,
    bound_fn: BoundFn | None = None,
) -> tuple[float, float]:
    """Upper bound on (1/T) CuL that holds with probability >= 1 - delta, and the grid lambda that attains it.

    Parameters
    ----------
    emp_risks : per-task Gibbs empirical risks Lhat(Q_t, S_t), each in [0, K].
    kls : per-task KL(Q_t || P_t) >= 0 (nats).
    m : samples per task (>= 1).
    delta : confidence in (0, 1); split evenly over the grid (``delta / len(lambdas)`` per point).
    K : loss range [0, K].
    lambdas : the fixed grid Lambda (default :func:`lambda_grid` of m and K).
    bound_fn : ``bound_fn(emp, kls, m, delta_point, K, lam) -> float`` (default :func:`catoni_bound`).
    """
    m, K = _check_m(m), _check_K(K)
    delta = _check_delta(delta)
    emp, kl = _check_series(emp_risks, kls, K)
    lams = _check_lambdas(lambdas, m, K)
    fn = catoni_bound if bound_fn is None else bound_fn
    if not callable(fn):
        raise TypeError(f"bound_fn must be None or a callable, got {type(fn).__name__}")
    d_point = delta / lams.size
    values = np.array([fn(emp, kl, m, d_point, K, float(lam)) for lam in lams])
    if not np.all(np.isfinite(values)):
        raise ValueError(f"bound_fn must return finite bounds, got {values.tolist()}")
    j = int(np.argmin(values))
    return float(values[j]), float(lams[j])


def running_bound(
    emp_risks: Sequence[float] | np.ndarray,
    kls: Sequence[float] | np.ndarray,
    m: int,
    delta: float,
    K: float = 1.0,
    lambdas: Sequence[float] | np.ndarray | None = None,
) -> np.ndarray:
    """The Catoni bound at every horizon t = 1..T (best grid lambda per t), valid for all t simultaneously.

    Ville's inequality makes each grid point's bound hold for every horizon at once, so the per-horizon minimum
    over the grid costs only the same ``delta / |Lambda|`` split as :func:`cumulative_bound`.
    """
    m, K = _check_m(m), _check_K(K)
    delta = _check_delta(delta)
    emp, kl = _check_series(emp_risks, kls, K)
    lams = _check_lambdas(lambdas, m, K)
    t = np.arange(1, emp.size + 1, dtype=float)[:, None]
    mean_emp = (np.cumsum(emp) / t[:, 0])[:, None]
    cum_kl = np.cumsum(kl)[:, None]
    vals = (
        mean_emp
        + (cum_kl + math.log(lams.size / delta)) / (lams[None, :] * t)
        + lams[None, :] * K**2 / (8 * m)
    )
    return vals.min(axis=1)
