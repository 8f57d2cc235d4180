"""Box geometry of FARTrack ("Fast Autoregressive Visual Tracking with High Performance", ICLR 2026, arXiv
2602.03214): coordinate tokens, crops and the map between frame and crop coordinates.

Boxes in frames are ``(x, y, w, h)`` in pixels (pytracking / GOT-10k convention); boxes in a crop are normalised
``(x0, y0, x1, y1)`` with the crop spanning [0, 1]. Coordinate tokens (ARTrack's coordinate-as-token):

    token = floor((box + (range/2 - 1/2)) * (bins - 1)),   box clamped to [-(range - 1)/2, (range + 1)/2]
    box   = token / (bins - 1) - (range/2 - 1/2)          (the tracker's de-quantisation)

The vocabulary holds ``bins * range`` coordinate tokens and 5 special tokens: the 4 command tokens
``x0, y0, x1, y1`` at ``bins * range + 0..3`` and one padding/end token at ``bins * range + 4``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids

__all__ = [
    "N_SPECIAL",
    "box_to_crop",
    "check_box",
    "clip_to_frame",
    "command_tokens",
    "crop",
    "crop_window",
    "crop_to_box",
    "dequantize",
    "quantize",
    "vocab_size",
    "xywh_to_xyxy",
    "xyxy_to_xywh",
]

N_SPECIAL = 5


def vocab_size(bins: int, coord_range: int = 2) -> int:
    """V = bins * range + 5."""
    return check_int("bins", bins, low=2) * check_int("coord_range", coord_range, low=1) + N_SPECIAL


def command_tokens(
    batch: int, bins: int, coord_range: int = 2, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """The 4 command tokens (x0, y0, x1, y1) for every row: (batch, 4) long."""
    base = bins * check_int("coord_range", coord_range, low=1)
    return (base + torch.arange(4, device=device)).expand(batch, 4).clone()


def _check_rows(name: str, x: torch.Tensor, width: int, rows: int | None = None, **kw) -> torch.Tensor:
    """A floating (B, width) tensor (B = `rows` when given)."""
    return check_tensor(name, x, ndim=2, floating=True, shape=(rows, width), **kw)


def _check_last4(name: str, x: torch.Tensor, **kw) -> torch.Tensor:
    check_tensor(name, x, **kw)
    if x.ndim < 1 or x.shape[-1] != 4:
        raise ValueError(f"{name} must have shape (..., 4), got {tuple(x.shape)}")
    return x


def quantize(box_xyxy: torch.Tensor, bins: int, coord_range: int = 2) -> torch.Tensor:
    """Normalised crop boxes (..., 4) -> coordinate tokens (..., 4) long (the official floor rule)."""
    _check_last4("box_xyxy", box_xyxy, floating=True, finite=True)  # floor(NaN) would be an arbitrary token
    half = 0.5 * coord_range - 0.5
    b = box_xyxy.clamp(-half, 1.0 + half)
    return torch.floor((b + half) * (bins - 1)).long()


def dequantize(tokens: torch.Tensor, bins: int, coord_range: int = 2) -> torch.Tensor:
    """Coordinate tokens (..., 4) -> normalised crop coordinates (..., 4) float."""
    _check_last4("tokens", tokens, floating=False)
    check_token_ids(
        "tokens", tokens, check_int("bins", bins, low=2) * check_int("coord_range", coord_range, low=1)
    )
    return tokens.float() / (bins - 1) - (0.5 * coord_range - 0.5)


def xywh_to_xyxy(b: torch.Tensor) -> torch.Tensor:
    return torch.cat([b[..., :2], b[..., :2] + b[..., 2:]], dim=-1)


def xyxy_to_xywh(b: torch.Tensor) -> torch.Tensor:
    return torch.cat([b[..., :2], b[..., 2:] - b[..., :2]], dim=-1)


def check_box(name: str, box: torch.Tensor) -> torch.Tensor:
    """A finite (x, y, w, h) box, (4,) or (B, 4), with w > 0 and h > 0."""
    check_tensor(name, box, ndim=(1, 2), finite=True)
    if box.shape[-1] != 4:
        raise ValueError(f"{name} must be (x, y, w, h) with last dimension 4, got shape {tuple(box.shape)}")
    wh = box.reshape(-1, 4)[:, 2:]
    if bool((wh <= 0).any()):
        raise ValueError(
            f"{name} must have positive width and height (x, y, w, h), got w, h = {wh[(wh <= 0).any(1)][0].tolist()}"
        )
    return box


def crop_window(box_xywh: torch.Tensor, factor: float) -> torch.Tensor:
    """Square crop windows (B, 3) = (x0, y0, side) centred on each box, side = sqrt(w h) * factor (pytracking's
    ``sample_target``, continuous instead of rounded)."""
    check_float("factor", factor, low=0.0, low_open=True)
    _check_rows("box_xywh", box_xywh, 4)
    cx = box_xywh[:, 0] + 0.5 * box_xywh[:, 2]
    cy = box_xywh[:, 1] + 0.5 * box_xywh[:, 3]
    side = torch.sqrt(box_xywh[:, 2] * box_xywh[:, 3]) * factor
    return torch.stack([cx - 0.5 * side, cy - 0.5 * side, side], dim=1)


def crop(frames: torch.Tensor, window: torch.Tensor, size: int) -> torch.Tensor:
    """Bilinear crops (B, 3, size, size) of frames (B, 3, H, W) over windows (B, 3); zero outside the frame.

    Output pixel (i, j) samples the frame at x = x0 + (j + 1/2) side / size (pixel k covers [k, k + 1)).
    """
    check_tensor("frames", frames, ndim=4, floating=True, finite=True)
    _check_rows("window", window, 3, frames.shape[0])
    B, _, H, W = frames.shape
    t = (torch.arange(size, dtype=frames.dtype, device=frames.device) + 0.5) / size
    xs = window[:, :1] + t[None] * window[:, 2:3]  # (B, size) in pixels
    ys = window[:, 1:2] + t[None] * window[:, 2:3]
    gx = (2.0 * xs / W - 1.0)[:, None, :].expand(B, size, size)
    gy = (2.0 * ys / H - 1.0)[:, :, None].expand(B, size, size)
    grid = torch.stack([gx, gy], dim=-1)
    return F.grid_sample(frames, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def box_to_crop(box_xywh: torch.Tensor, window: torch.Tensor) -> torch.Tensor:
    """Frame boxes (B, 4) xywh -> normalised crop boxes (B, 4) xyxy in the windows (B, 3)."""
    _check_rows("box_xywh", box_xywh, 4)
    _check_rows("window", window, 3, box_xywh.shape[0])
    xyxy = xywh_to_xyxy(box_xywh)
    origin = window[:, :2].repeat(1, 2)
    return (xyxy - origin) / window[:, 2:3]


def crop_to_box(box_xyxy: torch.Tensor, window: torch.Tensor) -> torch.Tensor:
    """Normalised crop boxes (B, 4) xyxy -> frame boxes (B, 4) xywh (the inverse of :func:`box_to_crop`)."""
    _check_rows("box_xyxy", box_xyxy, 4)
    _check_rows("window", window, 3, box_xyxy.shape[0])
    origin = window[:, :2].repeat(1, 2)
    return xyxy_to_xywh(box_xyxy * window[:, 2:3] + origin)


def clip_to_frame(box_xywh: torch.Tensor, height: int, width: int, min_size: float = 1.0) -> torch.Tensor:
    """Boxes (B, 4) xywh clipped to lie inside the frame, each side at least ``min_size`` pixels."""
    x0 = box_xywh[:, 0].clamp(0.0, width - min_size)
    y0 = box_xywh[:, 1].clamp(0.0, height - min_size)
    x1 = (box_xywh[:, 0] + box_xywh[:, 2]).clamp(max=float(width))
    y1 = (box_xywh[:, 1] + box_xywh[:, 3]).clamp(max=float(height))
    x1 = torch.maximum(x1, x0 + min_size)
    y1 = torch.maximum(y1, y0 + min_size)
    return torch.stack([x0, y0, x1 - x0, y1 - y0], dim=1)
