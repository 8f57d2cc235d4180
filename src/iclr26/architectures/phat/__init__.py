"""PHAT: Modeling Period Heterogeneity for Multivariate Time Series Forecasting (ICLR 2026, arXiv 2602.00654,
OpenReview lr4RlISR6x).

Variables are grouped into periodic buckets by their dominant FFT periods; each bucket's horizon-length token
sequence is folded into a (period offset x cycle) grid and mixed by positive-negative "X-shaped" attention
with a periodic modulation, and the bucket outputs are fused with frequency-saliency weights.
"""

from iclr26.architectures.phat.attention import DyT, PNAttention, naive_pna, stick_softplus
from iclr26.architectures.phat.model import PHAT, PHATBlock, RevIN, SwiGLU
from iclr26.architectures.phat.periods import (
    detect_periods,
    fold,
    periodic_distance,
    periodic_modulation_index,
    unfold,
)

__all__ = [
    "PHAT",
    "DyT",
    "PHATBlock",
    "PNAttention",
    "RevIN",
    "SwiGLU",
    "detect_periods",
    "fold",
    "naive_pna",
    "periodic_distance",
    "periodic_modulation_index",
    "stick_softplus",
    "unfold",
]
