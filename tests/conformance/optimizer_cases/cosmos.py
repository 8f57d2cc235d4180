"""COSMOS (arXiv 2502.17410) in the optimizer battery: both the official-code and the paper variant, routed by role."""

from iclr26.optim.cosmos import COSMOS

OPTIMIZERS = {
    "COSMOS": lambda model: COSMOS.from_model(model, lr=0.05, rank=4),
    "COSMOS-paper": lambda model: COSMOS.from_model(model, lr=0.05, rank=4, variant="paper"),
    "COSMOS-size-rule": lambda model: COSMOS(model.parameters(), lr=0.05, rank=4),
}
