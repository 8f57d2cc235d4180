"""The shared attention primitive: mods on the dense path equal explicit math, flex agrees, block-sparse is exact."""

import math
import warnings

import pytest
import torch

from iclr26.lab.flex import (
    additive_bias,
    alibi,
    alibi_bias,
    and_masks,
    attention,
    block_sparse_attention,
    block_stats,
    causal,
    dense_mask,
    from_dense,
    log_n_scaling,
    masked_softmax,
    sliding_window,
)


def qkv(b=2, h=3, t=20, d=8, seed=0, dtype=torch.float64):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(b, h, t, d, generator=gen, dtype=dtype) for _ in range(3)]


def naive(q, k, v, bias=None, keep=None):
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        scores = scores + bias
    if keep is not None:
        scores = scores.masked_fill(~keep, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, -1), nan=0.0) @ v


def test_causal_alibi_equals_explicit_math():
    q, k, v = qkv()
    slopes = [0.5, 0.25, 0.125]
    tri = torch.ones(20, 20, dtype=torch.bool).tril()
    ref = naive(q, k, v, alibi_bias(slopes, 20, 20).double(), tri)
    torch.testing.assert_close(attention(q, k, v, score_mod=alibi(slopes), mask_mod=causal), ref)
    bias = additive_bias(lambda h, qi, ki: -torch.tensor(slopes, dtype=torch.float64)[h] * (qi - ki).abs())
    torch.testing.assert_close(attention(q, k, v, score_mod=bias, mask_mod=causal), ref)


def test_sliding_window_and_dense_masks():
    q, k, v = qkv()
    keep = dense_mask(and_masks(causal, sliding_window(5)), 1, 1, 20, 20)[0, 0]
    assert int(keep.sum(1)[10]) == 5 and int(keep.sum(1)[0]) == 1
    ref = naive(q, k, v, keep=keep)
    torch.testing.assert_close(attention(q, k, v, mask_mod=sliding_window(5)), ref)
    torch.testing.assert_close(attention(q, k, v, mask_mod=from_dense(keep)), ref)


def test_log_n_scaling_multiplies_scores_by_log_visible_keys():
    q, k, v = qkv(h=2)
    s = torch.tensor([0.7, 1.3], dtype=torch.float64)
    _, w = attention(q, k, v, score_mod=log_n_scaling(s), mask_mod=causal, return_weights=True)
    n = torch.arange(1, 21, dtype=torch.float64).view(1, 1, 20, 1)
    raw = (q @ k.transpose(-1, -2) / math.sqrt(8)) * s.view(1, 2, 1, 1) * torch.log(n)
    ref = torch.softmax(raw.masked_fill(~torch.ones(20, 20, dtype=torch.bool).tril(), float("-inf")), -1)
    torch.testing.assert_close(w, ref)
    assert torch.allclose(w[:, :, 0, 0], torch.ones(()).double())


def test_log_n_scaling_offset_matches_a_chunk_of_the_full_pass():
    q, k, v = qkv(h=2)
    s = [0.7, 1.3]
    full = attention(q, k, v, score_mod=log_n_scaling(s), mask_mod=causal)
    tail = attention(
        q[:, :, 12:],
        k,
        v,
        score_mod=log_n_scaling(s, q_offset=12),
        mask_mod=lambda b, h, qi, ki: qi + 12 >= ki,
    )
    torch.testing.assert_close(tail, full[:, :, 12:])


def test_fully_masked_rows_give_zeros():
    q, k, v = qkv(t=6)
    out = attention(q, k, v, mask_mod=lambda b, h, qi, ki: (qi > 2) & (ki < 2))
    assert torch.equal(out[:, :, :3], torch.zeros_like(out[:, :, :3]))


def test_flex_backend_agrees_with_dense_on_cpu():
    q, k, v = qkv(t=32, dtype=torch.float32)
    mod, mask = alibi([0.5, 0.25, 0.1]), sliding_window(9)
    dense = attention(q, k, v, score_mod=mod, mask_mod=mask, backend="dense")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # eager flex_attention warns that it is unfused
        flex = attention(q, k, v, score_mod=mod, mask_mod=mask, backend="flex")
    torch.testing.assert_close(flex, dense, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("block", [1, 3, 4, 7, 32])
def test_block_stats_match_brute_force_and_flex(block):
    keep = dense_mask(sliding_window(6), 1, 1, 30, 30)[0, 0]
    stats = block_stats(keep, block_size=block)
    n = math.ceil(30 / block)
    counts = {"empty": 0, "full": 0, "partial": 0}
    for i in range(n):
        for j in range(n):
            tile = keep[i * block : (i + 1) * block, j * block : (j + 1) * block]
            counts["empty" if not tile.any() else "full" if tile.all() else "partial"] += 1
    assert (stats.n_empty, stats.n_full, stats.n_partial) == (
        counts["empty"],
        counts["full"],
        counts["partial"],
    )


def test_block_stats_sparsity_equals_create_block_mask():
    from torch.nn.attention.flex_attention import create_block_mask

    for mask in (causal, sliding_window(128)):
        ours = block_stats(mask, 1024, 1024, block_size=128).sparsity()
        theirs = create_block_mask(mask, None, None, 1024, 1024, device="cpu", BLOCK_SIZE=128).sparsity()
        assert ours == pytest.approx(theirs)


def test_block_sparse_executor_is_exact_and_counts_work():
    q, k, v = qkv(t=50)
    keep = dense_mask(and_masks(causal, sliding_window(8)), 1, 1, 50, 50)[0, 0]
    res = block_sparse_attention(q, k, v, keep, block_size=8, score_mod=alibi([0.3, 0.2, 0.1]))
    ref = attention(q, k, v, mask_mod=from_dense(keep), score_mod=alibi([0.3, 0.2, 0.1]))
    torch.testing.assert_close(res.out, ref)
    assert res.flops < 0.5 * res.dense_flops
    nonempty = res.stats.n_full + res.stats.n_partial
    assert res.flops <= nonempty * 8 * 8 * 2 * (8 + 8) * 2 * 3


def test_masked_softmax_zeros_empty_rows_and_keeps_a_bad_score_visible():
    keep = torch.tensor([[False, False, False], [True, True, False], [True, True, True]])
    scores = torch.randn(2, 3, 3, dtype=torch.float64).masked_fill(~keep, float("-inf"))
    w = masked_softmax(scores, keep)
    assert torch.equal(w[:, 0], torch.zeros(2, 3, dtype=torch.float64))  # no key kept: zeros, not NaN
    torch.testing.assert_close(w[:, 1:], torch.softmax(scores[:, 1:], -1), rtol=0, atol=0)
    torch.testing.assert_close(masked_softmax(scores[:, 2:], None), torch.softmax(scores[:, 2:], -1))
    bad = scores.clone()
    bad[0, 1, 0] = float("nan")
    assert torch.isnan(masked_softmax(bad, keep)[0, 1]).all()  # the old nan_to_num hid this as zeros
    with pytest.raises(ValueError, match="keep must broadcast"):
        masked_softmax(scores, keep[:2])


@pytest.mark.parametrize("method", ["loop", "gather"])
def test_block_sparse_attention_shows_a_non_finite_query(method):
    q, k, v = qkv(t=16)
    q[0, 0, 5, 0] = float("inf")
    keep = dense_mask(causal, 1, 1, 16, 16)[0, 0]
    out = block_sparse_attention(
        q, k, v, keep, block_size=4, method=method, score_mod=alibi([0.3, 0.2, 0.1])
    ).out
    assert not torch.isfinite(out[0, 0, 5]).all()
    assert torch.isfinite(out[0, 0, :5]).all() and torch.isfinite(out[1]).all()


def test_bad_arguments_are_named():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="q must be a 4-D"):
        attention(q[0], k, v)
    with pytest.raises(ValueError, match="backend"):
        attention(q, k, v, backend="triton")
    with pytest.raises(ValueError, match="window"):
        sliding_window(0)
    with pytest.raises(ValueError, match="block_size"):
        block_stats(causal, 8, 8, block_size=0)
