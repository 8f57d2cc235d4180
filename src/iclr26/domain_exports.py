"""Lazy re-exports of a domain's common components from its paper packages.

``from iclr26.optim import FactRFM`` works without importing every paper of the domain up front: the domain
package maps each exported name to the paper package that defines it, and imports that package on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, names: Mapping[str, str]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` for a domain package whose `names` map to ``package.<paper>``.

    Example
    -------
    >>> __all__, __getattr__, __dir__ = lazy_exports("iclr26.optim", {"plmc": "poisson_midpoint"})
    >>> __getattr__("plmc").__module__
    'iclr26.optim.poisson_midpoint.plmc'
    """

    def getattr_(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        target = names[name]  # a paper of the domain, or an absolute module (a shared piece in iclr26.lab)
        module = target if target.startswith("iclr26.") else f"{package}.{target}"
        return getattr(importlib.import_module(module), name)

    def dir_() -> list[str]:
        return sorted(names)

    return sorted(names), getattr_, dir_
