"""Oracle and property tests of the AFD-Instruction components: metrics, schema, world, tuning, baselines, claim."""

import json
import math

import numpy as np
import pytest
import torch

from iclr26.agents.afd_instruction import (
    AntibodyWorld,
    CharTokenizer,
    KmerLogisticRegression,
    Message,
    Record,
    answer_logprobs,
    answer_logprobs_reference,
    chat_parts,
    design_record,
    design_satisfies,
    exact_match,
    greedy_generate,
    greedy_generate_reference,
    instruction_tune,
    instructions_for,
    kmer_counts,
    labels_of,
    nearest_neighbours,
    nn_copy_design,
    rank_labels,
    read_jsonl,
    sequence_exact_match,
    sft_loss,
    srr_best,
    srr_best_reference,
    srr_left,
    srr_right,
    srr_summary,
    target_of,
    understanding_record,
    write_jsonl,
)
from iclr26.agents.afd_instruction.claim_check import mean_interval, tuning_helps
from iclr26.agents.afd_instruction.experiment import _boot_var
from iclr26.agents.afd_instruction.synth import TASKS, cdr_h3, cdr_l3
from iclr26.harness.claims import Outcome
from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig
from iclr26.lab.tinylm import TinyLMConfig, build_model

AA = "ACDEFGHIKLMNPQRSTVWY"
TOK = CharTokenizer()


def _rand_seq(rng, n):
    return "".join(rng.choice(list(AA), size=n))


# ------------------------------------------------------------------------------------------------ metrics


def test_srr_identity_and_hand_cases():
    s = "EVQLVESGGGLVQ"
    assert srr_left(s, s) == srr_right(s, s) == srr_best(s, s) == 1.0
    # left: first 4 of ACDEF vs ACDF -> ACDE/ACDF: 3/4; right: CDEF vs ACDF: C/A D/C E/D F/F -> 1/4
    assert srr_left("ACDEF", "ACDF") == 0.75
    assert srr_right("ACDEF", "ACDF") == 0.25
    # best over offsets 0, 1 of ACDF along ACDEF: ACDE -> 3/4, CDEF -> 1/4
    assert srr_best("ACDEF", "ACDF") == 0.75
    assert srr_best("CDE", "ACDEF") == 1.0


def test_srr_cleans_and_nan_on_empty_side():
    assert srr_left(" ac d\nE ", "ACDE") == 1.0
    assert srr_best("AC1D*E", "acde") == 1.0  # digits and '*' dropped, case folded
    for f in (srr_left, srr_right, srr_best):
        assert math.isnan(f("", "ACD")) and math.isnan(f("ACD", "1234")) and math.isnan(f(None, "A"))
    assert sequence_exact_match("ac de", "ACDE") and not sequence_exact_match("ACDE", "ACD")


def test_srr_best_bounds_left_right_and_matches_the_loop():
    rng = np.random.default_rng(0)
    for la in range(1, 12):
        for lb in range(1, 12):
            a, b = _rand_seq(rng, la), _rand_seq(rng, lb)
            best = srr_best(a, b)
            assert best >= max(srr_left(a, b), srr_right(a, b)) - 1e-12
            assert best == pytest.approx(srr_best_reference(a, b), abs=0)
            if la == lb:
                assert srr_left(a, b) == srr_right(a, b) == best


def test_srr_summary_skips_empty_pairs():
    out = srr_summary(["ACDE", "ACD", ""], ["ACDE", "AKD", "ACD"])
    assert out["n_total"] == 3 and out["n_valid"] == 2
    assert out["exact_match"] == 0.5
    assert out["srr_left"] == pytest.approx((1 + 2 / 3) / 2)


def test_text_exact_match_strips_ends_and_lowercases_only():
    assert exact_match(["  Virus\n"], ["virus"]) == 1.0
    assert exact_match(["binds  virus"], ["binds virus"]) == 0.0  # inner whitespace counts
    assert exact_match(["virus."], ["virus"]) == 0.0
    assert exact_match([], []) == 0.0


# ------------------------------------------------------------------------------------------------ schema


def test_jsonl_roundtrip(tmp_path):
    recs = instructions_for(AntibodyWorld(1).sample(4), np.random.default_rng(0))
    path = write_jsonl(recs, tmp_path / "d.jsonl")
    back = read_jsonl(path)
    assert back == recs
    first = json.loads(path.read_text().splitlines()[0])
    assert set(first) == {"pdb_id", "messages"} and set(first["messages"][0]) == {"from", "value"}


def test_record_parsing_and_clean():
    d = {
        "pdb_id": "8zc6",
        "messages": [
            {"from": "human", "value": "<H>ev ql1</H> <L>DIQM</L> Why?"},
            {"from": "gpt", "value": "ok"},
        ],
    }
    with pytest.raises(ValueError, match="8zc6"):
        Record.from_dict(d)
    r = Record.from_dict(d, clean=True)
    assert (r.heavy, r.light, r.question, r.answer) == ("EVQL", "DIQM", "Why?", "ok")


def test_chat_templates():
    r = Record("a", (Message("human", "<L>AC</L> q"), Message("gpt", "x")))
    assert chat_parts(r, "chatml") == (
        "<|im_start|>user\n<L>AC</L> q<|im_end|>\n<|im_start|>assistant\n",
        "x<|im_end|>\n",
    )
    assert chat_parts(r, "plain") == ("<L>AC</L> q\t", "x\n")


# ------------------------------------------------------------------------------------------------ world


@pytest.fixture(scope="module")
def world_data():
    w = AntibodyWorld(3)
    return w, w.sample(200)


def test_labels_are_a_function_of_the_sequence(world_data):
    w, abs_ = world_data
    for a in abs_:
        assert labels_of(a.heavy, a.light, w) == a.labels
        assert labels_of(a.heavy, a.light, AntibodyWorld(3)) == a.labels  # same seed, same templates
        assert design_satisfies(a.h3, a.light, a.labels["target"], a.labels["neutralizing"])
    assert AntibodyWorld(3).sample(5)[0] == abs_[0]
    for t in TASKS:  # every label value occurs
        assert len({a.labels[t] for a in abs_}) == len(set(a.labels[t] for a in abs_)) > 1


def test_rules_by_hand():
    assert target_of("AACFAA") == "virus" and target_of("AAMHA") == "cytokine"
    assert target_of("AAAA") is None and target_of("CFAFC") is None  # none, or two motifs
    ab = AntibodyWorld(0).sample(1)[0]
    h3, l3 = ab.h3, ab.l3
    assert cdr_h3(ab.heavy) == h3 and cdr_l3(ab.light) == l3
    assert 6 <= len(h3) <= 10 and 6 <= len(l3) <= 9
    light_ww = ab.light[: len(ab.light) - 4 - len(l3)] + "WWAAAA" + ab.light[-4:]
    light_no = ab.light[: len(ab.light) - 4 - len(l3)] + "AAAAAA" + ab.light[-4:]
    assert design_satisfies("AYYCFA", light_ww, "virus", "yes")
    assert not design_satisfies("AYYCFA", light_no, "virus", "yes")
    assert design_satisfies("AYYCFA", light_no, "virus", "no")
    assert not design_satisfies("AYYCFA", light_ww, "toxin", "yes")
    assert not design_satisfies("CF", light_no, "virus", "no")  # too short


def test_records_fit_the_brief_length(world_data):
    _, abs_ = world_data
    recs = instructions_for(abs_, np.random.default_rng(0))
    assert max(len("".join(chat_parts(r, "plain"))) for r in recs) <= 160
    n_design = sum(r.pdb_id.endswith(":design") for r in recs)
    assert n_design / len(recs) == pytest.approx(2 / 7)


# ------------------------------------------------------------------------------------------------ tuning / scoring


def _tiny(seed=0, dtype=torch.float32):
    torch.manual_seed(seed)
    return TinyGPT(TinyGPTConfig(n_layers=1, d_model=32, n_heads=2, seq_len=200), TOK.vocab_size, seed).to(
        dtype
    )


def _hf(seed=0):
    cfg = TinyLMConfig(arch="gpt2", d_model=32, n_layers=1, n_heads=2, seq_len=200, seed=seed)
    return build_model(cfg, TOK.vocab_size).eval()


@pytest.fixture(scope="module")
def pairs(world_data):
    _, abs_ = world_data
    recs = [understanding_record(a, t) for a in abs_[:4] for t in ("target", "species")]
    recs += [design_record(a) for a in abs_[:3]]
    return [chat_parts(r, "plain") for r in recs], recs


@pytest.mark.parametrize("make", [_tiny, _hf], ids=["tinygpt", "hf-gpt2"])
def test_answer_logprobs_match_unpadded_reference(pairs, make):
    (pa, _), model = pairs, make(1)
    prompts, answers = [p for p, _ in pa], [a for _, a in pa]
    fast = answer_logprobs(model, TOK, prompts, answers, batch_size=3)
    slow = answer_logprobs_reference(model, TOK, prompts, answers)
    assert torch.allclose(fast, slow, atol=1e-4, rtol=0)
    picks = rank_labels(model, TOK, prompts[:4], ["virus", "toxin", "human"])
    ref = [
        int(
            np.argmax(
                [
                    answer_logprobs_reference(model, TOK, [p], [c + "\n"])[0]
                    for c in ["virus", "toxin", "human"]
                ]
            )
        )
        for p in prompts[:4]
    ]
    assert picks == ref


@pytest.mark.parametrize("make", [_tiny, _hf], ids=["tinygpt", "hf-gpt2"])
def test_batched_greedy_generation_matches_one_at_a_time(pairs, make):
    (pa, _), model = pairs, make(2)
    prompts = [p for p, _ in pa]
    assert greedy_generate(model, TOK, prompts, 8, batch_size=4) == greedy_generate_reference(
        model, TOK, prompts, 8
    )


def _reference_loss(model, recs, loss):
    """Per-record, unpadded: -sum of target-token log-probs / number of target tokens."""
    total, count = 0.0, 0
    for r in recs:
        p, a = chat_parts(r, "plain")
        ids = TOK.encode(p + a)
        logp = torch.log_softmax(model(torch.tensor([ids]))[0].double(), -1)
        start = 1 if loss == "full" else len(TOK.encode(p))
        for t in range(start, len(ids)):
            total = total - logp[t - 1, ids[t]]
            count += 1
    return total / count


@pytest.mark.parametrize("loss", ["full", "answer"])
def test_sft_loss_and_gradients_match_reference(pairs, loss):
    _, recs = pairs
    model = _tiny(3, torch.float64)
    fast = sft_loss(model, TOK, recs, loss=loss, template="plain")
    g_fast = torch.autograd.grad(fast, list(model.parameters()))
    slow = _reference_loss(model, recs, loss)
    g_slow = torch.autograd.grad(slow, list(model.parameters()))
    assert float(fast.detach()) == pytest.approx(float(slow.detach()), abs=1e-10)
    for a, b in zip(g_fast, g_slow):
        assert torch.allclose(a, b, atol=1e-10)


def test_answer_loss_ignores_the_prompt(pairs):
    _, recs = pairs
    model = _tiny(4)
    full = float(sft_loss(model, TOK, recs, "full", "plain").detach())
    ans = float(sft_loss(model, TOK, recs, "answer", "plain").detach())
    assert full != pytest.approx(ans)
    assert ans == pytest.approx(float(_reference_loss(model, recs, "answer").detach()), abs=1e-5)


def test_instruction_tune_first_loss_is_the_initial_loss_and_learns(pairs):
    _, recs = pairs
    model = _tiny(5)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    out = instruction_tune(
        model, TOK, recs, loss="answer", template="plain", steps=40, batch_size=len(recs), lr=3e-3
    )
    assert out.losses[0] == pytest.approx(float(_reference_loss(model, recs, "answer").detach()), abs=1e-5)
    assert out.losses[-1] < 0.5 * out.losses[0]
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())  # copy_model=True


def test_instruction_tune_is_deterministic(pairs):
    _, recs = pairs
    a = instruction_tune(_tiny(6), TOK, recs, template="plain", steps=3, batch_size=4, seed=1).losses
    b = instruction_tune(_tiny(6), TOK, recs, template="plain", steps=3, batch_size=4, seed=1).losses
    assert a == b


# ------------------------------------------------------------------------------------------------ baselines


def test_kmer_counts_by_hand():
    m = kmer_counts(["ACDAC", "AXA"], 3).toarray()
    index = {"ACD": 0 * 400 + 1 * 20 + 2, "CDA": 1 * 400 + 2 * 20 + 0, "DAC": 2 * 400 + 0 * 20 + 1}
    assert m.shape == (2, 8000) and m.sum() == 3 and m[1].sum() == 0
    for k, i in index.items():
        assert m[0, i] == 1, k


def test_kmer_logreg_learns_species_and_nn_is_self(world_data):
    w, abs_ = world_data
    clf = KmerLogisticRegression().fit(abs_[:150], [a.labels["species"] for a in abs_[:150]])
    acc = np.mean([p == a.labels["species"] for p, a in zip(clf.predict(abs_[150:]), abs_[150:])])
    assert acc > 0.9
    from iclr26.agents.afd_instruction import kmer_features

    X = kmer_features(abs_[:20])
    assert list(nearest_neighbours(X, X[:5])) == [0, 1, 2, 3, 4]


def test_nn_copy_design_copies_a_same_function_h3(world_data):
    _, abs_ = world_data
    req = [(a.light, a.labels["target"], a.labels["neutralizing"]) for a in abs_[:10]]
    out = nn_copy_design(abs_[10:], req)
    for h3, (_, t, _n) in zip(out, req):
        assert target_of(h3) == t
    assert nn_copy_design(abs_, req[:3]) == [a.h3 for a in abs_[:3]]  # itself is nearest


# ------------------------------------------------------------------------------------------------ claim rule


def _rows(tuned=0.95, few=0.4, kmer=0.95, sat=0.95, nn=0.8, n=3):
    return [
        {
            "tuned_acc": tuned + 0.005 * (i - 1),
            "fewshot_acc": few,
            "kmer_acc": kmer,
            "var_delta_fewshot": 1e-4,
            "tuned_design_sat": sat + 0.005 * (i - 1),
            "nn_design_sat": nn,
            "var_design_gain": 1e-4,
        }
        for i in range(n)
    ]


def test_mean_interval_by_hand():
    m, lo, hi = mean_interval(np.array([0.1, 0.3]), np.array([0.01, 0.03]))
    half = 1.96 * math.sqrt(np.var([0.1, 0.3], ddof=1) / 2 + 0.04 / 4)
    assert (m, lo, hi) == pytest.approx((0.2, 0.2 - half, 0.2 + half))


def test_claim_rule_outcomes():
    assert tuning_helps(_rows()).outcome is Outcome.SUPPORTED
    assert tuning_helps(_rows(few=0.9)).outcome is Outcome.NOT_SUPPORTED  # Delta ~ 0.05
    assert tuning_helps(_rows(kmer=1.0, tuned=0.8)).outcome is Outcome.NOT_SUPPORTED  # 20 points below k-mer
    assert tuning_helps(_rows(kmer=1.0, tuned=0.92)).outcome is Outcome.INCONCLUSIVE  # 8 points below
    assert tuning_helps(_rows(nn=0.97)).outcome is Outcome.INCONCLUSIVE  # design not better than the copy


def test_boot_var_matches_closed_form():
    rng = np.random.default_rng(0)
    a = (rng.random(400) < 0.7).astype(float)
    b = (rng.random(400) < 0.4).astype(float)
    v = _boot_var([(a, b)], np.random.default_rng(1), 4000)
    assert v == pytest.approx(np.var(a - b) / len(a), rel=0.1)
