"""Bad input to the FAME reproduction's public API (arXiv 2603.00903)."""

import numpy as np
import torch

from iclr26.decision.dual_learner_crl import (
    FAME,
    DQNConfig,
    FAMEConfig,
    Finetune,
    GridTasks,
    MultiHeadDQN,
    QNetwork,
    Transition,
    catastrophic_forgetting,
    forgetting,
    forward_transfer,
    greedy_returns,
    kl_regularizer,
    meta_accuracy,
    meta_nll_epochs,
    run_sequence,
    running_performance,
    wilson_interval,
)

SMALL_BOARD = {"X": ("#####", "#..G#", "#...#", "#...#", "#####")}


def _mismatched_obs():
    FAME((3, 7, 7), 4, FAMEConfig()).on_task_start(GridTasks(layouts=SMALL_BOARD), "X")


def _mismatched_actions():
    Finetune((3, 7, 7), 5, DQNConfig()).on_task_start(GridTasks(), "A")


def _unknown_task_in_sequence():
    run_sequence(Finetune((3, 7, 7), 4, DQNConfig()), GridTasks(), ("A", "Z"), 100)


CASES = [
    (_mismatched_obs, ValueError, ["observation_space", "obs_shape"]),
    (_mismatched_actions, ValueError, ["n_actions"]),
    (_unknown_task_in_sequence, ValueError, ["sequence", "task"]),
    (lambda: FAMEConfig(switch=500, fast2meta=1000), ValueError, ["fast2meta", "switch"]),
    (lambda: FAMEConfig(kl_weight=-1.0), ValueError, ["kl_weight", ">= 0"]),
    (
        lambda: FAMEConfig(switch=400, fast2meta=100, detection_steps=300),
        ValueError,
        ["detection_steps", "switch"],
    ),
    (lambda: FAME((3, 7, 7), 4, DQNConfig()), TypeError, ["cfg", "FAMEConfig"]),
    (lambda: DQNConfig(epsilon=1.5), ValueError, ["epsilon"]),
    (lambda: DQNConfig(epsilon_start=-0.1), ValueError, ["epsilon_start"]),
    (lambda: DQNConfig(epsilon_decay=-5), ValueError, ["epsilon_decay"]),
    (lambda: FAMEConfig(random_reference="zero"), ValueError, ["random_reference", "q_max"]),
    (lambda: GridTasks(layouts={}), ValueError, ["layouts"]),
    (lambda: MultiHeadDQN((3, 7, 7), 4, DQNConfig(), ("A", "A")), ValueError, ["task_ids", "distinct"]),
    (lambda: wilson_interval(5, 3), ValueError, ["successes"]),
]

_NAN = float("nan")


def _tiny_agent():
    cfg = DQNConfig(switch=100, batch_size=8, replay_capacity=100, channels=2, hidden=4)
    return Finetune((3, 7, 7), 4, cfg)


CASES += [
    (lambda: DQNConfig(lr=float("inf")), ValueError, ["lr", "finite", "inf"]),
    (lambda: DQNConfig(gamma=True), ValueError, ["gamma", "[0, 1]", "True"]),
    (lambda: FAMEConfig(kl_weight=_NAN), ValueError, ["kl_weight", "nan"]),
    (lambda: FAMEConfig(detection_steps=2.5), ValueError, ["detection_steps", "int", "2.5"]),
    (lambda: FAMEConfig(meta_lr=float("inf")), ValueError, ["meta_lr", "finite"]),
    (lambda: FAMEConfig(use_ttest="yes"), TypeError, ["use_ttest", "bool"]),
    (lambda: Finetune((3, 2, 2), 4, DQNConfig()), ValueError, ["obs_shape height", ">= 3", "2"]),
    (lambda: Finetune((3, 7, 7), 4, DQNConfig(), seed=-1), ValueError, ["seed", ">= 0", "-1"]),
    (lambda: _tiny_agent().act(np.zeros((3, 5, 5))), ValueError, ["obs", "shape", "(3, 7, 7)"]),
    (lambda: _tiny_agent().act(np.full((3, 7, 7), _NAN)), ValueError, ["obs", "finite"]),
    (lambda: _tiny_agent().act("abc"), TypeError, ["obs", "numeric", "'abc'"]),
    (lambda: _tiny_agent().greedy(None), TypeError, ["obs", "numeric", "None"]),
    (lambda: _tiny_agent().on_task_start(None), TypeError, ["env", "GridTasks"]),
    (
        lambda: _tiny_agent().observe(
            Transition(np.zeros((3, 7, 7)), 9, 0.0, np.zeros((3, 7, 7)), False, False)
        ),
        ValueError,
        ["tr.action", "<= 3", "9"],
    ),
    (lambda: QNetwork((3, 7, 7), 4)(torch.zeros(2, 3, 5, 5)), ValueError, ["x", "shape", "(*, 3, 7, 7)"]),
    (lambda: QNetwork((3, 7, 7), 0), ValueError, ["n_actions", ">= 1"]),
    (lambda: MultiHeadDQN((3, 7, 7), 4, DQNConfig(), "AB"), TypeError, ["task_ids", "tuple"]),
    (lambda: GridTasks(step_penalty=_NAN), ValueError, ["step_penalty", "nan"]),
    (lambda: GridTasks(layouts="AB"), ValueError, ["layouts", "tuple of names"]),
    (lambda: GridTasks(layouts={"X": ("#####", "#...#", "#####")}), ValueError, ["layouts['X']", "one 'G'"]),
    (lambda: GridTasks(layouts={"X": ("....", ".G..", "....")}), ValueError, ["layouts['X']", "border"]),
    (lambda: GridTasks().step(1.5), ValueError, ["action", "1.5"]),
    (lambda: GridTasks().step(True), ValueError, ["action", "True"]),
    (lambda: GridTasks().start_cells("Z"), ValueError, ["task", "'Z'"]),
    (lambda: GridTasks().observe(np.array([[-1, 1]])), ValueError, ["pos", "board"]),
    (lambda: GridTasks().move(np.array([[1, 1]]), np.array([7])), ValueError, ["actions", "[0, 4)"]),
    (lambda: GridTasks().random_return("A", episodes=0), ValueError, ["episodes", ">= 1"]),
    (lambda: GridTasks().normalize("A", _NAN), ValueError, ["value", "finite"]),
    (
        lambda: greedy_returns(GridTasks(), "A", lambda o: np.zeros(len(o), int), 3, -1),
        ValueError,
        ["seed", ">= 0"],
    ),
    (
        lambda: catastrophic_forgetting(np.ones(3) / 3, np.full((3, 2), 3.0), np.ones((3, 2)) / 2),
        ValueError,
        ["pi_old", "probability distribution"],
    ),
    (lambda: running_performance([(0, 5, 0.5)], 10, 5), ValueError, ["task_position", "5"]),
    (lambda: running_performance([(0, 0, 0.5)], 10, 0), ValueError, ["switch", ">= 1"]),
    (lambda: forward_transfer(np.ones(3), np.ones(2)), ValueError, ["auc_method", "auc_reset", "shape"]),
    (lambda: forward_transfer(np.ones(3), np.zeros(3), floor=0.0), ValueError, ["floor", "> 0"]),
    (lambda: wilson_interval(1.5, 3), ValueError, ["successes", "int", "1.5"]),
    (lambda: wilson_interval(1, 3, z=-1.0), ValueError, ["z", "> 0"]),
    (
        lambda: meta_accuracy(GridTasks(), "A", lambda o: np.full(len(o), 7)),
        ValueError,
        ["policy actions", "[0, 4)"],
    ),
    (lambda: run_sequence(_tiny_agent(), GridTasks(), "AB", 10), ValueError, ["sequence", "tuple"]),
    (
        lambda: run_sequence(_tiny_agent(), GridTasks(), ("A",), 10, eval_episodes=0),
        ValueError,
        ["eval_episodes"],
    ),
    (lambda: run_sequence(None, GridTasks(), ("A",), 10), TypeError, ["agent", "NoneType"]),
    (
        lambda: forgetting({"eval_end_of_task": np.ones(1), "eval_final": {"A": 1.0}}, ("A",)),
        ValueError,
        ["sequence", "at least 2"],
    ),
    (lambda: kl_regularizer(torch.zeros(2, 4), torch.zeros(2, 3)), ValueError, ["meta_logits", "shape"]),
    (lambda: kl_regularizer(torch.full((2, 4), _NAN), torch.zeros(2, 4)), ValueError, ["q_values", "finite"]),
    (
        lambda: meta_nll_epochs(QNetwork((3, 7, 7), 4), None, None, 1, 1, 4, 1e-3),
        TypeError,
        ["meta", "ReplayBuffer"],
    ),
    (lambda: meta_nll_epochs(None, None, None, 1, 1, 4, 1e-3), TypeError, ["net", "Module"]),
]
