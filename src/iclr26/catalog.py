"""The catalog of the 76 papers: one :class:`Paper` record each, loaded from the packaged ``catalog.json``.

Example
-------
>>> from iclr26.catalog import get_paper
>>> get_paper("esp").module
'iclr26.mechanisms.esp'
"""

from __future__ import annotations

import difflib
import importlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from types import ModuleType
from typing import Any

__all__ = [
    "DOMAINS",
    "STATUSES",
    "Paper",
    "UnknownPaperError",
    "get_paper",
    "load_catalog",
    "paper_module",
]

DOMAINS: tuple[str, ...] = (
    "attention",
    "architectures",
    "optim",
    "inference",
    "mechanisms",
    "agents",
    "generative",
    "decision",
    "science",
)
STATUSES: tuple[str, ...] = ("planned", "implemented", "reproduced")


class UnknownPaperError(KeyError):
    """A slug that is not in the catalog; the message suggests close matches."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


@dataclass(frozen=True)
class Paper:
    """One catalog entry."""

    slug: str
    title: str
    short_name: str
    openreview: str | None
    arxiv: str | None
    code: str | None
    domain: str
    tier: str | None
    status: str
    module: str
    seed_file: str
    paragraph: int
    summary: str

    def __post_init__(self) -> None:
        if self.domain not in DOMAINS:
            raise ValueError(
                f"paper {self.slug!r}: domain {self.domain!r} is not one of {', '.join(DOMAINS)}"
            )
        if self.status not in STATUSES:
            raise ValueError(
                f"paper {self.slug!r}: status {self.status!r} is not one of {', '.join(STATUSES)}"
            )
        expected = f"iclr26.{self.domain}.{self.slug.replace('-', '_')}"
        if self.module != expected:
            raise ValueError(f"paper {self.slug!r}: module {self.module!r} should be {expected!r}")

    @property
    def links(self) -> dict[str, str]:
        out = {}
        if self.openreview:
            out["OpenReview"] = f"https://openreview.net/forum?id={self.openreview}"
        if self.arxiv:
            out["arXiv"] = f"https://arxiv.org/abs/{self.arxiv}"
        if self.code:
            out["code"] = self.code
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _catalog_text() -> str:
    """The packaged ``catalog.json`` (one seam, so tests can stand in a catalog of their own)."""
    return resources.files("iclr26").joinpath("catalog.json").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def load_catalog() -> tuple[Paper, ...]:
    """All papers, in catalog order."""
    text = _catalog_text()
    papers = tuple(Paper(**entry) for entry in json.loads(text))
    slugs = [p.slug for p in papers]
    if len(set(slugs)) != len(slugs):
        raise ValueError("catalog.json has duplicate slugs")
    return papers


def get_paper(slug: str) -> Paper:
    """The paper with this slug; raises :class:`UnknownPaperError` naming close matches."""
    for paper in load_catalog():
        if paper.slug == slug:
            return paper
    slugs = [p.slug for p in load_catalog()]
    close = difflib.get_close_matches(slug, slugs, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `iclr26 list` shows all slugs"
    raise UnknownPaperError(f"unknown paper {slug!r}{hint}")


def paper_module(slug: str) -> ModuleType:
    """Import the package that implements a paper (fails for papers still ``planned``)."""
    paper = get_paper(slug)
    if paper.status == "planned":
        raise LookupError(f"paper {slug!r} is planned, not implemented yet")
    return importlib.import_module(paper.module)
