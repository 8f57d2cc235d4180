"""The frozen learning rates of the racs_alice reproduction, read by its experiment (``tuning.py`` writes them)."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["TUNED_LRS_PATH", "load_tuned_lrs"]

TUNED_LRS_PATH = Path(__file__).with_name("tuned_lrs.json")


def load_tuned_lrs(key: str) -> dict[str, float]:
    """The frozen learning rates of budget ``key`` (``{optimizer: lr}``, plus ``fallback`` for RACS/Alice)."""
    table = json.loads(TUNED_LRS_PATH.read_text()) if TUNED_LRS_PATH.exists() else {}
    if key not in table:
        raise KeyError(f"no tuned learning rates for {key!r} in {TUNED_LRS_PATH.name}; have {sorted(table)}")
    return {k: float(v) for k, v in table[key]["lrs"].items()}
