"""Morphological pretraining and the three co-design loops: zero-shot, few-shot and simultaneous evolution.

:func:`pretrain` fits one :class:`UniversalController` by backpropagating the mean ``d_end / d_start`` loss
through :class:`MassSpring2D` over batches of random bodies and random lights (Adam, grad-norm clip, the official
decaying cosine schedule with warm restarts). :func:`evolve` runs the official ``(mu + lambda)`` loop
(``evo.py``): every generation the parents give as many offspring (:func:`~.body.variation`), parents and offspring
are scored on fixed evaluation lights and the best ``P`` survive; the modes differ only in the controller:

* ``"zeroshot"``: the pretrained controller, frozen; parents keep their stored losses;
* ``"fewshot"``: each generation the controller and a fresh Adam are reset to the pretrained weights, fine-tuned on
  parents + offspring (``train_envs`` random lights per robot, batches of ``P``: ``2 * train_envs`` gradient
  steps), then parents and offspring are re-evaluated with it;
* ``"simultaneous"``: the baseline: one controller (random at the start) and one optimizer inherited across
  generations, ``train_envs`` (1) random light per robot of parents + offspring per generation, parents
  re-evaluated after training;
* ``"random"``: a sanity floor (random search): offspring are fresh random bodies, frozen controller.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from iclr26.checks import check_choice, check_float, check_int
from iclr26.decision.zero_shot_evolution.body import (
    NoveltyArchive,
    check_genotype,
    random_bodies,
    variation,
)
from iclr26.decision.zero_shot_evolution.controller import UniversalController, cosine_warm_restarts_lr
from iclr26.decision.zero_shot_evolution.sim import MassSpring2D, check_lights

__all__ = [
    "MODES",
    "EvolutionResult",
    "OptimConfig",
    "evaluate",
    "evolve",
    "pretrain",
    "random_lights",
]

MODES = ("zeroshot", "fewshot", "simultaneous", "random")


@dataclass(frozen=True)
class OptimConfig:
    """Adam with weight decay, grad-norm clipping and the decaying cosine schedule with warm restarts
    (the official pretraining settings; ``cycle_mult=1, decay=1`` gives the plain fine-tuning cosine)."""

    lr: float = 3e-3
    betas: tuple[float, float] = (0.9, 0.999)
    weight_decay: float = 5e-3
    clip: float = 1.0
    cycle: int = 10
    cycle_mult: float = 2.0
    decay: float = 0.65
    min_lr: float = 1e-5

    def __post_init__(self) -> None:
        check_float("lr", self.lr, low=0.0)
        check_float("weight_decay", self.weight_decay, low=0.0)
        check_float("clip", self.clip, low=0.0)
        check_int("cycle", self.cycle, low=1)
        check_float("cycle_mult", self.cycle_mult, low=1.0)
        check_float("decay", self.decay, low=0.0, high=1.0, low_open=True)
        check_float("min_lr", self.min_lr, low=0.0)

    def make(self, params) -> torch.optim.Adam:
        return torch.optim.Adam(params, lr=self.lr, betas=self.betas, weight_decay=self.weight_decay)

    def lr_at(self, step: int) -> float:
        return cosine_warm_restarts_lr(step, self.lr, self.cycle, self.cycle_mult, self.decay, self.min_lr)


FINETUNE = OptimConfig(lr=3.5e-4, cycle=100, cycle_mult=1.0, decay=1.0, min_lr=3.5e-5)


def random_lights(n: int, rng: np.random.Generator, radii: tuple[float, float] = (0.4, 2.0)) -> torch.Tensor:
    """`n` light x-positions: left or right with equal probability, at a distance ``U[radii]``."""
    check_int("n", n, low=0)
    lo = check_float("radii[0]", radii[0], low=0.0, low_open=True)
    hi = check_float("radii[1]", radii[1], low=lo)
    return torch.as_tensor(rng.choice([-1.0, 1.0], n) * rng.uniform(lo, hi, n), dtype=torch.float32)


def _train_step(
    controller: UniversalController,
    sim: MassSpring2D,
    opt: torch.optim.Optimizer,
    cfg: OptimConfig,
    step: int,
    bodies: np.ndarray,
    lights: torch.Tensor,
    steps: int,
) -> float:
    for group in opt.param_groups:
        group["lr"] = cfg.lr_at(step)
    loss = sim.rollout(bodies, controller, lights.to(sim.dtype), steps).mean()
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(controller.parameters(), cfg.clip)
    opt.step()
    return float(loss.detach())


def pretrain(
    controller: UniversalController,
    sim: MassSpring2D,
    bodies: np.ndarray,
    n_steps: int,
    batch_size: int,
    rng: np.random.Generator,
    steps: int = 100,
    optim: OptimConfig | None = None,
    radii: tuple[float, float] = (0.4, 2.0),
) -> list[float]:
    """Pretrain `controller` for `n_steps` gradient steps, each on `batch_size` bodies drawn without replacement
    from `bodies` (cycling through a shuffled pool, so each body is used ``n_steps * batch_size / len(bodies)``
    times, each time with a fresh random light). Returns the batch loss per step."""
    pool = check_genotype("bodies", bodies, sim.workspace.dims, batch=True)
    n_steps = check_int("n_steps", n_steps, low=0)
    batch_size = check_int("batch_size", batch_size, low=1, high=len(pool))
    cfg = optim or OptimConfig()
    opt = cfg.make(controller.parameters())
    order = rng.permutation(len(pool))
    pos, losses = 0, []
    for step in range(n_steps):
        if pos + batch_size > len(order):
            order, pos = rng.permutation(len(pool)), 0
        idx = order[pos : pos + batch_size]
        pos += batch_size
        losses.append(
            _train_step(
                controller, sim, opt, cfg, step, pool[idx], random_lights(batch_size, rng, radii), steps
            )
        )
    return losses


@torch.no_grad()
def evaluate(
    controller: Callable[[torch.Tensor], torch.Tensor] | None,
    sim: MassSpring2D,
    bodies: np.ndarray,
    lights: torch.Tensor,
    steps: int,
    chunk: int = 1024,
) -> np.ndarray:
    """Loss of every body in every fixed environment, ``(n_bodies, n_lights)``, in batches of ``chunk`` rollouts."""
    g = check_genotype("bodies", bodies, sim.workspace.dims, batch=True)
    check_lights("lights", lights)
    lights = torch.as_tensor(lights, dtype=sim.dtype)
    n, e = len(g), len(lights)
    rep = np.repeat(g, e, axis=0)
    lit = lights.repeat(n)
    out = [
        sim.rollout(rep[i : i + chunk], controller, lit[i : i + chunk], steps) for i in range(0, n * e, chunk)
    ]
    return torch.cat(out).reshape(n, e).cpu().numpy().astype(np.float64)


@dataclass
class EvolutionResult:
    """Per generation (index 0 = the initial population): the population's genotypes ``(P, nx, ny)``, its losses
    ``(P, n_envs)`` as used for selection, the cumulative controller gradient steps, the mean loss and the
    diversity; plus crossover examples ``(parent_1 loss, parent_2 loss, child loss)`` and the final controller."""

    mode: str
    genotypes: list[np.ndarray] = field(default_factory=list)
    losses: list[np.ndarray] = field(default_factory=list)
    grad_steps: list[int] = field(default_factory=list)
    crossovers: list[tuple[float, float, float]] = field(default_factory=list)
    controller: UniversalController | None = None

    @property
    def mean_loss(self) -> list[float]:
        return [float(np.mean(x)) for x in self.losses]

    @property
    def diversity(self) -> list[float]:
        from iclr26.decision.zero_shot_evolution.body import diversity

        return [diversity(g) for g in self.genotypes]


def evolve(
    mode: str,
    population: np.ndarray,
    controller: UniversalController,
    sim: MassSpring2D,
    eval_lights: torch.Tensor,
    generations: int,
    archive: NoveltyArchive,
    rng: np.random.Generator,
    *,
    steps: int = 100,
    train_envs: int | None = None,
    batch_size: int | None = None,
    finetune: OptimConfig = FINETUNE,
    optim: OptimConfig | None = None,
    mutate_frac: float = 0.25,
    radii: tuple[float, float] = (0.4, 2.0),
    on_generation: Callable[[int, EvolutionResult], None] | None = None,
) -> EvolutionResult:
    """Run `generations` generations of `mode` (one of :data:`MODES`) from `population` ``(P, nx, ny)``.

    `controller` is the pretrained controller (``zeroshot``, ``fewshot``, ``random``) or the randomly initialised
    one (``simultaneous``); it is never modified: every loop works on a copy (returned as ``result.controller``).
    `archive` must already hold the initial population (and, for pretrained modes, the pretraining bodies); it is
    extended with every offspring. ``train_envs`` defaults to 30 (few-shot) and 1 (simultaneous); ``batch_size``
    to ``P``. Returns the per-generation record (:class:`EvolutionResult`).
    """
    check_choice("mode", mode, MODES)
    pop = check_genotype("population", population, sim.workspace.dims, batch=True)
    check_lights("eval_lights", eval_lights)
    generations = check_int("generations", generations, low=0)
    p = len(pop)
    if p < 2:
        raise ValueError(f"population must hold at least 2 bodies, got {p}")
    envs = (
        (30 if mode == "fewshot" else 1) if train_envs is None else check_int("train_envs", train_envs, low=1)
    )
    batch = p if batch_size is None else check_int("batch_size", batch_size, low=1)
    ctrl = copy.deepcopy(controller)
    start_state = copy.deepcopy(ctrl.state_dict())
    base = optim or OptimConfig()
    opt = base.make(ctrl.parameters()) if mode == "simultaneous" else None
    sched_step, total_steps = 0, 0
    train_rng = rng.spawn(1)[0]  # training lights: a stream apart, so variation draws the same in every mode

    def train_on(bodies: np.ndarray, o: torch.optim.Optimizer, cfg: OptimConfig, first: int) -> int:
        idx = np.repeat(np.arange(len(bodies)), envs)
        lights = random_lights(len(idx), train_rng, radii)
        perm = train_rng.permutation(len(idx))
        n = 0
        for i in range(0, len(perm), batch):
            sel = perm[i : i + batch]
            _train_step(ctrl, sim, o, cfg, first + n, bodies[idx[sel]], lights[sel], steps)
            n += 1
        return n

    losses = evaluate(ctrl, sim, pop, eval_lights, steps)
    res = EvolutionResult(mode, [pop.copy()], [losses], [0])
    for gen in range(generations):
        if mode == "random":
            offspring = random_bodies(p, rng, archive, sim.workspace.dims)
            parents: list[tuple[int, ...]] = [() for _ in range(p)]
        else:
            offspring, parents = variation(pop, rng, archive, mutate_frac)
        both = np.concatenate([pop, offspring])
        if mode == "fewshot":
            ctrl.load_state_dict(start_state)
            total_steps += train_on(both, finetune.make(ctrl.parameters()), finetune, 0)
        elif mode == "simultaneous":
            n = train_on(both, opt, base, sched_step)
            sched_step += n
            total_steps += n
        if mode in ("fewshot", "simultaneous"):
            all_losses = evaluate(ctrl, sim, both, eval_lights, steps)
            pop_losses, off_losses = all_losses[:p], all_losses[p:]
        else:
            pop_losses, off_losses = losses, evaluate(ctrl, sim, offspring, eval_lights, steps)
        parent_mean = pop_losses.mean(axis=1)
        for k, par in enumerate(parents):
            if len(par) == 2:
                res.crossovers.append(
                    (float(parent_mean[par[0]]), float(parent_mean[par[1]]), float(off_losses[k].mean()))
                )
        combined = np.concatenate([pop_losses, off_losses])
        keep = np.argsort(combined.mean(axis=1), kind="stable")[:p]
        pop, losses = both[keep], combined[keep]
        res.genotypes.append(pop.copy())
        res.losses.append(losses)
        res.grad_steps.append(total_steps)
        if on_generation is not None:
            on_generation(gen, res)
    res.controller = ctrl
    return res
