"""FLy: Training-Free Loosely Speculative Decoding: Accepting Semantically Correct Drafts Beyond Exact Match.

ICLR 2026, OpenReview ``JjoTg34YiU``, arXiv 2511.22972. Greedy speculative decoding whose verifier forgives a
draft/target mismatch when the target is uncertain there (top-3 entropy gate) and the target agrees with the
next ``W - 1`` drafted tokens (deferred window); a prompt-lookup level speeds up the drafter losslessly.
"""

from iclr26.inference.fly.core import (
    FlyStats,
    FlyVerifier,
    NgramDrafter,
    generate,
    ngram_propose,
    top_k_entropy,
    verify,
)

__all__ = ["FlyStats", "FlyVerifier", "NgramDrafter", "generate", "ngram_propose", "top_k_entropy", "verify"]
