"""Function induction (Ye, Jia, Ren, ICLR 2026): off-by-one addition in context, small-model analogue.

Work in progress: only the prompt/tokenisation layer (:mod:`.tasks`) exists so far; the shared path-patching
tools live in :mod:`iclr26.lab.patching`. The experiment, claim check and figures are not built yet.
"""

from iclr26.mechanisms.function_induction.tasks import Vocab, contrast_pairs

__all__ = ["Vocab", "contrast_pairs"]
