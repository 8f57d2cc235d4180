"""ENS: An Ensemble Framework for Unbiased Language Model Watermarking (Wu, Chen, Milis, Huang; ICLR 2026).

OpenReview iZ7i2y1YxO, arXiv 2509.24043. n unbiased reweighting watermarks (DiPmark or gamma-reweight), each
with its own secret key, are composed sequentially on the next-token distribution; the composition stays
unbiased over the keys, and a detector that adds the green counts of all n keys needs fewer tokens.

Public API: :class:`ENSLogitsProcessor` (HF ``LogitsProcessor``), :class:`ENSDetector`,
:class:`DiPmarkReweight`, :class:`GammaReweight`, :class:`KGWLogitsProcessor` (biased reference), the attacks
:func:`substitution_attack`, :func:`smoothing_attack`, :func:`paraphrase_attack`.
"""

from iclr26.inference.ens_watermark.attacks import (
    paraphrase_attack,
    regenerate_tokens,
    smoothing_attack,
    substitution_attack,
)
from iclr26.inference.ens_watermark.detector import DetectionResult, ENSDetector
from iclr26.inference.ens_watermark.keys import KeyedPermutations, context_seed, keyed_permutation
from iclr26.inference.ens_watermark.processor import (
    ENSLogitsProcessor,
    KGWLogitsProcessor,
    ens_distribution,
    make_reweight,
)
from iclr26.inference.ens_watermark.reweight import DiPmarkReweight, GammaReweight, dipmark_cdf

__all__ = [
    "DetectionResult",
    "DiPmarkReweight",
    "ENSDetector",
    "ENSLogitsProcessor",
    "GammaReweight",
    "KGWLogitsProcessor",
    "KeyedPermutations",
    "context_seed",
    "dipmark_cdf",
    "ens_distribution",
    "keyed_permutation",
    "make_reweight",
    "paraphrase_attack",
    "regenerate_tokens",
    "smoothing_attack",
    "substitution_attack",
]
