"""KLAS: KL-similarity-guided stitching of neural networks (arXiv 2605.29259, ICLR 2026).

"KLAS: Using Similarity to Stitch Neural Networks for Improved Accuracy-Efficiency Tradeoffs" (Sanyal, Iyer,
Khare, Jain, Jajoo, Lee, Kerce, Tumanov). Components: :class:`StitchedNet` (A's blocks 1..i, a linear stitch,
B's blocks j+1..n), :func:`fit_stitch_ls` (S = argmin ||S H_A,i - H_B,j||^2), :func:`kl_similarity_matrix`
(KL(softmax(H_B,j / T) || softmax(S H_A,i / T)), or via B's head), :func:`select_stitches` (lowest score per FLOPs
bin), FLOPs by ``FlopCounterMode``, and the baselines :func:`snnet_scores`, :func:`cka_similarity_matrix`,
:func:`random_scores`.
"""

from iclr26.inference.klas.anchors import (
    TinyCNN,
    TinyMixer,
    digits_data,
    make_anchor,
    nearest_centroid_accuracy,
    noisy_digits_data,
    train_anchor,
)
from iclr26.inference.klas.stitching import (
    StitchedNet,
    candidate_flops,
    cka_similarity_matrix,
    count_flops,
    fit_stitch_ls,
    kl_similarity_matrix,
    linear_cka,
    pareto_auc,
    random_scores,
    select_stitches,
    snnet_scores,
)

__all__ = [
    "StitchedNet",
    "TinyCNN",
    "TinyMixer",
    "candidate_flops",
    "cka_similarity_matrix",
    "count_flops",
    "digits_data",
    "fit_stitch_ls",
    "kl_similarity_matrix",
    "linear_cka",
    "make_anchor",
    "pareto_auc",
    "random_scores",
    "select_stitches",
    "snnet_scores",
    "nearest_centroid_accuracy",
    "noisy_digits_data",
    "train_anchor",
]
