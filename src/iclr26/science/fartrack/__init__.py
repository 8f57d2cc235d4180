"""FARTrack: "Fast Autoregressive Visual Tracking with High Performance" (Wang, Lin, Bai, Cao, Liang, Zhao, Wei;
ICLR 2026, OpenReview lq7Zfr8kAS, arXiv 2602.03214).

An ARTrack-style one-stream ViT tracker that predicts the box as 4 coordinate tokens, compressed in depth by
task-specific self-distillation (a shared head after several blocks, each exit taught by the next deeper one with
KL on the coordinate distributions) and sped up by inter-frame autoregressive sparsification (the attention of
frame t picks the template tokens pruned at frame t + 1). Here: the tracker, the losses, the sparsifier, a
pytracking-style tracker, GOT-10k metrics and a procedural moving-object video generator with exact boxes.

Example
-------
>>> import torch
>>> from iclr26.science.fartrack import ARTracker, quantize, self_distill_loss
>>> model = ARTracker(depth=6)
>>> logits = model(torch.randn(4, 1, 3, 24, 24), torch.randn(4, 3, 48, 48))  # one (4, 4, 69) per exit
>>> tokens = quantize(torch.tensor([[0.3, 0.3, 0.7, 0.6]]).expand(4, 4), bins=32)
>>> loss, parts = self_distill_loss(logits, tokens)
>>> sorted(parts)
['ce', 'kl', 'siou']
"""

from iclr26.science.fartrack.boxes import (
    box_to_crop,
    command_tokens,
    crop,
    crop_to_box,
    crop_window,
    dequantize,
    quantize,
    vocab_size,
)
from iclr26.science.fartrack.losses import (
    adjacent_kl,
    expected_box,
    feature_distill_loss,
    self_distill_loss,
    siou_loss,
)
from iclr26.science.fartrack.metrics import ao_sr, box_iou, measure_fps, precision, success_auc
from iclr26.science.fartrack.model import ARTracker
from iclr26.science.fartrack.sparsify import InterFrameSparsifier, random_prune_mask
from iclr26.science.fartrack.tracker import Tracker
from iclr26.science.fartrack.video import VideoConfig, VideoSequence, make_sequences

__all__ = [
    "ARTracker",
    "InterFrameSparsifier",
    "Tracker",
    "VideoConfig",
    "VideoSequence",
    "adjacent_kl",
    "ao_sr",
    "box_iou",
    "box_to_crop",
    "command_tokens",
    "crop",
    "crop_to_box",
    "crop_window",
    "dequantize",
    "expected_box",
    "feature_distill_loss",
    "make_sequences",
    "measure_fps",
    "precision",
    "quantize",
    "random_prune_mask",
    "self_distill_loss",
    "siou_loss",
    "success_auc",
    "vocab_size",
]
