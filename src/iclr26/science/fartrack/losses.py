"""Losses of FARTrack's task-specific self-distillation (ICLR 2026, arXiv 2602.03214), as in the official
distillation actor.

Per exit l (logits (B, 4, V), V = bins * range + 5):

* CE_l: cross-entropy over V with class weight 0.1 on the 5 special tokens;
* SIoU_l on the expected box: coordinate c = sum_k softmax(logits[:bins*range])_k (-(range - 1)/2 + k / bins);
* KL_l = KL(softmax(l_{l+1}.detach()) || softmax(l_l)) over the coordinate bins (special tokens dropped),
  batch-mean reduction (sum over the 4 tokens and the bins, divided by B).

    loss = w_siou mean_l SIoU_l + w_ce mean_l CE_l + w_kl mean_l KL_l     (code: w_ce = 2, w_siou = 2, w_kl = 0.01)

Also the manual-pair feature distillation baseline (student block i regresses teacher block 2i with MSE).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.science.fartrack.boxes import N_SPECIAL

__all__ = [
    "adjacent_kl",
    "bin_values",
    "expected_box",
    "feature_distill_loss",
    "self_distill_loss",
    "siou_loss",
]


def siou_loss(
    pred_xyxy: torch.Tensor, gt_xyxy: torch.Tensor, theta: float = 4.0, reduction: str = "mean"
) -> torch.Tensor:
    """SIoU loss (Gevorgyan 2022) as in the official code: 1 - IoU + (shape cost + distance cost) / 2, where the
    distance cost uses the angle cost Lambda = 1 - 2 sin^2(arcsin(|dy| / d) - pi/4).

    pred_xyxy, gt_xyxy : (N, 4) boxes. reduction : "mean" or "none". Zero for identical boxes.
    Two numerical guards the official code lacks: d^2 is floored at 1e-14 and |dy| / d capped at 1 - 1e-6 (the
    arcsin and the square root have infinite slopes there); values elsewhere are unchanged.
    """
    check_tensor("pred_xyxy", pred_xyxy, ndim=2, floating=True)
    check_tensor("gt_xyxy", gt_xyxy, shape=tuple(pred_xyxy.shape), floating=True, finite=True)
    # a NaN propagates into the loss (training shows it); an infinity would be clamped away, so it is refused
    if bool(torch.isinf(pred_xyxy).any()):
        raise ValueError("pred_xyxy must hold no infinite coordinates")
    if pred_xyxy.shape[-1] != 4:
        raise ValueError(f"boxes must be (N, 4) xyxy, got shape {tuple(pred_xyxy.shape)}")
    if reduction not in ("mean", "none"):
        raise ValueError(f"reduction must be one of 'mean', 'none', got {reduction!r}")
    eps = 1e-7
    p, g = pred_xyxy, gt_xyxy
    cxp, cyp = (p[:, 0] + p[:, 2]) / 2, (p[:, 1] + p[:, 3]) / 2
    cxg, cyg = (g[:, 0] + g[:, 2]) / 2, (g[:, 1] + g[:, 3]) / 2
    dist = ((cxp - cxg) ** 2 + (cyp - cyg) ** 2).clamp_min(1e-14).sqrt()
    sin_alpha = ((cyp - cyg).abs() / (dist + eps)).clamp(max=1 - 1e-6)
    angle = 1 - 2 * torch.sin(torch.arcsin(sin_alpha) - math.pi / 4) ** 2
    cw = torch.max(p[:, 2], g[:, 2]) - torch.min(p[:, 0], g[:, 0])  # enclosing box
    ch = torch.max(p[:, 3], g[:, 3]) - torch.min(p[:, 1], g[:, 1])
    px, py = ((cxg - cxp) / (cw + eps)) ** 2, ((cyg - cyp) / (ch + eps)) ** 2
    gamma = 2 - angle
    distance = (1 - torch.exp(-gamma * px)) + (1 - torch.exp(-gamma * py))
    wp, hp, wg, hg = p[:, 2] - p[:, 0], p[:, 3] - p[:, 1], g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
    ow = (wp - wg).abs() / (torch.max(wp, wg) + eps)
    oh = (hp - hg).abs() / (torch.max(hp, hg) + eps)
    shape = (1 - torch.exp(-oh)) ** theta + (1 - torch.exp(-ow)) ** theta
    lt, rb = torch.max(p[:, :2], g[:, :2]), torch.min(p[:, 2:], g[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    iou = inter / (wp * hp + wg * hg - inter)
    loss = 1 - iou + (shape + distance) / 2
    return loss.mean() if reduction == "mean" else loss


def bin_values(bins: int, coord_range: int = 2, device: str | torch.device = "cpu") -> torch.Tensor:
    """The bins * range values the expected box weights: -(range - 1)/2 + k / bins (the official code's grid)."""
    k = torch.arange(bins * coord_range, device=device, dtype=torch.float32)
    return -(coord_range - 1) / 2 + k / bins


def expected_box(logits: torch.Tensor, bins: int, coord_range: int = 2) -> torch.Tensor:
    """Softmax-expected coordinates (B, 4) from logits (B, 4, V) (special tokens excluded)."""
    n = check_int("bins", bins, low=2) * check_int("coord_range", coord_range, low=1)
    check_tensor("logits", logits, ndim=3, floating=True, shape=(None, 4, None))
    if logits.shape[-1] < n:
        raise ValueError(
            f"logits must have at least bins * coord_range = {n} entries per coordinate, got {logits.shape[-1]}"
        )
    prob = logits[..., :n].softmax(-1)
    return prob @ bin_values(bins, coord_range, logits.device).to(prob.dtype)


def adjacent_kl(student: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """KL(softmax(teacher.detach()) || softmax(student)) over the coordinate bins, batch-mean over B.

    student, teacher : (B, 4, V) logits; the last 5 (special) tokens are dropped.
    """
    check_tensor("student", student, ndim=3, floating=True, shape=(None, 4, None))
    check_tensor("teacher", teacher, floating=True, shape=tuple(student.shape))
    s = F.log_softmax(student[..., :-N_SPECIAL], dim=-1)
    t = F.softmax(teacher.detach()[..., :-N_SPECIAL], dim=-1)
    return F.kl_div(s, t, reduction="batchmean")


def _check_exits(exit_logits: Sequence[torch.Tensor], target_tokens: torch.Tensor) -> None:
    if not isinstance(exit_logits, (list, tuple)) or not exit_logits:
        raise ValueError("exit_logits must be a non-empty list of (B, 4, V) logits, shallow to deep")
    shape = tuple(exit_logits[0].shape)
    for i, lg in enumerate(exit_logits):
        check_tensor(f"exit_logits[{i}]", lg, ndim=3, floating=True)
        if tuple(lg.shape) != shape or shape[1] != 4:
            raise ValueError(
                f"every exit must have shape (B, 4, V) = {shape}, got {tuple(lg.shape)} at exit {i}"
            )
    check_tensor("target_tokens", target_tokens, shape=(shape[0], 4), floating=False)


def self_distill_loss(
    exit_logits: Sequence[torch.Tensor],
    target_tokens: torch.Tensor,
    target_boxes: torch.Tensor | None = None,
    *,
    coord_range: int = 2,
    w_ce: float = 2.0,
    w_siou: float = 2.0,
    w_kl: float = 0.01,
    special_weight: float = 0.1,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Task-specific self-distillation loss over the exits (shallow to deep); returns (loss, parts).

    target_tokens : (B, 4) quantised boxes. target_boxes : (B, 4) normalised xyxy for SIoU; None uses the
    de-quantised tokens, token / (bins - 1) - (range/2 - 1/2), as the official actor does. With one exit there is
    no KL term (the from-scratch baseline).
    """
    _check_exits(exit_logits, target_tokens)
    check_int("coord_range", coord_range, low=1)
    for name, w in (("w_ce", w_ce), ("w_siou", w_siou), ("w_kl", w_kl), ("special_weight", special_weight)):
        check_float(name, w, low=0.0)
    V = exit_logits[0].shape[-1]
    if (V - N_SPECIAL) % coord_range:
        raise ValueError(
            f"logit width V = {V} is not bins * coord_range + 5 with coord_range = {coord_range}"
        )
    bins = (V - N_SPECIAL) // coord_range
    check_token_ids("target_tokens", target_tokens, V)
    if target_boxes is None:
        target_boxes = target_tokens.float() / (bins - 1) - (0.5 * coord_range - 0.5)
    check_tensor("target_boxes", target_boxes, shape=tuple(target_tokens.shape), floating=True, finite=True)
    weight = torch.ones(V, device=target_tokens.device)
    weight[-N_SPECIAL:] = special_weight
    ce, si = [], []
    for lg in exit_logits:
        ce.append(F.cross_entropy(lg.reshape(-1, V), target_tokens.reshape(-1), weight=weight.to(lg.dtype)))
        si.append(siou_loss(expected_box(lg, bins, coord_range), target_boxes.to(lg.dtype)))
    kl = [adjacent_kl(exit_logits[i], exit_logits[i + 1]) for i in range(len(exit_logits) - 1)]
    ce_m, si_m = torch.stack(ce).mean(), torch.stack(si).mean()
    kl_m = torch.stack(kl).mean() if kl else ce_m.new_zeros(())
    loss = w_siou * si_m + w_ce * ce_m + w_kl * kl_m
    return loss, {"ce": float(ce_m.detach()), "siou": float(si_m.detach()), "kl": float(kl_m.detach())}


def feature_distill_loss(
    student_hidden: Sequence[torch.Tensor], teacher_hidden: Sequence[torch.Tensor], stride: int = 2
) -> torch.Tensor:
    """Manual-pair feature distillation (baseline c): student block i regresses teacher block stride * i (1-based)
    with MSE; mean over the pairs that exist. The teacher's features are detached."""
    stride = check_int("stride", stride, low=1)
    pairs = [(i, stride * i) for i in range(1, len(student_hidden) + 1) if stride * i <= len(teacher_hidden)]
    if not pairs:
        raise ValueError(f"no student/teacher layer pair with stride {stride}")
    for i, j in pairs:  # MSE would broadcast mismatched shapes silently
        s = check_tensor(f"student_hidden[{i - 1}]", student_hidden[i - 1], floating=True)
        t = check_tensor(f"teacher_hidden[{j - 1}]", teacher_hidden[j - 1], floating=True)
        if s.shape != t.shape:
            raise ValueError(
                f"teacher_hidden[{j - 1}] must have the shape of student_hidden[{i - 1}] {tuple(s.shape)}, "
                f"got {tuple(t.shape)}"
            )
    return torch.stack(
        [F.mse_loss(student_hidden[i - 1], teacher_hidden[j - 1].detach()) for i, j in pairs]
    ).mean()
