"""Reproduction of "Emergence of Superposition: Unveiling the Training Dynamics of Chain of Continuous Thought".

arXiv 2509.23365 (ICLR 2026). Per harness seed (one replication): fresh ProsQA-like training and test graphs; a
2-layer GPT-2-style decoder trained with Coconut's stage curriculum (stage k: k continuous thoughts, then one
supervised node of R_{k+1}, or ``[A]`` and the answer at k = D), with the optimizer reset at each stage and 10%
uniform stage mixing; after every epoch, on held-out graphs: the index-matching logit mu at thought steps
1..D-1, and the frontier mass / normalised entropy of each decoded thought. The no-CoT baseline (same backbone,
same number of epochs) answers right after the prompt; discrete CoT and Coconut-BFS are optional extras.
Claims: the brief's rule (mu rises then plateaus; superposition; Coconut beats no-CoT).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.mechanisms.continuous_cot.claim_check import (
    accuracy_gap_decider,
    bounded_mu_decider,
    mu_plateau_stats,
    superposition_decider,
)
from iclr26.mechanisms.continuous_cot.coconut import (
    CoconutWrapper,
    TrainConfig,
    answer_logit_decomposition,
    evaluate_accuracy,
    make_model,
    thought_superposition,
    track_index_matching_logit,
    train,
)
from iclr26.mechanisms.continuous_cot.figures import (
    accuracy_bars,
    attention_heatmap,
    frontier_plot,
    mu_trajectory,
)
from iclr26.mechanisms.continuous_cot.reachability import make_prosqa_like

__all__ = ["EXPERIMENT", "CotConfig", "run"]


@dataclass(frozen=True)
class CotConfig:
    """One budget of the continuous-thought reproduction."""

    n_train: int = 1600
    n_test: int = 200
    n_track: int = 100
    n_nodes: int = 10
    depth: int = 3
    n_edges: int = 12
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 8
    epochs_per_stage: tuple[int, ...] = (24, 3, 3, 3)
    lr: float = 3e-3
    weight_decay: float = 0.01
    batch_size: int = 32
    uniform_prob: float = 0.1
    init_std: float | None = 0.02
    warmup_steps: int = 100
    shuffle_nodes: bool = True
    extra_methods: tuple[str, ...] = ()
    single_thread: bool = True


def _train_method(method: str, cfg: CotConfig, train_data, seed: int, callback=None):
    model = make_model(
        train_data, cfg.d_model, cfg.n_layers, cfg.n_heads, init_seed=seed, init_std=cfg.init_std
    ).to(train_data.prompt.device)
    wrapper = CoconutWrapper(model)
    tcfg = TrainConfig(
        method=method,
        epochs_per_stage=cfg.epochs_per_stage,
        uniform_prob=cfg.uniform_prob,
        lr=cfg.lr,
        weight_decay=cfg.weight_decay,
        batch_size=cfg.batch_size,
        warmup_steps=cfg.warmup_steps,
        shuffle_nodes=cfg.shuffle_nodes,
    )
    history = train(wrapper, train_data, tcfg, seed, callback=None if callback is None else callback(wrapper))
    return wrapper, history


def _first_hop_losses(wrapper: CoconutWrapper, data) -> dict[str, float]:
    """Held-out loss of the first thought-generation step and its trivial baseline.

    ``hop1_loss``: cross-entropy of a node drawn uniformly from R_1 (root and its children) under the model's
    prediction at the root token (= the decoded first thought), i.e. the mean of -log p(v) over v in R_1.
    ``hop1_optimum``: its minimum, mean log |R_1|. ``hop1_copy_root``: the best predictor that knows only the
    root (mass a on the root, the rest uniform over the other node tokens, one a for all graphs, grid-optimised):
    the plateau a model reaches without following any edge. ``hop1_learned`` = fraction of the gap from the
    copy-root baseline to the optimum that the model closed (1 = optimum, <= 0 = no better than copying the root).
    """
    with torch.no_grad():
        logits = wrapper(data.prompt, 0).logits[:, -1]
        logp = torch.log_softmax(logits, dim=-1)[:, : data.n_node_tokens].double()
    mask = data.reach[:, 1].double()
    size = mask.sum(-1)
    loss = float((-(logp * mask).sum(-1) / size).mean())
    optimum = float(torch.log(size).mean())
    a = torch.linspace(0.01, 0.99, 99, dtype=torch.float64)[:, None]
    rest = torch.log((1 - a) / (data.n_node_tokens - 1))
    copy = (-(torch.log(a) + (size - 1) * rest) / size).mean(-1)
    copy_root = float(copy.min())
    return {
        "hop1_loss": loss,
        "hop1_optimum": optimum,
        "hop1_copy_root": copy_root,
        "hop1_learned": (copy_root - loss) / (copy_root - optimum),
    }


def _loss_decreasing(history: list[dict[str, float]]) -> float:
    last = history[-1]["stage"]
    stage = [h["loss"] for h in history if h["stage"] == last]
    return float(len(stage) < 2 or stage[-1] < stage[0])


def run(cfg: CotConfig, seed: int, device: str) -> Metrics:
    """Train Coconut (tracked every epoch) and no-CoT (plus optional extras) for one seed."""
    torch.manual_seed(seed)
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"depth": cfg.depth, "epochs_per_stage": list(cfg.epochs_per_stage)}
    kw = {"n_nodes": cfg.n_nodes, "depth": cfg.depth, "n_edges": cfg.n_edges}
    train_data = make_prosqa_like(cfg.n_train, seed=1000 * seed + 1, **kw)
    test_data = make_prosqa_like(cfg.n_test, seed=1000 * seed + 2, **kw)
    dev = "cuda" if device.startswith("cuda") and torch.cuda.is_available() else "cpu"
    train_data, test_data = train_data.to(dev), test_data.to(dev)
    tracked = test_data.subset(slice(0, cfg.n_track))
    steps = list(range(1, cfg.depth))
    log: dict[str, list[float]] = {f"mu_step{c}": [] for c in steps}
    log |= {f"mass_step{c}": [] for c in range(1, cfg.depth + 1)}
    log |= {f"entropy_step{c}": [] for c in range(1, cfg.depth + 1)}
    log["mu"] = []
    log["mu_src"] = []
    log["mu_tgt"] = []
    heat: dict[str, dict] = {}

    def measure(wrapper: CoconutWrapper, epoch: int) -> None:
        mus, src, tgt = [], [], []
        for c in steps:
            im = track_index_matching_logit(wrapper, tracked, c)
            log[f"mu_step{c}"].append(im.mu)
            mus.append(im.mu)
            src.append(float(im.gap_src[-1].sum()))
            tgt.append(float(im.gap_tgt[-1].sum()))
            if c == 1:
                head = int(im.gap_sep[-1].argmax())
                heat[str(epoch)] = {
                    "scores": im.edge_scores[:8, -1, head].cpu().tolist(),
                    "frontier": im.frontier[:8].int().cpu().tolist(),
                    "head": head,
                }
        log["mu"].append(float(np.mean(mus)))
        log["mu_src"].append(float(np.mean(src)))
        log["mu_tgt"].append(float(np.mean(tgt)))
        sp = thought_superposition(wrapper, tracked)
        for c in range(1, cfg.depth + 1):
            log[f"mass_step{c}"].append(float(sp["mass"][c - 1]))
            log[f"entropy_step{c}"].append(float(sp["entropy"][c - 1]))

    def make_callback(wrapper: CoconutWrapper):
        measure(wrapper, 0)
        return lambda epoch, stage: measure(wrapper, epoch)

    wrapper, history = _train_method("coconut", cfg, train_data, seed, make_callback)
    values["acc_coconut"] = evaluate_accuracy(wrapper, test_data, "coconut")
    values |= _first_hop_losses(wrapper, test_data)
    decomp = answer_logit_decomposition(wrapper, tracked)
    values["mu_A"], values["mu_R"] = decomp["mu_A"], decomp["mu_R"]
    values["answer_logit_gap"] = decomp["total"]
    artifacts["decomposition"] = decomp
    baseline, base_hist = _train_method("no_cot", cfg, train_data, seed)
    values["acc_no_cot"] = evaluate_accuracy(baseline, test_data, "no_cot")
    for m in cfg.extra_methods:
        extra, _ = _train_method(m, cfg, train_data, seed)
        values[f"acc_{m}"] = evaluate_accuracy(extra, test_data, m)
    values["acc_gap"] = values["acc_coconut"] - values["acc_no_cot"]
    stats = mu_plateau_stats(log["mu"])
    values |= stats
    values["mu_final"] = log["mu"][-1]
    values["mu_init"] = log["mu"][0]
    values["loss_decreasing"] = _loss_decreasing(history)
    sup_steps = [c for c in (1, 2) if c <= cfg.depth]
    values["frontier_mass"] = float(np.mean([log[f"mass_step{c}"][-1] for c in sup_steps]))
    values["frontier_entropy"] = float(np.mean([log[f"entropy_step{c}"][-1] for c in sup_steps]))
    values["train_loss_final"] = history[-1]["loss"]
    epochs = list(range(len(log["mu"])))
    for key, ys in log.items():
        curves[key] = Curve(epochs, ys, "epoch", key)
    curves["train_loss"] = Curve([h["epoch"] for h in history], [h["loss"] for h in history], "epoch", "loss")
    curves["train_loss_no_cot"] = Curve(
        [h["epoch"] for h in base_hist], [h["loss"] for h in base_hist], "epoch", "loss"
    )
    keys = sorted(heat, key=int)
    artifacts["heatmap"] = {k: heat[k] for k in {keys[len(keys) // 2], keys[-1]}}
    artifacts["methods"] = ["coconut", "no_cot", *cfg.extra_methods]
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_SCALE = (
    "2-layer d=64 decoder on 10-node graphs of depth 3, 1600 graphs (node ids redrawn every epoch) for 33 "
    "epochs, 1,200 stage-0 steps of 32 (paper: GPT-2-style d=768 on ProsQA for 350 epochs, ~2,900 stage-0 steps "
    "of 512)"
)

# The claims are about a model that solves the task. Accuracy is the greedy answer over the whole vocabulary;
# guessing between the two candidates gives 0.5, so "learned" is 0.5 + 10 points (about 3 standard errors of an
# accuracy near 0.5 on the 200 test graphs of the quick budget).
CHANCE_ACC = 0.5
LEARNED_ACC = CHANCE_ACC + 0.1
# The no-CoT baseline has learned the answer format when it names one of the two candidates: chance between them
# (0.5) minus the same 10-point margin. Below that its "accuracy" measures a model that never trained.
BASELINE_ACC = CHANCE_ACC - 0.1
COCONUT_LEARNED = Precondition(
    "acc_coconut",
    ">=",
    LEARNED_ACC,
    "Coconut solved the task: held-out accuracy >= chance between the two candidates (0.5) + 10 points",
)
NO_COT_TRAINED = Precondition(
    "acc_no_cot",
    ">=",
    BASELINE_ACC,
    "the no-CoT baseline learned the answer format: accuracy >= chance between the two candidates (0.5) "
    "- 10 points",
)

# The thoughts follow edges: the decoded first thought (the prediction at the root token) must close at least half
# of the gap between the copy-the-root baseline (the plateau of a model that follows no edge, computed in the run)
# and the optimum (uniform over R_1). Accuracy alone is not enough: the answer can come from a shortcut in the
# generated graphs (the reachable candidate tends to have more incoming arcs), which no-CoT also finds.
REACH_LEARNED = Precondition(
    "hop1_learned",
    ">=",
    0.5,
    "the thoughts follow edges: held-out first-hop loss closes >= half the gap between the copy-the-root "
    "baseline and the optimum log|R_1|",
)

EXPERIMENT = Experiment(
    slug="continuous-cot",
    configs={
        "smoke": CotConfig(
            n_train=48, n_test=16, n_track=8, d_model=16, n_heads=4, epochs_per_stage=(1, 1, 0, 0)
        ),
        "quick": CotConfig(),
        # The official recipe (args/coconut_standard.yaml: 2 GPUs x 256 = 512 graphs a step; its ProsQA subset keeps
        # the 3-4-step graphs, ~0.85 x 17,886 = ~15,000 training graphs: ~30 steps an epoch, ~2,900 stage-0 steps).
        # Quick cannot learn the first hop (README, "Why the model never learned"); full is the setting meant to.
        "full": CotConfig(
            n_train=15000,
            n_test=500,
            n_track=200,
            n_nodes=24,
            depth=4,
            n_edges=32,
            d_model=768,
            n_heads=8,
            lr=1e-4,
            batch_size=512,
            epochs_per_stage=(100, 50, 50, 50, 50),
            warmup_steps=0,
            extra_methods=("cot", "coconut_bfs"),
            single_thread=False,
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="index-matching-logit-bounded",
            statement=(
                "the index-matching attention logit mu (thought -> frontier edges' sources minus other edges) "
                "rises by >= 1 nat in the first half of training, then plateaus (late slope <= 10% of the peak "
                "slope) while the training loss still falls, in >= 2/3 of seeds"
            ),
            paper_value="mu grows, then stays bounded (theory + ProsQA-derived experiments; no single number)",
            decide=bounded_mu_decider(),
            scale_gap=_SCALE,
            preconditions=(COCONUT_LEARNED, REACH_LEARNED),
        ),
        Claim(
            id="thoughts-in-superposition",
            statement=(
                "continuous thoughts 1-2 put >= 60% of their decoded mass on the reachable frontier R_c, spread "
                "over it with normalised entropy >= 0.6 (parallel BFS rather than one path), in >= 2/3 of seeds"
            ),
            paper_value="comparable weight on all frontier nodes (qualitative)",
            decide=superposition_decider(),
            scale_gap=_SCALE,
            preconditions=(COCONUT_LEARNED, REACH_LEARNED),
        ),
        Claim(
            id="coconut-beats-no-cot",
            statement=(
                "Coconut's held-out accuracy exceeds the no-CoT baseline's by >= 5 points (95% t-interval > 0); "
                "a shortfall is inconclusive (the brief refutes only through mu and the entropy)"
            ),
            paper_value="high Coconut accuracy on the ProsQA-derived set (no single number)",
            decide=accuracy_gap_decider(),
            scale_gap=_SCALE,
            preconditions=(COCONUT_LEARNED, REACH_LEARNED, NO_COT_TRAINED),
        ),
    ],
    figures=[mu_trajectory, frontier_plot, attention_heatmap, accuracy_bars],
    devices=("cpu", "cuda"),
    scale_gap=(
        "A ~100k-parameter 2-layer decoder on generated 10-node, depth-3 ProsQA-like graphs (1600 training graphs "
        "with node ids redrawn every epoch, 33 epochs on a shared 2-core CPU) replaces the paper's GPT-2-style "
        "d=768 model on ProsQA for 350 epochs."
    ),
)
