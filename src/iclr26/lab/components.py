"""The lab's own entries in the component registry: the reference softmax attention, torch's AdamW and the
speculative-decoding loop's two lossless verifiers.

They run through the same batteries as the papers' components, so each battery is known to pass on a sound
reference. (torch's AdamW accepts complex parameters by viewing them as real and steps on a NaN gradient; its
options say so. :class:`~iclr26.lab.speculative.ExactMatchVerifier` is the greedy lossless rule,
:class:`~iclr26.lab.speculative.SamplingVerifier` the sampling one.)
"""

from __future__ import annotations

import torch

from iclr26.lab.registry import register
from iclr26.lab.speculative import ExactMatchVerifier, SamplingVerifier
from iclr26.lab.transformer import MultiHeadAttention

register(
    "mixer",
    "softmax-causal",
    MultiHeadAttention,
    lambda d_model: MultiHeadAttention(d_model, n_heads=2, d_head=d_model // 2, causal=True),
    paper="lab",
)
register(
    "mixer",
    "softmax-bidirectional",
    MultiHeadAttention,
    lambda d_model: MultiHeadAttention(d_model, 2, d_model // 2, causal=False),
    paper="lab",
    causal=False,
)
register(
    "optimizer",
    "AdamW",
    torch.optim.AdamW,
    lambda model: torch.optim.AdamW(model.parameters(), lr=1e-2),
    paper="lab",
    accepts_complex=True,
    refuses_nonfinite=False,
)
register(
    "verifier",
    "exact-match",
    ExactMatchVerifier,
    ExactMatchVerifier,
    paper="lab",
    lossless=True,
    greedy=True,
)
register("verifier", "sampling", SamplingVerifier, SamplingVerifier, paper="lab", lossless=True)
