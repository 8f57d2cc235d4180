"""Reproduction of "Denoising-Heads: Mechanism of Task-oriented Information Removal in In-context Learning".

arXiv 2509.21012 (ICLR 2026, OpenReview VAv1rrPR1A). Per harness seed (one independent replication): draw the
task family (T tasks, disjoint label sets), train the tiny GPT on fresh multi-task ICL sequences, split the input
symbols into a calibration half and a held-out half, then

(a) measure zero-shot and k-shot intended-task accuracy and selectivity on held-out queries;
(b) learn a rank-r filter U_t per task at the middle layer on calibration zero-shot queries and measure held-out
    accuracy; baselines: a random rank-r subspace, the PCA subspace of the task's 8-shot states; a rank sweep;
(c) compare the off-subspace ratio of U_t between zero-shot and k-shot states (paired over held-out queries);
(d) scan heads (mean ablation at the query position) on calibration 8-shot prompts, then ablate the top-2 heads
    and 2 random heads on held-out prompts with random, label-present and label-absent demonstrations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26.harness.claims import Claim
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.harness.stats import t_interval
from iclr26.mechanisms.icl_info_removal.claim_check import LEARNED, denoising_claim_decider
from iclr26.mechanisms.icl_info_removal.figures import (
    ablation_bars,
    accuracy_vs_rank,
    head_heatmap,
    offsub_vs_shots,
)
from iclr26.mechanisms.icl_info_removal.inforemoval import (
    alignment,
    head_means,
    head_scan,
    hidden_states,
    learn_filter,
    off_subspace_ratio,
    pca_filter,
    random_filter,
    run_ablated,
    run_filtered,
    selectivity,
)
from iclr26.mechanisms.icl_info_removal.model import GPTConfig, train_icl_model
from iclr26.mechanisms.icl_info_removal.task import icl_prompts, make_task_family

__all__ = ["EXPERIMENT", "InfoRemovalConfig", "run"]


@dataclass(frozen=True)
class InfoRemovalConfig:
    """One budget of the reproduction."""

    n_inputs: int = 64
    n_tasks: int = 4
    n_labels: int = 8
    gpt: GPTConfig = GPTConfig(d_model=64, steps=500)
    rank: int = 8
    ranks: tuple[int, ...] = (1, 2, 4, 8, 16)
    filter_steps: int = 150
    filter_lr: float = 0.05
    shots: tuple[int, ...] = (0, 1, 2, 4, 8)
    n_eval: int = 256
    n_scan: int = 256
    top_k: int = 2
    n_random_pairs: int = 6
    use_cache: bool = True
    single_thread: bool = True


def _acc(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return float((logits.argmax(-1) == targets.to(logits.device)).float().mean())


def _ablation(model, fam, cfg, held, heads_top, rand_pairs, means, gen) -> dict[str, float]:
    """8-shot accuracy drops (clean - ablated) under random / present / absent demonstrations."""
    out: dict[str, float] = {}
    for cond in ("random", "present", "absent"):
        q = held[torch.randint(len(held), (cfg.n_eval,), generator=gen)]
        b = icl_prompts(fam, cfg.n_eval, cfg.gpt.max_shots, gen, queries=q, label_condition=cond)
        b = b.to(next(model.parameters()).device)
        with torch.no_grad():
            clean = _acc(model(b.tokens)[:, -1], b.targets)
        top = _acc(run_ablated(model, b.tokens, heads_top, "mean", means)[:, -1], b.targets)
        rnd = float(
            np.mean(
                [_acc(run_ablated(model, b.tokens, p, "mean", means)[:, -1], b.targets) for p in rand_pairs]
            )
        )
        suffix = "" if cond == "random" else f"_{cond}"
        out[f"acc_clean{suffix}"] = clean
        out[f"drop_top{suffix}"] = clean - top
        out[f"drop_rand{suffix}"] = clean - rnd
        if cond == "random":
            zero = _acc(run_ablated(model, b.tokens, heads_top, "zero")[:, -1], b.targets)
            out["drop_top_zero"] = clean - zero
    return out


def run(cfg: InfoRemovalConfig, seed: int, device: str) -> Metrics:
    """One replication; see the module docstring."""
    torch.manual_seed(seed)
    fam = make_task_family(cfg.n_inputs, cfg.n_tasks, cfg.n_labels, seed=1000 + seed)
    model, losses = train_icl_model(cfg.gpt, fam, seed, use_cache=cfg.use_cache, device=device)
    for p in model.parameters():
        p.requires_grad_(False)
    gen = torch.Generator().manual_seed(104_729 * (seed + 1))
    perm = torch.randperm(cfg.n_inputs, generator=gen)
    calib, held = perm[: cfg.n_inputs // 2].sort().values, perm[cfg.n_inputs // 2 :].sort().values
    layer = cfg.gpt.n_layers // 2
    label_sets = fam.label_sets()
    values: dict[str, float] = {}

    # (a) accuracy and selectivity by number of shots (held-out queries, random demos)
    acc_by_k, sel_by_k = [], []
    for k in cfg.shots:
        q = held[torch.randint(len(held), (cfg.n_eval,), generator=gen)]
        b = icl_prompts(fam, cfg.n_eval, k, gen, queries=q).to(device)
        with torch.no_grad():
            lg = model(b.tokens)[:, -1]
        acc_by_k.append(_acc(lg, b.targets))
        sel_by_k.append(float(selectivity(lg.softmax(-1), label_sets, b.tasks).mean()))
    values["acc_8shot"] = acc_by_k[cfg.shots.index(max(cfg.shots))]
    tok0_c, tok0_h = calib[:, None].to(device), held[:, None].to(device)
    logits0, h0_c = hidden_states(model, tok0_c, layer)
    logits0_h, h0_h = hidden_states(model, tok0_h, layer)
    h_mean = h0_c.mean(0)
    probs0 = logits0_h.softmax(-1)
    values["acc_zero"] = float(
        np.mean([_acc(logits0_h, fam.label_table[t, held]) for t in range(fam.n_tasks)])
    )
    values["sel_zero"] = float(
        np.mean([float(selectivity(probs0, label_sets, t).mean()) for t in range(fam.n_tasks)])
    )

    # (b) learned vs random vs PCA filter per task; rank sweep
    accs: dict[str, list[float]] = {"filter": [], "random": [], "pca": []}
    sel_filter, bases = [], []
    rank_acc = {r: [] for r in cfg.ranks}
    rank_rand = {r: [] for r in cfg.ranks}
    fewshot_c = {}
    for t in track(range(fam.n_tasks), description="filters per task"):
        tgt_c, tgt_h = fam.label_table[t, calib].to(device), fam.label_table[t, held]
        filt = learn_filter(
            model, tok0_c, tgt_c, layer, cfg.rank, h_mean, cfg.filter_steps, cfg.filter_lr, seed
        )
        bases.append(filt.U.detach())
        b8 = icl_prompts(
            fam, len(calib), cfg.gpt.max_shots, gen, tasks=torch.full((len(calib),), t), queries=calib
        ).to(device)
        _, h8_c = hidden_states(model, b8.tokens, layer)
        fewshot_c[t] = h8_c
        with torch.no_grad():
            lg = run_filtered(model, tok0_h, layer, filt)[:, -1]
            accs["filter"].append(_acc(lg, tgt_h))
            sel_filter.append(float(selectivity(lg.softmax(-1), label_sets, t).mean()))
            rf = random_filter(model.d_model, cfg.rank, h_mean, gen)
            accs["random"].append(_acc(run_filtered(model, tok0_h, layer, rf)[:, -1], tgt_h))
            pf = pca_filter(h8_c, cfg.rank, h_mean)
            accs["pca"].append(_acc(run_filtered(model, tok0_h, layer, pf)[:, -1], tgt_h))
        for r in cfg.ranks:
            f_r = (
                filt
                if r == cfg.rank
                else learn_filter(
                    model, tok0_c, tgt_c, layer, r, h_mean, cfg.filter_steps, cfg.filter_lr, seed
                )
            )
            with torch.no_grad():
                rank_acc[r].append(_acc(run_filtered(model, tok0_h, layer, f_r)[:, -1], tgt_h))
                rf = random_filter(model.d_model, r, h_mean, gen)
                rank_rand[r].append(_acc(run_filtered(model, tok0_h, layer, rf)[:, -1], tgt_h))
    for name, v in accs.items():
        values[f"acc_{name}"] = float(np.mean(v))
    values["sel_filter"] = float(np.mean(sel_filter))

    # (c) off-subspace ratio, zero-shot vs k-shot, paired over held-out (task, query)
    off_by_k, diffs, aligns = [], None, []
    off0 = torch.cat([off_subspace_ratio(h0_h, bases[t], h_mean) for t in range(fam.n_tasks)])
    for k in cfg.shots:
        if k == 0:
            off_by_k.append(float(off0.mean()))
            continue
        parts = []
        for t in range(fam.n_tasks):
            b = icl_prompts(fam, len(held), k, gen, tasks=torch.full((len(held),), t), queries=held)
            b = b.to(device)
            _, hk = hidden_states(model, b.tokens, layer)
            parts.append(off_subspace_ratio(hk, bases[t], hk.mean(0)))
            if k == max(cfg.shots):
                filtered = h_mean + ((h0_h - h_mean) @ bases[t]) @ bases[t].T
                aligns.append(float(alignment(hk, filtered, hk.mean(0), h_mean).mean()))
        offk = torch.cat(parts)
        off_by_k.append(float(offk.mean()))
        if k == max(cfg.shots):
            diffs = (offk - off0).cpu().numpy()
    iv = t_interval(diffs)
    values["offsub_zero"] = off_by_k[0]
    values["offsub_8shot"] = off_by_k[-1]
    values["offsub_diff"] = iv.estimate
    values["offsub_diff_hi"] = iv.hi
    values["offsub_diff_half"] = iv.hi - iv.estimate
    values["alignment"] = float(np.mean(aligns))

    # (d) head scan on calibration 8-shot prompts, ablation on held-out prompts
    q = calib[torch.randint(len(calib), (cfg.n_scan,), generator=gen)]
    scan_b = icl_prompts(fam, cfg.n_scan, cfg.gpt.max_shots, gen, queries=q).to(device)
    means = head_means(model, scan_b.tokens)
    scan = head_scan(model, scan_b, "mean", label_sets=label_sets, layer=layer, U=bases, means=means)
    top = scan.top(cfg.top_k)
    others = [(lyr, h) for lyr in range(model.n_layers) for h in range(model.n_heads) if (lyr, h) not in top]
    rand_pairs = []
    for _ in range(cfg.n_random_pairs):
        idx = torch.randperm(len(others), generator=gen)[: cfg.top_k]
        rand_pairs.append([others[int(i)] for i in idx])
    values.update(_ablation(model, fam, cfg, held, top, rand_pairs, means, gen))
    values["final_train_loss"] = float(losses[-1])

    curves = {
        "loss": Curve(list(range(len(losses))), losses, "training step", "cross-entropy"),
        "acc_vs_shots": Curve(list(cfg.shots), acc_by_k, "shots", "intended-task accuracy"),
        "sel_vs_shots": Curve(list(cfg.shots), sel_by_k, "shots", "task selectivity"),
        "offsub_vs_shots": Curve(list(cfg.shots), off_by_k, "shots", "off-subspace ratio"),
        "acc_vs_rank": Curve(
            list(cfg.ranks), [float(np.mean(rank_acc[r])) for r in cfg.ranks], "rank r", "acc"
        ),
        "acc_vs_rank_random": Curve(
            list(cfg.ranks), [float(np.mean(rank_rand[r])) for r in cfg.ranks], "rank r", "acc"
        ),
    }
    artifacts = {
        "selectivity_drop": scan.selectivity_drop.cpu().tolist(),
        "accuracy_drop": scan.accuracy_drop.cpu().tolist(),
        "top_heads": [list(h) for h in top],
        "filter_layer": layer,
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


EXPERIMENT = Experiment(
    slug="icl-info-removal",
    configs={
        "smoke": InfoRemovalConfig(
            gpt=GPTConfig(d_model=32, n_layers=2, n_heads=4, steps=80, batch=32),
            rank=4,
            ranks=(2, 4),
            filter_steps=15,
            shots=(0, 8),
            n_eval=48,
            n_scan=48,
            n_random_pairs=2,
            use_cache=False,
        ),
        "quick": InfoRemovalConfig(),
        "full": InfoRemovalConfig(
            n_tasks=8,
            gpt=GPTConfig(d_model=128, n_layers=6, steps=2500),
            ranks=(1, 2, 4, 8, 16, 32),
            n_eval=1024,
            n_scan=512,
            n_random_pairs=20,
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="denoising-heads",
            statement=(
                "in a GPT trained on a designed multi-task ICL family, (1) a learned rank-8 subspace filter at the "
                "middle layer lifts zero-shot intended-task accuracy from <= 40% to >= 80% and beats a random "
                "subspace by >= 30 points, (2) 8-shot query states have a lower off-subspace ratio than zero-shot "
                "states, and (3) ablating the top-2 heads of a calibration scan costs >= 15 points more 8-shot "
                "accuracy than ablating 2 random heads, with a larger drop when the answer is absent from the demos"
            ),
            paper_value=(
                "zero-shot accuracy near zero on LLM classification tasks; low-rank filtering steers to the "
                "intended task; ablating denoising heads degrades ICL accuracy significantly, most with the "
                "correct label absent from the demonstrations"
            ),
            decide=denoising_claim_decider(),
            preconditions=(LEARNED,),
            scale_gap="4-layer d = 64 GPT on a synthetic 4-task family, 3 seeds; the paper uses pretrained LLMs",
        ),
    ],
    figures=[accuracy_vs_rank, offsub_vs_shots, head_heatmap, ablation_bars],
    devices=("cpu", "cuda"),
    scale_gap=(
        "A 4-layer, 4-head, d = 64 GPT trained in-process on a synthetic family with 4 tasks of disjoint label "
        "sets (non-selectivity by construction) stands in for pretrained 1-8B LMs on natural-language "
        "classification; metrics and the filter's training are library choices, not the paper's exact ones."
    ),
)
