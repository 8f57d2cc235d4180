"""dParallel: Learnable Parallel Decoding for dLLMs (Chen, Fang, Ma, Yu, Wang; ICLR 2026).

arXiv 2509.26488, OpenReview hVOcstAURb. Certainty-forcing self-distillation of a masked diffusion LM
(semi-AR block masking, masked cross-entropy plus a tempered entropy penalty on correctly predicted masked
tokens) and the entropy- / confidence-threshold parallel decoders it enables.

Public API: :func:`semi_ar_masks`, :func:`certainty_forcing_loss`, :class:`CertaintyForcingTrainer`,
:func:`generate` / :func:`decode` (fixed steps, entropy threshold, confidence threshold),
:func:`self_distill_dataset`, the :class:`MaskedDiffusionLM` protocol and :class:`HFMaskedDiffusionAdapter`.
"""

from iclr26.inference.dparallel.certainty import (
    CertaintyForcingTrainer,
    DistillResult,
    certainty_forcing_loss,
    semi_ar_masks,
    tempered_entropy,
)
from iclr26.inference.dparallel.decoding import (
    DecodeResult,
    decode,
    generate,
    predictive_entropy,
    transfer_schedule,
)
from iclr26.inference.dparallel.distill import DistillDataset, self_distill_dataset
from iclr26.inference.dparallel.models import LLADA_MASK_ID, HFMaskedDiffusionAdapter, MaskedDiffusionLM
from iclr26.inference.dparallel.task import SymbolTask

__all__ = [
    "LLADA_MASK_ID",
    "CertaintyForcingTrainer",
    "DecodeResult",
    "DistillDataset",
    "DistillResult",
    "HFMaskedDiffusionAdapter",
    "MaskedDiffusionLM",
    "SymbolTask",
    "certainty_forcing_loss",
    "decode",
    "generate",
    "predictive_entropy",
    "self_distill_dataset",
    "semi_ar_masks",
    "tempered_entropy",
    "transfer_schedule",
]
