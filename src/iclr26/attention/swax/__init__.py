"""SWAX: short window attention enables long-term memorization (arXiv 2509.24552; no OpenReview id found).

A hybrid decoder whose layers alternate sliding-window softmax attention (RoPE) and xLSTM's mLSTM, trained with a
window drawn at random at every optimizer step (:class:`StochasticWindowSampler`).
"""

from iclr26.attention.swax.mlstm import MLSTMLayer, MLSTMState, mlstm_parallel, mlstm_recurrent
from iclr26.attention.swax.model import SWAXModel, check_pattern, swax_mixer_factory
from iclr26.attention.swax.sampler import StochasticWindowSampler
from iclr26.attention.swax.swa import SlidingWindowAttention, apply_rope, check_window

__all__ = [
    "MLSTMLayer",
    "MLSTMState",
    "SWAXModel",
    "SlidingWindowAttention",
    "StochasticWindowSampler",
    "apply_rope",
    "check_pattern",
    "check_window",
    "mlstm_parallel",
    "mlstm_recurrent",
    "swax_mixer_factory",
]
