"""FAME — "Principled Fast and Meta Knowledge Learners for Continual Reinforcement Learning".

Ke Sun, Hongming Zhang, Jun Jin, Chao Gao, Xi Chen, Wulong Liu, Linglong Kong; ICLR 2026 (arXiv 2603.00903,
OpenReview loNTDX3wTn). A fast DQN learner adapts to the current task while a meta policy integrates every task's
behaviour by maximum likelihood; at each task arrival greedy rollouts decide whether the fast learner is warmed
up towards the meta policy (a KL regularizer), kept as is, or reset. Reproduced on a gridworld task family with
image observations (:class:`GridTasks`) against Reset, Finetune, LargeBuffer and multi-head DQN baselines.
"""

from iclr26.decision.dual_learner_crl.agents import (
    DQNConfig,
    Finetune,
    LargeBuffer,
    MultiHeadDQN,
    QNetwork,
    Reset,
    Transition,
)
from iclr26.decision.dual_learner_crl.continual import (
    catastrophic_forgetting,
    forgetting,
    forward_transfer,
    meta_accuracy,
    run_sequence,
    running_performance,
    wilson_interval,
)
from iclr26.decision.dual_learner_crl.envs import LAYOUTS, GridTasks, greedy_returns
from iclr26.decision.dual_learner_crl.fame import FAME, FAMEConfig, kl_regularizer, meta_nll_epochs

__all__ = [
    "FAME",
    "LAYOUTS",
    "DQNConfig",
    "FAMEConfig",
    "Finetune",
    "GridTasks",
    "LargeBuffer",
    "MultiHeadDQN",
    "QNetwork",
    "Reset",
    "Transition",
    "catastrophic_forgetting",
    "forgetting",
    "forward_transfer",
    "greedy_returns",
    "kl_regularizer",
    "meta_accuracy",
    "meta_nll_epochs",
    "run_sequence",
    "running_performance",
    "wilson_interval",
]
