"""``MIPROLike``: block-level automatic prompt optimization, MASS's stage-1 and stage-3 optimizer.

MIPRO (Opsahl-Ong et al., 2024) as MASS uses it: propose I instruction candidates and bootstrap D demo sets
per role, then search over the (instruction, demo set) pairs of every optimized role with a Tree-structured
Parzen Estimator on minibatches of the validation set, and finally score the best few configurations on the
whole validation set. Candidate 0 of every role is always its current prompt, so warm starts are free.

TPE (categorical, independent per dimension, as optuna's default sampler): after ``n_startup`` random trials,
split the trials at the top ``gamma`` fraction of minibatch scores into good and bad, estimate per dimension
l(k) = (good count of k + 1/K) / (n_good + 1) and g(k) likewise from the bad trials, draw ``n_candidates``
configurations from l and take the one maximising sum_d log l_d / g_d.

Every validation item a workflow is run on costs one evaluation unit, charged to an
:class:`~iclr26.lab.evolution.EvaluationBudget` before the run. Proposing instructions (an LLM call per
candidate on real backends) and bootstrapping demos are not charged: they are not workflow evaluations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from iclr26.agents.mass.blocks import Workflow, ops_for
from iclr26.agents.mass.items import LETTERS, ItemSet
from iclr26.agents.mass.prompts import ROLES, Demo, PromptConfig
from iclr26.agents.mass.simulated import SimulatedLLM
from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.evolution import BudgetedEvaluator, EvaluationBudget, PromptMutator
from iclr26.lab.llm import LLMBackend

__all__ = ["PROPOSE_TEMPLATE", "SAMPLERS", "APOResult", "MIPROLike", "as_budget", "root_used", "tpe_suggest"]

SAMPLERS = ("tpe", "random")
PROPOSE_TEMPLATE = (
    "You write instructions for an AI agent that answers multiple-choice questions.\n"
    "Current instruction: {genome}\nExample questions: {examples}\n"
    "Write one new, better instruction (one or two sentences). Reply with the instruction only."
)


def as_budget(budget: int | EvaluationBudget, name: str = "budget") -> EvaluationBudget:
    if isinstance(budget, EvaluationBudget):
        return budget
    return EvaluationBudget(check_int(name, budget, low=1), name=name)


def root_used(budget: EvaluationBudget) -> int:
    """Units used by the outermost budget a sub-budget draws on (the x axis of the search curves)."""
    while budget.parent is not None:
        budget = budget.parent
    return budget.used


def tpe_suggest(
    history: Sequence[tuple[tuple[int, ...], float]],
    sizes: Sequence[int],
    rng: np.random.Generator,
    *,
    gamma: float = 0.25,
    n_candidates: int = 24,
) -> tuple[int, ...]:
    """One TPE suggestion over categorical dimensions of `sizes` from ``(config, score)`` trials (higher is better)."""
    n = len(history)
    n_good = min(max(1, math.ceil(gamma * n)), 25)
    order = sorted(range(n), key=lambda t: -history[t][1])  # stable: earlier trials first among ties
    good = [history[t][0] for t in order[:n_good]]
    bad = [history[t][0] for t in order[n_good:]]
    l_dims, g_dims = [], []
    for d, k in enumerate(sizes):
        cg = np.bincount([c[d] for c in good], minlength=k).astype(float)
        cb = np.bincount([c[d] for c in bad], minlength=k).astype(float)
        l_dims.append((cg + 1.0 / k) / (len(good) + 1.0))
        g_dims.append((cb + 1.0 / k) / (len(bad) + 1.0))
    cands = np.stack([rng.choice(k, size=n_candidates, p=l_dims[d]) for d, k in enumerate(sizes)], axis=1)
    score = sum(np.log(l_dims[d][cands[:, d]]) - np.log(g_dims[d][cands[:, d]]) for d in range(len(sizes)))
    return tuple(int(v) for v in cands[int(np.argmax(score))])


@dataclass
class APOResult:
    """The optimized prompts (every role, optimized or not), their full-validation score and the search trace."""

    prompts: dict[str, PromptConfig]
    val_score: float
    config: dict[str, tuple[int, int]]
    trials: list[dict] = field(default_factory=list)
    curve: list[tuple[int, float]] = field(default_factory=list)


class MIPROLike:
    """MIPRO-style prompt optimization of selected roles of a workflow (see the module docstring).

    Parameters
    ----------
    backend : LLMBackend
        The model the workflow runs on; a :class:`SimulatedLLM` supplies its own instruction and demo pools,
        any other backend gets instructions proposed by a :class:`~iclr26.lab.evolution.PromptMutator` and demos
        bootstrapped from its correct answers on training items.
    n_instructions, n_demo_sets : candidates per role (both include the current prompt's; demo set 0 is empty).
    n_trials : at most this many minibatch trials (None: as many as the budget allows).
    sampler : ``"tpe"`` or ``"random"``.
    minibatch : validation items per trial; n_final : configurations re-scored on the whole validation set.

    Examples
    --------
    >>> from iclr26.agents.mass import SimulatedLLM, Workflow
    >>> llm = SimulatedLLM(0, n_train=12, n_val=20, n_test=10)
    >>> res = MIPROLike(llm, 4, 3).optimize(Workflow(), {"predictor": llm.default_prompt("predictor")},
    ...                                     ("predictor",), llm.train, llm.val, 200, seed=0)
    >>> 0.0 <= res.val_score <= 1.0 and len(res.trials) > 0
    True
    """

    def __init__(
        self,
        backend: LLMBackend,
        n_instructions: int = 10,
        n_demo_sets: int = 10,
        n_trials: int | None = None,
        sampler: str = "tpe",
        *,
        minibatch: int = 25,
        n_final: int = 3,
        n_startup: int = 10,
        gamma: float = 0.25,
        n_candidates: int = 24,
        demo_size: int = 3,
    ) -> None:
        if not isinstance(backend, LLMBackend):
            raise TypeError(f"backend must be an LLMBackend, got {type(backend).__name__}")
        self.backend = backend
        self.n_instructions = check_int("n_instructions", n_instructions, low=1)
        self.n_demo_sets = check_int("n_demo_sets", n_demo_sets, low=1)
        self.n_trials = None if n_trials is None else check_int("n_trials", n_trials, low=1)
        self.sampler = check_choice("sampler", sampler, SAMPLERS)
        self.minibatch = check_int("minibatch", minibatch, low=1)
        self.n_final = check_int("n_final", n_final, low=1)
        self.n_startup = check_int("n_startup", n_startup, low=0)
        self.gamma = check_float("gamma", gamma, 0.0, 1.0, low_open=True)
        self.n_candidates = check_int("n_candidates", n_candidates, low=1)
        self.demo_size = check_int("demo_size", demo_size, low=1)

    # ------------------------------------------------------------------ candidates

    def candidates(
        self, role: str, current: PromptConfig, train: ItemSet, rng: np.random.Generator
    ) -> tuple[list[str], list[tuple[Demo, ...]]]:
        """Instruction and demo-set candidates of `role`, the current prompt's first."""
        if isinstance(self.backend, SimulatedLLM):
            instr = list(self.backend.instructions[role])
            demos = list(self.backend.demo_sets[role])
        else:
            mut = PromptMutator(self.backend, PROPOSE_TEMPLATE, temperature=1.0, max_tokens=128)
            examples = " | ".join(train.questions[: min(3, len(train))])
            instr = [
                mut(current.instruction, rng, {"examples": examples}) for _ in range(self.n_instructions - 1)
            ]
            demos = [()] + self._bootstrap(role, current, train, rng)
        instr = list(dict.fromkeys([current.instruction, *instr]))[: self.n_instructions]
        demos = list(dict.fromkeys([current.demos, *demos]))[: self.n_demo_sets]
        return instr, demos

    def _bootstrap(self, role: str, current: PromptConfig, train: ItemSet, rng) -> list[tuple[Demo, ...]]:
        if role not in ("predictor", "debater") or len(train) == 0:
            return []
        answers = ops_for(self.backend).answer(current, train, int(rng.integers(0, 2**31 - 1)))
        good = np.flatnonzero(answers == train.answers)
        sets = []
        for _ in range(self.n_demo_sets - 1):
            if good.size < self.demo_size:
                break
            pick = rng.choice(good, size=self.demo_size, replace=False)
            opts = [" ".join(f"{LETTERS[k]}) {o}" for k, o in enumerate(train.options[i])) for i in pick]
            sets.append(
                tuple(
                    Demo(f"{train.questions[i]} {o}", LETTERS[train.answers[i]]) for i, o in zip(pick, opts)
                )
            )
        return sets

    # ------------------------------------------------------------------ the search

    def optimize(
        self,
        workflow: Workflow,
        prompts: Mapping[str, PromptConfig],
        roles: Sequence[str],
        train: ItemSet,
        val: ItemSet,
        budget: int | EvaluationBudget,
        seed: int = 0,
    ) -> APOResult:
        """Optimize the prompts of `roles` of `workflow` on `val` within `budget` evaluation units."""
        if not isinstance(workflow, Workflow):
            raise TypeError(f"workflow must be a Workflow, got {type(workflow).__name__}")
        if len(val) == 0:
            raise ValueError("val must hold at least one item (D_val is empty)")
        roles = list(dict.fromkeys(roles))
        if not roles or any(r not in ROLES for r in roles):
            raise ValueError(f"roles must be a non-empty subset of {ROLES}, got {roles!r}")
        missing = sorted(r for r in (*roles, *workflow.roles) if r not in prompts)
        if missing:
            raise ValueError(f"prompts lack a PromptConfig for role(s) {missing}")
        budget = as_budget(budget)
        start = budget.used
        mb = min(self.minibatch, len(val))
        if budget.remaining < len(val) + mb:
            raise ValueError(
                f"budget too small: MIPROLike needs at least |val| + minibatch = {len(val) + mb} evaluations, "
                f"{budget.remaining} left"
            )
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0x41F0]))
        cand = {r: self.candidates(r, prompts[r], train, rng) for r in roles}
        sizes = [n for r in roles for n in (len(cand[r][0]), len(cand[r][1]))]

        def to_prompts(cfg: tuple[int, ...]) -> dict[str, PromptConfig]:
            out = dict(prompts)
            for k, r in enumerate(roles):
                out[r] = PromptConfig(cand[r][0][cfg[2 * k]], cand[r][1][cfg[2 * k + 1]])
            return out

        def run(args):
            cfg, items, s = args
            return items.accuracy(workflow(self.backend, to_prompts(cfg), items, seed=s))

        ev = BudgetedEvaluator(run, budget, cost=lambda a: len(a[1]))
        n_final = max(1, min(self.n_final, int(0.3 * budget.remaining) // len(val)))
        trial_units = budget.remaining - n_final * len(val)
        trials: list[dict] = []
        history: list[tuple[tuple[int, ...], float]] = []
        while trial_units >= mb and (self.n_trials is None or len(trials) < self.n_trials):
            if not history:
                cfg = (0,) * len(sizes)  # the current prompts first
            elif self.sampler == "random" or len(history) < self.n_startup:
                cfg = tuple(int(rng.integers(0, k)) for k in sizes)
            else:
                cfg = tpe_suggest(history, sizes, rng, gamma=self.gamma, n_candidates=self.n_candidates)
            batch = val.subset(np.sort(rng.choice(len(val), size=mb, replace=False)))
            score = ev((cfg, batch, int(rng.integers(0, 2**31 - 1))))
            trial_units -= mb
            history.append((cfg, score))
            trials.append(
                {"config": list(cfg), "score": score, "evals": budget.used - start, "kind": "minibatch"}
            )
        means: dict[tuple[int, ...], list[float]] = {}
        for cfg, s in history:
            means.setdefault(cfg, []).append(s)
        ranked = sorted(means, key=lambda c: -float(np.mean(means[c])))[:n_final]
        best_cfg, best_score, curve = ranked[0], -1.0, []
        for cfg in ranked:
            score = ev((cfg, val, int(rng.integers(0, 2**31 - 1))))
            trials.append({"config": list(cfg), "score": score, "evals": budget.used - start, "kind": "full"})
            curve.append((root_used(budget), score))
            if score > best_score:
                best_cfg, best_score = cfg, score
        config = {r: (int(best_cfg[2 * k]), int(best_cfg[2 * k + 1])) for k, r in enumerate(roles)}
        return APOResult(to_prompts(best_cfg), float(best_score), config, trials, curve)
