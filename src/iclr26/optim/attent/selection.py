"""Greedy nonparametric teaching of a learner (AtteNT, arXiv 2602.20461): train on the examples it gets most wrong.

The teacher scores the pool (or a random candidate set) with no-grad forward passes and keeps the top fraction
rho_t; the learner trains on that subset until the next selection. The official AtteNT code
(Jianghui-Wang/AttenNT) ranks by the per-example loss (:func:`~iclr26.optim.attent.scores.classification_loss_score`)
on its cycle schedule (:class:`~iclr26.optim.attent.schedules.AtteNTCycle`), with one of three strategies:

* ``hard``: the k largest scores (ties broken by the smaller index), :func:`topk_indices`;
* ``soft``: k examples drawn without replacement with probability proportional to softmax(scores) (or
  sigmoid(scores)), by Gumbel-top-k, :func:`gumbel_topk_indices`; re-drawn at every subset epoch;
* ``random``: a uniform subset of the same size, :class:`RandomSubsetSampler`.

The GraNT curriculum this package first used (gradient-norm score, fraction doubling from 0.1 every E/5 epochs,
no full-data epochs in between) stays available as :func:`grant_sampler`.

Once rho_t = 1 no scoring pass is run: it could not change the subset.

Example
-------
>>> import torch
>>> topk_indices(torch.tensor([0.5, 2.0, 2.0, 1.0]), 2).tolist()
[1, 2]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.utils.data import Sampler

from iclr26.checks import check_choice, check_float, check_int, check_tensor
from iclr26.optim.attent.schedules import (
    AtteNTCycle,
    ConstantRatio,
    RatioSchedule,
    default_step_ratio,
)
from iclr26.optim.attent.scores import ScoreFn, classification_score

__all__ = [
    "SELECTIONS",
    "AtteNTSampler",
    "CostMeter",
    "FullDataSampler",
    "RandomSubsetSampler",
    "Selection",
    "SubsetSampler",
    "grant_sampler",
    "gumbel_topk_indices",
    "topk_indices",
]

SELECTIONS = ("hard", "soft")
SOFT_NORMALIZATIONS = ("softmax", "sigmoid")


def topk_indices(scores: Tensor, k: int) -> Tensor:
    """Indices of the k largest scores, ties broken by the smaller index, returned in ascending index order."""
    if not isinstance(scores, Tensor) or scores.ndim != 1:
        raise ValueError("scores must be a 1-D tensor")
    check_tensor("scores", scores, floating=True)
    check_int("k", k, 1, type_error=True)
    if bool(scores.isnan().any()):
        raise ValueError("scores must hold no NaN (a NaN score cannot be ranked)")
    if k > scores.numel():
        raise ValueError(f"k must be <= the number of scores ({scores.numel()}), got {k}")
    order = torch.sort(-scores.double(), stable=True).indices
    return order[:k].sort().values


def gumbel_topk_indices(
    scores: Tensor, k: int, generator: torch.Generator, normalization: str = "softmax"
) -> Tensor:
    """k indices drawn without replacement with probabilities w_i / sum w, w = softmax(scores) or sigmoid(scores).

    Gumbel-top-k: the k largest keys log w_i + G_i, G_i = -log(-log U_i), U_i ~ U(0, 1) from `generator`
    (float64). Returned in ascending index order.
    """
    if not isinstance(scores, Tensor) or scores.ndim != 1:
        raise ValueError("scores must be a 1-D tensor")
    check_tensor("scores", scores, floating=True)
    check_choice("normalization", normalization, SOFT_NORMALIZATIONS)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    s = scores.double()
    log_w = torch.log_softmax(s, dim=0) if normalization == "softmax" else nn.functional.logsigmoid(s)
    u = torch.rand(s.shape, generator=generator, dtype=torch.float64)
    return topk_indices(log_w - torch.log(-torch.log(u)), k)


# ---------------------------------------------------------------------------------------------------------
# cost accounting


@dataclass
class CostMeter:
    """Training cost in forward-pass units: 3 per trained example (forward + backward), 1 per scored one."""

    trained: int = 0
    scored: int = 0
    per_trained: float = 3.0
    per_scored: float = 1.0

    def __post_init__(self) -> None:
        check_int("trained", self.trained, low=0)
        check_int("scored", self.scored, low=0)
        check_float("per_trained", self.per_trained, low=0.0)
        check_float("per_scored", self.per_scored, low=0.0)

    def train(self, n: int) -> None:
        """Count `n` examples that went through a forward and a backward pass."""
        self.trained += check_int("n", n, 0, type_error=True)

    def score(self, n: int) -> None:
        """Count `n` examples scored by a no-grad forward pass."""
        self.scored += check_int("n", n, 0, type_error=True)

    @property
    def units(self) -> float:
        """Total cost in forward-pass units."""
        return self.per_trained * self.trained + self.per_scored * self.scored


# ---------------------------------------------------------------------------------------------------------
# samplers


def _as_pool(dataset: object) -> tuple[Tensor, Tensor]:
    if isinstance(dataset, torch.utils.data.TensorDataset):
        tensors = dataset.tensors
    elif isinstance(dataset, (tuple, list)):
        tensors = tuple(dataset)
    else:
        raise TypeError(
            f"dataset must be a TensorDataset or an (inputs, targets) pair, got {type(dataset).__name__}"
        )
    if len(tensors) != 2 or not all(isinstance(t, Tensor) for t in tensors):
        raise ValueError("dataset must hold exactly two tensors: inputs and targets")
    x, y = tensors
    if x.shape[0] == 0:
        raise ValueError("dataset is an empty pool: need at least one example")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"dataset inputs and targets differ in length: {x.shape[0]} vs {y.shape[0]}")
    return x, y


def _as_generator(generator: torch.Generator | int | None) -> torch.Generator:
    if isinstance(generator, torch.Generator):
        return generator
    if generator is None:
        return torch.Generator().manual_seed(0)
    return torch.Generator().manual_seed(check_int("generator", generator, 0, type_error=True))


@dataclass
class Selection:
    """One refresh: clock tick, ratio, selected indices, and (when scored) the scores of the candidates."""

    t: int
    ratio: float
    indices: Tensor
    candidates: Tensor | None = None
    scores: Tensor | None = None


class SubsetSampler(Sampler[int]):
    """A sampler over a subset of a pool that is re-chosen by :meth:`refresh`.

    Iterating yields the current subset in a fresh random order (from `generator`) each time, like
    ``RandomSampler`` over the subset; ``len`` is the subset size. Subclasses implement :meth:`_select`.
    """

    def __init__(
        self,
        n: int,
        ratio_schedule: RatioSchedule,
        interval: int = 1,
        generator: torch.Generator | int | None = None,
    ) -> None:
        if isinstance(n, int) and not isinstance(n, bool) and n == 0:
            raise ValueError("the pool is empty: need at least one example")
        self.n = check_int("pool size", n, 1, type_error=True)
        if not isinstance(ratio_schedule, RatioSchedule):
            raise TypeError(f"ratio_schedule must be a RatioSchedule, got {type(ratio_schedule).__name__}")
        self.ratio_schedule = ratio_schedule
        self.interval = check_int("interval", interval, 1, type_error=True)
        self.generator = _as_generator(generator)
        self.indices: Tensor = torch.arange(self.n)
        self.history: list[Selection] = []
        self.n_scored = 0
        self._last: int | None = None

    def refresh(self, step: int) -> Tensor:
        """Re-select when `step` is a multiple of `interval` (or nothing was selected yet); return the subset.

        The ratio is read at the selection tick ``step // interval``. A tick that does not start a selection
        (:meth:`RatioSchedule.starts_selection`, e.g. the second subset epoch of an AtteNT cycle) keeps the
        current subset, unless the sampler re-selects at every tick (soft selection).
        """
        step = check_int("step", step, 0, type_error=True)
        if self._last is None or (step % self.interval == 0 and step != self._last):
            t = step // self.interval
            ratio = check_float(
                "ratio_schedule(t)", self.ratio_schedule(t), 0.0, 1.0, low_open=True, type_error=True
            )
            if ratio < 1.0 and self.history and not self._fresh(t):
                sel = Selection(t, ratio, self.indices)
            else:
                sel = self._select(t, ratio)
            self.indices = sel.indices
            self.history.append(sel)
            self._last = step
        return self.indices

    def _fresh(self, t: int) -> bool:
        return self.ratio_schedule.starts_selection(t)

    def _select(self, t: int, ratio: float) -> Selection:
        raise NotImplementedError

    def __iter__(self) -> Iterator[int]:
        perm = torch.randperm(len(self.indices), generator=self.generator)
        return iter(self.indices[perm].tolist())

    def __len__(self) -> int:
        return len(self.indices)


class FullDataSampler(SubsetSampler):
    """Baseline: every example, every time (random order)."""

    def __init__(self, n: int, generator: torch.Generator | int | None = None) -> None:
        super().__init__(n, ConstantRatio(1.0), 1, generator)

    def _select(self, t: int, ratio: float) -> Selection:
        return Selection(t, 1.0, torch.arange(self.n))


class RandomSubsetSampler(SubsetSampler):
    """Baseline: a uniformly random subset of ``ratio_schedule.count(rho_t, n)`` examples, drawn at each
    selection (same schedule; with an :class:`AtteNTCycle` this is the release's ``random`` strategy)."""

    def _select(self, t: int, ratio: float) -> Selection:
        if ratio >= 1.0:
            return Selection(t, 1.0, torch.arange(self.n))
        k = self.ratio_schedule.count(ratio, self.n)
        return Selection(t, ratio, torch.randperm(self.n, generator=self.generator)[:k].sort().values)


class AtteNTSampler(SubsetSampler):
    """The AtteNT teacher: keep the pool examples with the largest scores (the official score is the loss).

    Parameters
    ----------
    model : the learner; called as ``model(inputs)`` on batches of the pool under ``torch.no_grad`` and in
        eval mode (its mode and gradient state are restored afterwards).
    dataset : a ``TensorDataset`` or an ``(inputs, targets)`` pair of tensors (the pool).
    score_fn : ``score_fn(outputs, targets) -> (batch,)`` finite scores: the official per-example losses
        :func:`classification_loss_score`, :func:`regression_loss_score`, :func:`causal_lm_loss_score`, or the
        GraNT gradient norms :func:`classification_score`, :func:`regression_score`, :func:`causal_lm_score`.
    ratio_schedule : selected fraction rho(t) at selection tick t: the official :class:`AtteNTCycle`, or a
        curriculum such as :func:`default_step_ratio`.
    interval : select every `interval` steps of the caller's clock (an epoch in the experiment); must be 1
        with an :class:`AtteNTCycle`, which sets its own phases.
    candidate_pool : score only a random candidate set of this size at each selection (None: the whole pool);
        ``ratio_schedule.count(rho, candidate_pool)`` candidates are kept.
    batch_size : scoring batch size.
    generator : torch.Generator or seed for the candidate draw, the Gumbel noise and the iteration order.
    selection : "hard" (top-k) or "soft" (Gumbel-top-k, re-drawn at every tick with rho < 1).
    soft_normalization : "softmax" or "sigmoid" of the scores, the sampling weights of ``soft``.

    Example
    -------
    >>> import torch
    >>> from iclr26.optim.attent import AtteNTCycle, classification_loss_score
    >>> x, y = torch.randn(50, 3), torch.randint(0, 4, (50,))
    >>> teacher = AtteNTSampler(torch.nn.Linear(3, 4), (x, y), classification_loss_score,
    ...                         AtteNTCycle(epochs=5, cycles=2, initial_interval=1))
    >>> [len(teacher.refresh(e)) for e in range(5)]  # warm-up, subset 20%, full, subset 80%, full
    [50, 10, 50, 40, 50]
    """

    def __init__(
        self,
        model: nn.Module,
        dataset: object,
        score_fn: ScoreFn,
        ratio_schedule: RatioSchedule,
        interval: int = 1,
        candidate_pool: int | None = None,
        batch_size: int = 512,
        generator: torch.Generator | int | None = None,
        selection: str = "hard",
        soft_normalization: str = "softmax",
    ) -> None:
        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        if not callable(score_fn):
            raise TypeError("score_fn must be callable as score_fn(outputs, targets)")
        self.x, self.y = _as_pool(dataset)
        super().__init__(self.x.shape[0], ratio_schedule, interval, generator)
        if isinstance(ratio_schedule, AtteNTCycle) and self.interval != 1:
            raise ValueError(f"interval must be 1 with an AtteNTCycle (it sets its phases), got {interval}")
        if candidate_pool is not None:
            check_int("candidate_pool", candidate_pool, 1, type_error=True)
            if candidate_pool > self.n:
                raise ValueError(f"candidate_pool must be <= the pool size {self.n}, got {candidate_pool}")
        self.selection = check_choice("selection", selection, SELECTIONS)
        self.soft_normalization = check_choice("soft_normalization", soft_normalization, SOFT_NORMALIZATIONS)
        self.model, self.score_fn = model, score_fn
        self.candidate_pool = candidate_pool
        self.batch_size = check_int("batch_size", batch_size, 1, type_error=True)

    def score(self, indices: Tensor) -> Tensor:
        """Scores of the pool examples `indices` (no-grad forward passes; model mode and grads untouched)."""
        check_tensor("indices", indices, ndim=1, floating=False)
        if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= self.n):
            raise ValueError(
                f"indices must index the pool, in [0, {self.n}), got values in "
                f"[{int(indices.min())}, {int(indices.max())}]"
            )
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                parts = []
                for start in range(0, len(indices), self.batch_size):
                    idx = indices[start : start + self.batch_size]
                    s = self.score_fn(self.model(self.x[idx]), self.y[idx])
                    if not isinstance(s, Tensor) or s.shape != (len(idx),):
                        shape = tuple(s.shape) if isinstance(s, Tensor) else type(s).__name__
                        raise ValueError(f"score_fn must return a tensor of shape ({len(idx)},), got {shape}")
                    if not torch.isfinite(s).all():
                        raise ValueError("score_fn returned NaN or infinite scores")
                    parts.append(s.detach().double().cpu())  # selection bookkeeping stays on the CPU
        finally:
            self.model.train(was_training)
        self.n_scored += len(indices)
        return torch.cat(parts)

    def _fresh(self, t: int) -> bool:
        return self.selection == "soft" or super()._fresh(t)

    def _select(self, t: int, ratio: float) -> Selection:
        if ratio >= 1.0:  # selecting everything: skip the scoring pass
            return Selection(t, 1.0, torch.arange(self.n))
        if self.candidate_pool is None:
            cand = torch.arange(self.n)
        else:
            cand = torch.randperm(self.n, generator=self.generator)[: self.candidate_pool].sort().values
        scores = self.score(cand)
        k = self.ratio_schedule.count(ratio, len(cand))
        if self.selection == "hard":
            keep = topk_indices(scores, k)
        else:
            keep = gumbel_topk_indices(scores, k, self.generator, self.soft_normalization)
        return Selection(t, ratio, cand[keep], cand, scores)


def grant_sampler(
    model: nn.Module,
    dataset: object,
    epochs: int,
    start: float = 0.1,
    batch_size: int = 512,
    generator: torch.Generator | int | None = None,
) -> AtteNTSampler:
    """The GraNT curriculum (brysonwx/GraNT), this package's first AtteNT arm, kept as a baseline: re-select
    every epoch the top ceil(rho_t N) by || softmax - onehot ||_2, rho doubling from `start` every epochs // 5
    epochs up to 1 (0.1, 0.2, 0.4, 0.8, 1.0), no full-data epochs in between."""
    return AtteNTSampler(
        model,
        dataset,
        classification_score,
        default_step_ratio(epochs, start),
        1,
        batch_size=batch_size,
        generator=generator,
    )
