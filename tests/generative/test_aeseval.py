"""Tests of AesEval-Bench: the official parsers and aggregation, the harness, the generator's perturbations, the
reference and CNN backends, and the claim rule."""

import json
import logging
import math
import random

import numpy as np
import pytest

from iclr26.generative.aeseval import (
    OFFLINE_INDICATORS,
    AesEvalHarness,
    AesEvalSample,
    MajorityBackend,
    MetadataOracle,
    PixelHeuristicBackend,
    ProceduralDesignGenerator,
    RandomBackend,
    TinyCNNBackend,
    VLMBackend,
    aggregate,
    balance_offset,
    box_iou,
    build_question,
    element_inputs,
    equal_neighbour_share,
    load_official,
    parse_choice,
    parse_yes_no,
    random_box,
    score_bbox,
    score_choice,
    score_yes_no,
    train_backend,
    write_official,
)
from iclr26.generative.aeseval.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from iclr26.lab.vision import Box, contrast_ratio, hue, hue_distance, iou, render_design

MODES = ("text-preview", "text-preview-choice", "text-preview-bbox")


@pytest.fixture(scope="module")
def gen():
    return ProceduralDesignGenerator(canvas=128)


@pytest.fixture(scope="module")
def split(gen):
    return gen.split(270, seed=3)


# -- parsers (hand cases from the brief and the official rules) ------------------------------------------------
def test_yes_no_parser():
    assert parse_yes_no("No, there is no issue") == "no"
    assert parse_yes_no("Yes, but no") == "yes"  # "yes" is looked for first
    assert score_yes_no("YES", "yes") == 1.0
    assert score_yes_no("None", "no") == 0.0 and score_yes_no(None, "no") == 0.0
    assert score_yes_no("<think>yes it is</think> no", "no") == 1.0
    assert score_yes_no("maybe", "no") == 0.0


def test_choice_parser_keeps_the_official_quirk():
    assert parse_choice("(B)") == "B"
    assert parse_choice("Answer: B") == "A"  # first A-D character of the upper-cased reply
    assert parse_choice("b") == "B" and parse_choice(None) == "" and parse_choice("xyz") == ""
    assert score_choice("<think>A or C?</think>D", "D") == 1.0
    assert score_choice("Answer: B", "B") == 0.0


def test_bbox_parser():
    assert score_bbox("0.1, 0.2, 0.3, 0.4", [0.1, 0.2, 0.3, 0.4]) == pytest.approx(1.0)
    assert score_bbox("None", [0.1, 0.2, 0.3, 0.4]) == 0.0
    assert score_bbox("none of them", [0.1, 0.2, 0.3, 0.4]) == 0.0
    assert score_bbox("None", "None") == 1.0 and score_bbox(None, "None") == 1.0
    assert score_bbox("0.1,0.2,0.3,0.4", "None") == 0.0
    assert score_bbox("0.1, 0.2, 0.3", [0.1, 0.2, 0.3, 0.4]) == 0.0
    # ground truth in pixels, normalised by the preview size
    assert score_bbox("box: .25,.5,.25,.25", [32, 64, 32, 32], (128, 128)) == pytest.approx(1.0)
    assert score_bbox(
        "<think>0,0,1,1</think>0.25,0.5,0.25,0.25", [32, 64, 32, 32], (128, 128)
    ) == pytest.approx(1.0)


def test_iou_hand_cases_and_equals_the_lab_iou():
    assert box_iou([0, 0, 0.5, 0.5], [0, 0, 0.5, 0.5]) == 1.0
    assert box_iou([0, 0, 0.2, 0.2], [0.5, 0.5, 0.2, 0.2]) == 0.0
    assert box_iou([0, 0, 0.4, 0.2], [0.2, 0, 0.4, 0.2]) == pytest.approx(1 / 3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        a, b = random_box(rng), random_box(rng)
        if min(a[2], a[3], b[2], b[3]) > 1e-6:
            assert box_iou(a, b) == pytest.approx(iou(Box(*a), Box(*b)), abs=1e-12)


# -- aggregation ------------------------------------------------------------------------------------------------
def _rec(sample, key, score, gt="yes", failed=False):
    return {"sample": sample, "key": key, "score": score, "gt": gt, "failed": failed}


def test_aggregate_hand_computed():
    recs = [
        _rec("s1", "layout-alignment", 1.0),
        _rec("s2", "layout-alignment", 0.0),
        _rec("s1", "layout-balance", 1.0),
        _rec("s3", "color-contrast", 0.0, failed=True),
        _rec("s3", "color-harmony", 1.0),
    ]
    out = aggregate(recs, "text-preview")
    assert out["layout"]["alignment"] == {"accuracy": 0.5, "total": 2}
    assert out["layout"]["average"]["accuracy"] == 0.75  # (0.5 + 1) / 2
    assert out["color"]["contrast"] == {"accuracy": 0.0, "total": 1, "failed": 1}
    assert out["color"]["average"]["accuracy"] == 0.5
    assert out["overall"]["accuracy"] == pytest.approx(0.625)  # mean of the dimension averages
    assert out["overall"]["sample_level_accuracy"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert out["api_failures"] == 1
    bbox = aggregate(
        [_rec("s1", "font-hierarchy", 0.5, gt=[1, 2, 3, 4]), _rec("s2", "font-hierarchy", 1.0, gt="None")],
        "text-preview-bbox",
    )
    assert bbox["bbox_non_none_gt_iou_mean"] == 0.5


# -- the harness ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_oracle_scores_100_percent(split, mode):
    r = AesEvalHarness(MetadataOracle(), split, mode).run()
    assert r["overall"]["accuracy"] == 1.0 and r["overall"]["sample_level_accuracy"] == 1.0
    assert all(rec["score"] == 1.0 for rec in r["records"])


def test_random_backend_at_chance(split):
    n = len(split)
    judge = np.mean([r["score"] for r in AesEvalHarness(RandomBackend(1), split, MODES[0]).run()["records"]])
    choice = np.mean([r["score"] for r in AesEvalHarness(RandomBackend(2), split, MODES[1]).run()["records"]])
    assert abs(judge - 0.5) <= 3 * math.sqrt(0.25 / n)
    assert abs(choice - 0.25) <= 3 * math.sqrt(0.1875 / n)
    # bbox: q p_none + (1 - q)(1 - p_none) E[IoU], E[IoU] of a uniform random box by Monte Carlo on the GT boxes
    res = AesEvalHarness(RandomBackend(3), split, MODES[2]).run()["records"]
    gts = [s.box(c[0]["element_index"]).as_tuple() for s in split for c in s.gt.values() if c]
    q = 1 - len(gts) / n
    rng = np.random.default_rng(9)
    e_iou = np.mean([box_iou(random_box(rng), gts[i % len(gts)]) for i in range(20000)])
    expected = q * 0.5 + (1 - q) * 0.5 * e_iou
    scores = np.array([r["score"] for r in res])
    assert abs(scores.mean() - expected) <= 3 * scores.std() / math.sqrt(n) + 1e-3


def test_majority_backend(split):
    maj = MajorityBackend().fit(split)
    r = AesEvalHarness(maj, split, "text-preview").run()
    share = np.mean([bool(v) for s in split for v in s.gt.values()])
    assert np.mean([x["score"] for x in r["records"]]) == pytest.approx(max(share, 1 - share))


def test_choice_options_match_the_official_construction(split):
    """The options and answers equal a step-by-step replay of the official algorithm on the global ``random``."""
    rng = random.Random(5)
    random.seed(5)
    for s in split[:40]:
        for key, changes in s.gt.items():
            q = build_question(s, key, "text-preview-choice", rng)
            els = s.elements
            if not changes:
                opts = [[e["left"], e["top"], e["width"], e["height"]] for e in random.sample(els, 3)] + [
                    "None"
                ]
                random.shuffle(opts)
                gt = "ABCD"[opts.index("None")]
            else:
                idx = changes[0]["element_index"]
                tgt = next(e for e in els if e["element_index"] == idx)
                box = [tgt["left"], tgt["top"], tgt["width"], tgt["height"]]
                others = [e for e in els if e["element_index"] != idx]
                opts = [box] + [
                    [e["left"], e["top"], e["width"], e["height"]] for e in random.sample(others, 3)
                ]
                random.shuffle(opts)
                gt = "ABCD"[opts.index(box)]
            assert q["gt"] == gt
            assert q["choices"] == tuple(
                "None" if o == "None" else f"[{o[0]}, {o[1]}, {o[2]}, {o[3]}]" for o in opts
            )
            assert f"{gt}: {q['choices']['ABCD'.index(gt)]}" in q["question"]


class _NoneBackend(VLMBackend):
    def predict(self, image, question, *, choices=None, max_tokens=64):
        return None


class _Raising(VLMBackend):
    def predict(self, image, question, *, choices=None, max_tokens=64):
        raise RuntimeError("endpoint down")


@pytest.mark.parametrize("backend", [_NoneBackend(), _Raising()])
def test_failures_are_counted_and_scored_by_the_official_rule(split, backend):
    for mode in MODES:
        r = AesEvalHarness(backend, split[:18], mode).run()
        assert r["api_failures"] == 18
        for rec in r["records"]:
            # a missing reply scores 0, except against a None ground truth in bbox mode (the official rule)
            assert rec["score"] == (1.0 if mode == MODES[2] and rec["gt"] == "None" else 0.0)


def test_bad_gt_key_is_an_error_in_the_synthetic_harness(split):
    s = split[0]
    bad = AesEvalSample("x", s.image, s.elements, {"typo-alignment": []})
    with pytest.raises(ValueError, match="dimension-indicator"):
        AesEvalHarness(MetadataOracle(), [bad], "text-preview")
    with pytest.raises(ValueError, match="eval_mode"):
        AesEvalHarness(MetadataOracle(), split, "text-bbox")


def test_load_official_round_trip_skips_like_the_official_evaluator(split, tmp_path, caplog):
    root = write_official(split[:12], tmp_path)
    # a folder without "_new" and a folder without GT.json are ignored; malformed keys are skipped with a warning
    (root / "extra-perturbs").mkdir()
    (root / "zz-perturbs_new").mkdir()
    first = sorted(p for p in root.iterdir() if "_new" in p.name and (p / "GT.json").exists())[0]
    gt = json.loads((first / "GT.json").read_text())
    gt.update({"typo-alignment": [], "layout": [], "layout-a-b": [{"element_index": 0}]})
    (first / "GT.json").write_text(json.dumps(gt))
    with caplog.at_level(logging.WARNING):
        loaded = load_official(root)
    assert len(loaded) == 12 and sum("skipping GT key" in m for m in caplog.messages) == 3
    for mode in MODES:
        a = AesEvalHarness(MetadataOracle(), loaded, mode).run()
        b = AesEvalHarness(MetadataOracle(), sorted(split[:12], key=lambda s: s.sample_id), mode).run()
        assert {k: v for k, v in a.items() if k != "records"} == {
            k: v for k, v in b.items() if k != "records"
        }


def test_element_index_as_list_uses_its_first_entry(split):
    s = next(x for x in split if any(x.gt.values()))
    key, changes = next(iter(s.gt.items()))
    listed = AesEvalSample(
        "l", s.image, s.elements, {key: [{"element_index": [changes[0]["element_index"], 99]}]}
    )
    assert (
        build_question(listed, key, "text-preview-bbox", random.Random(0))["gt"]
        == build_question(s, key, "text-preview-bbox", random.Random(0))["gt"]
    )


# -- the generator: one element changes, and its property crosses the threshold ---------------------------------
def _pair(gen, seed, key):
    return gen.sample(seed, key, perturb=False), gen.sample(seed, key, perturb=True)


@pytest.mark.parametrize("key", OFFLINE_INDICATORS)
def test_each_perturbation_changes_one_element_across_its_threshold(gen, key):
    for seed in range(12):
        clean, bad = _pair(gen, seed, key)
        assert clean.gt == {key: []} and len(bad.gt[key]) == 1
        i = bad.gt[key][0]["element_index"]
        diff = [j for j, (a, b) in enumerate(zip(clean.design, bad.design, strict=True)) if a != b]
        assert diff == [i]
        a, b = clean.design[i], bad.design[i]
        bg = clean.image.getpixel((1, 1))
        role = a.attrs["role"]
        column = [e for e in clean.design if e.attrs["role"] != "decoration"]
        margin = column[0].box.left
        if key == "layout-alignment":
            assert all(abs(e.box.left - margin) < 1e-12 for e in column)
            assert 0.02 <= b.box.left - margin <= 0.08
        elif key == "layout-whitespace":
            assert min(min(e.box.left, 1 - e.box.right) for e in clean.design) >= 0.08
            assert min(b.box.left, 1 - b.box.right) < 0.015
        elif key == "layout-balance":
            assert role == "photo"
            assert balance_offset([e.box for e in column]) < 1e-9
            assert balance_offset([e.box for e in bad.design if e.attrs["role"] != "decoration"]) >= 0.03
        elif key == "layout-layering":
            heads = [e.box for e in clean.design if e.kind == "text"]
            assert all(_inter(a.box, h) == 0 for h in heads)
            head = next(e.box for e in bad.design if e.attrs["role"] == "headline")
            assert _inter(b.box, head) >= 0.5 * b.box.area and b.z > 0
        elif key == "font-hierarchy":
            body = next(e for e in clean.design if e.attrs["role"] == "body").font_size
            assert a.font_size >= 1.6 * body and b.font_size < body
        elif key == "font-legibility":
            assert a.font_size * 256 >= 11 and b.font_size * 256 < 7
        elif key == "graphic-quality":
            x0, y0, x1, y1 = a.box.to_pixels(128)
            share = [equal_neighbour_share(np.asarray(s.image)[y0:y1, x0:x1]) for s in (clean, bad)]
            assert share[0] < 0.3 and share[1] >= 0.8
        elif key == "color-contrast":
            assert contrast_ratio(a.fill, bg) >= 4.5 and contrast_ratio(b.fill, bg) < 2
        elif key == "color-harmony":
            h0 = hue(bg)
            coloured = [e for e in clean.design if e.kind != "text"]
            assert all(hue_distance(hue(e.fill), h0) < 35 for e in coloured)
            assert hue_distance(hue(b.fill), h0) > 80


def _inter(a, b):
    w = min(a.right, b.right) - max(a.left, b.left)
    h = min(a.bottom, b.bottom) - max(a.top, b.top)
    return max(w, 0) * max(h, 0)


def test_generator_is_deterministic_and_prefix_stable(gen):
    a, b = gen.split(12, seed=4), gen.split(30, seed=4)[:12]
    assert [s.sample_id for s in a] == [s.sample_id for s in b]
    assert all(np.array_equal(np.asarray(x.image), np.asarray(y.image)) for x, y in zip(a, b, strict=True))
    assert np.array_equal(
        np.asarray(a[0].image), np.asarray(render_design(a[0].design, 128, a[0].image.getpixel((1, 1))))
    )
    keys = [next(iter(s.gt)) for s in gen.split(18, seed=0)]
    assert keys == list(OFFLINE_INDICATORS) * 2


# -- the CNN backends -----------------------------------------------------------------------------------------
def test_element_inputs_shapes(split):
    s = split[0]
    boxes = [s.box(e["element_index"]) for e in s.elements]
    crops, ctx = element_inputs(s.image, boxes)
    assert crops.shape == (len(boxes), 64, 64, 3) and ctx.shape == (len(boxes), 64, 64, 4)
    assert ctx[..., 3].max() == 255 and crops.dtype == np.uint8


@pytest.mark.parametrize("supervision", ["image", "grounded"])
def test_tiny_cnn_backend_answers_in_the_parsers_formats(split, supervision):
    b = train_backend(split[:27], supervision, epochs=1, seed=0)
    assert isinstance(b, TinyCNNBackend) and math.isfinite(b.train_loss)
    for mode in MODES:
        r = AesEvalHarness(b, split[27:45], mode).run()
        assert "api_failures" not in r
        for rec in r["records"]:
            if mode == MODES[0]:
                assert rec["reply"] in ("yes", "no")
            elif mode == MODES[1]:
                assert rec["reply"] in "ABCD" and len(rec["reply"]) == 1
            else:
                assert rec["reply"] == "None" or len(rec["reply"].split(",")) == 4


def test_cnn_decision_rule(split, monkeypatch):
    b = train_backend(split[:9], "grounded", epochs=1, seed=0)
    s = next(x for x in split if any(x.gt.values()))
    key = next(iter(s.gt))
    n = len(s.elements)
    for p_top, expect_issue in ((0.4, False), (0.9, True)):
        scores = [0.1] * n
        scores[2] = p_top
        monkeypatch.setattr(
            b, "_box_scores", lambda image, boxes, ind, sc=scores: (max(sc[: len(boxes)]), sc[: len(boxes)])
        )
        b._cache = {}
        b.observe(s)
        qs = {m: build_question(s, key, m, random.Random(1)) for m in MODES}
        assert b.predict(s.image, qs[MODES[0]]["question"]) == ("yes" if expect_issue else "no")
        bbox = b.predict(s.image, qs[MODES[2]]["question"])
        if expect_issue:
            assert score_bbox(
                bbox, [s.elements[2][k] for k in ("left", "top", "width", "height")], s.size
            ) == pytest.approx(1.0)
        else:
            assert bbox == "None"


def test_pixel_heuristic_reads_only_pixels_and_beats_chance():
    """The rule backend has no ``observe`` hook (it never sees the metadata) and detects the procedural issues."""
    b = PixelHeuristicBackend()
    assert not hasattr(b, "observe")
    test = ProceduralDesignGenerator().split(45, seed=8)
    judge = np.mean([r["score"] for r in AesEvalHarness(b, test, MODES[0]).run()["records"]])
    choice = np.mean([r["score"] for r in AesEvalHarness(b, test, MODES[1]).run()["records"]])
    assert judge >= 0.8 and choice >= 0.7  # chance: 0.5 and 0.25


# -- the claim rule ---------------------------------------------------------------------------------------------
def _rows(choice_gain, iou_gain, sane=1.0):
    return [
        {
            "choice_acc_grounded": 0.5 + choice_gain + d,
            "choice_acc_image": 0.5,
            "bbox_iou_grounded": 0.3 + iou_gain + d,
            "bbox_iou_image": 0.3,
            "harness_sane": sane,
            "judge_gain_image_vs_majority": 0.1,
        }
        for d in (-0.01, 0.0, 0.01)
    ]


def test_claim_rule_on_hand_built_rows():
    claim = EXPERIMENT.claims[0]
    assert claim.judge(_rows(0.3, 0.3)).outcome is Outcome.SUPPORTED
    assert claim.judge(_rows(-0.1, -0.1)).outcome is Outcome.NOT_SUPPORTED
    assert (
        claim.judge(_rows(0.05, 0.3)).outcome is Outcome.INCONCLUSIVE
    )  # gain below 10 points, interval above 0
    assert claim.judge(_rows(0.3, 0.3, sane=0.0)).outcome is Outcome.NOT_REPRODUCED
