"""FACT: Fine-grained Across-variable Convolution for Multivariate Time Series Forecasting (ICLR 2026,
OpenReview j3gNYqrHtl).

Variables are embedded from their lookback into D channels (granularities), laid out on an S x S grid, and mixed
by multi-dilated depthwise 2-D Inception convolutions, in a time branch and a frequency branch over the embedding
axis. Also: the FACTAttn ablation, minimal baselines and an advection-diffusion sensor-grid generator.
"""

from iclr26.architectures.fact_forecast.baselines import DLinear, ITransformer, PatchTST, TSMixerLite
from iclr26.architectures.fact_forecast.data import (
    ForecastData,
    make_grid_diffusion,
    ordering,
    prepare,
    time_marks,
)
from iclr26.architectures.fact_forecast.model import (
    FACT,
    AttnBlock,
    DConvBlock2d,
    FACTAttn,
    FrequencyBranch,
    InceptionDW,
    grid_side,
    pad_to_grid,
    unpad_from_grid,
)
from iclr26.architectures.fact_forecast.training import (
    evaluate,
    saved_activation_bytes,
    step_time,
    train_forecaster,
)

__all__ = [
    "FACT",
    "AttnBlock",
    "DConvBlock2d",
    "DLinear",
    "FACTAttn",
    "ForecastData",
    "FrequencyBranch",
    "ITransformer",
    "InceptionDW",
    "PatchTST",
    "TSMixerLite",
    "evaluate",
    "grid_side",
    "make_grid_diffusion",
    "ordering",
    "pad_to_grid",
    "prepare",
    "saved_activation_bytes",
    "step_time",
    "time_marks",
    "train_forecaster",
    "unpad_from_grid",
]
