"""Oracle tests of the CreatiDesign components (arXiv 2505.19114): the multimodal attention mask against a dense
reference built here, its invariants, the DiT's padding and locality, the data and the evaluators."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from iclr26.generative.creatidesign import (
    CropClassifier,
    MaskRules,
    MultiConditionDiT,
    ProceduralDesignDataset,
    background_accuracy,
    box_token_mask,
    build_multimodal_attention_mask,
    crop_boxes,
    fourier_box_embedding,
    frechet_distance,
    layout_scores,
    rectified_flow_loss,
    sample_euler,
    subject_fidelity,
)
from iclr26.generative.creatidesign.claim_check import mask_gain_decider
from iclr26.generative.creatidesign.data import VOCAB, Design
from iclr26.harness.claims import Outcome
from iclr26.lab.vision import Box

torch.set_num_threads(1)


# ---------------------------------------------------------------- the dense reference mask


def _inside(box, r, c, grid):
    cy, cx = (r + 0.5) / grid[0], (c + 0.5) / grid[1]
    return box[0] <= cx < box[0] + box[2] and box[1] <= cy < box[1] + box[3]


def _reference(n_prompt, boxes, regions, grid, rules, lt=1, st=1):
    """Token-by-token, from the rules' wording (no slicing shared with the builder)."""
    kinds = [("prompt", None)] * n_prompt
    for k in range(len(boxes)):
        kinds += [("layout", k)] * lt
    for j in range(len(regions)):
        kinds += [("subject", j)] * st
    cells = [(r, c) for r in range(grid[0]) for c in range(grid[1])]
    kinds += [("image", rc) for rc in cells]
    s = len(kinds)
    m = np.zeros((s, s), dtype=bool)

    def cond_box(kind, idx):
        return boxes[idx] if kind == "layout" else regions[idx]

    for i, (ki, ai) in enumerate(kinds):
        for j, (kj, aj) in enumerate(kinds):
            if i == j:
                ok = True
            elif ki == "prompt":
                ok = {
                    "prompt": True,
                    "image": rules.prompt_to_image,
                    "layout": rules.prompt_to_layout,
                    "subject": rules.prompt_to_subject,
                }[kj]
            elif ki == "image":
                if kj in ("prompt",):
                    ok = rules.image_to_prompt
                elif kj == "image":
                    ok = True
                else:
                    regional = rules.regional_layout if kj == "layout" else rules.regional_subject
                    ok = (not regional) or _inside(cond_box(kj, aj), *ai, grid)
            else:  # a condition token
                if kj == "prompt":
                    ok = rules.layout_to_prompt if ki == "layout" else rules.subject_to_prompt
                elif kj == "image":
                    regional = rules.regional_layout if ki == "layout" else rules.regional_subject
                    ok = (not regional) or _inside(cond_box(ki, ai), *aj, grid)
                else:
                    ok = (ki, ai) == (kj, aj) or not rules.isolate_conditions
            m[i, j] = ok
    return m


_RULE_SETS = [MaskRules(), MaskRules.official(), MaskRules.full()] + [
    MaskRules(*bits) for bits in itertools.islice(itertools.product([True, False], repeat=9), 3, 512, 37)
]


def _random_boxes(rng, n):
    out = []
    for _ in range(n):
        w, h = rng.uniform(0.1, 0.6, 2)
        out.append((float(rng.uniform(0, 1 - w)), float(rng.uniform(0, 1 - h)), float(w), float(h)))
    return out


@pytest.mark.parametrize("rules", _RULE_SETS)
def test_mask_equals_dense_reference(rules):
    rng = np.random.default_rng(0)
    for trial in range(3):
        grid = (int(rng.integers(2, 5)), int(rng.integers(2, 5)))
        boxes, regions = _random_boxes(rng, trial + 1), _random_boxes(rng, 2 - trial % 2)
        m = build_multimodal_attention_mask(2, boxes, regions, grid, rules, layout_tokens=2, subject_tokens=3)
        ref = _reference(2, boxes, regions, grid, rules, lt=2, st=3)
        assert m.dtype == torch.bool
        np.testing.assert_array_equal(m.numpy(), ref)


def test_mask_shape_and_every_row_attends_to_itself():
    boxes, regions = [(0, 0, 0.5, 0.5), (0.5, 0.5, 0.5, 0.5)], [(0.5, 0, 0.5, 0.5)]
    for rules in _RULE_SETS:
        m = build_multimodal_attention_mask(3, boxes, regions, (4, 4), rules, subject_tokens=4)
        assert m.shape == (3 + 2 + 4 + 16,) * 2
        assert bool(m.diagonal().all())
        # no empty row -> masked softmax is finite
        q = torch.randn(1, 1, m.shape[0], 8)
        out = F.scaled_dot_product_attention(q, q, q, attn_mask=m)
        assert torch.isfinite(out).all()


def test_no_conditions_is_all_true_and_full_rules_are_all_true():
    m = build_multimodal_attention_mask(4, [], [], (3, 3))
    assert m.shape == (13, 13) and bool(m.all())
    m = build_multimodal_attention_mask(
        2, [(0, 0, 0.3, 0.3)], [(0.5, 0.5, 0.5, 0.5)], (4, 4), MaskRules.full()
    )
    assert bool(m.all())


def test_tokens_outside_all_boxes_read_no_layout_token():
    boxes = [(0, 0, 0.5, 0.5), (0.5, 0.5, 0.25, 0.25)]
    m = build_multimodal_attention_mask(2, boxes, [], (4, 4))
    img = m[4:]
    inside = box_token_mask(boxes[0], (4, 4)) | box_token_mask(boxes[1], (4, 4))
    assert not img[~inside][:, 2:4].any()
    assert img[inside][:, 2:4].any(1).all()


def test_box_token_mask_hand_case():
    # 2 x 4 grid, box over the right half of the top row: token centres x = 1/8, 3/8, 5/8, 7/8; y = 1/4, 3/4
    got = box_token_mask((0.5, 0.0, 0.5, 0.5), (2, 4))
    assert got.tolist() == [False, False, True, True, False, False, False, False]


def test_hand_computed_official_mask():
    # 1 prompt token, one layout element over the left cell, one subject over the right cell, 1 x 2 image grid
    m = build_multimodal_attention_mask(1, [(0, 0, 0.5, 1)], [(0.5, 0, 0.5, 1)], (1, 2), MaskRules.official())
    #        P  L  S  I0 I1
    want = [
        [1, 0, 1, 1, 1],  # prompt: prompt, subject (official), image
        [0, 1, 0, 1, 0],  # layout: itself and the image token in its box
        [0, 0, 1, 0, 1],  # subject: itself and the image token in its region
        [1, 1, 0, 1, 1],  # image 0: prompt, its layout element, all image
        [1, 0, 1, 1, 1],  # image 1: prompt, its subject, all image
    ]
    assert m.int().tolist() == want
    # the brief's rules differ only in the condition <-> prompt entries
    b = build_multimodal_attention_mask(1, [(0, 0, 0.5, 1)], [(0.5, 0, 0.5, 1)], (1, 2))
    assert b[1, 0] and not b[0, 2] and not b[2, 0]


def test_permuting_layout_elements_permutes_blocks():
    rng = np.random.default_rng(3)
    boxes = _random_boxes(rng, 3)
    perm = [2, 0, 1]
    m = build_multimodal_attention_mask(
        2, boxes, [(0, 0, 0.5, 0.5)], (4, 4), layout_tokens=2, subject_tokens=2
    )
    mp = build_multimodal_attention_mask(
        2, [boxes[p] for p in perm], [(0, 0, 0.5, 0.5)], (4, 4), layout_tokens=2, subject_tokens=2
    )
    order = list(range(2))
    for p in perm:
        order += [2 + 2 * p, 3 + 2 * p]
    order += list(range(8, m.shape[0]))
    idx = torch.tensor(order)
    assert torch.equal(mp, m[idx][:, idx])


def test_single_layer_image_output_ignores_non_attended_layout_token():
    torch.manual_seed(0)
    boxes = [(0, 0, 0.5, 0.5), (0.5, 0.5, 0.5, 0.5)]
    m = build_multimodal_attention_mask(2, boxes, [(0.5, 0, 0.5, 0.5)], (4, 4), subject_tokens=4)
    s = m.shape[0]
    x = torch.randn(1, s, 16)
    wq, wk, wv = (0.25 * torch.randn(16, 16) for _ in range(3))

    def attn(h):
        return F.scaled_dot_product_attention(h @ wq, h @ wk, h @ wv, attn_mask=m)

    base = attn(x)
    x2 = x.clone()
    x2[0, 2] += 5 * torch.randn(16)  # layout element 0 (box = top-left quarter)
    out = attn(x2)
    img0 = 2 + 2 + 4
    outside = ~box_token_mask(boxes[0], (4, 4))
    diff = (out - base)[0, img0:].abs().amax(-1)
    assert diff[outside].max() < 1e-6
    assert diff[~outside].min() > 1e-3  # the tokens inside the box do read it
    assert (out - base)[0, 3].abs().max() < 1e-6  # the other layout element is isolated
    assert (out - base)[0, :2].abs().max() < 1e-6  # the prompt does not read layout tokens


def test_bool_mask_sdpa_equals_manual_softmax_with_gradients():
    torch.manual_seed(1)
    m = build_multimodal_attention_mask(1, [(0, 0, 0.5, 1)], [(0.5, 0, 0.5, 1)], (2, 2), subject_tokens=2)
    q, k, v = (torch.randn(2, 3, m.shape[0], 8, dtype=torch.float64, requires_grad=True) for _ in range(3))
    fast = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    scores = (q @ k.transpose(-1, -2)) / np.sqrt(8)
    slow = torch.softmax(scores.masked_fill(~m, float("-inf")), -1) @ v
    torch.testing.assert_close(fast, slow)
    gf = torch.autograd.grad(fast.square().sum(), (q, k, v))
    gs = torch.autograd.grad(slow.square().sum(), (q, k, v))
    for a, b in zip(gf, gs):
        torch.testing.assert_close(a, b)


# ---------------------------------------------------------------- the DiT


def _randomised(model):
    g = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.2)
    return model.eval()


@pytest.fixture(scope="module")
def data():
    return ProceduralDesignDataset(12, 0, 32, n_sprites=8)


def test_dit_batch_padding_matches_single_samples(data):
    model = _randomised(MultiConditionDiT(vocab=len(VOCAB), depth=2))
    idx = [0, 1, 2]
    p, lay, sub = data.conditions(idx)
    x = torch.randn(3, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    t = torch.tensor([0.1, 0.5, 0.9])
    with torch.no_grad():
        batch = model(x, t, p, lay, sub)
        for i in range(3):
            one = model(x[i : i + 1], t[i : i + 1], p[i : i + 1], lay[i : i + 1], sub[i : i + 1])
            torch.testing.assert_close(batch[i : i + 1], one, atol=1e-4, rtol=1e-4)


def test_dit_one_layer_locality_of_layout_conditions(data):
    """depth 1 with the mask: changing element k's description moves only the patches inside box_k."""
    model = _randomised(MultiConditionDiT(vocab=len(VOCAB), depth=1))
    p, lay, sub = data.conditions([0])
    d = data[0]
    (ids, box), *rest = lay[0]
    changed = [[(torch.tensor([(int(ids[0]) + 1) % len(VOCAB), int(ids[1])]), box), *rest]]
    x = torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    t = torch.tensor([0.3])
    with torch.no_grad():
        a = model(x, t, p, lay, sub)
        b = model(x, t, p, changed, sub)
    diff = (a - b).abs().amax(1)[0]  # (32, 32)
    inside = torch.zeros(32, 32, dtype=torch.bool)
    x0, y0, x1, y1 = d.layout[0][2].to_pixels(32)
    inside[y0:y1, x0:x1] = True
    assert diff[~inside].max() < 1e-5
    assert diff[inside].max() > 1e-4
    # without the mask the change reaches every patch
    model.use_mask = False
    model._masks.clear()
    with torch.no_grad():
        c = model(x, t, p, lay, sub)
        e = model(x, t, p, changed, sub)
    assert (c - e).abs().amax(1)[0][~inside].max() > 1e-4


def test_dit_trains_and_samples(data):
    torch.manual_seed(0)
    model = MultiConditionDiT(vocab=len(VOCAB), dim=32, depth=1)
    p, lay, sub = data.conditions(range(4))
    out = model(torch.zeros(4, 3, 32, 32), torch.rand(4), p, lay, sub)
    assert out.shape == (4, 3, 32, 32) and float(out.abs().max()) == 0.0  # zero-initialised head
    loss = rectified_flow_loss(model, data.images[:4], p, lay, sub, torch.Generator().manual_seed(0))
    loss.backward()
    assert torch.isfinite(loss)
    img = sample_euler(model, p, lay, sub, steps=2, generator=torch.Generator().manual_seed(0))
    assert img.shape == (4, 3, 32, 32) and torch.isfinite(img).all()


def test_euler_sampler_integrates_a_known_velocity():
    """A model whose velocity is x1 - x0 for a fixed target x1 carries noise exactly to x1 (straight paths)."""

    class Straight(torch.nn.Module):
        image_size = 4

        def __init__(self):
            super().__init__()
            self.pos = torch.nn.Parameter(torch.zeros(1))
            self.target = torch.ones(1, 3, 4, 4)

        def forward(self, x, t, *args):
            return (self.target - x) / (1 - t)[:, None, None, None]

    out = sample_euler(Straight(), torch.zeros(1, 2, dtype=torch.long), [[]], [[]], steps=5)
    torch.testing.assert_close(out, torch.ones(1, 3, 4, 4))


def test_fourier_box_embedding_hand_case():
    e = fourier_box_embedding(torch.tensor([[0.0, 0.5, 1.0, 0.25]]), n_freqs=2)
    assert e.shape == (1, 16)
    # layout (coordinate, [sin f0, sin f1, cos f0, cos f1]); coordinate 2 = 1.0 at frequency 100 ** (1/2) = 10
    assert torch.isclose(e[0, 2 * 4 + 1], torch.sin(torch.tensor(10.0)))
    assert torch.isclose(e[0, 2 * 4 + 3], torch.cos(torch.tensor(10.0)))
    assert torch.isclose(e[0, 0 * 4 + 2], torch.tensor(1.0))  # cos(0) of coordinate 0


# ---------------------------------------------------------------- data and evaluators


def test_rendered_ground_truth_is_exact(data):
    for i, d in enumerate(data.designs):
        img = ((data.images[i] + 1) * 127.5).round().byte().permute(1, 2, 0).numpy()
        for j, (_, box) in enumerate(d.subjects):
            x0, y0, x1, y1 = box.to_pixels(32)
            np.testing.assert_array_equal(img[y0:y1, x0:x1], d.sprite(j))
        free = d.free_mask()
        from iclr26.generative.creatidesign.data import BACKGROUNDS, COLOURS

        assert (img[free] == BACKGROUNDS[d.background]).all()
        for colour, shape, box in d.layout:
            x0, y0, x1, y1 = box.to_pixels(32)
            centre = img[(y0 + y1) // 2, (x0 + x1) // 2]
            assert tuple(centre) == COLOURS[colour], (colour, shape)
    assert subject_fidelity(data.images, data.designs) == pytest.approx(1.0)
    assert background_accuracy(data.images, data.designs).mean() == 1.0


def test_test_split_holds_no_training_layout(data):
    test = ProceduralDesignDataset(30, 1, 32, n_sprites=8, exclude=data.keys())
    assert not (test.keys() & data.keys())


def test_crop_boxes_of_the_whole_canvas_is_a_resize():
    img = torch.rand(1, 3, 12, 12)
    out = crop_boxes(img, [Box(0, 0, 1, 1)], [0], size=12)
    torch.testing.assert_close(out, img, atol=1e-5, rtol=0)
    half = crop_boxes(img, [Box(0.5, 0.5, 0.5, 0.5)], [0], size=6)
    torch.testing.assert_close(half, img[:, :, 6:, 6:], atol=1e-5, rtol=0)


def test_layout_scores_hand_case():
    d = Design(
        "cream",
        (("red", "rect", Box(0, 0, 0.25, 0.25)), ("blue", "ellipse", Box(0.5, 0.5, 0.25, 0.25))),
        (),
        32,
    )

    class Fixed(CropClassifier):
        def forward(self, x):  # predicts "blue ellipse" for every crop
            n = x.shape[0]
            return F.one_hot(torch.full((n,), 2), 4).float(), F.one_hot(torch.full((n,), 1), 3).float()

    sc = layout_scores(Fixed(), torch.zeros(1, 3, 32, 32), [d])
    assert sc["correct"].tolist() == [0.0, 1.0]
    assert sc["leak"].tolist() == [1.0, 0.0]


def test_frechet_distance_cases():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4000, 3))
    assert frechet_distance(a, a) == pytest.approx(0.0, abs=1e-8)
    shift = np.array([1.0, 2.0, 0.0])
    assert frechet_distance(a, a + shift) == pytest.approx(5.0, abs=1e-8)
    # N(0, I) vs N(0, 4 I) in 3-d: 3 * (1 + 4 - 2 * 2) = 3
    assert frechet_distance(a, 2 * rng.normal(size=(200_000, 3))) == pytest.approx(3.0, abs=0.15)


# ---------------------------------------------------------------- the claim rule


def _rows(gain, leak_diff, n=4):
    return [
        {
            "mask_layout_acc": 0.5 + gain + 0.01 * (i % 2),
            "nomask_layout_acc": 0.5,
            "mask_leakage": 0.3 + leak_diff,
            "nomask_leakage": 0.3,
        }
        for i in range(n)
    ]


def test_decider_three_outcomes():
    rule = mask_gain_decider()
    assert rule(_rows(0.10, -0.05)).outcome is Outcome.SUPPORTED
    assert rule(_rows(0.10, +0.05)).outcome is Outcome.INCONCLUSIVE  # leakage not lower
    assert rule(_rows(-0.10, -0.05)).outcome is Outcome.NOT_SUPPORTED
    assert rule(_rows(0.02, -0.05)).outcome is Outcome.INCONCLUSIVE  # below the 5-point effect
