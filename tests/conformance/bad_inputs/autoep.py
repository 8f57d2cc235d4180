"""Bad input to AutoEP's ranges, ELA features, controllers, GA and controlled loop."""

import numpy as np

from iclr26.agents.autoep import (
    GATSP,
    FixedController,
    LLMChainController,
    RuleChainController,
    ScheduleController,
    check_ranges,
    clip_theta,
    distance_matrix,
    features,
    run_controlled,
)
from iclr26.agents.autoep.experiment import AutoEPConfig
from iclr26.lab.llm import ScriptedBackend

_C = np.random.default_rng(0).random((6, 2))
_P = np.stack([np.arange(6), np.arange(6)[::-1]])
_LLM = ScriptedBackend(["x"], cycle=True)

CASES = [
    (lambda: check_ranges({"pc": (0.8, 0.4)}), ValueError, ["ranges['pc']", "low < high", "(0.8, 0.4)"]),
    (lambda: check_ranges({"pm": (0.1, 0.1)}), ValueError, ["ranges['pm']", "low < high"]),
    (lambda: check_ranges({"pm": 0.3}), ValueError, ["ranges['pm']", "pair"]),
    (lambda: check_ranges({}), ValueError, ["ranges", "non-empty"]),
    (lambda: clip_theta({"alpha": 1.0}, {"pc": (0.4, 0.8)}), ValueError, ["'alpha'", "not in ranges"]),
    (
        lambda: run_controlled(GATSP(_C, 4), FixedController({"pc": 0.5, "pm": 0.5}), 3, K=0),
        ValueError,
        ["K", ">= 1", "0"],
    ),
    (lambda: run_controlled(GATSP(_C, 4), object(), 3), TypeError, ["controller", "propose"]),
    (lambda: GATSP(_C, 1), ValueError, ["pop_size", ">= 2", "1"]),
    (lambda: GATSP(np.zeros((6, 3))), ValueError, ["coords", "(n, 2)", "(6, 3)"]),
    (lambda: distance_matrix([1.0, 2.0]), ValueError, ["coords", "(n, 2)"]),
    (lambda: GATSP(_C, 4, init="nn"), ValueError, ["init", "'greedy'", "'nn'"]),
    (lambda: GATSP(_C, 4, local_search="3opt"), ValueError, ["local_search", "'2opt'"]),
    (lambda: features(_P[:1], [1.0], _P[0]), ValueError, ["population", "at least 2 rows"]),
    (lambda: features(_P, [1.0], _P[0]), ValueError, ["fitness", "one per row"]),
    (lambda: features(_P, [1.0, np.nan], _P[0]), ValueError, ["fitness", "finite"]),
    (lambda: features(_P, [1.0, 2.0], _P[0][:3]), ValueError, ["best", "shape (6,)"]),
    (lambda: RuleChainController({"pc": (0.4, 0.8)}), ValueError, ["ranges", "'pc' and 'pm'"]),
    (lambda: RuleChainController(step=0.0), ValueError, ["step", "float"]),
    (lambda: ScheduleController(0), ValueError, ["generations", ">= 1"]),
    (lambda: LLMChainController(None, _LLM, _LLM), TypeError, ["backend_analysis", "LLMBackend"]),
    (
        lambda: LLMChainController(_LLM, _LLM, _LLM, prompts={"judge": "x"}),
        ValueError,
        ["prompts", "'judge'"],
    ),
    (lambda: LLMChainController(_LLM, _LLM, _LLM, tags={"pc": "A"}), ValueError, ["tags", "every range"]),
    (lambda: AutoEPConfig(K=0), ValueError, ["AutoEPConfig.K", ">= 1"]),
]
