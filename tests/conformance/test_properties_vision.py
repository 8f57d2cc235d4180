"""Property-based battery (hypothesis) over lab.vision's documented argument ranges: boxes, IoU, WCAG contrast,
hue distance, option matching and the reference backends. Deterministic (``derandomize``), like the main battery."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from iclr26.lab.vision import (
    Box,
    Element,
    OracleBackend,
    VQAItem,
    as_box,
    contrast_ratio,
    element_mask,
    evaluate,
    hue_distance,
    iou,
    match_choice,
)

FAST = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
unit = st.floats(0.0, 1.0, allow_nan=False)
channel = st.integers(0, 255)
rgb = st.tuples(channel, channel, channel)


@st.composite
def boxes(draw):
    left, top = draw(st.floats(0.0, 0.9)), draw(st.floats(0.0, 0.9))
    width = draw(st.floats(0.01, 1.0 - left))
    height = draw(st.floats(0.01, 1.0 - top))
    return Box(left, top, width, height)


@FAST
@given(a=boxes(), b=boxes())
def test_iou_is_a_symmetric_similarity_in_unit_interval(a, b):
    v = iou(a, b)
    assert 0.0 <= v <= 1.0 + 1e-12
    assert v == pytest.approx(iou(b, a))
    assert iou(a, a) == pytest.approx(1.0)


@FAST
@given(left=unit, top=unit, width=st.floats(-1.0, 2.0), height=st.floats(-1.0, 2.0))
def test_box_accepts_exactly_the_unit_canvas(left, top, width, height):
    inside = width > 0 and height > 0 and left + width <= 1 + 1e-6 and top + height <= 1 + 1e-6
    if inside:
        assert as_box((left, top, width, height)).width == width
    else:
        with pytest.raises(ValueError, match="gt box"):
            as_box((left, top, width, height), "gt box")


@FAST
@given(fg=rgb, bg=rgb)
def test_contrast_ratio_is_symmetric_within_wcag_range(fg, bg):
    c = contrast_ratio(fg, bg)
    assert 1.0 <= c <= 21.0 + 1e-9
    assert c == contrast_ratio(bg, fg)


@FAST
@given(h1=st.floats(-720, 720), h2=st.floats(-720, 720))
def test_hue_distance_is_an_angle_in_0_180(h1, h2):
    d = hue_distance(h1, h2)
    assert 0.0 <= d <= 180.0 and d == pytest.approx(hue_distance(h2, h1), abs=1e-9)


@FAST
@given(
    k=st.integers(2, 6),
    pick=st.integers(0, 5),
    style=st.sampled_from(["{L}", "({L})", "Answer: {L}.", "{T}"]),
)
def test_match_choice_finds_a_named_option(k, pick, style):
    choices = tuple(f"option {w}" for w in ("red", "green", "blue", "gold", "grey", "teal")[:k])
    i = pick % k
    reply = style.format(L="ABCDEF"[i], T=choices[i])
    assert match_choice(reply, choices) == i


@FAST
@given(box=boxes(), fill=rgb)
def test_rect_mask_is_its_pixel_box(box, fill):
    el = Element("rect", box, fill=fill)
    x0, y0, x1, y1 = box.to_pixels(32)
    m = element_mask(el, 32)
    assert m.sum() == (x1 - x0) * (y1 - y0)


@FAST
@given(n=st.integers(1, 12), seed=st.integers(0, 1000))
def test_oracle_scores_every_split_perfectly(n, seed):
    items = []
    for i in range(n):
        img = Image.new("RGB", (4, 4), ((seed + i) % 256, i, 3))
        items.append(VQAItem(f"i{i}", img, "q?", "b" if (seed + i) % 2 else "a", ("a", "b", "c")))
    assert evaluate(OracleBackend(items), items).accuracy == 1.0
