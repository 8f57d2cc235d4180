"""The AFD-Instruction record format: dataclasses, validation and a JSONL reader/writer.

Paper: "AFD-Instruction: A Comprehensive Antibody Instruction Dataset with Functional Annotations for LLM-Based
Understanding and Design" (ICLR 2026, arXiv 2602.04916). One record (as in the released ``data/toy.jsonl``)::

    {"pdb_id": "8zc6", "messages": [{"from": "human", "value": "<H>HEAVY</H> <L>LIGHT</L> question"},
                                    {"from": "gpt", "value": "answer"}]}

Design records invert it (function text in the human turn, a sequence in the answer). Validation checks the
``<H>``/``<L>`` tags (when present), the 20-letter amino-acid alphabet inside them and non-empty turns; each
error names the record id. ``clean=True`` repairs sequences (upper case, whitespace and non-standard letters
dropped, as the released ``eval/srr.py`` cleans) instead of refusing them.

Example
-------
>>> r = Record.from_dict({"pdb_id": "x1", "messages": [
...     {"from": "human", "value": "<H>EVQL</H> <L>DIQM</L> what does it target?"},
...     {"from": "gpt", "value": "virus"}]})
>>> r.heavy, r.light, r.question, r.answer
('EVQL', 'DIQM', 'what does it target?', 'virus')
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "AA20",
    "Message",
    "Record",
    "clean_sequence",
    "parse_chains",
    "read_jsonl",
    "validate",
    "write_jsonl",
]

AA20 = "ACDEFGHIKLMNPQRSTVWY"
_NOT_AA = re.compile(f"[^{AA20}]")
_CHAINS = re.compile(r"^\s*(?:<H>(?P<h>.*?)</H>)?\s*(?:<L>(?P<l>.*?)</L>)?\s*(?P<rest>.*)$", re.S)
ROLES = ("human", "gpt")


def clean_sequence(seq: str | None) -> str:
    """Upper-case, drop whitespace and every letter outside the 20 standard amino acids (``eval/srr.py``)."""
    if seq is None or (isinstance(seq, float) and seq != seq):
        return ""
    return _NOT_AA.sub("", re.sub(r"\s+", "", str(seq)).upper())


def parse_chains(text: str) -> tuple[str | None, str | None, str]:
    """``(heavy, light, rest)`` of a human turn ``"<H>..</H> <L>..</L> rest"``; a missing chain is None."""
    m = _CHAINS.match(text)
    assert m is not None  # the pattern matches every string
    return m.group("h"), m.group("l"), m.group("rest").strip()


@dataclass(frozen=True)
class Message:
    """One turn: ``role`` is ``"human"`` or ``"gpt"`` (the released ``from`` field), ``value`` its text."""

    role: str
    value: str

    def to_dict(self) -> dict[str, str]:
        return {"from": self.role, "value": self.value}


@dataclass(frozen=True)
class Record:
    """One instruction: an id (``pdb_id``) and its turns, validated on construction.

    ``requires_chains=True`` (understanding records) demands both ``<H>`` and ``<L>`` tags in the first human
    turn; design records may carry one chain or none. ``clean=True`` repairs the chains instead of refusing them.
    """

    pdb_id: str
    messages: tuple[Message, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, clean: bool = False, requires_chains: bool = False) -> Record:
        """A validated record from the released JSON shape (see :func:`validate`)."""
        if not isinstance(d, Mapping):
            raise ValueError(f"record must be a JSON object, got {type(d).__name__}")
        rid = d.get("pdb_id")
        if not isinstance(rid, str) or not rid.strip():
            raise ValueError(f"record pdb_id must be a non-empty string, got {rid!r}")
        msgs = d.get("messages")
        if not isinstance(msgs, list) or not msgs:
            raise ValueError(f"record {rid!r}: messages must be a non-empty list, got {msgs!r}")
        turns = []
        for i, m in enumerate(msgs):
            if not isinstance(m, Mapping) or "from" not in m or "value" not in m:
                raise ValueError(f"record {rid!r}: message {i} must have 'from' and 'value', got {m!r}")
            turns.append(Message(m["from"], m["value"]))
        return validate(cls(rid, tuple(turns)), clean=clean, requires_chains=requires_chains)

    def to_dict(self) -> dict[str, Any]:
        return {"pdb_id": self.pdb_id, "messages": [m.to_dict() for m in self.messages]}

    @property
    def prompt(self) -> str:
        """The first human turn."""
        return next(m.value for m in self.messages if m.role == "human")

    @property
    def answer(self) -> str:
        """The first assistant (``gpt``) turn."""
        return next(m.value for m in self.messages if m.role == "gpt")

    @property
    def heavy(self) -> str | None:
        return parse_chains(self.prompt)[0]

    @property
    def light(self) -> str | None:
        return parse_chains(self.prompt)[1]

    @property
    def question(self) -> str:
        return parse_chains(self.prompt)[2]


def validate(record: Record, *, clean: bool = False, requires_chains: bool = False) -> Record:
    """`record` if valid, else a ``ValueError`` naming its id and the problem; ``clean=True`` repairs chains.

    Checks: roles are ``human``/``gpt``, at least one of each, no empty turn; a ``<H>``/``<L>`` opening tag is
    closed; sequences hold only the 20 standard amino acids; with ``requires_chains`` both tags are present.
    """
    rid = record.pdb_id
    if not isinstance(rid, str) or not rid.strip():
        raise ValueError(f"record pdb_id must be a non-empty string, got {rid!r}")
    for i, m in enumerate(record.messages):
        if m.role not in ROLES:
            raise ValueError(f"record {rid!r}: message {i} role must be one of {ROLES}, got {m.role!r}")
        if not isinstance(m.value, str) or not m.value.strip():
            kind = "answer" if m.role == "gpt" else "question"
            raise ValueError(f"record {rid!r}: empty {kind} in message {i}")
    roles = {m.role for m in record.messages}
    if roles != set(ROLES):
        raise ValueError(f"record {rid!r}: needs a human and a gpt message, got roles {sorted(roles)}")
    human_i = next(i for i, m in enumerate(record.messages) if m.role == "human")
    text = record.messages[human_i].value
    for tag in ("H", "L"):
        if text.count(f"<{tag}>") != text.count(f"</{tag}>") or text.count(f"<{tag}>") > 1:
            raise ValueError(f"record {rid!r}: unbalanced or repeated <{tag}> tag in {text[:60]!r}")
    heavy, light, rest = parse_chains(text)
    if requires_chains and (heavy is None or light is None):
        missing = [t for t, s in (("<H>", heavy), ("<L>", light)) if s is None]
        raise ValueError(f"record {rid!r}: missing {' and '.join(missing)} tag(s) in the human turn")
    fixed = {}
    for tag, seq in (("H", heavy), ("L", light)):
        if seq is None:
            continue
        bad = sorted(set(_NOT_AA.findall(seq)))
        if bad and not clean:
            raise ValueError(
                f"record {rid!r}: <{tag}> sequence holds non-amino-acid characters {bad} "
                f"(accepted: {AA20}; pass clean=True to drop them)"
            )
        fixed[tag] = clean_sequence(seq)
        if not fixed[tag]:
            raise ValueError(f"record {rid!r}: empty <{tag}> sequence")
    if not clean or not fixed:
        return record
    parts = [f"<{t}>{s}</{t}>" for t, s in fixed.items()]
    new_text = " ".join([*parts, rest]) if rest else " ".join(parts)
    msgs = list(record.messages)
    msgs[human_i] = Message("human", new_text)
    return Record(rid, tuple(msgs))


def write_jsonl(records: Iterable[Record], path: str | os.PathLike[str]) -> Path:
    """One record a line (UTF-8, the released field names); written to a temporary file, then renamed."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as f:
        for r in records:
            if not isinstance(r, Record):
                raise TypeError(f"records must hold Record objects, got {type(r).__name__}")
            f.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path


def read_jsonl(
    path: str | os.PathLike[str], *, clean: bool = False, requires_chains: bool = False
) -> list[Record]:
    """Every record of a JSONL file, validated (blank lines skipped); errors name the line and the record id."""
    out = []
    with Path(path).open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {n} is not JSON ({exc.msg})") from exc
            out.append(Record.from_dict(d, clean=clean, requires_chains=requires_chains))
    return out
