"""Tests of SSoT: extractors, the Fourier bound, JSD, parser, sources, the PIF pipeline and the endpoint path."""

import itertools
import json

import numpy as np
import pytest
from scipy import stats

from iclr26.agents.ssot import (
    PIFTask,
    apply_ssot,
    jsd,
    parse,
    prng_band,
    rolling_hash_choice,
    rolling_hash_choices,
    run_pif,
    sample_codes,
    scripted_ssot_model,
    ssot_reply,
    stdlib_docstrings,
    sum_mod,
    sum_mod_choices,
    sum_mod_distribution,
    sum_mod_distribution_conv,
    task_suite,
    tv_bound_sum_mod,
    tv_exact_sum_mod,
)
from iclr26.agents.ssot.__main__ import main
from iclr26.agents.ssot.claim_check import seed_outcome
from iclr26.agents.ssot.sources import ALNUM, EVEN
from iclr26.harness.claims import Outcome
from iclr26.lab.llm import ScriptedBackend
from tests.llm_stub import serve_stub


def test_sum_mod_exactly_uniform_on_uniform_strings_by_enumeration():
    alphabet = [chr(c) for c in ALNUM]
    for n in (2, 3, 5, 10):
        for L in (1, 2, 3):
            counts = np.zeros(n, dtype=np.int64)
            for s in itertools.product(alphabet[:12] if L == 3 else alphabet, repeat=L):
                counts[sum_mod("".join(s), n)] += 1
            # 62 is not a multiple of 3: uniform over the alphabet gives the exact Fourier distribution
            q = {int(c): 1 / len(alphabet) for c in ALNUM} if L < 3 else {int(c): 1 / 12 for c in ALNUM[:12]}
            np.testing.assert_allclose(counts / counts.sum(), sum_mod_distribution(q, n, L), atol=1e-12)
    # codes uniform over a full residue system mod n: exactly uniform for every L
    for n, L in ((2, 3), (5, 2), (10, 2)):
        counts = np.zeros(n)
        for s in itertools.product([chr(48 + i) for i in range(n)], repeat=L):
            counts[sum_mod("".join(s), n)] += 1
        assert np.all(counts == counts[0])


@pytest.mark.parametrize("n,L", [(2, 1), (3, 4), (5, 8), (10, 16)])
def test_fourier_equals_convolution_and_bound_holds(n, L):
    q = {int(c): 1 / len(ALNUM) for c in ALNUM}
    rng = np.random.default_rng(n * L)
    q2 = dict(zip(range(40, 60), rng.dirichlet(np.ones(20))))
    for dist in (q, q2):
        f, c = sum_mod_distribution(dist, n, L), sum_mod_distribution_conv(dist, n, L)
        np.testing.assert_allclose(f, c, atol=1e-12)
        assert tv_exact_sum_mod(dist, n, L) <= tv_bound_sum_mod(dist, n, L) + 1e-12
    rho = max(abs(np.exp(2j * np.pi * k * np.array(list(q2)) / n) @ np.array(list(q2.values())))
              for k in range(1, n))  # fmt: skip
    assert tv_bound_sum_mod(q2, n, L) <= (n - 1) / 2 * rho**L + 1e-12


def test_sum_mod_monte_carlo_within_5_se():
    rng = np.random.default_rng(0)
    q = dict(zip(range(50, 60), rng.dirichlet(np.ones(10))))
    n, L, N = 5, 3, 10**6
    codes = rng.choice(list(q), p=list(q.values()), size=(N, L))
    freq = np.bincount(sum_mod_choices(codes, n), minlength=n) / N
    p = sum_mod_distribution(q, n, L)
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / N))


def test_even_coset_failure_case_tv_half():
    q = {int(c): 1 / len(EVEN) for c in EVEN}
    for L in (1, 4, 32, 64):
        assert tv_exact_sum_mod(q, 2, L) == pytest.approx(0.5, abs=1e-12)
        assert tv_bound_sum_mod(q, 2, L) == pytest.approx(0.5, abs=1e-12)


def test_rolling_hash_chi_square_and_vectorised_matches_scalar():
    rng = np.random.default_rng(1)
    p = [0.5, 0.3, 0.2]
    codes = rng.choice(ALNUM, size=(10**5, 12))
    y = rolling_hash_choices(codes, p)
    obs = np.bincount(y, minlength=3)
    assert stats.chisquare(obs, np.array(p) * 10**5).pvalue > 0.01
    for row in codes[:50]:
        s = "".join(chr(c) for c in row)
        assert rolling_hash_choice(s, p) == y[list(map(tuple, codes[:50])).index(tuple(row))]
        assert sum_mod(s, 7) == sum_mod_choices(row[None], 7)[0]


def test_rolling_hash_no_wrap_for_short_strings():
    rng = np.random.default_rng(2)
    codes = rng.choice(ALNUM, size=(2000, 4))
    assert np.all(rolling_hash_choices(codes, [0.3, 0.7]) == 0)


def test_jsd_properties():
    rng = np.random.default_rng(3)
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        assert jsd(p, p) == pytest.approx(0.0, abs=1e-12)
        assert jsd(p, q) == pytest.approx(jsd(q, p), abs=1e-12)
        assert 0 <= jsd(p, q) <= 1
    assert jsd([1, 0], [0, 1]) == pytest.approx(1.0)


def test_prng_band_orders_and_shrinks():
    a, b = prng_band([0.5, 0.5], 100), prng_band([0.5, 0.5], 10000)
    assert a["lo"] <= a["median"] <= a["hi"] and b["hi"] < a["median"]


def test_parser_missing_tags_and_foreign_answers():
    ok = "<random_string>ab</random_string><thinking>x</thinking><answer> B </answer>"
    assert parse(ok, ["A", "B"]).option == 1 and parse(ok, ["A", "B"]).valid
    assert not parse("<answer>B</answer>", ["A", "B"]).valid  # no random string
    assert parse("<answer>B</answer>", ["A", "B"], require_string=False).valid
    assert not parse("<random_string>ab</random_string> B", ["A", "B"]).valid
    bad = parse("<random_string>ab</random_string><answer>C</answer>", ["A", "B"])
    assert bad.answer == "C" and not bad.valid and bad.option is None
    assert parse("<random_string>ab</random_string><answer>C</answer>").valid


def test_apply_ssot_has_the_tags():
    m = apply_ssot("Pick.", ["x", "y"], [0.2, 0.8])
    for tag in ("<random_string>", "<thinking>", "<answer>"):
        assert tag in m[0]["content"]


def test_sources_deterministic_and_bigram_from_stdlib():
    assert stdlib_docstrings() == stdlib_docstrings() and len(stdlib_docstrings()) > 10_000
    for src in ("iid", "bigram", "keyboard", "even"):
        a = sample_codes(src, 50, 8, np.random.default_rng(0))
        b = sample_codes(src, 50, 8, np.random.default_rng(0))
        assert a.shape == (50, 8) and np.array_equal(a, b)
    assert np.all(sample_codes("even", 100, 5, np.random.default_rng(0)) % 2 == 0)


def test_run_pif_scripted_end_to_end_and_invalid_accounting():
    t = PIFTask(("A", "B", "C"), (0.5, 0.3, 0.2))
    r = run_pif(scripted_ssot_model(0), t, 300, "ssot")
    assert r.invalid == 0 and r.jsd < prng_band(t.probs, 300)["hi"]
    junk = run_pif(ScriptedBackend(["no tags"], cycle=True), t, 10, "ssot")
    assert junk.invalid_rate == 1.0 and np.isnan(junk.jsd) and junk.jsd_with_invalid > 0.5
    d = run_pif(ScriptedBackend(["<answer>A</answer>"], cycle=True), t, 10, "direct")
    assert d.counts.tolist() == [10, 0, 0]
    assert run_pif(None, t, 100, "prng").counts.sum() == 100


def test_scripted_reply_parses():
    rng = np.random.default_rng(0)
    from iclr26.agents.ssot import build_messages

    for t in task_suite():
        text = ssot_reply(build_messages("ssot", list(t.options), list(t.probs))[0]["content"], rng)
        assert parse(text, list(t.options)).valid


def test_claim_rule():
    assert seed_outcome(1.0, 0.0, -0.1) == Outcome.SUPPORTED
    assert seed_outcome(1.0, 0.0, 0.01) == Outcome.INCONCLUSIVE
    assert seed_outcome(0.5, 0.5, -0.1) == Outcome.NOT_SUPPORTED


def test_endpoint_smoke_against_loopback_server(capsys):
    seen = []
    rng = np.random.default_rng(0)

    def respond(body):
        seen.append(body)
        prompt = body["messages"][-1]["content"]
        return ssot_reply(prompt, rng) if "random_string" in prompt else "<answer>A</answer>"

    with serve_stub(respond) as (base, _):
        out = main(["--llm", base + "@stub-model", "--tasks", "uniform-2,0.3/0.7", "--n-samples", "20"])
    assert len(seen) == 80 and seen[0]["model"] == "stub-model"
    r = out["tasks"]["uniform-2"]
    assert r["direct"]["counts"] == [20, 0] and r["ssot"]["invalid_rate"] == 0.0
    assert r["ssot"]["jsd"] < r["direct"]["jsd"]
    assert json.loads(capsys.readouterr().out)["n_samples"] == 20


def test_endpoint_claim_rule_and_not_measured_offline():
    from iclr26.agents.ssot.claim_check import LLM_METRICS, llm_seed_outcome, ssot_beats_direct

    assert llm_seed_outcome(0.2, 0.1, 0.3) == Outcome.SUPPORTED
    assert llm_seed_outcome(0.05, -0.01, 0.1) == Outcome.INCONCLUSIVE
    assert llm_seed_outcome(-0.2, -0.3, -0.1) == Outcome.NOT_SUPPORTED
    offline = [dict.fromkeys(LLM_METRICS, float("nan")) for _ in range(3)]
    v = ssot_beats_direct(offline)
    assert v.outcome == Outcome.INCONCLUSIVE and "not measured" in v.explanation

    def row(direct, ssot, lo, hi):
        return {"llm_jsd_direct": direct, "llm_jsd_ssot": ssot, "llm_gain_lo": lo, "llm_gain_hi": hi,
                "llm_inband_direct": 0.0, "llm_inband_ssot": 0.75, "llm_invalid_ssot": 0.01}  # fmt: skip

    assert ssot_beats_direct([row(0.3, 0.01, 0.2, 0.4)] * 3).outcome == Outcome.SUPPORTED
    mixed = [row(0.3, 0.01, 0.2, 0.4), row(0.3, 0.2, -0.05, 0.3), row(0.3, 0.01, 0.2, 0.4)]
    assert ssot_beats_direct(mixed).outcome == Outcome.INCONCLUSIVE
    worse = [row(0.3, 0.01, 0.2, 0.4), row(0.1, 0.3, -0.3, -0.1), row(0.3, 0.01, 0.2, 0.4)]
    assert ssot_beats_direct(worse).outcome == Outcome.NOT_SUPPORTED
    part = [row(0.3, 0.01, 0.2, 0.4), dict.fromkeys(LLM_METRICS, float("nan"))]
    assert ssot_beats_direct(part).outcome == Outcome.INCONCLUSIVE


def test_offline_seeds_stay_usable_and_the_llm_config_is_validated():
    """An offline seed has no endpoint metrics and excludes nothing; the endpoint claim is not judged offline."""
    from iclr26.agents.ssot.experiment import EXPERIMENT, SSoTConfig
    from iclr26.harness.claims import Outcome as O
    from iclr26.harness.runner import judge, usable
    from iclr26.harness.store import SeedResult

    config = EXPERIMENT.config_dict("quick")
    assert config["llm"] is None
    metrics = {"min_inband_L32": 1.0, "max_outband_L64": 0.0, "max_slope_hi": -0.01}
    results = [SeedResult("ssot", "quick", s, config, metrics, {}, {}, 0.0, None, {}) for s in range(3)]
    kept, why = usable(EXPERIMENT, "quick", results)
    assert len(kept) == 3 and not why
    verdicts = {cv.claim.id: cv.verdict for cv in judge(EXPERIMENT, "quick", kept)}
    assert (
        verdicts["ssot-beats-direct"].outcome == O.NOT_JUDGED
        and "--llm" in verdicts["ssot-beats-direct"].explanation
    )
    with pytest.raises(ValueError, match="llm"):
        SSoTConfig(llm="  ")


def test_run_with_llm_keeps_the_offline_metrics_and_adds_the_endpoint_ones():
    from iclr26.agents.ssot.experiment import EXPERIMENT, SSoTConfig, run

    cfg = SSoTConfig(sources=("iid",), lengths=(4, 32), tasks=("uniform-3", "0.1/0.9"), n_samples=30, reps=3,
                     band_reps=50, boot=50, scripted_samples=5)  # fmt: skip
    offline = run(cfg, 1, "cpu").values
    rng = np.random.default_rng(0)
    seen = []

    def respond(body):
        seen.append(body)
        prompt = body["messages"][-1]["content"]
        return ssot_reply(prompt, rng) if "random_string" in prompt else "<answer>A</answer>"

    with serve_stub(respond) as (base, _):
        from dataclasses import replace

        online = run(replace(cfg, llm=base + "@stub-model"), 1, "cpu")
    v = online.values
    kept = [k for k in offline if not k.startswith("llm_")]
    assert json.dumps({k: v[k] for k in kept}) == json.dumps(
        {k: offline[k] for k in kept}
    )  # NaN-aware, exact
    assert len(seen) == 2 * 2 * 30 and {b["seed"] for b in seen} == set(range(30, 60))
    assert v["llm_jsd_direct_uniform-3"] == pytest.approx(jsd([1, 0, 0], [1 / 3] * 3))
    assert v["llm_jsd_ssot"] < v["llm_jsd_direct"] and v["llm_gain_lo"] > 0
    assert online.artifacts["endpoint"]["tasks"]["0.1/0.9"]["direct"]["counts"] == [30, 0]
    assert EXPERIMENT.with_config("full", llm="x").config("full").n_samples == 1000
