"""DADO, EDA and classic baselines with a shared ``.run(objective, budget) -> History``.

``budget`` is the number of objective evaluations. Model-based methods draw ``n_samples`` designs per
iteration from the current search distribution, evaluate them, take ``inner_steps`` AdamW steps of weighted
maximum likelihood on that batch, and repeat ``budget // n_samples`` times.

- :class:`DADO`: tree-factorised model, one weight per sample *and factor*, w = min(exp(A_c / beta), 1e30)
  with the advantages A of :func:`tree_values` (decomposition-aware credit assignment).
- :class:`EDA`: one weight per sample, w = min(exp(f / beta), 1e30), on the full log-likelihood of either
  an autoregressive model (the paper's baseline) or the same tree model as DADO (ablation).
- :class:`RandomSearch`, :class:`SimulatedAnnealing`, :class:`PBIL`: classic baselines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_probability
from iclr26.generative.dado.models import AutoregressiveSearchDistribution, TreeSearchDistribution
from iclr26.generative.dado.objective import JunctionTreeObjective
from iclr26.generative.dado.values import advantage_weights, effective_sample_size, tree_values

__all__ = ["DADO", "EDA", "PBIL", "History", "RandomSearch", "SimulatedAnnealing"]


@dataclass
class History:
    """What an optimiser saw: per iteration the batch's values, ESS per factor and loss.

    ``values`` [T, B] (B designs evaluated per iteration), ``ess`` [T, F] (F factors: C for DADO, 1 for
    sample-weighted methods, empty otherwise), ``samples`` [T, B, L] when kept, ``final_values`` [M]: objective
    values of M fresh draws from the final search distribution (the current states for annealing).
    """

    values: torch.Tensor
    ess: torch.Tensor
    losses: torch.Tensor
    final_values: torch.Tensor
    samples: torch.Tensor | None = None
    beta: float = float("nan")
    info: dict = field(default_factory=dict)

    @property
    def n_evaluations(self) -> int:
        """Objective evaluations spent."""
        return int(self.values.numel())

    def best_so_far(self) -> torch.Tensor:
        """Best value found up to and including each iteration, [T]."""
        return torch.cummax(self.values.max(1).values, 0).values


def _check_objective(objective: object) -> JunctionTreeObjective:
    if not isinstance(objective, JunctionTreeObjective):
        raise TypeError(f"objective must be a JunctionTreeObjective, got {type(objective).__name__}")
    return objective


def _n_iters(budget: int, batch: int) -> int:
    budget = check_int("budget", budget, low=1)
    if budget < batch:
        raise ValueError(f"budget must be at least one batch ({batch} evaluations), got {budget}")
    return budget // batch


class _ModelBased:
    """Shared loop: sample, evaluate, weight, K AdamW steps; repeat."""

    def __init__(
        self,
        beta: float,
        lr: float,
        n_samples: int,
        inner_steps: int,
        hidden: int,
        relative_beta: bool,
        weight_decay: float,
        seed: int,
        n_final: int,
        keep_samples: bool,
    ) -> None:
        self.beta = check_float("beta (a positive temperature)", beta, low=0.0, low_open=True)
        self.lr = check_float("lr", lr, low=0.0, low_open=True)
        self.n_samples = check_int("n_samples", n_samples, low=2)
        self.inner_steps = check_int("inner_steps", inner_steps, low=1)
        self.hidden = check_int("hidden", hidden, low=1)
        self.relative_beta = check_bool("relative_beta", relative_beta)
        self.weight_decay = check_float("weight_decay", weight_decay, low=0.0)
        self.seed = check_int("seed", seed, low=0)
        self.n_final = check_int("n_final", n_final, low=0)
        self.keep_samples = check_bool("keep_samples", keep_samples)
        self.model: torch.nn.Module | None = None

    def _make_model(self, objective: JunctionTreeObjective) -> torch.nn.Module:
        raise NotImplementedError

    def _loss(self, model: torch.nn.Module, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def run(self, objective: JunctionTreeObjective, budget: int) -> History:
        """Optimise `objective` with `budget` evaluations; returns the :class:`History`."""
        objective = _check_objective(objective)
        iters = _n_iters(budget, self.n_samples)
        gen = torch.Generator().manual_seed(self.seed)
        model = self.model = self._make_model(objective)
        opt = torch.optim.AdamW(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        values, ess, losses, samples = [], [], [], []
        beta = self.beta
        for t in range(iters):
            x = model.sample(self.n_samples, gen)
            f = objective(x)
            if t == 0 and self.relative_beta:
                beta = self.beta * max(float(f.std()), 1e-12)
            w = self._weights(objective, x, f, beta)
            for _ in range(self.inner_steps):
                loss = self._loss(model, x, w)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            values.append(f)
            ess.append(effective_sample_size(w))
            losses.append(float(loss.detach()))
            if self.keep_samples:
                samples.append(x)
        final = (
            objective(model.sample(self.n_final, gen))
            if self.n_final
            else torch.empty(0, dtype=torch.float64)
        )
        return History(
            values=torch.stack(values),
            ess=torch.stack(ess),
            losses=torch.tensor(losses, dtype=torch.float64),
            final_values=final,
            samples=torch.stack(samples) if self.keep_samples else None,
            beta=beta,
        )

    def _weights(
        self, objective: JunctionTreeObjective, x: torch.Tensor, f: torch.Tensor, beta: float
    ) -> torch.Tensor:
        raise NotImplementedError


class DADO(_ModelBased):
    """Decomposition-aware distributional optimisation on a junction-tree objective.

    Parameters
    ----------
    beta : temperature of the weights exp(A / beta); with ``relative_beta`` it is multiplied by the standard
        deviation of f on the first batch.
    lr : AdamW learning rate.  n_samples : designs per iteration (N).  inner_steps : gradient steps per
    batch (K).  hidden : hidden units per clique MLP.  weight_decay : AdamW decoupled weight decay.
    seed : seed of the model initialisation and of all sampling.  n_final : fresh draws from the final model
    whose values are reported in ``History.final_values``.  keep_samples : store every batch in the history.

    Examples
    --------
    >>> obj = JunctionTreeObjective.random(6, 3, tree="chain", seed=0)
    >>> hist = DADO(beta=1.0, lr=3e-3, n_samples=16, n_final=8).run(obj, budget=64)
    >>> tuple(hist.values.shape), tuple(hist.ess.shape)
    ((4, 16), (4, 6))
    """

    def __init__(
        self,
        beta: float = 1.0,
        lr: float = 3e-3,
        n_samples: int = 128,
        inner_steps: int = 1,
        hidden: int = 32,
        relative_beta: bool = True,
        weight_decay: float = 1e-4,
        seed: int = 0,
        n_final: int = 512,
        keep_samples: bool = True,
    ) -> None:
        super().__init__(
            beta, lr, n_samples, inner_steps, hidden, relative_beta, weight_decay, seed, n_final, keep_samples
        )

    def _make_model(self, objective: JunctionTreeObjective) -> torch.nn.Module:
        return TreeSearchDistribution.from_objective(objective, self.hidden, init_seed=self.seed)

    def _weights(
        self, objective: JunctionTreeObjective, x: torch.Tensor, f: torch.Tensor, beta: float
    ) -> torch.Tensor:
        node, edge = objective.terms(x)
        _, _, adv = tree_values(objective.structure, node, edge, objective.clique_states(x))
        return advantage_weights(adv, beta)

    def _loss(self, model: torch.nn.Module, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return -(w * model.factor_log_prob(x)).sum(1).mean()


class EDA(_ModelBased):
    """Estimation-of-distribution algorithm with one weight per sample, w = min(exp(f / beta), 1e30).

    ``model="autoregressive"`` (the decomposition-unaware baseline of the paper) or ``"tree"`` (the same
    tree-factorised model as DADO, isolating DADO's per-factor credit assignment). Other parameters as
    :class:`DADO`.
    """

    def __init__(
        self,
        model: str = "autoregressive",
        beta: float = 1.0,
        lr: float = 3e-3,
        n_samples: int = 128,
        inner_steps: int = 1,
        hidden: int = 32,
        relative_beta: bool = True,
        weight_decay: float = 1e-4,
        seed: int = 0,
        n_final: int = 512,
        keep_samples: bool = True,
    ) -> None:
        check_choice("model", model, ("autoregressive", "tree"))
        self.model_kind = model
        super().__init__(
            beta, lr, n_samples, inner_steps, hidden, relative_beta, weight_decay, seed, n_final, keep_samples
        )

    def _make_model(self, objective: JunctionTreeObjective) -> torch.nn.Module:
        if self.model_kind == "tree":
            return TreeSearchDistribution.from_objective(objective, self.hidden, init_seed=self.seed)
        return AutoregressiveSearchDistribution(
            objective.n_vars, objective.n_states, self.hidden, init_seed=self.seed
        )

    def _weights(
        self, objective: JunctionTreeObjective, x: torch.Tensor, f: torch.Tensor, beta: float
    ) -> torch.Tensor:
        return advantage_weights(f[:, None], beta)

    def _loss(self, model: torch.nn.Module, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return -(w[:, 0] * model.log_prob(x)).mean()


class RandomSearch:
    """Uniform random designs, ``n_samples`` per iteration; the final distribution is the uniform one."""

    def __init__(self, n_samples: int = 128, seed: int = 0, n_final: int = 512) -> None:
        self.n_samples = check_int("n_samples", n_samples, low=1)
        self.seed = check_int("seed", seed, low=0)
        self.n_final = check_int("n_final", n_final, low=0)

    def run(self, objective: JunctionTreeObjective, budget: int) -> History:
        """Evaluate `budget` uniform designs."""
        objective = _check_objective(objective)
        iters = _n_iters(budget, self.n_samples)
        gen = torch.Generator().manual_seed(self.seed)
        shape = (self.n_samples, objective.n_vars)
        values = torch.stack(
            [objective(torch.randint(objective.n_states, shape, generator=gen)) for _ in range(iters)]
        )
        final = objective(torch.randint(objective.n_states, (self.n_final, objective.n_vars), generator=gen))
        return History(values, torch.empty(iters, 0), torch.zeros(iters), final)


class SimulatedAnnealing:
    """Parallel single-site Metropolis chains with a geometric temperature schedule.

    The temperature falls from ``t_start`` to ``t_end`` (both times the standard deviation of f over the
    uniform starting states when ``relative=True``). Each step proposes a new state for one random variable
    per chain; ``budget // n_chains`` steps. The final distribution is the set of final chain states.
    """

    def __init__(
        self,
        n_chains: int = 16,
        t_start: float = 1.0,
        t_end: float = 0.01,
        relative: bool = True,
        seed: int = 0,
    ) -> None:
        self.n_chains = check_int("n_chains", n_chains, low=1)
        self.t_start = check_float("t_start", t_start, low=0.0, low_open=True)
        self.t_end = check_float("t_end", t_end, low=0.0, low_open=True)
        self.relative = check_bool("relative", relative)
        self.seed = check_int("seed", seed, low=0)

    def run(self, objective: JunctionTreeObjective, budget: int) -> History:
        """Anneal with `budget` evaluations (one per chain and step, the starting states included)."""
        objective = _check_objective(objective)
        steps = _n_iters(budget, self.n_chains)
        gen = torch.Generator().manual_seed(self.seed)
        m, n_vars, d = self.n_chains, objective.n_vars, objective.n_states
        x = torch.randint(d, (m, n_vars), generator=gen)
        f = objective(x)
        scale = max(float(f.std()), 1e-12) if self.relative and m > 1 else 1.0
        temps = scale * np.geomspace(self.t_start, self.t_end, max(steps - 1, 1))
        values = [f.clone()]
        rows = torch.arange(m)
        for t in range(steps - 1):
            prop = x.clone()
            site = torch.randint(n_vars, (m,), generator=gen)
            shift = torch.randint(1, d, (m,), generator=gen)
            prop[rows, site] = (prop[rows, site] + shift) % d
            fp = objective(prop)
            u = torch.rand(m, generator=gen, dtype=torch.float64)
            accept = u < torch.exp(((fp - f) / float(temps[t])).clamp(max=0.0))
            x = torch.where(accept[:, None], prop, x)
            f = torch.where(accept, fp, f)
            values.append(fp)
        return History(torch.stack(values), torch.empty(steps, 0), torch.zeros(steps), f.clone())


class PBIL:
    """Population-based incremental learning: independent categoricals moved towards the top designs.

    Each iteration samples ``n_samples`` designs, takes the best ``elite`` fraction and updates
    p <- (1 - rate) p + rate * (state frequencies of the elite).
    """

    def __init__(
        self, n_samples: int = 128, elite: float = 0.1, rate: float = 0.1, seed: int = 0, n_final: int = 512
    ) -> None:
        self.n_samples = check_int("n_samples", n_samples, low=2)
        check_probability("elite (a fraction)", elite, open_low=True)
        check_probability("rate", rate, open_low=True)
        self.elite, self.rate, self.seed = float(elite), float(rate), check_int("seed", seed, low=0)
        self.n_final = check_int("n_final", n_final, low=0)

    def run(self, objective: JunctionTreeObjective, budget: int) -> History:
        """Run PBIL with `budget` evaluations."""
        objective = _check_objective(objective)
        iters = _n_iters(budget, self.n_samples)
        gen = torch.Generator().manual_seed(self.seed)
        n_vars, d = objective.n_vars, objective.n_states
        probs = torch.full((n_vars, d), 1.0 / d, dtype=torch.float64)
        k = max(1, int(round(self.elite * self.n_samples)))
        values = []
        for _ in range(iters):
            x = torch.multinomial(probs, self.n_samples, replacement=True, generator=gen).T
            f = objective(x)
            top = x[f.topk(k).indices]
            freq = torch.nn.functional.one_hot(top, d).to(torch.float64).mean(0)
            probs = (1 - self.rate) * probs + self.rate * freq
            values.append(f)
        final = torch.empty(0, dtype=torch.float64)
        if self.n_final:
            final = objective(torch.multinomial(probs, self.n_final, replacement=True, generator=gen).T)
        return History(torch.stack(values), torch.empty(iters, 0), torch.zeros(iters), final)
