"""Bad input to the BP-LLM game, solvers, receivers, environments and trainer."""

import numpy as np

from iclr26.agents.bayesian_persuasion import (
    Game,
    LLMPersuasionEnv,
    PartialUpdater,
    PersuasionEnv,
    QuantalReceiver,
    baseline_values,
    check_scheme,
    concavify_binary,
    normalized_gain,
    obedience_gap,
    optimal_face_width,
    parse_belief,
    prosecutor,
    random_game,
    random_scheme,
    solve_lp,
    train_sender,
    train_senders,
    value,
)
from iclr26.agents.bayesian_persuasion.experiment import BPConfig
from iclr26.lab.llm import ScriptedBackend

U = [[1.0, 0.0], [0.0, 1.0]]
V = [[0.0, 0.0], [1.0, 1.0]]
_G = prosecutor()
_ENV = PersuasionEnv(_G)
_LLM = ScriptedBackend(["BELIEF: 0.5, 0.5"], cycle=True)


def _step_before_reset():
    PersuasionEnv(_G).step(0)


CASES = [
    # the brief's three: prior not a distribution, utility shape mismatch, |A| < 2
    (lambda: Game([0.6, 0.6], U, V), ValueError, ["prior", "distribution"]),
    (lambda: Game([-0.5, 1.5], U, V), ValueError, ["prior", "distribution"]),
    (lambda: Game([0.5, 0.5], U, [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]), ValueError, ["same shape", "(2, 3)"]),
    (lambda: Game([0.5, 0.5], [[1.0, 0.0]], [[1.0, 1.0]]), ValueError, ["|A| >= 2", "(1, 2)"]),
    (lambda: Game([0.2, 0.3, 0.5], U, V), ValueError, ["prior has 3 states", "Omega = 2"]),
    (lambda: Game([0.5, 0.5], [1.0, 0.0], V), ValueError, ["u_receiver", "2-D"]),
    (lambda: Game([0.5, 0.5], [[np.nan, 0.0], [0.0, 1.0]], V), ValueError, ["u_receiver", "finite"]),
    (lambda: Game([0.5, 0.5], U, V, states=("a",)), ValueError, ["states", "2 non-empty names"]),
    (lambda: _G.best_response([0.5, 0.4]), ValueError, ["belief", "distribution"]),
    (lambda: check_scheme(_G, [[0.5, 0.5]]), ValueError, ["pi", "[Omega, S]", "(1, 2)"]),
    (lambda: check_scheme(_G, [[0.5, 0.6], [0.5, 0.5]]), ValueError, ["pi's rows", "distributions"]),
    (lambda: check_scheme(None, [[1.0], [1.0]]), TypeError, ["game", "Game"]),
    (lambda: value(_G, np.eye(2), receiver="bayes"), TypeError, ["receiver", "BayesianReceiver"]),
    (lambda: PartialUpdater(1.5), ValueError, ["gamma", "[0, 1]"]),
    (lambda: QuantalReceiver(-1.0), ValueError, ["lam", ">= 0"]),
    (lambda: solve_lp(_G, QuantalReceiver(3.0)), ValueError, ["best-responding", "QuantalReceiver"]),
    (lambda: solve_lp([0.5, 0.5]), TypeError, ["game", "Game"]),
    (lambda: optimal_face_width(_G, n_directions=0), ValueError, ["n_directions", ">= 1"]),
    (lambda: obedience_gap(_G, np.ones((2, 1))), ValueError, ["recommend actions", "[2, 2]"]),
    (lambda: concavify_binary(random_game(0, 3, 2)), ValueError, ["|Omega| = 2", "3"]),
    (lambda: concavify_binary(_G, grid=0.0), ValueError, ["grid (spacing)", "(0, 1]"]),
    (lambda: concavify_binary(_G, grid=[0.2, 1.5]), ValueError, ["grid beliefs", "[0, 1]"]),
    (lambda: random_game(0, 2, 1), ValueError, ["n_actions", ">= 2"]),
    (lambda: random_game(0, 2, 2, sender="greedy"), ValueError, ["sender", "state-dependent"]),
    (lambda: random_game(-1), ValueError, ["rng (a seed)", "-1"]),
    (lambda: random_scheme(_G, 0, n_signals=0), ValueError, ["n_signals", ">= 1"]),
    (lambda: baseline_values(_G, n_random=0), ValueError, ["n_random", ">= 1"]),
    (lambda: normalized_gain(float("nan"), 0.0, 1.0), ValueError, ["v must", "nan"]),
    (lambda: PersuasionEnv(_G, n_signals=0), ValueError, ["n_signals", ">= 1"]),
    (lambda: PersuasionEnv("game"), TypeError, ["game", "Game"]),
    (lambda: _ENV.commit(np.eye(2)), ValueError, ["n_signals = 3", "(2, 2)"]),
    (lambda: _ENV.rollout(np.full((2, 3), 1 / 3), 0), ValueError, ["n must", ">= 1"]),
    (_step_before_reset, RuntimeError, ["reset()"]),
    (lambda: (_ENV.reset(seed=0), _ENV.step(7)), ValueError, ["action (a signal index)", "7"]),
    (lambda: train_sender(_ENV, mode="online"), ValueError, ["mode", "commitment"]),
    (lambda: train_sender(_ENV, policy="lstm"), ValueError, ["policy", "tabular"]),
    (lambda: train_sender(_ENV, algo="ppo"), ValueError, ["algo", "grpo"]),
    (lambda: train_sender(_ENV, group=1), ValueError, ["group", ">= 2"]),
    (lambda: train_sender(_ENV, lr=0.0), ValueError, ["lr", "> 0"]),
    (lambda: train_sender(_ENV, sigma=(0.5, 0.1, 0.01)), ValueError, ["sigma", "(start, end)"]),
    (lambda: train_sender(_ENV, sigma=-1.0), ValueError, ["sigma", "> 0"]),
    (lambda: train_sender(_ENV, scoring="mc"), ValueError, ["scoring", "exact"]),
    (lambda: train_sender("env"), TypeError, ["env", "PersuasionEnv"]),
    (lambda: train_senders([]), TypeError, ["envs", "non-empty"]),
    (
        lambda: train_senders([_ENV], policy="mlp", init=[np.full((2, 3), 1 / 3)]),
        ValueError,
        ["init", "policy='tabular'"],
    ),
    (lambda: train_senders([_ENV], init=[np.eye(2)]), ValueError, ["init[0]", "n_signals = 3"]),
    (lambda: train_senders([_ENV], init=[None, None]), ValueError, ["init", "one scheme or None"]),
    (lambda: LLMPersuasionEnv(_G, "gpt", _LLM), TypeError, ["sender", "LLMBackend"]),
    (lambda: LLMPersuasionEnv(_G, _LLM, _LLM, turns=0), ValueError, ["turns", ">= 1"]),
    (lambda: LLMPersuasionEnv(_G, _LLM, _LLM, temperature=-1.0), ValueError, ["temperature", ">= 0"]),
    (lambda: parse_belief(None, ("a", "b")), ValueError, ["text", "str"]),
    (lambda: BPConfig(n_games=1), ValueError, ["n_games", ">= 2"]),
    (lambda: BPConfig(state_sizes=(1, 2)), ValueError, ["state_sizes", ">= 2"]),
]
