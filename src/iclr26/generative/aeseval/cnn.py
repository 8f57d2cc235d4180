"""Tiny CNN backends trained on the synthetic train split: image-level labels versus indicator-grounded targets.

The offline analogue of AesEval-Train's claim that indicator-grounded supervision (labels tied to the region that
has the issue) helps a model judge and localise. Two small CNNs see the same designs and indicator ids:

* ``ImageLevelCNN`` is trained on the image-level yes/no label only. It is fully convolutional: a map of one logit
  per indicator over a 16 x 16 grid of the 128 x 128 preview (each cell also sees the globally pooled features),
  and the image logit is the map's spatial maximum (multiple-instance pooling), so the map is a class-activation
  map from which an element's score is read (the maximum over the cells its box covers).
* ``ElementCNN`` is trained on per-element targets (1 for the element the perturbation changed, 0 for every other
  element): for each element, a 64 x 64 crop of it (with a quarter of its size as context) and the 64 x 64 preview
  with the element's box as a fourth channel, through two small towers and a head that reads the indicator.

:class:`TinyCNNBackend` answers all three tasks from either model with one rule: ``p_issue`` (the image
probability, or the largest element probability) decides yes/no, and ``None`` in choice and bbox mode when
``p_issue <= 0.5``; otherwise the option or element with the highest element score is chosen. The element boxes
come from the sample's metadata (the harness's ``observe``) as region proposals, for both models alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch import nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor, check_token_ids
from iclr26.generative.aeseval.backends import format_box, indicator_of, option_boxes, task_of
from iclr26.generative.aeseval.designs import OFFLINE_INDICATORS, AesEvalSample
from iclr26.lab.vision import Box, VLMBackend, image_fingerprint

__all__ = ["ElementCNN", "ImageLevelCNN", "TinyCNNBackend", "element_inputs", "train_backend"]

N_IND = len(OFFLINE_INDICATORS)
_NAMES = [k.split("-")[1] for k in OFFLINE_INDICATORS]
SUPERVISION = ("image", "grounded")


def _u8(img: Image.Image, size: int) -> np.ndarray:
    return np.asarray(img.convert("RGB").resize((size, size), Image.Resampling.BILINEAR), dtype=np.uint8)


def _f(x: np.ndarray | torch.Tensor) -> torch.Tensor:
    """uint8 ``(N, H, W, C)`` as float ``(N, C, H, W)`` in [0, 1]."""
    t = torch.from_numpy(np.array(x, dtype=np.uint8, copy=True))
    return t.permute(0, 3, 1, 2).float() / 255.0


class ImageLevelCNN(nn.Module):
    """``(N, 3, 128, 128) -> (N, 9, 16, 16)`` logit maps, one per offline indicator."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        w = check_int("width", width, 4, 512)
        self.body = nn.Sequential(
            nn.Conv2d(3, w, 4, stride=4), nn.BatchNorm2d(w), nn.GELU(),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.GELU(),
            nn.Conv2d(2 * w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.GELU(),
        )  # fmt: skip
        self.head = nn.Conv2d(4 * w, N_IND, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, ndim=4, floating=True, shape=(None, 3, None, None))
        f = self.body(x)
        g = f.mean(dim=(2, 3), keepdim=True).expand_as(f)  # global context at every cell
        return self.head(torch.cat([f, g], dim=1))

    def image_logit(self, x: torch.Tensor, ind: torch.Tensor) -> torch.Tensor:
        maps = self(x)[torch.arange(len(ind)), ind]
        return maps.flatten(1).amax(dim=1)


def _tower(cin: int, w: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, w, 4, stride=4), nn.BatchNorm2d(w), nn.GELU(),
        nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.GELU(),
        nn.Conv2d(2 * w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.GELU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    )  # fmt: skip


class ElementCNN(nn.Module):
    """``(crop (N, 3, 64, 64), context (N, 4, 64, 64), indicator (N,)) -> (N,)`` element-issue logits."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = check_int("width", width, 4, 512)
        self.crop, self.context = _tower(3, w), _tower(4, w)
        self.head = nn.Sequential(nn.Linear(4 * w + N_IND, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, crop: torch.Tensor, context: torch.Tensor, ind: torch.Tensor) -> torch.Tensor:
        check_tensor("crop", crop, ndim=4, floating=True, shape=(None, 3, None, None))
        n = crop.shape[0]
        check_tensor("context", context, floating=True, shape=(n, 4, None, None))
        check_token_ids("ind", check_tensor("ind", ind, shape=(n,)), N_IND)
        one_hot = nn.functional.one_hot(ind, N_IND).float()
        return self.head(torch.cat([self.crop(crop), self.context(context), one_hot], dim=1)).squeeze(1)


def element_inputs(
    image: Image.Image, boxes: Sequence[Box], small: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """uint8 crops ``(E, 64, 64, 3)`` (each box grown by a quarter of its size, clipped) and contexts
    ``(E, 64, 64, 4)`` (the 64 x 64 preview and the box mask) for the boxes of one image."""
    W, H = image.size
    small = _u8(image, 64) if small is None else small
    crops, ctx = [], []
    for b in boxes:
        pw, ph = b.width / 4, b.height / 4
        x0, y0 = max(0.0, b.left - pw) * W, max(0.0, b.top - ph) * H
        x1, y1 = min(1.0, b.right + pw) * W, min(1.0, b.bottom + ph) * H
        crop = image.crop(
            (int(x0), int(y0), max(int(x0) + 1, int(round(x1))), max(int(y0) + 1, int(round(y1))))
        )
        crops.append(_u8(crop, 64))
        mask = np.zeros((64, 64, 1), dtype=np.uint8)
        mx0, my0, mx1, my1 = b.to_pixels(64)
        mask[my0:my1, mx0:mx1] = 255
        ctx.append(np.concatenate([small, mask], axis=-1))
    return np.stack(crops), np.stack(ctx)


def _boxes(sample: AesEvalSample) -> list[Box]:
    return [sample.box(e["element_index"]) for e in sample.elements]


def _key_index(key: str) -> int:
    return OFFLINE_INDICATORS.index(key)


def train_backend(
    split: Sequence[AesEvalSample],
    supervision: str,
    *,
    epochs: int = 6,
    seed: int = 0,
    lr: float = 3e-3,
    batch: int = 32,
) -> TinyCNNBackend:
    """Train a CNN on ``split`` with ``"image"`` (yes/no per sample) or ``"grounded"`` (per-element) targets.

    Samples asked about an indicator outside the nine offline ones are skipped. Returns the backend (final
    training loss in ``backend.train_loss``).
    """
    check_choice("supervision", supervision, SUPERVISION)
    epochs = check_int("epochs", epochs, 1)
    lr = check_float("lr", lr, 0.0, low_open=True)
    torch.manual_seed(check_int("seed", seed, 0))
    rng = np.random.default_rng(seed)
    rows = [(s, k, v) for s in split for k, v in s.gt.items() if k in OFFLINE_INDICATORS]
    if not rows:
        raise ValueError("split has no sample asked about one of the nine offline indicators")
    if supervision == "image":
        model: nn.Module = ImageLevelCNN()
        x = np.stack([_u8(s.image, 128) for s, _, _ in rows])
        ind = torch.tensor([_key_index(k) for _, k, _ in rows])
        y = torch.tensor([float(bool(v)) for _, _, v in rows])
        inputs: tuple[Any, ...] = (x,)
    else:
        model = ElementCNN()
        crops, ctxs, inds, ys = [], [], [], []
        for s, k, v in rows:
            c, g = element_inputs(s.image, _boxes(s))
            target = v[0]["element_index"] if v else None
            crops.append(c)
            ctxs.append(g)
            inds += [_key_index(k)] * len(c)
            ys += [float(e["element_index"] == target) for e in s.elements]
        inputs = (np.concatenate(crops), np.concatenate(ctxs))
        ind, y = torch.tensor(inds), torch.tensor(ys)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    n = len(y)
    steps = epochs * -(-n // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = nn.BCEWithLogitsLoss()
    losses = []
    model.train()
    for _ in range(epochs):
        order = rng.permutation(n)
        for i in range(0, n, batch):
            j = order[i : i + batch]
            if supervision == "image":
                logit = model.image_logit(_f(inputs[0][j]), ind[j])
            else:
                logit = model(_f(inputs[0][j]), _f(inputs[1][j]), ind[j])
            loss = loss_fn(logit, y[j])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
    backend = TinyCNNBackend(model.eval())
    backend.train_loss = float(np.mean(losses[-max(1, len(losses) // epochs) :]))
    return backend


class TinyCNNBackend(VLMBackend):
    """A trained :class:`ImageLevelCNN` or :class:`ElementCNN` answering AesEval questions (see the module text).

    ``threshold`` is the issue probability above which it answers yes / names a region (0.5: the Bayes rule for
    a calibrated probability).
    """

    def __init__(self, model: nn.Module, threshold: float = 0.5) -> None:
        if not isinstance(model, (ImageLevelCNN, ElementCNN)):
            raise ValueError(f"model must be an ImageLevelCNN or ElementCNN, got {type(model).__name__}")
        self.model = model.eval()
        self.threshold = check_float("threshold", threshold, 0.0, 1.0)
        self.name = "cnn-image" if isinstance(model, ImageLevelCNN) else "cnn-grounded"
        self.sample: AesEvalSample | None = None
        self.train_loss = float("nan")
        self._cache: dict[tuple[str, int], tuple[float, list[float], list[Box]]] = {}

    def observe(self, sample: AesEvalSample) -> None:
        self.sample = sample

    @torch.no_grad()
    def _box_scores(self, image: Image.Image, boxes: list[Box], ind: int) -> tuple[float, list[float]]:
        if isinstance(self.model, ImageLevelCNN):
            m = torch.sigmoid(self.model(_f(_u8(image, 128)[None]))[0, ind]).numpy()
            scores = []
            for b in boxes:
                x0, y0 = int(b.left * 16), int(b.top * 16)
                x1, y1 = max(x0 + 1, int(np.ceil(b.right * 16))), max(y0 + 1, int(np.ceil(b.bottom * 16)))
                scores.append(float(m[y0:y1, x0:x1].max()))
            return float(m.max()), scores
        c, g = element_inputs(image, boxes)
        p = torch.sigmoid(self.model(_f(c), _f(g), torch.full((len(boxes),), ind))).numpy()
        return float(p.max()), [float(v) for v in p]

    def _scores(self, image: Image.Image, ind: int) -> tuple[float, list[float], list[Box]]:
        key = (image_fingerprint(image), ind)
        if key not in self._cache:
            if self.sample is None:
                raise RuntimeError(f"{self.name} has observed no sample (use it through AesEvalHarness)")
            boxes = _boxes(self.sample)
            self._cache = {key: (*self._box_scores(image, boxes, ind), boxes)}
        return self._cache[key]

    def predict(
        self, image: Any, question: str, *, choices: Sequence[str] | None = None, max_tokens: int = 64
    ):
        mode = task_of(question)
        name = indicator_of(question)
        if name not in _NAMES:
            return {"text-preview": "no", "text-preview-bbox": "None"}.get(mode, "A")
        ind = _NAMES.index(name)
        p_issue, scores, boxes = self._scores(image, ind)
        issue = p_issue > self.threshold
        if mode == "text-preview":
            return "yes" if issue else "no"
        if mode == "text-preview-bbox":
            return format_box(boxes[int(np.argmax(scores))].as_tuple()) if issue else "None"
        opts = option_boxes(choices)
        if not issue and None in opts:
            return "ABCD"[opts.index(None)]
        W, H = image.size
        cand = [(i, Box(o[0] / W, o[1] / H, o[2] / W, o[3] / H)) for i, o in enumerate(opts) if o is not None]
        if not cand:
            return "A"
        _, s = self._box_scores(image, [b for _, b in cand], ind)
        return "ABCD"[cand[int(np.argmax(s))][0]]
