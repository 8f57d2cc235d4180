"""HDLA: Householder-Diagonalized Linear Attention (ICLR 2026, OpenReview HVFjzaQeig).

HDLA replaces the diagonal or diagonal-plus-rank-1 decay of gated linear attention by a Householder congruence
``P_t = H_t diag(f_t) H_t`` with ``H_t = I - beta_t k_t k_t^T``, a symmetric diagonal-plus-rank-2 transition
with eigenvalues in (-1, 1). The chunk-wise algorithm for any diagonal-plus-rank-r transition lives in
:mod:`iclr26.lab.linear_attention` and is re-exported here.

Public API
----------
* :func:`rank_generalized_recurrence`, :func:`rank_generalized_chunk` — the step-by-step oracle and the
  chunk-wise form (shared lab code).
* :func:`hdla_decay_terms` — the rank-2 factors ``(a, b)`` of HDLA's transition; :func:`transition_matrices`
  materialises ``P_t`` for checks.
* :class:`HDLAAttention` — the mixer (batch, seq, d_model) -> same, with ``step()`` for cached decoding.
* Baselines on the same core: :class:`GatedDeltaNetMixer`, :class:`GLAMixer`, :class:`DeltaNetMixer`,
  :class:`DeltaProductMixer`.
"""

from iclr26.attention.hdla.decay import hdla_decay_terms, transition_matrices
from iclr26.attention.hdla.mixers import (
    DeltaNetMixer,
    DeltaProductMixer,
    GatedDeltaNetMixer,
    GLAMixer,
    HDLAAttention,
    RankGeneralizedMixer,
)
from iclr26.lab.linear_attention import rank_generalized_chunk, rank_generalized_recurrence

__all__ = [
    "DeltaNetMixer",
    "DeltaProductMixer",
    "GLAMixer",
    "GatedDeltaNetMixer",
    "HDLAAttention",
    "RankGeneralizedMixer",
    "hdla_decay_terms",
    "rank_generalized_chunk",
    "rank_generalized_recurrence",
    "transition_matrices",
]
