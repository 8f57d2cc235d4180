"""Greedy nonparametric teaching of a learner: pick the examples with the largest functional gradient.

For a loss l(f(S), y) the functional gradient at an example is dl/df(S). The teacher of AtteNT keeps, every
`interval` clock ticks, the top ceil(rho_t * M) examples of the pool (or of a random candidate set of size M)
ranked by the norm of that gradient, and the learner trains on them until the next selection:

    score_i = || softmax(f(S_i)) - onehot(y_i) ||_2          (cross-entropy: = || dl_i / d logits ||)
    score_i = || f(S_i) - y_i ||_2                            (squared loss / 2, scalar or vector output)
    score_i = mean over valid target positions of the per-token cross-entropy score  (causal LM)

The ratio rho_t follows a curriculum (:class:`StepRatio`, :class:`LinearRatio`) or stays fixed
(:class:`ConstantRatio`). Once rho_t = 1 no scoring pass is run: it could not change the subset.

Example
-------
>>> import torch
>>> topk_indices(torch.tensor([0.5, 2.0, 2.0, 1.0]), 2).tolist()
[1, 2]
>>> StepRatio(0.1, every=2)(5)
0.4
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.utils.data import Sampler

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids

__all__ = [
    "AtteNTSampler",
    "ConstantRatio",
    "CostMeter",
    "FullDataSampler",
    "LinearRatio",
    "RandomSubsetSampler",
    "RatioSchedule",
    "ScoreFn",
    "StepRatio",
    "SubsetSampler",
    "causal_lm_score",
    "classification_score",
    "default_step_ratio",
    "n_selected",
    "regression_score",
    "topk_indices",
]

IGNORE_INDEX = -100

ScoreFn = Callable[[Tensor, Tensor], Tensor]


def _check_ratio(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number in (0, 1], got {value!r}")
    return check_float(name, value, 0.0, 1.0, low_open=True)


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= {low}, got {value!r}")
    return check_int(name, value, low=low)


# ---------------------------------------------------------------------------------------------------------
# ratio schedules


class RatioSchedule:
    """A selected fraction rho(t) in (0, 1] of the selection clock t = 0, 1, 2, ..."""

    def __call__(self, t: int) -> float:
        raise NotImplementedError

    def _check_t(self, t: int) -> int:
        return _check_int("t", t, 0)


@dataclass(frozen=True)
class ConstantRatio(RatioSchedule):
    """rho(t) = ratio (no curriculum; ratio = 1 is full-data training)."""

    ratio: float

    def __post_init__(self) -> None:
        _check_ratio("ratio", self.ratio)

    def __call__(self, t: int) -> float:
        self._check_t(t)
        return float(self.ratio)


@dataclass(frozen=True)
class StepRatio(RatioSchedule):
    """rho(t) = min(1, start * factor ** floor(t / every)): multiply the fraction every `every` ticks."""

    start: float = 0.1
    every: int = 1
    factor: float = 2.0

    def __post_init__(self) -> None:
        _check_ratio("start", self.start)
        _check_int("every", self.every, 1)
        if (
            isinstance(self.factor, bool)
            or not isinstance(self.factor, (int, float))
            or not self.factor > 1.0
        ):
            raise ValueError(f"factor must be a number > 1, got {self.factor!r}")
        check_float("factor", self.factor, low=1.0, low_open=True)

    def __call__(self, t: int) -> float:
        t = self._check_t(t)
        return float(min(1.0, self.start * self.factor ** (t // self.every)))


@dataclass(frozen=True)
class LinearRatio(RatioSchedule):
    """rho(t) = start + (1 - start) * min(1, t / ramp): a linear ramp that reaches 1 at t = ramp."""

    start: float = 0.1
    ramp: int = 1

    def __post_init__(self) -> None:
        _check_ratio("start", self.start)
        _check_int("ramp", self.ramp, 1)

    def __call__(self, t: int) -> float:
        t = self._check_t(t)
        return float(min(1.0, self.start + (1.0 - self.start) * t / self.ramp))


def default_step_ratio(total: int, start: float = 0.1) -> StepRatio:
    """The brief's default for `total` selection ticks: double every total // 5 (0.1, .2, .4, .8, 1.0)."""
    _check_int("total", total, 1)
    return StepRatio(start=start, every=max(1, total // 5), factor=2.0)


def n_selected(ratio: float, n: int) -> int:
    """ceil(ratio * n), at least 1, computed robustly against float round-off (0.1 * 30 -> 3)."""
    _check_ratio("ratio", ratio)
    _check_int("n", n, 1)
    return max(1, min(n, math.ceil(round(ratio * n, 9))))


# ---------------------------------------------------------------------------------------------------------
# scores


def _check_pair(outputs: Tensor, targets: Tensor) -> None:
    if not isinstance(outputs, Tensor) or not isinstance(targets, Tensor):
        raise TypeError("outputs and targets must be tensors")
    if outputs.shape[0] != targets.shape[0]:
        raise ValueError(
            f"outputs and targets must have the same batch size, got {outputs.shape[0]} and {targets.shape[0]}"
        )


def classification_score(logits: Tensor, targets: Tensor) -> Tensor:
    """|| softmax(logits_i) - onehot(y_i) ||_2 per example; logits (N, C), targets (N,) class ids.

    This is the norm of the gradient of the cross-entropy of example i with respect to its logits.
    """
    _check_pair(logits, targets)
    if logits.ndim != 2 or targets.ndim != 1:
        raise ValueError(
            f"logits must be (N, C) and targets (N,), got {tuple(logits.shape)}, {tuple(targets.shape)}"
        )
    check_tensor("logits", logits, floating=True)
    check_token_ids("targets", targets, logits.shape[1])
    p = torch.softmax(logits.double(), dim=-1)
    p[torch.arange(len(targets), device=targets.device), targets] -= 1.0
    return p.norm(dim=-1).to(logits.dtype)


def regression_score(outputs: Tensor, targets: Tensor) -> Tensor:
    """|| f(S_i) - y_i ||_2 per example (|f - y| for scalar outputs): the gradient of (f - y)^2 / 2."""
    _check_pair(outputs, targets)
    check_tensor("outputs", outputs, floating=True)
    check_tensor("targets", targets, floating=True)
    if outputs.shape != targets.shape:
        raise ValueError(
            f"outputs and targets must have one shape, got {tuple(outputs.shape)}, {tuple(targets.shape)}"
        )
    diff = (outputs - targets).reshape(outputs.shape[0], -1)
    return diff.norm(dim=-1)


def causal_lm_score(logits: Tensor, targets: Tensor, ignore_index: int = IGNORE_INDEX) -> Tensor:
    """Mean over non-ignored target positions of || softmax(logits_t) - onehot(y_t) ||_2; logits (N, T, V).

    Positions whose target is `ignore_index` (padding, prompt) are left out; a row with no valid position
    scores 0.
    """
    _check_pair(logits, targets)
    if logits.ndim != 3 or targets.shape != logits.shape[:2]:
        raise ValueError(
            f"logits must be (N, T, V) and targets (N, T), got {tuple(logits.shape)}, {tuple(targets.shape)}"
        )
    check_tensor("logits", logits, floating=True)
    check_tensor("targets", targets, floating=False)
    check_int("ignore_index", ignore_index)
    valid = targets != ignore_index
    if bool(valid.any()):
        check_token_ids("targets (non-ignored)", targets[valid], logits.shape[-1])
    p = torch.softmax(logits.double(), dim=-1)
    onehot = torch.zeros_like(p)
    safe = torch.where(valid, targets, torch.zeros_like(targets))
    onehot.scatter_(-1, safe.unsqueeze(-1), 1.0)
    per_token = (p - onehot).norm(dim=-1) * valid
    count = valid.sum(dim=-1)
    return (per_token.sum(dim=-1) / count.clamp(min=1)).to(logits.dtype)


def topk_indices(scores: Tensor, k: int) -> Tensor:
    """Indices of the k largest scores, ties broken by the smaller index, returned in ascending index order."""
    if not isinstance(scores, Tensor) or scores.ndim != 1:
        raise ValueError("scores must be a 1-D tensor")
    _check_int("k", k, 1)
    if bool(scores.isnan().any()):
        raise ValueError("scores must hold no NaN (a NaN score cannot be ranked)")
    if k > scores.numel():
        raise ValueError(f"k must be <= the number of scores ({scores.numel()}), got {k}")
    order = torch.sort(-scores.double(), stable=True).indices
    return order[:k].sort().values


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
        self.trained += _check_int("n", n, 0)

    def score(self, n: int) -> None:
        """Count `n` examples scored by a no-grad forward pass."""
        self.scored += _check_int("n", n, 0)

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
    return torch.Generator().manual_seed(_check_int("generator", generator, 0))


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
        self.n = _check_int("pool size", n, 1)
        if not isinstance(ratio_schedule, RatioSchedule):
            raise TypeError(f"ratio_schedule must be a RatioSchedule, got {type(ratio_schedule).__name__}")
        self.ratio_schedule = ratio_schedule
        self.interval = _check_int("interval", interval, 1)
        self.generator = _as_generator(generator)
        self.indices: Tensor = torch.arange(self.n)
        self.history: list[Selection] = []
        self.n_scored = 0
        self._last: int | None = None

    def refresh(self, step: int) -> Tensor:
        """Re-select when `step` is a multiple of `interval` (or nothing was selected yet); return the subset.

        The ratio is read at the selection tick ``step // interval``.
        """
        step = _check_int("step", step, 0)
        if self._last is None or (step % self.interval == 0 and step != self._last):
            t = step // self.interval
            ratio = _check_ratio("ratio_schedule(t)", self.ratio_schedule(t))
            sel = self._select(t, ratio)
            self.indices = sel.indices
            self.history.append(sel)
            self._last = step
        return self.indices

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
    """Baseline: a uniformly random subset of size ceil(rho_t n), drawn at each selection (same schedule)."""

    def _select(self, t: int, ratio: float) -> Selection:
        if ratio >= 1.0:
            return Selection(t, 1.0, torch.arange(self.n))
        k = n_selected(ratio, self.n)
        return Selection(t, ratio, torch.randperm(self.n, generator=self.generator)[:k].sort().values)


class AtteNTSampler(SubsetSampler):
    """Greedy functional-gradient teacher: keep the examples whose loss gradient wrt the output is largest.

    Parameters
    ----------
    model : the learner; called as ``model(inputs)`` on batches of the pool under ``torch.no_grad`` and in
        eval mode (its mode and gradient state are restored afterwards).
    dataset : a ``TensorDataset`` or an ``(inputs, targets)`` pair of tensors (the pool).
    score_fn : ``score_fn(outputs, targets) -> (batch,)`` non-negative scores, e.g. :func:`classification_score`,
        :func:`regression_score`, :func:`causal_lm_score`.
    ratio_schedule : selected fraction rho(t) at selection tick t (e.g. :func:`default_step_ratio`).
    interval : select every `interval` steps of the caller's clock (an epoch by default in the experiment).
    candidate_pool : score only a random candidate set of this size at each selection (None: the whole pool);
        the top ceil(rho * candidate_pool) candidates are kept.
    batch_size : scoring batch size.
    generator : torch.Generator or seed for the candidate draw and the iteration order.
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
    ) -> None:
        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        if not callable(score_fn):
            raise TypeError("score_fn must be callable as score_fn(outputs, targets)")
        self.x, self.y = _as_pool(dataset)
        super().__init__(self.x.shape[0], ratio_schedule, interval, generator)
        if candidate_pool is not None:
            _check_int("candidate_pool", candidate_pool, 1)
            if candidate_pool > self.n:
                raise ValueError(f"candidate_pool must be <= the pool size {self.n}, got {candidate_pool}")
        self.model, self.score_fn = model, score_fn
        self.candidate_pool = candidate_pool
        self.batch_size = _check_int("batch_size", batch_size, 1)

    def score(self, indices: Tensor) -> Tensor:
        """Scores of the pool examples `indices` (no-grad forward passes; model mode and grads untouched)."""
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

    def _select(self, t: int, ratio: float) -> Selection:
        if ratio >= 1.0:  # selecting everything: skip the scoring pass
            return Selection(t, 1.0, torch.arange(self.n))
        if self.candidate_pool is None:
            cand = torch.arange(self.n)
        else:
            cand = torch.randperm(self.n, generator=self.generator)[: self.candidate_pool].sort().values
        scores = self.score(cand)
        keep = topk_indices(scores, n_selected(ratio, len(cand)))
        return Selection(t, ratio, cand[keep], cand, scores)
