"""Bad input to the iS-DQN agents and the shared-head Q-network (arXiv 2506.04398)."""

import gymnasium as gym
import numpy as np
import torch

from iclr26.decision.is_ql import DQN, ISDQN, SharedHeadQNet, TargetFreeDQN

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
