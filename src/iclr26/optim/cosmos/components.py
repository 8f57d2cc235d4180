"""COSMOS in the component registry: the official-code and the paper variant routed by role, and the size rule."""

from __future__ import annotations

from iclr26.lab.registry import register
from iclr26.optim.cosmos import COSMOS

register(
    "optimizer", "COSMOS", COSMOS, lambda model: COSMOS.from_model(model, lr=0.05, rank=4), paper="cosmos"
)
register(
    "optimizer",
    "COSMOS-paper",
    COSMOS,
    lambda model: COSMOS.from_model(model, lr=0.05, rank=4, variant="paper"),
    paper="cosmos",
)
register(
    "optimizer",
    "COSMOS-size-rule",
    COSMOS,
    lambda model: COSMOS(model.parameters(), lr=0.05, rank=4),
    paper="cosmos",
)
