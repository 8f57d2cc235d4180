"""Bridging the performance gap between target-free and target-based reinforcement learning (iS-QN).

Vincent, Tripathi, Faust, Akguel, Oren, Kandemir, Peters, D'Eramo; ICLR 2026; arXiv 2506.04398, OpenReview
ltcxS7JE0c. Only the last linear layer is kept as a frozen target, and K consecutive Bellman iterations are learned
in parallel by K+1 heads on one shared trunk (iS-DQN), compared with DQN and target-free DQN.
"""

from iclr26.decision.is_ql.agents import DQN, ISDQN, TargetFreeDQN, TrainResult, ValueAgent, train
from iclr26.decision.is_ql.networks import SharedHeadQNet, mlp_trunk, shift_head_rows_

__all__ = [
    "DQN",
    "ISDQN",
    "SharedHeadQNet",
    "TargetFreeDQN",
    "TrainResult",
    "ValueAgent",
    "mlp_trunk",
    "shift_head_rows_",
    "train",
]
