"""Signed-Segregation: "Feature segregation by signed weights in artificial vision systems and biological models".

ICLR 2026, OpenReview lnTX3GoeTY. Dale index of weight signs, sign-split readout pathways, graded ablation by
cumulative weight magnitude, Fourier-parametrised feature visualisation and object-mask attribution measures on a
generated digits-on-texture data set with a small CNN zoo.
"""

from iclr26.mechanisms.dale_signed_weights import dale
from iclr26.mechanisms.dale_signed_weights.dale import (
    ablate_readout,
    dale_index,
    feature_viz,
    graded_ablation,
    input_attribution,
    mask_fraction,
    random_sign_split,
    sign_split_logits,
    signed_dale_index,
    spatial_spread,
    spectral_centroid,
)
from iclr26.mechanisms.dale_signed_weights.data import TextureDigits, make_texture_digits
from iclr26.mechanisms.dale_signed_weights.zoo import SmallCNN, ZooConfig, accuracy, pgd_attack, train_cnn

__all__ = [
    "SmallCNN",
    "TextureDigits",
    "ZooConfig",
    "ablate_readout",
    "accuracy",
    "dale",
    "dale_index",
    "feature_viz",
    "graded_ablation",
    "input_attribution",
    "make_texture_digits",
    "mask_fraction",
    "pgd_attack",
    "random_sign_split",
    "sign_split_logits",
    "signed_dale_index",
    "spatial_spread",
    "spectral_centroid",
    "train_cnn",
]
