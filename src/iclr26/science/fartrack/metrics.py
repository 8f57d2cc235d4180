"""Tracking metrics for the FARTrack reproduction (ICLR 2026, arXiv 2602.03214) and a CPU speed probe.

GOT-10k protocol (as its toolkit): the first frame is excluded; the IoUs of all remaining frames of all sequences
are pooled; AO is their mean, SR_t the fraction above t (0.5 and 0.75). Success AUC (OTB/LaSOT): the mean success
rate over the 21 thresholds 0, 0.05, ..., 1. Precision: the fraction of frames whose centre error is within
``threshold`` pixels.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from iclr26.checks import check_array, check_float, check_int, check_tensor
from iclr26.harness.threads import limited_threads

__all__ = ["ao_sr", "box_iou", "measure_fps", "precision", "success_auc"]


def _as_boxes(name: str, boxes: np.ndarray | torch.Tensor) -> np.ndarray:
    if isinstance(boxes, torch.Tensor):
        boxes = check_tensor(name, boxes).detach().cpu().double().numpy()
    arr = check_array(name, boxes)
    if arr.ndim not in (2, 3) or arr.shape[-1] != 4:
        raise ValueError(f"{name} must be (T, 4) or (S, T, 4) boxes (x, y, w, h), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr if arr.ndim == 3 else arr[None]


def _pair(pred: np.ndarray | torch.Tensor, gt: np.ndarray | torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    p, g = _as_boxes("pred_boxes", pred), _as_boxes("gt_boxes", gt)
    if p.shape != g.shape:
        raise ValueError(f"pred_boxes and gt_boxes must have the same shape, got {p.shape} and {g.shape}")
    if p.shape[1] < 2:
        raise ValueError(f"sequences need at least 2 frames (the first is excluded), got {p.shape[1]}")
    return p[:, 1:], g[:, 1:]


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of (..., 4) xywh boxes, elementwise; boxes with no area give 0."""
    a, b = check_array("a", a, finite=True), check_array("b", b, finite=True)
    if a.ndim < 1 or a.shape[-1] != 4 or b.shape != a.shape:
        raise ValueError(f"a and b must be (..., 4) xywh boxes of one shape, got {a.shape} and {b.shape}")
    x0, y0 = np.maximum(a[..., 0], b[..., 0]), np.maximum(a[..., 1], b[..., 1])
    x1 = np.minimum(a[..., 0] + a[..., 2], b[..., 0] + b[..., 2])
    y1 = np.minimum(a[..., 1] + a[..., 3], b[..., 1] + b[..., 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    union = a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def ao_sr(pred_boxes: np.ndarray | torch.Tensor, gt_boxes: np.ndarray | torch.Tensor) -> dict[str, float]:
    """GOT-10k AO, SR0.5 and SR0.75 (in [0, 1]) of (T, 4) or (S, T, 4) xywh boxes; frame 0 excluded."""
    p, g = _pair(pred_boxes, gt_boxes)
    ious = box_iou(p, g).ravel()
    return {"ao": float(ious.mean()), "sr50": float((ious > 0.5).mean()), "sr75": float((ious > 0.75).mean())}


def success_auc(pred_boxes: np.ndarray | torch.Tensor, gt_boxes: np.ndarray | torch.Tensor) -> float:
    """Area under the success curve: mean over thresholds 0, 0.05, ..., 1 of the fraction of IoU > threshold."""
    p, g = _pair(pred_boxes, gt_boxes)
    ious = box_iou(p, g).ravel()
    thresholds = np.linspace(0, 1, 21)
    return float(np.mean([(ious > t).mean() for t in thresholds]))


def precision(
    pred_boxes: np.ndarray | torch.Tensor, gt_boxes: np.ndarray | torch.Tensor, threshold: float = 20.0
) -> float:
    """Fraction of frames whose box centres lie within ``threshold`` pixels."""
    check_float("threshold", threshold, low=0.0)
    p, g = _pair(pred_boxes, gt_boxes)
    cp, cg = p[..., :2] + p[..., 2:] / 2, g[..., :2] + g[..., 2:] / 2
    err = np.sqrt(((cp - cg) ** 2).sum(-1)).ravel()
    return float((err <= threshold).mean())


def measure_fps(
    model: torch.nn.Module, n_templates: int = 1, threads: int = 1, frames: int = 50, repeats: int = 3
) -> float:
    """Forward passes per second (batch 1, ``torch.inference_mode``) on ``threads`` CPU threads; the best of
    ``repeats`` timings of ``frames`` passes (the least disturbed by other processes).

    A wall-clock measurement: it differs run to run and is never a claim metric.
    """
    check_int("threads", threads, low=1)
    check_int("frames", frames, low=1)
    z = torch.randn(
        1, check_int("n_templates", n_templates, low=1), 3, model.template_size, model.template_size
    )
    x = torch.randn(1, 3, model.search_size, model.search_size)
    was_training = model.training
    model.eval()
    with limited_threads(threads), torch.inference_mode():
        for _ in range(5):
            model(z, x)
        dt = float("inf")
        for _ in range(check_int("repeats", repeats, low=1)):
            t0 = time.perf_counter()
            for _ in range(frames):
                model(z, x)
            dt = min(dt, time.perf_counter() - t0)
    model.train(was_training)
    return frames / dt
