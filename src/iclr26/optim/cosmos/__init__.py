"""COSMOS: A Hybrid Adaptive Optimizer for Memory-Efficient Training of LLMs (arXiv 2502.17410).

Liu, Xu, Zhang, Kang, Li, Liang, Chen, Zhao. COSMOS tracks the leading rank-r eigensubspace of each hidden
matrix's gradient second moment with one power-iteration step per update, runs a one-sided Adam (SOAP-like) in
that subspace and a Newton-Schulz orthogonalised (Muon-like) step on the remaining directions, then normalises the
sum to a fixed per-entry RMS. Non-matrix parameters take AdamW steps inside the same optimizer.
"""

from iclr26.optim.cosmos.optimizer import COSMOS, NS5_COEFFICIENTS, cosmos_state_numel, newton_schulz5

__all__ = ["COSMOS", "NS5_COEFFICIENTS", "cosmos_state_numel", "newton_schulz5"]
