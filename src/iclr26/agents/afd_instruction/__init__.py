"""AFD-Instruction: "A Comprehensive Antibody Instruction Dataset with Functional Annotations for LLM-Based
Understanding and Design" (ICLR 2026, arXiv 2602.04916).

The dataset (about 430K instructions over about 4.3K curated antibodies) cannot be rebuilt offline; this package
holds the pieces around it: the record format (:mod:`.schema`), instruction templates (:mod:`.templates`), the
released metrics (:mod:`.metrics`: SRR left/right/best, exact match, accuracy, BLEU/ROUGE/METEOR wrappers),
instruction tuning for any causal LM or the in-repo tiny GPT (:mod:`.finetune`), a synthetic antibody world with
exact rule labels (:mod:`.synth`) and the brief's baselines (:mod:`.baselines`).

Example
-------
>>> import numpy as np
>>> from iclr26.agents.afd_instruction import AntibodyWorld, instructions_for, labels_of, srr_best
>>> world = AntibodyWorld(0)
>>> abs_ = world.sample(5)
>>> all(labels_of(a.heavy, a.light, world) == a.labels for a in abs_)
True
>>> recs = instructions_for(abs_, np.random.default_rng(0))
>>> len(recs), srr_best(abs_[0].h3, abs_[0].h3)
(35, 1.0)
"""

from iclr26.agents.afd_instruction.baselines import (
    KmerLogisticRegression,
    few_shot_prompt,
    kmer_counts,
    kmer_features,
    nearest_neighbours,
    nn_copy_design,
)
from iclr26.agents.afd_instruction.finetune import (
    TuneResult,
    answer_logprobs,
    answer_logprobs_reference,
    greedy_generate,
    greedy_generate_reference,
    instruction_tune,
    rank_labels,
    sft_loss,
)
from iclr26.agents.afd_instruction.metrics import (
    accuracy,
    corpus_bleu,
    exact_match,
    meteor,
    normalize_text,
    rouge_f1,
    sequence_exact_match,
    srr_best,
    srr_best_reference,
    srr_left,
    srr_right,
    srr_summary,
)
from iclr26.agents.afd_instruction.schema import (
    AA20,
    Message,
    Record,
    clean_sequence,
    parse_chains,
    read_jsonl,
    validate,
    write_jsonl,
)
from iclr26.agents.afd_instruction.synth import (
    LABELS,
    TASKS,
    Antibody,
    AntibodyWorld,
    cdr_h3,
    cdr_l3,
    design_satisfies,
    labels_of,
    neutralizing_of,
    target_of,
)
from iclr26.agents.afd_instruction.templates import (
    chat_parts,
    describe_answer,
    design_record,
    design_request,
    instructions_for,
    understanding_record,
)
from iclr26.agents.afd_instruction.tokenizer import CharTokenizer

__all__ = [
    "AA20",
    "LABELS",
    "TASKS",
    "Antibody",
    "AntibodyWorld",
    "CharTokenizer",
    "KmerLogisticRegression",
    "Message",
    "Record",
    "TuneResult",
    "accuracy",
    "answer_logprobs",
    "answer_logprobs_reference",
    "cdr_h3",
    "cdr_l3",
    "chat_parts",
    "clean_sequence",
    "corpus_bleu",
    "describe_answer",
    "design_record",
    "design_request",
    "design_satisfies",
    "exact_match",
    "few_shot_prompt",
    "greedy_generate",
    "greedy_generate_reference",
    "instruction_tune",
    "instructions_for",
    "kmer_counts",
    "kmer_features",
    "labels_of",
    "meteor",
    "nearest_neighbours",
    "neutralizing_of",
    "nn_copy_design",
    "normalize_text",
    "parse_chains",
    "rank_labels",
    "read_jsonl",
    "rouge_f1",
    "sequence_exact_match",
    "sft_loss",
    "srr_best",
    "srr_best_reference",
    "srr_left",
    "srr_right",
    "srr_summary",
    "target_of",
    "understanding_record",
    "validate",
    "write_jsonl",
]
