"""Oracle tests of Hilbert-guided local attention (ICLR 2026, arXiv 2511.05832)."""

import pytest
import torch

from iclr26.attention.hilbert_attention import (
    BlockSparseAttention,
    GlobalAttention,
    HilbertSlideAttention,
    HilbertWindowAttention,
    NeighborhoodAttention2d,
    SwinWindowAttention,
    block_sparsity,
    block_stats,
    from_curve,
    gilbert_order,
    hilbert_slide_attention,
    hilbert_window_attention,
    local_mask,
    masked_reference,
    neighborhood_attention_2d,
    rowmajor_order,
    rpb_bias,
    swin_window_attention,
    to_curve,
)
from iclr26.attention.hilbert_attention.claim_check import (
    accuracy_decider,
    sparsity_decider,
    speed_decider,
    strict_everywhere_decider,
)
from iclr26.attention.hilbert_attention.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from iclr26.lab import flex


def qkv(H, W, heads=2, d=4, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(2, heads, H * W, d, generator=g, dtype=dtype) for _ in range(3)]


def table(H, W, heads=2, seed=1):
    return torch.randn(
        (2 * H - 1) * (2 * W - 1), heads, generator=torch.Generator().manual_seed(seed)
    ).double()


# ------------------------------------------------------------------------------------------------ the curve


@pytest.mark.parametrize(("H", "W"), [(8, 8), (7, 9), (14, 14), (56, 56), (1, 5)])
def test_curve_is_a_bijection(H, W):
    order = gilbert_order(H, W)
    assert order.shape == (H * W, 2)
    cells = {tuple(c) for c in order.tolist()}
    assert cells == {(y, x) for y in range(H) for x in range(W)}


@pytest.mark.parametrize(("H", "W"), [(8, 8), (14, 14), (56, 56), (6, 10), (2, 12), (16, 4)])
def test_even_grids_take_unit_steps(H, W):
    steps = (gilbert_order(H, W).diff(dim=0)).abs().sum(dim=1)
    assert bool((steps == 1).all())


@pytest.mark.parametrize(("H", "W"), [(7, 9), (5, 5), (9, 4), (1, 5), (13, 7)])
def test_odd_grids_have_at_most_one_diagonal_step(H, W):
    d = gilbert_order(H, W).diff(dim=0).abs()
    assert bool((d.max(dim=1).values == 1).all())  # 4-neighbour or diagonal, never a jump
    assert int((d.sum(dim=1) == 2).sum()) <= 1


@pytest.mark.parametrize(("H", "W"), [(8, 8), (7, 9), (1, 5), (5, 1)])
def test_from_curve_inverts_to_curve(H, W):
    x = torch.randn(2, H, W, 3)
    seq = to_curve(x)
    assert torch.equal(from_curve(seq, H, W), x)
    order = gilbert_order(H, W)
    assert torch.equal(seq[:, 5 % (H * W)], x[:, order[5 % (H * W), 0], order[5 % (H * W), 1]])


def classic_d2xy(n: int, d: int) -> tuple[int, int]:
    """The textbook Hilbert index -> (x, y) on an n x n grid, n a power of two (written here as the oracle)."""
    x = y = 0
    t, s = d, 1
    while s < n:
        rx = 1 & (t // 2)
        ry = 1 & (t ^ rx)
        if ry == 0:
            if rx == 1:
                x, y = s - 1 - x, s - 1 - y
            x, y = y, x
        x, y = x + s * rx, y + s * ry
        t //= 4
        s *= 2
    return x, y


def _aligned_blocks_contiguous(cells: list[tuple[int, int]], side: int) -> bool:
    blocks = [(y // side, x // side) for y, x in cells]
    runs = [blocks[i] for i in range(0, len(blocks), side * side)]
    return all(
        len(set(blocks[i : i + side * side])) == 1 for i in range(0, len(blocks), side * side)
    ) and len(set(runs)) == len(runs)


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32])
def test_power_of_two_squares_match_the_classic_hilbert_curve(n):
    # hilbertcurve is not installed: the reference is the classic d2xy algorithm above
    ours = [tuple(c) for c in gilbert_order(n, n).tolist()]
    ref = [classic_d2xy(n, d)[::-1] for d in range(n * n)]  # as (y, x)
    assert set(ours) == set(ref)
    for cells in (ours, ref):
        steps = torch.tensor(cells).diff(dim=0).abs().sum(dim=1).float()
        assert steps.mean().item() == 1.0
        for side in (2, 4, n):
            if side <= n:
                assert _aligned_blocks_contiguous(cells, side)

    # the two curves are the same up to a symmetry of the square
    def sym(c, k):
        y, x = c
        for _ in range(k % 4):
            y, x = x, n - 1 - y
        return (x, y) if k >= 4 else (y, x)

    assert any([sym(c, k) for c in ref] == ours for k in range(8))


# ------------------------------------------------------------------------------------- attention oracles


def test_hwa_over_the_whole_grid_is_global_attention():
    H, W = 4, 6
    q, k, v = qkv(H, W)
    rpb = table(H, W)
    out = hilbert_window_attention(q, H, W, H * W, False, rpb, k=k, v=v)
    bias = rpb_bias(rpb, gilbert_order(H, W), H, W)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    assert torch.allclose(out, ref, atol=1e-6)


@pytest.mark.parametrize(
    ("H", "W", "M", "shift", "pad"),
    [
        (8, 8, 16, False, False),
        (8, 8, 16, True, False),
        (8, 8, 4, True, False),
        (7, 9, 16, True, True),
        (7, 9, 9, False, False),
    ],
)
def test_hwa_equals_dense_attention_under_the_group_mask(H, W, M, shift, pad):
    q, k, v = qkv(H, W)
    rpb = table(H, W)
    order = gilbert_order(H, W)
    out = hilbert_window_attention(q, H, W, M, shift, rpb, k=k, v=v, pad=pad)
    mask = local_mask(order, "hilbert_window", M, shift=M // 2 if shift else 0)
    assert torch.allclose(out, masked_reference(q, k, v, mask, order, H, W, rpb), atol=1e-10)


def test_shifted_group_mask_separates_the_wrapped_tokens():
    m = local_mask(gilbert_order(4, 4), "group", 8, shift=4)
    # after rolling by 4 the group holding curve positions 12..15 and 0..3 is split in two
    assert bool(m[12:, 12:].all()) and not bool(m[12:, :4].any()) and bool(m[:4, :4].all())
    assert bool(m[4:12, 4:12].all()) and not bool(m[:4, 4:].any())


@pytest.mark.parametrize(("ws", "shift"), [(4, False), (4, True), (2, True)])
def test_swin_equals_dense_attention_under_the_window_mask(ws, shift):
    H, W = 8, 8
    q, k, v = qkv(H, W)
    rpb = table(H, W)
    order = rowmajor_order(H, W)
    out = swin_window_attention(q, H, W, ws, shift, rpb, k=k, v=v)
    mask = local_mask(order, "window", ws, shift=ws // 2 if shift else 0)
    assert torch.allclose(out, masked_reference(q, k, v, mask, order, H, W, rpb), atol=1e-10)


def test_slide_and_neighbourhood_equal_dense_masked_attention():
    H, W = 7, 9
    q, k, v = qkv(H, W)
    rpb = table(H, W)
    go, ro = gilbert_order(H, W), rowmajor_order(H, W)
    hsa = hilbert_slide_attention(q, H, W, 9, rpb, k=k, v=v)
    assert torch.allclose(
        hsa, masked_reference(q, k, v, local_mask(go, "hilbert_slide", 9), go, H, W, rpb), atol=1e-10
    )
    na = neighborhood_attention_2d(q, H, W, 5, rpb, k=k, v=v)
    assert torch.allclose(
        na, masked_reference(q, k, v, local_mask(ro, "neighborhood", 5), ro, H, W, rpb), atol=1e-10
    )
    # every query sees exactly K keys (clamped windows never shrink)
    assert bool((local_mask(go, "slide", 9).sum(1) == 9).all())
    assert bool((local_mask(ro, "neighborhood", 5).sum(1) == 25).all())


def test_rpb_gather_equals_an_analytic_function_of_the_offset():
    H, W = 5, 6
    dy, dx = torch.meshgrid(torch.arange(-(H - 1), H), torch.arange(-(W - 1), W), indexing="ij")
    f = lambda h, a, b: torch.sin(0.7 * a + 0.3 * h) + 0.1 * b * b - 0.05 * a * b  # noqa: E731
    tab = torch.stack([f(h, dy, dx).flatten() for h in range(2)], dim=1).double()
    order = gilbert_order(H, W)
    bias = rpb_bias(tab, order, H, W)[0]
    ddy = order[:, None, 0] - order[None, :, 0]
    ddx = order[:, None, 1] - order[None, :, 1]
    for h in range(2):
        assert torch.allclose(bias[h], f(h, ddy, ddx).double(), atol=1e-12)
    q, k, v = qkv(H, W)
    out = hilbert_window_attention(q, H, W, 10, True, tab, k=k, v=v)
    mask = local_mask(order, "group", 10, shift=5)
    analytic = torch.stack([f(h, ddy, ddx) for h in range(2)])[None].double()
    ref = flex.attention(q, k, v, mask_mod=flex.from_dense(mask), bias=analytic, backend="dense")
    assert torch.allclose(out, ref, atol=1e-10)


def test_modules_match_their_functional_cores_and_train():
    torch.manual_seed(0)
    H = W = 8
    x = torch.randn(2, H, W, 16, dtype=torch.float64)
    for layer in (
        HilbertWindowAttention(16, 2, H, W, 16, shift=True),
        HilbertSlideAttention(16, 2, H, W, 25),
        SwinWindowAttention(16, 2, H, W, 4, shift=True),
        NeighborhoodAttention2d(16, 2, H, W, 5),
        GlobalAttention(16, 2, H, W),
    ):
        layer = layer.double()
        out = layer(x)
        assert out.shape == x.shape
        out.square().sum().backward()
        assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in layer.parameters())
    # dense small-grid path of HSA == its gather form
    layer = HilbertSlideAttention(16, 2, H, W, 25).double()
    seq = to_curve(x)
    q, k, v = layer.qkv(seq).view(2, H * W, 3, 2, 8).permute(2, 0, 3, 1, 4)
    fast = hilbert_slide_attention(q, H, W, 25, layer.rpb, k=k, v=v)
    assert torch.allclose(layer.core(q, k, v), fast, atol=1e-10)


# ---------------------------------------------------------------------------------------- tile statistics


def brute_force_tiles(mask, block):
    n = mask.shape[0]
    counts = {"empty": 0, "full": 0, "partial": 0}
    for i in range(0, n, block):
        for j in range(0, n, block):
            tile = mask[i : i + block, j : j + block]
            counts["empty" if not tile.any() else "full" if tile.all() else "partial"] += 1
    return counts


@pytest.mark.parametrize(
    ("kind", "size", "hilbert"),
    [("window", 4, False), ("neighborhood", 5, False), ("group", 16, True), ("slide", 25, True)],
)
def test_block_stats_match_brute_force_and_flex_attention(kind, size, hilbert):
    from torch.nn.attention.flex_attention import create_block_mask

    order12 = gilbert_order(12, 12) if hilbert else rowmajor_order(12, 12)
    mask12 = local_mask(order12, kind, size)
    for block in (16, 32):  # ragged edge tiles too
        assert block_stats(mask12, block) == brute_force_tiles(mask12, block)
    # FlexAttention's sparsity() is only meaningful when N is a multiple of BLOCK_SIZE (it goes negative on
    # ragged lengths in torch 2.13), so the cross-check uses a 16x16 grid
    H = W = 16
    mask = local_mask(gilbert_order(H, W) if hilbert else rowmajor_order(H, W), kind, size)
    for block in (16, 32, 64):
        bm = create_block_mask(
            flex.from_dense(mask), None, None, H * W, H * W, device="cpu", BLOCK_SIZE=block
        )
        assert block_sparsity(mask, block) == pytest.approx(bm.sparsity(), abs=1e-9)
        assert block_stats(mask, block) == brute_force_tiles(mask, block)


def test_worked_configuration_gives_the_papers_empty_block_ratios():
    rm = local_mask(rowmajor_order(64, 64), "rowmajor_window", 8)
    hw = local_mask(gilbert_order(64, 64), "hilbert_window", 64)
    assert block_sparsity(rm, 128) == 87.5
    assert block_sparsity(hw, 128) == 96.875
    assert block_stats(hw, 128)["partial"] < block_stats(rm, 128)["partial"]


def test_block_sparse_executor_equals_dense_masked_attention():
    H = W = 8
    q, k, v = qkv(H, W, dtype=torch.float32)
    mask = local_mask(gilbert_order(H, W), "slide", 9)
    ex = BlockSparseAttention(mask, block=16)
    out = ex(q, k, v)
    ref = flex.attention(q, k, v, mask_mod=flex.from_dense(mask), backend="dense")
    assert torch.allclose(out, ref, atol=1e-5)
    nonempty = ex.stats["full"] + ex.stats["partial"]
    assert ex.flops / ex.dense_flops == pytest.approx(nonempty / 16)


# ------------------------------------------------------------------------------------- sabotage + deciders


def test_sabotage_hwa_without_the_wrap_mask_violates_the_oracle():
    H = W = 8
    q, k, v = qkv(H, W)
    order = gilbert_order(H, W)
    out = hilbert_window_attention(q, H, W, 16, True, None, k=k, v=v)
    ref = masked_reference(q, k, v, local_mask(order, "group", 16, shift=8), order, H, W)
    # broken variant: roll by 8 but let the wrapped tokens attend across the seam
    rolled = [torch.roll(t, 8, dims=2) for t in (q, k, v)]
    broken = torch.roll(masked_reference(*rolled, local_mask(order, "group", 16), order, H, W), -8, dims=2)
    assert torch.allclose(out, ref, atol=1e-10)
    assert not torch.allclose(broken, ref, atol=1e-3)


def _rows(**cols):
    n = len(next(iter(cols.values())))
    return [{k: float(v[i]) for k, v in cols.items()} for i in range(n)]


def test_accuracy_decider_three_outcomes():
    dec = accuracy_decider("hwa", "swin")
    good = _rows(acc_hwa=[0.95, 0.96, 0.955], acc_swin=[0.955, 0.958, 0.957])
    bad = _rows(acc_hwa=[0.90, 0.91, 0.92], acc_swin=[0.95, 0.95, 0.95])
    unsure = _rows(acc_hwa=[0.95, 0.90, 0.96], acc_swin=[0.95, 0.95, 0.95])
    assert dec(good).outcome is Outcome.SUPPORTED
    assert dec(bad).outcome is Outcome.NOT_SUPPORTED
    assert dec(unsure).outcome is Outcome.INCONCLUSIVE
    assert dec(good[:1]).outcome is Outcome.INCONCLUSIVE  # an interval needs two seeds
    assert not dec.compares  # non-inferiority: the baseline against itself is non-inferior


def test_accuracy_decider_refutes_only_when_the_interval_excludes_the_claim():
    """The brief refuted on mean <= -2.5 points; now the whole interval must lie below the claimed -1 point."""
    dec = accuracy_decider("hwa", "swin")
    wide = _rows(acc_hwa=[0.90, 0.95, 0.86], acc_swin=[0.95, 0.95, 0.95])
    verdict = dec(wide)
    assert verdict.estimate <= -0.025 and verdict.interval[1] > -0.01
    assert verdict.outcome is Outcome.INCONCLUSIVE
    narrow = _rows(acc_hwa=[0.93, 0.935, 0.93], acc_swin=[0.95, 0.95, 0.95])  # about -1.8 points, tight
    assert dec(narrow).outcome is Outcome.NOT_SUPPORTED


def test_accuracy_claims_need_a_baseline_that_learned():
    claims = {c.id: c for c in EXPERIMENT.claims}
    for cid, base, other in (
        ("hwa-accuracy-vs-swin-window", "acc_swin", "acc_hwa"),
        ("hsa-accuracy-vs-neighborhood", "acc_nat", "acc_hsa"),
    ):
        claim = claims[cid]
        assert [p.metric for p in claim.preconditions] == [base]
        learned = _rows(**{other: [0.95, 0.96, 0.955], base: [0.955, 0.958, 0.957]})
        assert claim.judge(learned).outcome is Outcome.SUPPORTED
        worse = _rows(**{other: [0.90, 0.91, 0.92], base: [0.95, 0.95, 0.95]})
        assert claim.judge(worse).outcome is Outcome.NOT_SUPPORTED
        at_chance = _rows(**{other: [0.11, 0.12, 0.10], base: [0.10, 0.12, 0.35]})
        assert claim.judge(at_chance).outcome is Outcome.NOT_REPRODUCED


SPARSE_OK = {
    "worked_rowmajor_empty_pct": 87.5,
    "worked_hilbert_empty_pct": 96.875,
    "configs_hilbert_worse": 0.0,
    "nonempty_rowmajor_total": 100.0,
    "nonempty_hilbert_total": 80.0,
    "partial_rowmajor_total": 50.0,
    "partial_hilbert_total": 30.0,
}
NAN = float("nan")


def test_sparsity_and_speed_deciders_can_fail():
    ok = SPARSE_OK
    assert sparsity_decider([ok]).outcome is Outcome.SUPPORTED  # deterministic: one seed suffices
    assert sparsity_decider([ok | {"worked_hilbert_empty_pct": 93.75}]).outcome is Outcome.NOT_SUPPORTED
    assert sparsity_decider([ok | {"configs_hilbert_worse": 1.0}]).outcome is Outcome.NOT_SUPPORTED
    for comp in sparsity_decider.compares:  # the Hilbert numbers replaced by the raster ones
        assert sparsity_decider([ok | {comp.method: ok[comp.baseline]}]).outcome is Outcome.NOT_SUPPORTED
    strict = {"configs_not_strict": 0.0, "n_configs": 12.0}
    assert strict_everywhere_decider([strict]).outcome is Outcome.SUPPORTED
    assert strict_everywhere_decider([strict | {"configs_not_strict": 2.0}]).outcome is Outcome.NOT_SUPPORTED
    cpu = {
        "flop_ratio_window": 3.9,
        "flop_ratio_slide": 1.6,
        "gpu_speedup_window": NAN,
        "gpu_speedup_slide": NAN,
    }
    assert speed_decider([cpu]).outcome is Outcome.INCONCLUSIVE
    assert "CPU" in speed_decider([cpu]).explanation
    assert speed_decider([cpu | {"flop_ratio_window": 0.8}]).outcome is Outcome.NOT_SUPPORTED
    gpu = cpu | {"gpu_speedup_window": 3.5, "gpu_speedup_slide": 12.0}
    assert speed_decider([gpu]).outcome is Outcome.SUPPORTED
    assert speed_decider([gpu | {"gpu_speedup_slide": 1.1}]).outcome is Outcome.NOT_SUPPORTED
    assert speed_decider([gpu, cpu]).outcome is Outcome.INCONCLUSIVE  # GPU numbers in one seed only
