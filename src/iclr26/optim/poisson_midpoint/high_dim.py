"""The full protocol's d = 20 targets: W2 bounds of LMC and PLMC where exact W2 is out of reach.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614). Two targets, both dynamics, LMC (ULMC) and PLMC at every step size:

* ``SeparableLogCosh(d, c)``: sqrt(sum_j W2(marginal_j)^2), exact per coordinate; a LOWER bound on joint W2;
* ``GaussianTarget`` with condition number kappa (random rotation): the Gelbrich distance of the samples'
  moments to N(0, Sigma), also a lower bound on W2 (exact if the samples were Gaussian).

Noise floors are the same statistics evaluated on exact samples. Reported, not judged: the claim rests on the
1-D target where W2 is exact.
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.harness import track
from iclr26.optim.poisson_midpoint.claim_check import SETTINGS, usable_slope
from iclr26.optim.poisson_midpoint.protocol import PoissonMidpointConfig, run_sampler
from iclr26.optim.poisson_midpoint.targets import GaussianTarget, SeparableLogCosh
from iclr26.optim.poisson_midpoint.wasserstein import gelbrich_w2, marginal_w2_squared

__all__ = ["high_dim_metrics"]


def high_dim_metrics(
    cfg: PoissonMidpointConfig, seed_seq: np.random.SeedSequence, device: str
) -> dict[str, float]:
    """Metrics ``w2_{setting}_{method}_{target}_h{h}``, ``slope_...`` and ``noise_floor_{target}``.

    Targets are named ``logcosh{d}`` (marginal-sum bound) and ``gauss{d}`` (Gelbrich bound).
    """
    d, n = cfg.high_dim_d, cfg.n_chains_high_dim
    jobs = [
        (t, s, m, h)
        for t in ("logcosh", "gauss")
        for s in SETTINGS
        for m in ("lmc", "plmc")
        for h in cfg.step_sizes
    ]
    streams = seed_seq.spawn(len(jobs) + 1)
    rng = np.random.default_rng(streams[-1])
    logcosh = SeparableLogCosh(d, cfg.c)
    gauss = GaussianTarget.with_condition_number(d, cfg.kappa, rng)
    law = logcosh.marginal()

    def distance(name: str, x: np.ndarray) -> float:
        if name == "logcosh":
            return math.sqrt(marginal_w2_squared(x, law))
        return gelbrich_w2(x, gauss.mean, gauss.cov)

    targets = {"logcosh": logcosh, "gauss": gauss}
    floors = {name: distance(name, targets[name].sample(n, rng)) for name in targets}
    values = {f"noise_floor_{name}{d}": floor for name, floor in floors.items()}
    costs: dict[tuple[str, str, str], list[float]] = {}
    for (name, s, m, h), stream in zip(
        track(jobs, description=f"poisson-midpoint: d = {d} targets"), streams
    ):
        target = targets[name]
        x, cost = run_sampler(cfg, s, m, target.grad, target.L, (n, d), h, stream, device)
        values[f"w2_{s}_{m}_{name}{d}_h{h:g}"] = distance(name, x)
        costs.setdefault((name, s, m), []).append(cost)
    for (name, s, m), cost in costs.items():
        w2 = [values[f"w2_{s}_{m}_{name}{d}_h{h:g}"] for h in cfg.step_sizes]
        values[f"slope_{s}_{m}_{name}{d}"], values[f"n_usable_{s}_{m}_{name}{d}"] = usable_slope(
            cost, w2, floors[name]
        )
    return values
