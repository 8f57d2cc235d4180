"""Reproduction of "Two (narrow) heads are better than (an arbitrarily wide) one" (ICLR 2026, RRmPbbZsvl).

Per seed: the graphs T_n (transitive tournament, a DAG), K_n (complete digraph) and random digraphs with a
planted minimum feedback arc set of size k; 1-layer attention-only models with 1 or 2 heads and widths d,
each (heads, d) trained from `restarts` random inits on every graph as one batched model (full-batch Adam,
cosine lr). Metrics: best-of-restarts accuracy per (graph, heads, d), the single-head optimum
1/2 + |MAS|/(2m) per graph, the largest excess of any 1-head run over that optimum on the cyclic graphs,
and checks of the hand constructions.

Claim (the brief's rule): SUPPORTED if (a) best 1-head accuracy on T_n >= 99% in >= 4/5 of the seeds,
(b) best 2-head accuracy on K_n = 100% in >= 4/5 of the seeds and (c) no 1-head run on a cyclic graph exceeds
the optimum by more than 1e-9; NOT SUPPORTED if (c) fails or (b) fails in >= 3/5 of the seeds; inconclusive
otherwise. The gap between the optimum and the best trained 1-head accuracy on K_n is reported, not judged.
Preconditions: the best 1-head and 2-head runs on T_n beat the copy-one-vertex baseline (0.5) by 10 points.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch

from iclr26.harness.claims import (
    Claim,
    Precondition,
    Verdict,
    all_of,
    decider,
    fraction_of_seeds,
    never_exceeds,
)
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.seeding import resolve_device
from iclr26.harness.stats import interval
from iclr26.lab.tasks import complete_digraph, planted_fas_digraph, transitive_tournament
from iclr26.lab.transformer import AttnOnlyTransformer, Site
from iclr26.mechanisms.esp.constructions import construct_1head_dag, construct_2head
from iclr26.mechanisms.esp.figures import accuracy_curves, attention_maps, one_head_vs_optimum
from iclr26.mechanisms.esp.mas import mas_exact
from iclr26.mechanisms.esp.task import QUERY_POS, accuracy, make_dataset
from iclr26.mechanisms.esp.training import train_many

__all__ = ["EXPERIMENT", "EspConfig", "run"]

EXCESS_TOL = 1e-9


@dataclass(frozen=True)
class EspConfig:
    """One budget of the ESP reproduction."""

    n: int = 8
    planted_k: tuple[int, ...] = (1, 3, 6)
    edge_prob: float = 0.5
    heads: tuple[int, ...] = (1, 2)
    widths: tuple[int, ...] = (16, 64)
    restarts: int = 5
    steps: int = 2000
    lrs: tuple[float, ...] = (1e-2,)
    lr_decay: float = 0.1  # cosine schedule from lr to lr * lr_decay
    eval_every: int = 50


def _graphs(cfg: EspConfig, seed: int) -> dict[str, nx.DiGraph]:
    """The seed's graphs by key: T (DAG), K (complete digraph), P<k> (planted feedback arc set of size k)."""
    graphs = {"T": transitive_tournament(cfg.n), "K": complete_digraph(cfg.n)}
    for k in cfg.planted_k:
        graphs[f"P{k}"] = planted_fas_digraph(cfg.n, k, p=cfg.edge_prob, seed=10_000 * seed + k)
    return graphs


def _mean_patterns(model: AttnOnlyTransformer, G: nx.DiGraph) -> list:
    """Attention of the `#` query per head, averaged over arcs, per selector: (heads, 2, 4) nested lists."""
    tokens, _ = make_dataset(G)
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens, names=[Site("pattern", 0)])
    pattern = cache["blocks.0.attn.hook_pattern"][:, :, QUERY_POS, :]  # (2m, heads, 4)
    by_selector = torch.stack([pattern[0::2].mean(0), pattern[1::2].mean(0)], dim=1)  # (heads, 2, 4)
    return by_selector.tolist()


def run(cfg: EspConfig, seed: int, device: str) -> Metrics:
    """Train every (heads, d, lr) configuration on every graph of the seed, `restarts` inits each."""
    device = resolve_device(device)
    graphs = _graphs(cfg, seed)
    keys = list(graphs)
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    info = {}
    for g, G in graphs.items():
        mas = mas_exact(G)
        m = G.number_of_edges()
        values[f"optimum_{g}"] = (m + mas.size) / (2 * m)  # 1/2 + |MAS|/(2m), rounded like an accuracy
        info[g] = {"name": G.graph["name"], "n": cfg.n, "m": m, "mas": mas.size, "cyclic": mas.size < m}

    # hand constructions: 2 heads at d = 5 solve K_n; 1 head solves the DAG and meets the optimum elsewhere
    values["construct_2head_acc_K"] = accuracy(construct_2head(graphs["K"], d=5), graphs["K"])
    values["construct_1head_acc_T"] = accuracy(construct_1head_dag(graphs["T"]), graphs["T"])
    values["construct_1head_max_abs_dev"] = max(
        abs(accuracy(construct_1head_dag(G), G) - values[f"optimum_{g}"]) for g, G in graphs.items()
    )

    trained: tuple[float, AttnOnlyTransformer, int] | None = None  # best 2-head run on K_n: (acc, model, d)
    excess = []
    configurations = [(h, d, lr) for h in cfg.heads for d in cfg.widths for lr in cfg.lrs]
    for ci, (heads, d, lr) in enumerate(configurations):
        # one batched model: restarts x graphs, each run with its own init seed
        graph_list = [graphs[g] for g in keys for _ in range(cfg.restarts)]
        init = [
            1_000_000 * seed + 10_000 * ci + 100 * gi + r
            for gi in range(len(keys))
            for r in range(cfg.restarts)
        ]
        runs = train_many(
            graph_list,
            heads,
            d,
            init,
            cfg.steps,
            lr=lr,
            lr_min=lr * cfg.lr_decay,
            eval_every=cfg.eval_every,
            description=f"esp {heads} head(s), d={d}, lr={lr:g}",
            device=device,
        )
        final = runs.final_accuracy.view(len(keys), cfg.restarts)
        for gi, g in enumerate(keys):
            tag = f"{g}_{heads}h_d{d}" + (f"_lr{lr:g}" if len(cfg.lrs) > 1 else "")
            best = int(final[gi].argmax())
            values[f"acc_{tag}_best"] = float(final[gi, best])
            values[f"acc_{tag}_mean"] = float(final[gi].mean())
            curves[tag] = Curve(
                runs.steps, runs.accuracy[gi * cfg.restarts + best].tolist(), "step", "accuracy"
            )
            if heads == 1 and info[g]["cyclic"]:
                excess.append(float((final[gi] - values[f"optimum_{g}"]).max()))
            if heads == 2 and g == "K" and (trained is None or final[gi, best] > trained[0]):
                trained = (float(final[gi, best]), runs.model(gi * cfg.restarts + best), d)

    def best(g: str, heads: int) -> float:
        return max(v for k, v in values.items() if k.startswith(f"acc_{g}_{heads}h_") and k.endswith("_best"))

    values["tt_1head_best_acc"] = best("T", 1)
    values["tt_2head_best_acc"] = best("T", 2) if 2 in cfg.heads else float("nan")
    values["kn_2head_best_acc"] = best("K", 2)
    values["kn_1head_best_acc"] = best("K", 1)
    values["cyclic_1head_max_excess"] = max(excess) if excess else float("nan")
    values["kn_1head_gap"] = values["optimum_K"] - values["kn_1head_best_acc"]

    artifacts = {
        "graphs": info,
        "attention": {"construction": _mean_patterns(construct_2head(graphs["K"]), graphs["K"])},
    }
    if trained is not None:
        acc, model, d = trained
        artifacts["attention"].update(
            trained=_mean_patterns(model, graphs["K"]), trained_d=d, trained_acc=acc
        )
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_HEADLINE = all_of(
    fraction_of_seeds("tt_1head_best_acc", ">=", 0.99, support_at=0.8, refute_below=0.0),
    fraction_of_seeds("kn_2head_best_acc", ">=", 1.0, support_at=0.8, refute_below=0.6),
    never_exceeds("cyclic_1head_max_excess", 0.0, tol=EXCESS_TOL),
)


@decider(
    *_HEADLINE.metrics,
    "kn_1head_gap",
    "kn_1head_best_acc",
    description="(a) and (b) in >= 80% of seeds and (c) always",
    compares=[("kn_2head_best_acc", "kn_1head_best_acc", True)],
    synthesize=_HEADLINE.synthesize,
)
def esp_headline(rows) -> Verdict:
    """The brief's rule via :func:`all_of`: (a) can only make the verdict inconclusive (``refute_below=0``),
    (b) refutes when it fails in >= 3/5 of the seeds (passes in < 60%), (c) refutes on any violation; the
    K_n 1-head gap (mean, bootstrap 95% interval) is appended to the explanation, not judged. The declared
    comparison puts the best 1-head accuracy on K_n in place of the 2-head one (two heads against one)."""
    verdict = _HEADLINE(rows)
    gaps = np.array([float(r["kn_1head_gap"]) for r in rows])
    if len(gaps) >= 2:  # the shared guards have checked the values are finite
        iv = interval(gaps, 0.95, "bootstrap")
        note = f"mean {iv.estimate:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] (bootstrap 95%)"
    else:
        note = f"values {gaps.round(3).tolist()}"
    b_frac = float(np.mean([float(r["kn_2head_best_acc"]) >= 1.0 for r in rows]))
    return Verdict(
        verdict.outcome,
        f"{verdict.explanation}. Secondary, not judged: K_n optimum minus best trained 1-head accuracy = {note}",
        b_frac,
        None,
        len(rows),
    )


# Copying the first vertex of the arc whatever the selector answers exactly half of the 2m instances, so a trained
# model that learned the task beats 0.5; "learned" is 0.5 + 10 points on the DAG T_n, the case every model can solve.
COPY_BASELINE_ACC = 0.5
LEARNED_ACC = COPY_BASELINE_ACC + 0.1
_LEARNED = "trained {} models learned ESP on the DAG T_n: best accuracy >= the copy-one-vertex baseline (0.5) + 10 points"

EXPERIMENT = Experiment(
    slug="esp",
    configs={
        "smoke": EspConfig(n=4, planted_k=(1,), widths=(16,), restarts=2, steps=300),
        "quick": EspConfig(),
        "full": EspConfig(
            n=32, planted_k=(1, 3, 6, 12, 24), widths=(16, 64, 256, 512), steps=3000, lrs=(1e-3, 3e-3, 1e-2)
        ),
    },
    seeds={"smoke": 1, "quick": 5, "full": 20},
    run=run,
    claims=[
        Claim(
            id="esp-two-heads",
            statement=(
                "One head solves ESP on a DAG (T_n, >= 99%), two heads solve it on the complete digraph K_n "
                "(100%), and no single-head run on a cyclic graph beats the optimum 1/2 + |MAS|/(2m)"
            ),
            paper_value=(
                "transitive tournaments ~99-100% with 1 or 2 heads; K_n 1-head 64.6-72.4% (bound 75%), "
                "2-head mostly 100%; 1-head error >= |MFAS|/(2m) proven"
            ),
            decide=esp_headline,
            scale_gap="n = 8 vertices, d in {16, 64}, 5 restarts and 2000 full-batch steps per configuration",
            preconditions=(
                Precondition("tt_1head_best_acc", ">=", LEARNED_ACC, _LEARNED.format("1-head")),
                Precondition("tt_2head_best_acc", ">=", LEARNED_ACC, _LEARNED.format("2-head")),
            ),
        )
    ],
    figures=[accuracy_curves, one_head_vs_optimum, attention_maps],
    devices=("cpu", "cuda"),
    scale_gap=(
        "n = 8 (paper: larger graphs), widths 16 and 64, one learning rate schedule (1e-2 -> 1e-3 cosine), "
        "5 restarts; the paper's hyperparameters and exact architecture are not known (pre-LN assumed)."
    ),
)
