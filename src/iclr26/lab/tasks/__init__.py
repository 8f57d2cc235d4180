"""Synthetic tasks shared by many papers: a task base, graph generators, recall and in-context regression tasks."""

from iclr26.lab.tasks.base import IGNORE_INDEX, SyntheticTask, Vocabulary, check_batch
from iclr26.lab.tasks.graphs import complete_digraph, planted_fas_digraph, random_dag, transitive_tournament
from iclr26.lab.tasks.recall import (
    PASSKEY_VOCAB,
    REGRESSION_FAMILIES,
    RecallBatch,
    local_and_recall,
    local_and_recall_vocab_size,
    mqar,
    passkey,
    regression_prompts,
)

__all__ = [
    "IGNORE_INDEX",
    "PASSKEY_VOCAB",
    "REGRESSION_FAMILIES",
    "RecallBatch",
    "local_and_recall",
    "local_and_recall_vocab_size",
    "mqar",
    "passkey",
    "regression_prompts",
    "SyntheticTask",
    "Vocabulary",
    "check_batch",
    "complete_digraph",
    "planted_fas_digraph",
    "random_dag",
    "transitive_tournament",
]
