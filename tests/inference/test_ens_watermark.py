"""Oracle tests of ENS (OpenReview iZ7i2y1YxO): exact unbiasedness by enumeration, the detector's null law,
key determinism and independence, HF integration, attacks, secrecy of keys and the claim rule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from scipy import stats
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

from iclr26.harness.claims import Outcome
from iclr26.inference.ens_watermark import (
    DiPmarkReweight,
    ENSDetector,
    ENSLogitsProcessor,
    GammaReweight,
    KGWLogitsProcessor,
    ens_distribution,
    keyed_permutation,
    paraphrase_attack,
    regenerate_tokens,
    smoothing_attack,
    substitution_attack,
)
from iclr26.inference.ens_watermark.claim_check import ens_decider, quality_decider
from iclr26.inference.ens_watermark.experiment import exact_unbiasedness_error

PERMS4 = [torch.tensor(p) for p in itertools.permutations(range(4))]
ALL4 = torch.stack(PERMS4)
P4 = [
    torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64),
    torch.tensor([0.7, 0.05, 0.05, 0.2], dtype=torch.float64),
    torch.tensor([0.25, 0.25, 0.25, 0.25], dtype=torch.float64),
    torch.tensor([1.0, 0.0, 0.0, 0.0], dtype=torch.float64),
]


def _tiny_llama(vocab: int = 64, seed: int = 0) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
    )
    return LlamaForCausalLM(cfg).eval()


def _tiny_gpt2(vocab: int = 64, seed: int = 1) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    return GPT2LMHeadModel(
        GPT2Config(vocab_size=vocab, n_embd=32, n_layer=1, n_head=2, n_positions=256)
    ).eval()


# ---- exact unbiasedness (the theorem, by enumeration) -------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.1, 0.3, 0.45, 0.5])
@pytest.mark.parametrize("p", P4)
def test_dipmark_average_over_all_24_permutations_is_p(alpha: float, p: torch.Tensor) -> None:
    rw = DiPmarkReweight(alpha)
    avg = torch.stack([rw.reweight(p, pi) for pi in PERMS4]).mean(0)
    assert torch.allclose(avg, p, atol=1e-12, rtol=0)


@pytest.mark.parametrize(
    ("first", "second"), [("dipmark", "dipmark"), ("gamma", "gamma"), ("dipmark", "gamma")]
)
def test_ens2_average_over_all_576_permutation_pairs_is_p(first: str, second: str) -> None:
    layers = {"dipmark": DiPmarkReweight(0.45), "gamma": GammaReweight()}
    a = ALL4.repeat_interleave(24, 0)  # (576, 4): every (pi_1, pi_2) pair once
    b = ALL4.repeat(24, 1)
    for p in P4:
        pairs = layers[second].reweight(layers[first].reweight(p.expand(576, 4), a), b)
        assert pairs.shape[0] == 576
        assert torch.allclose(pairs.mean(0), p, atol=1e-12, rtol=0)
        loop = [layers[second].reweight(layers[first].reweight(p, a[i]), b[i]) for i in range(0, 576, 37)]
        assert torch.allclose(torch.stack(loop), pairs[::37], atol=1e-15)
    assert exact_unbiasedness_error(n_layers=2) < 1e-12


def test_reweighted_vectors_are_distributions_and_batch_matches_rows() -> None:
    gen = torch.Generator().manual_seed(0)
    p = torch.softmax(3 * torch.randn(16, 50, generator=gen, dtype=torch.float64), -1)
    perms = torch.stack([torch.randperm(50, generator=gen) for _ in range(16)])
    for rw in (DiPmarkReweight(0.45), GammaReweight(), DiPmarkReweight(0.2)):
        q = rw.reweight(p, perms)
        assert (q >= 0).all() and torch.allclose(q.sum(-1), torch.ones(16, dtype=torch.float64), atol=1e-12)
        rows = torch.stack([rw.reweight(p[i], perms[i]) for i in range(16)])
        assert torch.allclose(q, rows, atol=1e-15)


def test_alpha_zero_is_identity_and_gamma_is_dipmark_half() -> None:
    gen = torch.Generator().manual_seed(1)
    p = torch.softmax(torch.randn(30, generator=gen, dtype=torch.float64), -1)
    perm = torch.randperm(30, generator=gen)
    assert torch.allclose(DiPmarkReweight(0.0).reweight(p, perm), p, atol=1e-15)
    assert torch.allclose(GammaReweight().reweight(p, perm), DiPmarkReweight(0.5).reweight(p, perm), atol=0)
    # gamma-reweight by hand: new cdf = max(2F - 1, 0) along pi
    f = p[perm].cumsum(0)
    g = (2 * f - 1).clamp_min(0)
    by_hand = torch.zeros_like(p)
    by_hand[perm] = torch.diff(g, prepend=torch.zeros(1, dtype=torch.float64))
    assert torch.allclose(GammaReweight().reweight(p, perm), by_hand, atol=1e-15)


def test_sabotage_biased_reweight_fails_the_enumeration_oracle() -> None:
    class CubedCdf(DiPmarkReweight):  # G(F) = F^3: a valid distribution, but biased
        def reweight(self, probs: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
            g = probs[perm].cumsum(0) ** 3
            out = torch.zeros_like(probs)
            out[perm] = torch.diff(g, prepend=torch.zeros(1, dtype=probs.dtype))
            return out

    p = P4[0]
    avg = torch.stack([CubedCdf(0.0).reweight(p, pi) for pi in PERMS4]).mean(0)
    assert not torch.allclose(avg, p, atol=1e-6)


# ---- detector null distribution ------------------------------------------------------------------------------


def _green_table(det: ENSDetector) -> np.ndarray:
    """(n, V_context, V_token) green indicators from the detector's own keyed permutations."""
    keys = det._keys
    return np.stack(
        [
            np.stack([keys.ranks(j, (c,)) >= det.vocab_size - det.n_green for c in range(det.vocab_size)])
            for j in range(det.n_keys)
        ]
    )


def test_null_green_count_is_binomial_and_fpr_is_one_percent() -> None:
    n_keys, vocab, t_len, n_seq = 2, 256, 200, 10_000
    det = ENSDetector([b"null-a", b"null-b"], vocab, gamma_g=0.5, dedup=False, cache_size=0)
    table = _green_table(det)
    rng = np.random.default_rng(0)
    x = rng.integers(0, vocab, size=(n_seq, t_len + 1))
    for row in x[:3]:  # the vectorised table equals the detector's own per-token loop
        assert np.array_equal(
            det.green_matrix(row), np.stack([table[j, row[:-1], row[1:]] for j in range(2)], 1)
        )
    s = sum(table[j, x[:, :-1], x[:, 1:]].sum(1) for j in range(n_keys))
    trials = n_keys * t_len
    support = np.arange(trials + 1)
    expected = stats.binom.pmf(support, trials, det.p0) * n_seq
    observed = np.bincount(s, minlength=trials + 1)
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 0.01
    fpr = float((det.z_from_counts(s, t_len) > 2.33).mean())
    assert 0.005 <= fpr <= 0.015


# ---- keys: determinism and independence ----------------------------------------------------------------------


def test_same_key_and_context_give_same_permutation_and_different_contexts_differ() -> None:
    a = keyed_permutation(b"secret", (5, 7), 100)
    assert torch.equal(a, keyed_permutation(b"secret", (5, 7), 100))
    assert not torch.equal(a, keyed_permutation(b"secret", (5, 8), 100))
    assert sorted(a.tolist()) == list(range(100))


def test_different_secrets_give_independent_permutations() -> None:
    vocab, bins, n_ctx = 64, 4, 2000
    table = np.zeros((bins, bins))
    overlaps = []
    for c in range(n_ctx):
        pa, pb = keyed_permutation(b"alpha", (c,), vocab), keyed_permutation(b"beta", (c,), vocab)
        ra, rb = torch.argsort(pa), torch.argsort(pb)
        table[int(ra[0]) * bins // vocab, int(rb[0]) * bins // vocab] += 1
        overlaps.append(len(set(pa[32:].tolist()) & set(pb[32:].tolist())))
    assert stats.chi2_contingency(table).pvalue > 0.01
    # green-list overlap of two independent halves is hypergeometric(64, 32, 32): mean 16, variance 4.06
    hyper = stats.hypergeom(vocab, 32, 32)
    ov = np.asarray(overlaps, dtype=float)
    assert abs(ov.mean() - hyper.mean()) < 4 * np.sqrt(hyper.var() / n_ctx)
    assert 0.8 < ov.var() / hyper.var() < 1.2


# ---- HF integration --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make_model", [_tiny_llama, _tiny_gpt2])
def test_processor_in_generate_matches_reference_and_is_detected(make_model) -> None:
    torch.set_num_threads(1)
    model = make_model()
    secrets = [b"k-one", b"k-two"]
    proc = ENSLogitsProcessor(secrets, vocab_size=64)
    ids = torch.randint(0, 64, (2, 3), generator=torch.Generator().manual_seed(0))
    scores = model(ids).logits[:, -1]
    want = torch.stack(
        [
            ens_distribution(
                torch.softmax(scores[b].double(), -1),
                [keyed_permutation(s, (int(ids[b, -1]),), 64) for s in secrets],
                DiPmarkReweight(0.45),
            )
            for b in range(2)
        ]
    )
    assert torch.allclose(proc(ids, scores).double().exp(), want, atol=1e-6)
    torch.manual_seed(0)
    out = model.generate(
        ids,
        logits_processor=[proc],
        do_sample=True,
        max_new_tokens=60,
        pad_token_id=0,
        attention_mask=torch.ones_like(ids),
    )
    torch.manual_seed(0)
    plain = model.generate(
        ids, do_sample=True, max_new_tokens=60, pad_token_id=0, attention_mask=torch.ones_like(ids)
    )
    det = ENSDetector(secrets, 64)
    assert all(det.score(row, start=3).z > 4 for row in out)
    assert all(abs(det.score(row, start=3).z) < 3 for row in plain)


def test_processor_is_unbiased_over_keys_monte_carlo() -> None:
    scores = torch.tensor([[2.0, 1.0, 0.5, 0.0, -1.0, 0.3]])
    p = torch.softmax(scores.double(), -1)[0]
    ids = torch.tensor([[1, 4]])
    n = 3000
    acc = torch.zeros(6, dtype=torch.float64)
    for i in range(n):
        acc += ENSLogitsProcessor([b"a%d" % i, b"b%d" % i, b"c%d" % i], cache_size=0).distribution(
            ids, scores
        )[0]
    se = 0.5 / np.sqrt(n)
    assert torch.all((acc / n - p).abs() < 5 * se)


def test_context_width_two_and_kgw_reference_are_detected() -> None:
    torch.set_num_threads(1)
    model = _tiny_llama(seed=3)
    ids = torch.randint(0, 64, (2, 4), generator=torch.Generator().manual_seed(1))
    torch.manual_seed(1)
    proc = ENSLogitsProcessor([b"x", b"y", b"z"], base="gamma", context_width=2)
    out = model.generate(
        ids,
        logits_processor=[proc],
        do_sample=True,
        max_new_tokens=50,
        pad_token_id=0,
        attention_mask=torch.ones_like(ids),
    )
    det = ENSDetector([b"z", b"y", b"x"], 64, context_width=2)  # key order does not matter
    assert all(det.score(r, start=4).z > 4 for r in out)
    assert all(det.score(r, start=4).z < 3 for r in ids.repeat(1, 13))
    torch.manual_seed(2)
    kgw = model.generate(
        ids, logits_processor=[KGWLogitsProcessor(b"kgw")], do_sample=True, max_new_tokens=50
    )
    assert all(ENSDetector([b"kgw"], 64).score(r, start=4).z > 4 for r in kgw)


def test_vocab_mismatch_raises() -> None:
    proc = ENSLogitsProcessor([b"a"], vocab_size=10)
    with pytest.raises(ValueError, match="vocab_size mismatch"):
        proc(torch.tensor([[1]]), torch.zeros(1, 12))


# ---- attacks ------------------------------------------------------------------------------------------------


def test_attacks_keep_prompt_and_length_and_edit_the_requested_fraction() -> None:
    torch.set_num_threads(1)
    ids = torch.randint(0, 64, (4, 45), generator=torch.Generator().manual_seed(0))
    assert torch.equal(substitution_attack(ids, 0.0, 64, start=5), ids)
    sub = substitution_attack(ids, 1.0, 64, start=5, seed=1)
    assert torch.equal(sub[:, :5], ids[:, :5]) and (sub[:, 5:] != ids[:, 5:]).float().mean() > 0.9
    model = _tiny_gpt2()
    para = paraphrase_attack(model, ids, 0.5, start=5, span=5, seed=2)
    assert para.shape == ids.shape and torch.equal(para[:, :5], ids[:, :5])
    assert ((para != ids).sum(1) <= 20).all()
    smooth = smoothing_attack(model, ids, 0.2, start=5, seed=3)
    assert torch.equal(smooth[:, :5], ids[:, :5]) and (smooth != ids).any()
    assert torch.equal(regenerate_tokens(model, ids, torch.zeros_like(ids, dtype=torch.bool)), ids)


# ---- secrecy ------------------------------------------------------------------------------------------------


def test_repr_and_errors_never_reveal_secrets() -> None:
    secret = b"TOP-SECRET-KEY-42"
    for obj in (ENSLogitsProcessor([secret]), ENSDetector([secret], 16), KGWLogitsProcessor(secret)):
        assert "SECRET" not in repr(obj) and "SECRET" not in str(obj)
    with pytest.raises(ValueError) as err:
        ENSLogitsProcessor([secret, secret])
    assert "SECRET" not in str(err.value)


# ---- claim rule --------------------------------------------------------------------------------------------


def _row(
    gain50: float, gain100: float, drop: float, nll: float, exact: float = 0.0, base50: float = 0.5
) -> dict[str, float]:
    """Raw per-method metrics of one seed with the given TPR gains, tokens-to-detect reduction and NLL shift."""
    return {
        "tpr_dipmark_n1_t50": base50,
        "tpr_dipmark_n3_t50": base50 + gain50,
        "tpr_dipmark_n1_t100": 0.5,
        "tpr_dipmark_n3_t100": 0.5 + gain100,
        "ttd_median_dipmark_n1": 40.0,
        "ttd_median_dipmark_n3": 40.0 * (1.0 - drop),
        "nll_plain": 4.0,
        "nll_dipmark_n3": 4.0 * (1.0 + nll),
        "exact_unbiased_err": exact,
        "lm_nll_over_unigram": 0.83,
    }


def _old_rule(rows) -> Outcome:  # the main rule before the harness migration (refuted on "CI contains 0")
    from iclr26.harness.stats import t_interval

    def col(a, b):
        return np.array([r[a] - r[b] for r in rows])

    g50 = t_interval(col("tpr_dipmark_n3_t50", "tpr_dipmark_n1_t50"))
    g100 = t_interval(col("tpr_dipmark_n3_t100", "tpr_dipmark_n1_t100"))
    drop = t_interval(np.array([1 - r["ttd_median_dipmark_n3"] / r["ttd_median_dipmark_n1"] for r in rows]))
    nll = t_interval(np.array([(r["nll_dipmark_n3"] - r["nll_plain"]) / r["nll_plain"] for r in rows]))

    def passes(iv, m):
        return iv.lo > 0 and iv.estimate >= m

    detect50 = passes(g50, 0.10) and passes(drop, 0.25)
    if max(r["exact_unbiased_err"] for r in rows) > 1e-12 or nll.lo > 0 or nll.hi < 0:
        return Outcome.NOT_SUPPORTED
    if np.mean([r["tpr_dipmark_n1_t50"] for r in rows]) > 0.9:
        return Outcome.INCONCLUSIVE
    if detect50 and abs(nll.estimate) <= 0.01:
        return Outcome.SUPPORTED
    if detect50 or passes(g100, 0.10):
        return Outcome.INCONCLUSIVE
    return Outcome.NOT_SUPPORTED


def test_claim_decider_supported_not_supported_inconclusive() -> None:
    decide = ens_decider()
    good = [_row(0.3, 0.2, 0.5, 0.002), _row(0.35, 0.2, 0.45, -0.004), _row(0.28, 0.2, 0.55, 0.001)]
    assert decide(good).outcome is Outcome.SUPPORTED
    no_gain = [_row(0.01, 0.0, 0.0, 0.0), _row(-0.02, 0.01, 0.05, 0.001), _row(0.0, -0.01, -0.05, -0.001)]
    assert decide(no_gain).outcome is Outcome.NOT_SUPPORTED
    shifted = [_row(0.3, 0.2, 0.5, 0.05), _row(0.35, 0.2, 0.45, 0.051), _row(0.28, 0.2, 0.55, 0.049)]
    assert decide(shifted).outcome is Outcome.NOT_SUPPORTED
    late = [_row(0.02, 0.3, 0.1, 0.0), _row(-0.01, 0.25, 0.1, 0.001), _row(0.0, 0.3, 0.2, -0.001)]
    assert decide(late).outcome is Outcome.INCONCLUSIVE
    assert decide(good[:1]).outcome is Outcome.INCONCLUSIVE
    assert decide([_row(0.3, 0.2, 0.5, 0.0, exact=1e-3)] * 3).outcome is Outcome.NOT_SUPPORTED
    ceiling = [_row(0.0, 0.0, 0.6, 0.001, base50=1.0), _row(0.0, 0.0, 0.5, -0.002, base50=0.98)] * 2
    assert decide(ceiling).outcome is Outcome.INCONCLUSIVE
    # a gain whose interval contains 0 but also the claimed 10 points: no longer "not supported"
    wide = [_row(0.25, 0.0, 0.5, 0.001), _row(-0.1, 0.0, 0.5, -0.001), _row(0.15, 0.0, 0.5, 0.0)]
    assert _old_rule(wide) is Outcome.NOT_SUPPORTED and decide(wide).outcome is Outcome.INCONCLUSIVE


def test_claim_decider_changes_only_where_the_claimed_effect_is_not_excluded() -> None:
    """On random rows the new rule agrees with the old one, except that an old "not supported" from detection
    intervals that still contain the claimed effect is now "inconclusive"."""
    decide = ens_decider()
    rng = np.random.default_rng(0)
    changed = 0
    for _ in range(300):
        rows = [
            _row(
                *rng.normal([0.1, 0.1, 0.25, 0.0], [0.1, 0.1, 0.2, 0.01]),
                base50=float(rng.uniform(0.3, 0.95)),
            )
            for _ in range(3)
        ]
        old, new = _old_rule(rows), decide(rows).outcome
        if old is not new:
            assert (old, new) == (Outcome.NOT_SUPPORTED, Outcome.INCONCLUSIVE)
            changed += 1
    assert changed > 0


def test_preconditions_and_secondary_claims() -> None:
    from iclr26.inference.ens_watermark.experiment import EXPERIMENT

    claims = {c.id: c for c in EXPERIMENT.claims}
    good = [_row(0.3, 0.2, 0.5, 0.002), _row(0.35, 0.2, 0.45, -0.004), _row(0.28, 0.2, 0.55, 0.001)]
    assert claims["ens-fewer-tokens-same-quality"].judge(good).outcome is Outcome.SUPPORTED  # the LM learned
    untrained = [{**r, "lm_nll_over_unigram": 1.0} for r in good]
    for c in claims.values():
        assert c.judge([{**r, **_robust(0.1)} for r in untrained]).outcome is Outcome.NOT_REPRODUCED, c.id
    assert claims["ens-tokens-to-detect"].judge(good).outcome is Outcome.SUPPORTED
    robust = claims["ens-robust-substitution"]
    assert robust.judge([{**r, **_robust(0.05 + 0.01 * i)} for i, r in enumerate(good)]).outcome is (
        Outcome.SUPPORTED
    )
    assert robust.judge([{**r, **_robust(-0.05 - 0.01 * i)} for i, r in enumerate(good)]).outcome is (
        Outcome.NOT_SUPPORTED
    )


def _robust(gain: float) -> dict[str, float]:
    return {"tpr_dipmark_n1_substitution_eps0.2": 0.9, "tpr_dipmark_n3_substitution_eps0.2": 0.9 + gain}


def test_quality_decider_outcomes() -> None:
    decide = quality_decider()
    assert decide([_row(0, 0, 0, v) for v in (0.002, -0.004, 0.001)]).outcome is Outcome.SUPPORTED
    assert decide([_row(0, 0, 0, v) for v in (0.05, 0.051, 0.049)]).outcome is Outcome.NOT_SUPPORTED
    assert decide([_row(0, 0, 0, v) for v in (0.03, -0.01, 0.02)]).outcome is Outcome.INCONCLUSIVE


# --- devices -----------------------------------------------------------------------------------------------------


def test_cpu_sampler_draws_generates_token_and_masks_the_rest():
    """The last processor of a non-CPU run draws the token `generate` would draw on the CPU (same global
    generator, same softmax) and leaves the device's sampler a one-hot distribution."""
    from iclr26.inference.ens_watermark.experiment import _CPUSampler

    scores = torch.randn(6, 11, generator=torch.Generator().manual_seed(0))
    torch.manual_seed(123)
    expected = torch.multinomial(torch.softmax(scores, -1), num_samples=1)
    torch.manual_seed(123)
    out = _CPUSampler()(torch.zeros(6, 2, dtype=torch.long), scores)
    assert torch.equal(out.argmax(-1, keepdim=True), expected)
    assert torch.equal(torch.softmax(out, -1), torch.nn.functional.one_hot(expected[:, 0], 11).float())
