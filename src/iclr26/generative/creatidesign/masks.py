"""The multimodal attention mask of CreatiDesign: which token of the joint sequence may attend to which.

The joint sequence is ``[prompt | layout | subjects | image]``: ``n_prompt`` prompt tokens, ``layout_tokens``
tokens per layout element, ``subject_tokens`` tokens per subject, then the ``H x W`` noisy-image tokens in
row-major order. An image token *lies in* a normalised box ``(l, t, w, h)`` when the centre of its patch does
(the official code resizes the pixel box mask to the token grid with nearest sampling, which reads the same
point). ``mask[i, j] = True`` means token ``i`` (query) may attend to token ``j`` (key), the convention of
:func:`torch.nn.functional.scaled_dot_product_attention` with a boolean ``attn_mask``.

:class:`MaskRules` switches each rule; ``MaskRules()`` is the brief's rule set, :meth:`MaskRules.official` the
asymmetries of the official code (HuiZhang0812/CreatiDesign, ``transformer_flux_creatidesign.py``), and
:meth:`MaskRules.full` allows everything (the "without mask" baseline). Every row keeps at least its own
token, so a masked softmax never sees an empty row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from iclr26.checks import check_bool, check_int
from iclr26.lab.vision import Box, as_box

__all__ = ["MaskRules", "box_token_mask", "build_multimodal_attention_mask", "sequence_layout"]


@dataclass(frozen=True)
class MaskRules:
    """Switches of the multimodal attention mask (each True restricts or allows what its name says).

    regional_layout : image <-> layout attention only inside the element's box (False: every image token and
        every layout token see each other).
    regional_subject : image <-> subject attention only inside the subject's region (False: global).
    isolate_conditions : a layout element or subject attends only to its own group among condition tokens
        (False: every condition token attends to every other condition token).
    layout_to_prompt, subject_to_prompt : condition tokens may read the prompt.
    prompt_to_layout, prompt_to_subject : prompt tokens may read condition tokens (this lets the prompt relay
        every condition to every image token one layer later).
    image_to_prompt, prompt_to_image : prompt <-> image attention.
    """

    regional_layout: bool = True
    regional_subject: bool = True
    isolate_conditions: bool = True
    layout_to_prompt: bool = True
    subject_to_prompt: bool = False
    prompt_to_layout: bool = False
    prompt_to_subject: bool = False
    image_to_prompt: bool = True
    prompt_to_image: bool = True

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            check_bool(f"MaskRules.{name}", getattr(self, name))

    @classmethod
    def official(cls) -> MaskRules:
        """The official code's mask: layout and subject rows read no prompt; prompt rows read subjects (inside
        the subject mask, which here is the whole subject image) but not layout tokens."""
        return cls(
            layout_to_prompt=False, subject_to_prompt=False, prompt_to_layout=False, prompt_to_subject=True
        )

    @classmethod
    def full(cls) -> MaskRules:
        """Every token attends to every token (global attention over the concatenated conditions)."""
        return cls(
            regional_layout=False,
            regional_subject=False,
            isolate_conditions=False,
            layout_to_prompt=True,
            subject_to_prompt=True,
            prompt_to_layout=True,
            prompt_to_subject=True,
        )


def _check_grid(grid_hw: object) -> tuple[int, int]:
    if not isinstance(grid_hw, Sequence) or len(grid_hw) != 2:
        raise ValueError(f"grid_hw must be (rows, cols) of the image token grid, got {grid_hw!r}")
    return check_int("grid_hw rows", grid_hw[0], 1), check_int("grid_hw cols", grid_hw[1], 1)


def box_token_mask(box: Box | Sequence[float], grid_hw: Sequence[int]) -> torch.Tensor:
    """Boolean ``(H * W,)``: the image tokens (row-major) whose patch centre lies in the normalised `box`."""
    b = as_box(box)
    rows, cols = _check_grid(grid_hw)
    cy = (torch.arange(rows, dtype=torch.float64) + 0.5) / rows
    cx = (torch.arange(cols, dtype=torch.float64) + 0.5) / cols
    iny = (cy >= b.top) & (cy < b.top + b.height)
    inx = (cx >= b.left) & (cx < b.left + b.width)
    return (iny[:, None] & inx[None, :]).reshape(-1)


def sequence_layout(
    n_prompt: int,
    n_layout: int,
    n_subjects: int,
    grid_hw: Sequence[int],
    layout_tokens: int,
    subject_tokens: int,
) -> dict[str, slice | list[slice]]:
    """Slices of the joint sequence: ``prompt``, ``layout`` (one per element), ``subjects`` (one per subject),
    ``image``; ``total`` holds ``slice(0, S)``."""
    rows, cols = _check_grid(grid_hw)
    pos = n_prompt
    layout = []
    for _ in range(n_layout):
        layout.append(slice(pos, pos + layout_tokens))
        pos += layout_tokens
    subjects = []
    for _ in range(n_subjects):
        subjects.append(slice(pos, pos + subject_tokens))
        pos += subject_tokens
    return {
        "prompt": slice(0, n_prompt),
        "layout": layout,
        "subjects": subjects,
        "image": slice(pos, pos + rows * cols),
        "total": slice(0, pos + rows * cols),
    }


def build_multimodal_attention_mask(
    n_prompt: int,
    layout_boxes: Sequence[Box | Sequence[float]],
    subject_regions: Sequence[Box | Sequence[float]],
    grid_hw: Sequence[int],
    rules: MaskRules | None = None,
    *,
    layout_tokens: int = 1,
    subject_tokens: int = 1,
    max_elements: int | None = None,
) -> torch.Tensor:
    """Boolean ``(S, S)`` attention mask of the joint sequence ``[prompt | layout | subjects | image]``.

    Parameters
    ----------
    n_prompt : number of prompt tokens (>= 0).
    layout_boxes : normalised ``(l, t, w, h)`` box of each layout element.
    subject_regions : normalised region of each subject.
    grid_hw : ``(H, W)`` of the noisy-image token grid.
    rules : :class:`MaskRules` (default: the brief's rule set).
    layout_tokens, subject_tokens : tokens per layout element / per subject.
    max_elements : refuse more layout elements + subjects than this (None: no limit).

    With the default rules (``mask[i, j]``: query ``i`` may read key ``j``):

    * image token u reads the prompt, every image token, layout element k iff u lies in box_k, subject j iff
      u lies in region_j;
    * layout element k reads its own tokens, the prompt, and the image tokens inside box_k;
    * subject j reads its own tokens and the image tokens inside region_j;
    * prompt tokens read the prompt and every image token.
    """
    n_prompt = check_int("n_prompt", n_prompt, 0)
    rules = MaskRules() if rules is None else rules
    if not isinstance(rules, MaskRules):
        raise ValueError(f"rules must be a MaskRules, got {type(rules).__name__}")
    layout_tokens = check_int("layout_tokens", layout_tokens, 1)
    subject_tokens = check_int("subject_tokens", subject_tokens, 1)
    boxes = [as_box(b, f"layout_boxes[{i}]") for i, b in enumerate(layout_boxes)]
    regions = [as_box(b, f"subject_regions[{i}]") for i, b in enumerate(subject_regions)]
    if max_elements is not None:
        max_elements = check_int("max_elements", max_elements, 0)
        if len(boxes) + len(regions) > max_elements:
            raise ValueError(
                f"layout_boxes + subject_regions hold {len(boxes)} + {len(regions)} elements, more than "
                f"max_elements={max_elements}"
            )
    sl = sequence_layout(n_prompt, len(boxes), len(regions), grid_hw, layout_tokens, subject_tokens)
    size = sl["total"].stop  # type: ignore[union-attr]
    m = torch.zeros(size, size, dtype=torch.bool)
    p, img = sl["prompt"], sl["image"]
    m[p, p] = True
    m[img, img] = True
    m[img, p] = rules.image_to_prompt
    m[p, img] = rules.prompt_to_image
    groups = [
        (s, box_token_mask(b, grid_hw), rules.regional_layout, "layout") for s, b in zip(sl["layout"], boxes)
    ]
    groups += [
        (s, box_token_mask(b, grid_hw), rules.regional_subject, "subject")
        for s, b in zip(sl["subjects"], regions)
    ]
    cond_start = n_prompt
    cond_stop = img.start  # type: ignore[union-attr]
    for s, inside, regional, kind in groups:
        m[s, s] = True
        if not rules.isolate_conditions:
            m[s, cond_start:cond_stop] = True
        region = inside if regional else torch.ones_like(inside)
        m[s, img] = region[None, :]
        m[img, s] = region[:, None]
        to_prompt = rules.layout_to_prompt if kind == "layout" else rules.subject_to_prompt
        from_prompt = rules.prompt_to_layout if kind == "layout" else rules.prompt_to_subject
        m[s, p] = to_prompt
        m[p, s] = from_prompt
    return m
