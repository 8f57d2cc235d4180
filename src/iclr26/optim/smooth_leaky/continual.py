"""Continual-learning scaffolding for the Smooth-Leaky reproduction (arXiv 2509.22562).

- data: sklearn's bundled digits (1797 x 64), split once into train / test and standardised on the train part;
- task sequences: permuted inputs, shuffled labels, both, and class-incremental splits (single head);
- :class:`ContinualMLP` (an MLP whose hidden pre-activations can be scaled by a shock factor);
- :func:`train_continual`: one model and one SGD optimizer trained on every task in turn, with no resets,
  optional shrink-and-perturb at task boundaries and optional L2-init regularisation;
- diagnostics: saturated fraction, effective negative slope s_bar, dead-band width, and the desaturation
  stress test (pre-activation shocks, AUSC, tau_95, non-recovery).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from iclr26.checks import check_float, check_int, check_tensor

__all__ = [
    "ContinualLog",
    "ContinualMLP",
    "L2Init",
    "StressLog",
    "Task",
    "class_incremental_tasks",
    "dead_band_width",
    "derivative_on",
    "desaturation_stress_test",
    "digits_split",
    "effective_negative_slope",
    "evaluate",
    "permuted_tasks",
    "saturated_fraction",
    "shrink_and_perturb",
    "train_continual",
]

SAT_THRESHOLD = 1e-3


@dataclass(frozen=True)
class Task:
    """One task: train / test tensors and the classes whose logits count (None: all; class-incremental heads)."""

    x_train: Tensor
    y_train: Tensor
    x_test: Tensor
    y_test: Tensor
    classes: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        check_tensor("x_train", self.x_train, ndim=2, floating=True)
        n, d = self.x_train.shape
        check_tensor("x_test", self.x_test, floating=True, shape=(None, d))
        check_tensor("y_train", self.y_train, floating=False, shape=(n,))
        check_tensor("y_test", self.y_test, floating=False, shape=(self.x_test.shape[0],))


def digits_split(n_train: int = 1000, seed: int = 0) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """sklearn's digits, a random `n_train` / rest split, standardised per pixel with the train statistics."""
    from sklearn.datasets import load_digits

    check_int("n_train", n_train, low=10, high=1796)
    check_int("seed", seed, low=0)
    x, y = load_digits(return_X_y=True)
    idx = np.random.default_rng(seed).permutation(len(y))
    tr, te = idx[:n_train], idx[n_train:]
    mu, sd = x[tr].mean(0), x[tr].std(0)
    sd[sd == 0] = 1.0
    xs = (x - mu) / sd

    def t(a: np.ndarray, dtype: torch.dtype) -> Tensor:
        return torch.as_tensor(a, dtype=dtype)

    return t(xs[tr], torch.float32), t(y[tr], torch.long), t(xs[te], torch.float32), t(y[te], torch.long)


def _check_data(x_train: Tensor, y_train: Tensor, x_test: Tensor, y_test: Tensor) -> int:
    for name, x in (("x_train", x_train), ("x_test", x_test)):
        if not isinstance(x, Tensor) or x.dim() != 2 or not x.is_floating_point():
            raise ValueError(f"{name} must be a 2-D floating-point tensor (n, features)")
    for name, y, x in (("y_train", y_train, x_train), ("y_test", y_test, x_test)):
        if not isinstance(y, Tensor) or y.dim() != 1 or y.shape[0] != x.shape[0] or y.is_floating_point():
            raise ValueError(f"{name} must be a 1-D integer tensor with one label per row of the inputs")
    if x_train.shape[1] != x_test.shape[1]:
        raise ValueError("x_train and x_test must have the same number of features")
    return int(max(int(y_train.max()), int(y_test.max())) + 1)


def permuted_tasks(
    x_train: Tensor,
    y_train: Tensor,
    x_test: Tensor,
    y_test: Tensor,
    n_tasks: int,
    seed: int = 0,
    permute_inputs: bool = True,
    shuffle_labels: bool = True,
) -> list[Task]:
    """A sequence of `n_tasks` tasks, each with a fresh random pixel permutation and/or label permutation.

    ``permute_inputs=True, shuffle_labels=False`` is Permuted-digits; ``False, True`` is shuffled-label digits;
    both (default) shift inputs and labels at every task boundary. The same permutations apply to train and test.
    """
    check_int("n_tasks", n_tasks, low=1)
    if not (permute_inputs or shuffle_labels):
        raise ValueError("permute_inputs and shuffle_labels are both False: every task would be the same")
    n_classes = _check_data(x_train, y_train, x_test, y_test)
    gen = torch.Generator().manual_seed(seed)
    d = x_train.shape[1]
    tasks = []
    for _ in range(n_tasks):
        pix = torch.randperm(d, generator=gen) if permute_inputs else torch.arange(d)
        lab = torch.randperm(n_classes, generator=gen) if shuffle_labels else torch.arange(n_classes)
        tasks.append(Task(x_train[:, pix], lab[y_train], x_test[:, pix], lab[y_test]))
    return tasks


def class_incremental_tasks(
    x_train: Tensor, y_train: Tensor, x_test: Tensor, y_test: Tensor, classes_per_task: int = 2
) -> list[Task]:
    """Split the classes 0..C-1 into consecutive groups of `classes_per_task` (single head, no task labels)."""
    n_classes = _check_data(x_train, y_train, x_test, y_test)
    check_int("classes_per_task", classes_per_task, 1, n_classes)
    tasks = []
    for start in range(0, n_classes, classes_per_task):
        cls = tuple(range(start, min(start + classes_per_task, n_classes)))
        mtr, mte = torch.isin(y_train, torch.tensor(cls)), torch.isin(y_test, torch.tensor(cls))
        tasks.append(Task(x_train[mtr], y_train[mtr], x_test[mte], y_test[mte], cls))
    return tasks


class ContinualMLP(nn.Module):
    """MLP ``in -> hidden... -> out`` with a fresh activation module (from `activation()`) after each hidden layer.

    ``shock`` (a float, default 1.0) multiplies every hidden pre-activation before the activation: the
    desaturation stress test sets it for a while and restores it. Linear layers are initialised from
    `init_seed` before any activation is built, so every activation starts from the same weights.
    """

    def __init__(
        self, sizes: Sequence[int], activation: Callable[[], nn.Module], init_seed: int | None = None
    ) -> None:
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2:
            raise ValueError(f"sizes must list >= 2 positive ints (in, ..., out), got {sizes!r}")
        for i, s in enumerate(sizes):
            check_int(f"sizes[{i}]", s, low=1)
        if not callable(activation):
            raise TypeError(f"activation must be a callable returning an nn.Module, got {activation!r}")
        if init_seed is not None:
            check_int("init_seed", init_seed, low=0)
            torch.manual_seed(init_seed)
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.acts = nn.ModuleList(activation() for _ in range(len(sizes) - 2))
        self.shock = 1.0

    def preactivations(self, x: Tensor) -> tuple[Tensor, list[Tensor]]:
        """Logits and the (shocked) pre-activation of every hidden layer."""
        check_tensor("x", x, ndim=2, floating=True, shape=(None, self.linears[0].in_features))
        pre = []
        h = x
        for lin, act in zip(self.linears[:-1], self.acts):
            z = lin(h) * self.shock
            pre.append(z)
            h = act(z)
        return self.linears[-1](h), pre

    def forward(self, x: Tensor) -> Tensor:
        return self.preactivations(x)[0]


@torch.no_grad()
def evaluate(model: nn.Module, x: Tensor, y: Tensor) -> float:
    """Accuracy (%) of `model` on (x, y) in evaluation mode; the model's previous mode is restored."""
    was = model.training
    model.eval()
    acc = float((model(x).argmax(1) == y).float().mean()) * 100.0
    model.train(was)
    return acc


def derivative_on(act: nn.Module, z: Tensor) -> Tensor:
    """Elementwise derivative f'(z) of an elementwise activation module, by autograd."""
    zz = z.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (g,) = torch.autograd.grad(act(zz).sum(), zz)
    return g


def _check_probe(model: ContinualMLP, probe: Tensor) -> None:
    if not isinstance(model, ContinualMLP):
        raise TypeError(f"model must be a ContinualMLP, got {type(model).__name__}")
    d_in = model.linears[0].in_features
    check_tensor("probe", probe, floating=True, shape=(None, d_in), finite=True)
    if probe.shape[0] < 1:
        raise ValueError("probe must hold at least one input row")


def _probe_derivatives(model: ContinualMLP, probe: Tensor) -> list[Tensor]:
    _check_probe(model, probe)
    was = model.training
    model.eval()
    with torch.no_grad():
        _, pre = model.preactivations(probe)
    out = [derivative_on(act, z) for act, z in zip(model.acts, pre)]
    model.train(was)
    return out


def saturated_fraction(model: ContinualMLP, probe: Tensor, threshold: float = SAT_THRESHOLD) -> float:
    """Fraction of hidden units whose |f'(pre-activation)| < `threshold` on every input of `probe`."""
    check_float("threshold", threshold, low=0.0, low_open=True)
    ders = _probe_derivatives(model, probe)
    sat = torch.cat([(d.abs() < threshold).all(0) for d in ders])
    return float(sat.float().mean())


def effective_negative_slope(model: ContinualMLP, probe: Tensor) -> float:
    """s_bar = mean f'(z) over the negative hidden pre-activations z observed on `probe` (NaN if none)."""
    _check_probe(model, probe)
    model_was = model.training
    model.eval()
    with torch.no_grad():
        _, pre = model.preactivations(probe)
    vals = [derivative_on(act, z)[z < 0] for act, z in zip(model.acts, pre)]
    model.train(model_was)
    v = torch.cat(vals)
    return float(v.mean()) if v.numel() else math.nan


def dead_band_width(
    act: nn.Module, lo: float = -10.0, hi: float = 10.0, threshold: float = SAT_THRESHOLD, n: int = 20001
) -> float:
    """Fraction of the interval [lo, hi] (uniform grid, float64, eval mode) where |f'(x)| < `threshold`."""
    if not isinstance(act, nn.Module):
        raise TypeError(f"act must be an activation nn.Module, got {type(act).__name__}")
    check_float("lo", lo)
    check_float("hi", hi)
    check_float("threshold", threshold, low=0.0, low_open=True)
    check_int("n", n, low=2)
    if not hi > lo:
        raise ValueError(f"hi must exceed lo, got lo={lo}, hi={hi}")
    was = act.training
    act.eval()
    d = derivative_on(act, torch.linspace(lo, hi, n, dtype=torch.float64))
    act.train(was)
    return float((d.abs() < threshold).double().mean())


def shrink_and_perturb(
    model: nn.Module, shrink: float = 0.9, noise: float = 0.01, generator: torch.Generator | None = None
) -> None:
    """In place: theta <- shrink * theta + noise * eps, eps ~ N(0, 1) (Ash & Adams' shrink-and-perturb)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    check_float("shrink", shrink, 0.0, 1.0, low_open=True)
    check_float("noise", noise, low=0.0)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    with torch.no_grad():
        for p in model.parameters():
            eps = torch.randn(p.shape, generator=generator, dtype=p.dtype)
            p.mul_(shrink).add_(noise * eps)


class L2Init:
    """L2-init regulariser: ``strength * sum ||theta - theta_0||^2`` towards the parameters at construction."""

    def __init__(self, model: nn.Module, strength: float) -> None:
        check_float("strength", strength, low=0.0)
        self.strength = float(strength)
        self.init = [p.detach().clone() for p in model.parameters()]

    def penalty(self, model: nn.Module) -> Tensor:
        """The penalty for the current parameters of `model` (same parameter order as at construction)."""
        terms = [((p - p0) ** 2).sum() for p, p0 in zip(model.parameters(), self.init)]
        return self.strength * torch.stack(terms).sum()


@dataclass
class ContinualLog:
    """Per task (index = task): end-of-task accuracies (%) and diagnostics."""

    test_acc: list[float] = field(default_factory=list)
    train_acc: list[float] = field(default_factory=list)
    saturated: list[float] = field(default_factory=list)
    s_bar: list[float] = field(default_factory=list)
    seen_acc: list[float] = field(default_factory=list)  # class-incremental: accuracy on all classes so far
    steps: int = 0


def _epoch_batches(n: int, batch_size: int, gen: torch.Generator) -> list[Tensor]:
    order = torch.randperm(n, generator=gen)
    return list(order.split(batch_size))


def train_continual(
    model: ContinualMLP,
    tasks: Sequence[Task],
    epochs: int = 5,
    lr: float = 0.05,
    momentum: float = 0.9,
    batch_size: int = 32,
    seed: int = 0,
    probe: Tensor | None = None,
    l2_init: float = 0.0,
    shrink_perturb: tuple[float, float] | None = None,
    cumulative_eval: bool = False,
    max_grad_norm: float | None = None,
) -> ContinualLog:
    """Train one model on `tasks` in order with one SGD optimizer (no resets, no replay).

    After each task: test and train accuracy on the current task, saturated fraction and s_bar on `probe`
    (if given); with ``cumulative_eval`` also the accuracy on the test data of every task seen so far
    (the class-incremental metric). ``shrink_perturb=(shrink, noise)`` is applied at each task boundary;
    ``l2_init`` > 0 adds the L2-init penalty; ``max_grad_norm`` clips the global gradient norm (default: no
    clipping, as in the reproduction). Minibatch order and random activations follow `seed`.
    """
    check_int("epochs", epochs, low=1)
    check_int("batch_size", batch_size, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("momentum", momentum, low=0.0)
    check_int("seed", seed, low=0)
    check_float("l2_init", l2_init, low=0.0)
    if not tasks:
        raise ValueError("tasks must be a non-empty sequence of Task")
    for i, task in enumerate(tasks):
        if not isinstance(task, Task):
            raise TypeError(f"tasks[{i}] must be a Task, got {type(task).__name__}")
    if max_grad_norm is not None:
        check_float("max_grad_norm", max_grad_norm, low=0.0, low_open=True)
    if shrink_perturb is not None and (
        not isinstance(shrink_perturb, (tuple, list)) or len(shrink_perturb) != 2
    ):
        raise ValueError(f"shrink_perturb must be a (shrink, noise) pair or None, got {shrink_perturb!r}")
    if probe is not None:
        _check_probe(model, probe)
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed + 7919)  # random activations (RReLU, Randomized Smooth-Leaky) draw from here
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    reg = L2Init(model, l2_init) if l2_init > 0 else None
    log = ContinualLog()
    model.train()
    seen_x: list[Tensor] = []
    seen_y: list[Tensor] = []
    for t, task in enumerate(tasks):
        if shrink_perturb is not None and t > 0:
            shrink_and_perturb(model, *shrink_perturb, generator=gen)
        for _ in range(epochs):
            for idx in _epoch_batches(len(task.y_train), batch_size, gen):
                loss = F.cross_entropy(model(task.x_train[idx]), task.y_train[idx])
                if reg is not None:
                    loss = loss + reg.penalty(model)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                if max_grad_norm is not None:
                    nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
                opt.step()
                log.steps += 1
        log.test_acc.append(evaluate(model, task.x_test, task.y_test))
        log.train_acc.append(evaluate(model, task.x_train, task.y_train))
        if probe is not None:
            log.saturated.append(saturated_fraction(model, probe))
            log.s_bar.append(effective_negative_slope(model, probe))
        if cumulative_eval:
            seen_x.append(task.x_test)
            seen_y.append(task.y_test)
            log.seen_acc.append(evaluate(model, torch.cat(seen_x), torch.cat(seen_y)))
    return log


@dataclass
class StressLog:
    """Desaturation stress test: evaluation points and one summary per shock."""

    step: list[int] = field(default_factory=list)
    acc: list[float] = field(default_factory=list)
    saturated: list[float] = field(default_factory=list)
    shocks: list[dict[str, float]] = field(default_factory=list)


def desaturation_stress_test(
    model: ContinualMLP,
    task: Task,
    probe: Tensor,
    gammas: Sequence[float] = (0.25, 0.5, 1.5, 2.0),
    shock_every: int = 10,
    shock_epochs: int = 1,
    lr: float = 0.05,
    momentum: float = 0.9,
    batch_size: int = 32,
    eval_every: int = 4,
    recovery: float = 0.95,
    seed: int = 0,
) -> StressLog:
    """Train on `task`; at epochs shock_every, 2 shock_every, ... multiply the hidden pre-activations by the next
    gamma for `shock_epochs` epochs, then restore (shock = 1).

    Every `eval_every` steps the test accuracy (%) and the saturated fraction on `probe` are recorded. Per
    shock (window = from the shock onset up to the next shock, or `shock_every` epochs): peak saturated
    fraction and lowest accuracy, AUSC (mean saturated fraction over the window's evaluation points, times the
    window length in epochs), tau_95 (steps after the restoration until the unshocked network's accuracy is
    back at `recovery` x the pre-shock accuracy; the rest of the window if never) and ``recovered`` (1 or 0).
    """
    if not gammas or any(g <= 0 for g in gammas):
        raise ValueError(f"gammas must be a non-empty sequence of positive factors, got {gammas!r}")
    for i, g in enumerate(gammas):
        check_float(f"gammas[{i}]", g, low=0.0, low_open=True)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("momentum", momentum, low=0.0)
    check_int("batch_size", batch_size, low=1)
    check_int("eval_every", eval_every, low=1)
    check_float("recovery", recovery, 0.0, 1.0, low_open=True)
    check_int("seed", seed, low=0)
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task, got {type(task).__name__}")
    _check_probe(model, probe)
    if (
        not isinstance(shock_every, int)
        or not isinstance(shock_epochs, int)
        or not 1 <= shock_epochs < shock_every
    ):
        raise ValueError(
            f"shock_epochs must be an int in [1, shock_every) and shock_every an int, got {shock_epochs!r}, "
            f"{shock_every!r}"
        )
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed + 7919)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    log = StressLog()
    model.train()
    n_epochs = shock_every * (len(gammas) + 1)
    onsets = {shock_every * (i + 1): g for i, g in enumerate(gammas)}
    step = 0
    window_starts: list[
        tuple[int, int, float, float]
    ] = []  # (onset step, index in log, gamma, pre-shock acc)
    restores: list[int] = []
    end_shock_epoch = -1
    for epoch in range(n_epochs):
        if epoch in onsets:
            pre_acc = evaluate(model, task.x_test, task.y_test)
            model.shock = float(onsets[epoch])
            end_shock_epoch = epoch + shock_epochs
            window_starts.append((step, len(log.step), onsets[epoch], pre_acc))
        if epoch == end_shock_epoch:
            model.shock = 1.0
            restores.append(step)
        for idx in _epoch_batches(len(task.y_train), batch_size, gen):
            loss = F.cross_entropy(model(task.x_train[idx]), task.y_train[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            if step % eval_every == 0:
                log.step.append(step)
                log.acc.append(evaluate(model, task.x_test, task.y_test))
                log.saturated.append(saturated_fraction(model, probe))
    model.shock = 1.0
    steps_per_epoch = math.ceil(len(task.y_train) / batch_size)
    bounds = [w[1] for w in window_starts] + [len(log.step)]
    for (_, i0, gamma, pre_acc), i1, restore in zip(window_starts, bounds[1:], restores):
        steps = np.asarray(log.step[i0:i1]) - restore
        acc = np.asarray(log.acc[i0:i1])
        sat = np.asarray(log.saturated[i0:i1])
        ok = np.nonzero((acc >= recovery * pre_acc) & (steps > 0))[0]
        window = (shock_every - shock_epochs) * steps_per_epoch
        log.shocks.append(
            {
                "gamma": float(gamma),
                "pre_acc": float(pre_acc),
                "min_acc": float(acc.min()) if acc.size else math.nan,
                "peak_saturated": float(sat.max()) if sat.size else math.nan,
                "ausc": float(sat.mean()) * shock_every if sat.size else math.nan,
                "tau95": float(steps[ok[0]]) if ok.size else float(window),
                "recovered": 1.0 if ok.size else 0.0,
            }
        )
    return log
