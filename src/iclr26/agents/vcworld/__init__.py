"""VCWorld: "A Biological World Model for Virtual Cell Simulation" (Wei et al., ICLR 2026, arXiv 2512.00306).

Perturbation prediction as gene-centric classification (DE: is gene g differentially expressed under drug p in
cell line c; DIR: up or down), answered by reasoning over retrieved structured knowledge: a knowledge graph
(:class:`KnowledgeGraph`), evidence retrieval (:class:`Retriever` -> :class:`Evidence`: signed KG paths and
similar solved cases) and a reasoner (:class:`LLMReasoner` over any ``LLMBackend``, or the offline
:class:`GraphReasoner`). Offline ground truth: :class:`VirtualCell`.

Example
-------
>>> from iclr26.agents.vcworld import GraphReasoner, Retriever, VirtualCell, corrupted_kg, label_table
>>> vc = VirtualCell(60, 12, 1, seed=0)
>>> train, test = vc.split_drugs(0.5)
>>> ev = Retriever(corrupted_kg(vc), label_table(vc, train)).retrieve(0, int(test[0]), 3)
>>> GraphReasoner().predict(ev, "de").label in (0, 1)
True
"""

from iclr26.agents.vcworld.backends import HFLocalBackend, OpenAIChatBackend
from iclr26.agents.vcworld.kg import KnowledgeGraph, corrupted_kg
from iclr26.agents.vcworld.paths import SignedPath, enumerate_walks, path_scores
from iclr26.agents.vcworld.reason import (
    DEFAULT_TEMPLATE,
    GraphReasoner,
    LLMReasoner,
    Prediction,
    format_evidence,
    parse_prediction,
)
from iclr26.agents.vcworld.retrieve import Case, Evidence, Retriever, label_table
from iclr26.agents.vcworld.sim import VirtualCell, steady_state
from iclr26.lab.llm import LLMBackend, ScriptedBackend

__all__ = [
    "DEFAULT_TEMPLATE", "Case", "Evidence", "GraphReasoner", "HFLocalBackend", "KnowledgeGraph", "LLMBackend",
    "LLMReasoner", "OpenAIChatBackend", "Prediction", "Retriever", "ScriptedBackend", "SignedPath", "VirtualCell",
    "corrupted_kg", "enumerate_walks", "format_evidence", "label_table", "parse_prediction", "path_scores",
    "steady_state",
]  # fmt: skip
