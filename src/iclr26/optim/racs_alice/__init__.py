"""RACS & Alice: Towards Efficient Optimizer Design for LLM via Structured Fisher Approximation with a Low-Rank
Extension (Gong, Scetbon, Ma, Meeds; ICLR 2026, OpenReview KUFZXdem5R, arXiv 2502.07752).

Public API: the optimizers :class:`RACS` and :class:`Alice` (2-D matrices, with an AdamW ``fallback`` group for
everything else; ``from_model`` routes a model's parameters), and the state-size formulas
:func:`racs_state_numel` / :func:`alice_state_numel`. The shared routing helpers
:func:`~iclr26.lab.param_groups.split_param_groups` and :func:`~iclr26.lab.param_groups.state_numel` are
re-exported for convenience.
"""

from iclr26.lab.param_groups import split_param_groups, state_numel
from iclr26.optim.racs_alice.optimizer import RACS, Alice, alice_state_numel, racs_state_numel

__all__ = ["RACS", "Alice", "alice_state_numel", "racs_state_numel", "split_param_groups", "state_numel"]
