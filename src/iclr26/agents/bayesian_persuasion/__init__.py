"""BP-LLM: "Towards Strategic Persuasion with Language Models" (ICLR 2026, arXiv 2509.22989).

Cheng and You measure persuasion with Bayesian persuasion: an informed sender designs what to reveal, and its
gain is how far the receiver's action moves its way. Here: the game and its exact solution (the LP over
recommendation schemes, concavification for two states), the sender's value against Bayesian, quantal and
partially updating receivers, a gymnasium-style environment, an LLM-to-LLM environment on the lab's chat
backends, and RL for the sender (commitment-mode GRPO, with the per-episode mode as a negative control).

Example
-------
>>> import numpy as np
>>> from iclr26.agents.bayesian_persuasion import (
...     Game, concavify_binary, full_disclosure, no_disclosure, prosecutor, solve_lp, value)
>>> game = prosecutor()  # P(guilty) = 0.3; the judge convicts iff P(guilty) >= 1/2
>>> pi, v_star = solve_lp(game)
>>> round(v_star, 6), round(concavify_binary(game).value, 6)
(0.6, 0.6)
>>> value(game, full_disclosure(game)), value(game, no_disclosure(game))
(0.3, 0.0)
"""

from iclr26.agents.bayesian_persuasion.baselines import BASELINES, baseline_values, random_scheme
from iclr26.agents.bayesian_persuasion.env import PersuasionEnv
from iclr26.agents.bayesian_persuasion.envelope import (
    Envelope,
    concavify_binary,
    indifference_beliefs,
    upper_hull,
)
from iclr26.agents.bayesian_persuasion.game import (
    SENDER_KINDS,
    Game,
    check_scheme,
    prosecutor,
    random_game,
)
from iclr26.agents.bayesian_persuasion.llm_env import LLMPersuasionEnv, parse_belief
from iclr26.agents.bayesian_persuasion.lp import lp_optimum_is_unique, optimal_face_width, solve_lp
from iclr26.agents.bayesian_persuasion.receivers import (
    BayesianReceiver,
    PartialUpdater,
    QuantalReceiver,
    Receiver,
)
from iclr26.agents.bayesian_persuasion.train import (
    MODES,
    POLICIES,
    TrainedSender,
    train_sender,
    train_senders,
)
from iclr26.agents.bayesian_persuasion.value import (
    full_disclosure,
    naive_value,
    no_disclosure,
    normalized_gain,
    obedience_gap,
    posterior_distribution,
    straightforward,
    strategy_tv,
    value,
)

__all__ = [
    "BASELINES",
    "MODES",
    "POLICIES",
    "SENDER_KINDS",
    "BayesianReceiver",
    "Envelope",
    "Game",
    "LLMPersuasionEnv",
    "PartialUpdater",
    "PersuasionEnv",
    "QuantalReceiver",
    "Receiver",
    "TrainedSender",
    "baseline_values",
    "check_scheme",
    "concavify_binary",
    "full_disclosure",
    "indifference_beliefs",
    "lp_optimum_is_unique",
    "naive_value",
    "no_disclosure",
    "normalized_gain",
    "obedience_gap",
    "optimal_face_width",
    "parse_belief",
    "posterior_distribution",
    "prosecutor",
    "random_game",
    "random_scheme",
    "solve_lp",
    "straightforward",
    "strategy_tv",
    "train_sender",
    "train_senders",
    "upper_hull",
    "value",
]
