"""Reproduction of "RACS & Alice: Towards Efficient Optimizer Design for LLM via Structured Fisher Approximation
with a Low-Rank Extension" (arXiv 2502.07752).

Per harness seed (one independent replication): the shared char-level tiny GPT (:mod:`iclr26.lab.tinygpt`) on
Python standard-library sources is trained from the same initial weights and on the same batches by each
optimizer (AdamW, Muon + AdamW, GaLore and SOAP from their libraries; RACS and Alice from this package, each with
its AdamW fallback group) under a cosine schedule with 10% warm-up and the learning rates frozen in
``tuned_lrs.json`` (tuned on a separate seed). Metrics: eval-loss curves (every 25 steps; also as metrics on a
fixed grid of fractions of the run, :func:`~iclr26.optim.racs_alice.claim_check.curve_metrics`), final eval loss,
optimizer-state floats (total and on the hidden matrices only), per-seed speedups over AdamW, Alice's basis
orthonormality after training, and the eval loss of the trivial predictor (the training split's character
marginal) that every compared optimizer must beat (the claims' preconditions). Claims:
:mod:`iclr26.optim.racs_alice.claim_check`. Models and data live on ``device``; on the CPU the numbers are those
of the CPU-only version, bit for bit.
"""

from __future__ import annotations

from functools import partial

import torch

from iclr26.harness.claims import Claim, never_exceeds
from iclr26.harness.experiment import Experiment, Metrics
from iclr26.lab.optim_bench import (
    basis_orth_error,
    bench_optimizers,
    learned_lrs,
    marginal_eval_loss,
    model_config,
    train_config,
    trained_below_marginal,
)
from iclr26.lab.param_groups import split_param_groups
from iclr26.optim.racs_alice.baselines import make_optimizer
from iclr26.optim.racs_alice.claim_check import curve_metrics, racs_vs_galore, speedup, speedup_claim
from iclr26.optim.racs_alice.config import CONFIGS, RacsAliceConfig
from iclr26.optim.racs_alice.figures import loss_curves, loss_vs_state
from iclr26.optim.racs_alice.tuned_lrs import load_tuned_lrs

__all__ = ["EXPERIMENT", "RacsAliceConfig", "marginal_eval_loss", "model_config", "run", "train_config"]


def _matrix_state(opts: object, matrices: list[torch.nn.Parameter]) -> float:
    """Optimizer-state floats held for the hidden matrices (0-d counters excluded)."""
    ids = {id(p) for p in matrices}
    total = 0
    for o in opts if isinstance(opts, list) else [opts]:
        for p, st in o.state.items():
            if id(p) in ids:
                total += sum(t.numel() for t in st.values() if torch.is_tensor(t) and t.ndim > 0)
    return float(total)


def _build(name: str, lr: float, fallback_lr: float, rank: int, leading: int, interval: int, model):  # noqa: ANN001, ANN202
    return make_optimizer(name, model, lr, fallback_lr, rank, leading, interval)


def run(cfg: RacsAliceConfig, seed: int, device: str) -> Metrics:
    """Train the tiny GPT once per optimizer (same init and batches for all) and collect the claim metrics.

    The models, their optimizer state and the encoded text live on ``device``; initial weights and batch order
    come from CPU generators, so they are the same on every device.
    """
    lrs, lr_source = learned_lrs(load_tuned_lrs, cfg.lr_key)
    extra = (lrs["fallback"], cfg.rank, cfg.leading_basis, cfg.interval)
    bench = bench_optimizers(
        cfg,
        seed,
        device,
        [(name, partial(_build, name, lrs[name], *extra)) for name in cfg.optimizers],
        f"racs-alice seed {seed}",
    )
    values, curves, seconds = bench.values, bench.curves, bench.seconds
    evals: dict[str, tuple[list[int], list[float]]] = {}
    for name, run_ in bench.runs.items():
        matrices, _ = split_param_groups(run_.model)
        values[f"{name}_matrix_state_floats"] = _matrix_state(run_.optimizers[0], matrices)
        evals[name] = (run_.result.eval_steps, run_.result.eval_losses)
        if name == "alice":
            values["alice_basis_orth_error"] = basis_orth_error(run_.optimizers[0], matrices, "U")
    v = values
    steps, base = evals["adamw"]
    for name in ("adamw", "racs", "alice"):
        if name in evals:
            values |= curve_metrics(name, *evals[name], cfg.steps)
    for name in ("racs", "alice"):
        ok = len(evals[name][1]) == len(steps)
        v[f"{name}_speedup_seed"] = speedup(steps, base, evals[name][1]) if ok else float("nan")
        v[f"{name}_state_over_adamw"] = v[f"{name}_state_floats"] / v["adamw_state_floats"]
    v["racs_matrix_state_over_adamw"] = v["racs_matrix_state_floats"] / v["adamw_matrix_state_floats"]
    v["alice_matrix_state_over_adamw"] = v["alice_matrix_state_floats"] / v["adamw_matrix_state_floats"]
    v["racs_minus_galore"] = v["racs_final"] - v["galore_final"]
    artifacts = {
        "lrs": {n: lrs[n] for n in (*cfg.optimizers, "fallback")},
        "lr_source": lr_source,
        "optimizers": list(cfg.optimizers),
        "alice": {"rank": cfg.rank, "leading_basis": cfg.leading_basis, "interval": cfg.interval},
        "seconds": seconds,
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_trained = trained_below_marginal


_GAP = (
    "2-layer char-level GPT (d_model 64 quick / 128 full, ~0.1-0.45M parameters) on Python stdlib sources for "
    "150-350 steps instead of LLaMA 60M-1B on C4; Alice rank/leading basis/interval scaled from 256/40/200 at "
    "d=2048 to 16/4/25 (quick) and 32/8/50 (full); optimizer memory as exact state-float counts"
)

EXPERIMENT = Experiment(
    slug="racs-alice",
    configs=CONFIGS,
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="alice-speedup",
            statement=(
                "Alice reaches AdamW's final eval loss in at most 2/3 of AdamW's steps (speedup >= 1.5 on the "
                "seed-mean curves, seed-bootstrap 95% lower bound > 1)"
            ),
            paper_value="more than 2x faster than Adam (steps to Adam's final eval perplexity), LLaMA 60M-1B on C4",
            decide=speedup_claim("alice"),
            scale_gap=_GAP,
            preconditions=(_trained("alice", "Alice"), _trained("adamw", "AdamW")),
        ),
        Claim(
            id="racs-beats-galore-at-sgd-memory",
            statement=(
                "RACS ends at a lower eval loss than GaLore (paired 95% t-interval below 0) while its state on "
                "the hidden matrices is under 5% of AdamW's"
            ),
            paper_value="RACS strong at 1B with SGD-like memory (m + n floats per m x n matrix); no numbers quoted",
            decide=racs_vs_galore,
            scale_gap=_GAP,
            preconditions=(_trained("racs", "RACS"), _trained("galore", "GaLore")),
        ),
        Claim(
            id="alice-basis-orthonormal",
            statement="after training, every Alice basis U is orthonormal to 1e-4 (max-entry error of U^T U - I)",
            paper_value="(implementation invariant, not a paper number)",
            decide=never_exceeds("alice_basis_orth_error", 1e-4),
            kind="check",
        ),
    ],
    figures=[loss_curves, loss_vs_state],
    scale_gap=_GAP,
    devices=("cpu", "cuda"),
)
