"""T1: One-to-One Channel-Head Binding for Multivariate Time-Series Imputation (Park et al., ICLR 2026, arXiv 2602.21043).

A per-variable depthwise CNN whose C channels are bound one-to-one to C attention heads over the variables
(:class:`CHeadAttention`), the :class:`T1Imputer` network and its pypots-style :class:`T1` fit/impute wrapper,
a synthetic factor-driven multivariate series, masking schemes (MCAR, sequence, block) and baselines.
"""

from iclr26.architectures.t1_imputation.baselines import (
    SAITSLike,
    iterative_impute,
    knn_impute,
    linear_interpolation,
    locf,
)
from iclr26.architectures.t1_imputation.claim_check import t1_decider
from iclr26.architectures.t1_imputation.data import (
    block_missing,
    chronological_split,
    macrodata_series,
    mcar,
    seq_missing,
    sliding_windows,
    synthetic_series,
)
from iclr26.architectures.t1_imputation.model import (
    CHeadAttention,
    DepthwiseMix,
    DownSample,
    PixelShuffle1D,
    ReconHead,
    T1Block,
    T1Config,
    T1Imputer,
    front_pad,
    masked_normalize,
)
from iclr26.architectures.t1_imputation.train import SAITS, T1, DeepImputer, masked_mse

__all__ = [
    "SAITS",
    "T1",
    "CHeadAttention",
    "DeepImputer",
    "DepthwiseMix",
    "DownSample",
    "PixelShuffle1D",
    "ReconHead",
    "SAITSLike",
    "T1Block",
    "T1Config",
    "T1Imputer",
    "block_missing",
    "chronological_split",
    "front_pad",
    "iterative_impute",
    "knn_impute",
    "linear_interpolation",
    "locf",
    "macrodata_series",
    "masked_mse",
    "masked_normalize",
    "mcar",
    "seq_missing",
    "sliding_windows",
    "synthetic_series",
    "t1_decider",
]
