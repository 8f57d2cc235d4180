"""Bad input to HDLA's decay terms, the shared core as re-exported by HDLA, and the HDLA mixer."""

import torch

from iclr26.attention.hdla import (
    DeltaProductMixer,
    GatedDeltaNetMixer,
    GLAMixer,
    HDLAAttention,
    RankGeneralizedMixer,
    hdla_decay_terms,
    rank_generalized_chunk,
    rank_generalized_recurrence,
    transition_matrices,
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
    (lambda: HDLAAttention(8, 2, eps=float("inf")), ValueError, ["eps", "finite"]),
    (lambda: GatedDeltaNetMixer(8, 2, eps=float("nan")), ValueError, ["eps", "finite"]),
    (lambda: DeltaProductMixer(8, 2, chunk_size=True), ValueError, ["chunk_size", "int"]),
    (lambda: GLAMixer(8, 2, lower_bound=float("nan")), ValueError, ["lower_bound", "[0, 1)"]),
    (
        lambda: HDLAAttention(8, 2)(torch.ones(1, 3, 8), state=torch.zeros(1, 2, 4, 4).long()),
        TypeError,
        ["state", "floating-point"],
    ),
    (lambda: RankGeneralizedMixer(8, 2)(torch.ones(1, 3, 8)), NotImplementedError, ["core_inputs"]),
    (lambda: HDLAAttention(8, 2, conv_size=-1), ValueError, ["conv_size", ">= 0"]),
    (
        lambda: HDLAAttention(8, 2, conv_size=3)(torch.ones(1, 3, 8), state=torch.zeros(1, 2, 4, 4)),
        ValueError,
        ["state", "pair"],
    ),
    (
        lambda: GatedDeltaNetMixer(8, 2, conv_size=3)(
            torch.ones(1, 3, 8), state=(torch.zeros(1, 2, 4, 4), torch.zeros(1, 3, 24))
        ),
        ValueError,
        ["conv_cache", "shape"],
    ),
    (lambda: hdla_decay_terms(KH * 3, F_, BETA), ValueError, ["k_hat", "unit-norm"]),
    (
        lambda: hdla_decay_terms(torch.full_like(KH, float("nan")), F_, BETA),
        ValueError,
        ["k_hat", "unit-norm"],
    ),
    (lambda: hdla_decay_terms(KH.long(), F_, BETA), TypeError, ["k_hat", "floating-point"]),
    (lambda: transition_matrices(F_.log() + 1, A, BB, r_ab=2), ValueError, ["log_f", "<= 0"]),
    (
        lambda: transition_matrices(torch.full_like(F_, float("nan")), A, BB, r_ab=2),
        ValueError,
        ["log_f", "NaN"],
    ),
    (lambda: transition_matrices(F_.log(), [1.0], BB, r_ab=2), TypeError, ["a", "torch.Tensor"]),
    (lambda: transition_matrices(F_.log()[0], A, BB, r_ab=2), ValueError, ["log_f", "4-D"]),
]
