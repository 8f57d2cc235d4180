"""Structured reasoning over retrieved evidence: VCWorld's stage 3, with an LLM or offline.

Paper: VCWorld (Wei et al., ICLR 2026, arXiv 2512.00306). The LLM is asked for a stepwise signalling-cascade
hypothesis (drug -> target -> pathway -> gene) and a final label with a confidence; the label is parsed and the
rationale kept. :class:`GraphReasoner` is the offline, non-LLM stand-in (weights fixed a priori, not fitted):

    s     = sum_paths prod signs * w^len                      (w = 0.5, len <= k = 3)
    DE:   conf = (1 - a) tanh(|s| / w^k) + a v_de,     label = [conf >= 1/2]
    DIR:  d    = (1 - a) tanh( s  / w^k) + a v_dir,    label = [d >= 0],  conf = (1 + d) / 2

with the case votes v_de in [0, 1], v_dir in [-1, 1] of :meth:`Retriever.case_votes` and a = 1/2 (a = 0: paths
only; ``use_paths=False``: cases only). tanh(|s| / w^k) is 0.76 for one k-hop path and ~1 for a direct target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from iclr26.agents.vcworld.retrieve import Evidence, case_vote
from iclr26.checks import check_bool, check_choice, check_float, check_int
from iclr26.lab.llm import LLMBackend, Message

__all__ = [
    "DEFAULT_TEMPLATE",
    "TASKS",
    "GraphReasoner",
    "LLMReasoner",
    "Prediction",
    "format_evidence",
    "parse_prediction",
]

TASKS = ("de", "dir")


@dataclass(frozen=True)
class Prediction:
    """A label (DE: 1 = differentially expressed; DIR: 1 = up), its confidence in [0, 1] that the label is 1,
    the rationale text and the ids of the evidence paths it cites."""

    label: int
    confidence: float
    rationale: str = ""
    path_ids: tuple[int, ...] = ()


class GraphReasoner:
    """The offline stand-in for the LLM: signed path aggregation combined with the neighbour-case vote.

    Examples
    --------
    >>> from iclr26.agents.vcworld.retrieve import Evidence
    >>> GraphReasoner().predict(Evidence(0, 0, 0, path_score=1.0), "dir").label  # an activating path: up
    1
    >>> round(GraphReasoner().predict(Evidence(0, 0, 0, path_score=1.0), "de").confidence, 3)  # no cases: a tie
    0.5
    """

    def __init__(self, w: float = 0.5, k: int = 3, case_weight: float = 0.5, use_paths: bool = True) -> None:
        self.w = check_float("w", w, 0.0, low_open=True)
        self.k = check_int("k", k, low=0)
        self.case_weight = check_float("case_weight", case_weight, 0.0, 1.0)
        self.use_paths = check_bool("use_paths", use_paths)

    def _parts(self, s, v):
        a = self.case_weight if self.use_paths else 1.0
        return (1.0 - a) * np.tanh(np.asarray(s, dtype=float) / self.w**self.k), a * np.asarray(
            v, dtype=float
        )

    def de_confidence(self, s, v_de) -> np.ndarray:
        """Batch DE confidence from path scores `s` and case votes `v_de` (same shape)."""
        p, c = self._parts(np.abs(s), v_de)
        return np.clip(p + c, 0.0, 1.0)

    def dir_confidence(self, s, v_dir) -> np.ndarray:
        """Batch DIR confidence (that the gene goes up) from signed path scores and case votes."""
        p, c = self._parts(s, v_dir)
        return np.clip((1.0 + p + c) / 2.0, 0.0, 1.0)

    def predict(self, evidence: Evidence, task: str = "de") -> Prediction:
        """The label for one triplet's :class:`Evidence`; rationale = its top path."""
        check_choice("task", task, TASKS)
        sims = np.array([c.similarity for c in evidence.cases])
        if len(sims):
            v_de, v_dir = case_vote(sims, np.array([c.de for c in evidence.cases]),
                                    np.array([2.0 * c.dir - 1.0 for c in evidence.cases]))  # fmt: skip
            v_de, v_dir = float(v_de[0]), float(v_dir[0])
        else:
            v_de = v_dir = 0.0
        s = evidence.path_score
        conf = float(self.de_confidence(s, v_de) if task == "de" else self.dir_confidence(s, v_dir))
        top = evidence.paths[0].describe() if evidence.paths else "no KG path within reach"
        return Prediction(int(conf >= 0.5), conf, f"top path: {top}", (0,) if evidence.paths else ())


DEFAULT_TEMPLATE = """You are VCWorld, a biological world model. Predict the effect of a drug perturbation.
Task: {question}
Cell line: C{cell_line}. Drug: D{drug}. Gene: G{gene}.

Knowledge-graph paths from the drug's targets to the gene (edge signs: + activates, - inhibits):
{paths}

Similar solved cases (training drugs, same gene, same cell line):
{cases}

Reason step by step along the signalling cascade (drug -> target -> pathway -> gene), cite paths as [P<i>],
then end with two lines:
LABEL: <0 or 1>
CONFIDENCE: <probability between 0 and 1 that the label is 1>"""

QUESTIONS = {
    "de": "is G{gene} differentially expressed under D{drug}? (1 = yes, 0 = no)",
    "dir": "G{gene} is differentially expressed under D{drug}; does it go up (1) or down (0)?",
}


def format_evidence(evidence: Evidence, task: str = "de", template: str = DEFAULT_TEMPLATE) -> str:
    """The prompt for one triplet: the template filled with the question, the paths and the cases."""
    check_choice("task", task, TASKS)
    ev = evidence
    paths = "\n".join(f"[P{i}] {p.describe()}" for i, p in enumerate(ev.paths)) or "(none within reach)"
    cases = (
        "\n".join(
            f"- D{c.drug} (similarity {c.similarity:+.2f}): "
            + ("DE, " + ("up" if c.dir else "down") if c.de else "not DE")
            for c in ev.cases
        )
        or "(none)"
    )
    q = QUESTIONS[task].format(gene=ev.gene, drug=ev.drug)
    return template.format(
        question=q, cell_line=ev.cell_line, drug=ev.drug, gene=ev.gene, paths=paths, cases=cases
    )


_LABEL = re.compile(r"^\s*\**\s*LABEL\s*\**\s*[:=]\s*\**\s*(\S+?)\s*\**\s*$", re.I | re.M)
_CONF = re.compile(r"^\s*\**\s*CONFIDENCE\s*\**\s*[:=]\s*\**\s*([0-9]*\.?[0-9]+)\s*(%?)", re.I | re.M)


def parse_prediction(text: str) -> Prediction:
    """Parse an LLM reply: the last ``LABEL:`` line (must be 0 or 1), the last ``CONFIDENCE:`` line (default:
    the label), the rationale (everything before the LABEL line) and the cited path ids ``[P<i>]``."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    labels = list(_LABEL.finditer(text))
    if not labels:
        raise ValueError("text has no 'LABEL: <0 or 1>' line")
    raw = labels[-1].group(1).strip(".").strip()
    if raw not in ("0", "1"):
        raise ValueError(f"label must be 0 or 1, got {raw!r}")
    label = int(raw)
    confs = list(_CONF.finditer(text))
    conf = float(label)
    if confs:
        conf = float(confs[-1].group(1)) / (100.0 if confs[-1].group(2) else 1.0)
        if not 0.0 <= conf <= 1.0:
            raise ValueError(f"confidence must lie in [0, 1], got {confs[-1].group(0).strip()!r}")
    rationale = text[: labels[-1].start()].strip()
    ids = tuple(dict.fromkeys(int(m) for m in re.findall(r"\[P(\d+)\]", rationale)))
    return Prediction(label, conf, rationale, ids)


class LLMReasoner:
    """VCWorld's reasoning step with an LLM: evidence -> prompt -> completion -> :class:`Prediction`.

    Parameters
    ----------
    backend : any :class:`~iclr26.lab.llm.LLMBackend` (scripted, OpenAI-compatible, local Hugging Face).
    template : prompt with fields {question} {cell_line} {drug} {gene} {paths} {cases}.
    max_tokens, temperature : passed to the backend.

    A reply that cannot be parsed gives ``None`` from :meth:`predict` (counted as invalid by callers).
    """

    def __init__(
        self,
        backend: LLMBackend,
        template: str = DEFAULT_TEMPLATE,
        max_tokens: int = 768,
        temperature: float = 0.0,
    ) -> None:
        if not isinstance(backend, LLMBackend):
            raise TypeError(f"backend must be an LLMBackend, got {type(backend).__name__}")
        if not isinstance(template, str) or "{paths}" not in template or "{cases}" not in template:
            raise ValueError("template must be a str with {paths} and {cases} fields")
        self.backend, self.template = backend, template
        self.max_tokens = check_int("max_tokens", max_tokens, low=1)
        self.temperature = check_float("temperature", temperature, 0.0)

    def predict(self, evidence: Evidence, task: str = "de") -> Prediction | None:
        prompt = format_evidence(evidence, task, self.template)
        reply = self.backend.chat(
            [Message("user", prompt)], max_tokens=self.max_tokens, temperature=self.temperature
        )
        try:
            return parse_prediction(reply.text)
        except ValueError:
            return None
