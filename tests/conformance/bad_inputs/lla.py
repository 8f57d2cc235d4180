"""Bad input to local linear attention and its layer (arXiv 2510.01450)."""

import torch

from iclr26.attention.lla import (
    LinearAttentionMixer,
    LocalLinearAttention,
    global_ridge,
    kernel_scores,
    linear_attention,
    linear_attention_mixer,
    lla,
    lla_weights,
    local_linear_attention,
    nadaraya_watson,
    ridge_coefficients,
)
from iclr26.attention.lla.claim_check import study_a_decider
from iclr26.attention.lla.study_a import draw

NAN, INF = float("nan"), float("inf")

Q = torch.randn(1, 2, 5, 3)
V = torch.randn(1, 2, 5, 4)

CASES = [
    (lambda: local_linear_attention(Q, Q, V, lam=-1.0), ValueError, ["lam", ">= 0"]),
    (lambda: local_linear_attention(Q, Q, V, lam=0.0), ValueError, ["lam = 0", "scaled", "singular"]),
    (lambda: local_linear_attention(Q, Q, V, lam=1.0, bandwidth=-0.5), ValueError, ["bandwidth", "> 0"]),
    (lambda: local_linear_attention(Q, torch.randn(1, 2, 5, 4), V, lam=1.0), ValueError, ["last dimension"]),
    (lambda: local_linear_attention(Q[0], Q[0], V[0], lam=1.0), ValueError, ["4-D"]),
    (
        lambda: local_linear_attention(Q, Q, V, lam=1.0, solver="cg", cg_maxiter=0),
        ValueError,
        ["cg_maxiter", ">= 1"],
    ),
    (lambda: local_linear_attention(Q, Q, V, lam=1.0, kernel="laplace"), ValueError, ["kernel"]),
    (lambda: local_linear_attention(Q, Q, V, lam=1.0, block_size=0), ValueError, ["block_size"]),
    (lambda: LocalLinearAttention(8, 2, lam_init=0.0), ValueError, ["lam_init", "(0, 700]"]),
    (lambda: LocalLinearAttention(8, 2)(torch.randn(2, 5, 7)), ValueError, ["x", "d_model=8"]),
    (lambda: global_ridge(Q[0, 0], Q[0, 0], V[0, 0], lam=-1.0), ValueError, ["lam", ">= 0"]),
    (
        lambda: local_linear_attention(Q, Q, V, lam=1.0, solver="cg", cg_tol=INF),
        ValueError,
        ["cg_tol", "finite"],
    ),
    (
        lambda: local_linear_attention(Q, Q, V, lam=1.0, score_bias=torch.zeros(3, 3)),
        ValueError,
        ["score_bias", "broadcast"],
    ),
    (
        lambda: local_linear_attention(Q, Q, V, lam=1.0, score_bias=torch.full((2, 5, 5), NAN)),
        ValueError,
        ["score_bias", "NaN"],
    ),
    (lambda: local_linear_attention(Q, Q, V, lam=torch.ones(3, 3)), ValueError, ["lam", "(B, H, Tq)"]),
    (lambda: lla_weights(Q, Q, lam=NAN), ValueError, ["lam", "finite"]),
    (lambda: kernel_scores(Q, torch.randn(1, 2, 5, 4)), ValueError, ["last dimension"]),
    (lambda: kernel_scores(Q.long(), Q.long()), TypeError, ["q", "floating-point"]),
    (lambda: ridge_coefficients(torch.zeros(2, 3), 1.0, block_size=0), ValueError, ["block_size", ">= 1"]),
    (lambda: ridge_coefficients(torch.full((2, 3), NAN), 1.0), ValueError, ["scores", "NaN"]),
    (lambda: ridge_coefficients(torch.full((2, 3), -INF), 1.0), ValueError, ["scores", "at least one key"]),
    (lambda: ridge_coefficients(torch.zeros(2, 0), 1.0), ValueError, ["scores", "Tk >= 1"]),
    (lambda: global_ridge(Q, Q, V, lam=True), ValueError, ["lam", "float"]),
    (
        lambda: global_ridge(Q[..., :1, :], Q[..., :1, :], V[..., :1, :], lam=0.0),
        ValueError,
        ["lam", "singular"],
    ),
    (lambda: global_ridge(Q.long(), Q.long(), V.long(), lam=1.0), TypeError, ["q", "floating-point"]),
    (lambda: linear_attention(Q, Q, V, scale=NAN), ValueError, ["scale", "finite"]),
    (lambda: linear_attention(Q, Q[..., :0, :], V[..., :0, :]), ValueError, ["k", "at least one"]),
    (lambda: nadaraya_watson(Q, Q, V, bandwidth=NAN), ValueError, ["bandwidth", "finite"]),
    (lambda: lla(Q, Q[..., :0, :], V[..., :0, :], lam=1.0), ValueError, ["k", "at least one"]),
    (lambda: LocalLinearAttention(8, 2, block_size=0), ValueError, ["block_size", ">= 1"]),
    (lambda: LocalLinearAttention(8, 2, lam_init=1e300), ValueError, ["lam_init", "(0, 700]"]),
    (lambda: local_linear_attention(Q, Q, V, lam="1"), TypeError, ["lam", "float"]),
    (lambda: local_linear_attention(Q, Q, V, lam=1.0, bandwidth=True), TypeError, ["bandwidth", "float"]),
    (lambda: draw("tanh_mlp", 3, 2, 4, 1, seed=0), ValueError, ["n", ">= 4"]),
    (lambda: draw("tanh_mlp", 8, 2.0, 4, 1, seed=0), ValueError, ["d", "int"]),
    (lambda: study_a_decider(("tanh_mlp",), ("ridge",), True), ValueError, ["n_draws", "int >= 1"]),
    (lambda: LinearAttentionMixer(8, 2, chunk_size=0), ValueError, ["chunk_size", ">= 1"]),
    (lambda: linear_attention_mixer(None), TypeError, ["spec", "BlockSpec"]),
]
