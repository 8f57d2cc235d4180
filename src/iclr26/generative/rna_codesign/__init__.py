"""RNA sequence-structure co-design with a pretrained RoseTTAFold2NA denoiser (working title; ICLR 2026).

Only the abstract is known: RF2NA as the denoiser of a joint model - masked discrete diffusion over the
nucleotide sequence plus SE(3) diffusion over per-nucleotide frames - gives more self-consistent co-designs than
diffusion/flow baselines trained from scratch, and inference-time RL improves them further. This package holds
the joint diffusion (:class:`CoDesignDiffusion`), its schedules and losses, the denoiser protocol with a tiny
SE(3)-equivariant transformer (:class:`TinyFrameTransformer`) and an RF2NA stub, KL-regularised REINFORCE
(:func:`rl_finetune`), SO(3) utilities (IGSO(3) sampler, exp/log), the coarse 3D builder, folding oracles
(Nussinov, a nearest-neighbour "zuker-lite" MFE, optional ViennaRNA) and the self-consistency metrics.
"""

from iclr26.generative.rna_codesign.diffusion import (
    CoDesignDiffusion,
    CoDesignSample,
    FrameSchedule,
    SequenceSchedule,
    frame_loss,
    pair_distance_loss,
    rl_finetune,
    train_codesign,
)
from iclr26.generative.rna_codesign.folding import (
    NUCLEOTIDES,
    decode,
    encode,
    fold,
    nussinov,
    stem_loop_sequences,
    structure_energy,
    vienna_available,
    zuker_lite,
)
from iclr26.generative.rna_codesign.geometry import (
    atoms_from_frames,
    base_pair_f1,
    build_coarse_3d,
    check_rotations,
    d0_rna,
    dot_bracket_to_pairs,
    frames_from_atoms,
    igso3_angle_density,
    igso3_sample,
    kabsch,
    kabsch_batch,
    pairs_from_frames,
    pairs_to_dot_bracket,
    random_rotations,
    rmsd,
    so3_exp,
    so3_log,
    tm_score,
)
from iclr26.generative.rna_codesign.metrics import self_consistency, sequence_diversity
from iclr26.generative.rna_codesign.model import Denoiser, RF2NAAdapter, TinyFrameTransformer

__all__ = [
    "NUCLEOTIDES",
    "CoDesignDiffusion",
    "CoDesignSample",
    "Denoiser",
    "FrameSchedule",
    "RF2NAAdapter",
    "SequenceSchedule",
    "TinyFrameTransformer",
    "atoms_from_frames",
    "base_pair_f1",
    "build_coarse_3d",
    "check_rotations",
    "d0_rna",
    "decode",
    "dot_bracket_to_pairs",
    "encode",
    "fold",
    "frame_loss",
    "frames_from_atoms",
    "igso3_angle_density",
    "igso3_sample",
    "kabsch",
    "kabsch_batch",
    "nussinov",
    "pair_distance_loss",
    "pairs_from_frames",
    "pairs_to_dot_bracket",
    "random_rotations",
    "rl_finetune",
    "rmsd",
    "self_consistency",
    "sequence_diversity",
    "so3_exp",
    "so3_log",
    "stem_loop_sequences",
    "structure_energy",
    "tm_score",
    "train_codesign",
    "vienna_available",
    "zuker_lite",
]
