"""MASS: "Multi-Agent Design: Optimizing Agents with Better Prompts and Topologies" (ICLR 2026, arXiv 2502.02533).

Zhou, Wan, Sun, Palangi, Iqbal, Vulić, Korhonen, Arık (Google, Cambridge). MASS searches multi-agent workflows
in three stages: block-level prompt optimization (MIPRO on the predictor, then on each block's extra agents,
recording each block's influence), pruned topology search (blocks switched on with probability
softmax(influence / t), agent cap 10), and workflow-level prompt optimization. Here: the blocks and their
canonical composition (over any chat backend), MIPROLike with a categorical TPE, the MASS search and its
baselines, an offline ``SimulatedLLM`` world, and an endpoint path (``python -m iclr26.agents.mass --llm``).
The search rides on the shared evolutionary core (``iclr26.lab.evolution``: budgets, evaluators, softmax).

Example
-------
>>> from iclr26.agents.mass import MASS, SimulatedLLM, Workflow, Aggregate, Reflect, evaluate, default_prompts
>>> llm = SimulatedLLM(0, n_train=12, n_val=20, n_test=40)
>>> prompts = default_prompts(llm)
>>> acc = evaluate(Workflow([Aggregate(3), Reflect(1)]), prompts, llm, llm.test, seed=0)
>>> 0.0 <= acc <= 1.0
True
"""

from iclr26.agents.mass.apo import SAMPLERS, APOResult, MIPROLike, tpe_suggest
from iclr26.agents.mass.blocks import (
    BLOCK_NAMES,
    Aggregate,
    Block,
    Debate,
    Executor,
    Predictor,
    Reflect,
    Summarize,
    Workflow,
    ground_truth_tests,
)
from iclr26.agents.mass.items import ItemSet, arithmetic_items
from iclr26.agents.mass.prompts import ROLES, ChatOps, Demo, PromptConfig, parse_letter, parse_verdict
from iclr26.agents.mass.search import (
    MASS,
    default_prompts,
    evaluate,
    manual_baselines,
    random_joint_search,
    random_search,
    sample_topology,
    topology_only_search,
)
from iclr26.agents.mass.simulated import SimulatedLLM, majority_vote
from iclr26.lab.llm import LLMBackend, OpenAICompatibleBackend, ScriptedBackend

__all__ = [
    "BLOCK_NAMES", "MASS", "ROLES", "SAMPLERS", "APOResult", "Aggregate", "Block", "ChatOps", "Debate", "Demo",
    "Executor", "ItemSet", "LLMBackend", "MIPROLike", "OpenAICompatibleBackend", "Predictor", "PromptConfig",
    "Reflect", "ScriptedBackend", "SimulatedLLM", "Summarize", "Workflow", "arithmetic_items", "default_prompts",
    "evaluate", "ground_truth_tests", "majority_vote", "manual_baselines", "parse_letter", "parse_verdict",
    "random_joint_search", "random_search", "sample_topology", "topology_only_search", "tpe_suggest",
]  # fmt: skip
