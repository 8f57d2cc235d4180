"""SSoT: "String Seed of Thought: Prompting LLMs for Distribution-Faithful and Diverse Generation".

Misaki, Akiba (Sakana AI), ICLR 2026, arXiv 2510.21150. The method is a prompt: write a random string, derive
the answer from it by a deterministic manipulation (Sum-Mod for uniform targets, Rolling-Hash for skewed ones).
Here: the prompt transform and parser, the extractors and the Sum-Mod Fourier bound, the PIF task suite, JSD
and the PRNG band, offline string sources, and an endpoint path (``python -m iclr26.agents.ssot --llm``).

Example
-------
>>> from iclr26.agents.ssot import PIFTask, run_pif, scripted_ssot_model, sum_mod, tv_bound_sum_mod
>>> sum_mod("ab", 3)
0
>>> r = run_pif(scripted_ssot_model(0), PIFTask(("heads", "tails"), (0.5, 0.5)), 50, "ssot")
>>> int(r.counts.sum()), r.invalid
(50, 0)
"""

from iclr26.agents.ssot.backends import HFLocalBackend, OpenAIChatBackend
from iclr26.agents.ssot.extract import (
    rolling_hash_choice,
    rolling_hash_choices,
    sum_mod,
    sum_mod_choices,
    sum_mod_distribution,
    sum_mod_distribution_conv,
    tv_bound_sum_mod,
    tv_exact_sum_mod,
)
from iclr26.agents.ssot.pif import METHODS, TASKS, PIFResult, PIFTask, jsd, prng_band, run_pif, task_suite
from iclr26.agents.ssot.prompts import SSOT_SUFFIX, ParsedSSoT, apply_ssot, build_messages, parse
from iclr26.agents.ssot.scripted import scripted_ssot_model, ssot_reply
from iclr26.agents.ssot.sources import SOURCES, bigram_model, sample_codes, stdlib_docstrings
from iclr26.lab.llm import LLMBackend, ScriptedBackend

__all__ = [
    "METHODS", "SOURCES", "SSOT_SUFFIX", "TASKS", "HFLocalBackend", "LLMBackend", "OpenAIChatBackend",
    "PIFResult", "PIFTask", "ParsedSSoT", "ScriptedBackend", "apply_ssot", "bigram_model", "build_messages",
    "jsd", "parse", "prng_band", "rolling_hash_choice", "rolling_hash_choices", "run_pif", "sample_codes",
    "scripted_ssot_model", "ssot_reply", "stdlib_docstrings", "sum_mod", "sum_mod_choices",
    "sum_mod_distribution", "sum_mod_distribution_conv", "task_suite", "tv_bound_sum_mod", "tv_exact_sum_mod",
]  # fmt: skip
