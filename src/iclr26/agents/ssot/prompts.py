"""The SSoT prompt transform, the baseline prompt variants, and the answer parsers.

Paper: "String Seed of Thought" (Misaki, Akiba; ICLR 2026, arXiv 2510.21150). The exact wording of the paper's
prompt was not available; ours keeps its structure: a random string in ``<random_string>`` tags, a deterministic
manipulation in ``<thinking>`` tags, the choice in ``<answer>`` tags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iclr26.agents.ssot.extract import check_probs

__all__ = [
    "PROMPT_METHODS",
    "SSOT_SUFFIX",
    "ParsedSSoT",
    "apply_ssot",
    "build_messages",
    "check_options",
    "parse",
    "pif_instruction",
]

SSOT_SUFFIX = (
    "\n\nBefore answering, first write a long random string (at least 32 characters) inside "
    "<random_string>...</random_string> tags. Then, inside <thinking>...</thinking> tags, derive your choice from "
    "that string by an explicit deterministic manipulation (for example, sum the character codes and take the "
    "remainder, or compute a hash and compare it with the cumulative probabilities) so that the choice follows "
    "the requested probabilities. Do not use any tool or external random number generator. Finally, write only the "
    "chosen option inside <answer>...</answer> tags."
)
DIRECT_SUFFIX = "\n\nReply with the chosen option only, inside <answer>...</answer> tags."
LIST_SUFFIX = (
    "\n\nFirst list all the options with their probabilities, then pick one of them at random accordingly, and "
    "write only the chosen option inside <answer>...</answer> tags."
)
PROMPT_METHODS = ("direct", "ssot", "high_temp", "list_pick", "few_shot")


def check_options(options: list[str], probs: list[float]):
    """Options: a list of >= 2 distinct non-empty str; probs: a distribution of the same length."""
    if not isinstance(options, (list, tuple)) or any(
        not isinstance(o, str) or not o.strip() for o in options
    ):
        raise ValueError(f"options must be a list of non-empty str, got {options!r}")
    if len(options) < 2:
        raise ValueError(f"options must hold at least 2 options, got {len(options)}")
    if len({o.strip().lower() for o in options}) != len(options):
        raise ValueError(
            f"options must be distinct (case-insensitively), got duplicates in {list(options)!r}"
        )
    return list(options), check_probs(probs, "probs", len(options))


def pif_instruction(options: list[str], probs: list[float]) -> str:
    """The Probabilistic Instruction Following request: pick one option with the given probabilities."""
    options, p = check_options(options, probs)
    listing = ", ".join(f"'{o}' with probability {x:.4g}" for o, x in zip(options, p))
    return f"Choose exactly one of the following options at random: {listing}."


def apply_ssot(instruction: str, options: list[str], probs: list[float]) -> list[dict]:
    """Chat messages for `instruction` with the SSoT suffix (the whole method).

    >>> msgs = apply_ssot("Flip a fair coin.", ["heads", "tails"], [0.5, 0.5])
    >>> msgs[0]["role"], "<random_string>" in msgs[0]["content"]
    ('user', True)
    """
    if not isinstance(instruction, str) or not instruction.strip():
        raise ValueError(f"instruction must be a non-empty str, got {instruction!r}")
    options, _ = check_options(options, probs)
    text = instruction + f"\nThe options are: {', '.join(options)}." + SSOT_SUFFIX
    return [{"role": "user", "content": text}]


def build_messages(method: str, options: list[str], probs: list[float]) -> list[dict]:
    """The prompt of one method: ``direct`` (also used at temperature 1.5 as ``high_temp``), ``ssot``,
    ``list_pick`` ("list the options and pick one at random") or ``few_shot`` (balanced examples)."""
    if method not in PROMPT_METHODS:
        raise ValueError(f"method must be one of {', '.join(PROMPT_METHODS)}, got {method!r}")
    instruction = pif_instruction(options, probs)
    if method == "ssot":
        return apply_ssot(instruction, options, probs)
    if method == "list_pick":
        return [{"role": "user", "content": instruction + LIST_SUFFIX}]
    if method == "few_shot":
        shots = []
        for i, o in enumerate(options):  # one example answer per option: balanced
            shots += [
                {"role": "user", "content": instruction + DIRECT_SUFFIX + f" (example {i + 1})"},
                {"role": "assistant", "content": f"<answer>{o}</answer>"},
            ]
        return [*shots, {"role": "user", "content": instruction + DIRECT_SUFFIX}]
    return [{"role": "user", "content": instruction + DIRECT_SUFFIX}]


@dataclass(frozen=True)
class ParsedSSoT:
    """What :func:`parse` found: the tag contents (None when missing) and whether the answer is usable."""

    random_string: str | None
    thinking: str | None
    answer: str | None
    valid: bool
    option: int | None = None  # index into the options, when they were given and matched


def _tag(text: str, name: str) -> str | None:
    found = re.findall(rf"<{name}>(.*?)</{name}>", text, flags=re.DOTALL | re.IGNORECASE)
    return found[-1].strip() if found else None


def _match(answer: str, options) -> int | None:
    norm = answer.strip().strip("'\"`.").strip().lower()
    for i, o in enumerate(options):
        if norm == o.strip().lower():
            return i
    return None


def parse(completion: str, options: list[str] | None = None, *, require_string: bool = True) -> ParsedSSoT:
    """Parse an SSoT completion. Valid: an ``<answer>`` tag (and a ``<random_string>`` tag unless
    `require_string` is False) and, when `options` are given, an answer equal to one of them.

    >>> parse("<random_string>x1</random_string><thinking>ok</thinking><answer>heads</answer>", ["heads", "tails"])
    ParsedSSoT(random_string='x1', thinking='ok', answer='heads', valid=True, option=0)
    >>> parse("heads").valid
    False
    """
    if not isinstance(completion, str):
        raise ValueError(f"completion must be a str, got {type(completion).__name__}")
    rs, th, ans = _tag(completion, "random_string"), _tag(completion, "thinking"), _tag(completion, "answer")
    valid = ans is not None and ans != "" and (rs is not None or not require_string)
    option = None
    if options is not None:
        option = _match(ans, options) if ans is not None else None
        valid = valid and option is not None
    return ParsedSSoT(rs, th, ans, bool(valid), option)
