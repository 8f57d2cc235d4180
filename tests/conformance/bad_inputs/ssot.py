"""Bad input to SSoT's tasks, prompts, extractors and PIF runner."""

from iclr26.agents.ssot import (
    PIFTask,
    apply_ssot,
    jsd,
    parse,
    prng_band,
    rolling_hash_choice,
    run_pif,
    sum_mod,
)
from iclr26.agents.ssot.experiment import SSoTConfig
from iclr26.agents.ssot.sources import sample_codes

_T = PIFTask(("A", "B"), (0.5, 0.5))

CASES = [
    (lambda: PIFTask(("A", "B"), (0.5, 0.6)), ValueError, ["probs", "sum to 1"]),
    (lambda: PIFTask(("A", "B"), (1.5, -0.5)), ValueError, ["probs", "non-negative"]),
    (lambda: PIFTask(("A", "B", "C"), (0.5, 0.5)), ValueError, ["probs", "options"]),
    (lambda: PIFTask(("A", "a"), (0.5, 0.5)), ValueError, ["options", "distinct"]),
    (lambda: run_pif(None, _T, 0, "prng"), ValueError, ["n_samples", ">= 1"]),
    (lambda: run_pif(None, _T, 10, "magic"), ValueError, ["method", "ssot"]),
    (lambda: run_pif(None, _T, 10, "ssot"), TypeError, ["backend", "LLMBackend"]),
    (lambda: apply_ssot("", ["A", "B"], [0.5, 0.5]), ValueError, ["instruction"]),
    (lambda: apply_ssot("x", ["A", "B"], [0.5, 0.5 + 1e-5]), ValueError, ["probs", "sum to 1"]),
    (lambda: prng_band([0.5, 0.5], 0), ValueError, ["n_samples"]),
    (lambda: jsd([0.5, 0.5], [1.0]), ValueError, ["q", "lengths"]),
    (lambda: sum_mod("abc", 0), ValueError, ["n", ">= 1"]),
    (lambda: sum_mod(3, 2), ValueError, ["s", "str"]),
    (lambda: rolling_hash_choice("abc", [0.7, 0.7]), ValueError, ["probs", "sum to 1"]),
    (lambda: parse(None), ValueError, ["completion", "str"]),
    (lambda: sample_codes("nope", 3, 3, None), ValueError, ["source"]),
    (lambda: SSoTConfig(reps=1), ValueError, ["reps"]),
    (lambda: SSoTConfig(llm=""), ValueError, ["llm", "endpoint"]),
]
