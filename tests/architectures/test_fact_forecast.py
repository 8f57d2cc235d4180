"""Oracle tests of FACT (OpenReview j3gNYqrHtl): grid round-trip, depthwise locality, the one-variable limit,
receptive field, frequency-branch identity, shapes, data generator, baselines and the claim decider."""

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.architectures.fact_forecast import (
    FACT,
    DConvBlock2d,
    DLinear,
    FACTAttn,
    FrequencyBranch,
    ITransformer,
    PatchTST,
    TSMixerLite,
    grid_side,
    make_grid_diffusion,
    ordering,
    pad_to_grid,
    prepare,
    saved_activation_bytes,
    unpad_from_grid,
)
from iclr26.architectures.fact_forecast.claim_check import fact_decider
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads


@pytest.fixture(autouse=True)
def one_thread():
    with limited_threads(1):
        yield


def _randomise_bn(module: nn.Module, gen: torch.Generator) -> None:
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d | nn.BatchNorm1d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen, dtype=m.running_mean.dtype))
            m.running_var.copy_(torch.rand(c, generator=gen, dtype=m.running_var.dtype) + 0.5)
            m.weight.data.copy_(torch.randn(c, generator=gen, dtype=m.weight.dtype))
            m.bias.data.copy_(torch.randn(c, generator=gen, dtype=m.bias.dtype))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 9, 10, 17, 100])
def test_pad_unpad_roundtrip_and_cyclic_padding(n):
    h = torch.randn(2, 3, n)
    g = pad_to_grid(h)
    s = grid_side(n)
    assert s == int(np.floor(np.sqrt(n))) + 1 and g.shape == (2, 3, s, s)
    assert torch.equal(unpad_from_grid(g, n), h)
    flat = g.reshape(2, 3, -1)
    assert torch.equal(flat, h[..., torch.arange(s * s) % n])  # wrap-around copies i mod N'


def test_depthwise_channels_do_not_mix_before_ffn():
    torch.manual_seed(0)
    blk = DConvBlock2d(6, 8, n_dilations=2).double().eval()
    _randomise_bn(blk, torch.Generator().manual_seed(1))
    g = pad_to_grid(torch.randn(2, 6, 30, dtype=torch.float64))
    base = blk.conv_part(g)
    for c in range(6):
        g2 = g.clone()
        g2[:, c] = 0.0
        out = blk.conv_part(g2)
        changed = (out - base).abs().amax(dim=(0, 2, 3))
        assert changed[c] > 1e-6
        assert torch.all(changed[torch.arange(6) != c] == 0)


def test_sabotage_dense_conv_breaks_depthwise_oracle():
    torch.manual_seed(0)
    blk = DConvBlock2d(4, 4, 1).double().eval()
    conv = blk.incs[0].convs[1]
    dense = nn.Conv2d(4, 4, 3, padding=1).double()  # groups=1: mixes channels
    blk.incs[0].convs[1] = dense
    g = pad_to_grid(torch.randn(1, 4, 10, dtype=torch.float64))
    g2 = g.clone()
    g2[:, 0] = 0
    diff = (blk.conv_part(g2) - blk.conv_part(g)).abs().amax(dim=(0, 2, 3))
    assert torch.any(diff[1:] > 1e-8) and conv.groups == 4


def test_one_variable_block_is_per_channel_affine_plus_ffn():
    torch.manual_seed(0)
    d = 5
    blk = DConvBlock2d(d, 7, n_dilations=2).double().eval()
    _randomise_bn(blk, torch.Generator().manual_seed(2))
    h = torch.randn(40, d, 1, dtype=torch.float64)
    y = unpad_from_grid(blk.conv_part(pad_to_grid(h)), 1)[..., 0]  # (B, D)
    for c in range(d):
        a = torch.stack([h[:, c, 0], torch.ones(40, dtype=torch.float64)], 1)
        coef = torch.linalg.lstsq(a, y[:, c : c + 1]).solution
        assert torch.allclose(a @ coef, y[:, c : c + 1], atol=1e-10)
    # perturbing other channels leaves channel c unchanged: scalar map per channel
    h2 = h.clone()
    h2[:, 1:] += 1.0
    y2 = unpad_from_grid(blk.conv_part(pad_to_grid(h2)), 1)[..., 0]
    assert torch.allclose(y2[:, 0], y[:, 0], atol=1e-12)
    full = blk(h)[..., 0]
    ffn = blk.ffn
    ref = y + ffn.down(nn.functional.gelu(ffn.up(ffn.norm(y[..., None, None]))))[..., 0, 0]
    assert torch.allclose(full, ref, atol=1e-10)


def test_receptive_field_is_bounded_by_sum_of_3_n_l():
    torch.manual_seed(0)
    dil = [1, 2]
    n = 360  # S = 19, 361 cells: only variable 0 is duplicated
    model = FACT(8, 3, n, d_model=6, d_ff=6, dilations=dil, core=1.0, use_norm=False).double().eval()
    _randomise_bn(model, torch.Generator().manual_seed(3))
    s = grid_side(n)
    assert model.freq is None
    h = torch.randn(1, 6, n, dtype=torch.float64)
    i0, j0 = 9, 9
    v = i0 * s + j0
    h2 = h.clone()
    h2[0, :, v] += 1.0
    resp = (model.time(h2) - model.time(h)).abs().amax(dim=(0, 1))
    ii, jj = np.divmod(np.arange(n), s)
    dist = np.maximum(abs(ii - i0), abs(jj - j0))
    bound = sum(3 * r for r in dil)
    nz = resp.detach().numpy() > 1e-12
    assert nz.any() and dist[nz].max() <= bound
    assert dist[nz].max() == bound  # the bound is reached


def test_frequency_branch_with_identity_blocks_is_identity():
    for d in (8, 9):
        fb = FrequencyBranch(d, [nn.Identity()], [nn.Identity()]).double()
        h = torch.randn(3, d, 11, dtype=torch.float64)
        assert torch.allclose(fb(h), h, atol=1e-12)


@pytest.mark.parametrize("core", [0.5, 1.0])
@pytest.mark.parametrize("n_mark", [0, 2])
def test_output_shapes_and_backward(core, n_mark):
    torch.manual_seed(0)
    for cls in (FACT, FACTAttn):
        m = cls(12, 5, 7, n_mark, d_model=8, d_ff=8, dilations=[1, 2], core=core)
        x = torch.randn(3, 12, 7)
        xm = torch.randn(3, 12, n_mark) if n_mark else None
        out = m(x, xm)
        assert out.shape == (3, 5, 7)
        out.sum().backward()
        assert all(p.grad is not None for p in m.parameters() if p.requires_grad)


def test_normalisation_makes_model_shift_scale_equivariant():
    torch.manual_seed(0)
    m = FACT(12, 4, 5, d_model=8, d_ff=8, dilations=[1]).eval()
    x = torch.randn(2, 12, 5)
    assert torch.allclose(m(3 * x + 2), 3 * m(x) + 2, atol=1e-4)


def test_baselines_shapes_and_dlinear_linear():
    torch.manual_seed(0)
    x = torch.randn(2, 32, 6)
    for m in (
        ITransformer(32, 8, 6, 2, 16, 16),
        DLinear(32, 8, 6),
        PatchTST(32, 8, 6, d_model=16, d_ff=16),
        TSMixerLite(32, 8, 6),
    ):
        assert m(x, torch.randn(2, 32, 2)).shape == (2, 8, 6)
    dl = DLinear(32, 8, 6)
    y = torch.randn(2, 32, 6)
    assert torch.allclose(
        dl(x + y) - dl.trend.bias[:, None] - dl.seasonal.bias[:, None],
        dl(x) + dl(y) - 2 * (dl.trend.bias + dl.seasonal.bias)[:, None],
        atol=1e-5,
    )


def test_generator_is_seeded_local_and_orderings():
    a = make_grid_diffusion(5, 300, seed=1)
    assert a.shape == (300, 25) and np.array_equal(a, make_grid_diffusion(5, 300, seed=1))
    assert not np.array_equal(a, make_grid_diffusion(5, 300, seed=2))
    # neighbouring cells correlate more than far cells (local coupling)
    c = np.corrcoef(a.T)
    near = np.mean([c[i * 5 + j, i * 5 + j + 1] for i in range(5) for j in range(4)])
    far = np.mean([c[i * 5, (4 - i) * 5 + 4] for i in range(5)])
    assert near > far
    p = ordering(25, "permuted", seed=0)
    assert sorted(p) == list(range(25)) and not np.array_equal(p, ordering(25))
    fd = prepare(a, 16, 4, p)
    assert torch.allclose(fd.series[:, 0], prepare(a, 16, 4).series[:, p[0]])
    x, xm, y = fd.windows(fd.split_starts("test", 10))
    assert x.shape[1:] == (16, 25) and xm.shape[-1] == 2 and y.shape[1:] == (4, 25)


def test_attention_saves_more_memory_than_conv_at_larger_n():
    torch.manual_seed(0)
    f = saved_activation_bytes(FACT(16, 4, 144, d_model=8, d_ff=8, dilations=[1]), 2, 16, 144)
    a = saved_activation_bytes(FACTAttn(16, 4, 144, d_model=8, d_ff=8, dilations=[1]), 2, 16, 144)
    assert 0 < f < a


def _rows(diffs, ratio, base=0.5):
    return [{"m": base + d, "b": base, "tm": ratio, "tb": 1.0} for d in diffs]


def test_decider_supported_not_supported_inconclusive():
    dec = fact_decider("m", "b", "tm", "tb")
    assert dec(_rows([-0.10, -0.12, -0.11], 0.5)).outcome == Outcome.SUPPORTED
    assert dec(_rows([0.10, 0.12, 0.11], 0.5)).outcome == Outcome.NOT_SUPPORTED
    assert dec(_rows([-0.10, -0.12, -0.11], 0.9)).outcome == Outcome.INCONCLUSIVE
    assert dec(_rows([-0.1, 0.1, 0.0], 0.5)).outcome == Outcome.INCONCLUSIVE
    assert dec(_rows([-0.10, -0.12, -0.11], float("nan"))).outcome == Outcome.INCONCLUSIVE
    # timing off (NaN) does not hide a reliably worse FACT
    assert dec(_rows([0.10, 0.12, 0.11], float("nan"))).outcome == Outcome.NOT_SUPPORTED
    assert dec(dec.synthesize(_rows([0.1, 0.1, 0.1], float("nan")))).outcome == Outcome.SUPPORTED


def _claim_rows(mse_fact, mse_itr, trivial=0.6, ratio=0.4, order="raster"):
    rows = []
    for i, (f, t) in enumerate(zip(mse_fact, mse_itr)):
        rows.append(
            {
                f"{order}_fact_mse": f,
                f"{order}_itransformer_mse": t,
                f"{order}_fact_rel_trivial": f / trivial,
                f"{order}_itransformer_rel_trivial": t / trivial,
                "time_fact_nmax": ratio * (1.0 + 0.01 * i),
                "time_factattn_nmax": 1.0 + 0.01 * i,
            }
        )
    return rows


def test_claims_need_models_that_beat_the_trivial_forecasters():
    from iclr26.architectures.fact_forecast.experiment import EXPERIMENT

    main, permuted = EXPERIMENT.claims
    win = ([0.45, 0.46, 0.44], [0.50, 0.52, 0.49])
    assert main.judge(_claim_rows(*win)).outcome == Outcome.SUPPORTED  # learned models: a real verdict
    assert main.judge(_claim_rows(*win[::-1])).outcome == Outcome.NOT_SUPPORTED
    # both deep models worse than repeating the last value: they did not learn the task
    assert main.judge(_claim_rows(*win, trivial=0.40)).outcome == Outcome.NOT_REPRODUCED
    p_rows = _claim_rows(*win, order="permuted")
    assert permuted.judge(p_rows).outcome == Outcome.SUPPORTED
    assert permuted.judge(_claim_rows(*win[::-1], order="permuted")).outcome == Outcome.NOT_SUPPORTED
    assert permuted.judge(_claim_rows(*win, trivial=0.47, order="permuted")).outcome == Outcome.NOT_REPRODUCED


def test_trivial_forecasters_are_last_value_and_window_mean():
    from iclr26.architectures.fact_forecast.experiment import trivial_mse

    fd = prepare(make_grid_diffusion(3, 400, seed=0), seq_len=16, pred_len=4)
    starts = fd.split_starts("test", 4)
    x, _, y = fd.windows(starts)
    got = trivial_mse(fd, "test", 4)
    assert got["last"] == pytest.approx(float(((x[:, -1:] - y) ** 2).mean()), rel=1e-6)
    assert got["mean"] == pytest.approx(float(((x.mean(1, keepdim=True) - y) ** 2).mean()), rel=1e-6)


def test_marks_are_normalised_with_the_variables_as_in_the_official_code():
    """Regression: FACT appends the marks, then normalises every channel over the window (official order), so
    an affine change of the marks within a window leaves the forecast unchanged; appending raw marks after
    normalising the variables (the earlier order) does not have this property."""
    torch.manual_seed(0)
    n, n_mark, L, F = 7, 2, 12, 3
    model = FACT(L, F, n, n_mark, d_model=8, d_ff=8, dilations=[1, 2]).double().eval()
    _randomise_bn(model, torch.Generator().manual_seed(1))
    x = torch.randn(4, L, n, dtype=torch.float64)
    xm = torch.randn(4, L, n_mark, dtype=torch.float64)
    out = model(x, xm)
    torch.testing.assert_close(model(x, xm - 5.0), out, atol=1e-9, rtol=1e-9)  # exact up to rounding
    torch.testing.assert_close(model(x, 3.0 * xm - 5.0), out, atol=1e-4, rtol=1e-4)  # up to the 1e-5 eps
    # the official order, step by step
    z = torch.cat([x, xm], -1)
    mean = z.mean(1, keepdim=True)
    std = torch.sqrt(z.var(1, keepdim=True, unbiased=False) + 1e-5)
    h = model.embed((z - mean) / std)
    core = model.core * model.time(h) + (1 - model.core) * model.freq(h)
    ref = (model.proj(core) * std + mean)[..., :n]
    torch.testing.assert_close(out, ref, atol=1e-12, rtol=1e-12)
