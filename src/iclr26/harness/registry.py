"""Find a paper's :class:`~iclr26.harness.experiment.Experiment` from its slug."""

from __future__ import annotations

import importlib

from iclr26.catalog import get_paper, load_catalog
from iclr26.harness.experiment import Experiment

__all__ = ["NotReproducibleError", "get_experiment", "register_experiment", "reproducible_slugs"]

_REGISTERED: dict[str, Experiment] = {}


class NotReproducibleError(LookupError):
    """The paper exists in the catalog but has no experiment yet."""


def reproducible_slugs() -> list[str]:
    """Slugs whose status is ``reproduced`` (they ship an ``experiment.py``)."""
    return [p.slug for p in load_catalog() if p.status == "reproduced"]


def register_experiment(experiment: Experiment) -> None:
    """Make an experiment outside the catalog runnable by the harness in this process (your own study, a test).

    Registered experiments run with the local executor; Ray workers only see the catalog's experiments.
    """
    if not isinstance(experiment, Experiment):
        raise TypeError(f"experiment must be an Experiment, got {type(experiment).__name__}")
    _REGISTERED[experiment.slug] = experiment


def get_experiment(slug: str) -> Experiment:
    """Return a registered experiment, or import ``<module>.experiment`` and return its ``EXPERIMENT``."""
    if slug in _REGISTERED:
        return _REGISTERED[slug]
    paper = get_paper(slug)
    if paper.status != "reproduced":
        ready = ", ".join(reproducible_slugs()) or "none yet"
        raise NotReproducibleError(
            f"paper {slug!r} is {paper.status} and has no reproduction yet; reproducible papers: {ready}"
        )
    module = importlib.import_module(f"{paper.module}.experiment")
    exp = getattr(module, "EXPERIMENT", None)
    if not isinstance(exp, Experiment):
        raise NotReproducibleError(f"{paper.module}.experiment defines no EXPERIMENT object")
    if exp.slug != slug:
        raise NotReproducibleError(f"{paper.module}.experiment declares slug {exp.slug!r}, expected {slug!r}")
    return exp
