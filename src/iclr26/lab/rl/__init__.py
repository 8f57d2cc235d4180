"""A small PyTorch reinforcement-learning core shared by the RL papers.

* :class:`ReplayBuffer` — a FIFO transition store for one or several lockstep environments (numpy, seeded
  sampling), returning torch batches.
* :class:`Ensemble` — N copies of one network trained in lockstep as a single stacked module
  (``torch.func.stack_module_state`` + ``vmap`` over ``functional_call``); with an element-wise optimizer (Adam,
  AdamW, SGD) one optimizer over the stacked parameters performs exactly the N independent updates, which is what
  makes many seeds fit a CPU budget.
* DQN pieces: :func:`epsilon_greedy`, :func:`linear_schedule`, :func:`td_targets`, :func:`hard_update`.
* PPO pieces with action masking: :func:`masked_logits`, :func:`masked_categorical`, :func:`gae`,
  :func:`ppo_loss`.
* :func:`make_vector_env` — gymnasium's synchronous vector env with one seed per copy.

Example
-------
>>> import torch
>>> from torch import nn
>>> nets = [nn.Linear(4, 2) for _ in range(3)]
>>> ens = Ensemble(nets)
>>> x = torch.randn(3, 5, 4)  # (members, batch, features)
>>> bool(torch.allclose(ens(x)[1], nets[1](x[1])))
True
"""

from iclr26.lab.rl.buffer import ReplayBuffer
from iclr26.lab.rl.dqn import epsilon_greedy, hard_update, linear_schedule, td_targets
from iclr26.lab.rl.ensemble import Ensemble
from iclr26.lab.rl.envs import make_vector_env
from iclr26.lab.rl.ppo import gae, masked_categorical, masked_logits, ppo_loss

__all__ = [
    "Ensemble",
    "ReplayBuffer",
    "epsilon_greedy",
    "gae",
    "hard_update",
    "linear_schedule",
    "make_vector_env",
    "masked_categorical",
    "masked_logits",
    "ppo_loss",
    "td_targets",
]
