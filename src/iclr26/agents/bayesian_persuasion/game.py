"""The Bayesian persuasion game: a common prior, the receiver's and the sender's utilities.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989). The game
is Kamenica and Gentzkow's: finite states omega with common prior mu0, receiver actions a with receiver utility
u(a, omega) and sender utility v(a, omega). The sender commits to a scheme pi(s | omega); the receiver, seeing
s, plays a best response to its posterior, with ties broken in the sender's favour.

Also here: the prosecutor-judge example and the random games of the reproduction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from iclr26.checks import check_array, check_choice, check_float, check_int

__all__ = [
    "SENDER_KINDS",
    "Game",
    "as_generator",
    "check_distribution",
    "check_scheme",
    "prosecutor",
    "random_game",
]

PROB_TOL = 1e-9
SENDER_KINDS = ("state-dependent", "state-independent")


def as_generator(rng: np.random.Generator | int | None, name: str = "rng") -> np.random.Generator:
    """A NumPy generator from a generator, a seed >= 0 or None."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    return np.random.default_rng(check_int(f"{name} (a seed)", rng, low=0))


def _matrix(name: str, x: object) -> np.ndarray:
    arr = check_array(name, x).copy()  # a copy: the game freezes its arrays
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix [A, Omega], got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {arr.tolist()}")
    return arr


def check_distribution(name: str, p: object, size: int | None = None) -> np.ndarray:
    """`p` as a 1-D probability vector (nonnegative, sums to 1 within 1e-9), optionally of length `size`."""
    arr = check_array(name, p).copy()  # a copy: the game freezes its prior
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D probability vector, got shape {arr.shape}")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} must have {size} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or abs(arr.sum() - 1.0) > PROB_TOL:
        raise ValueError(
            f"{name} must be a distribution (nonnegative, summing to 1), got {arr.tolist()} (sum {arr.sum():.12g})"
        )
    return arr


@dataclass(frozen=True)
class Game:
    """A Bayesian persuasion game ``Game(prior, u_receiver[A, Omega], v_sender[A, Omega])``.

    Parameters
    ----------
    prior : (Omega,) common prior mu0 over the states.
    u_receiver : (A, Omega) receiver utility u(a, omega); A >= 2 actions.
    v_sender : (A, Omega) sender utility v(a, omega).
    states, actions : optional names (for printing and the LLM environment).

    Examples
    --------
    >>> g = Game([0.7, 0.3], [[1, 0], [0, 1]], [[0, 0], [1, 1]])
    >>> g.n_states, g.n_actions
    (2, 2)
    >>> int(g.best_response([0.5, 0.5]))  # the judge is indifferent: ties go to the sender (convict)
    1
    """

    prior: np.ndarray
    u_receiver: np.ndarray
    v_sender: np.ndarray
    states: tuple[str, ...] = field(default=())
    actions: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        u = _matrix("u_receiver", self.u_receiver)
        v = _matrix("v_sender", self.v_sender)
        if u.shape != v.shape:
            raise ValueError(
                f"u_receiver and v_sender must have the same shape [A, Omega], got {u.shape} and {v.shape}"
            )
        if u.shape[0] < 2:
            raise ValueError(f"the receiver needs |A| >= 2 actions, got u_receiver of shape {u.shape}")
        prior = check_distribution("prior", self.prior)
        if prior.size != u.shape[1]:
            raise ValueError(
                f"prior has {prior.size} states but the utilities have Omega = {u.shape[1]} columns "
                f"(shape [A, Omega] = {u.shape})"
            )
        states = tuple(self.states) or tuple(f"state {i}" for i in range(prior.size))
        actions = tuple(self.actions) or tuple(f"action {a}" for a in range(u.shape[0]))
        for name, names, n in (("states", states, prior.size), ("actions", actions, u.shape[0])):
            if len(names) != n or not all(isinstance(s, str) and s for s in names):
                raise ValueError(f"{name} must be {n} non-empty names, got {names!r}")
        for arr in (prior, u, v):
            arr.setflags(write=False)
        object.__setattr__(self, "prior", prior)
        object.__setattr__(self, "u_receiver", u)
        object.__setattr__(self, "v_sender", v)
        object.__setattr__(self, "states", states)
        object.__setattr__(self, "actions", actions)

    @property
    def n_states(self) -> int:
        return int(self.prior.size)

    @property
    def n_actions(self) -> int:
        return int(self.u_receiver.shape[0])

    @property
    def tie_tol(self) -> float:
        """Absolute tolerance on (mass-weighted) expected receiver utilities under which actions tie."""
        return 1e-9 * max(1.0, float(np.abs(self.u_receiver).max()))

    def best_response(self, belief: Sequence[float] | np.ndarray) -> int:
        """argmax_a E_belief u(a, .), ties (within :attr:`tie_tol`) broken by the sender's E_belief v(a, .)."""
        mu = check_distribution("belief", belief, self.n_states)
        eu, ev = self.u_receiver @ mu, self.v_sender @ mu
        tied = eu >= eu.max() - self.tie_tol
        return int(np.argmax(np.where(tied, ev, -np.inf)))

    def v_hat(self, belief: Sequence[float] | np.ndarray) -> float:
        """The sender's value at a belief, v_hat(mu) = E_mu v(a*(mu), .)."""
        mu = check_distribution("belief", belief, self.n_states)
        return float(self.v_sender[self.best_response(mu)] @ mu)

    def __repr__(self) -> str:
        return (
            f"Game(prior={np.round(self.prior, 4).tolist()}, |A|={self.n_actions}, "
            f"states={list(self.states)}, actions={list(self.actions)})"
        )


def check_scheme(game: Game, pi: object) -> np.ndarray:
    """`pi` as a signalling scheme of `game`: an (Omega, S) matrix, S >= 1, each row a distribution pi(. | omega)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    try:
        arr = np.array(pi)
        if arr.dtype.kind == "c":  # a float cast would drop the imaginary part
            raise ValueError("complex")
        arr = np.array(arr, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"pi must be a numeric matrix [Omega, S], got {pi!r}") from err
    if arr.ndim != 2 or arr.shape[0] != game.n_states or arr.shape[1] < 1:
        raise ValueError(f"pi must have shape [Omega, S] = [{game.n_states}, S >= 1], got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(np.abs(arr.sum(1) - 1.0) > 1e-6):
        raise ValueError(f"pi's rows pi(. | omega) must be distributions, got {np.round(arr, 6).tolist()}")
    return arr


def prosecutor(prior_guilty: float = 0.3) -> Game:
    """The prosecutor-judge example: the judge convicts iff P(guilty) >= 1/2, the prosecutor wants conviction.

    States (innocent, guilty), actions (acquit, convict). With P(guilty) = 0.3 the optimal scheme convicts with
    probability 0.6; full disclosure gives 0.3, no disclosure 0.
    """
    p = check_float("prior_guilty", prior_guilty, 0.0, 1.0)
    u = [[1.0, 0.0], [0.0, 1.0]]  # the judge is right: acquit the innocent, convict the guilty
    v = [[0.0, 0.0], [1.0, 1.0]]  # the prosecutor wants a conviction whatever the state
    return Game([1.0 - p, p], u, v, states=("innocent", "guilty"), actions=("acquit", "convict"))


def random_game(
    rng: np.random.Generator | int | None,
    n_states: int = 2,
    n_actions: int = 2,
    sender: str = "state-dependent",
    prior_alpha: float = 1.0,
) -> Game:
    """Utilities U(0, 1), a Dirichlet(prior_alpha) prior; a state-independent sender has v(a, .) constant."""
    gen = as_generator(rng)
    n_states = check_int("n_states", n_states, low=1)
    n_actions = check_int("n_actions", n_actions, low=2)
    check_choice("sender", sender, SENDER_KINDS)
    alpha = check_float("prior_alpha", prior_alpha, 0.0, low_open=True)
    prior = gen.dirichlet(np.full(n_states, alpha))
    prior = prior / prior.sum()
    u = gen.uniform(0.0, 1.0, (n_actions, n_states))
    if sender == "state-independent":
        v = np.repeat(gen.uniform(0.0, 1.0, (n_actions, 1)), n_states, axis=1)
    else:
        v = gen.uniform(0.0, 1.0, (n_actions, n_states))
    return Game(prior, u, v)
