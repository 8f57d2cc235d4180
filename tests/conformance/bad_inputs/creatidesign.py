"""Bad input to the CreatiDesign mask builder, DiT and data (arXiv 2505.19114)."""

import torch

from iclr26.generative.creatidesign import (
    MaskRules,
    MultiConditionDiT,
    ProceduralDesignDataset,
    build_multimodal_attention_mask,
    frechet_distance,
)
from iclr26.generative.creatidesign.data import VOCAB

_BOX = (0.0, 0.0, 0.25, 0.25)
_SPRITE = torch.zeros(3, 12, 12)
_REGION = (0.0, 0.0, 0.375, 0.375)


def _dit(**kw):
    return MultiConditionDiT(**{"vocab": len(VOCAB), "dim": 16, "depth": 1, **kw})


def _call(layout, subjects, x=None):
    model = _dit()
    x = torch.zeros(1, 3, 32, 32) if x is None else x
    return model(x, torch.zeros(1), torch.zeros(1, 2, dtype=torch.long), [layout], [subjects])


_IDS = torch.tensor([5, 9])

CASES = [
    (
        lambda: build_multimodal_attention_mask(1, [(0.8, 0.0, 0.5, 0.2)], [], (4, 4)),
        ValueError,
        ["layout_boxes[0]", "inside the unit canvas"],
    ),
    (
        lambda: build_multimodal_attention_mask(1, [(-0.1, 0.0, 0.5, 0.2)], [], (4, 4)),
        ValueError,
        ["layout_boxes[0]", "left >= 0"],
    ),
    (
        lambda: build_multimodal_attention_mask(1, [(0.1, 0.1, 0.0, 0.2)], [], (4, 4)),
        ValueError,
        ["layout_boxes[0]", "width, height > 0"],
    ),
    (
        lambda: build_multimodal_attention_mask(1, [], [(0.1, 0.1, 0.3, -0.2)], (4, 4)),
        ValueError,
        ["subject_regions[0]", "> 0"],
    ),
    (
        lambda: build_multimodal_attention_mask(1, [_BOX] * 3, [_BOX], (4, 4), max_elements=3),
        ValueError,
        ["max_elements=3", "3 + 1"],
    ),
    (lambda: build_multimodal_attention_mask(-1, [], [], (4, 4)), ValueError, ["n_prompt", ">= 0"]),
    (lambda: build_multimodal_attention_mask(1, [], [], (4,)), ValueError, ["grid_hw", "(rows, cols)"]),
    (
        lambda: build_multimodal_attention_mask(1, [], [], (4, 4), rules="full"),
        ValueError,
        ["rules", "MaskRules"],
    ),
    (
        lambda: build_multimodal_attention_mask(1, [], [], (4, 4), layout_tokens=0),
        ValueError,
        ["layout_tokens", ">= 1"],
    ),
    (lambda: MaskRules(regional_layout=1), TypeError, ["MaskRules.regional_layout", "bool"]),
    (lambda: _call([(_IDS, _BOX)] * 4, []), ValueError, ["layout[0]", "max_layout=3"]),
    (lambda: _call([], [(_SPRITE, _REGION)] * 3), ValueError, ["subjects[0]", "max_subjects=2"]),
    (
        lambda: _call([], [(torch.zeros(3, 8, 8), _REGION)]),
        ValueError,
        ["subjects[0][0] image", "(3, 12, 12)", "(3, 8, 8)"],
    ),
    (
        lambda: _call([], [(torch.zeros(3, 10, 10), (0.0, 0.0, 0.3125, 0.3125))]),
        ValueError,
        ["subjects[0][0] region", "patch grid"],
    ),
    (lambda: _call([(torch.tensor([99]), _BOX)], []), ValueError, ["layout[0][0] desc_ids", "[0, 12)"]),
    (
        lambda: _call([(_IDS, (0.9, 0.0, 0.25, 0.25))], []),
        ValueError,
        ["layout[0][0] box", "inside the unit canvas"],
    ),
    (lambda: _call([], [], x=torch.zeros(1, 3, 16, 16)), ValueError, ["noisy_latent", "(B, 3, 32, 32)"]),
    (lambda: _dit(image_size=30), ValueError, ["image_size", "multiple of patch"]),
    (lambda: _dit(dim=18, heads=4), ValueError, ["dim", "multiple of heads"]),
    (lambda: ProceduralDesignDataset(4, 0, canvas=36), ValueError, ["canvas", "multiple of 8"]),
    (lambda: ProceduralDesignDataset(4, 0, max_layout=4), ValueError, ["max_layout", "<= 3"]),
    (
        lambda: frechet_distance(torch.zeros(5, 2).numpy(), torch.zeros(5, 3).numpy()),
        ValueError,
        ["feature arrays"],
    ),
]
