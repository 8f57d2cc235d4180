"""Reproduction of "Understanding Task Vectors in In-Context Learning" (arXiv 2506.09048, ICLR 2026).

Per harness seed (one independent replication):

- linear part: a constrained linear-attention transformer trained on n-shot triplet regression prompts with
  token dropout, and a separately trained 1-shot triplet model (the R_1 reference). Risks on normalised outputs
  of held-out prompts: R_0 (zero-shot), R_1, R_n, R_TV (query-arrow state after layer 1 of an n-shot prompt,
  unit norm, injected into [x_q; 0], tau, [0; 0]), TaskV-M, k-shot risks, and the rank share S of TV outputs;
  'single' and 'pair' models for the format comparison;
- discrete part: the lab's softmax GPT on base / inverse / bijection / copy mapping prompts; ICL, 1-shot, zero-shot,
  TV (layer chosen on validation prompts) and TaskV-M accuracies.

Claim: the brief's three-part rule (see claim_check).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26.harness.claims import Claim
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.mechanisms.task_vectors.claim_check import PRECONDITIONS, task_vector_decider
from iclr26.mechanisms.task_vectors.discrete import (
    TASK_TYPES,
    evaluate_discrete,
    make_gpt,
    map_pool,
    train_gpt,
)
from iclr26.mechanisms.task_vectors.figures import (
    format_comparison,
    layer_curve,
    rank_share_plot,
    risk_vs_shots,
    taskv_m_plot,
    tv_vs_icl_by_task,
)
from iclr26.mechanisms.task_vectors.linear import LinearAttentionTransformer, linear_icl_data, normalized_risk
from iclr26.mechanisms.task_vectors.risks import linear_risks, train_linear

__all__ = ["EXPERIMENT", "TaskVectorConfig", "run"]


@dataclass(frozen=True)
class TaskVectorConfig:
    """One budget of the task-vector reproduction."""

    d: int = 4
    n: int = 16
    n_layers: int = 2
    keep_prob: float = 0.9
    init_scale: float = 0.1
    lr: float = 0.01
    steps: int = 2500
    batch: int = 64
    steps_1shot: int = 500
    format_steps: int = 300
    n_eval: int = 2000
    n_tv: int = 20
    gpt_n: int = 10
    gpt_d: int = 64
    gpt_layers: int = 3
    gpt_steps: int = 2500
    gpt_batch: int = 64
    gpt_lr: float = 3e-3
    gpt_eval: int = 200
    multi_shots: tuple[int, ...] = (1, 2)


def _thin(xs: list[float], k: int = 100) -> tuple[list[int], list[float]]:
    step = max(1, len(xs) // k)
    idx = list(range(0, len(xs), step))
    return [i + 1 for i in idx], [float(np.mean(xs[i : i + step])) for i in idx]


def run(cfg: TaskVectorConfig, seed: int, device: str) -> Metrics:
    """Train the linear models and the GPT for one seed and measure every risk and accuracy."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    art: dict = {}
    dm = 2 * cfg.d
    for part in track(["linear", "formats", "discrete"], description=f"task-vectors seed {seed}"):
        if part == "linear":
            model = LinearAttentionTransformer(
                cfg.n_layers,
                dm,
                cfg.n,
                "triplet",
                keep_prob=cfg.keep_prob,
                init_scale=cfg.init_scale,
                init_seed=1000 * seed + 1,
            )
            losses = train_linear(model, cfg.steps, cfg.batch, cfg.lr, 1000 * seed + 2)
            one = LinearAttentionTransformer(
                cfg.n_layers,
                dm,
                1,
                "triplet",
                keep_prob=cfg.keep_prob,
                init_scale=cfg.init_scale,
                init_seed=1000 * seed + 3,
            )
            train_linear(one, cfg.steps_1shot, cfg.batch, cfg.lr, 1000 * seed + 4)
            r = linear_risks(model, one, cfg.n_eval, 1000 * seed + 5, n_tv=cfg.n_tv)
            values |= {
                "r0": r.r0,
                "r1": r.r1,
                "r1_copies": r.r1_copies,
                "rn": r.rn,
                "rtv": r.rtv,
                "rtv_m": r.rtv_m,
                "gap": r.gap,
                "rtv_over_r1": r.rtv / r.r1,
                "s_tv": r.s_tv,
                "s_icl": r.s_icl,
                "risk_triplet": r.rn,
                "final_loss": float(np.mean(losses[-50:])),
            }
            curves["linear_loss"] = Curve(*_thin(losses), "step", "E||out + W x_q||^2")
            curves["risk_by_shots"] = Curve(r.shots, r.risk_by_shots, "shots k", "normalised risk")
        elif part == "formats":
            for fmt in ("single", "pair"):
                m = LinearAttentionTransformer(
                    cfg.n_layers,
                    dm,
                    cfg.n,
                    fmt,
                    keep_prob=cfg.keep_prob,
                    init_scale=cfg.init_scale,
                    init_seed=1000 * seed + 6,
                )
                train_linear(m, cfg.format_steps, cfg.batch, cfg.lr, 1000 * seed + 7)
                m.eval()
                b = linear_icl_data(fmt, cfg.d, cfg.n, seed=1000 * seed + 8, batch=cfg.n_eval)
                with torch.no_grad():
                    values[f"risk_{fmt}"] = float(normalized_risk(m(b.prompts), b.yq).mean())
        else:
            pool = map_pool(1000 * seed + 9)
            # the GPT runs on `device`; the d = 4 linear-attention models above stay on the CPU
            gpt = make_gpt(cfg.gpt_n, cfg.gpt_d, cfg.gpt_layers, init_seed=1000 * seed + 10).to(device)
            gl = train_gpt(gpt, pool, cfg.gpt_n, cfg.gpt_steps, cfg.gpt_batch, cfg.gpt_lr, 1000 * seed + 11)
            curves["gpt_loss"] = Curve(*_thin(gl), "step", "cross-entropy")
            ev = evaluate_discrete(gpt, pool, cfg.gpt_n, cfg.gpt_eval, 1000 * seed + 12, cfg.multi_shots)
            acc = ev["acc"]
            for task in TASK_TYPES:
                for k, v in acc[task].items():
                    values[f"acc_{task}_{k}"] = float(v.mean())
            d_bij = acc["bijection"]["icl"] - acc["bijection"]["tv"]
            d_bi = np.concatenate([acc[t]["icl"] - acc[t]["tv"] for t in ("base", "inverse")])
            values["disc_gap_bijection"] = 100.0 * float(d_bij.mean())
            values["disc_gap_base_inverse"] = 100.0 * float(d_bi.mean())
            values["disc_diff"] = 100.0 * float(d_bij.mean() - d_bi.mean())
            values["disc_diff_se"] = 100.0 * float(
                np.sqrt(d_bij.var(ddof=1) / d_bij.size + d_bi.var(ddof=1) / d_bi.size)
            )
            values["disc_icl_min"] = float(
                min(acc[t]["icl"].mean() for t in ("base", "inverse", "bijection"))
            )
            values["disc_layer"] = float(ev["layer"])
            for (task, shots), v in ev["multi"].items():
                values[f"multi_{task}_{shots}_icl"] = v["icl"]
                values[f"multi_{task}_{shots}_taskv_m"] = v["taskv_m"]
            art["per_layer"] = {str(k): v for k, v in ev["per_layer"].items()}
            art["multi_shots"] = list(cfg.multi_shots)
    return Metrics(values=values, curves=curves, artifacts=art)


EXPERIMENT = Experiment(
    slug="task-vectors",
    configs={
        "smoke": TaskVectorConfig(
            d=2,
            n=4,
            n_layers=3,
            steps=60,
            steps_1shot=20,
            format_steps=20,
            n_eval=64,
            n_tv=3,
            gpt_n=4,
            gpt_d=32,
            gpt_layers=2,
            gpt_steps=20,
            gpt_batch=16,
            gpt_eval=16,
            multi_shots=(1,),
        ),
        "quick": TaskVectorConfig(),
        "full": TaskVectorConfig(
            d=8,
            n=32,
            n_layers=8,
            steps=20000,
            batch=256,
            steps_1shot=5000,
            format_steps=5000,
            n_eval=5000,
            n_tv=100,
            gpt_d=128,
            gpt_layers=4,
            gpt_steps=5000,
            gpt_batch=64,
            gpt_eval=1000,
            multi_shots=(1, 2, 4),
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="tv-is-one-demo-and-fails-bijections",
            statement=(
                "an injected task vector behaves like a single pseudo-demonstration: its risk gap to n-shot ICL is "
                "large (G >= 0.5) and comparable to 1-shot ICL, its outputs over many queries lie on one direction "
                "(S >= 0.9, n-shot ICL <= 0.6), and in the discrete GPT the ICL-TV gap is >= 20 points larger on "
                "map-plus-inverse bijection tasks than on the base/inverse maps"
            ),
            paper_value="TV risk tracks 1-shot ICL in linear transformers (Fig. 4c); Llama-7B to-upper ICL 1.00 / "
            "TV 0.91 vs its bijection ICL 1.00 / TV 0.55 (Table 1)",
            decide=task_vector_decider(),
            preconditions=PRECONDITIONS,
            scale_gap="d = 4 linear-attention model and a 3-layer d = 64 GPT trained in-process, not Llama",
        ),
    ],
    figures=[risk_vs_shots, rank_share_plot, tv_vs_icl_by_task, taskv_m_plot, layer_curve, format_comparison],
    devices=("cpu", "cuda"),
    scale_gap=(
        "The linear-transformer theory is checked on a d = 4 model trained briefly on CPU; the LLM evidence (Llama "
        "word tasks) is replaced by a small GPT trained from scratch on synthetic base / inverse / bijection / copy "
        "maps."
    ),
)
