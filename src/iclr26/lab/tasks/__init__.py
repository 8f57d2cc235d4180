"""Synthetic tasks shared by many papers: a minimal task base and graph generators."""

from iclr26.lab.tasks.base import IGNORE_INDEX, SyntheticTask, Vocabulary, check_batch
from iclr26.lab.tasks.graphs import complete_digraph, planted_fas_digraph, random_dag, transitive_tournament

__all__ = [
    "IGNORE_INDEX",
    "SyntheticTask",
    "Vocabulary",
    "check_batch",
    "complete_digraph",
    "planted_fas_digraph",
    "random_dag",
    "transitive_tournament",
]
