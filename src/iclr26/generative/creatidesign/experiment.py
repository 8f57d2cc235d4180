"""Reproduction of "CreatiDesign: A Unified Multi-Conditional Diffusion Transformer for Creative Graphic Design"
(arXiv 2505.19114): does the multimodal attention mask make each condition control only its own region?

Per harness seed (one independent replication; the variants are paired: same data, initialisation, batches,
condition dropout and sampling noise):

1. render ``n_train`` procedural designs (prompt = background colour, 1-2 subject sprites, 1-3 coloured shapes
   in boxes) and ``n_test`` held-out designs whose layout combination never occurs in training;
2. train the crop classifier (colour x shape) on the training renders' exact boxes;
3. train :class:`~iclr26.generative.creatidesign.model.MultiConditionDiT` with rectified flow for each variant:
   ``mask`` (the brief's multimodal attention mask), ``nomask`` (global attention over the same concatenated
   conditions: the multi-condition baseline), optionally ``official`` (the official code's mask asymmetries);
4. sample every test design with ``euler_steps`` Euler steps from the same noise and score layout attribute
   accuracy, leakage, subject fidelity, background accuracy and the Frechet distance of crop features.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from iclr26.generative.creatidesign.claim_check import (
    CHANCE_LAYOUT,
    learned_preconditions,
    mask_gain_decider,
)
from iclr26.generative.creatidesign.data import VOCAB, ProceduralDesignDataset
from iclr26.generative.creatidesign.evaluators import (
    background_accuracy,
    frechet_distance,
    layout_scores,
    subject_fidelity,
    train_crop_classifier,
)
from iclr26.generative.creatidesign.figures import accuracy_by_count, condition_grid, mask_heatmap
from iclr26.generative.creatidesign.masks import MaskRules
from iclr26.generative.creatidesign.model import MultiConditionDiT, rectified_flow_loss, sample_euler
from iclr26.harness.claims import Claim
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track

__all__ = ["EXPERIMENT", "VARIANTS", "CreatiDesignConfig", "run"]

VARIANTS = ("mask", "nomask", "official")


@dataclass(frozen=True)
class CreatiDesignConfig:
    """One budget of the CreatiDesign reproduction."""

    canvas: int = 32
    patch: int = 4
    dim: int = 64
    depth: int = 3
    heads: int = 4
    n_train: int = 4000
    n_test: int = 256
    steps: int = 800
    batch: int = 16
    lr: float = 1e-3
    cond_drop: float = 0.1  # each condition type dropped from a training sample with this probability
    euler_steps: int = 10
    cnn_steps: int = 300
    n_sprites: int = 64
    variants: tuple[str, ...] = ("mask", "nomask")
    loss_points: int = 6
    n_examples: int = 6


def _model(cfg: CreatiDesignConfig, variant: str) -> MultiConditionDiT:
    rules = MaskRules.official() if variant == "official" else MaskRules()
    return MultiConditionDiT(
        image_size=cfg.canvas,
        patch=cfg.patch,
        dim=cfg.dim,
        depth=cfg.depth,
        heads=cfg.heads,
        vocab=len(VOCAB),
        use_mask=variant != "nomask",
        rules=rules,
    )


def _drop(layout: list, subjects: list, gen: torch.Generator, p: float) -> tuple[list, list]:
    keep = torch.rand(len(layout), 2, generator=gen) >= p
    return [lay if k else [] for lay, k in zip(layout, keep[:, 0].tolist())], [
        sub if k else [] for sub, k in zip(subjects, keep[:, 1].tolist())
    ]


def _to_uint8(x: torch.Tensor) -> list:
    return ((x.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).permute(0, 2, 3, 1).tolist()


def run(cfg: CreatiDesignConfig, seed: int, device: str) -> Metrics:
    """Train and score every variant of `cfg` on one seed (CPU)."""
    train = ProceduralDesignDataset(cfg.n_train, 1000 * seed + 1, cfg.canvas, n_sprites=cfg.n_sprites)
    test = ProceduralDesignDataset(
        cfg.n_test, 1000 * seed + 2, cfg.canvas, n_sprites=cfg.n_sprites, exclude=train.keys()
    )
    values: dict[str, float] = {"chance_layout": CHANCE_LAYOUT}
    curves: dict[str, Curve] = {}
    art: dict = {"examples": {}, "variants": list(cfg.variants), "seconds": {}}
    t0 = time.perf_counter()
    cnn = train_crop_classifier(train.images, train.designs, cfg.cnn_steps, seed=1000 * seed + 3)
    real = layout_scores(cnn, test.images, test.designs)
    values["eval_acc"] = float(real["correct"].mean())
    values["real_subject_fid"] = float(np.nanmean(subject_fidelity(test.images, test.designs)))
    values["mismatched_subject_fid"] = float(np.nanmean(subject_fidelity(test.images, test.designs, shift=1)))
    values["real_background_acc"] = float(background_accuracy(test.images, test.designs).mean())
    # wall times are artifacts, not metrics: the metrics of a seed are deterministic
    art["seconds"]["evaluator"] = time.perf_counter() - t0
    ex = list(range(min(cfg.n_examples, cfg.n_test)))
    art["examples"]["real"] = _to_uint8(test.images[ex])
    art["examples"]["boxes"] = [
        [[c, s, list(b.as_tuple())] for c, s, b in test[i].layout]
        + [["subject", "", list(b.as_tuple())] for _, b in test[i].subjects]
        for i in ex
    ]
    art["counts"] = {}
    noise = torch.randn(
        (cfg.n_test, 3, cfg.canvas, cfg.canvas), generator=torch.Generator().manual_seed(1000 * seed + 5)
    )
    prompt_all, layout_all, subjects_all = test.conditions(range(cfg.n_test))
    for variant in track(cfg.variants, description=f"creatidesign seed {seed}"):
        torch.manual_seed(1000 * seed + 7)  # the same initial weights for every variant
        model = _model(cfg, variant)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        gen = torch.Generator().manual_seed(1000 * seed + 11)  # the same batches, dropout and noise
        xs, ys, run_loss = [], [], []
        every = max(1, cfg.steps // cfg.loss_points)
        t1 = time.perf_counter()
        model.train()
        for step in range(1, cfg.steps + 1):
            idx = torch.randint(0, cfg.n_train, (cfg.batch,), generator=gen).tolist()
            prompt, layout, subjects = train.conditions(idx)
            layout, subjects = _drop(layout, subjects, gen, cfg.cond_drop)
            loss = rectified_flow_loss(model, train.images[idx], prompt, layout, subjects, gen)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            run_loss.append(float(loss.detach()))
            if step % every == 0 or step == cfg.steps:
                xs.append(step)
                ys.append(float(np.mean(run_loss[-every:])))
        art["seconds"][f"{variant}_train"] = time.perf_counter() - t1
        values[f"{variant}_final_loss"] = ys[-1]
        curves[f"{variant}_loss"] = Curve(xs, ys, "training step", "rectified-flow loss")
        model.eval()
        outs = []
        for lo in range(0, cfg.n_test, 64):
            hi = min(lo + 64, cfg.n_test)
            outs.append(
                sample_euler(
                    model,
                    prompt_all[lo:hi],
                    layout_all[lo:hi],
                    subjects_all[lo:hi],
                    cfg.euler_steps,
                    noise=noise[lo:hi],
                )
            )
        gen_img = torch.cat(outs).clamp(-1, 1)
        sc = layout_scores(cnn, gen_img, test.designs)
        values[f"{variant}_layout_acc"] = float(sc["correct"].mean())
        values[f"{variant}_leakage"] = float(np.nanmean(sc["leak"]))
        values[f"{variant}_subject_fid"] = float(np.nanmean(subject_fidelity(gen_img, test.designs)))
        values[f"{variant}_background_acc"] = float(background_accuracy(gen_img, test.designs).mean())
        values[f"{variant}_frechet"] = frechet_distance(sc["features"], real["features"])
        counts = {}
        for n in (1, 2, 3):
            sel = sc["n_layout"] == n
            values[f"{variant}_acc_n{n}"] = float(sc["correct"][sel].mean()) if sel.any() else float("nan")
            values[f"{variant}_leak_n{n}"] = (
                float(np.nanmean(sc["leak"][sel])) if n > 1 and sel.any() else float("nan")
            )
            counts[n] = int(sel.sum())
        art["counts"] = counts
        art["examples"][variant] = _to_uint8(gen_img[ex])
    base = [v for v in ("mask", "nomask") if v in cfg.variants]
    values["mask_nomask_best_layout_acc"] = max(values[f"{v}_layout_acc"] for v in base)
    if "official" in cfg.variants:
        values["official_nomask_best_layout_acc"] = max(
            values[f"{v}_layout_acc"] for v in ("official", "nomask")
        )
    # one example's masks (brief and official rules) for the heatmap
    d = test[0]
    demo = _model(cfg, "mask")
    p, lay, sub = test.conditions([0])
    art["mask_example"] = {
        "n_prompt": demo.n_prompt,
        "n_layout": len(d.layout),
        "n_subjects": len(d.subjects),
        "mask": demo._sequence(p, lay, sub)[1][0].int().tolist(),
        "max_layout": demo.max_layout,
        "max_subjects": demo.max_subjects,
    }
    return Metrics(values=values, curves=curves, artifacts=art)


_SMOKE = CreatiDesignConfig(n_train=128, n_test=24, steps=30, batch=8, cnn_steps=30, euler_steps=4)

EXPERIMENT = Experiment(
    slug="creatidesign",
    configs={
        "smoke": _SMOKE,
        "quick": CreatiDesignConfig(),
        "full": CreatiDesignConfig(
            canvas=64,
            dim=128,
            depth=8,
            n_train=20_000,
            n_test=1000,
            steps=100_000,
            batch=32,
            euler_steps=20,
            cnn_steps=2000,
            variants=("mask", "nomask", "official"),
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="mask-layout-adherence",
            statement=(
                "with the multimodal attention mask, layout attribute accuracy (colour and shape right in box k) "
                "beats the same DiT with global attention over the same conditions by >= 5 points, with a lower "
                "leakage rate (box k showing an attribute requested for another box)"
            ),
            paper_value="qualitative: the mask lets each condition control its own region without leaking into "
            "the others; the paper's layout mIoU / text / subject numbers were not recovered",
            decide=mask_gain_decider("mask", "nomask"),
            scale_gap="3-layer d=64 DiT trained from scratch on 32 x 32 procedural designs for 800 steps vs LoRA "
            "on FLUX.1-dev (12B) with the 400K-sample dataset; no text elements",
            preconditions=learned_preconditions("mask", "nomask"),
        ),
    ],
    figures=[condition_grid, accuracy_by_count, mask_heatmap],
    scale_gap=(
        "A tiny single-stream DiT on synthetic Pillow designs replaces FLUX.1-dev + LoRA on the 400K CreatiDesign "
        "set; a crop CNN replaces the benchmark's detector, DINO/CLIP and OCR; only the mask mechanism is tested."
    ),
)
