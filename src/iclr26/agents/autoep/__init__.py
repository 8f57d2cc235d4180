"""AutoEP: "LLMs-Driven Automation of Hyperparameter Evolution for Metaheuristic Algorithms" (ICLR 2026,
arXiv 2509.23189).

Xu, Zhang, Bao, Wang, Chen, Ye, Jiang, Yan, Wang. Every K generations a metaheuristic's search state is summarised
by online Exploratory Landscape Analysis (ELA) features, and a chain of three zero-shot LLMs (analysis ->
decision -> parameter generation) outputs its new hyperparameters. Here: the ELA features (``ela.features``), the
controllers (the LLM chain over any :class:`~iclr26.lab.llm.LLMBackend`, its no-ELA ablation, a deterministic
rule transcription, fixed / random / schedule baselines) and a TSP GA on the shared evolutionary core
(``iclr26.lab.evolution.generational_step``) whose (pc, pm) the controller sets.

Example
-------
>>> import numpy as np
>>> from iclr26.agents.autoep import GATSP, RuleChainController, random_instance, run_controlled
>>> coords = random_instance(20, np.random.default_rng(0))
>>> run = run_controlled(GATSP(coords, 20, seed=0), RuleChainController(), 30, K=10)
>>> run.best[-1] <= run.best[0], len(run.rounds)
(True, 3)
"""

from iclr26.agents.autoep import ela
from iclr26.agents.autoep.controllers import (
    GA_RANGES,
    PROMPTS,
    Controller,
    FixedController,
    LLMChainController,
    NoELAChainController,
    RandomController,
    RuleChainController,
    ScheduleController,
    check_ranges,
    clip_theta,
    parse_theta,
)
from iclr26.agents.autoep.ela import FEATURE_NAMES, ELAState, edge_distance, features
from iclr26.agents.autoep.ga import GATSP, ControlledRun, run_controlled
from iclr26.agents.autoep.tsp import (
    distance_matrix,
    greedy_tour,
    inversion_mutation,
    order_crossover,
    random_instance,
    reference_length,
    tour_length,
    two_opt,
)

__all__ = [
    "FEATURE_NAMES", "GATSP", "GA_RANGES", "PROMPTS", "ControlledRun", "Controller", "ELAState", "FixedController",
    "LLMChainController", "NoELAChainController", "RandomController", "RuleChainController", "ScheduleController",
    "check_ranges", "clip_theta", "distance_matrix", "edge_distance", "ela", "features", "greedy_tour",
    "inversion_mutation", "order_crossover", "parse_theta", "random_instance", "reference_length",
    "run_controlled", "tour_length", "two_opt",
]  # fmt: skip
