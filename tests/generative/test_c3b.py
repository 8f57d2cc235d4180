"""Tests of C3B: chrF (hand cases, fast vs slow), the comic generator's exact answers, the harness's reference
backends at 100% / chance, parsing failures, the official-file adapter, the trained backend and the claim rule."""

import json
from collections import Counter

import numpy as np
import pytest
import torch
from PIL import Image

from iclr26.generative.c3b import (
    CHARACTERS,
    CULTURES,
    LANGUAGES,
    NONE_WORD,
    C3BHarness,
    ComicGenerator,
    TinyCNN,
    TinyCNNBackend,
    answer_from_scene,
    chrf,
    chrf_reference,
    conflicts,
    greeting_reference,
    load_official,
    parse_option,
    split_panels,
)
from iclr26.generative.c3b.claim_check import difficulty_gap, harness_sane, pooled_gap, sanity_rows
from iclr26.generative.c3b.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from iclr26.lab.vision import (
    MajorityBackend,
    OracleBackend,
    RandomBackend,
    TextOnlyBackend,
    VLMBackend,
    tile_panels,
    within_chance,
)

GEN = ComicGenerator(panel_size=64)


@pytest.fixture(scope="module")
def split():
    return GEN.split(240, seed=3, name="t")


@pytest.fixture(scope="module")
def train():
    return GEN.split(240, seed=4, name="tr")


# ---------------------------------------------------------------- chrF


def test_chrf_hand_cases():
    assert chrf("abc", "abc") == 100.0
    assert chrf("xyz", "abc") == 0.0
    assert chrf("", "abc") == 0.0
    # n=1: P=1, R=2/3; n=2: P=1, R=1/2; no 3-grams in the hypothesis: avg P=1, R=7/12; F2 = 5PR/(4P+R) = 7/11
    assert chrf("ab", "abc") == pytest.approx(700 / 11)
    # P = R at every order: 3/4, 2/3, 1/2, 0 over 4 effective orders -> 23/48
    assert chrf("abcd", "abce") == pytest.approx(100 * 23 / 48)
    assert chrf("a b  c", "abc") == 100.0  # whitespace is removed before extracting n-grams
    assert chrf("ab", ["zz", "abc"]) == pytest.approx(700 / 11)  # best reference


def test_chrf_matches_sacrebleu_documented_value():
    # the example of the sacrebleu/Hugging Face chrF metric card (char_order 6, word_order 0, beta 2): 61.5763793...
    hyp = "The relationship between Obama and Netanyahu is not exactly friendly."
    ref = "The ties between Obama and Netanyahu are not particularly friendly."
    assert chrf(hyp, ref) == pytest.approx(61.576379378113785, abs=1e-9)


def test_chrf_fast_equals_slow_reference():
    rng = np.random.default_rng(0)
    for _ in range(200):
        h = "".join(rng.choice(list("abc d"), size=rng.integers(0, 12)))
        r = "".join(rng.choice(list("abcd "), size=rng.integers(1, 12)))
        beta = float(rng.choice([0.5, 1.0, 2.0, 3.0]))
        assert chrf(h, r, beta=beta) == pytest.approx(chrf_reference(h, r, beta=beta), abs=1e-9)


def test_chrf_limits_and_beta():
    # order 1 reduces to the unigram F-beta
    h, r = "aab", "abbb"  # unigram matches: a:1, b:1 -> P = 2/3, R = 2/4
    p, rr = 2 / 3, 1 / 2
    assert chrf(h, r, order=1, beta=1.0) == pytest.approx(100 * 2 * p * rr / (p + rr))
    # a large beta tends to recall, a small one to precision
    assert chrf(h, r, order=1, beta=100.0) == pytest.approx(100 * rr, rel=1e-3)
    assert chrf(h, r, order=1, beta=0.01) == pytest.approx(100 * p, rel=1e-3)


def test_greeting_references_score_100_and_differ_by_culture():
    for lang in LANGUAGES:
        ref = greeting_reference(CULTURES[0], lang)
        assert chrf(ref, ref) == 100.0
        assert chrf(greeting_reference(CULTURES[1], lang), ref) < 100.0


# ---------------------------------------------------------------- generator


def test_every_answer_recomputed_from_scene_graph(split):
    for it in split:
        scene = it.meta["scene"]
        lv, lang = it.meta["level"], it.meta["language"]
        assert it.answer == answer_from_scene(scene, lv, lang)
        if lv == 1:
            assert it.answer == next(c.name for c in CULTURES if c.key == scene.dish)
            assert len(set(it.choices)) == 4
        elif lv == 2:
            hits = conflicts(scene)
            assert len(hits) <= 1
            assert set(it.choices) == {*CHARACTERS, NONE_WORD[lang]}
        else:
            assert it.choices is None and it.meta["keyword"] in it.answer


def test_cultures_per_image_exact_and_balanced(split):
    scenes = [it.meta["scene"] for it in split if it.meta["level"] == 1]
    assert all(len(s.cultures) == s.n_cultures for s in scenes)
    assert Counter(s.n_cultures for s in scenes) == {1: 80, 2: 80, 3: 80}
    one = [s for s in scenes if s.n_cultures == 1]
    assert all(s.host == s.dish == s.guest == s.characters[0] for s in one)


def test_same_item_same_answer_across_languages():
    rng = np.random.default_rng(5)
    for _ in range(20):
        scene = GEN.sample_scene(rng)
        for lv in (1, 2, 3):
            keys, idx = set(), set()
            for lang in LANGUAGES:
                it = GEN.item(scene, "img", lv, lang, np.random.default_rng(9), "x")
                keys.add(it.meta["answer_key"])
                idx.add(it.answer_index)
            assert len(keys) == 1 and len(idx) == 1  # same option order under the same draw, same answer


def test_option_permutation_and_answers_uniform(split, train):
    items = [it for it in split + train if it.choices is not None]
    pos = Counter(it.answer_index for it in items)
    n = len(items)
    chi2 = sum((pos[k] - n / 4) ** 2 / (n / 4) for k in range(4))
    assert chi2 < 16.27  # chi-square(3) at p = 0.001
    l2 = Counter(it.meta["answer_key"] for it in items if it.meta["level"] == 2)
    m = sum(l2.values())
    assert sum((l2[k] - m / 4) ** 2 / (m / 4) for k in (*CHARACTERS, "none")) < 16.27


def test_split_panels_inverts_tiling():
    panels = [Image.new("RGB", (40, 40), (10 * k, 0, 0)) for k in range(3)]
    strip, _ = tile_panels(panels, gap=4)
    back = split_panels(strip)
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(panels, back, strict=True))


def test_render_is_deterministic():
    s = GEN.sample_scene(np.random.default_rng(1), 3)
    assert np.array_equal(np.asarray(GEN.render(s)), np.asarray(GEN.render(s)))


# ---------------------------------------------------------------- harness and reference backends


def test_oracle_is_perfect(split):
    rep = C3BHarness(OracleBackend(split), split).run()
    assert rep.mean(level=1) == 1.0 and rep.mean(level=2) == 1.0
    assert rep.mean(level=3) * 100 == pytest.approx(100.0)
    assert rep.keyword_hit == 1.0 and not rep.failures


def test_random_and_text_only_at_chance(split, train):
    for backend in (RandomBackend(0).fit(train), TextOnlyBackend(0).fit(train)):
        rep = C3BHarness(backend, split).run()
        for lv in (1, 2):
            acc, n = rep.mean(level=lv), len(rep.correct(level=lv))
            assert within_chance(acc, n, 0.25, 3.0), (backend.name, lv, acc)


def test_majority_at_chance_level_by_construction(split, train):
    rep = C3BHarness(MajorityBackend().fit(train), split).run()
    assert within_chance(rep.mean(level=1), 240, 0.25, 3.5)


class _Fixed(VLMBackend):
    name = "fixed"

    def __init__(self, reply):
        self.reply = reply

    def predict(self, image, question, *, choices=None, max_tokens=64):
        return self.reply


@pytest.mark.parametrize("reply", ["", None, "A and B", "Kai or Lumi"])
def test_empty_or_several_labels_score_zero_and_are_logged(split, reply):
    items = [it for it in split if it.choices is not None][:8]
    rep = C3BHarness(_Fixed(reply), items).run()
    assert rep.scores.sum() == 0.0
    assert len(rep.failures) == len(items)


def test_parse_option_first_rules():
    ch = ("Aldar", "Kai", "none", "Brenn")
    assert parse_option("B", ch) == 1
    assert parse_option("The answer is (D).", ch) == 3
    assert parse_option("none", ch) == 2
    assert parse_option("A or C", ch) is None
    assert parse_option("", ch) is None


def test_by_groups_and_overall(split):
    rep = C3BHarness(OracleBackend(split), split).run()
    assert set(rep.by("n_cultures", level=1)) == {1, 2, 3}
    assert set(rep.by("language")) <= set(LANGUAGES)
    assert rep.overall == pytest.approx(1.0)
    m, lo, hi = rep.interval(level=1)
    assert lo <= m <= hi


def test_load_official_round_trip(tmp_path, split):
    it = split[0]
    it.image.save(tmp_path / "a.png")
    rows = [
        {"id": "q1", "image": "a.png", "question": it.question, "options": list(it.choices), "answer": "B",
         "task": "Extraction@Culture", "language": "en"},
        {"id": "q2", "image": "a.png", "question": "Write a greeting.", "answer": "Amaru",
         "task": "generation", "language": "fr", "keyword": "Amaru"},
    ]  # fmt: skip
    (tmp_path / "c3b.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    items = load_official(tmp_path / "c3b.jsonl")
    assert items[0].answer == it.choices[1] and items[0].meta["level"] == 1
    assert items[1].choices is None and items[1].meta["level"] == 3
    rep = C3BHarness(OracleBackend(items), items).run()
    assert rep.mean(level=1) == 1.0 and rep.keyword_hit == 1.0


# ---------------------------------------------------------------- trained backend


def test_tinycnn_batched_equals_single_and_einsum_equals_loop():
    torch.manual_seed(0)
    m = TinyCNN(32).eval()
    x = torch.rand(5, 3, 3, 32, 32)
    batched = m.encode(x)
    single = torch.cat([m.encode(x[i : i + 1]) for i in range(5)])
    assert torch.allclose(batched, single, atol=1e-6)
    t = torch.tensor([0, 4, 8, 1, 2])
    o = torch.randint(0, 12, (5, 4))
    s = m.scores(batched, t, o)
    h = m.query(torch.cat([batched, m.template(t)], -1))
    loop = torch.stack([torch.stack([h[i] @ m.options.weight[o[i, k]] + m.option_bias.weight[o[i, k], 0]
                                     for k in range(4)]) for i in range(5)])  # fmt: skip
    assert torch.allclose(s, loop, atol=1e-5)
    # gradients of the einsum form equal those of the loop
    g1 = torch.autograd.grad(s.sum(), m.options.weight, retain_graph=True)[0]
    g2 = torch.autograd.grad(loop.sum(), m.options.weight)[0]
    assert torch.allclose(g1, g2, atol=1e-5)


def test_tinycnn_fits_deterministically_and_answers_every_item():
    tr = GEN.split(12, seed=0, name="a", panel_size=32)
    a = TinyCNNBackend(input_size=32, epochs=2, seed=1).fit(tr)
    b = TinyCNNBackend(input_size=32, epochs=2, seed=1).fit(tr)
    assert a.losses == b.losses
    te = GEN.split(6, seed=1, name="b")
    rep = C3BHarness(a, te).run()
    assert not rep.failures
    assert all(r in it.choices for r, it in zip(rep.replies, te, strict=True) if it.choices)
    l3 = [r for r, it in zip(rep.replies, te, strict=True) if it.choices is None]
    assert all(any(r == greeting_reference(c, lang) for c in CULTURES for lang in LANGUAGES) for r in l3)
    with pytest.raises(RuntimeError, match="not fitted"):
        TinyCNNBackend().predict(te[0].image, te[0].question, choices=te[0].choices)


# ---------------------------------------------------------------- claim rule


def test_pooled_gap_estimate_and_interval():
    est, lo, hi = pooled_gap([0.8, 0.7], [100, 300], [0.5, 0.5], [100, 100])
    assert est == pytest.approx((80 + 210) / 400 - 0.5)
    assert lo < est < hi
    est, lo, hi = pooled_gap([0.5], [10**6], [0.4], [10**6])
    assert hi - lo < 0.005


def _rows(a1, a2, n=400):
    return [{"acc_l1": a1 + 0.01 * i, "n_l1": n, "acc_l2": a2, "n_l2": n} for i in range(3)]


def test_difficulty_gap_can_pass_fail_and_be_inconclusive():
    rule = difficulty_gap("l1", "l2", 0.10, "ladder")
    assert rule(_rows(0.7, 0.3)).outcome is Outcome.SUPPORTED
    assert rule(_rows(0.3, 0.6)).outcome is Outcome.NOT_SUPPORTED
    assert rule(_rows(0.5, 0.49)).outcome is Outcome.INCONCLUSIVE
    assert rule(_rows(0.35, 0.29)).outcome is Outcome.INCONCLUSIVE  # interval above 0 but below the margin


def test_harness_sanity_rule():
    rows = sanity_rows([{}, {}, {}])
    assert harness_sane(rows).outcome is Outcome.SUPPORTED
    bad = [{**r, "textonly_z_l1": 4.0} for r in rows]
    assert harness_sane(bad).outcome is Outcome.NOT_SUPPORTED
    bad = [{**r, "oracle_l2": 0.99} for r in rows]
    assert harness_sane(bad).outcome is Outcome.NOT_SUPPORTED


def test_claim_sabotage_and_precondition():
    claim = EXPERIMENT.claims[0]
    good = {"trained_over_trivial_l1": 0.3, "acc_l1": 0.8, "n_l1": 400, "acc_l2": 0.3, "n_l2": 400,
            "acc_l1_c1": 0.95, "n_l1_c1": 133, "acc_l1_c3": 0.6, "n_l1_c3": 133}  # fmt: skip
    rows = sanity_rows([{**good, "acc_l1": 0.8 + 0.01 * i} for i in range(3)])
    assert claim.judge(rows).outcome is Outcome.SUPPORTED
    sabotage = [{**r, "acc_l1": r["acc_l2"]} for r in rows]
    assert claim.judge(sabotage).outcome is not Outcome.SUPPORTED
    insane = [{**r, "random_z_l1": 5.0} for r in rows]
    assert claim.judge(insane).outcome is Outcome.INCONCLUSIVE
    unlearned = [{**r, "trained_over_trivial_l1": 0.02} for r in rows]
    assert claim.judge(unlearned).outcome is Outcome.NOT_REPRODUCED
