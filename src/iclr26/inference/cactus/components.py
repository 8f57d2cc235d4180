"""Cactus's verifiers in the component registry: the decoding roster of the experiment and the verifier battery's
cases.

Each entry is a tensor verifier of :mod:`iclr26.inference.cactus.verifiers` wrapped for the lab's decoding loop
(:class:`~iclr26.inference.cactus.generate.LoopVerifier`, temperature 1). Its case takes the verifier's keyword
arguments as overrides (``case(delta=0.5)``), which is how the experiment passes its config's values. SpS is the
only lossless one; Cactus (``delta = 1``), TAS, top-k and interpolation trade the target's law for acceptance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from iclr26.inference.cactus.generate import LoopVerifier
from iclr26.inference.cactus.verifiers import (
    BaseVerifier,
    CactusVerifier,
    InterpVerifier,
    SpSVerifier,
    TopKVerifier,
    TypicalVerifier,
)
from iclr26.lab.registry import register

__all__ = ["DECODED", "VERIFIERS"]

VERIFIERS: dict[str, type[BaseVerifier]] = {
    "sps": SpSVerifier,
    "cactus": CactusVerifier,
    "tas": TypicalVerifier,
    "topk": TopKVerifier,
    "interp": InterpVerifier,
}
"""The registered verifiers (name -> tensor verifier class); each case is ``LoopVerifier(cls(**overrides))``."""

DECODED: tuple[str, ...] = ("sps", "cactus", "tas")
"""The verifiers the experiment decodes with end to end, in this order."""

_LOSSLESS = {"sps"}


def _case(cls: type[BaseVerifier]) -> Callable[..., LoopVerifier]:
    def case(**overrides: Any) -> LoopVerifier:
        return LoopVerifier(cls(**overrides))

    case.__qualname__ = f"case[{cls.__name__}]"
    return case


for _name, _cls in VERIFIERS.items():
    register("verifier", _name, _cls, _case(_cls), paper="cactus", lossless=_name in _LOSSLESS)
