"""The frozen learning rates of the racs_alice reproduction, read by its experiment (``tuning.py`` writes them)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from iclr26.lab.optim_baselines import read_tuned_lrs

__all__ = ["TUNED_LRS_PATH", "load_tuned_lrs"]

TUNED_LRS_PATH = Path(__file__).with_name("tuned_lrs.json")

#: ``load_tuned_lrs(key)``: the rates of budget ``key`` (``{optimizer: lr}``).
load_tuned_lrs = partial(read_tuned_lrs, TUNED_LRS_PATH)
