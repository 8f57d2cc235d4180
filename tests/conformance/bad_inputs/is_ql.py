"""Bad input to the iS-DQN agents and the shared-head Q-network (arXiv 2506.04398)."""

import gymnasium as gym
import numpy as np
import torch

from iclr26.decision.is_ql import (
    DQN,
    ISDQN,
    SharedHeadQNet,
    TargetFreeDQN,
    TrainResult,
    mlp_trunk,
    shift_head_rows_,
    train,
)

OBS = gym.spaces.Box(-1.0, 1.0, (4,), np.float32)
ACT = gym.spaces.Discrete(2)
SMALL = {"hidden": (4,)}

CASES = [
    (lambda: ISDQN(OBS, ACT, K=0, **SMALL), ValueError, ["K", ">= 1"]),
    (lambda: ISDQN(OBS, ACT, target_update=0, **SMALL), ValueError, ["target_update", ">= 1"]),
    (lambda: DQN(OBS, ACT, target_update=-3, **SMALL), ValueError, ["target_update"]),
    (
        lambda: TargetFreeDQN(OBS, gym.spaces.Box(-1, 1, (2,)), **SMALL),
        ValueError,
        ["action_space", "Discrete"],
    ),
    (
        lambda: TargetFreeDQN(gym.spaces.Box(-1, 1, (2, 2)), ACT, **SMALL),
        ValueError,
        ["observation_space", "1-D"],
    ),
    (
        lambda: ISDQN(OBS, ACT, K=2, **SMALL).act(np.zeros((1, 3)), 0.1, np.random.default_rng(0)),
        ValueError,
        ["obs", "shape"],
    ),
    (lambda: SharedHeadQNet(4, 2, K=1, hidden=(4,))(torch.zeros(3, 5)), ValueError, ["obs", "obs_dim"]),
    (lambda: SharedHeadQNet(4, 2, K=-1), ValueError, ["K", ">= 0"]),
    (lambda: TargetFreeDQN(OBS, ACT, n_members=0, **SMALL), ValueError, ["n_members"]),
]

_NAN = float("nan")


def _batch(**change):
    b = {
        "obs": torch.zeros(1, 3, 4),
        "next_obs": torch.zeros(1, 3, 4),
        "actions": torch.zeros(1, 3, dtype=torch.long),
        "rewards": torch.zeros(1, 3),
        "terminated": torch.zeros(1, 3),
    }
    return b | change


CASES += [
    (lambda: DQN(OBS, ACT, lr=float("inf"), **SMALL), ValueError, ["lr", "finite", "inf"]),
    (lambda: DQN(OBS, ACT, gamma=True, **SMALL), ValueError, ["gamma", "[0, 1]", "True"]),
    (lambda: DQN(OBS, ACT, adam_eps=-1.0, **SMALL), ValueError, ["adam_eps", ">= 0"]),
    (lambda: DQN(OBS, ACT, seed=-1, **SMALL), ValueError, ["seed", ">= 0", "-1"]),
    (lambda: DQN(OBS, ACT, dtype=torch.int64, **SMALL), TypeError, ["dtype", "floating-point"]),
    (lambda: DQN(OBS, ACT, hidden=4), TypeError, ["hidden", "sequence"]),
    (lambda: ISDQN(OBS, ACT, shared_trunk="no", **SMALL), TypeError, ["shared_trunk", "bool"]),
    (lambda: DQN(OBS, ACT, **SMALL).act(np.zeros((1, 4)), 0.1, 0), TypeError, ["rng", "Generator"]),
    (
        lambda: DQN(OBS, ACT, **SMALL).act(np.full((1, 4), _NAN), 0.1, np.random.default_rng(0)),
        ValueError,
        ["obs", "finite"],
    ),
    (
        lambda: DQN(OBS, ACT, **SMALL).update(_batch(actions=torch.full((1, 3), 5))),
        ValueError,
        ["batch['actions']", "n_actions=2"],
    ),
    (
        lambda: DQN(OBS, ACT, **SMALL).update(_batch(actions=torch.full((1, 3), 0.5))),
        TypeError,
        ["batch['actions']", "integer"],
    ),
    (
        lambda: TargetFreeDQN(OBS, ACT, **SMALL).update(_batch(rewards=torch.full((1, 3), _NAN))),
        ValueError,
        ["batch['rewards']", "finite"],
    ),
    (
        lambda: ISDQN(OBS, ACT, K=2, **SMALL).update(_batch(terminated=torch.full((1, 3), 2.0))),
        ValueError,
        ["batch['terminated']", "0/1"],
    ),
    (lambda: DQN(OBS, ACT, **SMALL).update({"obs": torch.zeros(1, 3, 4)}), ValueError, ["batch", "missing"]),
    (lambda: ISDQN(OBS, ACT, K=2, **SMALL).all_q(np.zeros((1, 3, 4))), TypeError, ["obs", "torch.Tensor"]),
    (
        lambda: SharedHeadQNet(4, 2, K=1, hidden=(4,))(torch.zeros(3, 4, dtype=torch.long)),
        TypeError,
        ["obs", "floating"],
    ),
    (lambda: mlp_trunk(4, (1.5,)), ValueError, ["hidden width", "1.5"]),
    (lambda: mlp_trunk(4, (4,), layer_norm="yes"), TypeError, ["layer_norm", "bool"]),
    (lambda: shift_head_rows_(torch.zeros(4, 3), torch.zeros(4), 0, 2), ValueError, ["n_heads", ">= 1"]),
    (lambda: TrainResult(10, [[(50, 1.0)]]).curve(5), ValueError, ["end step", "50"]),
    (lambda: TrainResult(10, [[(5, _NAN)]]).curve(5), ValueError, ["return", "finite"]),
    (lambda: TrainResult(10, [[]]).curve(5), ValueError, ["unfinished"]),
    (lambda: train(None, "CartPole-v1", 10), TypeError, ["agent", "ValueAgent"]),
    (lambda: train(DQN(OBS, ACT, **SMALL), "NoSuchEnv-v0", 10), ValueError, ["env_id", "registered"]),
    (lambda: train(DQN(OBS, ACT, **SMALL), "CartPole-v1", 10, seed=-1), ValueError, ["seed", ">= 0"]),
    (
        lambda: train(DQN(OBS, ACT, **SMALL), "CartPole-v1", 10, buffer_size=4, warmup=8),
        ValueError,
        ["buffer_size", "warmup", "4"],
    ),
    (
        lambda: train(DQN(OBS, ACT, **SMALL), "CartPole-v1", 10, eps_end=-1.0),
        ValueError,
        ["eps_end", "[0, 1]"],
    ),
    (
        lambda: train(DQN(OBS, ACT, **SMALL), "CartPole-v1", 10, eps_decay=1.5),
        ValueError,
        ["eps_decay", "1.5"],
    ),
]
