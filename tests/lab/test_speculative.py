"""The shared draft-then-verify loop: lossless greedy path == target greedy == transformers' assisted generation;
speculative sampling keeps the target's law; stats add up; caches roll back correctly."""

import numpy as np
import pytest
import torch
from scipy.stats import chisquare
from transformers import LlamaConfig, LlamaForCausalLM

from iclr26.lab.speculative import ExactMatchVerifier, SamplingVerifier, speculative_decode


def llama(seed, layers=2, vocab=48):
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        bos_token_id=None,
        eos_token_id=None,  # no early stop in generate(): the comparisons are over a fixed length
        pad_token_id=0,
    )
    return LlamaForCausalLM(cfg).double().eval()


@pytest.fixture(scope="module")
def pair():
    return llama(0), llama(1, layers=1)


@pytest.mark.parametrize("gamma", [1, 3, 6])
def test_exact_match_equals_target_greedy_and_assisted_generation(pair, gamma):
    target, drafter = pair
    for p in range(3):
        prompt = torch.randint(0, 48, (1, 5), generator=torch.Generator().manual_seed(p))
        ids, stats = speculative_decode(
            target, drafter, prompt, ExactMatchVerifier(), gamma=gamma, max_new_tokens=20
        )
        greedy = target.generate(prompt, max_new_tokens=20, do_sample=False, pad_token_id=0)
        assert torch.equal(ids, greedy)
        assisted = target.generate(
            prompt, assistant_model=drafter, max_new_tokens=20, do_sample=False, pad_token_id=0
        )
        assert torch.equal(ids, assisted)
        assert stats.emitted == 20 and stats.accepted <= stats.drafted
        assert stats.target_forwards >= stats.draft_rounds


def test_identical_drafter_accepts_everything(pair):
    target, _ = pair
    prompt = torch.tensor([[3, 1, 4, 1, 5]])
    _, stats = speculative_decode(target, target, prompt, ExactMatchVerifier(), gamma=4, max_new_tokens=21)
    assert stats.acceptance_rate == 1.0 and stats.target_forwards == 5  # 4 rounds of 4+1, then one of 0+1
    assert stats.acceptance_length == pytest.approx(21 / 5)


def test_sampling_verifier_emits_the_targets_law():
    gen = torch.Generator().manual_seed(0)
    v = 6
    t_logits = torch.randn(2, v, generator=gen, dtype=torch.float64)
    d_logits = torch.randn(1, v, generator=gen, dtype=torch.float64)
    p = torch.softmax(t_logits[0], -1).numpy()
    q = torch.softmax(d_logits[0], -1)
    verifier = SamplingVerifier()
    counts = np.zeros(v)
    n = 20000
    for _ in range(n):
        x = torch.multinomial(q, 1, generator=gen)
        n_acc, nxt = verifier(t_logits, d_logits, x, gen)
        counts[int(x) if n_acc == 1 else nxt] += 1
    assert chisquare(counts, p * n).pvalue > 1e-3


def test_sampling_path_runs_end_to_end_with_stochastic_drafts(pair):
    target, drafter = pair

    def sample(logits, gen):
        return int(torch.multinomial(torch.softmax(logits, -1), 1, generator=gen))

    prompt = torch.tensor([[2, 7, 1]])
    a = speculative_decode(
        target, drafter, prompt, SamplingVerifier(), gamma=3, max_new_tokens=12, draft_sampler=sample, seed=4
    )
    b = speculative_decode(
        target, drafter, prompt, SamplingVerifier(), gamma=3, max_new_tokens=12, draft_sampler=sample, seed=4
    )
    assert torch.equal(a[0], b[0]) and a[0].shape == (1, 15)


def test_eos_stops_generation(pair):
    target, drafter = pair
    prompt = torch.tensor([[5, 6]])
    ids, _ = speculative_decode(target, drafter, prompt, ExactMatchVerifier(), max_new_tokens=10)
    eos = int(ids[0, 4])
    ids2, stats = speculative_decode(
        target, drafter, prompt, ExactMatchVerifier(), max_new_tokens=10, eos_token_id=eos
    )
    stop = ids[0, 2:].tolist().index(eos) + 3
    assert ids2[0].tolist() == ids[0, :stop].tolist()


def test_bad_inputs_are_named(pair):
    target, drafter = pair
    with pytest.raises(ValueError, match="batch size 1"):
        speculative_decode(target, drafter, torch.zeros(2, 3, dtype=torch.long), ExactMatchVerifier())
    with pytest.raises(ValueError, match="gamma"):
        speculative_decode(
            target, drafter, torch.zeros(1, 3, dtype=torch.long), ExactMatchVerifier(), gamma=0
        )
    with pytest.raises(ValueError, match="vocabulary"):
        speculative_decode(
            target, llama(2, vocab=50), torch.zeros(1, 3, dtype=torch.long), ExactMatchVerifier()
        )
    with pytest.raises(ValueError, match="temperature"):
        SamplingVerifier(0.0)
