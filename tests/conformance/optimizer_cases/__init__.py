"""One module per paper that ships optimizers: ``OPTIMIZERS = {name: factory}`` with ``factory(model) -> Optimizer``.

The factory builds the optimizer over *all* of the model's parameters (routing non-matrix ones as its API allows)
with a learning rate that makes a small MLP regression loss fall within 30 steps.
"""
