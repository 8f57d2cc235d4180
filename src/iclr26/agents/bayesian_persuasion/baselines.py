"""The sender's baselines: no disclosure, full disclosure, a uniformly random scheme, and the LP optimum.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989).
"""

from __future__ import annotations

import numpy as np

from iclr26.agents.bayesian_persuasion.game import Game, as_generator
from iclr26.agents.bayesian_persuasion.lp import solve_lp
from iclr26.agents.bayesian_persuasion.receivers import BayesianReceiver, Receiver, check_receiver
from iclr26.agents.bayesian_persuasion.value import full_disclosure, no_disclosure, value
from iclr26.checks import check_int

__all__ = ["BASELINES", "baseline_values", "random_scheme"]

BASELINES = ("no disclosure", "full disclosure", "random", "LP optimum")


def random_scheme(
    game: Game, rng: np.random.Generator | int | None = None, n_signals: int | None = None
) -> np.ndarray:
    """A scheme drawn uniformly from the product of simplices: each row pi(. | omega) ~ Dirichlet(1, ..., 1)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    n = check_int("n_signals", game.n_actions + 1 if n_signals is None else n_signals, low=1)
    return as_generator(rng).dirichlet(np.ones(n), size=game.n_states)


def baseline_values(
    game: Game,
    receiver: Receiver | None = None,
    rng: np.random.Generator | int | None = 0,
    n_random: int = 32,
) -> dict[str, float]:
    """V of each baseline against `receiver`; "random" is the mean over `n_random` random schemes with
    |A| + 1 signals, and "LP optimum" needs a best-responding receiver (NaN for a quantal one)."""
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    n_random = check_int("n_random", n_random, low=1)
    gen = as_generator(rng)
    out = {
        "no disclosure": value(game, no_disclosure(game), rec),
        "full disclosure": value(game, full_disclosure(game), rec),
        "random": float(np.mean([value(game, random_scheme(game, gen), rec) for _ in range(n_random)])),
        "LP optimum": solve_lp(game, rec)[1] if rec.best_responds else float("nan"),
    }
    return out
