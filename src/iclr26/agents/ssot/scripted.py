"""A scripted "SSoT model": writes an i.i.d. alphanumeric string and extracts with Sum-Mod / Rolling-Hash."""

from __future__ import annotations

import re

import numpy as np

from iclr26.agents.ssot.extract import rolling_hash_choice, sum_mod
from iclr26.agents.ssot.sources import ALNUM
from iclr26.checks import check_int
from iclr26.lab.llm import ScriptedBackend

__all__ = ["scripted_ssot_model", "ssot_reply"]


def ssot_reply(prompt: str, rng: np.random.Generator, length: int = 32) -> str:
    """The reply an ideal SSoT model would write to a PIF prompt built by :func:`build_messages`."""
    pairs = re.findall(r"'([^']+)' with probability ([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)", prompt)
    options = [o for o, _ in pairs]
    probs = np.array([float(x) for _, x in pairs])
    probs = probs / probs.sum()
    s = "".join(chr(int(c)) for c in rng.choice(ALNUM, size=length))
    if np.allclose(probs, 1 / len(probs)):
        j, how = sum_mod(s, len(options)), f"sum of codes mod {len(options)}"
    else:
        j, how = (
            rolling_hash_choice(s, probs.tolist()),
            "rolling hash (31, 1e9+7) vs cumulative probabilities",
        )
    return (
        f"<random_string>{s}</random_string>\n<thinking>{how} = {j}</thinking>\n<answer>{options[j]}</answer>"
    )


def scripted_ssot_model(seed: int = 0, length: int = 32) -> ScriptedBackend:
    """A ScriptedBackend answering every prompt with :func:`ssot_reply` (deterministic given `seed`)."""
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    check_int("length", length, low=1)
    return ScriptedBackend(lambda msgs: ssot_reply(msgs[-1].content, rng, length), model="scripted-ssot")
