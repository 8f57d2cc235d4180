"""Property-based battery (hypothesis) over the public components' documented argument ranges.

Inside the documented range a component must run and keep its contract (an oracle or an invariant); outside it,
it must raise a ValueError/TypeError whose message names the argument. Examples are drawn deterministically
(``derandomize``), so a failure reproduces on every run and CI never flakes; hypothesis prints the shrunk
counterexample.

Covered: the one validation module, dense attention against torch's SDPA, ALiBi as a score_mod against its dense
bias, the chunked rank-generalized linear-attention core against its recurrence, exact-match speculative decoding
against the target's greedy decoding, every registered verifier of the speculative-decoding loop (valid,
reproducible decisions; greedy ones accept the target's argmax and ignore the generator; lossless ones keep the
target's greedy decoding or its law), every project optimizer of the optimizer battery over gradient scales,
and the ENS watermark's processor and detector; test_properties_vision.py covers the vision components, and
test_properties_public.py every public callable of every paper (each int/float/bool argument and config field,
one at a time, at NaN, +/-inf, a string, None, a bool, a float for an int and a negative size, must be refused by
name; the default call must succeed).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iclr26.checks import check_float, check_int, check_token_ids
from iclr26.lab.registry import components

FAST = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


# --- the validation module -----------------------------------------------------------------------------------
@FAST
@given(low=finite, width=st.floats(0, 1e6), frac=st.floats(0, 1))
def test_check_float_accepts_its_range_and_returns_the_value(low, width, frac):
    high = low + width
    if not math.isfinite(high):
        return
    x = min(high, low + frac * width)
    assert check_float("x", x, low, high) == x


@FAST
@given(low=st.floats(-1e6, 1e6), gap=st.floats(1e-3, 1e6), above=st.booleans())
def test_check_float_refuses_outside_and_names_the_argument(low, gap, above):
    high = low + 1.0
    x = high + gap if above else low - gap
    with pytest.raises(ValueError, match=r"^rate must be a finite float in \["):
        check_float("rate", x, low, high)


@FAST
@given(x=st.sampled_from([float("nan"), float("inf"), float("-inf"), "1", None, True, [1.0]]))
def test_check_float_refuses_non_numbers_nan_and_infinity(x):
    with pytest.raises(ValueError, match="^lr must be"):
        check_float("lr", x, low=0.0)


@FAST
@given(low=st.integers(-1000, 1000), n=st.integers(0, 1000), value=st.integers(-3000, 3000))
def test_check_int_is_exactly_the_closed_range(low, n, value):
    high = low + n
    if low <= value <= high:
        assert check_int("n", value, low, high) == value
    else:
        with pytest.raises(ValueError, match="^n must be an int"):
            check_int("n", value, low, high)


@FAST
@given(vocab=st.integers(2, 50), ids=st.lists(st.integers(-5, 60), min_size=1, max_size=12))
def test_check_token_ids_is_exactly_the_vocabulary(vocab, ids):
    t = torch.tensor([ids])
    if all(0 <= i < vocab for i in ids):
        assert check_token_ids("ids", t, vocab) is t
    else:
        with pytest.raises(ValueError, match=rf"^ids must hold token ids in \[0, {vocab}\)"):
            check_token_ids("ids", t, vocab)


# --- attention -----------------------------------------------------------------------------------------------
shapes = st.tuples(
    st.integers(1, 2), st.integers(1, 3), st.integers(1, 9), st.integers(1, 9), st.integers(1, 8)
)


def _qkv(b, h, tq, tk, d, seed):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(b, h, n, d, generator=gen, dtype=torch.float64) for n in (tq, tk, tk))


@FAST
@given(shape=shapes, scale=st.floats(1e-3, 10.0), seed=st.integers(0, 2**16))
def test_dense_attention_equals_sdpa_for_any_shape_and_scale(shape, scale, seed):
    from iclr26.lab import flex

    q, k, v = _qkv(*shape, seed)
    out, w = flex.attention(q, k, v, scale=scale, backend="dense", return_weights=True)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
    assert torch.allclose(out, ref, atol=1e-10)
    assert torch.allclose(w.sum(-1), torch.ones((), dtype=w.dtype), atol=1e-12) and bool((w >= 0).all())


@FAST
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_causal_mask_equals_sdpa_is_causal(shape, seed):
    from iclr26.lab import flex

    b, h, t, _, d = shape
    q, k, v = _qkv(b, h, t, t, d, seed)
    out = flex.attention(q, k, v, mask_mod=flex.causal, backend="dense")
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert torch.allclose(out, ref, atol=1e-10)


@FAST
@given(scale=st.sampled_from([0.0, -1.0, float("nan"), float("inf"), "x", True]))
def test_attention_refuses_a_bad_scale_by_name(scale):
    from iclr26.lab import flex

    q, k, v = _qkv(1, 1, 2, 2, 4, 0)
    with pytest.raises(ValueError, match="^scale must be"):
        flex.attention(q, k, v, scale=scale, backend="dense")


@FAST
@given(
    heads=st.integers(1, 4),
    tq=st.integers(1, 8),
    tk=st.integers(1, 8),
    slopes=st.lists(st.floats(0.0, 2.0), min_size=4, max_size=4),
    seed=st.integers(0, 2**16),
)
def test_alibi_score_mod_equals_its_dense_bias(heads, tq, tk, slopes, seed):
    from iclr26.lab import flex

    q, k, v = _qkv(1, heads, tq, tk, 4, seed)
    s = slopes[:heads]
    a = flex.attention(q, k, v, score_mod=flex.alibi(s), backend="dense")
    b = flex.attention(q, k, v, bias=flex.alibi_bias(s, tq, tk).double(), backend="dense")
    assert torch.allclose(a, b, atol=1e-10)
    wrong = [0.5] * (heads + 1)
    with pytest.raises(ValueError, match="score_mod is built for"):
        flex.attention(q, k, v, score_mod=flex.alibi(wrong), backend="dense")


# --- the chunked linear-attention core -----------------------------------------------------------------------
@FAST
@given(
    r_ab=st.integers(0, 2),
    r_kv=st.integers(1, 2),
    t=st.integers(1, 11),
    chunk=st.integers(1, 8),
    decay=st.floats(0.0, 5.0),
    seed=st.integers(0, 2**16),
)
def test_rank_generalized_chunk_equals_its_recurrence(r_ab, r_kv, t, chunk, decay, seed):
    from iclr26.lab.linear_attention import rank_generalized_chunk, rank_generalized_recurrence

    gen = torch.Generator().manual_seed(seed)
    b, h, dk, dv = 1, 2, 3, 2

    def rnd(*shape, s=1.0):
        return torch.randn(*shape, generator=gen, dtype=torch.float64) * s

    x = {
        "q": rnd(b, t, h, dk),
        "k": rnd(b, t * r_kv, h, dk),
        "v": rnd(b, t * r_kv, h, dv),
        "a": rnd(b, t * r_ab, h, dk, s=0.3),
        "b": rnd(b, t * r_ab, h, dk, s=0.3),
        "log_f": -torch.rand(b, t, h, dk, generator=gen, dtype=torch.float64) * decay,
    }
    o1, s1 = rank_generalized_recurrence(**x, r_ab=r_ab, r_kv=r_kv)
    o2, s2 = rank_generalized_chunk(**x, r_ab=r_ab, r_kv=r_kv, chunk_size=chunk)
    scale = max(1.0, float(o1.abs().max()))
    assert float((o1 - o2).abs().max()) < 1e-8 * scale
    assert float((s1 - s2).abs().max()) < 1e-8 * max(1.0, float(s1.abs().max()))
    bad = x | {"log_f": x["log_f"].clone()}
    bad["log_f"][0, t - 1, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="^log_f must be"):
        rank_generalized_chunk(**bad, r_ab=r_ab, r_kv=r_kv, chunk_size=chunk)


# --- speculative decoding ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lm_pair():
    from transformers import LlamaConfig, LlamaForCausalLM

    def llama(seed, layers):
        torch.manual_seed(seed)
        cfg = LlamaConfig(
            vocab_size=32,
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=layers,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=64,
            bos_token_id=None,
            eos_token_id=None,
            pad_token_id=0,
        )
        return LlamaForCausalLM(cfg).double().eval()

    return llama(0, 2), llama(1, 1)


def _greedy(model, ids, n):
    seq = ids[0].tolist()
    with torch.no_grad():
        for _ in range(n):
            seq.append(int(model(torch.tensor([seq])).logits[0, -1].argmax()))
    return seq


@settings(FAST, max_examples=12)
@given(
    prompt=st.lists(st.integers(0, 31), min_size=1, max_size=5),
    gamma=st.integers(1, 6),
    new=st.integers(1, 8),
)
def test_exact_match_speculative_decoding_is_the_targets_greedy_decoding(lm_pair, prompt, gamma, new):
    from iclr26.lab.speculative import ExactMatchVerifier, speculative_decode

    target, drafter = lm_pair
    ids = torch.tensor([prompt])
    out, stats = speculative_decode(
        target, drafter, ids, ExactMatchVerifier(), gamma=gamma, max_new_tokens=new
    )
    assert out[0].tolist() == _greedy(target, ids, new)
    assert 0.0 <= stats.acceptance_rate <= 1.0


@FAST
@given(
    arg=st.sampled_from(["gamma", "max_new_tokens", "seed"]),
    value=st.sampled_from([0, -1, 1.5, True, "2", None]),
)
def test_speculative_decode_refuses_bad_counts_by_name(lm_pair, arg, value):
    from iclr26.lab.speculative import ExactMatchVerifier, speculative_decode

    if arg == "seed" and value == 0:
        return  # seed 0 is valid
    target, drafter = lm_pair
    with pytest.raises(ValueError, match=f"^{arg} must be an int"):
        speculative_decode(target, drafter, torch.tensor([[1, 2]]), ExactMatchVerifier(), **{arg: value})


# --- optimizers ----------------------------------------------------------------------------------------------
OPTIMIZERS = [pytest.param(c.case, id=c.id) for c in components("optimizer") if c.option("refuses_nonfinite")]


@pytest.mark.parametrize("factory", OPTIMIZERS)
@settings(FAST, max_examples=10)
@given(log_scale=st.floats(-8.0, 8.0), seed=st.integers(0, 2**16))
def test_optimizer_steps_stay_finite_over_gradient_scales(factory, log_scale, seed):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    opts = factory(model)
    opts = list(opts) if isinstance(opts, (list, tuple)) else [opts]
    for _ in range(3):
        for p in model.parameters():
            p.grad = torch.randn_like(p) * 10.0**log_scale
        for o in opts:
            o.step()
    assert all(bool(torch.isfinite(p).all()) for p in model.parameters())


# --- the ENS watermark ---------------------------------------------------------------------------------------
@FAST
@given(
    n_keys=st.integers(1, 3),
    vocab=st.integers(2, 24),
    width=st.integers(1, 3),
    data=st.data(),
)
def test_ens_processor_returns_a_distribution_for_any_context(n_keys, vocab, width, data):
    from iclr26.inference.ens_watermark import ENSLogitsProcessor

    ctx = data.draw(st.lists(st.integers(0, vocab - 1), min_size=width, max_size=width + 3))
    logits = torch.tensor([data.draw(st.lists(st.floats(-20, 20), min_size=vocab, max_size=vocab))])
    proc = ENSLogitsProcessor([bytes([i]) for i in range(n_keys)], context_width=width, vocab_size=vocab)
    p = proc.distribution(torch.tensor([ctx]), logits)
    assert p.shape == (1, vocab) and bool((p >= 0).all()) and abs(float(p.sum()) - 1.0) < 1e-9
    with pytest.raises(ValueError, match="^input_ids must hold token ids"):
        proc(torch.tensor([[*ctx[:-1], vocab]]), logits)


@FAST
@given(
    n_keys=st.integers(1, 3),
    vocab=st.integers(2, 40),
    width=st.integers(1, 3),
    data=st.data(),
)
def test_ens_detector_gives_a_p_value_for_any_scorable_text(n_keys, vocab, width, data):
    from iclr26.inference.ens_watermark import ENSDetector

    ids = data.draw(st.lists(st.integers(0, vocab - 1), min_size=width + 1, max_size=40))
    det = ENSDetector([bytes([i]) for i in range(n_keys)], vocab_size=vocab, context_width=width)
    res = det.score(ids)
    assert math.isfinite(res.z) and 0.0 <= res.p_value <= 1.0
    assert res.per_key_counts.shape == (n_keys,) and int(res.per_key_counts.max()) <= len(ids) - width
    with pytest.raises(ValueError, match="no token is scored"):
        det.score(np.asarray(ids[:width]))


# --- the verifier family: every registered verifier of the speculative-decoding loop ---------------------------
VERIFIERS = [pytest.param(c, id=c.id) for c in components("verifier")]
GREEDY = [p for p in VERIFIERS if p.values[0].option("greedy")]
LOSSLESS_GREEDY = [p for p in GREEDY if p.values[0].option("lossless")]
LOSSLESS_SAMPLING = [
    p for p in VERIFIERS if p.values[0].option("lossless") and not p.values[0].option("greedy")
]


def _verifier_inputs(k, v, seed):
    """Random target logits (K+1, V), draft logits (K, V) and drafted ids (K,)."""
    gen = torch.Generator().manual_seed(seed)
    target = torch.randn(k + 1, v, generator=gen, dtype=torch.float64) * 3
    draft = torch.randn(k, v, generator=gen, dtype=torch.float64) * 3
    return target, draft, torch.randint(0, v, (k,), generator=gen)


def _decide(component, target, draft, ids, seed):
    """One decision of a fresh verifier from the component's case, with a generator seeded by `seed`."""
    return component.case()(target, draft, ids, torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("component", VERIFIERS)
@settings(FAST, max_examples=15)
@given(k=st.integers(0, 6), v=st.integers(2, 12), seed=st.integers(0, 2**16))
def test_verifier_decision_is_in_range_and_reproducible(component, k, v, seed):
    target, draft, ids = _verifier_inputs(k, v, seed)
    n, nxt = _decide(component, target, draft, ids, seed)
    assert 0 <= n <= k and 0 <= nxt < v
    assert _decide(component, target, draft, ids, seed) == (n, nxt)


@pytest.mark.parametrize("component", GREEDY)
@settings(FAST, max_examples=15)
@given(k=st.integers(0, 6), v=st.integers(2, 12), seed=st.integers(0, 2**16), other=st.integers(0, 2**16))
def test_greedy_verifier_accepts_the_targets_argmax_and_ignores_the_generator(component, k, v, seed, other):
    target, draft, ids = _verifier_inputs(k, v, seed)
    assert _decide(component, target, draft, ids, seed) == _decide(component, target, draft, ids, other)
    n, _ = _decide(component, target, draft, target[:k].argmax(-1), seed)
    assert n == k


@pytest.mark.parametrize("component", LOSSLESS_GREEDY)
@settings(FAST, max_examples=8)
@given(
    prompt=st.lists(st.integers(0, 31), min_size=1, max_size=5),
    gamma=st.integers(1, 6),
    new=st.integers(1, 8),
)
def test_lossless_greedy_verifier_decodes_as_the_targets_greedy(lm_pair, component, prompt, gamma, new):
    from iclr26.lab.speculative import speculative_decode

    target, drafter = lm_pair
    ids = torch.tensor([prompt])
    out, _ = speculative_decode(target, drafter, ids, component.case(), gamma=gamma, max_new_tokens=new)
    assert out[0].tolist() == _greedy(target, ids, new)


@pytest.mark.parametrize("component", LOSSLESS_SAMPLING)
@settings(FAST, max_examples=4)
@given(v=st.integers(2, 6), seed=st.integers(0, 2**16))
def test_lossless_sampling_verifier_emits_the_targets_law(component, v, seed):
    """One drafted position (K = 1), the draft sampled from the drafter's law: the first emitted token (the
    draft if accepted, else the verifier's next token) follows the target's law (chi-square at level 1e-3, cells
    expected below 5 draws pooled)."""
    from scipy.stats import chisquare

    gen = torch.Generator().manual_seed(seed)
    target = torch.randn(2, v, generator=gen, dtype=torch.float64) * 1.5
    draft = torch.randn(1, v, generator=gen, dtype=torch.float64) * 1.5
    p_draft = torch.softmax(draft[0], -1)
    verifier, draws = component.case(), 3000
    counts = np.zeros(v)
    for _ in range(draws):
        x = torch.multinomial(p_draft, 1, generator=gen)
        n, nxt = verifier(target, draft, x, gen)
        counts[int(x) if n == 1 else nxt] += 1
    expected = torch.softmax(target[0], -1).numpy() * draws
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if len(expected) < 2:
        return  # the target puts (nearly) all its mass on one token: nothing to test
    assert chisquare(counts, expected).pvalue > 1e-3
