"""Reproduction of "Leveraging Discrete Function Decomposability for Scientific Design" (DADO).

arXiv 2511.03032 (ICLR 2026). Synthetic tree-decomposable objectives with exact optima (max-sum DP): node terms
~ N(0, 1), edge terms ~ N(0, s^2), D states per variable. Per harness seed (one independent replication) and
problem setting, fresh instances are drawn from the seed; every method gets the same budget of evaluations:

- DADO (tree model, per-factor advantage weights), the paper's method;
- EDA with an autoregressive (MADE) model and per-sample weights exp(f / beta): the paper's baseline;
- EDA with DADO's tree model and per-sample weights: ablation of the per-factor credit assignment;
- random search, simulated annealing, PBIL: classic baselines (fixed settings).

The temperature beta (a multiple of the first batch's std of f) of each model-based method is tuned once on
separate instances of the large setting and reused everywhere. Metric: normalised score of the final search
distribution (E_p[f] - E_unif[f]) / (f* - E_unif[f]) and normalised best-so-far. Claim: the brief's rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import torch

from iclr26.generative.dado.claim_check import gap_decider
from iclr26.generative.dado.figures import ess_plot, gap_vs_size, score_vs_evaluations
from iclr26.generative.dado.objective import JunctionTreeObjective
from iclr26.generative.dado.optimizers import DADO, EDA, PBIL, History, RandomSearch, SimulatedAnnealing
from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track

__all__ = ["EXPERIMENT", "LEARNED_SCORE", "METHODS", "N_INSTANCES", "TUNED", "DadoConfig", "Setting", "run"]

METHODS = ("dado", "eda_ar", "eda_tree", "random", "sa", "pbil")
TUNED = ("dado", "eda_ar", "eda_tree")
CURVE_POINTS = 30
#: instances per seed and setting in every budget: the claims read each instance's scores by name
N_INSTANCES = 6
#: a search distribution "learned" when its normalised final score reaches a tenth of the way from the uniform
#: distribution (0 by construction of the score) to the exact optimum (1)
LEARNED_SCORE = 0.1


@dataclass(frozen=True)
class Setting:
    """One family of random instances."""

    name: str
    n_vars: int
    n_states: int = 8
    tree: str = "random"
    width: int = 1
    edge_scale: float = 2.0


@dataclass(frozen=True)
class DadoConfig:
    """One budget of the DADO reproduction; `small` and `large` are the two settings the claim compares."""

    small: Setting = Setting("small", 20)
    large: Setting = Setting("large", 60)
    extra: tuple[Setting, ...] = ()
    n_instances: int = N_INSTANCES  # evaluation instances per seed and setting
    n_samples: int = 128
    iterations: int = 150
    lr: float = 3e-3
    betas: tuple[float, ...] = (0.3, 1.0, 3.0)
    n_tune: int = 2  # tuning instances (large setting), disjoint from evaluation instances
    tune_seed: int = 0
    n_final: int = 512
    hidden_tree: int = 32
    hidden_ar: int = 128
    methods: tuple[str, ...] = METHODS
    single_thread: bool = True

    @property
    def settings(self) -> tuple[Setting, ...]:
        """All settings run, the claim's two first."""
        return (self.small, self.large, *self.extra)


def _instance(s: Setting, seed: int) -> JunctionTreeObjective:
    return JunctionTreeObjective.random(
        s.n_vars, s.n_states, tree=s.tree, width=s.width, seed=seed, edge_scale=s.edge_scale
    )


def _optimizer(method: str, cfg: DadoConfig, beta: float, seed: int):
    common = {
        "n_samples": cfg.n_samples,
        "lr": cfg.lr,
        "seed": seed,
        "n_final": cfg.n_final,
        "keep_samples": False,
    }
    if method == "dado":
        return DADO(beta=beta, hidden=cfg.hidden_tree, **common)
    if method == "eda_ar":
        return EDA("autoregressive", beta=beta, hidden=cfg.hidden_ar, **common)
    if method == "eda_tree":
        return EDA("tree", beta=beta, hidden=cfg.hidden_tree, **common)
    if method == "random":
        return RandomSearch(cfg.n_samples, seed=seed, n_final=cfg.n_final)
    if method == "sa":
        return SimulatedAnnealing(n_chains=16, seed=seed)
    if method == "pbil":
        return PBIL(cfg.n_samples, seed=seed, n_final=cfg.n_final)
    raise ValueError(f"unknown method {method!r}")


def _normalise(v: torch.Tensor | float, obj: JunctionTreeObjective) -> np.ndarray:
    u, best = obj.uniform_mean(), obj.max_value()
    return (np.asarray(v, dtype=float) - u) / (best - u)


@functools.lru_cache(maxsize=4)
def tune_betas(cfg: DadoConfig) -> dict[str, float]:
    """Beta (multiple of the first batch's std of f) of each tuned method: best mean final score on the
    tuning instances of the large setting (instance seeds 10**6 + k, algorithm seed `cfg.tune_seed`)."""
    budget = cfg.n_samples * cfg.iterations
    objs = [_instance(cfg.large, 10**6 + k) for k in range(cfg.n_tune)]
    out = {}
    for m in (m for m in TUNED if m in cfg.methods):
        scores = []
        for beta in track(cfg.betas, description=f"dado tuning {m}"):
            runs = [_optimizer(m, cfg, beta, cfg.tune_seed).run(o, budget) for o in objs]
            scores.append(np.mean([float(_normalise(h.final_values.mean(), o)) for h, o in zip(runs, objs)]))
        out[m] = float(cfg.betas[int(np.argmax(scores))])
    return out


def _summaries(hist: History, obj: JunctionTreeObjective, cfg: DadoConfig) -> tuple[float, float, np.ndarray]:
    score = float(_normalise(hist.final_values.mean(), obj))
    best = float(_normalise(hist.best_so_far()[-1], obj))
    traj = _normalise(hist.values.mean(1), obj)
    idx = np.linspace(0, len(traj) - 1, min(CURVE_POINTS, len(traj))).round().astype(int)
    return score, best, traj[idx]


def run(cfg: DadoConfig, seed: int, device: str) -> Metrics:
    """Tune (cached), then run every method on fresh instances of every setting for this seed."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    budget = cfg.n_samples * cfg.iterations
    betas = tune_betas(cfg)
    artifacts: dict = {
        "betas": betas,
        "sizes": {s.name: s.n_vars for s in cfg.settings},
        "budget": budget,
        "traj": {},
        "ess": {},
    }
    values |= {f"beta_{m}": b for m, b in betas.items()}
    jobs = [(s, k) for s in cfg.settings for k in range(cfg.n_instances)]
    for s, k in track(jobs, description=f"dado seed {seed}"):
        obj = _instance(s, 1000 * seed + 100 * cfg.settings.index(s) + k)
        for m in cfg.methods:
            hist = _optimizer(m, cfg, betas.get(m, 1.0), 7919 * seed + k).run(obj, budget)
            score, best, traj = _summaries(hist, obj, cfg)
            values[f"{s.name}_i{k}_{m}_score"] = score
            values[f"{s.name}_i{k}_{m}_best"] = best
            artifacts["traj"].setdefault(f"{s.name}_{m}", []).append(traj.tolist())
            if m in TUNED and hist.ess.numel():
                ess = (hist.ess / cfg.n_samples).mean(1).numpy()
                artifacts["ess"].setdefault(f"{s.name}_{m}", []).append(
                    ess[:: max(1, len(ess) // 30)].tolist()
                )
    for s in cfg.settings:
        for m in cfg.methods:
            for what in ("score", "best"):
                vals = [values[f"{s.name}_i{k}_{m}_{what}"] for k in range(cfg.n_instances)]
                values[f"{s.name}_{m}_{what}"] = float(np.mean(vals))
        for base, tag in (("eda_ar", "ar"), ("eda_tree", "tree")):
            if "dado" in cfg.methods and base in cfg.methods:
                gaps = [
                    values[f"{s.name}_i{k}_dado_score"] - values[f"{s.name}_i{k}_{base}_score"]
                    for k in range(cfg.n_instances)
                ]
                values |= {f"{s.name}_i{k}_gap_{tag}": g for k, g in enumerate(gaps)}
                values[f"{s.name}_gap_{tag}"] = float(np.mean(gaps))
        for m in cfg.methods:
            trajs = np.asarray(artifacts["traj"][f"{s.name}_{m}"])
            x = np.linspace(1, cfg.iterations, trajs.shape[1]) * cfg.n_samples
            curves[f"{s.name}_{m}"] = Curve(
                x.tolist(), trajs.mean(0).tolist(), "evaluations", "normalised mean f"
            )
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_SMOKE = DadoConfig(
    small=Setting("small", 6, n_states=4, tree="chain"),
    large=Setting("large", 10, n_states=4, tree="chain"),
    extra=(Setting("jt2", 9, n_states=3, width=2),),
    n_samples=32,
    iterations=10,
    betas=(1.0, 3.0),
    n_tune=1,
    n_final=64,
)
_FULL = DadoConfig(
    extra=(
        Setting("chain_L60_s0.5", 60, tree="chain", edge_scale=0.5),
        Setting("chain_L60_s2", 60, tree="chain", edge_scale=2.0),
        Setting("random_L60_s0.5", 60, edge_scale=0.5),
        Setting("jt2_L60", 60, width=2),
        Setting("L200_D20", 200, n_states=20),
    ),
    betas=(0.1, 0.3, 1.0, 3.0),
)


def _learned(method: str, name: str) -> tuple[Precondition, Precondition]:
    """Both compared search distributions left their uniform initialisation at the large size."""
    return tuple(
        Precondition(
            f"large_{m}_score",
            ">=",
            LEARNED_SCORE,
            f"{label}'s final search distribution reaches a tenth of the way from uniform sampling (normalised "
            "score 0 by construction) to the exact optimum (1) at L = 60",
        )
        for m, label in (("dado", "DADO"), (method, name))
    )


EXPERIMENT = Experiment(
    slug="dado",
    configs={"smoke": _SMOKE, "quick": DadoConfig(), "full": _FULL},
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="dado-beats-autoregressive-eda",
            statement=(
                "on random tree objectives with strong epistasis (L = 60, D = 8, edge std 2), DADO's final search "
                "distribution scores higher (normalised by the exact optimum) than a decomposition-unaware EDA "
                "with an autoregressive model, by >= 0.05 with a bootstrap interval above 0 over paired runs, and "
                "the gap is larger at L = 60 than at L = 20"
            ),
            paper_value="DADO converges faster / finds better designs than standard EDA on synthetic trees and "
            "protein landscapes; advantage grows with problem size (numeric margins not recovered)",
            decide=gap_decider("ar", ("small", "large"), N_INSTANCES),
            scale_gap="synthetic tree objectives only; 150 x 128 evaluations; 3 seeds x 6 fresh instances",
            preconditions=_learned("eda_ar", "EDA(autoregressive)"),
        ),
        Claim(
            id="dado-credit-assignment-ablation",
            statement=(
                "the same comparison against EDA with DADO's own tree model and per-sample weights (isolating the "
                "per-factor credit assignment): DADO scores >= 0.05 higher at L = 60 and the gap grows from L = 20"
            ),
            paper_value="(ablation added by the brief; not a number in the paper)",
            decide=gap_decider("tree", ("small", "large"), N_INSTANCES),
            scale_gap="as above",
            preconditions=_learned("eda_tree", "EDA(tree)"),
        ),
    ],
    figures=[score_vs_evaluations, gap_vs_size, ess_plot],
    scale_gap=(
        "Synthetic random-tree objectives with exact optima (L = 20, 60; D = 8) replace the paper's protein "
        "landscapes (GB1, AAV, GFP with AlphaFold-derived contact graphs and fitted predictors), which need assay "
        "data and structures not available offline; small MLP factors, CPU, 19,200 evaluations per run."
    ),
)
