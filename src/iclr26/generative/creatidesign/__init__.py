"""CreatiDesign: A Unified Multi-Conditional Diffusion Transformer for Creative Graphic Design.

Zhang, Hong, Yang, Cheng, Zhang, ..., Wu, Jiang; ICLR 2026, OpenReview Wtda8HpVp2, arXiv 2505.19114. A global
prompt, subject images and a semantic layout share one token sequence of an MM-DiT; a multimodal attention mask
lets each condition act only on its own region. Here: the mask builder, a tiny multi-condition DiT trained with
rectified flow on procedural Pillow designs, and crop-classifier evaluators of layout adherence and leakage.
"""

from iclr26.generative.creatidesign.data import Design, ProceduralDesignDataset, render_sprite
from iclr26.generative.creatidesign.evaluators import (
    CropClassifier,
    background_accuracy,
    crop_boxes,
    frechet_distance,
    layout_scores,
    subject_fidelity,
    train_crop_classifier,
)
from iclr26.generative.creatidesign.masks import (
    MaskRules,
    box_token_mask,
    build_multimodal_attention_mask,
    sequence_layout,
)
from iclr26.generative.creatidesign.model import (
    MultiConditionDiT,
    fourier_box_embedding,
    rectified_flow_loss,
    sample_euler,
)

__all__ = [
    "CropClassifier",
    "Design",
    "MaskRules",
    "MultiConditionDiT",
    "ProceduralDesignDataset",
    "background_accuracy",
    "box_token_mask",
    "build_multimodal_attention_mask",
    "crop_boxes",
    "fourier_box_embedding",
    "frechet_distance",
    "layout_scores",
    "rectified_flow_loss",
    "render_sprite",
    "sample_euler",
    "sequence_layout",
    "subject_fidelity",
    "train_crop_classifier",
]
