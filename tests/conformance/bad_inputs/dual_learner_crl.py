"""Bad input to the FAME reproduction's public API (arXiv 2603.00903)."""

from iclr26.decision.dual_learner_crl import (
    FAME,
    DQNConfig,
    FAMEConfig,
    Finetune,
    GridTasks,
    MultiHeadDQN,
    run_sequence,
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
    (lambda: GridTasks(layouts={}), ValueError, ["layouts"]),
    (lambda: MultiHeadDQN((3, 7, 7), 4, DQNConfig(), ("A", "A")), ValueError, ["task_ids", "distinct"]),
    (lambda: wilson_interval(5, 3), ValueError, ["successes"]),
]
