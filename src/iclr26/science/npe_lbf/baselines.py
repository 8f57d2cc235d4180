"""Every family trained through sbi's NPE with the same data, embedding net (identity) and training loop.

Families: ``lbf`` (fixed cubic B-splines, MLP eta), ``lbf_mlp`` (adapted MLP basis), ``legendre_linear`` (fixed
Legendre basis with eta linear in x: a classical exponential-family regression, our stand-in for the paper's
unnamed earlier basis-expansion method), and sbi's ``gaussian`` (MDN with 1 component), ``mdn`` (5 components),
``nsf`` and ``maf``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

__all__ = ["FAMILIES", "SBI_FAMILIES", "NullTracker", "TrainSettings", "estimator_builder", "train_family"]

SBI_FAMILIES = {"gaussian": ("mdn", 1), "mdn": ("mdn", 5), "nsf": ("nsf", None), "maf": ("maf", None)}
FAMILIES = ("lbf", "lbf_mlp", "legendre_linear", *SBI_FAMILIES)


@dataclass(frozen=True)
class TrainSettings:
    """sbi training settings shared by every family."""

    epochs: int = 30
    batch_size: int = 256
    lr: float = 1e-3
    stop_after_epochs: int = 1000  # effectively: always train `epochs` epochs
    validation_fraction: float = 0.1
    n_basis: int | None = None
    grid: int | None = None
    hidden: tuple[int, ...] = (128, 128)
    penalty: float = 1e-4
    quad_float32: bool = True  # LBF quadrature in float32 for speed (evaluation re-checks in float64)


class NullTracker:
    """An sbi training tracker that records nothing (sbi's default writes TensorBoard logs into ./sbi-logs)."""

    log_dir = ""

    def log_metric(self, name: str, value: float, step: int | None = None) -> None:
        """Drop one metric."""

    def log_metrics(self, metrics: dict[str, float], step: int | None = None) -> None:
        """Drop several metrics."""

    def log_params(self, params: dict[str, object]) -> None:
        """Drop the run's parameters."""

    def add_figure(self, name: str, figure: object, step: int | None = None) -> None:
        """Drop a figure."""

    def flush(self) -> None:
        """Nothing to flush."""


def estimator_builder(
    family: str, low: Sequence[float], high: Sequence[float], settings: TrainSettings
) -> Callable[[Tensor, Tensor], object]:
    """The sbi density-estimator builder of `family` (the LBF ones use the task's support box)."""
    from sbi.neural_nets import posterior_nn

    from iclr26.science.npe_lbf.sbi_estimator import build_lbf

    lbf_kw = dict(
        support=(low, high),
        grid=settings.grid,
        hidden=settings.hidden,
        penalty=settings.penalty,
        quad_dtype=torch.float32 if settings.quad_float32 else torch.float64,
    )
    if family == "lbf":
        return functools.partial(build_lbf, basis="bspline", n_basis=settings.n_basis, **lbf_kw)
    if family == "lbf_mlp":
        return functools.partial(build_lbf, basis="mlp", **lbf_kw)
    if family == "legendre_linear":
        return functools.partial(build_lbf, basis="legendre", eta_net="linear", **lbf_kw)
    if family in SBI_FAMILIES:
        model, comps = SBI_FAMILIES[family]
        return posterior_nn(model, num_components=comps) if comps else posterior_nn(model)
    raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")


def train_family(
    family: str,
    z: Tensor,
    x: Tensor,
    low: Sequence[float],
    high: Sequence[float],
    settings: TrainSettings,
    seed: int,
) -> tuple[object, dict[str, list[float]], float]:
    """Train `family` on (z, x) with sbi's NPE; returns (density estimator, loss curves per epoch, seconds)."""
    from sbi.inference import NPE
    from sbi.utils import BoxUniform

    torch.manual_seed(seed)
    t0 = time.perf_counter()
    prior = BoxUniform(torch.as_tensor(low, dtype=torch.float32), torch.as_tensor(high, dtype=torch.float32))
    inference = NPE(
        prior=prior,
        density_estimator=estimator_builder(family, low, high, settings),
        show_progress_bars=False,
        tracker=NullTracker(),
    )
    inference.append_simulations(z.float(), x.float())
    est = inference.train(
        training_batch_size=settings.batch_size,
        learning_rate=settings.lr,
        max_num_epochs=settings.epochs,
        stop_after_epochs=settings.stop_after_epochs,
        validation_fraction=settings.validation_fraction,
        show_train_summary=False,
    )
    est.eval()
    summary = inference._summary
    curves = {
        "train": [float(v) for v in summary.get("training_loss", [])],
        "val": [float(v) for v in summary.get("validation_loss", [])],
    }
    return est, curves, time.perf_counter() - t0
