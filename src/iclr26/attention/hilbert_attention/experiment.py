"""Reproduction of "Hilbert-Guided Sparse Local Attention" (ICLR 2026; arXiv 2511.05832).

Per harness seed:

- structural study (deterministic): empty / full / partial tile counts of raster-order windows and 2D
  neighbourhoods vs Hilbert groups and 1D Hilbert neighbourhoods, over grids, block sizes, window and kernel sizes;
  the tile (FLOP) ratio of the block-sparse executor in the worked configuration; CPU wall times of the executor
  (raster vs Hilbert) and of dense masked attention, kept as artifacts (timings are not reproducible numbers);
- accuracy study: a tiny two-stage ViT on sklearn digits upsampled to 32x32 (70/30 split drawn from the seed) with
  four stage-1 attentions (Swin windows, Hilbert windows, 2D neighbourhood, Hilbert slide), same initialisation and
  batch order per seed; the generated shapes-and-textures set in the full budget;
- on a CUDA device, the accuracy study trains there, and FlexAttention timings of the window and slide pairs are
  recorded (``gpu_speedup_*``; NaN on the CPU).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr26.attention.hilbert_attention.claim_check import (
    accuracy_decider,
    sparsity_decider,
    speed_decider,
    strict_everywhere_decider,
)
from iclr26.attention.hilbert_attention.figures import (
    accuracy_bars,
    cpu_time_vs_grid,
    empty_ratio_vs_grid,
    tile_maps,
)
from iclr26.attention.hilbert_attention.model import (
    VARIANTS,
    TrainSettings,
    digits_data,
    shapes_data,
    train_and_evaluate,
)
from iclr26.attention.hilbert_attention.structure import executor_times, flex_speedups, pair_masks, tile_table
from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Experiment, Metrics
from iclr26.harness.progress import track

__all__ = ["EXPERIMENT", "HilbertConfig", "run"]

WORKED = (64, 128)  # grid, block of the worked configuration
DIGITS_CHANCE = 0.1  # ten classes
LEARNED_MARGIN = 0.1


def _learned(metric: str, name: str) -> Precondition:
    return Precondition(
        metric,
        ">=",
        DIGITS_CHANCE + LEARNED_MARGIN,
        f"the {name} baseline learned the digits: test accuracy >= chance (1/10) + 10 points, so that "
        "non-inferiority is not against a model at chance",
    )


@dataclass(frozen=True)
class HilbertConfig:
    """One budget of the reproduction."""

    grids: tuple[int, ...] = (16, 32, 56, 64)
    blocks: tuple[int, ...] = (64, 128)
    windows: tuple[int, ...] = (4, 7, 8)
    kernels: tuple[int, ...] = (5, 7)
    time_grids: tuple[int, ...] = (64,)
    time_repeats: int = 3
    epochs: int = 30
    train_limit: int | None = None
    test_limit: int | None = None
    dim: int = 32
    heads: int = 2
    batch: int = 64
    lr: float = 3e-3
    shapes: bool = False
    shapes_n: int = 10_000


def _tile_state(mask: torch.Tensor, block: int) -> list[list[int]]:
    """Per tile: 0 empty, 1 partial, 2 full (the mask side must be a multiple of ``block``)."""
    n = mask.shape[0] // block
    t = mask.view(n, block, n, block)
    anyv, allv = t.any(dim=(1, 3)), t.all(dim=(1, 3))
    return (anyv.int() + allv.int()).tolist()


def _structure(cfg: HilbertConfig) -> tuple[dict[str, float], dict]:
    rows = tile_table(cfg.grids, cfg.blocks, cfg.windows, cfg.kernels)
    values: dict[str, float] = {}

    def nonempty(s: dict[str, int]) -> int:
        return s["full"] + s["partial"]

    worse = [
        r
        for r in rows
        if nonempty(r["hilbert"]) > nonempty(r["rowmajor"])
        or r["hilbert"]["partial"] > r["rowmajor"]["partial"]
    ]
    strict = [
        r
        for r in rows
        if nonempty(r["hilbert"]) < nonempty(r["rowmajor"])
        and r["hilbert"]["partial"] < r["rowmajor"]["partial"]
    ]
    values["n_configs"] = float(len(rows))
    values["configs_hilbert_worse"] = float(len(worse))
    values["configs_not_strict"] = float(len(rows) - len(strict))
    for order in ("rowmajor", "hilbert"):
        values[f"nonempty_{order}_total"] = float(sum(nonempty(r[order]) for r in rows))
        values[f"partial_{order}_total"] = float(sum(r[order]["partial"] for r in rows))
    pick = {(r["grid"], r["block"], r["pair"], r["size"]): r for r in rows}
    w = pick[(*WORKED, "window", 8)]
    for order in ("rowmajor", "hilbert"):
        s = w[order]
        values[f"worked_{order}_empty_pct"] = 100.0 * s["empty"] / (s["empty"] + s["full"] + s["partial"])
    for pair, size in (("window", 8), ("slide", 7)):
        r = pick[(*WORKED, pair, size)]
        values[f"flop_ratio_{pair}"] = nonempty(r["rowmajor"]) / nonempty(r["hilbert"])
    rm, hb = pair_masks(64, "window", 8)
    art = {"tiles": rows, "tile_maps": {"rowmajor": _tile_state(rm, 128), "hilbert": _tile_state(hb, 128)}}
    return values, art


def run(cfg: HilbertConfig, seed: int, device: str) -> Metrics:
    """Structural study, executor timings, the accuracy study and (on CUDA) FlexAttention timings for one seed."""
    values, artifacts = _structure(cfg)
    timings = []
    for grid in track(cfg.time_grids, description="hilbert executor timing"):
        for pair, size in (("window", 8), ("slide", 7)):
            t = executor_times(grid, pair, size, block=128, repeats=cfg.time_repeats, seed=seed)
            timings.append({"grid": grid, "pair": pair, "size": size, **t})
    artifacts["timings"] = timings
    settings = TrainSettings(epochs=cfg.epochs, batch=cfg.batch, lr=cfg.lr, dim=cfg.dim, heads=cfg.heads)
    sets = [("", digits_data(seed))]
    if cfg.shapes:
        sets.append(("shapes_", shapes_data(seed, cfg.shapes_n)))
    for prefix, data in sets:
        if cfg.train_limit is not None or cfg.test_limit is not None:
            tr, te = slice(cfg.train_limit), slice(cfg.test_limit)
            data = (data[0][tr], data[1][tr], data[2][te], data[3][te])
        for variant in track(VARIANTS, description=f"hilbert {prefix or 'digits_'}accuracy seed {seed}"):
            values[f"{prefix}acc_{variant}"] = train_and_evaluate(
                variant, data, settings, 1000 * seed + 7, device
            )
        values[f"{prefix}diff_hwa_swin"] = 100 * (values[f"{prefix}acc_hwa"] - values[f"{prefix}acc_swin"])
        values[f"{prefix}diff_hsa_nat"] = 100 * (values[f"{prefix}acc_hsa"] - values[f"{prefix}acc_nat"])
    values["gpu_speedup_window"] = values["gpu_speedup_slide"] = float("nan")  # measured on CUDA only
    if str(device).startswith("cuda") and torch.cuda.is_available():
        values |= flex_speedups()
    return Metrics(values=values, artifacts=artifacts)


EXPERIMENT = Experiment(
    slug="hilbert-attention",
    configs={
        "smoke": HilbertConfig(
            grids=(16, 64),
            blocks=(128,),
            windows=(8,),
            kernels=(7,),
            time_grids=(),
            epochs=1,
            train_limit=64,
            test_limit=128,
        ),
        "quick": HilbertConfig(),
        "full": HilbertConfig(
            grids=(16, 32, 56, 64, 128),
            time_grids=(32, 64, 128),
            time_repeats=5,
            epochs=30,
            dim=64,
            heads=4,
            shapes=True,
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="hilbert-sparsity-mechanism",
            statement=(
                "on 64x64 tokens with 8x8 windows and 128-token blocks, raster-order windows leave 87.5% of tiles "
                "empty and Hilbert groups 96.875%; across grids 16-64, blocks 64/128, windows 4/7/8 and kernels 5/7 "
                "the Hilbert order never has more non-empty or partial tiles and has fewer in total"
            ),
            paper_value="empty-block ratio 87.5% -> 96.9%, fewer partial blocks",
            decide=sparsity_decider,
            scale_gap="exact combinatorics of the masks; no kernel involved",
        ),
        Claim(
            id="hilbert-strictly-fewer-tiles-everywhere",
            statement="the Hilbert order has strictly fewer non-empty and strictly fewer partial tiles in every "
            "configuration of the structural study (the brief's literal rule)",
            paper_value="(implied) higher block sparsity from Hilbert reordering",
            decide=strict_everywhere_decider,
            scale_gap="small grids where one block spans many image rows are included",
        ),
        Claim(
            id="hwa-accuracy-vs-swin-window",
            statement="Hilbert window attention (16-token groups, rolled) is non-inferior to Swin 4x4 shifted windows "
            "in test accuracy (mean difference >= -1 point, paired 95% t lower end > -2.5 points; refuted when the "
            "whole interval lies below -1 point)",
            paper_value="HWT vs Swin-T on ImageNet-1K: minimal accuracy loss",
            decide=accuracy_decider("hwa", "swin"),
            preconditions=(_learned("acc_swin", "Swin-window"),),
            scale_gap="8x8 token grid, ~0.1M-parameter ViT on upsampled digits instead of Swin-T on ImageNet-1K",
        ),
        Claim(
            id="hsa-accuracy-vs-neighborhood",
            statement="Hilbert slide attention (25 tokens on the curve) is non-inferior to 5x5 2D neighbourhood "
            "attention in test accuracy (same rule)",
            paper_value="HNT vs NAT on ImageNet-1K: minimal accuracy loss",
            decide=accuracy_decider("hsa", "nat"),
            preconditions=(_learned("acc_nat", "2D-neighbourhood"),),
            scale_gap="8x8 token grid, ~0.1M-parameter ViT on upsampled digits instead of NAT-T on ImageNet-1K",
        ),
        Claim(
            id="hilbert-kernel-speedup",
            statement="block-sparse kernels run Hilbert window / slide attention >= 2x / >= 9x faster than the "
            "conventional masks (half the paper's figures); on CPU only the tile-count ratio is measured",
            paper_value="about 4x (window) and 18x (slide) with FlexAttention",
            decide=speed_decider,
            scale_gap="GPU-kernel claim; the CPU executor's tile ratio is only a proxy",
        ),
    ],
    figures=[tile_maps, empty_ratio_vs_grid, accuracy_bars, cpu_time_vs_grid],
    devices=("cpu", "cuda"),
    scale_gap=(
        "Tile statistics are exact; speed is a CPU tile-count proxy (FlexAttention timings only on a GPU); accuracy "
        "is a ~0.1M-parameter two-stage ViT on an 8x8 token grid (digits upsampled to 32x32) instead of "
        "HWT-T/HNT-T on ImageNet-1K."
    ),
)
