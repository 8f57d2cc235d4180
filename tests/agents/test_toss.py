"""Oracle and property tests of the TOSS token scoring, selection and selective SFT."""

import math

import numpy as np
import pytest
import torch

from iclr26.agents.toss import (
    World,
    first_k_masks,
    masked_loss,
    masked_sft,
    random_masks,
    risk_scores,
    sample_filter_masks,
    select,
    token_losses,
)
from iclr26.agents.toss.claim_check import bootstrap_delta_var
from iclr26.agents.toss.world import VOCAB_SIZE, Example
from iclr26.lab.tinylm import TinyLMConfig, build_model


def _model(seed=0, dtype=torch.float32):
    m = build_model(
        TinyLMConfig(arch="gpt2", d_model=32, n_layers=1, n_heads=2, seq_len=48, seed=seed), VOCAB_SIZE
    )
    return m.to(dtype).eval()


@pytest.fixture(scope="module")
def data():
    return World().custom_set(np.random.default_rng(0), 40)


def _slow_losses(model, dataset):
    """Per-token reference: one forward pass per (sample, response position), unpadded."""
    out = []
    with torch.no_grad():
        for e in dataset:
            vals = []
            for t in range(len(e.response)):
                ctx = torch.tensor([[*e.prompt, *e.response[:t]]])
                logp = torch.log_softmax(model(input_ids=ctx).logits[0, -1].double(), -1)
                vals.append(-float(logp[e.response[t]]))
            out.append(torch.tensor(vals, dtype=torch.float64))
    return out


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.float64, 1e-10)])
def test_token_losses_match_slow_reference(data, dtype, tol):
    model = _model(1, dtype)
    fast = token_losses(model, data[:12], batch_size=5)
    slow = _slow_losses(model, data[:12])
    for f, s in zip(fast, slow):
        assert f.shape == s.shape
        assert torch.allclose(f.double(), s, atol=tol, rtol=0)


def test_risk_scores_sign_and_identical_models(data):
    u, h = token_losses(_model(1), data), token_losses(_model(2), data)
    r = risk_scores(u, h)
    assert all(
        torch.equal(ri, ui - hi) for ri, ui, hi in zip(r, u, h)
    )  # loss_util - loss_harm (released sign)
    zero = risk_scores(u, u)
    assert all(bool((z == 0).all()) for z in zero)
    m1, m2 = select(zero, 0.3), select(zero, 0.3)
    assert all(torch.equal(a, b) for a, b in zip(m1, m2))
    # ties: the earliest tokens are dropped first
    flat = torch.cat(m1)
    k = math.floor(0.3 * len(flat))
    assert not flat[:k].any() and flat[k:].all()


@pytest.mark.parametrize("ratio", [0.0, 0.1, 0.25, 0.5, 0.99])
def test_select_drops_exact_fraction(data, ratio):
    scores = risk_scores(token_losses(_model(1), data), token_losses(_model(2), data))
    masks = select(scores, ratio, dataset=data)
    n = sum(len(s) for s in scores)
    assert sum(int((~m).sum()) for m in masks) == math.floor(ratio * n)
    assert all(len(m) == len(e.response) for m, e in zip(masks, data))  # response positions only
    flat, keep = torch.cat(scores), torch.cat(masks)
    if 0 < keep.sum() < len(keep):
        assert flat[~keep].min() >= flat[keep].max()  # the dropped are the riskiest
    per = select(scores, ratio, level="sample")
    assert all(int((~m).sum()) == math.floor(ratio * len(m)) for m in per)
    assert sum(int((~m).sum()) for m in random_masks(data, ratio, 0)) == math.floor(ratio * n)


def test_sample_filter_budget_and_first_k(data):
    scores = [torch.arange(len(e.response), dtype=torch.float64) + i for i, e in enumerate(data)]
    masks = sample_filter_masks(scores, 0.2)
    n = sum(len(s) for s in scores)
    dropped = sum(int((~m).sum()) for m in masks)
    assert dropped >= math.floor(0.2 * n)
    assert all(bool(m.all()) or not bool(m.any()) for m in masks)  # whole samples only
    assert not masks[-1].any()  # the highest mean risk goes first
    f5 = first_k_masks(data, 5)
    assert all(bool((~m[:5]).all()) and bool(m[5:].all()) for m in f5)


def test_masked_loss_is_mean_over_retained(data):
    model = _model(3, torch.float64)
    batch = data[:6]
    masks = select(
        risk_scores(token_losses(model, batch), token_losses(_model(4, torch.float64), batch)), 0.4
    )
    per = token_losses(model, batch)
    by_hand = torch.cat([p[m] for p, m in zip(per, masks)]).mean()
    assert torch.allclose(masked_loss(model, batch, masks).detach(), by_hand, atol=1e-10)


def test_rho_zero_equals_sft(data):
    model = _model(5, torch.float64)
    full = [torch.ones(len(e.response), dtype=torch.bool) for e in data]
    masks0 = select([torch.randn(len(e.response)) for e in data], 0.0)
    assert all(bool(m.all()) for m in masks0)
    a, b = masked_loss(model, data[:8], None), masked_loss(model, data[:8], masks0[:8])
    ga = torch.autograd.grad(a, list(model.parameters()))
    gb = torch.autograd.grad(b, list(model.parameters()))
    assert torch.equal(a, b) and all(torch.equal(x, y) for x, y in zip(ga, gb))
    s1 = masked_sft(_model(5), data, None, steps=3, batch_size=8, lr=1e-3, seed=7)
    s2 = masked_sft(_model(5), data, full, steps=3, batch_size=8, lr=1e-3, seed=7)
    assert all(torch.equal(p, q) for p, q in zip(s1.parameters(), s2.parameters()))


def test_world_shapes():
    w, rng = World(), np.random.default_rng(1)
    D = w.custom_set(rng, 200)
    kinds = [e.kind for e in D]
    assert kinds.count("harmful") == 20 and kinds.count("mixed") == 10 and len(D) == 200
    assert all(isinstance(e, Example) and max(e.ids) < VOCAB_SIZE and len(e.ids) <= 48 for e in D)


def test_bootstrap_var_zero_when_equal():
    a = np.array([1.0, 0.0, 1.0, 1.0])
    assert bootstrap_delta_var(a, a, np.random.default_rng(0)) == 0.0


def test_global_selection_matches_released_rule(data):
    """The released rule, restated: list (score, sample, position) of every response token, stable-sort by score
    descending, discard the first int(N * prop); scores are loss(utility ref) - loss(safety-degraded ref)."""
    u, h = token_losses(_model(1), data), token_losses(_model(2), data)
    diff = [(a - b).tolist() for a, b in zip(u, h)]
    diff[0][0] = diff[1][1] = diff[2][0] = 9.0  # ties
    tokens = [(s, i, j) for i, row in enumerate(diff) for j, s in enumerate(row)]
    top = sorted(tokens, key=lambda x: x[0], reverse=True)[: int(len(tokens) * 0.2)]
    ours = select([torch.tensor(r, dtype=torch.float64) for r in diff], 0.2)
    assert {(i, j) for _, i, j in top} == {
        (i, j) for i, m in enumerate(ours) for j in range(len(m)) if not m[j]
    }
