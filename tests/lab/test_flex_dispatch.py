"""lab.flex's fast paths (SDPA dispatch, the gathered block-sparse executor) equal the dense reference.

Awkward lengths (Tq != Tk, lengths not a multiple of the block), random and structured masks, fully masked rows,
additive mods and bias tensors; outputs to 1e-6 and gradients to 1e-5 in float32 (1e-10 in float64). Compiled
FlexAttention costs ~25 s per shape on a CPU, so its tests run only with ``ICLR26_COMPILE_TESTS=1``.
"""

import os
import warnings

import pytest
import torch

from iclr26.lab import flex
from iclr26.lab.flex import (
    additive_bias,
    alibi,
    attention,
    block_plan,
    block_sparse_attention,
    causal,
    from_dense,
    log_n_scaling,
    sliding_window,
)

compile_tests = pytest.mark.skipif(
    os.environ.get("ICLR26_COMPILE_TESTS") != "1", reason="torch.compile tests: set ICLR26_COMPILE_TESTS=1"
)

SHAPES = [(2, 3, 37, 37, 8, 8), (1, 2, 13, 29, 5, 7), (2, 1, 1, 17, 4, 4), (1, 2, 30, 11, 6, 6)]


def tensors(shape, dtype, seed=0):
    b, h, tq, tk, d, dv = shape
    g = torch.Generator().manual_seed(seed)

    def r(*s):
        return torch.randn(*s, generator=g, dtype=dtype).requires_grad_()

    return r(b, h, tq, d), r(b, h, tk, d), r(b, h, tk, dv), r(1, h, tq, tk)


def tol(dtype):
    return (1e-6, 1e-5) if dtype == torch.float32 else (1e-10, 1e-10)


def run(fn, leaves, seed=1):
    for t in leaves:
        t.grad = None
    out = fn()
    if not out.requires_grad:  # an all-empty mask: a constant zero output, zero gradients
        return out, [torch.zeros_like(t) for t in leaves]
    w = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed), dtype=out.dtype)
    (out * w).sum().backward()
    return out.detach(), [torch.zeros_like(t) if t.grad is None else t.grad.clone() for t in leaves]


def sparse_mask(tq, tk, seed=0):
    g = torch.Generator().manual_seed(seed)
    m = torch.rand(tq, tk, generator=g) < 0.15
    m[min(3, tq - 1)] = False  # a fully masked row
    return m


CASES = {
    "plain": lambda h, tq, tk, bias: {},
    "causal": lambda h, tq, tk, bias: {"mask_mod": causal},
    "window": lambda h, tq, tk, bias: {"mask_mod": sliding_window(5)},
    "dense-mask": lambda h, tq, tk, bias: {"mask_mod": from_dense(sparse_mask(tq, tk))},
    "alibi": lambda h, tq, tk, bias: {"score_mod": alibi([0.3 / (i + 1) for i in range(h)])},
    "alibi+window": lambda h, tq, tk, bias: {
        "score_mod": alibi([0.2] * h),
        "mask_mod": sliding_window(4, causal_only=False),
    },
    "bias": lambda h, tq, tk, bias: {"bias": bias},
    "bias+mask": lambda h, tq, tk, bias: {"bias": bias, "mask_mod": from_dense(sparse_mask(tq, tk, 1))},
    "additive+bias+causal": lambda h, tq, tk, bias: {
        "bias": bias,
        "score_mod": additive_bias(lambda hh, qi, ki: -0.1 * (qi - ki).abs()),
        "mask_mod": causal,
    },
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_sdpa_dispatch_equals_dense_reference(case, shape, dtype):
    q, k, v, bias = tensors(shape, dtype)
    kw = CASES[case](shape[1], shape[2], shape[3], bias)
    leaves = [q, k, v, bias]
    ref, ref_g = run(lambda: attention(q, k, v, backend="dense", **kw), leaves)
    atol_out, atol_grad = tol(dtype)
    for backend in ("auto", "sdpa"):
        out, grads = run(lambda backend=backend: attention(q, k, v, backend=backend, **kw), leaves)
        torch.testing.assert_close(out, ref, atol=atol_out, rtol=atol_out)
        for g, rg in zip(grads, ref_g):
            assert bool(torch.isfinite(g).all())
            torch.testing.assert_close(g, rg, atol=atol_grad, rtol=atol_grad)


def test_fully_masked_rows_are_zero_on_every_path():
    q, k, v, _ = tensors((2, 2, 9, 9, 4, 4), torch.float32)
    mod = lambda b, h, qi, ki: (qi > 4) & (ki < 3)  # noqa: E731 - rows 0..4 see nothing
    for backend in ("dense", "sdpa", "auto"):
        out = attention(q, k, v, mask_mod=mod, backend=backend)
        assert torch.equal(out[:, :, :5], torch.zeros_like(out[:, :, :5])), backend
    m = torch.zeros(9, 9, dtype=torch.bool)
    m[5:, :3] = True
    for method in ("gather", "loop"):
        out = block_sparse_attention(q, k, v, m, block_size=4, method=method).out
        assert torch.equal(out[:, :, :5], torch.zeros_like(out[:, :, :5])), method


def test_auto_keeps_the_dense_reference_where_sdpa_cannot_express_the_mod():
    q, k, v, _ = tensors((1, 2, 12, 12, 4, 4), torch.float64)
    mod = log_n_scaling([0.7, 1.3])
    torch.testing.assert_close(
        attention(q, k, v, score_mod=mod, mask_mod=causal),
        attention(q, k, v, score_mod=mod, mask_mod=causal, backend="dense"),
        atol=0,
        rtol=0,
    )
    with pytest.raises(ValueError, match="sdpa"):
        attention(q, k, v, score_mod=mod, backend="sdpa")
    with pytest.raises(ValueError, match="sdpa"):
        attention(q, k, v, backend="sdpa", return_weights=True)
    out, w = attention(q, k, v, mask_mod=causal, return_weights=True)  # auto -> dense for the weights
    assert w.shape == (1, 2, 12, 12)


MASKS = {
    "random": lambda tq, tk: sparse_mask(tq, tk, 2),
    "band": lambda tq, tk: (torch.arange(tq)[:, None] - torch.arange(tk)[None, :]).abs() < 6,
    "block-diag": lambda tq, tk: (torch.arange(tq)[:, None] // 8) == (torch.arange(tk)[None, :] // 8),
    "empty-rows": lambda tq, tk: torch.arange(tq)[:, None] >= torch.arange(tk)[None, :] + 9,
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("lengths", [(64, 64), (50, 50), (37, 61), (61, 23), (5, 9)])
@pytest.mark.parametrize("block", [4, 7, 8, 16])
@pytest.mark.parametrize("mask", sorted(MASKS))
def test_block_sparse_gather_equals_loop_and_dense(mask, block, lengths, dtype):
    tq, tk = lengths
    m = MASKS[mask](tq, tk)
    q, k, v, _ = tensors((2, 3, tq, tk, 6, 5), dtype, seed=block)
    leaves = [q, k, v]
    ref, ref_g = run(lambda: attention(q, k, v, mask_mod=from_dense(m), backend="dense"), leaves)
    atol_out, atol_grad = tol(dtype)
    plan = block_plan(m, block_size=block)
    flops = set()
    for method in ("loop", "gather"):
        res = block_sparse_attention(q, k, v, plan, method=method)
        flops.add(res.flops)
        out, grads = run(
            lambda method=method: block_sparse_attention(q, k, v, plan, method=method).out, leaves
        )
        torch.testing.assert_close(out, ref, atol=atol_out, rtol=atol_out)
        for g, rg in zip(grads, ref_g):
            torch.testing.assert_close(g, rg, atol=atol_grad, rtol=atol_grad)
    assert len(flops) == 1  # both methods report the work of the non-empty tiles


@pytest.mark.parametrize("lengths", [(50, 50), (37, 61)])
def test_block_sparse_gather_with_a_score_mod(lengths):
    tq, tk = lengths
    m = MASKS["band"](tq, tk) | MASKS["random"](tq, tk)
    q, k, v, _ = tensors((2, 3, tq, tk, 6, 5), torch.float64)
    mod = alibi([0.3, 0.2, 0.1])
    ref = attention(q, k, v, mask_mod=from_dense(m), score_mod=mod, backend="dense")
    for method in ("loop", "gather"):
        out = block_sparse_attention(q, k, v, m, block_size=8, score_mod=mod, method=method).out
        torch.testing.assert_close(out, ref, atol=1e-10, rtol=1e-10)


def test_block_plan_is_checked_and_reused():
    m = MASKS["band"](40, 40)
    plan = block_plan(m, block_size=8)
    assert plan.shape == (40, 40) and plan.block_size == 8
    q, k, v, _ = tensors((1, 2, 40, 40, 4, 4), torch.float32)
    with pytest.raises(ValueError, match="block_size"):
        block_sparse_attention(q, k, v, plan, block_size=16)
    with pytest.raises(ValueError, match="shape"):
        block_sparse_attention(q[:, :, :30], k, v, plan)
    with pytest.raises(ValueError, match="method"):
        block_sparse_attention(q, k, v, plan, method="triton")
    with pytest.raises(ValueError, match="block_size"):
        block_plan(m, block_size=0)
    a = block_sparse_attention(q, k, v, plan).out
    b = block_sparse_attention(q, k, v, plan).out  # cached float masks give the same result
    assert torch.equal(a, b)


def test_flex_eager_backend_matches_dense():
    # FlexAttention has no backward on the CPU (torch 2.13): forward only
    q, k, v = (t.detach() for t in tensors((1, 2, 32, 32, 8, 8), torch.float32)[:3])
    mod, mask = alibi([0.5, 0.25]), sliding_window(9)
    ref = attention(q, k, v, score_mod=mod, mask_mod=mask, backend="dense")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # eager flex_attention warns that it is unfused
        out = attention(q, k, v, score_mod=mod, mask_mod=mask, backend="flex_eager")
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-4)


@compile_tests
def test_compiled_flex_backends_match_dense():
    q, k, v = (t.detach() for t in tensors((1, 2, 256, 256, 16, 16), torch.float32)[:3])
    m = MASKS["band"](256, 256) | MASKS["random"](256, 256)
    ref = attention(q, k, v, mask_mod=from_dense(m), backend="dense")
    mod = from_dense(m)
    torch.testing.assert_close(attention(q, k, v, mask_mod=mod, backend="flex"), ref, atol=1e-5, rtol=1e-5)
    assert flex._block_mask_for(mod, 256, 256, q.device) is flex._block_mask_for(mod, 256, 256, q.device)
    res = block_sparse_attention(q, k, v, block_plan(m, block_size=128), method="flex")
    torch.testing.assert_close(res.out, ref, atol=1e-5, rtol=1e-5)
