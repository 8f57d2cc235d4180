"""Oracle tests of FLy: the verification rule on hand-built logits, losslessness with the window disabled, the
KV-cache path against a no-cache recompute, and the n-gram drafter level never changing the drafter's output."""

from __future__ import annotations

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from iclr26.inference.fly import FlyVerifier, NgramDrafter, generate, ngram_propose, top_k_entropy, verify
from iclr26.lab.speculative import ExactMatchVerifier, speculative_decode

V = 10


def _logits(argmaxes: list[int], uncertain: bool = True) -> torch.Tensor:
    """(1, K, V) logits with the given argmax per row; high top-3 entropy if uncertain, near one-hot if not."""
    z = torch.full((1, len(argmaxes), V), -20.0, dtype=torch.float64)
    for i, a in enumerate(argmaxes):
        if uncertain:
            z[0, i, :] = 0.0  # near uniform: top-3 entropy = 3 * 0.1 * log 10 ~ 0.69
        z[0, i, a] = 0.5 if uncertain else 20.0
    return z


def _drafts_for(pattern: list[int], argmaxes: list[int]) -> torch.Tensor:
    return torch.tensor([[a if m else (a + 1) % V for a, m in zip(argmaxes, pattern)]])


ARG = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8]  # K = 12


def test_entropy_is_top3_unnormalised():
    z = torch.log(torch.tensor([[0.5, 0.2, 0.2, 0.1]], dtype=torch.float64))
    expect = -(0.5 * torch.log(torch.tensor(0.5)) + 2 * 0.2 * torch.log(torch.tensor(0.2)))
    assert torch.allclose(top_k_entropy(z, 3), expect.double())


def test_window_pattern_forgiven():
    pattern = [0, 1, 1, 1, 1, 1] + [1] * 6
    acc, rec = verify(_logits(ARG), _drafts_for(pattern, ARG), window=6)
    assert acc.all() and rec.tolist() == [ARG]


def test_broken_window_not_forgiven():
    pattern = [0, 1, 1, 0] + [1] * 8
    acc, _ = verify(_logits(ARG), _drafts_for(pattern, ARG), window=6)
    assert not acc.any()


def test_low_entropy_mismatch_never_forgiven():
    pattern = [0] + [1] * 11
    acc, _ = verify(_logits(ARG, uncertain=False), _drafts_for(pattern, ARG), window=6, entropy_threshold=0.3)
    assert not acc.any()
    # same tokens, gate off: the window forgives it
    acc, _ = verify(_logits(ARG, uncertain=False), _drafts_for(pattern, ARG), window=6, use_gate=False)
    assert acc.all()
    # gate-only ablation: a high-entropy mismatch is accepted without any window
    acc, _ = verify(_logits(ARG), _drafts_for([1, 0, 0] + [1] * 9, ARG), use_window=False, truncate=False)
    assert acc.all()


@pytest.mark.parametrize("pos", range(12))
def test_last_w_positions_only_exact(pos):
    pattern = [1] * 12
    pattern[pos] = 0
    acc, _ = verify(_logits(ARG), _drafts_for(pattern, ARG), window=6, truncate=False)
    assert bool(acc[0, pos]) == (pos < 12 - 6)


def test_mask_prefix_consistent_and_exact_limit():
    gen = torch.Generator().manual_seed(0)
    for _ in range(50):
        z = torch.randn(3, 9, V, generator=gen, dtype=torch.float64) * 0.5
        d = torch.where(
            torch.rand(3, 9, generator=gen) < 0.7, z.argmax(-1), torch.randint(0, V, (3, 9), generator=gen)
        )
        acc, rec = verify(z, d, window=3, entropy_threshold=0.1)
        assert torch.equal(acc, acc.long().cumprod(-1).bool())
        raw, _ = verify(z, d, window=3, entropy_threshold=0.1, truncate=False)
        assert torch.equal(acc, raw.long().cumprod(-1).bool())
        exact, _ = verify(z, d, window=None)
        assert torch.equal(exact, (rec == d).long().cumprod(-1).bool())
        assert (acc | ~exact).all()  # FLy accepts a superset of exact match


def test_sabotage_window_rule_is_checked():
    """A variant that forgives every high-entropy mismatch (no window) breaks the (0,1,1,0,..) oracle."""
    pattern = [0, 1, 1, 0] + [1] * 8
    acc, _ = verify(_logits(ARG), _drafts_for(pattern, ARG), use_window=False)
    assert acc.any()  # the broken rule forgives: the oracle above would fail on it


def _pair(seed: int, vocab: int = 16) -> tuple[GPT2LMHeadModel, GPT2LMHeadModel]:
    torch.manual_seed(seed)
    cfg = GPT2Config(
        vocab_size=vocab, n_embd=16, n_layer=2, n_head=2, n_positions=128, bos_token_id=0, eos_token_id=0
    )
    target = GPT2LMHeadModel(cfg).double().eval()
    dcfg = GPT2Config(
        vocab_size=vocab, n_embd=8, n_layer=1, n_head=2, n_positions=128, bos_token_id=0, eos_token_id=0
    )
    return target, GPT2LMHeadModel(dcfg).double().eval()


PROMPTS = ([1, 2, 3], [4, 5, 4, 5, 4], [7, 3, 9, 1, 7, 3])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_window_disabled_is_lossless(seed):
    target, drafter = _pair(seed)
    for p in PROMPTS:
        prompt = torch.tensor([p])
        greedy = target.generate(prompt, max_new_tokens=20, do_sample=False, pad_token_id=0)
        for ng in (False, True):
            ids, st = generate(
                target, drafter, prompt, 20, k=4, window=None, ngram_drafter=ng, eos_token_id=0
            )
            assert torch.equal(ids, greedy)  # both stop at eos (id 0) or after 20 tokens
            assert st.emitted == greedy.shape[1] - len(p) and st.mismatches_forgiven == 0


def test_fly_forgives_and_stats_consistent():
    target, drafter = _pair(3)
    prompt = torch.tensor([PROMPTS[0]])
    ids, st = generate(target, drafter, prompt, 24, k=6, window=2, entropy_threshold=0.0)
    assert ids.shape[1] == 3 + 24 and st.emitted == 24
    assert 0 <= st.mismatches_forgiven <= st.mismatches
    assert st.accepted + st.target_forwards == st.emitted or st.emitted == 24


def _no_cache_fly(target, drafter, prompt, n_new, k, window, theta):
    """Slow reference: recompute every forward from scratch (no KV caches, no shared loop)."""
    seq = prompt[0].tolist()
    n0 = len(seq)
    while len(seq) - n0 < n_new:
        kk = min(k, n_new - (len(seq) - n0) - 1)
        drafts: list[int] = []
        for _ in range(kk):
            drafts.append(int(drafter(torch.tensor([seq + drafts])).logits[0, -1].argmax()))
        z = target(torch.tensor([seq + drafts])).logits[0, -(kk + 1) :].double()
        acc, rec = verify(z[None, :kk], torch.tensor([drafts], dtype=torch.long), window, theta)
        n = int(acc.sum())
        seq += drafts[:n] + [int(rec[0, n]) if n < kk else int(z[kk].argmax())]
    return torch.tensor([seq])


@torch.no_grad()
def test_cache_path_equals_recompute():
    target, drafter = _pair(4)
    for p in PROMPTS[:2]:
        prompt = torch.tensor([p])
        ref = _no_cache_fly(target, drafter, prompt, 16, 5, 2, 0.0)
        ids, st = generate(target, drafter, prompt, 16, k=5, window=2, entropy_threshold=0.0)
        assert torch.equal(ids, ref)


def test_ngram_propose_and_drafter_level_lossless():
    assert ngram_propose([1, 2, 3, 9, 9, 1, 2, 3], max_ngram=4, num_pred=2) == [9, 9]
    assert ngram_propose([1, 2, 3]) == []
    _, drafter = _pair(5)
    for p in PROMPTS:
        prompt = torch.tensor([p])
        seq = list(p)
        with torch.no_grad():
            for _ in range(20):  # plain greedy recompute, no eos stop
                seq.append(int(drafter(torch.tensor([seq])).logits[0, -1].argmax()))
        greedy = torch.tensor([seq])
        wrapped = NgramDrafter(drafter, 4, 6)
        ids, _ = speculative_decode(
            wrapped, wrapped, prompt, ExactMatchVerifier(), gamma=5, max_new_tokens=20
        )
        assert torch.equal(ids, greedy)
        ids2, _ = speculative_decode(
            drafter, wrapped, prompt, ExactMatchVerifier(), gamma=5, max_new_tokens=20
        )
        assert torch.equal(ids2, greedy)


def test_verifier_counts():
    v = FlyVerifier(window=2, entropy_threshold=0.0)
    z = _logits([1, 2, 3, 4])[0]
    z = torch.cat([z, z[:1]])
    n, nxt = v(z, z[:4], torch.tensor([0, 2, 0, 0]), torch.Generator())
    assert (n, nxt) == (2, 3) and v.mismatches == 2 and v.forgiven == 1


def _claim_rows(kept, ratio, speedup_sd=1.2, target=(0.40, 0.35, 0.32), over_majority=0.3):
    return [
        {
            "acc_target": t,
            "acc_fly": t * k,
            "tau_sd": 2.7,
            "tau_fly": 2.7 * r,
            "speedup_sd": speedup_sd,
            "acc_target_over_majority": over_majority,
        }
        for t, k, r in zip(target, kept, ratio)
    ]


def _fly_claim(claim_id="fly-keeps-accuracy-longer-acceptance"):
    from iclr26.inference.fly.experiment import EXPERIMENT

    return next(c for c in EXPERIMENT.claims if c.id == claim_id)


def test_claim_decider_three_outcomes():
    from iclr26.harness.claims import Outcome
    from iclr26.inference.fly.claim_check import fly_decider

    good = _claim_rows([1.0, 1.0, 0.995], [1.30, 1.32, 1.31])
    assert fly_decider(good).outcome == Outcome.SUPPORTED
    lossy = _claim_rows([0.80, 0.82, 0.81], [1.30, 1.32, 1.31])
    assert fly_decider(lossy).outcome == Outcome.NOT_SUPPORTED
    no_gain = _claim_rows([1.0, 1.0, 1.0], [1.00, 1.01, 1.02])  # the interval lies below the claimed 1.10
    assert fly_decider(no_gain).outcome == Outcome.NOT_SUPPORTED
    middle = _claim_rows([0.98, 0.98, 0.98], [1.30, 1.32, 1.31])
    assert fly_decider(middle).outcome == Outcome.INCONCLUSIVE


def test_tau_interval_reaching_one_is_not_a_refutation():
    from iclr26.harness.claims import Outcome
    from iclr26.inference.fly.claim_check import fly_decider

    wide = fly_decider(_claim_rows([1.0, 1.0, 1.0], [0.95, 1.25, 1.10]))
    assert wide.outcome == Outcome.INCONCLUSIVE  # the old rule refuted it (lower end <= 1)


def test_claim_inconclusive_when_exact_sd_is_slower_than_the_target():
    from iclr26.harness.claims import Outcome
    from iclr26.inference.fly.claim_check import fly_decider

    # the brief's guard: exact SD below 1x wall-clock speedup means report tau only
    assert (
        fly_decider(_claim_rows([1.0, 1.0, 0.995], [1.3, 1.32, 1.31], 0.45)).outcome == Outcome.INCONCLUSIVE
    )
    assert (
        fly_decider(_claim_rows([0.15, 0.16, 0.14], [1.18, 1.2, 1.16], 0.45)).outcome == Outcome.INCONCLUSIVE
    )


def test_claim_sabotage_tau_of_exact_sd_in_place_of_fly():
    from iclr26.harness.claims import Outcome
    from iclr26.inference.fly.claim_check import fly_decider

    rows = [{**r, "tau_fly": r["tau_sd"]} for r in _claim_rows([1.0, 1.0, 1.0], [1.3, 1.32, 1.31])]
    assert fly_decider(rows).outcome == Outcome.NOT_SUPPORTED


def test_target_precondition():
    from iclr26.harness.claims import Outcome

    claim = _fly_claim()
    good = _claim_rows([1.0, 1.0, 0.995], [1.30, 1.32, 1.31])
    assert claim.judge(good).outcome == Outcome.SUPPORTED  # a target that learned gives a real verdict
    weak = _claim_rows([1.0, 1.0, 0.995], [1.30, 1.32, 1.31], target=(0.08, 0.06, 0.07), over_majority=0.01)
    assert claim.judge(weak).outcome == Outcome.NOT_REPRODUCED
    wall = _fly_claim("fly-wallclock")
    rows = [{**r, "speedup_fly": 1.5 + 0.01 * i} for i, r in enumerate(good)]
    assert wall.judge(rows).outcome == Outcome.SUPPORTED
    assert (
        wall.judge([{**r, "acc_target_over_majority": 0.0} for r in rows]).outcome == Outcome.NOT_REPRODUCED
    )


# --- devices -----------------------------------------------------------------------------------------------------


def test_a_given_verifier_replaces_the_built_one():
    from functools import partial

    from iclr26.lab.registry import components

    target, drafter = _pair(4)
    prompt = torch.tensor([PROMPTS[1]])
    roster = {c.name: c for c in components("verifier", paper="fly")}
    assert set(roster) == {"exact-sd", "fly"} and roster["exact-sd"].option("lossless")
    for case, kw in (
        (roster["exact-sd"].case, {"window": None}),
        (partial(roster["fly"].case, window=2), {"window": 2}),
    ):
        a, sa = generate(target, drafter, prompt, 16, k=5, verifier=case(), eos_token_id=0)
        b, sb = generate(target, drafter, prompt, 16, k=5, eos_token_id=0, **kw)
        assert torch.equal(a, b) and (sa.mismatches, sa.mismatches_forgiven) == (
            sb.mismatches,
            sb.mismatches_forgiven,
        )
    with pytest.raises(TypeError, match="^verifier must be a FlyVerifier"):
        generate(target, drafter, prompt, 4, verifier=ExactMatchVerifier())
