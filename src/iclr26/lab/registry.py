"""One registry of the project's components per family, read by the experiments and the conformance batteries.

A paper that ships components of a shared family (sequence mixers, optimizers) declares them once, in its
``components.py``, with :func:`register`: the public class, the paper's slug, and a *case* (a small, fast
constructor with the family's signature) that the family's conformance battery runs. The experiments read their
rosters from the same module, so a component added to a paper is tested by the battery without a second list.

Families and their case signatures:

- ``"mixer"``: ``case(d_model) -> nn.Module`` mapping ``(batch, seq, d_model)`` to the same shape. Options:
  ``causal`` (default True; False skips the causality check), ``seq_lens`` (awkward lengths to add: not a
  multiple of a chunk or window size).
- ``"optimizer"``: ``case(model) -> Optimizer`` (or a list of them) over all of ``model``'s parameters, with a
  learning rate that makes a small MLP regression loss fall within 30 steps. Options: ``accepts_complex``
  (default False), ``refuses_nonfinite`` (default True; False for a library baseline that steps on NaN).
- ``"verifier"``: ``case(**overrides) -> verifier``, a verifier callable of
  :func:`iclr26.lab.speculative.speculative_decode`: ``verifier(target_logits (K+1, V), draft_logits (K, V),
  draft_ids (K,), generator) -> (n_accepted, next_token)``. The battery calls ``case()``; an experiment may pass
  its config's values as keyword overrides. Options: ``lossless`` (default False; the emitted sequence has the
  target's law, or, when also ``greedy``, is the target's greedy decoding), ``greedy`` (default False;
  deterministic: ignores the generator, meant for the greedy drafter).

:func:`components` imports the ``components`` module of every catalog paper that has one (and the lab's own), so
the battery sees every registered component without a list of papers.

Examples
--------
>>> from iclr26.lab.registry import components
>>> names = [c.name for c in components("mixer", paper="lab")]
>>> "softmax-causal" in names
True
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from iclr26.checks import check_choice

__all__ = ["FAMILIES", "Component", "components", "register"]

FAMILIES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "mixer": {"causal": True, "seq_lens": ()},
        "optimizer": {"accepts_complex": False, "refuses_nonfinite": True},
        "verifier": {"lossless": False, "greedy": False},
    }
)

_REGISTRY: dict[tuple[str, str, str], Component] = {}
_LAB_MODULES = ("iclr26.lab.components",)


@dataclass(frozen=True)
class Component:
    """One registered component: its family, name, paper, public class, battery case and family options."""

    family: str
    name: str
    paper: str
    cls: Any
    case: Callable[..., Any]
    options: Mapping[str, Any] = field(default_factory=dict)

    def option(self, key: str) -> Any:
        """The component's value of a family option (the family's default when it sets none)."""
        return self.options.get(key, FAMILIES[self.family][key])

    @property
    def id(self) -> str:
        """``paper-name``, the battery's test id."""
        return f"{self.paper}-{self.name}"


def register(
    family: str, name: str, cls: Any, case: Callable[..., Any], *, paper: str, **options: Any
) -> Component:
    """Declare one component of `family`; re-registering the same (family, paper, name) replaces it."""
    check_choice("family", family, FAMILIES)
    for arg, value in (("name", name), ("paper", paper)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{arg} must be a non-empty string, got {value!r}")
    if not callable(case):
        raise TypeError(f"case must be callable, got {type(case).__name__}")
    unknown = sorted(set(options) - set(FAMILIES[family]))
    if unknown:
        raise ValueError(
            f"options {unknown} are not options of family {family!r}: {sorted(FAMILIES[family])}"
        )
    component = Component(family, name, paper, cls, case, MappingProxyType(dict(options)))
    _REGISTRY[(family, paper, name)] = component
    return component


def _discover() -> None:
    """Import the lab's registering modules and every catalog paper's ``components`` module."""
    from iclr26.catalog import load_catalog

    for module in _LAB_MODULES:
        importlib.import_module(module)
    for paper in load_catalog():
        name = f"{paper.module}.components"
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # the paper's package does not exist yet (planned)
            found = False
        if found:
            importlib.import_module(name)


def components(family: str, paper: str | None = None) -> tuple[Component, ...]:
    """Every registered component of `family` (of one `paper` when given), sorted by paper then name."""
    check_choice("family", family, FAMILIES)
    _discover()
    found = [c for (f, p, _), c in _REGISTRY.items() if f == family and (paper is None or p == paper)]
    return tuple(sorted(found, key=lambda c: (c.paper, c.name)))
