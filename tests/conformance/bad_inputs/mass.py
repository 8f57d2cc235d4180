"""Bad input to MASS's blocks, workflow, world, optimizers and search."""

import numpy as np

from iclr26.agents.mass import (
    MASS,
    Aggregate,
    Debate,
    Executor,
    MIPROLike,
    PromptConfig,
    Reflect,
    SimulatedLLM,
    Workflow,
    arithmetic_items,
    majority_vote,
    random_search,
)
from iclr26.agents.mass.experiment import MASSConfig

_W = SimulatedLLM(0, n_train=6, n_val=10, n_test=10)
_P = {"predictor": _W.default_prompt("predictor")}

CASES = [
    (lambda: Aggregate(-1), ValueError, ["Aggregate n", ">= 1", "-1"]),
    (lambda: Reflect(-2), ValueError, ["Reflect rounds", ">= 0"]),
    (lambda: Debate(0, 1), ValueError, ["Debate n_agents", ">= 1"]),
    (lambda: Debate(3, -1), ValueError, ["Debate rounds", ">= 0"]),
    (lambda: Executor("tests"), ValueError, ["run_tests", "callable"]),
    (lambda: Workflow(["predictor", "vote"]), ValueError, ["unknown block name", "'vote'"]),
    (lambda: Workflow.from_spec({"reflekt": 1}), ValueError, ["unknown block name", "'reflekt'"]),
    (lambda: Workflow([Reflect(1), Reflect(2)]), ValueError, ["distinct", "reflect"]),
    (lambda: Workflow([Reflect(1)])(_W, _P, _W.val), ValueError, ["prompts", "reflector"]),
    (lambda: MASS(_W).run(_W.train, _W.val, 100), ValueError, ["budget 100 too small", "stage split"]),
    (lambda: MASS(_W).run(_W.train, _W.val.subset([]), 5000), ValueError, ["val", "D_val is empty"]),
    (lambda: MASS(_W, block_set=("predictor", "vote")), ValueError, ["unknown block names", "vote"]),
    (lambda: MASS(_W, split=(0.5, 0.5, 0.5)), ValueError, ["split", "sum"]),
    (lambda: MASS(_W, stages=(2, 3)), ValueError, ["stages", "containing 1"]),
    (lambda: MASS(_W, temperature=0.0), ValueError, ["temperature", "> 0"]),
    (lambda: MIPROLike(_W, sampler="bayes"), ValueError, ["sampler", "'tpe'"]),
    (lambda: MIPROLike(_W, n_instructions=0), ValueError, ["n_instructions", ">= 1"]),
    (lambda: MIPROLike(None), TypeError, ["backend", "LLMBackend"]),
    (
        lambda: MIPROLike(_W).optimize(Workflow(), _P, ("predictor",), _W.train, _W.val.subset([]), 500),
        ValueError,
        ["val", "empty"],
    ),  # fmt: skip
    (
        lambda: MIPROLike(_W).optimize(Workflow(), _P, ("predictor",), _W.train, _W.val, 15),
        ValueError,
        ["budget too small"],
    ),  # fmt: skip
    (
        lambda: MIPROLike(_W).optimize(Workflow(), _P, ("critic",), _W.train, _W.val, 500),
        ValueError,
        ["roles"],
    ),
    (lambda: random_search(_W, _W.train, _W.val, 500, prompts="best"), ValueError, ["prompts", "'random'"]),
    (lambda: SimulatedLLM(-1), ValueError, ["world_seed", ">= 0"]),
    (lambda: SimulatedLLM(0, n_options=1), ValueError, ["n_options", ">= 2"]),
    (lambda: PromptConfig(""), ValueError, ["instruction", "non-empty"]),
    (lambda: majority_vote(np.zeros(3, int), 4), ValueError, ["answers", "shape"]),
    (lambda: arithmetic_items(0), ValueError, ["n", ">= 1"]),
    (lambda: MASSConfig(budget=0), ValueError, ["MASSConfig.budget", ">= 1"]),
]
