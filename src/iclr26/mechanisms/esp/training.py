"""Training 1-layer attention-only models on ESP, many parameter sets at once.

"Two (narrow) heads are better than (an arbitrarily wide) one", ICLR 2026, OpenReview RRmPbbZsvl. The
paper trains with Adam; width, learning rate and steps are not fixed there. Library defaults: full-batch
Adam, learning rate cosine-annealed from 1e-2 to 1e-3,

    lr_t = lr_min + (lr - lr_min) (1 + cos(pi t / T)) / 2,

cross-entropy on the answer at the ``#`` position, accuracy = argmax over the whole vocabulary.

P parameter sets of one shape (restarts, and graphs with the same vertex count) are trained as one batched
model: their parameters are stacked along a leading axis and evaluated with
:func:`~iclr26.mechanisms.esp.batched.batched_esp_logits`, a fast path equal to the shared
``AttnOnlyTransformer``. The loss is the *sum* of the P per-set mean losses, so each set receives exactly its
own gradient, and Adam is elementwise, so the batched run is P independent runs done in one step.

Example
-------
>>> from iclr26.lab.tasks import transitive_tournament
>>> result = train(transitive_tournament(4), heads=1, d=16, seed=0, steps=200)
>>> result.final_accuracy
1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.harness.progress import task
from iclr26.lab.threads import limited_threads
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp.batched import batched_esp_logits, stack_models
from iclr26.mechanisms.esp.task import SEQ_LEN, check_graph, make_dataset

__all__ = ["BatchedRuns", "TrainResult", "train", "train_many"]


@dataclass
class TrainResult:
    """One training run: final accuracy on all 2m instances, the accuracy curve and the trained model."""

    final_accuracy: float
    steps: list[int]
    accuracy_curve: list[float]
    model: AttnOnlyTransformer


@dataclass
class BatchedRuns:
    """P runs trained together: ``accuracy[p, j]`` is run p's accuracy after ``steps[j]`` updates."""

    steps: list[int]
    accuracy: Tensor
    params: dict[str, Tensor]
    n_vertices: int
    heads: int
    d: int

    def __post_init__(self) -> None:
        check_tensor("accuracy", self.accuracy, ndim=2, floating=True)
        check_tensor("accuracy", self.accuracy, shape=(None, len(self.steps)))
        runs = self.accuracy.shape[0]
        for name, value in self.params.items():
            check_tensor(f"params[{name!r}]", value)
            if value.ndim < 1 or value.shape[0] != runs:
                raise ValueError(
                    f"params[{name!r}] must have one leading entry per run ({runs}, as accuracy), "
                    f"got shape {tuple(value.shape)}"
                )

    @property
    def final_accuracy(self) -> Tensor:
        return self.accuracy[:, -1]

    def model(self, p: int) -> AttnOnlyTransformer:
        """Run p's trained parameters loaded into a plain ``AttnOnlyTransformer``."""
        model = _new_model(self.n_vertices, self.heads, self.d, None)
        model.load_state_dict({name: value[p].detach().clone() for name, value in self.params.items()})
        return model


def _new_model(n: int, heads: int, d: int, init_seed: int | None) -> AttnOnlyTransformer:
    check_int("heads", heads, low=1)
    check_int("d", d, low=1)
    return AttnOnlyTransformer(
        n_layers=1, n_heads=heads, d_model=d, vocab_size=n + 3, seq_len=SEQ_LEN, tie=True, init_seed=init_seed
    )


def _padded_datasets(graphs: Sequence[nx.DiGraph]) -> tuple[Tensor, Tensor, Tensor]:
    """Tokens (P, N, 4), targets (P, N) and a validity mask (P, N), padding every dataset to the largest."""
    data = [make_dataset(G) for G in graphs]
    rows = max(len(t) for t, _ in data)
    tokens = torch.zeros(len(data), rows, SEQ_LEN, dtype=torch.long)
    targets = torch.zeros(len(data), rows, dtype=torch.long)
    mask = torch.zeros(len(data), rows, dtype=torch.bool)
    for p, (tok, tgt) in enumerate(data):
        tokens[p, : len(tok)], targets[p, : len(tgt)], mask[p, : len(tgt)] = tok, tgt, True
    tokens[~mask] = tokens[:, :1].expand_as(tokens)[~mask]  # padding rows repeat a real row (never scored)
    return tokens, targets, mask


def train_many(
    graphs: Sequence[nx.DiGraph],
    heads: int,
    d: int,
    init_seeds: Sequence[int],
    steps: int = 2000,
    lr: float = 1e-2,
    lr_min: float = 1e-3,
    eval_every: int = 50,
    description: str = "esp training",
    device: str = "cpu",
) -> BatchedRuns:
    """Train one model per (graph, init seed) pair, all as one batched model.

    Parameters
    ----------
    graphs : P graphs, all with the same number of vertices (run p trains on ``graphs[p]``).
    heads, d : heads and width of every run's 1-layer ``AttnOnlyTransformer``.
    init_seeds : P seeds of the runs' initial weights.
    steps, lr, lr_min : full-batch Adam steps and the cosine schedule's start and end learning rates.
    eval_every : accuracy is recorded every `eval_every` steps and after the last one.
    description : label of the progress bar.
    device : torch device of the batched model.
    """
    if len(graphs) != len(init_seeds) or not graphs:
        raise ValueError(
            f"graphs and init_seeds must be non-empty and equally long, got {len(graphs)}, {len(init_seeds)}"
        )
    for G in graphs:
        check_graph(G)
    sizes = {G.number_of_nodes() for G in graphs}
    if len(sizes) != 1:
        raise ValueError(
            f"graphs must all have the same number of vertices to share a vocabulary, got {sizes}"
        )
    check_int("steps", steps, low=0)
    check_int("eval_every", eval_every, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("lr_min", lr_min, low=0.0)
    for i, s in enumerate(init_seeds):
        check_int(f"init_seeds[{i}]", s, low=0)
    n = sizes.pop()
    models = [_new_model(n, heads, d, int(s)) for s in init_seeds]
    params = {k: v.detach().to(device).requires_grad_() for k, v in stack_models(models).items()}
    tokens, targets, mask = (t.to(device) for t in _padded_datasets(graphs))
    counts = mask.sum(dim=1)
    optimizer = torch.optim.Adam(params.values(), lr=lr, foreach=True)
    recorded, curve = [], []
    with task(description, total=steps) as bar, limited_threads(1):
        for step in range(steps + 1):
            logits = batched_esp_logits(params, tokens)  # (P, N, vocab) at the `#` position
            if step % eval_every == 0 or step == steps:
                correct = (logits.argmax(dim=-1) == targets) & mask
                recorded.append(step)
                curve.append(correct.sum(dim=1).double() / counts.double())  # exact k / 2m in float64
            if step == steps:
                break
            nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
            loss = ((nll * mask).sum(dim=1) / counts).sum()  # sum over runs of each run's mean loss
            for group in optimizer.param_groups:
                group["lr"] = lr_min + (lr - lr_min) * (1 + math.cos(math.pi * step / steps)) / 2
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            bar.advance()
    params = {k: v.detach().cpu() for k, v in params.items()}
    return BatchedRuns(recorded, torch.stack(curve, dim=1).cpu(), params, n, heads, d)


def train(
    G: nx.DiGraph, heads: int, d: int, seed: int, steps: int = 2000, **kwargs: float | int
) -> TrainResult:
    """Train one 1-layer, `heads`-head, width-`d` model on ESP(`G`) from init seed `seed`.

    Returns the final accuracy on all 2m instances, the accuracy curve and the trained model; further
    keyword arguments (``lr``, ``lr_min``, ``eval_every``) go to :func:`train_many`.
    """
    runs = train_many([G], heads, d, [seed], steps, **kwargs)
    return TrainResult(
        final_accuracy=float(runs.final_accuracy[0]),
        steps=runs.steps,
        accuracy_curve=runs.accuracy[0].tolist(),
        model=runs.model(0),
    )
