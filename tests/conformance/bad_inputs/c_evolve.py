"""Bad input to C-Evolve's loop, vote, voting score, LLM pieces, tree substrate and config."""

import numpy as np

from iclr26.agents.c_evolve import (
    CEvolve,
    FunctionMutator,
    LLMAggregator,
    LLMReflectiveMutator,
    TreeWorld,
    ema_update,
    majority_vote,
    voting_scores,
)
from iclr26.agents.c_evolve.experiment import CEvolveConfig
from iclr26.lab.llm import ScriptedBackend


def _ev(g):
    return {0: g, 1: g}


def _metric(o):
    return float(o[0] == 0)


_M = FunctionMutator(lambda g, rng, ctx: g + 1)


def _ce(**kw):
    return CEvolve(_ev, _M, _metric, **kw)


def _missing():
    calls = []

    def ev(g):
        calls.append(g)
        return {0: g, 1: g} if len(calls) == 1 else {0: g}

    return CEvolve(ev, _M, _metric).run(6, init=0)


CASES = [
    (lambda: _ce(n_islands=0), ValueError, ["n_islands", ">= 1", "0"]),
    (lambda: _ce(island_size=0), ValueError, ["island_size", ">= 1"]),
    (lambda: _ce(warmup_frac=1.5), ValueError, ["warmup_frac", "[0, 1]", "1.5"]),
    (lambda: _ce(warmup_frac=-0.1), ValueError, ["warmup_frac", "[0, 1]"]),
    (lambda: _ce(ema_alpha=1.2), ValueError, ["ema_alpha", "[0, 1]", "1.2"]),
    (lambda: _ce(ema_alpha=float("nan")), ValueError, ["ema_alpha"]),
    (lambda: _ce(groups_per_iter=0), ValueError, ["groups_per_iter", ">= 1"]),
    (lambda: _ce(migration_rate=2.0), ValueError, ["migration_rate", "[0, 1]"]),
    (lambda: _ce(tau=0.0), ValueError, ["tau", "> 0"]),
    (lambda: _ce(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: _ce(child_ema="child"), ValueError, ["child_ema", "'parent'", "'child'"]),
    (lambda: CEvolve("f", _M, _metric), ValueError, ["evaluate", "callable"]),
    (lambda: CEvolve(_ev, _M, _metric, aggregate=3), ValueError, ["aggregate", "callable"]),
    (lambda: _ce(n_islands=3).run(2, init=0), ValueError, ["budget", ">= 3", "2"]),
    (lambda: _ce().run(9, init=None), ValueError, ["init", "seed genome"]),
    (_missing, ValueError, ["outputs missing ids", "[1]"]),
    (lambda: CEvolve(lambda g: [g], _M, _metric).run(3, init=0), ValueError, ["evaluate", "dict"]),
    (lambda: CEvolve(lambda g: {}, _M, _metric).run(3, init=0), ValueError, ["outputs", "empty"]),
    (lambda: majority_vote([]), ValueError, ["answers", "empty"]),
    (lambda: majority_vote([1, 2], scores=[1.0]), ValueError, ["scores", "one entry per answer"]),
    (lambda: voting_scores([(0, 1)], [0.5, 0.2]), ValueError, ["group_scores", "one entry per group"]),
    (lambda: ema_update(0.5, 0.5, -0.1), ValueError, ["ema_alpha", "[0, 1]"]),
    (
        lambda: LLMReflectiveMutator(ScriptedBackend(["x"]), template="{genome}"),
        ValueError,
        ["template", "{feedback}"],
    ),
    (lambda: LLMReflectiveMutator(ScriptedBackend(["x"]), n_examples=0), ValueError, ["n_examples", ">= 1"]),
    (lambda: LLMReflectiveMutator(None), ValueError, ["backend", "LLMBackend"]),
    (lambda: LLMAggregator(None), ValueError, ["backend", "LLMBackend"]),
    (
        lambda: LLMAggregator(ScriptedBackend(["1"]))([], np.random.default_rng(0)),
        ValueError,
        ["answers", "empty"],
    ),
    (lambda: TreeWorld("iris"), ValueError, ["dataset", "'digits'", "'iris'"]),
    (lambda: TreeWorld("wine", seed=-2), ValueError, ["seed", ">= 0"]),
    (lambda: CEvolveConfig(budget=1), ValueError, ["CEvolveConfig.budget", ">= 3"]),
    (lambda: CEvolveConfig(curve_every=0), ValueError, ["curve_every", ">= 1"]),
]
