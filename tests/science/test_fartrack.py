"""FARTrack: coordinate tokens, the tracker's exits, the losses, the sparsifier, the tracker, metrics, the video
generator and the claim rule."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from iclr26.harness.claims import Outcome
from iclr26.science.fartrack import (
    ARTracker,
    InterFrameSparsifier,
    Tracker,
    VideoConfig,
    VideoSequence,
    adjacent_kl,
    ao_sr,
    box_iou,
    box_to_crop,
    crop,
    crop_to_box,
    crop_window,
    dequantize,
    expected_box,
    feature_distill_loss,
    precision,
    quantize,
    random_prune_mask,
    self_distill_loss,
    siou_loss,
    success_auc,
)
from iclr26.science.fartrack.claim_check import distillation_beats_scratch
from iclr26.science.fartrack.model import Attention

D = torch.float64


def tiny(depth=4, **kw):
    torch.manual_seed(0)
    return ARTracker(
        template_size=16, search_size=32, patch=8, dim=24, depth=depth, heads=3, bins=16, **kw
    ).double()


def inputs(B=3, L=1, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(B, L, 3, 16, 16, generator=g, dtype=D), torch.randn(B, 3, 32, 32, generator=g, dtype=D)


# ------------------------------------------------------------------------------------------------ tokens, crops
@pytest.mark.parametrize("bins", [8, 32, 300])
def test_quantize_round_trip_error_is_within_one_bin(bins):
    box = torch.rand(2000, 4) * 2 - 0.5  # the whole representable range [-0.5, 1.5]
    err = (dequantize(quantize(box, bins), bins) - box).abs().max()
    assert float(err) <= 1 / (bins - 1) + 1e-6 <= 2 / bins + 1e-6


def test_quantize_matches_the_official_formula_by_hand():
    # floor((box + 0.5) * (bins - 1)) with bins = 32: 0.0 -> 15, 1.0 -> 46, -0.5 -> 0, 1.5 (max) -> 62
    toks = quantize(torch.tensor([[0.0, 1.0, -0.5, 1.5]]), 32)
    assert toks.tolist() == [[15, 46, 0, 62]]
    assert quantize(torch.tensor([[-3.0, 9.0, 0.0, 0.0]]), 32)[0, :2].tolist() == [0, 62]  # clamped


def test_crop_of_the_whole_frame_is_the_frame():
    frame = torch.rand(2, 3, 12, 12)
    out = crop(frame, torch.tensor([[0.0, 0.0, 12.0]] * 2), 12)
    assert torch.allclose(out, frame, atol=1e-6)


def test_crop_box_maps_are_inverse_and_centre_the_box():
    box = torch.tensor([[10.0, 20.0, 8.0, 18.0], [3.0, 4.0, 5.0, 6.0]])
    w = crop_window(box, 4.0)
    assert torch.allclose(w[:, 2], torch.sqrt(box[:, 2] * box[:, 3]) * 4)
    c = box_to_crop(box, w)
    assert torch.allclose((c[:, :2] + c[:, 2:]) / 2, torch.full((2, 2), 0.5))
    assert torch.allclose(crop_to_box(c, w), box, atol=1e-5)


def test_crop_samples_the_right_pixels():
    frame = torch.zeros(1, 3, 20, 20)
    frame[0, :, 4:8, 6:10] = 1.0  # a 4 x 4 square at x 6..10, y 4..8
    out = crop(frame, torch.tensor([[6.0, 4.0, 4.0]]), 4)  # exactly the square
    assert torch.allclose(out, torch.ones(1, 3, 4, 4))


# ------------------------------------------------------------------------------------------------ model
def test_attention_matches_a_per_head_loop_in_outputs_and_gradients():
    torch.manual_seed(0)
    att = Attention(12, 3).double()
    x = torch.randn(2, 7, 12, dtype=D, requires_grad=True)
    mask = torch.zeros(2, 7, dtype=torch.bool)
    mask[0, 2] = mask[1, 5] = True
    out, attn = att(x, mask)
    qkv = att.qkv(x)
    ref = torch.zeros(2, 7, 12, dtype=D)
    for b in range(2):
        for h in range(3):
            q, k, v = (qkv[b, :, s * 12 + h * 4 : s * 12 + h * 4 + 4] for s in range(3))
            s_ = q @ k.T / 2.0
            s_[:, mask[b]] = -math.inf
            ref[b, :, h * 4 : h * 4 + 4] = torch.softmax(s_, -1) @ v
    ref = att.proj(ref)
    assert torch.allclose(out, ref, atol=1e-12)
    g1 = torch.autograd.grad(out.square().sum(), x, retain_graph=True)[0]
    g2 = torch.autograd.grad(ref.square().sum(), x)[0]
    assert torch.allclose(g1, g2, atol=1e-10)
    attn = attn.detach()
    assert float(attn[0, :, :, 2].abs().max()) == 0.0 and float(attn[1, :, :, 5].abs().max()) == 0.0


def test_each_exit_equals_an_explicit_run_of_the_truncated_model():
    m = tiny(depth=4)
    z, x = inputs()
    outs = m(z, x)
    assert len(outs) == len(m.exits) == 3  # exits after blocks 2, 3, 4
    for e, lg in zip(m.exits, outs):
        assert torch.allclose(m.truncate(e)(z, x)[-1], lg, atol=1e-12)
    h = m.embed(z, x)  # and by hand: blocks, then LN(h) E^T + b on the 4 command tokens
    for blk in m.blocks[:2]:
        h, _ = blk(h)
    by_hand = F.layer_norm(h[:, -4:], (24,), m.norm.weight, m.norm.bias, 1e-6) @ m.word_embeddings.weight.T
    assert torch.allclose(by_hand + m.output_bias, outs[0], atol=1e-12)


def test_output_layer_is_tied_to_the_input_vocabulary():
    """Moving row k of the word embeddings moves output logit k by LN(h) . delta: one table in and out."""
    m = tiny()
    z, x = inputs(B=2)
    before = m(z, x)[-1]
    h = m.norm(m(z, x, return_hidden=True)[-1][:, -4:])
    delta = torch.randn(24, dtype=D)
    with torch.no_grad():
        m.word_embeddings.weight[3] += delta  # a coordinate token: not an input, so only the output moves
    after = m(z, x)[-1]
    assert torch.allclose(after[..., 3] - before[..., 3], h @ delta, atol=1e-10)
    assert torch.allclose(after[..., :3], before[..., :3], atol=1e-12)


def test_masked_template_tokens_get_zero_attention_and_dropping_equals_masking():
    m = tiny(depth=3, max_templates=3)
    z, x = inputs(B=2, L=3)
    mask = random_prune_mask(2, 3, m.n_z, 0.5, torch.Generator().manual_seed(0))
    masked = m(z, x, key_padding_mask=mask)
    attn = m.attention_maps()  # (depth, B, heads, N, N)
    for b in range(2):
        cols = mask[b].nonzero()[:, 0]
        assert float(attn[:, b, :, :, cols].abs().max()) == 0.0
    dropped = m(z, x, key_padding_mask=mask, drop=True)
    for a, b in zip(masked, dropped):
        assert torch.allclose(a, b, atol=1e-10)
    assert torch.allclose(m(z, x, key_padding_mask=torch.zeros_like(mask))[-1], m(z, x)[-1])


# ------------------------------------------------------------------------------------------------ losses
def _siou_scalar(p, g, theta=4.0):
    """One box pair, step by step from the SIoU definition (the official formula)."""
    eps = 1e-7
    cxp, cyp, cxg, cyg = (p[0] + p[2]) / 2, (p[1] + p[3]) / 2, (g[0] + g[2]) / 2, (g[1] + g[3]) / 2
    d = math.hypot(cxp - cxg, cyp - cyg)
    ang = 1 - 2 * math.sin(math.asin(abs(cyp - cyg) / (d + eps)) - math.pi / 4) ** 2
    cw, ch = max(p[2], g[2]) - min(p[0], g[0]), max(p[3], g[3]) - min(p[1], g[1])
    dist = sum(
        1 - math.exp(-(2 - ang) * r)
        for r in (((cxg - cxp) / (cw + eps)) ** 2, ((cyg - cyp) / (ch + eps)) ** 2)
    )
    wp, hp, wg, hg = p[2] - p[0], p[3] - p[1], g[2] - g[0], g[3] - g[1]
    shape = (1 - math.exp(-abs(hp - hg) / (max(hp, hg) + eps))) ** theta + (
        1 - math.exp(-abs(wp - wg) / (max(wp, wg) + eps))
    ) ** theta
    iw, ih = max(0, min(p[2], g[2]) - max(p[0], g[0])), max(0, min(p[3], g[3]) - max(p[1], g[1]))
    iou = iw * ih / (wp * hp + wg * hg - iw * ih)
    return 1 - iou + (shape + dist) / 2


def test_siou_matches_the_step_by_step_definition():
    g = torch.Generator().manual_seed(0)
    lo = torch.rand(50, 2, generator=g, dtype=D)
    p = torch.cat([lo, lo + 0.1 + torch.rand(50, 2, generator=g, dtype=D)], 1)
    lo = torch.rand(50, 2, generator=g, dtype=D)
    t = torch.cat([lo, lo + 0.1 + torch.rand(50, 2, generator=g, dtype=D)], 1)
    fast = siou_loss(p, t, reduction="none")
    slow = torch.tensor([_siou_scalar(a.tolist(), b.tolist()) for a, b in zip(p, t)], dtype=D)
    assert torch.allclose(fast, slow, atol=1e-9)


def test_siou_is_zero_for_identical_boxes_and_grows_with_shift():
    box = torch.tensor([[0.2, 0.3, 0.6, 0.7]], dtype=D, requires_grad=True)
    assert float(siou_loss(box.detach(), box.detach())) == pytest.approx(0.0, abs=1e-12)
    (g,) = torch.autograd.grad(siou_loss(box, box.detach()), box)
    assert bool(torch.isfinite(g).all())  # the guards keep the identical-box gradient finite
    shifts = [0.0, 0.02, 0.05, 0.1, 0.2, 0.4]
    vals = [
        float(siou_loss(box.detach() + torch.tensor([s, 0.5 * s, s, 0.5 * s], dtype=D), box.detach()))
        for s in shifts
    ]
    assert all(a < b for a, b in zip(vals, vals[1:]))


def test_expected_box_is_the_softmax_mean_over_bin_values():
    bins = 8
    logits = torch.randn(2, 4, bins * 2 + 5, dtype=D)
    grid = torch.tensor([-0.5 + k / bins for k in range(2 * bins)], dtype=D)  # the official grid, step 1/bins
    ref = (logits[..., : 2 * bins].softmax(-1) * grid).sum(-1)
    assert torch.allclose(expected_box(logits, bins), ref, atol=1e-12)
    sharp = torch.full((1, 4, 21), -1e9, dtype=D)
    sharp[..., 5] = 0.0
    assert torch.allclose(expected_box(sharp, bins), torch.full((1, 4), -0.5 + 5 / bins, dtype=D))


def test_adjacent_kl_is_zero_for_equal_logits_matches_the_formula_and_never_trains_the_teacher():
    s = torch.randn(3, 4, 21, dtype=D, requires_grad=True)
    t = torch.randn(3, 4, 21, dtype=D, requires_grad=True)
    assert float(adjacent_kl(s.detach(), s.detach().clone())) == pytest.approx(0.0, abs=1e-12)
    p, q = t[..., :-5].softmax(-1), s[..., :-5].softmax(-1)
    ref = (p * (p.log() - q.log())).sum() / 3  # batch mean over B
    kl = adjacent_kl(s, t)
    assert torch.allclose(kl, ref, atol=1e-12)
    kl.backward()
    assert t.grad is None and s.grad is not None


def test_self_distill_loss_with_one_exit_is_ce_plus_siou_and_kl_joins_with_more():
    torch.manual_seed(0)
    lg = torch.randn(5, 4, 37, dtype=D)
    tok = torch.randint(0, 32, (5, 4))
    loss, parts = self_distill_loss([lg], tok)
    bins = 16
    target = tok.double() / (bins - 1) - 0.5
    ref = 2 * F.cross_entropy(lg.reshape(-1, 37), tok.reshape(-1)) + 2 * siou_loss(
        expected_box(lg, bins), target
    )
    assert torch.allclose(loss, ref, atol=1e-12) and parts["kl"] == 0.0
    lg2 = torch.randn(5, 4, 37, dtype=D)
    loss2, parts2 = self_distill_loss([lg, lg2], tok)
    ce = (
        F.cross_entropy(lg.reshape(-1, 37), tok.reshape(-1))
        + F.cross_entropy(lg2.reshape(-1, 37), tok.reshape(-1))
    ) / 2
    si = (siou_loss(expected_box(lg, bins), target) + siou_loss(expected_box(lg2, bins), target)) / 2
    assert torch.allclose(loss2, 2 * ce + 2 * si + 0.01 * adjacent_kl(lg, lg2), atol=1e-12)


def test_special_tokens_carry_class_weight_0_1():
    lg = torch.randn(1, 4, 37, dtype=D)
    tok = torch.tensor([[32, 0, 1, 2]])  # one special-token target (the x0 command)
    loss, parts = self_distill_loss([lg], tok, w_siou=0.0, w_ce=1.0)
    nll = -lg.log_softmax(-1)[0, torch.arange(4), tok[0]]
    w = torch.tensor([0.1, 1.0, 1.0, 1.0], dtype=D)
    assert torch.allclose(loss, (w * nll).sum() / w.sum(), atol=1e-12)


def test_feature_distillation_pairs_student_block_i_with_teacher_block_2i():
    s = [torch.randn(2, 5, 3, dtype=D) for _ in range(3)]
    t = [torch.randn(2, 5, 3, dtype=D) for _ in range(6)]
    ref = sum(F.mse_loss(s[i - 1], t[2 * i - 1]) for i in (1, 2, 3)) / 3
    assert torch.allclose(feature_distill_loss(s, t), ref, atol=1e-12)


# ------------------------------------------------------------------------------------------------ sparsifier
@pytest.mark.parametrize(
    ("ratio", "n_t", "L"), [(0.25, 9, 3), (0.5, 9, 3), (0.25, 49, 5), (0.9, 49, 2), (0.0, 9, 3)]
)
def test_sparsifier_prunes_floor_ratio_tokens_of_every_older_template_only(ratio, n_t, L):
    g = 6
    N = L * n_t + g * g + 4
    attn = torch.rand(3, 2, 3, N, N, generator=torch.Generator().manual_seed(0)).softmax(-1)
    sp = InterFrameSparsifier(ratio, search_grid=g)
    mask = sp.update(attn, L)
    assert mask.shape == (2, L * n_t)  # the search and command tokens are not in the mask at all
    per = mask.reshape(2, L, n_t).sum(-1)
    assert per[:, :-1].eq(math.floor(ratio * n_t)).all() and per[:, -1].eq(0).all()
    # brute force: the lowest-scoring tokens of the centre search token's layer-and-head mean attention row
    mean = attn.mean(dim=(0, 2))
    row = L * n_t + (g // 2) * g + g // 2
    for b in range(2):
        for t in range(L - 1):
            s = mean[b, row, t * n_t : (t + 1) * n_t]
            k = math.floor(ratio * n_t)
            chosen = mask[b, t * n_t : (t + 1) * n_t]
            if 0 < k < n_t:
                assert float(s[chosen].max()) <= float(s[~chosen].min())


def test_random_mask_has_the_same_counts():
    mask = random_prune_mask(4, 3, 9, 0.5, torch.Generator().manual_seed(0))
    per = mask.reshape(4, 3, 9).sum(-1)
    assert per[:, :2].eq(4).all() and per[:, 2].eq(0).all()


# ------------------------------------------------------------------------------------------------ tracker
def _frames(T=6, B=2):
    seqs = [VideoSequence(100 + i, T) for i in range(B)]
    return np.stack([s.frames() for s in seqs], 1), np.stack([s.boxes[0] for s in seqs])


@pytest.mark.parametrize("prune", [None, "inter", "random", "intra"])
def test_tracker_boxes_lie_inside_the_frame_and_lockstep_equals_one_by_one(prune):
    torch.manual_seed(0)
    model = ARTracker(depth=2, max_templates=3).eval()
    frames, boxes = _frames()
    kw = dict(n_templates=3, prune=prune, ratio=0.5, seed=0)
    tr = Tracker(model, **kw)
    tr.initialize(frames[0], boxes)
    batched = np.stack([tr.track(frames[t]) for t in range(1, len(frames))], 1)
    H, W = frames.shape[2:4]
    assert (batched[..., 2:] > 0).all() and (batched[..., 0] >= 0).all() and (batched[..., 1] >= 0).all()
    assert (batched[..., 0] + batched[..., 2] <= W + 1e-4).all() and (
        batched[..., 1] + batched[..., 3] <= H + 1e-4
    ).all()
    if prune == "random":
        return  # random draws differ with the batch shape
    for b in range(2):
        one = Tracker(model, **kw)
        one.initialize(frames[0, b], boxes[b])
        single = np.stack([one.track(frames[t, b]) for t in range(1, len(frames))])
        assert np.allclose(single, batched[b], atol=1e-4)


def test_template_queue_follows_the_exponential_rule():
    tr = Tracker(ARTracker(max_templates=5), n_templates=5)
    tr.stored = list(range(3))
    assert tr._indices() == [0, 0, 0, 1, 2]  # fewer stored than L: front-padded with the initial template
    tr.stored = list(range(21))
    assert tr._indices() == [0, int(20 * 0.3), int(20 * 0.51), int(20 * (1 - 0.343)), 20]


def test_tracker_with_an_oracle_head_follows_the_target():
    """A head that emits the true box's tokens recovers it up to quantisation: with bins = 32 and search factor 4 a
    bin is 4 sqrt(wh) / 31 = 0.13 box sides and the floor rule shifts by half a bin on average (IoU >= 0.7)."""
    seq = VideoSequence(5, 8)
    model = ARTracker(depth=1).eval()
    tr = Tracker(model)
    tr.initialize(seq.frame(0), seq.boxes[0])
    for t in range(1, 8):
        w = crop_window(tr.state, 4.0)
        tok = quantize(box_to_crop(torch.as_tensor(seq.boxes[t : t + 1]), w), model.bins)
        fake = torch.full((1, 4, model.vocab), -1e4)
        fake[0, torch.arange(4), tok[0]] = 0.0
        tr._forward = lambda *a, fake=fake: fake
        box = tr.track(seq.frame(t))
        assert box_iou(box, seq.boxes[t]) > 0.7


# ------------------------------------------------------------------------------------------------ metrics
def test_iou_and_ao_sr_by_hand():
    a = np.array([[0, 0, 10, 10]])
    assert box_iou(a, np.array([[5, 0, 10, 10]]))[0] == pytest.approx(50 / 150)
    assert box_iou(a, np.array([[20, 20, 5, 5]]))[0] == 0.0
    assert box_iou(a, a)[0] == 1.0
    gt = np.array([[0, 0, 10, 10]] * 4, dtype=float)
    pred = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [5, 0, 10, 10], [0, 0, 10, 5]], dtype=float)
    s = ao_sr(pred, gt)  # frame 0 excluded: IoUs 1, 1/3, 1/2
    assert s["ao"] == pytest.approx((1 + 1 / 3 + 0.5) / 3)
    assert s["sr50"] == pytest.approx(1 / 3) and s["sr75"] == pytest.approx(1 / 3)  # 0.5 is not > 0.5


def test_success_auc_and_precision_by_hand():
    gt = np.array([[0, 0, 10, 10]] * 3, dtype=float)
    pred = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [30, 0, 10, 10]], dtype=float)  # IoUs 1 and 0
    # success(t) = frac(IoU > t): 1/2 for t in 0..0.95, 0 at t = 1 -> (20 * 0.5) / 21
    assert success_auc(pred, gt) == pytest.approx(10 / 21)
    assert precision(pred, gt, 20.0) == pytest.approx(0.5) and precision(pred, gt, 31.0) == 1.0


# ------------------------------------------------------------------------------------------------ video
def test_boxes_are_the_exact_extent_of_the_target():
    cfg = VideoConfig(min_distractors=0, max_distractors=0, occlusion_prob=0.0, noise=0.0)
    for seed in range(6):
        seq = VideoSequence(seed, 5, cfg)
        for t in range(5):
            diff = np.abs(seq.frame(t).astype(float) - np.clip(seq.background, 0, 255).astype(np.uint8)).sum(
                -1
            )
            ys, xs = np.nonzero(diff > 0)
            x, y, w, h = seq.boxes[t]
            if len(xs) == 0:
                continue
            # pixel centres inside the shape lie inside the box, and the box is tight to within a pixel
            assert xs.min() + 0.5 >= x - 1e-6 and xs.max() + 0.5 <= x + w + 1e-6
            assert ys.min() + 0.5 >= y - 1e-6 and ys.max() + 0.5 <= y + h + 1e-6
            assert xs.min() + 0.5 - x < 1.5 and x + w - (xs.max() + 0.5) < 1.5


def test_video_is_deterministic_and_uint8():
    a, b = VideoSequence(3, 4), VideoSequence(3, 4)
    assert a.frames().dtype == np.uint8 and np.array_equal(a.frames(), b.frames())
    assert np.array_equal(a.boxes, b.boxes)


# ------------------------------------------------------------------------------------------------ claim rule
def _rows(student, scratch):
    return [{"ao_student": s, "ao_scratch": c} for s, c in zip(student, scratch)]


def test_claim_rule_on_hand_built_rows():
    assert distillation_beats_scratch(_rows([53, 55, 54], [50, 51, 50.5])).outcome is Outcome.SUPPORTED
    assert distillation_beats_scratch(_rows([50, 51, 50.5], [53, 55, 54])).outcome is Outcome.NOT_SUPPORTED
    assert distillation_beats_scratch(_rows([51, 50, 52], [50, 51, 50.5])).outcome is Outcome.INCONCLUSIVE
    assert distillation_beats_scratch(_rows([96, 97, 98], [91, 92, 93])).outcome is Outcome.INCONCLUSIVE
