"""Bad input to the RNA co-design components (joint sequence + frame diffusion, geometry, folding, metrics)."""

import torch

from iclr26.generative.rna_codesign import (
    CoDesignDiffusion,
    FrameSchedule,
    SequenceSchedule,
    TinyFrameTransformer,
    build_coarse_3d,
    check_rotations,
    d0_rna,
    decode,
    encode,
    fold,
    igso3_sample,
    nussinov,
    rl_finetune,
    self_consistency,
    sequence_diversity,
    so3_exp,
    structure_energy,
)

_MODEL = CoDesignDiffusion(TinyFrameTransformer(8, 1, 2, 4))
_R, _P = build_coarse_3d("((((....))))")
_BATCH = {"tokens": encode("GGGGAAAACCCC")[None], "rots": _R[None].float(), "trans": _P[None].float()}
_SHEAR = _R.clone()
_SHEAR[0, 0, 1] += 0.1

CASES = [
    (lambda: encode("ACGT"), ValueError, ["seq", "nucleotides", "T"]),
    (lambda: encode("ACGX"), ValueError, ["seq", "X"]),
    (lambda: encode(123), TypeError, ["seq", "str"]),
    (lambda: decode(torch.tensor([0, 4])), ValueError, ["ids", "[0, 4)"]),
    (lambda: build_coarse_3d("((..)"), ValueError, ["dot_bracket", "unbalanced", "never closed"]),
    (lambda: build_coarse_3d("(..))"), ValueError, ["dot_bracket", "unbalanced", "closes nothing"]),
    (lambda: build_coarse_3d("((..[]))"), ValueError, ["dot_bracket", "["]),
    (lambda: build_coarse_3d("(((...)))", jitter=-1.0), ValueError, ["jitter", ">= 0"]),
    (lambda: check_rotations("rots", _SHEAR), ValueError, ["rots", "rotation matrices", "det"]),
    (lambda: check_rotations("rots", 2 * _R), ValueError, ["rots", "orthonormal"]),
    (
        lambda: _MODEL.loss({**_BATCH, "rots": _SHEAR[None].float()}),
        ValueError,
        ["rots", "rotation matrices"],
    ),
    (
        lambda: _MODEL.loss({**_BATCH, "tokens": encode("GGGGAAAACCC")[None]}),
        ValueError,
        ["frames", "length 11"],
    ),
    (lambda: _MODEL.loss({**_BATCH, "tokens": torch.full((1, 12), 4)}), ValueError, ["tokens", "[0, 4)"]),
    (lambda: _MODEL.loss(_BATCH, mode="inverse"), ValueError, ["mode", "'fold'"]),
    (lambda: _MODEL.sample(0, 12), ValueError, ["n", ">= 1"]),
    (lambda: _MODEL.sample(2, 12, steps=0), ValueError, ["steps", ">= 1"]),
    (
        lambda: _MODEL.sample(2, 12, cond={"tokens": torch.zeros(10, dtype=torch.long)}),
        ValueError,
        ["cond['tokens']", "shape"],
    ),
    (lambda: _MODEL.chain_log_prob(_MODEL.sample(2, 6, steps=1)), ValueError, ["keep_states=True"]),
    (lambda: CoDesignDiffusion(3), TypeError, ["denoiser", "callable"]),
    (lambda: SequenceSchedule("quadratic"), ValueError, ["kind", "'linear'"]),
    (lambda: FrameSchedule(scale=0.0), ValueError, ["scale", "> 0"]),
    (lambda: FrameSchedule(rotation="uniform"), ValueError, ["rotation", "'igso3'"]),
    (lambda: TinyFrameTransformer(d_model=30, n_heads=4), ValueError, ["d_model", "divisible"]),
    (lambda: rl_finetune(_MODEL, lambda s: 0, kl_coef=-1.0), ValueError, ["kl_coef", ">= 0"]),
    (lambda: rl_finetune(_MODEL, None, steps=1), TypeError, ["reward_fn", "callable"]),
    (lambda: igso3_sample(3, 0.0), ValueError, ["eps", "> 0"]),
    (lambda: so3_exp(torch.zeros(2, 4)), ValueError, ["w", "last dimension of 3"]),
    (lambda: d0_rna(0), ValueError, ["length", ">= 1"]),
    (lambda: fold("ACGU", engine="mfold"), ValueError, ["engine", "'zuker-lite'"]),
    (lambda: nussinov("ACGU", min_loop=-1), ValueError, ["min_loop", ">= 0"]),
    (lambda: structure_energy("ACGUAC", "((..))."), ValueError, ["same length", "6", "7"]),
    (lambda: sequence_diversity(torch.zeros(1, 5, dtype=torch.long)), ValueError, ["tokens", "at least 2"]),
    (
        lambda: self_consistency(
            torch.zeros(2, 5, dtype=torch.long), _R[None].expand(2, 12, 3, 3), torch.zeros(2, 12, 3)
        ),
        ValueError,
        ["tokens", "must agree"],
    ),
]
