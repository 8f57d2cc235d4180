"""Instances of the federated-learning contribution problem and their generators.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612, OpenReview Nqjyrvh3pf). The model is reconstructed from public summaries (see README).

An instance is a finite hypothesis class H over a finite domain X, the target h* in H, one marginal D_i over X
per agent (labels come from h*: the realizable case), unit sample costs c_i and the (epsilon, delta) target.
It derives the quantities every other module uses:

    d_j(h) = P_{x ~ D_j}[h(x) != h*(x)]     disagreement mass of h under agent j's distribution
    B_i    = {h : d_i(h) > epsilon}            agent i's bad set; B = union of the B_i
    a_j(h) = -ln(1 - d_j(h))                   so h survives m_j samples of agent j w.p. exp(-a_j(h) m_j)
    r_i    = ln(|B_i| / delta)                 agent i's per-agent union-bound requirement

and the per-agent union bound  sum_{h in B_i} exp(-sum_j a_j(h) m_j)  that certifies agent i's guarantee.

Generators: thresholds on a 1-D grid, random binary labelings with Dirichlet-skewed agents, random halfspaces
on a 2-D grid (the `full` budget) and the two-agent family with unbounded price of stability.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iclr26.checks import check_float, check_int, check_probability

__all__ = [
    "Instance",
    "halfspace_instance",
    "pos_family_instance",
    "random_labeling_instance",
    "threshold_instance",
]

D_MAX = 1.0 - 1e-12  # d_j(h) = 1 is capped here so that a_j(h) stays finite (conservative by <= 1e-12)
SUM_TOL = 1e-9  # tolerance on sum_x D_i(x) = 1
CERT_TOL = 1e-9  # relative slack of the union-bound certificate (float round-off only)


def as_generator(rng: np.random.Generator | int) -> np.random.Generator:
    """`rng` itself, or a generator seeded by it (an int >= 0)."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(check_int("rng (a numpy Generator or an int seed)", rng, low=0))


def _unit_interval(name: str, value: float) -> float:
    return check_float(name, value, 0.0, 1.0, low_open=True, high_open=True)


def floats(name: str, x: object, what: str) -> np.ndarray:
    """`x` as a float array; a ValueError naming `name` and `what` is expected when it does not convert."""
    try:
        a = np.asarray(x)
        if a.dtype.kind == "c":  # a float cast would drop the imaginary part
            raise ValueError
        return np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {x!r}") from None


def check_instance(inst: object, name: str = "inst") -> Instance:
    """`inst` when it is an :class:`Instance` (TypeError otherwise)."""
    if not isinstance(inst, Instance):
        raise TypeError(f"{name} must be an Instance, got {type(inst).__name__}")
    return inst


class Instance:
    """One problem instance: (X, H, h*, {D_i}, c, delta, epsilon) and the derived d, B_i, a, r_i.

    Parameters
    ----------
    H : (n_hypotheses, n_points) array of 0/1 labels, one row per hypothesis.
    h_star : (n_points,) labels of the target; it must be a row of H.
    D : (k, n_points) agent marginals over X; each row is nonnegative and sums to 1.
    c : (k,) nonnegative unit sample costs.
    delta, epsilon : the PAC target, both in (0, 1).
    name : a label for figures.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[0, 0], [1, 0], [1, 1]])
    >>> inst = Instance(H, H[0], D=[[0.5, 0.5], [0.0, 1.0]], c=[1.0, 2.0], delta=0.1, epsilon=0.2)
    >>> inst.bad.astype(int).tolist()        # agent 0: h1 (d=0.5) and h2 (d=1); agent 1: h2 only
    [[0, 1, 1], [0, 0, 1]]
    >>> round(float(inst.need[0]), 4)         # r_0 = ln(|B_0| / delta) = ln 20
    2.9957
    """

    def __init__(
        self,
        H: np.ndarray | Sequence[Sequence[int]],
        h_star: np.ndarray | Sequence[int],
        D: np.ndarray | Sequence[Sequence[float]],
        c: np.ndarray | Sequence[float],
        delta: float,
        epsilon: float,
        name: str = "",
    ) -> None:
        self.delta = _unit_interval("delta", delta)
        self.epsilon = _unit_interval("epsilon", epsilon)
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        H = np.asarray(H)
        if H.ndim != 2 or H.shape[0] < 1 or H.shape[1] < 1:
            raise ValueError(f"H must be a non-empty (n_hypotheses, n_points) array, got shape {H.shape}")
        if not np.isin(H, (0, 1)).all():
            raise ValueError("H must hold 0/1 labels (one row per hypothesis)")
        h_star = np.asarray(h_star)
        if h_star.shape != (H.shape[1],):
            raise ValueError(f"h_star must have shape ({H.shape[1]},) like a row of H, got {h_star.shape}")
        if not np.isin(h_star, (0, 1)).all():
            raise ValueError(f"h_star must hold 0/1 labels, got {h_star.tolist()}")
        matches = np.flatnonzero((H == h_star).all(axis=1))
        if matches.size == 0:
            raise ValueError("h_star is not a row of H: the instance must be realizable by a hypothesis in H")
        D = floats("D", D, f"a (k, {H.shape[1]}) array of probabilities")
        if D.ndim != 2 or D.shape[1] != H.shape[1] or D.shape[0] < 1:
            raise ValueError(f"D must have shape (k, {H.shape[1]}), got {D.shape}")
        if not np.all(np.isfinite(D)) or np.any(D < 0):
            raise ValueError("D must hold finite nonnegative probabilities")
        sums = D.sum(axis=1)
        off = np.flatnonzero(np.abs(sums - 1.0) > SUM_TOL)
        if off.size:
            i = int(off[0])
            raise ValueError(f"each row of D must sum to 1: D[{i}] sums to {sums[i]:.6g}")
        c = floats("c", c, f"({D.shape[0]},) nonnegative costs")
        if c.shape != (D.shape[0],):
            raise ValueError(f"c must have shape ({D.shape[0]},), one cost per agent, got {c.shape}")
        if not np.all(np.isfinite(c)) or np.any(c < 0):
            raise ValueError(f"c must hold finite nonnegative costs, got {c.tolist()}")

        self.H = H.astype(np.int8)
        self.h_star = h_star.astype(np.int8)
        self.star = int(matches[0])
        self.D = D
        self.c = c
        self.name = name
        self.disagree = self.H != self.h_star  # (n_h, n_x): where h differs from h*
        self.d = D @ self.disagree.T.astype(float)  # d_j(h) = P_{D_j}[h != h*], (k, n_h)
        self.a_all = -np.log1p(-np.minimum(self.d, D_MAX))  # a_j(h) = -ln(1 - d_j(h)), (k, n_h)
        self.bad = self.d > self.epsilon  # B_i = {h : d_i(h) > epsilon}, (k, n_h)
        self.B = np.flatnonzero(self.bad.any(axis=0))  # B = union_i B_i

    @property
    def k(self) -> int:
        return self.D.shape[0]

    @property
    def n_points(self) -> int:
        return self.H.shape[1]

    @property
    def n_hypotheses(self) -> int:
        return self.H.shape[0]

    @property
    def a(self) -> np.ndarray:
        """The k x |B| matrix a_j(h) over the bad hypotheses."""
        return self.a_all[:, self.B]

    @property
    def bad_sizes(self) -> np.ndarray:
        return self.bad.sum(axis=1)

    @property
    def need(self) -> np.ndarray:
        """r_i = ln(|B_i| / delta) per agent (0 for an agent with an empty bad set: no constraint)."""
        sizes = self.bad_sizes
        return np.where(sizes > 0, np.log(np.maximum(sizes, 1) / self.delta), 0.0)

    def rows(self, rule: str = "agent") -> tuple[np.ndarray, np.ndarray]:
        """Covering rows ``(a, rhs)`` over B: ``sum_j a_j(h) m_j >= rhs_h`` for every h in B.

        rule : ``"agent"``: rhs_h = max_{i : h in B_i} ln(|B_i| / delta) (per-agent union bound, sufficient);
            ``"global"``: rhs_h = L1 = ln(|B| / delta) (union bound over B, sufficient);
            ``"necessary"``: rhs_h = L0 = ln(1 / delta) (each bad h alone must die; its LP lower-bounds OPT).
        """
        if rule == "agent":
            rhs = np.max(np.where(self.bad, self.need[:, None], -np.inf), axis=0)[self.B]
        elif rule == "global":
            rhs = np.full(self.B.size, math.log(max(self.B.size, 1) / self.delta))
        elif rule == "necessary":
            rhs = np.full(self.B.size, math.log(1.0 / self.delta))
        else:
            raise ValueError(f"rule must be 'agent', 'global' or 'necessary', got {rule!r}")
        return self.a, rhs

    def union_bound(self, m: np.ndarray | Sequence[float]) -> np.ndarray:
        """Per agent i: sum_{h in B_i} exp(-sum_j a_j(h) m_j) >= P(some h in B_i survives S)."""
        m = self._check_m(m)
        survive = np.exp(-(m @ self.a_all))  # P(h consistent with S) = prod_j (1 - d_j(h))^{m_j}
        return (self.bad * survive[None, :]).sum(axis=1)

    def certified(self, m: np.ndarray | Sequence[float]) -> np.ndarray:
        """Per agent: does the union bound certify failure probability <= delta (the deterministic payoff)?"""
        return self.union_bound(m) <= self.delta * (1.0 + CERT_TOL)

    def with_report(self, agent: int, D_i: np.ndarray | Sequence[float]) -> Instance:
        """The instance as the planner sees it when `agent` reports the marginal `D_i` (others truthful)."""
        check_int(f"agent (in [0, {self.k}))", agent, 0, self.k - 1)
        D_i = floats("D_i", D_i, f"({self.n_points},) probabilities")
        if D_i.shape != (self.n_points,):
            raise ValueError(
                f"D_i must have shape ({self.n_points},), one probability per point, got {D_i.shape}"
            )
        D = self.D.copy()
        D[agent] = D_i
        return Instance(self.H, self.h_star, D, self.c, self.delta, self.epsilon, self.name)

    def _check_m(self, m: np.ndarray | Sequence[float]) -> np.ndarray:
        m = floats("m", m, f"{self.k} finite nonnegative sample counts")
        if m.shape != (self.k,) or np.any(m < 0) or not np.all(np.isfinite(m)):
            raise ValueError(f"m must be {self.k} finite nonnegative sample counts, got {m.tolist()}")
        return m

    def __repr__(self) -> str:
        return (
            f"Instance({self.name or 'custom'}: k={self.k}, |H|={self.n_hypotheses}, |X|={self.n_points}, "
            f"|B|={self.B.size}, delta={self.delta:g}, epsilon={self.epsilon:g})"
        )


def _costs(rng: np.random.Generator, k: int, cost_range: tuple[float, float]) -> np.ndarray:
    if isinstance(cost_range, (str, bytes)) or not hasattr(cost_range, "__len__") or len(cost_range) != 2:
        raise ValueError(f"cost_range must be a pair (low, high), got {cost_range!r}")
    lo = check_float("cost_range low", cost_range[0], low=0.0, low_open=True)
    hi = check_float("cost_range high (at least low)", cost_range[1], low=lo)
    return np.exp(rng.uniform(math.log(lo), math.log(hi), size=k))  # log-uniform unit costs


def threshold_instance(
    k: int,
    rng: np.random.Generator | int,
    n_points: int = 40,
    delta: float = 0.05,
    epsilon: float = 0.1,
    cost_range: tuple[float, float] = (1.0, 10.0),
    floor: float = 0.05,
) -> Instance:
    """Thresholds h_t(x) = 1[x >= t], t in {0..n_points}, on X = {0..n_points-1}; agents on different regions.

    Agent i's marginal is a discretised Gaussian bump centred at (i + 1/2) n_points / k (width n_points/(3k))
    mixed with a uniform floor of weight `floor`; h* is a threshold drawn in the middle half of the grid.

    Examples
    --------
    >>> inst = threshold_instance(3, rng=0)
    >>> inst.n_hypotheses, inst.n_points, inst.k
    (41, 40, 3)
    """
    check_int("k", k, low=1)
    check_int("n_points", n_points, low=1)
    check_probability("floor", floor)
    rng = as_generator(rng)
    x = np.arange(n_points)
    H = (x[None, :] >= np.arange(n_points + 1)[:, None]).astype(np.int8)  # row t: 1[x >= t]
    t_star = int(rng.integers(n_points // 4, 3 * n_points // 4 + 1))
    centres = (np.arange(k) + 0.5) * n_points / k
    bumps = np.exp(-0.5 * ((x[None, :] - centres[:, None]) / (n_points / (3.0 * k))) ** 2)
    D = (1 - floor) * bumps / bumps.sum(axis=1, keepdims=True) + floor / n_points
    return Instance(H, H[t_star], D, _costs(rng, k, cost_range), delta, epsilon, "thresholds")


def random_labeling_instance(
    k: int,
    rng: np.random.Generator | int,
    n_hypotheses: int = 50,
    n_points: int = 30,
    alpha: float = 0.5,
    delta: float = 0.05,
    epsilon: float = 0.1,
    cost_range: tuple[float, float] = (1.0, 10.0),
) -> Instance:
    """H = n_hypotheses uniformly random labelings of n_points (h* is the first); D_i ~ Dirichlet(alpha 1).

    Examples
    --------
    >>> inst = random_labeling_instance(5, rng=1)
    >>> inst.a.shape[0], inst.n_hypotheses
    (5, 50)
    """
    check_int("k", k, low=1)
    check_int("n_hypotheses", n_hypotheses, low=1)
    check_int("n_points", n_points, low=1)
    check_float("alpha", alpha, low=0.0, low_open=True)
    rng = as_generator(rng)
    H = rng.integers(0, 2, size=(n_hypotheses, n_points), dtype=np.int8)
    D = rng.dirichlet(np.full(n_points, alpha), size=k)
    D /= D.sum(axis=1, keepdims=True)
    return Instance(H, H[0], D, _costs(rng, k, cost_range), delta, epsilon, "random labelings")


def halfspace_instance(
    k: int,
    rng: np.random.Generator | int,
    n_hypotheses: int = 2000,
    grid: int = 20,
    delta: float = 0.05,
    epsilon: float = 0.1,
    cost_range: tuple[float, float] = (1.0, 10.0),
    floor: float = 0.05,
) -> Instance:
    """Random linear separators sign(w.x - b) on a grid x grid lattice of [-1, 1]^2 (a finite net of a VC class).

    h* is the first separator; agent i's marginal is a Gaussian bump (sd 0.3) at a random centre plus a
    uniform floor. Duplicated separators are kept (they do not change the LP).

    Examples
    --------
    >>> halfspace_instance(2, rng=0, n_hypotheses=30, grid=5).n_points
    25
    """
    check_int("k", k, low=1)
    check_int("n_hypotheses", n_hypotheses, low=1)
    check_int("grid", grid, low=2)
    check_probability("floor", floor)
    rng = as_generator(rng)
    side = np.linspace(-1.0, 1.0, grid)
    X = np.stack(np.meshgrid(side, side), axis=-1).reshape(-1, 2)
    angle = rng.uniform(0, 2 * np.pi, size=n_hypotheses)
    w = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    b = rng.uniform(-0.8, 0.8, size=n_hypotheses)
    H = (X @ w.T - b > 0).T.astype(np.int8)
    centres = rng.uniform(-0.8, 0.8, size=(k, 2))
    sq = ((X[None, :, :] - centres[:, None, :]) ** 2).sum(axis=-1)
    bumps = np.exp(-0.5 * sq / 0.3**2)
    D = (1 - floor) * bumps / bumps.sum(axis=1, keepdims=True) + floor / X.shape[0]
    return Instance(H, H[0], D, _costs(rng, k, cost_range), delta, epsilon, "halfspaces")


def pos_family_instance(n: int, N: int, M: float, delta: float = 0.05, epsilon: float = 0.1) -> Instance:
    """Two agents whose best equilibrium costs about n + M n while OPT = min(N, n + M n) (our construction).

    X = {p, q, z}, h* = 0; h1 flips p, h2 flips q. Agent 1 (c = 1) has a_1(h1) = r/n and a_1(h2) = r/N, so its
    own samples satisfy it after n but agent 2 only after N; agent 2 (c = M) has a_2(h2) = r/n and never sees
    p, so its samples do not help agent 1. Here r = ln(1/delta) (|B_1| = |B_2| = 1). Requires
    n < r / (-ln(1 - epsilon)) <= N so that h1 is bad only for agent 1 and h2 only for agent 2.

    Examples
    --------
    >>> inst = pos_family_instance(10, 100, 1000.0)
    >>> inst.bad.astype(int).tolist()
    [[0, 1, 0], [0, 0, 1]]
    """
    check_int("n", n, low=1)
    check_int("N", N, low=1)
    M = check_float("M", M, low=0.0, low_open=True)
    r = math.log(1.0 / _unit_interval("delta", delta))
    textbook = r / -math.log1p(-_unit_interval("epsilon", epsilon))
    if not (1 <= n < textbook <= N):
        raise ValueError(
            f"need 1 <= n < ln(1/delta)/(-ln(1-epsilon)) = {textbook:.3g} <= N, got n={n}, N={N}"
        )
    H = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.int8)
    p1, q1, q2 = -math.expm1(-r / n), -math.expm1(-r / N), -math.expm1(-r / n)  # d = 1 - exp(-a)
    D = np.array([[p1, q1, 1 - p1 - q1], [0.0, q2, 1 - q2]])
    return Instance(H, H[0], D, [1.0, float(M)], delta, epsilon, f"PoS family M={M:g}")
