"""The synthetic multi-task in-context-learning family of the denoising-heads reproduction (arXiv 2509.21012).

Tokens: input symbols ``0 .. n_inputs-1`` and labels ``n_inputs + t * n_labels + j`` (task t, label j), so the
T label sets are disjoint. Task t maps an input x to its label by a fixed random function f_t (drawn from the
family seed), so every x has a valid answer in every task. A k-shot prompt is

    x_1 y_1 x_2 y_2 ... x_k y_k x_q        (length 2k + 1; the model should answer y_q = f_t(x_q))

with all demonstrations from one task t. A training sequence of ``max_shots`` demonstrations followed by a query
pair contains the k-shot prompts for every k in 0..max_shots as its prefixes, with targets at the input
positions.

Example
-------
>>> fam = make_task_family(n_inputs=16, n_tasks=2, n_labels=4, seed=0)
>>> batch = icl_prompts(fam, n=3, k=2, generator=torch.Generator().manual_seed(0))
>>> batch.tokens.shape, batch.targets.shape
(torch.Size([3, 5]), torch.Size([3]))
>>> bool((fam.label_table[batch.tasks, batch.tokens[:, -1]] == batch.targets).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_int, check_tensor, check_token_ids
from iclr26.lab.tasks import IGNORE_INDEX

__all__ = ["ICLBatch", "TaskFamily", "icl_prompts", "make_task_family", "training_sequences"]

LABEL_CONDITIONS = ("random", "present", "absent")


def _check_generator(generator: object) -> None:
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")


@dataclass(frozen=True)
class TaskFamily:
    """T tasks over ``n_inputs`` symbols; ``label_table[t, x]`` is the token id of task t's answer to x."""

    n_inputs: int
    n_tasks: int
    n_labels: int
    label_table: Tensor  # (n_tasks, n_inputs) int64 token ids

    def __post_init__(self) -> None:
        check_int("n_inputs", self.n_inputs, low=1)
        check_int("n_tasks", self.n_tasks, low=1)
        check_int("n_labels", self.n_labels, low=1)
        check_tensor("label_table", self.label_table, floating=False, shape=(self.n_tasks, self.n_inputs))
        check_token_ids("label_table", self.label_table, self.vocab_size)

    @property
    def vocab_size(self) -> int:
        """Inputs plus all tasks' labels."""
        return self.n_inputs + self.n_tasks * self.n_labels

    def label_sets(self) -> Tensor:
        """(n_tasks, n_labels) token ids of each task's label set."""
        return self.n_inputs + torch.arange(self.n_tasks * self.n_labels).view(self.n_tasks, self.n_labels)


def make_task_family(n_inputs: int = 64, n_tasks: int = 4, n_labels: int = 8, seed: int = 0) -> TaskFamily:
    """Draw the T random functions f_t: inputs -> own label set (each label used ~n_inputs/n_labels times)."""
    check_int("n_inputs", n_inputs, low=2)
    check_int("n_tasks", n_tasks, low=1)
    check_int("n_labels", n_labels, low=2)
    if n_labels > n_inputs:
        raise ValueError(f"n_labels must be <= n_inputs={n_inputs}, got {n_labels}")
    check_int("seed", seed, low=0)
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for t in range(n_tasks):
        # balanced: every label gets floor/ceil(n_inputs / n_labels) inputs, in a random order
        base = torch.arange(n_inputs) % n_labels
        rows.append(n_inputs + t * n_labels + base[torch.randperm(n_inputs, generator=gen)])
    return TaskFamily(n_inputs, n_tasks, n_labels, torch.stack(rows))


@dataclass(frozen=True)
class ICLBatch:
    """k-shot prompts (n, 2k + 1), the intended answers (n,), tasks (n,), query inputs (n,), label sets."""

    tokens: Tensor
    targets: Tensor
    tasks: Tensor
    queries: Tensor
    label_sets: Tensor | None = None  # (n_tasks, n_labels) of the family

    def __post_init__(self) -> None:
        check_tensor("tokens", self.tokens, ndim=2, floating=False)
        n = self.tokens.shape[0]
        for name in ("targets", "tasks", "queries"):
            check_tensor(name, getattr(self, name), floating=False, shape=(n,))
        if self.label_sets is not None:
            check_tensor("label_sets", self.label_sets, ndim=2, floating=False)
            n_tasks = self.label_sets.shape[0]
            if n and (int(self.tasks.min()) < 0 or int(self.tasks.max()) >= n_tasks):
                raise ValueError(
                    f"tasks must lie in [0, {n_tasks}) (one row of label_sets per task), got values in "
                    f"[{int(self.tasks.min())}, {int(self.tasks.max())}]"
                )

    def to(self, device: str | torch.device) -> ICLBatch:
        """The same batch with every tensor on `device` (the batch itself when nothing moves)."""
        ls = None if self.label_sets is None else self.label_sets.to(device)
        return ICLBatch(
            self.tokens.to(device),
            self.targets.to(device),
            self.tasks.to(device),
            self.queries.to(device),
            ls,
        )


def _demo_inputs(
    fam: TaskFamily, task: int, xq: int, k: int, condition: str, generator: torch.Generator
) -> Tensor:
    """k distinct demo inputs != xq, honouring the label condition for the query's answer."""
    labels = fam.label_table[task]
    pool = torch.tensor([x for x in range(fam.n_inputs) if x != xq])
    if condition == "absent":
        pool = pool[labels[pool] != labels[xq]]
    if len(pool) < k:
        raise ValueError(f"k={k} demonstrations do not fit the {condition!r} condition ({len(pool)} inputs)")
    demos = pool[torch.randperm(len(pool), generator=generator)[:k]]
    if condition == "present" and k > 0 and not bool((labels[demos] == labels[xq]).any()):
        same = pool[labels[pool] == labels[xq]]
        if len(same) == 0:
            raise ValueError("the 'present' condition needs another input with the query's label")
        pick = same[torch.randint(len(same), (1,), generator=generator)]
        demos[torch.randint(k, (1,), generator=generator)] = pick
    return demos


def icl_prompts(
    family: TaskFamily,
    n: int,
    k: int,
    generator: torch.Generator,
    tasks: Tensor | None = None,
    queries: Tensor | None = None,
    label_condition: str = "random",
) -> ICLBatch:
    """Draw n k-shot prompts of the family.

    Parameters
    ----------
    family : the task family.
    n : number of prompts.
    k : demonstrations per prompt (0 = zero-shot, the prompt is just the query input).
    generator : torch generator driving every draw.
    tasks : (n,) task ids (uniform when None).
    queries : (n,) query inputs (uniform when None).
    label_condition : ``"random"`` (demos uniform among inputs != query), ``"present"`` (the query's answer
        occurs among the demo labels) or ``"absent"`` (it never does).
    """
    check_int("n", n, low=1)
    check_int("k", k, low=0)
    _check_generator(generator)
    if label_condition not in LABEL_CONDITIONS:
        raise ValueError(f"label_condition must be one of {LABEL_CONDITIONS}, got {label_condition!r}")
    if k > family.n_inputs - 1:
        raise ValueError(f"k must be < n_inputs={family.n_inputs}, got {k}")
    if tasks is None:
        tasks = torch.randint(family.n_tasks, (n,), generator=generator)
    if queries is None:
        queries = torch.randint(family.n_inputs, (n,), generator=generator)
    tasks, queries = torch.as_tensor(tasks).long(), torch.as_tensor(queries).long()
    if tasks.shape != (n,) or queries.shape != (n,):
        raise ValueError(
            f"tasks and queries must have shape ({n},), got {tuple(tasks.shape)}, {tuple(queries.shape)}"
        )
    if int(tasks.min()) < 0 or int(tasks.max()) >= family.n_tasks:
        raise ValueError(f"tasks must lie in [0, {family.n_tasks}), got {tasks.tolist()}")
    if int(queries.min()) < 0 or int(queries.max()) >= family.n_inputs:
        raise ValueError(f"queries must lie in [0, {family.n_inputs})")
    tokens = torch.empty(n, 2 * k + 1, dtype=torch.long)
    for i in range(n):
        t, xq = int(tasks[i]), int(queries[i])
        demos = _demo_inputs(family, t, xq, k, label_condition, generator)
        tokens[i, 0 : 2 * k : 2] = demos
        tokens[i, 1 : 2 * k : 2] = family.label_table[t, demos]
        tokens[i, -1] = xq
    targets = family.label_table[tasks, queries]
    return ICLBatch(tokens, targets, tasks, queries, family.label_sets())


def training_sequences(
    family: TaskFamily, n: int, max_shots: int, generator: torch.Generator
) -> tuple[Tensor, Tensor]:
    """Inputs (n, 2 * max_shots + 1) and next-token targets for ``max_shots + 1`` pairs of one uniform task.

    The k + 1 inputs are distinct uniform symbols; the target at every input position is its label (so every
    prefix ending at an input is a k-shot prompt, k = 0..max_shots), label positions are ignored.
    """
    check_int("n", n, low=1)
    check_int("max_shots", max_shots, low=0)
    _check_generator(generator)
    pairs = max_shots + 1
    if pairs > family.n_inputs:
        raise ValueError(f"max_shots + 1 must be <= n_inputs={family.n_inputs}, got {pairs}")
    tasks = torch.randint(family.n_tasks, (n,), generator=generator)
    xs = torch.rand(n, family.n_inputs, generator=generator).argsort(dim=1)[:, :pairs]
    ys = family.label_table[tasks[:, None], xs]
    seq = torch.stack([xs, ys], dim=2).reshape(n, 2 * pairs)
    targets = torch.full((n, 2 * pairs - 1), IGNORE_INDEX, dtype=torch.long)
    targets[:, 0::2] = ys
    return seq[:, :-1], targets
