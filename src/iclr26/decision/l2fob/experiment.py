"""Reproduction of L2FOB's headline claim ("Towards Safe and Optimal Online Bidding: A Modular Look-ahead
Lyapunov Framework", ICLR 2026, OpenReview AtbRCnvcrZ).

Per seed (one independent replication), first-price auctions with full information, v ~ U[0, 1], d ~ U[0, 1],
B = rho T with rho = 0.01, gamma = 1.8, a 101-point bid grid:

* main: L2FOB (eta_rho = eta_gam = 0.6, clipped queues, point mean field, lower cost bound), Wang et al. (2023),
  coupled dual pacing and truncated bidding at T = 10^4, all on the same draws; plus unjudged extras: L2FOB
  with the upper cost bound and with standard queues, and both dual baselines with the step 1/(rho sqrt T);
* sweep: L2FOB and Wang-2023 at five horizons (regret scaling), each horizon on its own draws;
* ablation: L2FOB with eta_gam in {0.06, 0.6, 6, 60} on the main draws;
* variants (unjudged): d ~ Beta(2, 2); the second-price rule; partial feedback (L2FOB with the bandit oracle).

Metrics per run: cumulative reward, regret T nu* - R against the fluid LP, final ROI, max_t V(t), spend and
stopping round; curves of R_t, V(t) and C_t at log-spaced rounds (the figures derive the running ROI R_t / C_t). The claim is judged by
:mod:`.claim_check`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from iclr26.decision.l2fob.accounting import Bidder
from iclr26.decision.l2fob.baselines import CoupledDualPacing, TruncatedBidder, WangDualPacing
from iclr26.decision.l2fob.claim_check import N_SWEEP, l2fob_claim
from iclr26.decision.l2fob.envs import RepeatedAuction
from iclr26.decision.l2fob.figures import (
    eta_ablation,
    regret_scaling,
    reward_and_roi,
    spend_paths,
    violation_paths,
)
from iclr26.decision.l2fob.fluid import fluid_benchmark
from iclr26.decision.l2fob.l2fob import L2FOB
from iclr26.decision.l2fob.oracles import BanditWinRateOracle
from iclr26.decision.l2fob.simulate import Trajectory, run_bidder, summarize
from iclr26.harness import Claim, Curve, Experiment, Metrics, track
from iclr26.lab.online import log_spaced_rounds

__all__ = ["EXPERIMENT", "METHODS", "L2fobConfig", "make_bidder", "run"]

METHODS: tuple[str, ...] = (
    "l2fob",
    "wang",
    "coupled",
    "truncated",
    "l2fob_upper",
    "l2fob_standard",
    "wang_scaled",
    "coupled_scaled",
)
VARIANTS: tuple[str, ...] = ("beta", "second", "partial")


@dataclass(frozen=True)
class L2fobConfig:
    """One budget of the L2FOB reproduction."""

    T: int = 10_000
    rho: float = 0.01
    gamma: float = 1.8
    n_grid: int = 101
    eta: float = 0.6  # eta_rho and the default eta_gam
    delta: float = 0.05  # confidence level of the DKW radii
    methods: tuple[str, ...] = METHODS
    sweep_T: tuple[int, ...] = (2_500, 5_000, 10_000, 20_000, 40_000)
    sweep_methods: tuple[str, ...] = ("l2fob", "wang")
    eta_gams: tuple[float, ...] = (0.06, 0.6, 6.0, 60.0)
    variants: tuple[str, ...] = VARIANTS
    n_values: int = 100  # value grid of the fluid LP
    curve_points: int = 80

    def __post_init__(self) -> None:
        if len(self.sweep_T) != N_SWEEP:
            raise ValueError(f"sweep_T must list {N_SWEEP} horizons, got {self.sweep_T}")
        unknown = [m for m in (*self.methods, *self.sweep_methods) if m not in METHODS]
        if unknown or "l2fob" not in self.methods or "wang" not in self.methods:
            raise ValueError(
                f"methods must include 'l2fob' and 'wang' and come from {METHODS}, got {unknown}"
            )
        if not {6.0, 60.0} <= set(self.eta_gams):
            raise ValueError(f"eta_gams must include 6 and 60 (claim (d)), got {self.eta_gams}")
        if any(v not in VARIANTS for v in self.variants):
            raise ValueError(f"variants must come from {VARIANTS}, got {self.variants}")


def make_bidder(
    name: str,
    cfg: L2fobConfig,
    T: int,
    price_rule: str = "first",
    eta_gam: float | None = None,
    oracle: Any = None,
) -> Bidder:
    """The bidder `name` of :data:`METHODS` for horizon T and budget B = rho T."""
    grid = np.linspace(0.0, 1.0, cfg.n_grid)
    B = cfg.rho * T
    scaled = 1.0 / (cfg.rho * math.sqrt(T))  # dual step 1 / (rho sqrt T)
    l2fob = {"price_rule": price_rule, "delta": cfg.delta, "oracle": oracle}
    eta_gam = cfg.eta if eta_gam is None else eta_gam
    makers: dict[str, Callable[[], Bidder]] = {
        "l2fob": lambda: L2FOB(grid, B, T, cfg.gamma, cfg.eta, eta_gam, **l2fob),
        "l2fob_upper": lambda: L2FOB(grid, B, T, cfg.gamma, cfg.eta, eta_gam, cost_bound="upper", **l2fob),
        "l2fob_standard": lambda: L2FOB(
            grid, B, T, cfg.gamma, cfg.eta, eta_gam, "quadratic", "standard", **l2fob
        ),
        "wang": lambda: WangDualPacing(grid, B, T, cfg.gamma, price_rule=price_rule),
        "wang_scaled": lambda: WangDualPacing(grid, B, T, cfg.gamma, scaled, price_rule=price_rule),
        "coupled": lambda: CoupledDualPacing(grid, B, T, cfg.gamma, price_rule=price_rule),
        "coupled_scaled": lambda: CoupledDualPacing(grid, B, T, cfg.gamma, scaled, price_rule=price_rule),
        "truncated": lambda: TruncatedBidder(grid, B, T, cfg.gamma),
    }
    if name not in makers:
        raise ValueError(f"name must be one of {METHODS}, got {name!r}")
    return makers[name]()


def _env_seed(seed: int, *job: int) -> int:
    """An independent 32-bit seed for the draws of one job of harness seed `seed`."""
    return int(np.random.SeedSequence([seed, *job]).generate_state(1)[0])


def _curves(run: Trajectory, gamma: float, rounds: np.ndarray, name: str) -> dict[str, Curve]:
    reward, spend = run.cumulative()
    idx = rounds - 1
    return {
        f"reward_{name}": Curve(rounds, reward[idx], "round t", "cumulative reward R_t"),
        f"violation_{name}": Curve(rounds, run.violation(gamma)[idx], "round t", "V(t)"),
        f"spend_{name}": Curve(rounds, spend[idx], "round t", "spend C_t"),
    }


def run(cfg: L2fobConfig, seed: int, device: str) -> Metrics:
    """Main comparison, horizon sweep, eta_gam ablation and variants for one seed (CPU only; `device` unused)."""
    uniform = stats.uniform()
    grid = np.linspace(0.0, 1.0, cfg.n_grid)
    fluid = {
        "first": fluid_benchmark(uniform, uniform, grid, cfg.rho, cfg.gamma, "first", cfg.n_values),
        "beta": fluid_benchmark(uniform, stats.beta(2, 2), grid, cfg.rho, cfg.gamma, "first", cfg.n_values),
        "second": fluid_benchmark(uniform, uniform, grid, cfg.rho, cfg.gamma, "second", cfg.n_values),
    }
    values: dict[str, float] = {"nu_star": fluid["first"].nu, "T": float(cfg.T)}
    curves: dict[str, Curve] = {}
    rounds = log_spaced_rounds(cfg.T, cfg.curve_points)
    main_env = RepeatedAuction(cfg.T, uniform, uniform)
    main_seed = _env_seed(seed, 0)

    def record(prefix: str, suffix: str, run_: Trajectory, nu: float) -> None:
        for key, value in summarize(run_, cfg.gamma, nu).items():
            values[f"{prefix}{key}_{suffix}"] = value

    jobs: list[Callable[[], None]] = []
    for name in cfg.methods:

        def main_job(name: str = name) -> None:
            trajectory = run_bidder(main_env, make_bidder(name, cfg, cfg.T), main_seed)
            record("", name, trajectory, fluid["first"].nu)
            curves.update(_curves(trajectory, cfg.gamma, rounds, name))

        jobs.append(main_job)
    for i, T in enumerate(cfg.sweep_T):
        values[f"sweep_T{i}"] = float(T)
        for name in cfg.sweep_methods:

            def sweep_job(i: int = i, T: int = T, name: str = name) -> None:
                env = RepeatedAuction(T, uniform, uniform)
                trajectory = run_bidder(env, make_bidder(name, cfg, T), _env_seed(seed, 1, i))
                values[f"sweep_norm_regret_{name}_{i}"] = summarize(trajectory, cfg.gamma, fluid["first"].nu)[
                    "norm_regret"
                ]

            jobs.append(sweep_job)
    for eta_gam in cfg.eta_gams:

        def eta_job(eta_gam: float = eta_gam) -> None:
            trajectory = run_bidder(main_env, make_bidder("l2fob", cfg, cfg.T, eta_gam=eta_gam), main_seed)
            record("", f"eta{eta_gam:g}", trajectory, fluid["first"].nu)

        jobs.append(eta_job)
    for vi, variant in enumerate(cfg.variants):
        for name in ("l2fob",) if variant == "partial" else ("l2fob", "wang"):

            def variant_job(vi: int = vi, variant: str = variant, name: str = name) -> None:
                competitor = stats.beta(2, 2) if variant == "beta" else uniform
                price_rule = "second" if variant == "second" else "first"
                feedback = "partial" if variant == "partial" else "full"
                env = RepeatedAuction(cfg.T, uniform, competitor, price_rule, feedback)
                oracle = (
                    BanditWinRateOracle(grid, cfg.T, price_rule, cfg.delta) if variant == "partial" else None
                )
                bidder = make_bidder(name, cfg, cfg.T, price_rule, oracle=oracle)
                nu = fluid[variant if variant in fluid else "first"].nu
                record(f"{variant}_", name, run_bidder(env, bidder, _env_seed(seed, 2, vi)), nu)

            jobs.append(variant_job)
    for job in track(jobs, description="l2fob: bidding runs"):
        job()
    artifacts = {
        "fluid": {
            key: {"nu": sol.nu, "spend": sol.spend, "roi": sol.roi, "budget_dual": sol.budget_dual}
            for key, sol in fluid.items()
        },
        "fluid_mean_bid": {"values": fluid["first"].values, "bid": fluid["first"].mean_bid()},
        "gamma": cfg.gamma,
        "B": cfg.rho * cfg.T,
        "methods": list(cfg.methods),
        "eta_gams": list(cfg.eta_gams),
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


EXPERIMENT = Experiment(
    slug="l2fob",
    configs={
        "smoke": L2fobConfig(
            T=2_000,
            methods=("l2fob", "wang", "coupled"),
            sweep_T=(250, 500, 1_000, 2_000, 4_000),
            variants=(),
            curve_points=40,
        ),
        "quick": L2fobConfig(),
        "full": L2fobConfig(
            T=100_000,
            sweep_T=(10_000, 31_623, 100_000, 316_228, 1_000_000),
            sweep_methods=("l2fob", "wang", "l2fob_upper", "wang_scaled"),
        ),
    },
    seeds={"smoke": 3, "quick": 30, "full": 50},
    run=run,
    claims=[
        Claim(
            id="l2fob-beats-wang",
            statement=(
                "In budgeted first-price auctions (T = 10^4, rho = 0.01, gamma = 1.8) L2FOB earns more than Wang "
                "et al. (2023) with ROI at the 1.8 target, its normalized regret falls with T (log-log slope "
                "<= -0.3), and eta_gam = 60 earns within 5% of eta_gam = 6"
            ),
            paper_value=(
                "L2FOB above Wang et al. (2023) in cumulative reward, ROI tracking 1.8 (first price, T = 10^4, "
                "B = 100); regret O~((1 + nu*/rho) sqrt T); eta_gam = 60 almost exactly like 6"
            ),
            decide=l2fob_claim(),
            scale_gap="our value and competing-bid laws (both U[0, 1]); 30 seeds; T = 10^4 and a sweep to 4 x 10^4",
        )
    ],
    figures=[reward_and_roi, violation_paths, spend_paths, regret_scaling, eta_ablation],
    scale_gap=(
        "The paper's value and competitor distributions are unknown: v, d ~ U[0, 1] here (ROI then does not bind "
        "at rho = 0.01). Same T = 10^4, B = 100, gamma = 1.8, eta = 0.6 as the paper; the MSLR-WEB30k experiment "
        "is not reproduced."
    ),
)
