"""RACS and Alice in the component registry, routed by role (AdamW fallback for the other parameters)."""

from __future__ import annotations

from iclr26.lab.registry import register
from iclr26.optim.racs_alice import RACS, Alice

for _name, _cls, _case in (
    ("RACS", RACS, lambda model: RACS.from_model(model, lr=0.3, fallback_lr=1e-2)),
    (
        "RACS-fixed-point",
        RACS,
        lambda model: RACS.from_model(model, lr=0.3, fallback_lr=1e-2, normalize="fixed_point"),
    ),
    (
        "Alice",
        Alice,
        lambda model: Alice.from_model(
            model, lr=0.05, fallback_lr=1e-2, rank=4, leading_basis=2, update_interval=5
        ),
    ),
    (
        "Alice-0",
        Alice,
        lambda model: Alice.from_model(
            model,
            lr=0.05,
            fallback_lr=1e-2,
            rank=4,
            leading_basis=2,
            update_interval=5,
            betas=(0.9, 0.9, 0.0),
        ),
    ),
):
    register("optimizer", _name, _cls, _case, paper="racs-alice")
