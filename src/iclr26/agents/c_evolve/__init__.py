"""C-Evolve: "Consensus-based Evolution for Prompt Groups" (ICLR 2026, arXiv 2509.23331).

Li, Wang, Chen, Wang, Ma, Qi (Westlake University, MAPLE Lab). C-Evolve evolves a *group* of prompts whose
outputs are aggregated by majority vote: K islands (one group member each) evolve by softmax parent selection and
reflective LLM mutation; after a warm-up on individual scores, each individual's fitness becomes an EMA
(alpha 0.8) of its voting score, the mean consensus score of the sampled groups it sat in. Here: the loop on the
shared island engine (``iclr26.lab.evolution``), majority vote and the LLM-selection aggregator, the reflective
LLM mutator, the individual-fitness baselines (best single, post-hoc best of each island, post-hoc top-K), and
an offline substrate of decision-tree genomes on bundled scikit-learn data.

Example
-------
>>> from iclr26.agents.c_evolve import CEvolve, FunctionMutator, TreeWorld, mutate_tree
>>> w = TreeWorld("wine", seed=0)
>>> res = CEvolve(w.evaluate, FunctionMutator(mutate_tree), w.metric, seed=0).run(30, init=w.seed_genome)
>>> len(res.best_group), res.evaluations
(3, 31)
"""

from iclr26.agents.c_evolve.cevolve import (
    CEvolve,
    CEvolveResult,
    FunctionMutator,
    Individual,
    Island,
    distinct_island_best,
    ema_update,
    majority_vote,
    voting_scores,
)
from iclr26.agents.c_evolve.llm import LLMAggregator, LLMReflectiveMutator, parse_prompt
from iclr26.agents.c_evolve.trees import TreeWorld, mutate_tree

Result = CEvolveResult

__all__ = [
    "CEvolve", "CEvolveResult", "FunctionMutator", "Individual", "Island", "LLMAggregator", "LLMReflectiveMutator",
    "Result", "TreeWorld", "distinct_island_best", "ema_update", "majority_vote", "mutate_tree", "parse_prompt", "voting_scores",
]  # fmt: skip
