"""Bad input to local linear attention and its layer (arXiv 2510.01450)."""

import torch

from iclr26.attention.lla import LocalLinearAttention, global_ridge, local_linear_attention

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
    (lambda: LocalLinearAttention(8, 2, lam_init=0.0), ValueError, ["lam_init", "> 0"]),
    (lambda: LocalLinearAttention(8, 2)(torch.randn(2, 5, 7)), ValueError, ["x", "d_model=8"]),
    (lambda: global_ridge(Q[0, 0], Q[0, 0], V[0, 0], lam=-1.0), ValueError, ["lam", ">= 0"]),
]
