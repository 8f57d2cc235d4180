"""Instruction templates: structured antibody annotations -> understanding and design records; chat rendering.

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916). The paper's templates and its five classification tasks
are not public; these are short ones for the synthetic world (one-word labels so a record stays <= 160
characters). Understanding: ``<H>heavy</H> <L>light</L> question`` -> label (or a templated sentence for
``describe``). Design inverts it: ``<L>light</L> design cdr-h3: <target>, neutralizing <yes|no>`` -> a CDR-H3.

Chat rendering (:func:`chat_parts`): ``"chatml"`` is the released template (unsloth ``get_chat_template`` with the
from/value -> role/content mapping); ``"plain"`` is ``question + TAB`` then ``answer + NEWLINE``, the compact form
the character-level tiny GPT trains on.

>>> chat_parts(Record("a", (Message("human", "q"), Message("gpt", "x"))), "plain")
('q\\t', 'x\\n')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from iclr26.agents.afd_instruction.schema import Message, Record
from iclr26.agents.afd_instruction.synth import LABELS, TASKS, Antibody
from iclr26.checks import check_choice

__all__ = [
    "CHAT_TEMPLATES",
    "QUESTIONS",
    "chat_parts",
    "describe_answer",
    "design_record",
    "design_request",
    "instructions_for",
    "understanding_record",
]

QUESTIONS: dict[str, tuple[str, ...]] = {
    "target": ("what does it target?", "target family?"),
    "neutralizing": ("is it neutralizing?", "does it neutralize?"),
    "species": ("which species?", "source species?"),
    "light_type": ("light chain type?", "kappa or lambda?"),
    "describe": ("describe its function.",),
}
DESIGN_PHRASES = ("design cdr-h3: {t}, neutralizing {n}", "cdr-h3 for {t}, neutralizing {n}")
CHAT_TEMPLATES = ("chatml", "plain")


def describe_answer(ab: Antibody) -> str:
    """The templated free-text answer: ``"binds <target>; neutralizing|non-neutralizing"``."""
    n = "neutralizing" if ab.labels["neutralizing"] == "yes" else "non-neutralizing"
    return f"binds {ab.labels['target']}; {n}"


def understanding_record(ab: Antibody, task: str, phrase: int = 0) -> Record:
    """``<H>..</H> <L>..</L> question`` -> the label of `task` (``describe``: the templated sentence)."""
    check_choice("task", task, (*TASKS, "describe"))
    q = QUESTIONS[task][phrase % len(QUESTIONS[task])]
    ans = describe_answer(ab) if task == "describe" else ab.labels[task]
    return Record(
        f"{ab.id}:{task}", (Message("human", f"<H>{ab.heavy}</H> <L>{ab.light}</L> {q}"), Message("gpt", ans))
    )


def design_request(target: str, neutralizing: str, phrase: int = 0) -> str:
    """The function text of a design prompt."""
    check_choice("target", target, LABELS["target"])
    check_choice("neutralizing", neutralizing, LABELS["neutralizing"])
    return DESIGN_PHRASES[phrase % len(DESIGN_PHRASES)].format(t=target, n=neutralizing)


def design_record(ab: Antibody, phrase: int = 0) -> Record:
    """``<L>light</L> <function text>`` -> the antibody's CDR-H3 (a sequence satisfying the rules)."""
    req = design_request(ab.labels["target"], ab.labels["neutralizing"], phrase)
    return Record(f"{ab.id}:design", (Message("human", f"<L>{ab.light}</L> {req}"), Message("gpt", ab.h3)))


def instructions_for(
    antibodies: Sequence[Antibody], rng: np.random.Generator, design_phrases: int = 2
) -> list[Record]:
    """Every antibody's understanding records (4 tasks + describe, random phrasing) and `design_phrases` design
    records (5 understanding : 2 design = 71% : 29%, the brief's 70/30), shuffled."""
    out = []
    for ab in antibodies:
        for task in (*TASKS, "describe"):
            out.append(understanding_record(ab, task, int(rng.integers(len(QUESTIONS[task])))))
        for k in range(design_phrases):
            out.append(design_record(ab, k))
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def chat_parts(record: Record, template: str = "chatml") -> tuple[str, str]:
    """``(prompt, answer)`` of a record's first exchange; ``prompt + answer`` is the training text.

    ``chatml``: ``<|im_start|>user\\n{q}<|im_end|>\\n<|im_start|>assistant\\n`` + ``{a}<|im_end|>\\n``.
    ``plain``: ``{q}\\t`` + ``{a}\\n``.
    """
    check_choice("template", template, CHAT_TEMPLATES)
    q, a = record.prompt, record.answer
    if template == "chatml":
        return (
            f"<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n",
            f"{a}<|im_end|>\n",
        )
    return f"{q}\t", f"{a}\n"
