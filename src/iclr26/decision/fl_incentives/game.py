"""The uncoordinated contribution game: best responses, best-response dynamics and the pure-NE search.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612). Agent i picks m_i in {0..grid} and gets

    u_i(m) = V_i * 1[cond_i(m)] - c_i m_i,   cond_i(m): sum_j a_j(h) m_j >= r_i = ln(|B_i|/delta) for all h in B_i

(the per-agent union-bound proxy of its (epsilon, delta) guarantee; the exact probability is not tractable in
the search). Best response: 0 if cond_i already holds; else the smallest m_i meeting it,

    m_i^* = max_{h in B_i, short} ceil((r_i - sum_{j != i} a_j(h) m_j) / a_i(h)),

if c_i m_i^* <= V_i; else 0 (give up). A pure Nash equilibrium is a profile where nobody gains by deviating.
V_i = inf (never give up) is handled exactly: on the grid it is the same as V_i = c_i (grid + 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_array, check_int
from iclr26.decision.fl_incentives.instances import Instance, check_instance, floats

__all__ = [
    "ContributionGame",
    "DynamicsResult",
    "best_equilibrium",
    "best_response",
    "best_response_dynamics",
    "is_nash",
    "pure_nash_equilibria",
    "required_contribution",
]

TOL = 1e-9  # relative float slack in coverage and utility comparisons


def _profiles(profiles: np.ndarray, k: int, integer: bool = False, name: str = "profiles") -> np.ndarray:
    """`profiles` as a (P, k) float array of finite nonnegative contributions (integers when `integer`)."""
    profiles = np.atleast_2d(floats(name, profiles, f"a (P, {k}) array of contributions"))
    if profiles.ndim != 2 or profiles.shape[1] != k:
        raise ValueError(f"{name} must have shape (P, {k}), one contribution per agent, got {profiles.shape}")
    if not np.all(np.isfinite(profiles)) or np.any(profiles < 0):
        raise ValueError(f"{name} must hold finite nonnegative contributions m_j")
    if integer and np.any(profiles % 1):
        raise ValueError(f"{name} must hold integer contributions (points of the grid)")
    return profiles


def required_contribution(
    a: np.ndarray, bad: np.ndarray, need: np.ndarray, i: int, profiles: np.ndarray
) -> np.ndarray:
    """Smallest own m_i meeting agent i's condition given the others' entries of each profile (P, k).

    Examples
    --------
    >>> a = np.array([[0.3, 0.03], [0.0, 0.3]]); bad = np.array([[True, False], [False, True]])
    >>> required_contribution(a, bad, np.array([3.0, 3.0]), 1, np.array([[10, 0], [100, 0]])).tolist()
    [9, 0]
    """
    for name, x in (("a", a), ("bad", bad), ("need", need)):
        if not isinstance(x, np.ndarray):
            raise TypeError(f"{name} must be a numpy array, got {type(x).__name__}")
    check_array("a", a, finite=True)
    check_array("need", need, finite=True)
    if a.ndim != 2 or bad.shape != a.shape or bad.dtype != bool or need.shape != (a.shape[0],):
        raise ValueError(
            f"a (k, n_h), bad (k, n_h, bool) and need (k,) must agree, got {a.shape}, {bad.shape} of "
            f"{bad.dtype} and {need.shape}"
        )
    check_int(f"i (an agent in [0, {a.shape[0]}))", i, 0, a.shape[0] - 1)
    profiles = _profiles(profiles, a.shape[0])
    rows = np.flatnonzero(bad[i])
    if rows.size == 0:
        return np.zeros(profiles.shape[0], dtype=int)
    others = profiles.copy()
    others[:, i] = 0.0
    deficit = need[i] - others @ a[:, rows]  # r_i - sum_{j != i} a_j(h) m_j, (P, |B_i|)
    short = deficit > TOL * max(1.0, need[i])
    ratio = np.where(short, deficit / a[i, rows], 0.0)  # a_i(h) > 0 on B_i
    return np.ceil(ratio.max(axis=1) * (1 - TOL)).astype(int)


@dataclass(frozen=True)
class ContributionGame:
    """The k-agent contribution game on the grid {0..grid}^k.

    Parameters
    ----------
    a : (k, n_h) exponents a_j(h).
    bad : (k, n_h) boolean masks of the bad sets B_i.
    need : (k,) requirements r_i.
    c : (k,) positive unit costs.
    value : (k,) values of success V_i (``inf``: never give up).
    grid : the largest contribution; it must cover every agent's go-alone requirement.

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import pos_family_instance
    >>> game = ContributionGame.from_instance(pos_family_instance(10, 100, 5.0))
    >>> pure_nash_equilibria(game).tolist()
    [[10, 9]]
    """

    a: np.ndarray
    bad: np.ndarray
    need: np.ndarray
    c: np.ndarray
    value: np.ndarray
    grid: int

    def __post_init__(self) -> None:
        for name in ("a", "bad", "need", "c", "value"):
            if not isinstance(getattr(self, name), np.ndarray):
                raise TypeError(f"{name} must be a numpy array, got {type(getattr(self, name)).__name__}")
            if name != "bad":
                check_array(name, getattr(self, name))  # real numbers (a complex entry is refused)
        k = self.c.shape[0]
        if self.a.shape != self.bad.shape or self.a.shape[0] != k or self.need.shape != (k,):
            raise ValueError(
                f"a {self.a.shape}, bad {self.bad.shape}, need {self.need.shape} and c {self.c.shape} "
                "must agree on k"
            )
        if self.bad.dtype != bool:
            raise TypeError(f"bad must be a boolean mask, got dtype {self.bad.dtype}")
        if not np.all(np.isfinite(self.a)) or np.any(self.a < 0):
            raise ValueError("a must hold finite nonnegative exponents a_j(h)")
        if not np.all(np.isfinite(self.need)) or np.any(self.need < 0):
            raise ValueError(f"need must hold finite nonnegative requirements r_i, got {self.need}")
        if not np.all(np.isfinite(self.c)) or np.any(self.c <= 0):
            raise ValueError(
                f"c must be positive in the game (a free agent has no best response), got {self.c}"
            )
        if self.value.shape != (k,) or not np.all(self.value >= 0):  # NaN fails too; inf is allowed
            raise ValueError(f"value must be {k} nonnegative values V_i, got {self.value}")
        for i in range(k):
            if np.any(self.a[i, self.bad[i]] <= 0):
                raise ValueError(f"agent {i} has a bad hypothesis its own samples cannot refute (a_i(h) = 0)")
        check_int("grid", self.grid, low=0)
        alone = self.go_alone
        if self.grid < int(alone.max(initial=0)):
            raise ValueError(
                f"grid must be an int >= every go-alone requirement {alone.tolist()} so that every best "
                f"response lies on it, got {self.grid!r}"
            )

    @classmethod
    def from_instance(
        cls, inst: Instance, value: float | Sequence[float] = np.inf, grid: int | None = None
    ) -> ContributionGame:
        """The game of an instance; `grid` defaults to the largest go-alone requirement."""
        check_instance(inst)
        value = floats("value", value, f"a scalar or {inst.k} values V_i")
        if value.ndim > 1 or value.size not in (1, inst.k):
            raise ValueError(
                f"value must be a scalar or {inst.k} values V_i (one per agent), got shape {value.shape}"
            )
        value = np.broadcast_to(value, (inst.k,)).copy()
        zero = np.zeros((1, inst.k))
        alone = [
            int(required_contribution(inst.a_all, inst.bad, inst.need, i, zero)[0]) for i in range(inst.k)
        ]
        return cls(inst.a_all, inst.bad, inst.need, inst.c, value, max(alone) if grid is None else grid)

    @property
    def k(self) -> int:
        return self.c.shape[0]

    @property
    def go_alone(self) -> np.ndarray:
        """Each agent's requirement when nobody else contributes."""
        zero = np.zeros((1, self.k))
        return np.array(
            [required_contribution(self.a, self.bad, self.need, i, zero)[0] for i in range(self.k)]
        )

    @property
    def effective_value(self) -> np.ndarray:
        """V_i capped at c_i (grid + 1): the same preferences on the grid, and finite."""
        return np.minimum(self.value, self.c * (self.grid + 1))

    def satisfied(self, i: int, profiles: np.ndarray) -> np.ndarray:
        """cond_i for each profile (P, k)."""
        check_int(f"i (an agent in [0, {self.k}))", i, 0, self.k - 1)
        profiles = _profiles(profiles, self.k)
        rows = self.bad[i]
        cover = profiles @ self.a[:, rows]
        return np.all(cover >= self.need[i] - TOL * max(1.0, self.need[i]), axis=1)

    def utility(self, i: int, profiles: np.ndarray) -> np.ndarray:
        """u_i = V_i 1[cond_i] - c_i m_i for each profile (P, k), with V_i = inf capped as in the docs."""
        check_int(f"i (an agent in [0, {self.k}))", i, 0, self.k - 1)
        profiles = _profiles(profiles, self.k)
        return self.effective_value[i] * self.satisfied(i, profiles) - self.c[i] * profiles[:, i]

    def cost(self, profiles: np.ndarray) -> np.ndarray:
        return _profiles(profiles, self.k) @ self.c


def _check_game(game: object) -> None:
    if not isinstance(game, ContributionGame):
        raise TypeError(f"game must be a ContributionGame, got {type(game).__name__}")


def best_response(game: ContributionGame, i: int, profiles: np.ndarray) -> np.ndarray:
    """BR_i for each profile (P, k): 0 if satisfied, else m_i^* if c_i m_i^* <= V_i, else 0 (give up)."""
    _check_game(game)
    req = required_contribution(game.a, game.bad, game.need, i, profiles)
    affordable = game.c[i] * req <= game.effective_value[i] * (1 + TOL)
    return np.where(affordable, req, 0)


def is_nash(game: ContributionGame, profiles: np.ndarray) -> np.ndarray:
    """For each profile (P, k): does every agent's choice earn as much as its best response?"""
    _check_game(game)
    profiles = _profiles(profiles, game.k, integer=True).astype(int)
    ok = np.ones(profiles.shape[0], dtype=bool)
    for i in range(game.k):
        deviate = profiles.copy()
        deviate[:, i] = best_response(game, i, profiles)
        slack = TOL * max(1.0, float(game.effective_value[i]))
        ok &= game.utility(i, profiles) >= game.utility(i, deviate) - slack
    return ok


def pure_nash_equilibria(game: ContributionGame, max_profiles: int = 10_000_000) -> np.ndarray:
    """Every pure NE on the grid, found exhaustively: enumerate m_{-1}, set m_1 to its best response(s), check.

    Returns an (n_equilibria, k) integer array (n_equilibria = 0 when there is none), sorted by cost.
    """
    _check_game(game)
    check_int("max_profiles", max_profiles, low=1)
    n = (game.grid + 1) ** (game.k - 1)
    if n > max_profiles:
        raise ValueError(
            f"exhaustive search over (grid + 1)^(k - 1) = {n} profiles exceeds max_profiles={max_profiles}; "
            "use k <= 3 or a smaller grid"
        )
    others = np.array(list(itertools.product(range(game.grid + 1), repeat=game.k - 1)), dtype=int)
    profiles = np.zeros((max(n, 1), game.k), dtype=int)
    if game.k > 1:
        profiles[:, 1:] = others
    profiles[:, 0] = best_response(game, 0, profiles)
    # agent 0 is indifferent between m_0^* and giving up when c_0 m_0^* = V_0: try 0 there as well
    tie = (profiles[:, 0] > 0) & np.isclose(
        game.c[0] * profiles[:, 0], game.effective_value[0], rtol=TOL, atol=0.0
    )
    zero = profiles[tie].copy()
    zero[:, 0] = 0
    candidates = np.vstack([profiles, zero])
    found = np.unique(candidates[is_nash(game, candidates)], axis=0)
    return found[np.argsort(game.cost(found), kind="stable")] if found.size else found.reshape(0, game.k)


def best_equilibrium(game: ContributionGame) -> tuple[np.ndarray, float] | None:
    """The cheapest pure NE and its cost, or None when the game has no pure NE."""
    found = pure_nash_equilibria(game)
    if found.shape[0] == 0:
        return None
    return found[0], float(game.cost(found[:1])[0])


@dataclass(frozen=True)
class DynamicsResult:
    """Where round-robin best-response dynamics stopped: a NE (converged) or a revisited state (a cycle)."""

    profile: np.ndarray
    converged: bool
    rounds: int


def best_response_dynamics(
    game: ContributionGame, start: Sequence[int] | None = None, max_rounds: int = 1000
) -> DynamicsResult:
    """Agents 0..k-1 best-respond in turn until a round changes nothing or a state repeats.

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import pos_family_instance
    >>> game = ContributionGame.from_instance(pos_family_instance(10, 100, 5.0))
    >>> res = best_response_dynamics(game)
    >>> res.profile.tolist(), res.converged
    ([10, 9], True)
    """
    _check_game(game)
    check_int("max_rounds", max_rounds, low=1)
    m = (
        np.zeros(game.k, dtype=int)
        if start is None
        else _profiles(start, game.k, True, "start")[0].astype(int)
    )
    if start is not None and np.ndim(start) != 1:
        raise ValueError(f"start must be {game.k} contributions, got shape {np.shape(start)}")
    if m.shape != (game.k,) or np.any(m < 0) or np.any(m > game.grid):
        raise ValueError(f"start must be {game.k} contributions in [0, {game.grid}], got {m.tolist()}")
    seen = {tuple(m)}
    for rounds in range(1, max_rounds + 1):
        before = m.copy()
        for i in range(game.k):
            m[i] = best_response(game, i, m[None, :])[0]
        if np.array_equal(m, before):
            return DynamicsResult(m, True, rounds)
        if tuple(m) in seen:
            return DynamicsResult(m, False, rounds)
        seen.add(tuple(m))
    return DynamicsResult(m, False, max_rounds)
