"""COSMOS: A Hybrid Adaptive Optimizer for Memory-Efficient Training of LLMs (arXiv 2502.17410).

Liu, Xu, Zhang, Kang, Li, Liang, Chen, Zhao. COSMOS tracks the leading rank-r eigensubspace of each hidden
matrix's gradient second moment with one power-iteration step per update, runs a one-sided Adam (SOAP-like) in
that subspace and a Newton-Schulz orthogonalised (Muon-like) step on the remaining directions, then normalises the
sum to a fixed per-entry RMS. Non-matrix parameters take AdamW steps inside the same optimizer.
"""

from iclr26.lab.param_groups import split_param_groups, state_numel
from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig, TrainConfig, text_corpus, train
from iclr26.optim.cosmos.optimizer import COSMOS, NS5_COEFFICIENTS, cosmos_state_numel, newton_schulz5

# the brief's shared harness (tiny char-GPT, stdlib text, train loop, state accounting) lives in the lab and in
# iclr26.lab.param_groups; it is re-exported here under the brief's names
__all__ = [
    "COSMOS",
    "NS5_COEFFICIENTS",
    "TinyGPT",
    "TinyGPTConfig",
    "TrainConfig",
    "cosmos_state_numel",
    "newton_schulz5",
    "split_param_groups",
    "state_numel",
    "text_corpus",
    "train",
]
