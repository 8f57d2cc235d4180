"""A tiny registered experiment used by the harness tests."""

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness import Claim, Curve, Experiment, Metrics, difference_at_least, mean_at_least
from iclr26.harness.registry import register_experiment


@dataclass(frozen=True)
class ToyConfig:
    n: int
    effect: float = 0.5


def run(cfg: ToyConfig, seed: int, device: str) -> Metrics:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=cfg.n)
    return Metrics(
        values={"method": float(base.mean() + cfg.effect), "baseline": float(base.mean()), "score": 0.9},
        curves={"loss": Curve(x=list(range(cfg.n)), y=np.cumsum(base).tolist())},
        artifacts={"hist": np.histogram(base, bins=3)[0]},
    )


def loss_figure(results):
    """Toy loss curves, one line per seed."""
    fig = Figure(figsize=(4, 3))
    ax = fig.add_subplot()
    for r in results:
        ax.plot(r.curves["loss"]["x"], r.curves["loss"]["y"])
    return fig


def broken_figure(results):
    """A figure that always fails."""
    raise RuntimeError("boom")


TOY = Experiment(
    slug="toy-harness",
    configs={"smoke": ToyConfig(4), "quick": ToyConfig(16), "full": ToyConfig(64)},
    seeds={"smoke": 1, "quick": 4, "full": 8},
    run=run,
    claims=[
        Claim(
            "method-better",
            "the method beats the baseline",
            "+0.5",
            difference_at_least("method", "baseline"),
        ),
        Claim("score-high", "score above 0.5", "0.9", mean_at_least("score", 0.5)),
    ],
    figures=[loss_figure],
    scale_gap="a toy",
)
register_experiment(TOY)
