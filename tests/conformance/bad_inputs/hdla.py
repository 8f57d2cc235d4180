"""Bad input to HDLA's decay terms, the shared core as re-exported by HDLA, and the HDLA mixer."""

import torch

from iclr26.attention.hdla import (
    HDLAAttention,
    hdla_decay_terms,
    rank_generalized_chunk,
    rank_generalized_recurrence,
)

B, T, H, D = 1, 4, 2, 3
KH = torch.nn.functional.normalize(torch.randn(B, T, H, D), dim=-1)
F_ = torch.full((B, T, H, D), 0.5)
BETA = torch.full((B, T, H), 1.0)
Q = torch.randn(B, T, H, D)
A, BB = hdla_decay_terms(KH, F_, BETA)


def core(fn=rank_generalized_chunk, **change):
    args = {"q": Q, "k": KH, "v": Q, "a": A, "b": BB, "log_f": F_.log(), "r_ab": 2, "r_kv": 1} | change
    return fn(**args)


CASES = [
    (lambda: hdla_decay_terms(KH, F_, torch.full((B, T, H), 2.5)), ValueError, ["beta", "[0, 2]"]),
    (lambda: hdla_decay_terms(KH, F_, torch.full((B, T, H), -0.1)), ValueError, ["beta", "[0, 2]"]),
    (lambda: hdla_decay_terms(KH, torch.full((B, T, H, D), 1.5), BETA), ValueError, ["f", "(0, 1]"]),
    (lambda: hdla_decay_terms(KH, F_, torch.ones(B, T)), ValueError, ["beta", "shape"]),
    (lambda: hdla_decay_terms(KH, F_[..., :2], BETA), ValueError, ["f", "shape"]),
    (lambda: core(a=A[:, :-1], b=BB[:, :-1]), ValueError, ["a", "T*r_ab"]),
    (lambda: core(r_ab=-1), ValueError, ["r_ab", ">= 0"]),
    (lambda: core(r_kv=0), ValueError, ["r_kv", ">= 1"]),
    (lambda: core(chunk_size=0), ValueError, ["chunk_size", ">= 1"]),
    (lambda: core(fn=rank_generalized_recurrence, log_f=F_.log() + 1.0), ValueError, ["log_f", "<= 0"]),
    (lambda: core(log_f=torch.full_like(F_, float("nan"))), ValueError, ["log_f", "<= 0", "nan"]),
    (lambda: core(log_f=torch.full_like(F_, float("-inf"))), ValueError, ["log_f", "finite", "-1e4"]),
    (lambda: core(log_f=F_.log() + 1.0), ValueError, ["log_f", "<= 0"]),
    (lambda: core(k=torch.randn(B, T, H + 1, D)), ValueError, ["k", "shape"]),
    (lambda: HDLAAttention(8, 2, lower_bound=1.5), ValueError, ["lower_bound", "[0, 1)"]),
    (lambda: HDLAAttention(8, 0), ValueError, ["n_heads", ">= 1"]),
    (lambda: HDLAAttention(8, 2)(torch.randn(2, 8)), ValueError, ["x", "shape"]),
]
