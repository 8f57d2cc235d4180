"""The synthetic reasoning testbed: path finding in layered random DAGs and modular-arithmetic chains.

Token layout (vocabulary of 20 ids):

* ``0..11``: node labels / residues mod 12;
* ``BOS, SEP, THINK, END, EOS, PLUS, TIMES, PAD``: 12..19.

DAG problem (fixed length): ``BOS (u v)*E SEP s g THINK  s a a g  END  s a g  EOS``. The graph has 3 layers of
4 nodes with randomly permuted labels; ``E = 12`` edges join consecutive layers, and problems are redrawn until
at least two shortest ``s -> g`` paths exist. The thinking trace is one of them drawn uniformly, written edge by
edge (``s a, a g``), so the choice of the middle node is genuinely multi-modal and the step after it (repeating
the chosen node) depends on that choice; the answer restates the path discretely and is correct when it is a
valid ``s -> g`` path of the graph.

Modular chain: ``BOS x0 (op x)*L SEP THINK r1 .. rL END rL EOS`` with running results ``r_i`` mod 12 (op in
{+, *}); the answer is correct when it equals ``r_L``.

The model (:class:`iclr26.lab.transformer.Transformer`) is trained only on these discrete traces;
:func:`trained_model` caches it per config hash and seed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_probability
from iclr26.lab.cache import cached_torch
from iclr26.lab.tasks import IGNORE_INDEX
from iclr26.lab.training import sequence_loss, train_loop
from iclr26.lab.transformer import Transformer

__all__ = [
    "BOS",
    "END",
    "EOS",
    "N_LAYERS_DAG",
    "N_SYMBOLS",
    "PAD",
    "PLUS",
    "SEP",
    "THINK",
    "TIMES",
    "VOCAB_SIZE",
    "Problem",
    "TrainConfig",
    "check_answer",
    "dag_problem",
    "guess_accuracy",
    "make_problems",
    "mod_problem",
    "shortest_paths",
    "trained_model",
    "training_batch",
]

N_SYMBOLS = 12
BOS, SEP, THINK, END, EOS, PLUS, TIMES, PAD = range(N_SYMBOLS, N_SYMBOLS + 8)
VOCAB_SIZE = N_SYMBOLS + 8
N_LAYERS_DAG = 3
WIDTH_DAG = 4
N_EDGES = 12
MIN_PATHS = 2
CHAIN_LEN = 5
SEQ_LEN = 48


@dataclass
class Problem:
    """One test problem: the prompt (ending in THINK), a reference trace and what a correct answer needs."""

    kind: str  # "dag" or "mod"
    prompt: list[int]
    trace: list[int]  # reference thinking trace (one valid path edge by edge, or the running results)
    answer: list[int]  # reference answer tokens
    edges: frozenset[tuple[int, int]] = frozenset()
    start: int = -1
    goal: int = -1


def shortest_paths(
    edges: set[tuple[int, int]] | frozenset[tuple[int, int]], s: int, g: int
) -> list[list[int]]:
    """All shortest directed paths from `s` to `g` (breadth-first layers, then enumeration)."""
    succ: dict[int, list[int]] = {}
    for u, v in edges:
        succ.setdefault(u, []).append(v)
    dist = {s: 0}
    frontier = [s]
    while frontier and g not in dist:
        nxt = []
        for u in frontier:
            for v in succ.get(u, []):
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        frontier = nxt
    if g not in dist:
        return []
    out: list[list[int]] = []

    def walk(path: list[int]) -> None:
        u = path[-1]
        if u == g:
            out.append(path)
            return
        for v in sorted(succ.get(u, [])):
            if dist.get(v) == dist[u] + 1 and dist[v] <= dist[g]:
                walk([*path, v])

    walk([s])
    return [p for p in out if len(p) == dist[g] + 1]


def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def dag_problem(rng: np.random.Generator) -> tuple[Problem, list[list[int]]]:
    """A random layered DAG with at least two shortest start-goal paths; returns the problem and all of them."""
    _check_rng(rng)
    while True:
        labels = rng.permutation(N_SYMBOLS)[: N_LAYERS_DAG * WIDTH_DAG].reshape(N_LAYERS_DAG, WIDTH_DAG)
        cand = [
            (int(labels[layer, i]), int(labels[layer + 1, j]))
            for layer in range(N_LAYERS_DAG - 1)
            for i in range(WIDTH_DAG)
            for j in range(WIDTH_DAG)
        ]
        pick = rng.choice(len(cand), size=N_EDGES, replace=False)
        edges = frozenset(cand[i] for i in pick)
        s = int(labels[0, rng.integers(WIDTH_DAG)])
        g = int(labels[-1, rng.integers(WIDTH_DAG)])
        paths = shortest_paths(edges, s, g)
        if len(paths) >= MIN_PATHS:
            break
    order = rng.permutation(N_EDGES)
    listed = [cand[pick[i]] for i in order]
    prompt = [BOS] + [t for e in listed for t in e] + [SEP, s, g, THINK]
    path = paths[int(rng.integers(len(paths)))]
    trace = [t for u, v in zip(path, path[1:]) for t in (u, v)]  # the path written edge by edge
    return Problem("dag", prompt, trace, list(path), edges, s, g), paths


def mod_problem(rng: np.random.Generator) -> Problem:
    """A chain ``x0 op1 x1 ... opL xL`` mod 12 with running results as the trace."""
    _check_rng(rng)
    xs = rng.integers(0, N_SYMBOLS, size=CHAIN_LEN + 1)
    ops = rng.integers(0, 2, size=CHAIN_LEN)
    prompt = [BOS, int(xs[0])]
    acc = int(xs[0])
    trace = []
    for op, x in zip(ops, xs[1:]):
        prompt += [TIMES if op else PLUS, int(x)]
        acc = (acc * int(x)) % N_SYMBOLS if op else (acc + int(x)) % N_SYMBOLS
        trace.append(acc)
    prompt += [SEP, THINK]
    return Problem("mod", prompt, trace, [acc])


def make_problems(n: int, kind: str, seed: int) -> list[Problem]:
    """`n` problems of `kind` ('dag' or 'mod'), deterministic in `seed`."""
    if kind not in ("dag", "mod"):
        raise ValueError(f"kind must be 'dag' or 'mod', got {kind!r}")
    check_int("n", n, low=1)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    return [dag_problem(rng)[0] if kind == "dag" else mod_problem(rng) for _ in range(n)]


def guess_accuracy(problem: Problem) -> float:
    """Success probability of a guesser that knows the answer format: it copies start and goal and picks the
    middle node uniformly from the DAG's middle layer (a chain's residue uniformly from the 12)."""
    if problem.kind == "mod":
        return 1.0 / N_SYMBOLS
    return len(shortest_paths(problem.edges, problem.start, problem.goal)) / WIDTH_DAG


def check_answer(problem: Problem, answer: list[int]) -> bool:
    """Whether `answer` (tokens after END, EOS stripped) solves `problem`."""
    if not isinstance(problem, Problem):
        raise TypeError(f"problem must be a Problem, got {type(problem).__name__}")
    if not isinstance(answer, list):
        raise TypeError(f"answer must be a list of token ids, got {type(answer).__name__}")
    if EOS in answer:
        answer = answer[: answer.index(EOS)]
    if problem.kind == "mod":
        return answer == problem.answer
    if len(answer) != len(problem.answer) or answer[0] != problem.start or answer[-1] != problem.goal:
        return False
    return all((u, v) in problem.edges for u, v in zip(answer, answer[1:]))


def _sequence(p: Problem) -> tuple[list[int], int]:
    """Full training sequence and the index of its THINK token."""
    return p.prompt + p.trace + [END] + p.answer + [EOS], len(p.prompt) - 1


def training_batch(rng: np.random.Generator, batch: int, dag_frac: float = 0.5) -> tuple[Tensor, Tensor]:
    """Inputs and next-token targets (loss only on the trace, END, answer and EOS), padded with PAD."""
    _check_rng(rng)
    check_int("batch", batch, low=1)
    check_probability("dag_frac", dag_frac)
    seqs = []
    for _ in range(batch):
        p = dag_problem(rng)[0] if rng.random() < dag_frac else mod_problem(rng)
        seqs.append(_sequence(p))
    width = max(len(s) for s, _ in seqs)
    x = torch.full((batch, width - 1), PAD, dtype=torch.long)
    y = torch.full((batch, width - 1), IGNORE_INDEX, dtype=torch.long)
    for i, (s, think) in enumerate(seqs):
        t = torch.tensor(s)
        x[i, : len(s) - 1] = t[:-1]
        y[i, think : len(s) - 1] = t[think + 1 :]
    return x, y


@dataclass(frozen=True)
class TrainConfig:
    """The tiny GPT and its training run (discrete traces only)."""

    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 4
    steps: int = 1500
    batch: int = 64
    lr: float = 2e-3
    dag_frac: float = 0.6

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "steps", "batch"):
            check_int(name, getattr(self, name), low=1)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_probability("dag_frac", self.dag_frac)


def trained_model(cfg: TrainConfig, seed: int, use_cache: bool = True, device: str = "cpu") -> Transformer:
    """The tiny GPT for `cfg` and `seed`: loaded from the cache when present, else trained on `device` (and
    cached); returned in eval mode on `device`. Weights are initialised and batches drawn on the CPU, then moved,
    so the CPU run does not depend on the device code path."""
    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"cfg must be a TrainConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)
    model = Transformer(VOCAB_SIZE, SEQ_LEN, cfg.d_model, cfg.n_layers, cfg.n_heads, init_seed=seed).to(
        device
    )

    def train() -> dict[str, Tensor]:
        def loss_fn(m: torch.nn.Module, gen: torch.Generator) -> Tensor:
            rng = np.random.default_rng(int(torch.randint(0, 2**62, (1,), generator=gen)))
            x, y = training_batch(rng, cfg.batch, cfg.dag_frac)
            return sequence_loss(m(x.to(device), validate=False), y.to(device))

        train_loop(
            model,
            loss_fn,
            steps=cfg.steps,
            lr=cfg.lr,
            seed=seed,
            weight_decay=0.01,
            description="soft-thinking GPT",
        )
        return {k: v.detach().cpu() for k, v in model.state_dict().items()}

    key = {"seed": seed, **dataclasses.asdict(cfg)}
    if device != "cpu":  # a model trained on another device is a different model; CPU keys are unchanged
        key["device"] = str(device)
    model.load_state_dict(cached_torch("soft_thinking", key, train, cache=use_cache, version=2))
    return model.eval()
