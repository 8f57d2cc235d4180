"""Cactus: Accelerating Auto-Regressive Decoding with Constrained Acceptance Speculative Sampling.

Hao & Mou, ICLR 2026 (OpenReview ``lpUIkCAy9p``, arXiv 2604.04987). Speculative sampling is recast as
maximising acceptance under a divergence budget ``KL(h || q) <= delta`` from the verifier's distribution;
Cactus builds, for each drafted token, the closest such ``h`` that raises that token and runs the usual
accept/residual rule against it (``delta = 0`` is standard speculative sampling).
"""

from iclr26.inference.cactus.generate import LoopVerifier, TableLM, speculative_generate, target_sample
from iclr26.inference.cactus.verifiers import (
    BaseVerifier,
    CactusVerifier,
    InterpVerifier,
    SpSVerifier,
    TopKVerifier,
    TypicalVerifier,
    acceptance_probability,
    binary_kl,
    cactus_h,
    enumerate_rule,
    one_step_law,
    one_step_output_distribution,
)

__all__ = [
    "BaseVerifier",
    "CactusVerifier",
    "InterpVerifier",
    "LoopVerifier",
    "SpSVerifier",
    "TableLM",
    "TopKVerifier",
    "TypicalVerifier",
    "acceptance_probability",
    "binary_kl",
    "cactus_h",
    "enumerate_rule",
    "one_step_law",
    "one_step_output_distribution",
    "speculative_generate",
    "target_sample",
]
