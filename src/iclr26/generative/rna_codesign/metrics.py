"""Self-consistency of co-designed RNAs: refold the sequence, rebuild its geometry, compare with the generated one.

For each sample: fold its sequence (:func:`~iclr26.generative.rna_codesign.folding.fold`), build the coarse 3D
model of that structure (:func:`~iclr26.generative.rna_codesign.geometry.build_coarse_3d`, no jitter), then
TM-score (RNA-align d0) and RMSD of the generated C4' positions against it, and the base-pair F1 between the pairs
read off the generated frames and the refolded pairs. Diversity is 1 - mean pairwise sequence identity.
"""

from __future__ import annotations

import numpy as np
import torch

from iclr26.checks import check_tensor
from iclr26.generative.rna_codesign.folding import decode, fold
from iclr26.generative.rna_codesign.geometry import (
    base_pair_f1,
    build_coarse_3d,
    dot_bracket_to_pairs,
    pairs_from_frames,
    rmsd,
    tm_score,
)

__all__ = ["self_consistency", "sequence_diversity"]


def self_consistency(
    tokens: torch.Tensor, rots: torch.Tensor, trans: torch.Tensor, engine: str = "auto"
) -> dict:
    """Per-sample arrays ``tm``, ``rmsd``, ``bp_f1`` and the lists ``seqs``, ``folds`` (positions in A)."""
    check_tensor("tokens", tokens, ndim=2, floating=False)
    check_tensor("rots", rots, floating=True, finite=True, shape=(None, None, 3, 3))
    check_tensor("trans", trans, floating=True, finite=True, shape=(None, None, 3))
    if tokens.shape != trans.shape[:2] or rots.shape[:2] != tokens.shape:
        raise ValueError(
            f"tokens (n, L), rots (n, L, 3, 3) and trans (n, L, 3) must agree; got {tuple(tokens.shape)}, "
            f"{tuple(rots.shape)}, {tuple(trans.shape)}"
        )
    seqs = [decode(row) for row in tokens]
    folds = fold(seqs, engine)
    tm, rm, f1 = [], [], []
    for k, db in enumerate(folds):
        _, p_ref = build_coarse_3d(db)
        p = trans[k].double()
        tm.append(tm_score(p, p_ref))
        rm.append(rmsd(p, p_ref))
        f1.append(base_pair_f1(pairs_from_frames(rots[k], trans[k]), dot_bracket_to_pairs(db)))
    return {"tm": np.array(tm), "rmsd": np.array(rm), "bp_f1": np.array(f1), "seqs": seqs, "folds": folds}


def sequence_diversity(tokens: torch.Tensor) -> float:
    """1 - mean pairwise identity (fraction of equal positions) over all pairs of rows of (n, L) tokens."""
    check_tensor("tokens", tokens, ndim=2, floating=False)
    n = tokens.shape[0]
    if n < 2:
        raise ValueError(f"tokens must hold at least 2 sequences for a diversity, got {n}")
    same = (tokens[:, None, :] == tokens[None, :, :]).double().mean(-1)
    off = same.sum() - same.diagonal().sum()
    return float(1.0 - off / (n * (n - 1)))
