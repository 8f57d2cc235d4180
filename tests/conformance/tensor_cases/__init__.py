"""Examples for the tensor battery (``tests/conformance/test_properties_tensors.py``), one module a domain.

Each module ``tensor_cases/<name>.py`` defines ``EXAMPLES`` (public dotted name -> a factory of a small valid call,
an :class:`Example`) and may define ``ACCEPTS`` ((callable, argument, mutation) -> why the mutated call is
legitimately accepted); the battery merges them with its own tables. The helpers below build the examples.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

__all__ = [
    "Example",
    "built",
    "call_example",
    "case_tables",
    "fields",
    "fn",
    "forward_example",
    "gauss",
    "ids",
    "normal_array",
    "probs",
    "with_grad",
]


@dataclass
class Example:
    """A small valid call: ``call(**args)``; the tensors/arrays among ``args`` are the ones mutated."""

    call: Callable[..., Any]
    args: dict[str, Any]
    #: argument -> the dimension whose size must agree with another argument or the module's width
    agree: dict[str, int] = field(default_factory=dict)
    #: argument -> the vocabulary size its ids must stay below
    vocab: dict[str, int] = field(default_factory=dict)
    #: argument -> the other names an error may use for it (the documented name)
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: arguments passed positionally (in this order) rather than by keyword
    positional: tuple[str, ...] = ()

    def run(self, args: dict[str, Any] | None = None) -> Any:
        args = self.args if args is None else args
        pos = [args[n] for n in self.positional]
        kw = {n: v for n, v in args.items() if n not in self.positional}
        return self.call(*pos, **kw)


# --- helpers for the factories --------------------------------------------------------------------------------
def gauss(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def ids(*shape: int, vocab: int = 8, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(seed))


def normal_array(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape)


def probs(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.softmax(gauss(*shape, seed=seed), dim=-1)


def built(factory: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    torch.manual_seed(0)
    module = factory()
    return module.eval() if isinstance(module, torch.nn.Module) else module


def fn(path: str) -> Callable[..., Any]:
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def forward_example(
    path: str, ctor: dict[str, Any], agree: dict[str, int] | None = None, **inputs: Any
) -> Example:
    """The forward call of a freshly built (seeded, eval-mode) module."""
    module = built(lambda: fn(path)(**ctor))
    return Example(module, inputs, agree=agree or {})


def call_example(path: str, agree: dict[str, int] | None = None, **args: Any) -> Example:
    return Example(fn(path), args, agree=agree or {})


def with_grad(call: Callable[..., Any]) -> Callable[..., Any]:
    """`call` with autograd on (the battery runs every example under ``torch.no_grad``), its signature kept: for
    examples that train or differentiate."""

    @functools.wraps(call)
    def run(*args: Any, **kwargs: Any) -> Any:
        with torch.enable_grad():
            return call(*args, **kwargs)

    return run


def fields(record: Any) -> dict[str, Any]:
    """A dataclass record's fields, to rebuild it by keyword."""
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


def case_tables() -> tuple[dict[str, Callable[[], Example]], dict[tuple[str, str, str], str]]:
    """The ``EXAMPLES`` and ``ACCEPTS`` of every module of this package, merged (a name defined twice fails)."""
    examples: dict[str, Callable[[], Example]] = {}
    accepts: dict[tuple[str, str, str], str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        twice = set(examples) & set(module.EXAMPLES)
        if twice:
            raise ValueError(f"tensor_cases/{info.name}.py: examples defined twice: {sorted(twice)}")
        examples.update(module.EXAMPLES)
        accepts.update(getattr(module, "ACCEPTS", {}))
    return examples, accepts
