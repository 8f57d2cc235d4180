"""Overtone: CSM / CKM tokenizers against plain convolutions and loops, padding and token counts, the PI-resize
identities, the emulator on every patch of one set of weights, rollout schedules, the spectral diagnostics on
synthetic fields, VRMSE, and the claim rules on hand-built rows."""

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from iclr26.harness.claims import Outcome
from iclr26.science.overtone import (
    CKMDecoder2d,
    CKMEncoder2d,
    CSMDecoder2d,
    CSMEncoder2d,
    PatchModulatedEmulator,
    extra_padding,
    harmonic_peak_ratio,
    harmonic_wavenumbers,
    kernel_partition,
    pi_resize,
    residual_spectrum,
    resize_matrix,
    rollout,
    token_count,
    vrmse,
)
from iclr26.science.overtone.claim_check import cyclic_mitigates_harmonics, flexible_matches_fixed
from iclr26.science.overtone.emulator import token_centres

D = torch.float64
PAPER_SET = ((2, 2), (4, 2), (4, 4), (8, 4))
SMALL_SET = ((2, 2), (4, 2), (4, 4))


def _enc(k=(4, 4), sset=SMALL_SET, c=2, d=16, boundary="periodic"):
    torch.manual_seed(0)
    return CSMEncoder2d(c, d, k, sset, groups=2, boundary=boundary).double()


# ------------------------------------------------------------------ CSM


def test_csm_with_strides_equal_to_kernels_is_a_plain_patchify_stack():
    enc = _enc(k=(4, 2), sset=((4, 2), (2, 2)))
    x = torch.randn(3, 2, 32, 32, dtype=D, requires_grad=True)
    out = enc(x, (4, 2))
    ref_conv1 = torch.nn.Conv2d(2, 4, 4, stride=4, bias=False).double()
    ref_conv2 = torch.nn.Conv2d(4, 16, 2, stride=2, bias=False).double()
    ref_conv1.weight.data.copy_(enc.proj1.weight.data)
    ref_conv2.weight.data.copy_(enc.proj2.weight.data)
    ref = F.gelu(enc.norm2(ref_conv2(F.gelu(enc.norm1(ref_conv1(x))))))
    assert out.shape == (3, 16, 4, 4)
    assert torch.allclose(out, ref, atol=1e-6)
    g = torch.randn_like(out)
    (gx,), (gr,) = torch.autograd.grad(out, x, g), torch.autograd.grad(ref, x, g)
    assert torch.allclose(gx, gr, atol=1e-6)


def _conv_loop(x, w, s):
    """Strided valid convolution by an explicit loop over windows (the slow reference)."""
    k = w.shape[-1]
    n = (x.shape[-1] - k) // s + 1
    out = torch.zeros(x.shape[0], w.shape[0], n, n, dtype=x.dtype)
    for i in range(n):
        for j in range(n):
            patch = x[:, :, i * s : i * s + k, j * s : j * s + k]
            out[:, :, i, j] = torch.einsum("bchw,ochw->bo", patch, w)
    return out


def test_overlapping_csm_first_layer_equals_a_window_loop_with_circular_padding():
    enc = _enc()
    x = torch.randn(2, 2, 16, 16, dtype=D)
    xp = enc.pad(x, (2, 2))
    assert xp.shape[-1] == 16 + extra_padding(16, (4, 4), (2, 2))
    assert torch.equal(xp[..., 1:-1, 1:-1], x) and torch.equal(xp[..., 0, 1:-1], x[..., -1, :])
    assert torch.allclose(
        F.conv2d(xp, enc.proj1.weight, stride=2), _conv_loop(xp, enc.proj1.weight, 2), atol=1e-12
    )


@pytest.mark.parametrize("H", [48, 64])
@pytest.mark.parametrize("strides", PAPER_SET)
def test_decoder_returns_the_input_shape_and_padding_is_even(H, strides):
    torch.manual_seed(0)
    enc = CSMEncoder2d(1, 16, (8, 4), PAPER_SET, groups=2)
    dec = CSMDecoder2d(1, 16, (8, 4), PAPER_SET, groups=2)
    pad = extra_padding(H, (8, 4), strides)
    assert pad >= 0 and pad % 2 == 0
    z = enc(torch.randn(2, 1, H, H), strides)
    assert z.shape[-1] == token_count(H, (8, 4), strides)
    assert dec(z, strides, out_shape=(H, H)).shape == (2, 1, H, H)
    assert dec(z, strides).shape[-1] == H + pad  # uncropped: the padded size


def test_token_counts_follow_the_exact_formula_not_H_over_p():
    for s, n in zip(SMALL_SET, (15, 7, 4)):  # the brief's 225 / 49 / 16 on 64 x 64
        pad = extra_padding(64, (4, 4), s)
        assert token_count(64, (4, 4), s) == (64 + pad - 4 + s[0] - 4 * s[0]) // (s[0] * s[1]) + 1 == n
        assert _enc(c=1)(torch.randn(1, 1, 64, 64, dtype=D), s).shape[-2:] == (n, n)
    assert [extra_padding(64, (4, 4), s) for s in SMALL_SET] == [2, 0, 0]
    # strides equal to the kernels: exactly (H + pad) / p
    assert token_count(64, (4, 4), (4, 4)) == 64 // 16


def test_constant_boundary_adds_a_learned_token_only_on_the_padded_border():
    enc = _enc(boundary="constant")
    with torch.no_grad():
        enc.pad_token.copy_(torch.tensor([1.5, -2.0]))
    x = torch.randn(1, 2, 16, 16, dtype=D)
    xp = enc.pad(x, (2, 2))
    assert torch.equal(xp[..., 1:-1, 1:-1], x)
    assert torch.all(xp[0, 0, 0] == 1.5) and torch.all(xp[0, 1, :, -1] == -2.0)
    assert torch.equal(
        enc.pad(x, (4, 2)), x
    )  # no padding needed: untouched (the token is not added anywhere)
    enc(x, (2, 2)).sum().backward()
    assert enc.pad_token.grad is not None and float(enc.pad_token.grad.abs().sum()) > 0


# ------------------------------------------------------------------ CKM / PI-resize


def test_pi_resize_to_the_base_shape_is_the_identity_and_upsampling_preserves_inner_products():
    w = torch.randn(5, 3, 4, 4, dtype=D)
    assert torch.equal(pi_resize(w, (4, 4)), w)
    for new in ((6, 6), (8, 8), (5, 7)):
        x = torch.randn(5, 3, 4, 4, dtype=D)
        rx = F.interpolate(x, size=new, mode="bicubic", align_corners=False)
        lhs = (rx * pi_resize(w, new)).sum(dim=(-2, -1))
        rhs = (x * w).sum(dim=(-2, -1))
        assert torch.allclose(lhs, rhs, atol=1e-5)


def test_resize_matrix_columns_are_resized_basis_vectors_and_pinv_has_the_right_shape():
    B = resize_matrix((2, 3), (4, 5))
    assert B.shape == (20, 6)
    e = torch.zeros(1, 1, 2, 3, dtype=D)
    e[0, 0, 1, 2] = 1.0
    col = F.interpolate(e, size=(4, 5), mode="bicubic", align_corners=False).reshape(-1)
    assert torch.allclose(B[:, 5], col)
    w = torch.randn(2, 3, dtype=D)
    w_new = pi_resize(w, (4, 5))
    assert torch.allclose(w_new.reshape(-1), torch.linalg.pinv(B.T) @ w.reshape(-1))
    assert torch.allclose(
        B.T @ w_new.reshape(-1), w.reshape(-1), atol=1e-10
    )  # upsampling: B^T w' = w exactly


def test_pi_resize_is_differentiable_and_downsampling_is_the_minimum_norm_fit():
    w = torch.randn(2, 8, 8, dtype=D, requires_grad=True)
    out = pi_resize(w, (4, 4))
    out.sum().backward()
    assert w.grad is not None and w.grad.shape == w.shape
    B = resize_matrix((8, 8), (4, 4))
    ref = torch.linalg.lstsq(B.T, w.detach()[0].reshape(-1, 1)).solution  # min-norm least squares
    assert torch.allclose(out.detach()[0].reshape(-1), ref.reshape(-1), atol=1e-8)


def test_ckm_at_the_base_kernel_equals_a_plain_patchify_stack_and_decoder_restores_shape():
    torch.manual_seed(0)
    enc, dec = (
        CKMEncoder2d(1, 16, (4, 2), (8,), groups=2).double(),
        CKMDecoder2d(1, 16, (4, 2), (8,), groups=2).double(),
    )
    x = torch.randn(2, 1, 32, 32, dtype=D)
    ref = F.gelu(
        enc.norm2(
            F.conv2d(F.gelu(enc.norm1(F.conv2d(x, enc.proj1.weight, stride=4))), enc.proj2.weight, stride=2)
        )
    )
    assert torch.allclose(enc(x, (4, 2)), ref, atol=1e-12)
    assert kernel_partition(8, (4, 2)) == (4, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z = enc(torch.randn(2, 1, 48, 48, dtype=D), 16)
        out = dec(z, 16, out_shape=(48, 48))
    assert z.shape[-1] == 3 and out.shape == (2, 1, 48, 48)
    assert any("outside the trained range" in str(c.message) for c in caught)


def test_kernel_partition_matches_the_official_stride_table():
    assert [kernel_partition(p, (8, 4)) for p in (4, 8, 16, 32)] == list(PAPER_SET)
    assert kernel_partition(12, (8, 4)) == (4, 3) and kernel_partition((3, 5), (8, 4)) == (3, 5)


# ------------------------------------------------------------------ emulator


def _emulator(mode="csm"):
    torch.manual_seed(0)
    return PatchModulatedEmulator(1, 2, 16, 1, 2, (4, 4), SMALL_SET, mode=mode, groups=2).double().eval()


@pytest.mark.parametrize("mode", ["csm", "ckm"])
def test_one_set_of_weights_runs_every_patch_size(mode):
    m = _emulator(mode)
    h = torch.randn(2, 2, 1, 32, 32, dtype=D)
    outs = {p: m(h, p) for p in m.patch_sizes}
    assert all(o.shape == (2, 1, 32, 32) for o in outs.values())
    assert not torch.allclose(outs[4], outs[16])  # different tokenisations, same parameters
    n_params = sum(p.numel() for p in m.parameters())
    assert n_params == sum(p.numel() for p in _emulator(mode).parameters())


def test_emulator_predicts_the_increment_and_its_gradients_reach_every_part():
    m = _emulator()
    h = torch.randn(1, 2, 1, 32, 32, dtype=D)
    assert torch.allclose(m(h, 8), h[:, -1] + m.increment_scale * m.increment(h, 8))
    for p in m.patch_sizes:
        m.zero_grad()
        m(h, p).pow(2).sum().backward()
        assert all(q.grad is not None and torch.isfinite(q.grad).all() for q in m.parameters())


def test_token_centres_are_receptive_field_centres():
    c = token_centres(15, 64, (4, 4), (2, 2), 2)
    span = 4 + 3 * 2  # receptive field 10 pixels
    assert float(c[0]) == pytest.approx((span - 1) / 2 - 1) and float(c[1] - c[0]) == 4.0


# ------------------------------------------------------------------ rollout


class _Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, history, patch):
        self.calls.append(patch)
        return history[:, -1] + 1.0


def test_cyclic_schedule_calls_the_model_with_set_t_mod_n():
    rec = _Recorder()
    out = rollout(rec, torch.zeros(1, 2, 1, 4, 4), 7, [4, 8, 16])
    assert rec.calls == [4, 8, 16, 4, 8, 16, 4]
    assert torch.allclose(out[0, :, 0, 0, 0], torch.arange(1, 8, dtype=torch.float32))
    rec2 = _Recorder()
    rollout(rec2, torch.zeros(1, 2, 1, 4, 4), 4, lambda t: 16 if t % 2 else 8)
    assert rec2.calls == [8, 16, 8, 16]


def test_rollout_with_a_constant_schedule_equals_repeated_single_calls():
    m = _emulator()
    h = torch.randn(2, 2, 1, 32, 32, dtype=D)
    out = rollout(m, h, 3, 8)
    with torch.no_grad():
        a = m(h, 8)
        b = m(torch.stack([h[:, 1], a], 1), 8)
        c = m(torch.stack([a, b], 1), 8)
    assert torch.allclose(out, torch.stack([a, b, c], 1), atol=1e-12)


# ------------------------------------------------------------------ spectra and metrics


def test_harmonic_peak_ratio_is_large_for_a_patch_periodic_error_and_near_one_for_white_noise():
    g = torch.Generator().manual_seed(0)
    N, p = 64, 8
    tile = torch.randn(p, p, generator=g, dtype=D)
    periodic = tile.repeat(N // p, N // p)[None] + 0.3 * torch.randn(4, N, N, generator=g, dtype=D)
    assert harmonic_peak_ratio(residual_spectrum(periodic).axes, p, N) > 5
    white = torch.randn(16, N, N, generator=g, dtype=D)
    assert harmonic_peak_ratio(residual_spectrum(white).axes, p, N) == pytest.approx(1.0, abs=0.2)
    assert harmonic_wavenumbers(8, 64) == [8, 16, 24] and harmonic_wavenumbers(4, 64) == [16]


def test_residual_spectrum_obeys_parseval_and_puts_a_pure_mode_in_its_bin():
    g = torch.Generator().manual_seed(1)
    e = torch.randn(3, 32, 32, generator=g, dtype=D)
    s = residual_spectrum(e)
    assert s.x.sum() == pytest.approx(float(e.pow(2).mean()), rel=1e-10)
    assert s.radial.sum() <= float(e.pow(2).mean()) * (1 + 1e-10)
    x = torch.arange(32, dtype=D) * 2 * math.pi / 32
    mode = torch.cos(5 * x)[None, :].expand(32, 32)
    sm = residual_spectrum(mode)
    assert int(np.argmax(sm.x)) == 5 and sm.x[5] == pytest.approx(0.5) and sm.y[0] == pytest.approx(0.5)
    assert int(np.argmax(sm.radial)) == 5


def test_vrmse_by_hand():
    true = torch.tensor([[[[1.0, 3.0], [1.0, 3.0]]]], dtype=D)  # var 1
    pred = true + torch.tensor([[[[1.0, -1.0], [1.0, -1.0]]]], dtype=D)  # mse 1
    assert float(vrmse(pred, true, eps=0.0)) == pytest.approx(1.0)
    mean = true.mean(dim=(-2, -1), keepdim=True).expand_as(true)
    assert float(vrmse(mean, true, eps=0.0)) == pytest.approx(1.0)
    two = torch.cat([true, 2 * true], dim=1)
    assert float(vrmse(two + 0.5, two, eps=0.0)) == pytest.approx((0.5 + 0.25) / 2)


# ------------------------------------------------------------------ claim rules


def _rows(cyc, fix, hc, hf):
    return [
        {"vrmse_long_csm_cyc": c, "vrmse_long_csm_p8": f, "hpr8_csm_cyc": a, "hpr8_csm_p8": b}
        for c, f, a, b in zip(cyc, fix, hc, hf)
    ]


def test_mitigation_rule_three_outcomes():
    win = _rows([0.70, 0.72, 0.69], [0.80, 0.82, 0.81], [1.1, 1.2, 1.1], [1.5, 1.6, 1.4])
    assert cyclic_mitigates_harmonics(win).outcome is Outcome.SUPPORTED
    no_hpr_drop = _rows([0.70, 0.72, 0.69], [0.80, 0.82, 0.81], [1.6, 1.6, 1.6], [1.5, 1.6, 1.4])
    assert cyclic_mitigates_harmonics(no_hpr_drop).outcome is Outcome.INCONCLUSIVE
    small = _rows([0.78, 0.80, 0.79], [0.80, 0.82, 0.81], [1.1, 1.2, 1.1], [1.5, 1.6, 1.4])
    assert cyclic_mitigates_harmonics(small).outcome is Outcome.INCONCLUSIVE
    worse = _rows([0.85, 0.80, 0.86], [0.80, 0.82, 0.81], [1.1, 1.2, 1.1], [1.5, 1.6, 1.4])
    assert cyclic_mitigates_harmonics(worse).outcome is Outcome.NOT_SUPPORTED


def test_flexibility_rule_three_outcomes():
    def rows(csm, base):
        return [{"vrmse_flex_csm_p8": a, "vrmse_flex_base_p8": b} for a, b in zip(csm, base)]

    assert flexible_matches_fixed(rows([0.50, 0.52, 0.51], [0.50, 0.50, 0.50])).outcome is Outcome.SUPPORTED
    assert (
        flexible_matches_fixed(rows([0.55, 0.60, 0.57], [0.50, 0.50, 0.50])).outcome is Outcome.INCONCLUSIVE
    )
    assert (
        flexible_matches_fixed(rows([0.70, 0.68, 0.66], [0.50, 0.50, 0.50])).outcome is Outcome.NOT_SUPPORTED
    )
    assert (
        flexible_matches_fixed(rows([0.40, 0.70, 0.52], [0.50, 0.50, 0.50])).outcome is Outcome.INCONCLUSIVE
    )


# ------------------------------------------------------------------ bad input (beyond the conformance cases)


def test_stride_not_in_the_set_and_bad_shapes_are_refused():
    enc = _enc(c=1)
    with pytest.raises(ValueError, match="not in the trained set"):
        enc(torch.randn(1, 1, 32, 32, dtype=D), (8, 4))
    with pytest.raises(ValueError, match="odd"):
        enc(torch.randn(1, 1, 33, 32, dtype=D), (2, 2))
    with pytest.raises(ValueError, match="must be <= its kernel"):
        CSMEncoder2d(1, 16, (4, 4), [(8, 2)], groups=2)
