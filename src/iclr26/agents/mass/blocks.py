"""MASS's building blocks and their composition into a workflow (Zhou et al., ICLR 2026, arXiv 2502.02533).

A workflow W is a base Predictor wrapped by optional blocks, composed in the paper's fixed order

    Summarize -> [ Aggregate(N) x [ Debate(n, R_d) x [ Predictor -> Executor -> Reflect(R) ] ] ]

* Summarize: one summarizer call per item; its summary is the context of every later call.
* the chain: the predictor answers; Executor (code items only) runs the tests and, when they fail, the
  predictor answers again knowing that answer failed; Reflect(R): R rounds of a reviewer (``reflector``) judging
  the answer, and the predictor answering again where it was judged wrong.
* Debate(n, R_d): n debaters each run the chain with the ``debater`` prompt, then R_d rounds in which every
  debater sees the others' current answers and gives a new one; the final answer is their majority vote.
* Aggregate(N): N independent copies of what is inside, majority vote.

Every agent call has a place (slot, step, op) hashed with the evaluation seed into its call seed, so two
workflows that make the same call make it with the same seed: ``Aggregate(1)`` is the Predictor, and
``Debate(n, 0)`` whose debaters use the predictor's prompt is ``Aggregate(n)``.

Blocks work over any chat backend (through :class:`~iclr26.agents.mass.prompts.ChatOps`) and over the
simulated world's vectorised requests. Each block is itself callable: ``Reflect(1)(backend, prompts, items)``
runs the minimal workflow made of that block around a Predictor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from iclr26.agents.mass.items import ItemSet
from iclr26.agents.mass.prompts import ChatOps, PromptConfig, call_seed
from iclr26.agents.mass.simulated import SimulatedLLM, majority_vote
from iclr26.checks import check_array, check_int
from iclr26.lab.llm import LLMBackend

__all__ = [
    "BLOCK_NAMES",
    "Aggregate",
    "Block",
    "Debate",
    "Executor",
    "Predictor",
    "Reflect",
    "Summarize",
    "Workflow",
    "ground_truth_tests",
    "ops_for",
]

BLOCK_NAMES = ("summarize", "executor", "reflect", "debate", "aggregate")
OP_ANSWER, OP_TESTS, OP_VERIFY, OP_REFINE, OP_DEBATE, OP_SUMMARIZE = range(6)


def ground_truth_tests(items: ItemSet, answers: np.ndarray) -> np.ndarray:
    """The default tests of an Executor: an answer passes iff it is the correct option (unit tests that decide)."""
    if not isinstance(items, ItemSet):
        raise TypeError(f"items must be an ItemSet, got {type(items).__name__}")
    a = check_array("answers", answers, ndim=1, integer=True)
    if a.shape != (len(items),):
        raise ValueError(f"answers must hold one option index per item: shape ({len(items)},), got {a.shape}")
    return a == items.answers


def ops_for(backend: LLMBackend):
    """The object that serves agent requests: the simulated world itself (vectorised), else :class:`ChatOps`."""
    if isinstance(backend, SimulatedLLM):
        return backend
    if isinstance(backend, ChatOps):
        return backend
    if not isinstance(backend, LLMBackend):
        raise TypeError(f"backend must be an LLMBackend, got {type(backend).__name__}")
    return ChatOps(backend)


class Block:
    """Base class: a block is a value (its sizes) and is callable as its minimal workflow."""

    name = ""

    def __call__(
        self, backend: LLMBackend, prompts: Mapping[str, PromptConfig], items: ItemSet, seed: int = 0
    ) -> np.ndarray:
        return Workflow([self])(backend, prompts, items, seed)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(vars(self).items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class Predictor(Block):
    """The base agent: one ``predictor`` call per item (the CoT baseline with its default prompt)."""

    name = "predictor"


class Aggregate(Block):
    """N parallel copies of the inner workflow, majority vote (self-consistency with default prompts)."""

    name = "aggregate"

    def __init__(self, n: int = 3) -> None:
        self.n = check_int("Aggregate n", n, low=1)


class Reflect(Block):
    """R rounds of review by the ``reflector`` and re-answer by the predictor where judged wrong (self-refine)."""

    name = "reflect"

    def __init__(self, rounds: int = 1) -> None:
        self.rounds = check_int("Reflect rounds", rounds, low=0)


class Debate(Block):
    """n debaters (``debater`` prompt) run the chain, then `rounds` rounds seeing each other's answers; vote."""

    name = "debate"

    def __init__(self, n_agents: int = 3, rounds: int = 1) -> None:
        self.n_agents = check_int("Debate n_agents", n_agents, low=1)
        self.rounds = check_int("Debate rounds", rounds, low=0)


class Summarize(Block):
    """One ``summarizer`` call per item; the summary is the context of every later call."""

    name = "summarize"


class Executor(Block):
    """On code items, run ``run_tests(items, answers) -> passed`` and re-answer where the tests fail."""

    name = "executor"

    def __init__(self, run_tests: Callable[[ItemSet, np.ndarray], np.ndarray] = ground_truth_tests) -> None:
        if not callable(run_tests):
            raise ValueError(
                f"Executor run_tests must be callable as run_tests(items, answers), got {run_tests!r}"
            )
        self.run_tests = run_tests


def _as_block(b: Block | str) -> Block:
    if isinstance(b, Block):
        return b
    table = {"predictor": Predictor, "summarize": Summarize, "executor": Executor, "reflect": Reflect,
             "debate": Debate, "aggregate": Aggregate}  # fmt: skip
    if not isinstance(b, str) or b not in table:
        raise ValueError(f"unknown block name {b!r}; blocks are {', '.join(table)}")
    return table[b]()


@dataclass(frozen=True)
class Workflow:
    """A Predictor with optional blocks, composed in the canonical order whatever order they are given in.

    Examples
    --------
    >>> w = Workflow([Aggregate(3), Reflect(1), "summarize"])
    >>> w.describe(), w.n_agents, sorted(w.roles)
    ('summarize > reflect(1) > aggregate(3)', 7, ['predictor', 'reflector', 'summarizer'])
    """

    blocks: tuple[Block, ...] = field(default_factory=tuple)

    def __init__(self, blocks: Sequence[Block | str] = ()) -> None:
        if isinstance(blocks, (str, Block)):
            blocks = [blocks]
        given = [_as_block(b) for b in blocks]
        given = [b for b in given if not isinstance(b, Predictor)]
        names = [b.name for b in given]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"Workflow blocks must be distinct block types, got {dup} more than once")
        order = sorted(given, key=lambda b: BLOCK_NAMES.index(b.name))
        object.__setattr__(self, "blocks", tuple(order))

    def get(self, name: str) -> Block | None:
        return next((b for b in self.blocks if b.name == name), None)

    @classmethod
    def from_spec(cls, spec: Mapping[str, object]) -> Workflow:
        """From ``{"summarize": bool, "executor": bool, "reflect": R, "debate": (n, R_d), "aggregate": N}``;
        falsy entries (0, False, None, N = 1) are off."""
        blocks: list[Block] = []
        for name, v in spec.items():
            if name not in BLOCK_NAMES:
                raise ValueError(f"unknown block name {name!r}; blocks are {', '.join(BLOCK_NAMES)}")
            if not v or (name == "aggregate" and v == 1):
                continue
            if name == "aggregate":
                blocks.append(Aggregate(int(v)))
            elif name == "reflect":
                blocks.append(Reflect(int(v)))
            elif name == "debate":
                n, r = v if isinstance(v, (tuple, list)) else (v, 1)
                blocks.append(Debate(int(n), int(r)))
            else:
                blocks.append(_as_block(name))
        return cls(blocks)

    def spec(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for b in self.blocks:
            if isinstance(b, Aggregate):
                out[b.name] = b.n
            elif isinstance(b, Reflect):
                out[b.name] = b.rounds
            elif isinstance(b, Debate):
                out[b.name] = (b.n_agents, b.rounds)
            else:
                out[b.name] = True
        return out

    def describe(self) -> str:
        parts = []
        for b in self.blocks:
            if isinstance(b, Aggregate):
                parts.append(f"aggregate({b.n})")
            elif isinstance(b, Reflect):
                parts.append(f"reflect({b.rounds})")
            elif isinstance(b, Debate):
                parts.append(f"debate({b.n_agents},{b.rounds})")
            else:
                parts.append(b.name)
        return " > ".join(parts) or "predictor"

    @property
    def roles(self) -> frozenset[str]:
        """The prompt roles this workflow calls."""
        roles = {"debater"} if self.get("debate") is not None else {"predictor"}
        ref = self.get("reflect")
        if ref is not None and ref.rounds > 0:
            roles.add("reflector")
        if self.get("summarize") is not None:
            roles.add("summarizer")
        return frozenset(roles)

    @property
    def n_agents(self) -> int:
        """LLM agents: the summarizer, and per copy x debater an answerer plus a reviewer when R > 0."""
        agg, deb, ref = self.get("aggregate"), self.get("debate"), self.get("reflect")
        per_chain = 1 + int(ref is not None and ref.rounds > 0)
        return (
            int(self.get("summarize") is not None)
            + (agg.n if agg else 1) * (deb.n_agents if deb else 1) * per_chain
        )

    def __call__(
        self, backend: LLMBackend, prompts: Mapping[str, PromptConfig], items: ItemSet, seed: int = 0
    ) -> np.ndarray:
        """Option indices (-1: no option parsed) for every item; deterministic given `seed`."""
        missing = sorted(r for r in self.roles if r not in prompts)
        if missing:
            raise ValueError(
                f"prompts lack a PromptConfig for role(s) {missing} of workflow {self.describe()}"
            )
        if len(items) == 0:
            return np.zeros(0, dtype=int)
        ops = ops_for(backend)
        n_opt = items.n_options
        ctx = None
        if self.get("summarize") is not None:
            ctx = ops.summarize(prompts["summarizer"], items, call_seed(seed, (0, 0, OP_SUMMARIZE)))
        ex, ref, deb, agg = (self.get(n) for n in ("executor", "reflect", "debate", "aggregate"))

        def sub(c, idx):
            return None if c is None else c[idx]

        def chain(slot: int, p: PromptConfig) -> np.ndarray:
            a = ops.answer(p, items, call_seed(seed, (slot, 0, OP_ANSWER)), ctx)
            if ex is not None:
                fix = np.flatnonzero(items.code & ~np.asarray(ex.run_tests(items, a), dtype=bool))
                if fix.size:
                    s = call_seed(seed, (slot, 0, OP_TESTS))
                    a[fix] = ops.answer(p, items.subset(fix), s, sub(ctx, fix), a[fix], reason="tests")
            for r in range(1, (ref.rounds if ref is not None else 0) + 1):
                flags = ops.verify(prompts["reflector"], items, a, call_seed(seed, (slot, r, OP_VERIFY)), ctx)
                fix = np.flatnonzero(flags)
                if fix.size:
                    s = call_seed(seed, (slot, r, OP_REFINE))
                    a[fix] = ops.answer(p, items.subset(fix), s, sub(ctx, fix), a[fix], reason="reflect")
            return a

        def unit(u: int) -> np.ndarray:
            if deb is None:
                return chain(u, prompts["predictor"])
            n = deb.n_agents
            A = np.stack([chain(u * n + b, prompts["debater"]) for b in range(n)], axis=1)
            for t in range(1, deb.rounds + 1):
                new = A.copy()
                for b in range(n):
                    others = np.delete(A, b, axis=1) if n > 1 else A
                    s = call_seed(seed, (u * n + b, t, OP_DEBATE))
                    new[:, b] = ops.answer(prompts["debater"], items, s, ctx, peers=others, reason="debate")
                A = new
            return majority_vote(A, n_opt)

        copies = agg.n if agg is not None else 1
        if copies == 1:
            return unit(0)
        return majority_vote(np.stack([unit(u) for u in range(copies)], axis=1), n_opt)
