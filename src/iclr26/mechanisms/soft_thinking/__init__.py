"""LLMs are Single-threaded Reasoners: Demystifying the Working Mechanism of Soft Thinking (Wu et al., ICLR 2026).

arXiv 2508.03440, OpenReview ASLuOoP78o. Soft-thinking decoders over any causal LM that takes input embeddings
(vanilla soft thinking, Dirichlet and Gumbel-Softmax randomised soft thinking, with greedy and sampling
baselines: :func:`soft_decode`), the paper's probes (:mod:`~iclr26.mechanisms.soft_thinking.soft_probes`:
top-1 dominance by JS divergence, layer-wise logit-lens overlap, and a counterfactual swap test), and the
synthetic multi-path reasoning testbed (layered-DAG path finding and modular chains) with its tiny GPT.
"""

from iclr26.mechanisms.soft_thinking import soft_probes
from iclr26.mechanisms.soft_thinking.decode import (
    MODES,
    SoftDecodeResult,
    SoftStep,
    as_embedding_lm,
    dirichlet_weights,
    gumbel_weights,
    mix_embeddings,
    soft_decode,
    soft_weights,
)
from iclr26.mechanisms.soft_thinking.soft_probes import (
    DominanceProbe,
    js_divergence,
    layer_overlap,
    swap_test,
    top1_dominance,
)
from iclr26.mechanisms.soft_thinking.task import (
    END,
    EOS,
    VOCAB_SIZE,
    Problem,
    TrainConfig,
    check_answer,
    dag_problem,
    make_problems,
    mod_problem,
    shortest_paths,
    trained_model,
    training_batch,
)

__all__ = [
    "END",
    "EOS",
    "MODES",
    "VOCAB_SIZE",
    "DominanceProbe",
    "Problem",
    "SoftDecodeResult",
    "SoftStep",
    "TrainConfig",
    "as_embedding_lm",
    "check_answer",
    "dag_problem",
    "dirichlet_weights",
    "gumbel_weights",
    "js_divergence",
    "layer_overlap",
    "make_problems",
    "mix_embeddings",
    "mod_problem",
    "shortest_paths",
    "soft_decode",
    "soft_probes",
    "soft_weights",
    "swap_test",
    "top1_dominance",
    "trained_model",
    "training_batch",
]
