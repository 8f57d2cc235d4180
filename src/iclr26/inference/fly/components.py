"""FLy's verifiers in the component registry: the experiment's two speculative methods and the verifier battery's
cases.

Both are :class:`~iclr26.inference.fly.core.FlyVerifier` (greedy: they ignore the generator and are run with the
greedy drafter). ``exact-sd`` disables the deferred window, which makes it exact-match speculative decoding
(lossless: token-identical to the target's greedy decoding); ``fly`` is FLy at its defaults (W = 6, theta = 0.3),
which forgives some mismatches and is therefore not lossless. A case takes ``FlyVerifier``'s keyword arguments as
overrides (the experiment passes its config's window and threshold).
"""

from __future__ import annotations

from functools import partial

from iclr26.inference.fly.core import FlyVerifier
from iclr26.lab.registry import register

register(
    "verifier",
    "exact-sd",
    FlyVerifier,
    partial(FlyVerifier, window=None),
    paper="fly",
    lossless=True,
    greedy=True,
)
register("verifier", "fly", FlyVerifier, FlyVerifier, paper="fly", greedy=True)
