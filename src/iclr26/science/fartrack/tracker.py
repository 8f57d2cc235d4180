"""Pytracking-style tracker around an :class:`ARTracker` (FARTrack, ICLR 2026, arXiv 2602.03214).

``initialize(frame, box)`` crops the first template (factor 2 around the box); ``track(frame)`` crops the search
region (factor 4 around the last box), predicts the 4 coordinate tokens (argmax over the coordinate bins),
de-quantises them (token / (bins - 1) - (range/2 - 1/2)), maps them back to the frame and clips the box inside it,
then crops a new template at the predicted box. The template queue follows the official "exponential" rule: the
initial template, L - 2 stored templates at indices floor((n - 1)(1 - 0.7^i)), and the newest; before L frames the
queue is front-padded with the initial template.

Template pruning (``prune``): ``"inter"`` (FARTrack: each template's mask is decided from the attention of the frame
in which it was the newest, and applied from the next frame on; no extra pass), ``"random"`` (same count, random
tokens), ``"intra"`` (scores and mask from a first pass on the current frame, applied in a second pass). The newest
template is never pruned; pruned tokens are dropped from the sequence. Frames and boxes may carry a leading batch
dimension: B sequences then run in lockstep, each exactly as it would alone.
"""

from __future__ import annotations

import numpy as np
import torch

from iclr26.checks import check_choice, check_float, check_int
from iclr26.science.fartrack.boxes import (
    check_box,
    clip_to_frame,
    crop,
    crop_to_box,
    crop_window,
    dequantize,
)
from iclr26.science.fartrack.model import ARTracker
from iclr26.science.fartrack.sparsify import InterFrameSparsifier, random_prune_mask

__all__ = ["Tracker", "frames_to_tensor"]

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def frames_to_tensor(frame: np.ndarray | torch.Tensor) -> tuple[torch.Tensor, bool]:
    """(H, W, 3) or (B, H, W, 3) uint8 (0..255) or float (0..1) -> ((B, 3, H, W) float in [0, 1], batched?)."""
    arr = torch.as_tensor(np.asarray(frame)) if not isinstance(frame, torch.Tensor) else frame
    if arr.ndim not in (3, 4) or arr.shape[-1] != 3:
        raise ValueError(f"frame must be (H, W, 3) or (B, H, W, 3), got shape {tuple(arr.shape)}")
    if arr.dtype == torch.uint8:
        x = arr.float() / 255.0
    elif arr.is_floating_point():
        x = arr.float()
        if not bool(torch.isfinite(x).all()):
            raise ValueError("frame must be finite")
    else:
        raise ValueError(f"frame must be uint8 or float, got dtype {arr.dtype}")
    batched = arr.ndim == 4
    x = x if batched else x[None]
    return x.permute(0, 3, 1, 2).contiguous(), batched


def normalize(crops: torch.Tensor) -> torch.Tensor:
    return (crops - MEAN) / STD


class Tracker:
    """Track one target (or B targets in lockstep) with a trained :class:`ARTracker`.

    Parameters
    ----------
    model : the network (its last exit predicts). n_templates : L (1: the initial template only).
    template_factor, search_factor : crop sides relative to sqrt(w h) (official 2 and 4).
    prune : None, "inter", "random" or "intra"; ratio : fraction of each older template pruned, in [0, 1).
    seed : for the random pruning baseline.

    Example
    -------
    >>> import numpy as np
    >>> from iclr26.science.fartrack import ARTracker, Tracker
    >>> tr = Tracker(ARTracker().eval())
    >>> tr.initialize(np.zeros((96, 96, 3), np.uint8), np.array([40.0, 40.0, 12.0, 10.0]))
    >>> tr.track(np.zeros((96, 96, 3), np.uint8)).shape
    (4,)
    """

    def __init__(
        self,
        model: ARTracker,
        n_templates: int = 1,
        template_factor: float = 2.0,
        search_factor: float = 4.0,
        prune: str | None = None,
        ratio: float = 0.5,
        seed: int = 0,
    ) -> None:
        if not isinstance(model, ARTracker):
            raise TypeError(f"model must be an ARTracker, got {type(model).__name__}")
        self.model = model
        self.n_templates = check_int("n_templates", n_templates, low=1, high=model.max_templates)
        self.template_factor = check_float("template_factor", template_factor, low=0.0, low_open=True)
        self.search_factor = check_float("search_factor", search_factor, low=0.0, low_open=True)
        self.prune = check_choice("prune", prune, (None, "inter", "random", "intra"))
        self.sparsifier = InterFrameSparsifier(ratio, search_grid=model.search_size // model.patch)
        self.generator = torch.Generator().manual_seed(int(seed))
        self.state: torch.Tensor | None = None

    # ------------------------------------------------------------------------------------------------ api
    @torch.inference_mode()
    def initialize(self, frame: np.ndarray | torch.Tensor, box: np.ndarray | torch.Tensor) -> None:
        """Start tracking: frame (H, W, 3) [or (B, H, W, 3)], box (x, y, w, h) [or (B, 4)] in pixels."""
        x, batched = frames_to_tensor(frame)
        b = torch.as_tensor(np.asarray(box, dtype=np.float32) if not isinstance(box, torch.Tensor) else box)
        check_box("box", b.float())
        b = b.float().reshape(-1, 4)
        if b.shape[0] != x.shape[0]:
            raise ValueError(f"box must hold one box per frame: {x.shape[0]} frames, got {b.shape[0]} boxes")
        self.batched = batched
        self.state = b
        self.stored = [self._template(x, b)]
        self.store_mask: list[torch.Tensor] = []
        self.frame_id = 0

    @torch.inference_mode()
    def track(self, frame: np.ndarray | torch.Tensor) -> np.ndarray:
        """Predict the box (x, y, w, h) in this frame [(B, 4) when batched]; it lies inside the frame."""
        if self.state is None:
            raise RuntimeError("call initialize(frame, box) before track(frame)")
        x, batched = frames_to_tensor(frame)
        if x.shape[0] != self.state.shape[0] or batched != self.batched:
            raise ValueError(f"frame batch {tuple(x.shape)} does not match the initialised batch")
        H, W = x.shape[-2:]
        self.frame_id += 1
        window = crop_window(self.state, self.search_factor)
        search = normalize(crop(x, window, self.model.search_size))
        idx = self._indices()
        templates = torch.stack([self.stored[i] for i in idx], dim=1)
        logits = self._forward(templates, search, idx)
        n = self.model.bins * self.model.coord_range
        tokens = logits[:, :, :n].argmax(-1)
        xyxy = dequantize(tokens, self.model.bins, self.model.coord_range)
        xyxy = torch.cat(
            [torch.minimum(xyxy[:, :2], xyxy[:, 2:]), torch.maximum(xyxy[:, :2], xyxy[:, 2:])], 1
        )
        self.state = clip_to_frame(crop_to_box(xyxy, window), int(H), int(W))
        self.stored.append(self._template(x, self.state))
        out = self.state.numpy().copy()
        return out if batched else out[0]

    # ------------------------------------------------------------------------------------------- internals
    def _template(self, x: torch.Tensor, box: torch.Tensor) -> torch.Tensor:
        return normalize(crop(x, crop_window(box, self.template_factor), self.model.template_size))

    def _indices(self) -> list[int]:
        """Stored-template indices of the L queue positions (official ``template_update_sampling``)."""
        L, count = self.n_templates, len(self.stored)
        if L == 1:
            return [0]
        if count < L:
            return [min(max(0, p - (L - count)), count - 1) for p in range(L)]
        return [0] + [int((count - 1) * (1 - 0.7**i)) for i in range(1, L - 1)] + [count - 1]

    def _forward(self, templates: torch.Tensor, search: torch.Tensor, idx: list[int]) -> torch.Tensor:
        m, B, L, n_t = self.model, templates.shape[0], templates.shape[1], self.model.n_z
        if self.prune is None or L == 1:
            return m(templates, search)[-1]
        if self.prune == "intra":  # first pass for the scores, second pass with the mask: the cost baseline
            m(templates, search)
            mask = self.sparsifier.update(m.attention_maps(), L)
            return m(templates, search, key_padding_mask=mask, drop=True)[-1]
        if self.prune == "random":
            mask = random_prune_mask(B, L, n_t, self.sparsifier.ratio, self.generator)
            return m(templates, search, key_padding_mask=mask, drop=True)[-1]
        parts = []  # inter-frame: masks decided when each template was the newest
        for pos, i in enumerate(idx):
            if pos < L - 1 and i < len(self.store_mask):
                parts.append(self.store_mask[i])
            else:
                parts.append(torch.zeros(B, n_t, dtype=torch.bool))
        mask = torch.cat(parts, dim=1)  # lockstep rows prune the same count, so the tokens can be dropped
        out = m(templates, search, key_padding_mask=mask, drop=True)[-1]
        self.store_mask.append(self._newest_mask(mask, n_t))
        return out

    def _newest_mask(self, mask: torch.Tensor, n_t: int) -> torch.Tensor:
        """Mask of the newest template from this pass's attention (computed over the kept tokens; the newest
        template is kept in full and sits just before the search tokens)."""
        a = self.model.attention_maps().mean(dim=(0, 2))  # (B, N_kept, N_kept)
        kept = mask.shape[1] - int(mask[0].sum())
        g = self.sparsifier.search_grid
        row = kept + (g // 2) * g + g // 2
        scores = a[:, row, kept - n_t : kept].reshape(a.shape[0], 1, n_t)
        return self.sparsifier.mask_from_scores(scores, prune_newest=True)
