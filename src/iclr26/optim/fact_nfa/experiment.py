"""Reproduction of FACT's headline claims: E1 (feature agreement of an MLP) and E2 (FACT-RFM groks mod addition).

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz for how networks learn representations"
(OpenReview j4964wtJMz, arXiv 2507.05644). Per seed:

* E1: multi-index data ``y = sum_{k<=3} tanh(u_k^T x) + 0.1 eps``, x ~ N(0, I_20); a 2-hidden-layer tanh MLP
  trained with an explicit L2 term for each lambda (GD + momentum, then L-BFGS, float64); the first layer's
  corr(W^T W, FACT) and corr(W^T W, AGOP^s), s in {1, 1/2}, every ``track_every`` steps and at the end. A run
  whose final gradient norm is not below ``converge_ratio`` x its initial value is flagged and excluded.
* E2: modular addition mod p with one-hot inputs, a random ``train_frac`` of the p^2 pairs for training;
  FACT-RFM and NFA-RFM test accuracy per iteration, and kernel ridge with M = I (scikit-learn ``KernelRidge``
  on the precomputed kernel), under each RFM setting of ``rfm_readings``: the first (the official RFM grokking
  code's: Gaussian kernel, L = 2.5, ridge 0, centred gradients, NFA's M not rescaled) is judged and writes
  the unsuffixed metrics, each further one (the earlier Laplace setting) writes them with ``_<name>`` appended.

The claim is decided by :mod:`.claim_check`; it is judged only where NFA-RFM, the baseline that groks in the
literature, groks in our setting too (a precondition). E1's data and networks live on ``device``; E2 is NumPy
on the CPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.kernel_ridge import KernelRidge

from iclr26.harness import Claim, Curve, Experiment, Metrics, Precondition
from iclr26.harness.progress import task
from iclr26.optim.fact_nfa.claim_check import fact_claim_decider
from iclr26.optim.fact_nfa.figures import agreement_curves, feature_heatmaps, grokking_curves
from iclr26.optim.fact_nfa.kernel_features import kernel_matrix, rfm_iterates
from iclr26.optim.fact_nfa.training import multi_index_data, train_and_track

__all__ = [
    "EXPERIMENT",
    "LAPLACE_RFM",
    "OFFICIAL_RFM",
    "FactNfaConfig",
    "RFMSetting",
    "modular_addition",
    "run",
]


@dataclass(frozen=True)
class RFMSetting:
    """One reading of E2's RFM choices; ``normalize_*``: divide each new M by its largest eigenvalue."""

    name: str
    kernel: str
    bandwidth: float
    ridge: float
    center_grads: bool
    normalize_nfa: bool
    normalize_fact: bool

    def rfm_kwargs(self, update: str, nfa_power: float) -> dict:
        """Keyword arguments of :func:`rfm_iterates` (after X, Y, iters) for `update`."""
        normalize = self.normalize_nfa if update == "nfa" else self.normalize_fact
        return dict(
            bandwidth=self.bandwidth,
            ridge=self.ridge,
            update=update,
            nfa_power=nfa_power,
            kernel=self.kernel,
            center_grads=self.center_grads,
            normalize=normalize,
        )


# nmallinar/rfm-grokking (train_kernel.py defaults): Gaussian kernel, L = 2.5, ridge 0, centred gradients, M not
# rescaled. The FACT update has no official code; undamped it diverges without a scale (README), so FACT's M
# keeps the brief's largest-eigenvalue normalisation.
OFFICIAL_RFM = RFMSetting("official", "gaussian", 2.5, 0.0, True, normalize_nfa=False, normalize_fact=True)
# the brief's RFM (Laplace kernel) with our earlier E2 constants, reported beside
LAPLACE_RFM = RFMSetting("laplace", "laplace", 1.0, 1e-3, False, normalize_nfa=True, normalize_fact=True)


@dataclass(frozen=True)
class FactNfaConfig:
    """E1 (MLP feature agreement) and E2 (modular addition with RFMs) settings."""

    n: int = 1000
    d: int = 20
    k: int = 3
    noise: float = 0.1
    width: int = 64
    lambdas: tuple[float, ...] = (1e-4, 1e-3)
    gd_steps: int = 1000
    lbfgs_iters: int = 2000
    lr: float = 0.1
    momentum: float = 0.9
    track_every: int = 100
    activation: str = "tanh"
    converge_ratio: float = 1e-4
    p: int = 31
    train_frac: float = 0.5
    rfm_iters: int = 75
    rfm_updates: tuple[str, ...] = ("fact", "nfa")
    rfm_readings: tuple[RFMSetting, ...] = (OFFICIAL_RFM, LAPLACE_RFM)
    nfa_power: float = 0.5


def modular_addition(p: int, train_frac: float, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One-hot ``[e_a, e_b]`` (2p-dim) -> one-hot ``e_{(a+b) mod p}``, split at random: Xtr, Ytr, Xte, Yte."""
    a, b = np.divmod(np.arange(p * p), p)
    X = np.concatenate([np.eye(p)[a], np.eye(p)[b]], axis=1)
    Y = np.eye(p)[(a + b) % p]
    perm = rng.permutation(p * p)
    n_train = int(round(train_frac * p * p))
    tr, te = perm[:n_train], perm[n_train:]
    return X[tr], Y[tr], X[te], Y[te]


def _overtake_step(steps: list[int], fact: list[float], nfa: list[float]) -> float:
    """The first tracked step from which corr(FACT) stays above max corr(AGOP^s); NaN if it never does."""
    ahead = [f > a for f, a in zip(fact, nfa)]
    for i in range(len(ahead)):
        if all(ahead[i:]):
            return float(steps[i])
    return math.nan


def _e1(cfg: FactNfaConfig, seed: int, device: str, values: dict, curves: dict, artifacts: dict) -> None:
    gen = torch.Generator().manual_seed(seed)
    X, y = multi_index_data(cfg.n, cfg.d, cfg.k, cfg.noise, gen)
    X, y = X.to(device), y.to(device)
    diffs, kept_fact, kept_nfa = [], [], []
    for lam in cfg.lambdas:
        tr = train_and_track(
            X,
            y,
            cfg.width,
            lam,
            cfg.gd_steps,
            cfg.lbfgs_iters,
            cfg.lr,
            cfg.momentum,
            cfg.track_every,
            cfg.activation,
            gen,
        )
        tag = f"lam{lam:g}"
        nfa = [max(a, b) for a, b in zip(tr.agop, tr.agop_sqrt)]
        ratio = tr.grad_norm[-1] / tr.grad_norm[0]
        converged = ratio < cfg.converge_ratio
        values |= {
            f"corr_fact_{tag}": tr.fact[-1],
            f"corr_agop_{tag}": tr.agop[-1],
            f"corr_agop_sqrt_{tag}": tr.agop_sqrt[-1],
            f"cos_fact_{tag}": tr.fact_cos[-1],
            f"cos_agop_{tag}": tr.agop_cos[-1],
            f"cos_agop_sqrt_{tag}": tr.agop_sqrt_cos[-1],
            f"grad_ratio_{tag}": ratio,
            f"converged_{tag}": float(converged),
            f"overtake_step_{tag}": _overtake_step(tr.steps, tr.fact, nfa),
        }
        if converged:
            diffs.append(tr.fact[-1] - nfa[-1])
            kept_fact.append(tr.fact[-1])
            kept_nfa.append(nfa[-1])
        for name in ("fact", "agop", "agop_sqrt"):
            curves[f"corr_{name}_{tag}"] = Curve(
                tr.steps, getattr(tr, name), "training step", "corr with W^T W"
            )
        curves[f"grad_norm_{tag}"] = Curve(tr.steps, tr.grad_norm, "training step", "gradient norm")
        artifacts[f"matrices_{tag}"] = tr.matrices
    values["n_converged"] = float(len(diffs))
    values["c1_diff"] = float(np.mean(diffs)) if diffs else math.nan
    # the two sides of c1_diff (means over the converged lambdas; NaN when none converged)
    values["corr_fact_converged"] = float(np.mean(kept_fact)) if kept_fact else math.nan
    values["corr_nfa_converged"] = float(np.mean(kept_nfa)) if kept_nfa else math.nan


def _e2(cfg: FactNfaConfig, seed: int, values: dict, curves: dict) -> None:
    Xtr, Ytr, Xte, Yte = modular_addition(cfg.p, cfg.train_frac, np.random.default_rng(seed))
    eye = np.eye(Xtr.shape[1])
    total = len(cfg.rfm_readings) * len(cfg.rfm_updates) * (cfg.rfm_iters + 1)
    with task("fact-nfa: RFM iterations", total=total) as bar:
        for i, setting in enumerate(cfg.rfm_readings):
            tag = "" if i == 0 else f"_{setting.name}"  # the first reading is the judged one

            def kern(A, M, setting=setting):
                return kernel_matrix(A, Xtr, M, setting.bandwidth, setting.kernel)

            ridge = KernelRidge(alpha=setting.ridge, kernel="precomputed").fit(kern(Xtr, eye), Ytr)
            pred = ridge.predict(kern(Xte, eye))
            values[f"acc_kernel_ridge{tag}"] = float(np.mean(pred.argmax(1) == Yte.argmax(1)))
            for update in cfg.rfm_updates:
                accs = []
                for M, alpha in rfm_iterates(
                    Xtr, Ytr, cfg.rfm_iters, **setting.rfm_kwargs(update, cfg.nfa_power)
                ):
                    accs.append(float(np.mean((kern(Xte, M) @ alpha).argmax(1) == Yte.argmax(1))))
                    bar.advance()
                name = {"fact": "fact_rfm", "fact_geomean": "fact_geomean_rfm", "nfa": "nfa_rfm"}[update]
                values[f"acc_{name}_best{tag}"] = max(accs)
                values[f"acc_{name}_final{tag}"] = accs[-1]
                curves[f"acc_{name}{tag}"] = Curve(
                    list(range(len(accs))), accs, "RFM iteration", "test accuracy"
                )


def run(cfg: FactNfaConfig, seed: int, device: str) -> Metrics:
    """One seed: E1 for every lambda (tensors and networks on `device`), then E2 (CPU, NumPy)."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"lambdas": list(cfg.lambdas)}
    _e1(cfg, seed, device, values, curves, artifacts)
    _e2(cfg, seed, values, curves)
    return Metrics(values=values, curves=curves, artifacts=artifacts)


EXPERIMENT = Experiment(
    slug="fact-nfa",
    configs={
        "smoke": FactNfaConfig(
            n=200, width=16, lambdas=(1e-3,), gd_steps=100, lbfgs_iters=100, track_every=50, p=7, rfm_iters=3
        ),
        "quick": FactNfaConfig(),
        "full": FactNfaConfig(
            n=2000,
            width=256,
            gd_steps=3000,
            lbfgs_iters=5000,
            p=61,
            rfm_updates=("fact", "fact_geomean", "nfa"),
        ),
    },
    seeds={"smoke": 1, "quick": 5, "full": 5},
    run=run,
    claims=[
        Claim(
            id="fact-beats-nfa-and-groks",
            statement=(
                "At convergence the first layer's W^T W correlates better with the FACT matrix than with AGOP or "
                "AGOP^{1/2} (paired 95% t-interval of the difference > 0), and FACT-RFM reaches >= 95% test "
                "accuracy on modular addition within the iteration budget in every seed while M = I kernel ridge "
                "stays below 50%"
            ),
            paper_value=(
                "FACT holds exactly at convergence and agrees better with learned features than the NFA; FACT-RFM "
                "groks modular arithmetic (p = 61) like NFA-RFM"
            ),
            decide=fact_claim_decider(),
            scale_gap="n = 1000, width 64, p = 31 instead of width 256 / p = 61",
            preconditions=(
                Precondition(
                    "acc_nfa_rfm_best",
                    ">=",
                    0.95,
                    "our RFM setting groks: NFA-RFM (official RFM grokking setting), which groks modular arithmetic in "
                    "the RFM literature (Mallinar et al.; the paper's 'like NFA-RFM'), reaches the claim's own 95% "
                    "test-accuracy criterion",
                ),
            ),
        )
    ],
    figures=[agreement_curves, feature_heatmaps, grokking_curves],
    devices=("cpu", "cuda"),
    scale_gap=(
        "Quick: E1 with n = 1000 and width 64 (brief: n = 2000, width 256), 1000 GD steps + up to 2000 L-BFGS "
        "iterations, tanh only; E2 with p = 31 (paper p = 61), judged on the official RFM grokking setting "
        "(Gaussian kernel, L = 2.5, ridge 0, centred gradients), the earlier Laplace setting (L = 1, ridge 1e-3) "
        "reported beside it. E3 (sparse parity) and tabular benchmarks are not run; all data are generated."
    ),
)
