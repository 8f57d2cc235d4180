"""Bad input to the FARTrack tracker, losses, sparsifier, tracker, metrics and video generator."""

import numpy as np
import torch

from iclr26.science.fartrack import (
    ARTracker,
    InterFrameSparsifier,
    Tracker,
    VideoSequence,
    ao_sr,
    self_distill_loss,
    siou_loss,
)

M = ARTracker(depth=2)
Z, X = torch.zeros(1, 1, 3, 24, 24), torch.zeros(1, 3, 48, 48)
FRAME = np.zeros((96, 96, 3), np.uint8)


def _tracker():
    tr = Tracker(M)
    tr.initialize(FRAME, np.array([10.0, 10.0, 8.0, 8.0]))
    return tr


CASES = [
    (
        lambda: Tracker(M).initialize(FRAME, np.array([10.0, 10.0, 0.0, 5.0])),
        ValueError,
        ["box", "positive width"],
    ),
    (
        lambda: Tracker(M).initialize(FRAME, np.array([10.0, 10.0, 5.0, -2.0])),
        ValueError,
        ["box", "positive"],
    ),
    (
        lambda: Tracker(M).initialize(np.zeros((96, 96), np.uint8), np.ones(4)),
        ValueError,
        ["frame", "(H, W, 3)"],
    ),
    (
        lambda: Tracker(M).initialize(np.zeros((96, 96, 3), np.int32), np.ones(4)),
        ValueError,
        ["frame", "uint8"],
    ),
    (lambda: _tracker().track(np.zeros((96, 96, 4), np.uint8)), ValueError, ["frame", "(H, W, 3)"]),
    (lambda: Tracker(M).track(FRAME), RuntimeError, ["initialize"]),
    (lambda: Tracker(M, prune="half"), ValueError, ["prune", "'inter'"]),
    (lambda: InterFrameSparsifier(1.0), ValueError, ["ratio", "[0, 1)"]),
    (lambda: InterFrameSparsifier(-0.1), ValueError, ["ratio", "[0, 1)"]),
    (lambda: Tracker(M, ratio=1.5), ValueError, ["ratio", "[0, 1)"]),
    (
        lambda: InterFrameSparsifier(0.5).update(torch.rand(2, 1, 3, 50, 50), 3),
        ValueError,
        ["N = 50", "3 templates"],
    ),
    (lambda: M.truncate(3), ValueError, ["depth", "<= 2"]),
    (lambda: M.truncate(0), ValueError, ["depth", ">= 1"]),
    (lambda: ARTracker(template_size=20, patch=8), ValueError, ["template_size", "divisible by patch"]),
    (lambda: ARTracker(search_size=50, patch=8), ValueError, ["search_size", "divisible by patch"]),
    (lambda: ARTracker(dim=50, heads=3), ValueError, ["dim", "divisible by heads"]),
    (lambda: ARTracker(depth=4, exits=(2, 3)), ValueError, ["exits", "ending at depth"]),
    (lambda: M(torch.zeros(1, 1, 3, 16, 16), X), ValueError, ["templates", "(B, L, 3, 24, 24)"]),
    (lambda: M(Z, torch.zeros(2, 3, 48, 48)), ValueError, ["search", "(1, 3, 48, 48)"]),
    (lambda: M(torch.zeros(1, 6, 3, 24, 24), X), ValueError, ["number of templates", "[1, 5]"]),
    (
        lambda: M(Z, X, key_padding_mask=torch.zeros(1, 5, dtype=torch.bool)),
        ValueError,
        ["key_padding_mask", "(1, 9)"],
    ),
    (lambda: siou_loss(torch.zeros(3, 4), torch.zeros(2, 4)), ValueError, ["gt_xyxy", "(3, 4)"]),
    (
        lambda: siou_loss(torch.zeros(3, 4), torch.zeros(3, 4), reduction="sum"),
        ValueError,
        ["reduction", "'mean'"],
    ),
    (
        lambda: self_distill_loss([], torch.zeros(1, 4, dtype=torch.long)),
        ValueError,
        ["exit_logits", "non-empty"],
    ),
    (
        lambda: self_distill_loss(
            [torch.zeros(2, 4, 69), torch.zeros(2, 4, 70)], torch.zeros(2, 4, dtype=torch.long)
        ),
        ValueError,
        ["every exit", "(2, 4, 69)"],
    ),
    (
        lambda: self_distill_loss([torch.zeros(2, 4, 69)], torch.zeros(2, 4, dtype=torch.long), w_kl=-1.0),
        ValueError,
        ["w_kl", ">= 0"],
    ),
    (lambda: ao_sr(np.zeros((5, 4)), np.zeros((6, 4))), ValueError, ["same shape", "(1, 6, 4)"]),
    (lambda: ao_sr(np.zeros((5, 3)), np.zeros((5, 3))), ValueError, ["pred_boxes", "(T, 4)"]),
    (lambda: VideoSequence(0, 1), ValueError, ["length", ">= 2"]),
]
