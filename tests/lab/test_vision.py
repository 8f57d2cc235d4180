"""lab.vision: boxes and IoU against hand cases, WCAG contrast against its definition, the renderer's determinism
and exact masks, split validation errors, and the reference backends' scores (oracle 100%, random and text-only at
chance)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from iclr26.lab.vision import (
    Box,
    Element,
    MajorityBackend,
    OracleBackend,
    RandomBackend,
    TextOnlyBackend,
    TransformersVLMBackend,
    VLMBackend,
    VQAItem,
    as_box,
    contrast_ratio,
    element_mask,
    evaluate,
    hue,
    hue_distance,
    images_to_tensor,
    iou,
    load_image,
    match_choice,
    pixel_box,
    register_kind,
    relative_luminance,
    render_design,
    strip_reasoning,
    tile_panels,
    validate_split,
    visible_mask,
    within_chance,
)


def test_iou_hand_cases_and_symmetry():
    a = Box(0.1, 0.1, 0.4, 0.4)
    assert iou(a, a) == 1.0
    assert iou(a, Box(0.6, 0.6, 0.2, 0.2)) == 0.0
    assert iou(Box(0, 0, 0.4, 0.2), Box(0.2, 0, 0.4, 0.2)) == pytest.approx(1 / 3)
    assert iou(Box(0, 0, 0.2, 0.2), Box(0.2, 0, 0.2, 0.2)) == 0.0  # touching edges
    inner = Box(0.2, 0.2, 0.1, 0.1)
    assert iou(a, inner) == pytest.approx(0.01 / 0.16)
    rng = np.random.default_rng(0)
    for _ in range(50):
        x = rng.uniform(0, 0.5, 4)
        b, c = Box(x[0], x[1], x[2] + 0.01, x[3] + 0.01), Box(x[1], x[0], x[3] + 0.02, x[2] + 0.02)
        assert iou(b, c) == pytest.approx(iou(c, b))
        assert 0.0 <= iou(b, c) <= 1.0


def test_iou_against_pixel_count():
    canvas = 200
    a, b = Box(0.1, 0.2, 0.5, 0.3), Box(0.3, 0.1, 0.4, 0.6)
    ma, mb = np.zeros((canvas, canvas), bool), np.zeros((canvas, canvas), bool)
    for m, bx in ((ma, a), (mb, b)):
        x0, y0, x1, y1 = bx.to_pixels(canvas)
        m[y0:y1, x0:x1] = True
    assert iou(a, b) == pytest.approx((ma & mb).sum() / (ma | mb).sum(), abs=1e-9)


@pytest.mark.parametrize(
    "bad",
    [
        (0, 0, 0, 0.5),
        (0.8, 0, 0.5, 0.5),
        (-0.1, 0, 0.2, 0.2),
        (0, 0, 0.2),
        "0,0,1,1",
        (0, 0, float("nan"), 0.1),
    ],
)
def test_malformed_boxes_are_named_errors(bad):
    with pytest.raises(ValueError, match="gt box"):
        as_box(bad, "gt box")


def test_pixel_box_normalises_and_clips():
    assert pixel_box(10, 20, 30, 40, (100, 200)).as_tuple() == pytest.approx((0.1, 0.1, 0.3, 0.2))
    assert pixel_box(90, 0, 30, 10, (100, 100)).width == pytest.approx(0.1)


def test_wcag_contrast_matches_definition():
    assert relative_luminance((255, 255, 255)) == pytest.approx(1.0)
    assert relative_luminance((0, 0, 0)) == 0.0
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((255, 255, 255), (0, 0, 0)) == contrast_ratio((0, 0, 0), (255, 255, 255))
    # WCAG's published example: #777777 on white is about 4.48
    assert contrast_ratio((0x77, 0x77, 0x77), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    assert hue((255, 0, 0)) == 0.0 and hue((0, 255, 0)) == pytest.approx(120.0)
    assert hue_distance(10, 350) == 20.0 and hue_distance(0, 180) == 180.0
    with pytest.raises(ValueError, match="rgb"):
        relative_luminance((256, 0, 0))


def _design():
    return [
        Element("gradient", Box(0, 0, 1, 0.3), fill=(20, 40, 200), outline=(200, 220, 255)),
        Element("photo", Box(0.1, 0.35, 0.4, 0.4), fill=(120, 90, 60), seed=3),
        Element("text", Box(0.1, 0.05, 0.8, 0.2), fill=(0, 0, 0), text="Sale", font_size=0.12, z=2),
        Element("ellipse", Box(0.3, 0.5, 0.5, 0.4), fill=(250, 200, 0), z=1),
        Element("triangle", Box(0.6, 0.1, 0.3, 0.3), fill=(0, 150, 0)),
    ]


def test_render_is_deterministic_and_respects_order():
    els = _design()
    a, b = render_design(els, canvas=(96, 64)), render_design(els, canvas=(96, 64))
    assert a.size == (96, 64) and a.tobytes() == b.tobytes()
    # the ellipse (z=1) is drawn over the photo (z=0) where they overlap
    m = visible_mask(els, 1, (96, 64))
    assert 0 < m.sum() < element_mask(els[1], (96, 64)).sum()
    ys, xs = np.nonzero(element_mask(els[3], (96, 64)) & element_mask(els[1], (96, 64)))
    assert a.getpixel((int(xs[0]), int(ys[0]))) == (250, 200, 0)
    # a rectangle's mask is exactly its pixel box
    r = Element("rect", Box(0.25, 0.25, 0.5, 0.25), fill=(1, 2, 3))
    mask = element_mask(r, 64)
    x0, y0, x1, y1 = r.box.to_pixels(64)
    assert mask.sum() == (x1 - x0) * (y1 - y0) and mask[y0:y1, x0:x1].all()


def test_text_mask_lies_in_its_box_and_grows_with_font():
    small = Element("text", Box(0.05, 0.05, 0.9, 0.5), text="Hello", font_size=0.08)
    big = small.replace(font_size=0.2)
    ms, mb = element_mask(small, 128), element_mask(big, 128)
    assert 0 < ms.sum() < mb.sum()
    ys, xs = np.nonzero(mb)
    assert ys.min() >= 6 and xs.min() >= 6


def test_register_kind_and_element_errors():
    def cross(img, el, xy):
        from PIL import ImageDraw

        ImageDraw.Draw(img).line([xy[:2], (xy[2] - 1, xy[3] - 1)], fill=el.fill)

    register_kind("test_cross", cross, replace=True)
    img = render_design([Element("test_cross", Box(0, 0, 1, 1), fill=(255, 0, 0))], 16)
    assert img.getpixel((0, 0)) == (255, 0, 0)
    with pytest.raises(ValueError, match="already registered"):
        register_kind("test_cross", cross)
    with pytest.raises(ValueError, match="element kind"):
        Element("hexagon", Box(0, 0, 1, 1))
    with pytest.raises(ValueError, match="element box"):
        Element("rect", (0.5, 0.5, 0.6, 0.1))
    with pytest.raises(ValueError, match="element fill"):
        Element("rect", Box(0, 0, 1, 1), fill=(0, 0))
    with pytest.raises(ValueError, match="non-empty text"):
        Element("text", Box(0, 0, 1, 1))
    with pytest.raises(ValueError, match="canvas"):
        render_design([], canvas=(4, 4))


def test_tile_panels_boxes_locate_panels():
    panels = [Image.new("RGB", (20, 10), (i * 60, 0, 0)) for i in range(4)]
    page, boxes = tile_panels(panels, cols=2, gap=2)
    assert page.size == (2 * 20 + 3 * 2, 2 * 10 + 3 * 2)
    for i, b in enumerate(boxes):
        x0, y0, x1, y1 = b.to_pixels(*page.size)
        assert page.getpixel((x0 + 1, y0 + 1)) == (i * 60, 0, 0)
    with pytest.raises(ValueError, match="share one size"):
        tile_panels([Image.new("RGB", (4, 4)), Image.new("RGB", (5, 4))])


def _split(n=400, k=4, seed=0):
    rng = np.random.default_rng(seed)
    colours = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "white": (255, 255, 255)}
    names = list(colours)[:k]
    items = []
    for i in range(n):
        ans = names[int(rng.integers(k))]
        img = Image.new("RGB", (8, 8), colours[ans])
        img.putpixel((0, 0), (i % 256, i // 256, 7))  # distinct images
        perm = tuple(names[j] for j in rng.permutation(k))
        items.append(VQAItem(f"i{i}", img, "Which colour fills the image?", ans, perm))
    return items


def test_oracle_scores_100_and_random_scores_chance():
    items = _split()
    assert evaluate(OracleBackend(items), items).accuracy == 1.0
    for seed in range(3):
        acc = evaluate(RandomBackend(seed), items).accuracy
        assert within_chance(acc, len(items), 0.25), acc
    assert not within_chance(0.40, 400, 0.25)


def test_text_only_and_majority_cannot_see_the_image():
    train, test = _split(800, seed=1), _split(400, seed=2)
    acc = evaluate(TextOnlyBackend(0).fit(train), test).accuracy
    assert within_chance(acc, len(test), 0.25), acc
    maj = MajorityBackend().fit(train)
    assert within_chance(evaluate(maj, test).accuracy, len(test), 0.25)
    # leakage is detected: when one answer is always right for a question, text-only finds it from the text alone
    const = [VQAItem(it.item_id, it.image, "Q?", "red", it.choices) for it in train]
    assert evaluate(TextOnlyBackend(0).fit(const), const).accuracy == 1.0


def test_evaluate_counts_failures_instead_of_crashing():
    items = _split(6)

    class Flaky(VLMBackend):
        replies = [None, "", 3, "raise", None, "A"]

        def __init__(self):
            self.n = 0

        def predict(self, image, question, *, choices=None, max_tokens=64):
            reply = self.replies[self.n]
            self.n += 1
            if reply == "raise":
                raise RuntimeError("boom")
            return choices[0] if reply is None and self.n == 5 else reply

    rep = evaluate(Flaky(), items)
    assert set(rep.failures) == {"i0", "i1", "i2", "i3"}
    assert "boom" in rep.failures["i3"]
    assert rep.unparsed == []  # "A" and a choice's text both parse
    assert rep.scores[:4].tolist() == [0.0] * 4
    always = evaluate(RandomBackend(0), items, score=lambda it, r: 1.0)
    assert always.unparsed == [] and always.accuracy == 1.0

    class Vague(VLMBackend):
        def predict(self, image, question, *, choices=None, max_tokens=64):
            return "A or B"

    assert evaluate(Vague(), items).unparsed == [it.item_id for it in items]
    credit = evaluate(Flaky(), items, missing_score=lambda it: 0.5)
    assert credit.scores[:4].tolist() == [0.5] * 4 and set(credit.failures) == {"i0", "i1", "i2", "i3"}
    with pytest.raises(ValueError, match="backend"):
        evaluate(object(), items)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("B", 1),
        ("(C)", 2),
        ("Answer: A.", 0),
        ("green", 1),
        ("The answer is blue", 2),
        ("A or B", None),
        ("<think>maybe A</think> C", 2),
        ("", None),
        (None, None),
        ("purple", None),
        ("red and green", None),
    ],
)
def test_match_choice(reply, expected):
    assert match_choice(reply, ("red", "green", "blue", "white")) == expected


def test_strip_reasoning():
    assert strip_reasoning("<think>x\ny</think> yes") == "yes"
    assert strip_reasoning("no <think> unfinished") == "no"


def test_validate_split_names_the_problem(tmp_path):
    items = _split(3)
    assert len(validate_split(items)) == 3
    bad = [
        (VQAItem("a", None, "q", "x", ("x", "y")), "image is missing"),
        (VQAItem("a", tmp_path / "missing.png", "q", "x", ("x", "y")), "no image file"),
        (VQAItem("a", items[0].image, "q", "z", ("x", "y")), "not one of the choices"),
        (VQAItem("a", items[0].image, "q", "x", ("x", "x")), "distinct"),
        (VQAItem("a", items[0].image, " ", "x", ("x", "y")), "question"),
        (VQAItem("a", items[0].image, "q", "x", ("x", "y"), {"boxes": {"gt": (0, 0, 2, 1)}}), "box 'gt'"),
    ]
    for item, msg in bad:
        with pytest.raises((ValueError, FileNotFoundError), match=msg):
            validate_split([item], "test split")
    with pytest.raises(ValueError, match="unique"):
        validate_split([items[0], items[0]])
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    with pytest.raises(ValueError, match="cannot open"):
        load_image(junk)


def test_images_to_tensor_and_transformers_backend_path_error(tmp_path):
    imgs = [Image.new("RGB", (16, 16), (255, 0, 0)), Image.new("RGB", (32, 32), (0, 0, 255))]
    t = images_to_tensor(imgs, size=8)
    assert t.shape == (2, 3, 8, 8) and float(t[0, 0].min()) == 1.0 and float(t[1, 2].min()) == 1.0
    with pytest.raises(FileNotFoundError, match="model_path"):
        TransformersVLMBackend(tmp_path / "nothing")


def test_random_backend_option_choice_is_uniform():
    rb = RandomBackend(0)
    choices = ("a", "b", "c", "d")
    counts = np.zeros(4)
    for _ in range(4000):
        counts[choices.index(rb.predict(None, "q", choices=choices))] += 1
    expected = 1000
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 16.27  # chi-square, 3 dof, p = 0.001
