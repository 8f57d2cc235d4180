"""Reproduction of "DirMoE: Dirichlet-Routed Mixture of Experts" (ICLR 2026, OpenReview a15cDnzr6r).

Per harness seed (one independent replication): a multi-domain synthetic language (D random sparse Markov
chains over a shared vocabulary, the domain hidden from the model; :mod:`iclr26.attention.dirmoe.data`, the
brief's own generator) and one small causal transformer per router (``iclr26.lab.transformer.Transformer`` with
:class:`MoEFFN` as every block's FFN), all trained by ``iclr26.lab.training.train_loop`` on
``sequence_loss + sum of the routers' auxiliary losses`` from the same initial weights and the same batches.
At inference every router is evaluated on one held-out set: validation loss, token-level NMI between the hidden
domain and the selected expert set (mean over layers), mean active experts, load entropy, routing heatmaps.
Claim: the brief's three-part rule (quality, specialisation, sparsity control) for DirMoE (the paper's router,
``DirichletRouter(variant="paper")``) vs top-k softmax.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from iclr26.attention.dirmoe.baselines import NoisyTopKRouter, ReLURouter, SoftMoE, TopKSoftmaxRouter
from iclr26.attention.dirmoe.claim_check import dirmoe_decider
from iclr26.attention.dirmoe.data import MultiDomainMarkov
from iclr26.attention.dirmoe.dirichlet_router import DirichletRouter
from iclr26.attention.dirmoe.figures import active_experts, curves_vs_step, routing_heatmaps, schedule_vs_step
from iclr26.attention.dirmoe.routing_metrics import active_histogram, load_entropy, routing_heatmap, set_nmi
from iclr26.checks import check_choice
from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.lab.moe.layer import moe_aux_loss, moe_ffn, moe_layers
from iclr26.lab.moe.router import Router, TauSchedule, set_progress
from iclr26.lab.training import sequence_loss, train_loop
from iclr26.lab.transformer import Transformer

__all__ = ["EXPERIMENT", "ROUTERS", "DirMoEConfig", "make_router_factory", "run"]

ROUTERS = (
    "dirmoe",
    "dirmoe_abstract",
    "dirmoe_masked",
    "dirmoe_fixed_tau",
    "topk",
    "noisy_topk",
    "relu",
    "soft",
)


@dataclass(frozen=True)
class DirMoEConfig:
    """One budget of the DirMoE reproduction; ``grid`` lists (E, k) pairs, the first one is the claim's."""

    routers: tuple[str, ...] = ("dirmoe", "topk")
    grid: tuple[tuple[int, int], ...] = ((8, 2),)
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    d_hidden: int = 64
    n_domains: int = 8
    vocab_size: int = 128
    n_successors: int = 4
    seq_len: int = 64
    steps: int = 800
    batch: int = 16
    lr: float = 1e-3
    n_train: int | None = None  # None: fresh sequences every step; else a fixed training pool
    n_val: int = 256
    eval_every: int = 100
    tau_start: float = 1.0
    tau_end: float = 0.1
    tau_anneal_frac: float = 0.7
    single_thread: bool = True


def make_router_factory(name: str, k: int, cfg: DirMoEConfig) -> Callable[[int, int], Router]:
    """``factory(d_model, n_experts) -> Router`` for a router name of :data:`ROUTERS`.

    ``dirmoe`` is the paper's router; ``dirmoe_abstract`` the earlier reconstruction from the abstract alone;
    ``dirmoe_masked`` the paper's router with the Dirichlet sample as the gate; ``dirmoe_fixed_tau`` without the
    temperature anneal.
    """
    tau = TauSchedule(cfg.tau_start, cfg.tau_end, cfg.tau_anneal_frac)
    factories: dict[str, Callable[[int, int], Router]] = {
        "dirmoe": lambda d, e: DirichletRouter(d, e, k, tau),
        "dirmoe_abstract": lambda d, e: DirichletRouter(d, e, k, tau, variant="abstract"),
        "dirmoe_masked": lambda d, e: DirichletRouter(d, e, k, tau, gate="masked_alpha"),
        "dirmoe_fixed_tau": lambda d, e: DirichletRouter(d, e, k, cfg.tau_start),
        "topk": lambda d, e: TopKSoftmaxRouter(d, e, k),
        "noisy_topk": lambda d, e: NoisyTopKRouter(d, e, k),
        "relu": lambda d, e: ReLURouter(d, e, k),
        "soft": lambda d, e: SoftMoE(d, e),
    }
    check_choice("router", name, factories)
    return factories[name]


def _routing_eval(model: Transformer, tokens: torch.Tensor, domains: torch.Tensor, batch: int) -> dict:
    """Validation loss and the per-layer inference gates of `model` on (tokens, domains)."""
    losses, gates = [], [[] for _ in moe_layers(model)]
    expected = []
    for i in range(0, tokens.shape[0], batch):
        x = tokens[i : i + batch].to(model.W_E.device)
        logits = model(x[:, :-1])
        losses.append(float(sequence_loss(logits, x[:, 1:])) * x.shape[0])
        for layer, moe in enumerate(moe_layers(model)):
            gates[layer].append(moe.last_gates.cpu())
            expected.append(float(moe.last_aux["expected_active"].float().mean()) * x.shape[0])
    n_layers = len(gates)
    g = [torch.cat(v) for v in gates]
    dom = domains[:, None].expand(-1, tokens.shape[1] - 1)
    return {
        "val_loss": sum(losses) / tokens.shape[0],
        "gates": g,
        "domains": dom,
        "nmi": float(np.mean([set_nmi(dom, gl) for gl in g])),
        "active": float(np.mean([float((gl != 0).sum(-1).double().mean()) for gl in g])),
        "expected_active": sum(expected) / (tokens.shape[0] * n_layers),
        "load_entropy": float(np.mean([load_entropy(gl) for gl in g])),
    }


def _train_one(
    name: str,
    n_experts: int,
    k: int,
    cfg: DirMoEConfig,
    data: MultiDomainMarkov,
    val: tuple[torch.Tensor, torch.Tensor],
    pool: torch.Tensor | None,
    seed: int,
    device: str,
) -> tuple[dict, dict]:
    """Train one router's model; returns final measurements and the curves."""
    torch.manual_seed(10_000 * seed + 7)  # routing noise (Gumbel-sigmoid, Dirichlet, noisy top-k)
    ffn = moe_ffn(make_router_factory(name, k, cfg), n_experts, cfg.d_hidden)
    model = Transformer(
        cfg.vocab_size,
        cfg.seq_len,
        cfg.d_model,
        cfg.n_layers,
        cfg.n_heads,
        ffn=ffn,
        init_seed=1000 * seed + 1,
    )
    model.to(device)
    step = [0]

    def loss_fn(m: Transformer, gen: torch.Generator) -> torch.Tensor:
        set_progress(m, min(step[0] / cfg.steps, 1.0))
        step[0] += 1
        if pool is None:
            x, _ = data.sample(cfg.batch, cfg.seq_len + 1, gen)
        else:
            x = pool[torch.randint(pool.shape[0], (cfg.batch,), generator=gen)]
        x = x.to(device)
        return sequence_loss(m(x[:, :-1]), x[:, 1:]) + moe_aux_loss(m)

    def eval_fn(m: Transformer) -> dict[str, float]:
        ev = _routing_eval(m, *val, cfg.batch * 4)
        routers = [r for r in m.modules() if isinstance(r, DirichletRouter)]
        tau = routers[0].tau if routers else float("nan")
        keys = ("val_loss", "nmi", "active", "expected_active", "load_entropy")
        return {**{kk: ev[kk] for kk in keys}, "tau": tau}

    res = train_loop(
        model, loss_fn, steps=cfg.steps, lr=cfg.lr, seed=1000 * seed + 2, eval_fn=eval_fn,
        eval_every=cfg.eval_every, description=f"dirmoe {name} E={n_experts} k={k} seed {seed}",
    )  # fmt: skip
    model.eval()
    with torch.no_grad():
        ev = _routing_eval(model, *val, cfg.batch * 4)
    final = {kk: ev[kk] for kk in ("val_loss", "nmi", "active", "expected_active", "load_entropy")}
    final["diverged"] = float(res.diverged)
    final["train_loss_last"] = float(np.mean(res.losses[-20:])) if res.losses else float("nan")
    art = {
        "heatmap": [routing_heatmap(ev["domains"], g, cfg.n_domains).tolist() for g in ev["gates"]],
        "active_hist": [active_histogram(g) for g in ev["gates"]],
    }
    curves = {key: ([float(s) for s in res.eval_steps], [e[key] for e in res.evals]) for key in res.evals[0]}
    return final | {"_art": art}, curves


def run(cfg: DirMoEConfig, seed: int, device: str) -> Metrics:
    """Train every router of `cfg` at every (E, k) of the grid for one seed and measure the routing.

    Data are generated on the CPU (from seeded generators) and moved to `device` batch by batch.
    """
    device = "cpu" if device in ("auto", "") else device
    data = MultiDomainMarkov(cfg.n_domains, cfg.vocab_size, cfg.n_successors, seed=1000 * seed)
    gen = torch.Generator().manual_seed(1000 * seed + 3)
    val = data.sample(cfg.n_val, cfg.seq_len + 1, gen)
    pool = None if cfg.n_train is None else data.sample(cfg.n_train, cfg.seq_len + 1, gen)[0]
    values: dict[str, float] = {
        "bayes_val_loss": data.bayes_loss(val[0]),
        "domain_blind_val_loss": data.domain_blind_loss(val[0]),
    }
    curves: dict[str, Curve] = {}
    artifacts: dict = {"routers": list(cfg.routers), "grid": [list(g) for g in cfg.grid], "heatmap": {}}
    artifacts["active_hist"] = {}
    runs = [(e, k, name) for e, k in cfg.grid for name in cfg.routers]
    for i, (e, k, name) in enumerate(track(runs, description=f"dirmoe seed {seed}")):
        prefix = name if i < len(cfg.routers) else f"{name}_E{e}_k{k}"
        final, cv = _train_one(name, e, k, cfg, data, val, pool, seed, device)
        art = final.pop("_art")
        values |= {f"{prefix}_{key}": v for key, v in final.items()}
        values[f"{prefix}_loss_over_domain_blind"] = final["val_loss"] - values["domain_blind_val_loss"]
        artifacts["heatmap"][prefix] = art["heatmap"]
        artifacts["active_hist"][prefix] = art["active_hist"]
        for key, (xs, ys) in cv.items():
            curves[f"{prefix}_{key}"] = Curve(xs, ys, "step", key)
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_ALL_GRID = tuple((e, k) for e in (8, 16, 32) for k in (1, 2, 4))


def _learned(router: str, label: str) -> tuple[Precondition, ...]:
    return (
        Precondition(
            f"{router}_loss_over_domain_blind",
            "<",
            0.0,
            f"the {label} model infers the hidden domain: its validation loss is below the best predictor that "
            "sees only the position and the current token (computed exactly from the chains)",
        ),
        Precondition(f"{router}_diverged", "<", 0.5, f"the {label} model's training did not diverge"),
    )


EXPERIMENT = Experiment(
    slug="dirmoe",
    configs={
        "smoke": DirMoEConfig(
            d_model=32, d_hidden=16, seq_len=32, steps=30, batch=8, n_val=16, eval_every=15
        ),
        # vocabulary 64 and lr 3e-3: at the brief's 128 / 1e-3 a model is still near the unigram loss after the
        # steps quick can afford on 2 CPU cores, so routing could not specialise by domain (see the README)
        "quick": DirMoEConfig(vocab_size=64, lr=3e-3, steps=600),
        "full": DirMoEConfig(
            routers=ROUTERS,
            grid=((8, 2), *(g for g in _ALL_GRID if g != (8, 2))),
            d_model=256,
            n_layers=6,
            n_heads=8,
            d_hidden=128,
            steps=5000,
            batch=32,
            lr=1e-3,
            n_train=50_000,
            n_val=5000,
            eval_every=250,
            single_thread=False,
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="dirmoe-specialises-at-equal-quality",
            statement=(
                "with E = 8 experts and target k = 2, a DirMoE-routed transformer reaches a validation loss within "
                "0.02 nats of top-2 softmax routing, its token-level NMI between the hidden domain and the chosen "
                "expert set exceeds top-2's by >= 0.05 (paired 95% interval above 0), and it activates 2 +- 0.25 "
                "experts per token at inference"
            ),
            paper_value="matches or exceeds other routers (highest mean accuracy on seven zero-shot benchmarks, "
            "LLaMA-185M MoE) while improving expert specialisation; the numbers were not readable here",
            decide=dirmoe_decider(k=2.0),
            preconditions=(*_learned("dirmoe", "DirMoE"), *_learned("topk", "top-2")),
            scale_gap="2-layer d=64 transformer with 8 GELU experts on an 8-domain synthetic Markov language, "
            "vocabulary 64, 600 steps; 3 seeds",
        ),
    ],
    figures=[routing_heatmaps, curves_vs_step, active_experts, schedule_vs_step],
    devices=("cpu", "cuda"),
    scale_gap=(
        "The paper's router (three heads, gate-conditioned Dirichlet posterior, spike-and-slab prior, ELBO with "
        "reconstruction) as read from secondary sources; its schedule constants, decoder and loss weights are "
        "reasoned choices (the paper's Table 4 was not readable). A 2-layer d=64 MoE transformer on a synthetic "
        "8-domain Markov language (domain hidden) replaces LLaMA-185M-scale MoE pre-training and the paper's "
        "zero-shot benchmarks."
    ),
)
