"""RACS and Alice (arXiv 2502.07752) in the optimizer battery, routed by role (AdamW fallback for the rest)."""

from iclr26.optim.racs_alice import RACS, Alice

OPTIMIZERS = {
    "RACS": lambda model: RACS.from_model(model, lr=0.3, fallback_lr=1e-2),
    "RACS-fixed-point": lambda model: RACS.from_model(
        model, lr=0.3, fallback_lr=1e-2, normalize="fixed_point"
    ),
    "Alice": lambda model: Alice.from_model(
        model, lr=0.05, fallback_lr=1e-2, rank=4, leading_basis=2, update_interval=5
    ),
    "Alice-0": lambda model: Alice.from_model(
        model, lr=0.05, fallback_lr=1e-2, rank=4, leading_basis=2, update_interval=5, betas=(0.9, 0.9, 0.0)
    ),
}
