"""Oracle tests of the SiTok reproduction (arXiv 2602.06602): the VQ's straight-through gradient and EMA update,
the rectified-flow loss and sampler on an oracle velocity, CTC against brute-force alignment sums, encoder
causality, padding invariance, Fréchet distance, the synthesiser and the claim rule."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.linalg
import torch
import torch.nn.functional as F

from iclr26.generative.sitok import (
    PHONES,
    CTCHead,
    EMAVectorQuantizer,
    KMeansTokenizer,
    PhoneRecognizer,
    RectifiedFlowDecoder,
    SiTokenizer,
    bitrate_bps,
    codebook_perplexity,
    ctc_greedy_decode,
    edit_distance,
    espeak_corpus,
    euler_sample,
    flow_matching_loss,
    frechet_distance,
    log_mel,
    mel_filterbank,
    phone_error_rate,
    train_tokenizer,
)
from iclr26.generative.sitok.claim_check import paired_interval, sitok_decider
from iclr26.generative.sitok.ctc import ctc_loss
from iclr26.generative.sitok.experiment import _fd_from_stats, _utt_stats
from iclr26.generative.sitok.metrics import bootstrap_se, corpus_rate
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads

F64 = torch.float64


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


def _tiny(decoder: str = "diffusion", lambda_ctc: float = 1.0, **kw) -> SiTokenizer:
    torch.manual_seed(0)
    args = dict(n_mels=16, d_model=32, enc_layers=2, dec_layers=1, n_heads=2, codebook_size=16, code_dim=4)
    return SiTokenizer(**(args | kw), n_symbols=5, lambda_ctc=lambda_ctc, decoder=decoder)


# ---------------------------------------------------------------- quantiser


def test_straight_through_gradient_is_identity():
    vq = EMAVectorQuantizer(8, 3).eval()
    z = torch.randn(4, 5, 3, dtype=F64, requires_grad=True)
    w = torch.randn(4, 5, 3, dtype=F64)
    q, idx, _ = vq(z)
    (q * w).sum().backward()
    torch.testing.assert_close(z.grad, w, rtol=0, atol=0)
    torch.testing.assert_close(q.detach(), vq.embed.to(F64)[idx])  # forward value is the code


def test_commitment_loss_and_its_gradient():
    vq = EMAVectorQuantizer(8, 3, commitment=0.5).eval()
    z = torch.randn(10, 3, requires_grad=True)
    _, idx, loss = vq(z)
    q = vq.embed[idx]
    torch.testing.assert_close(loss, 0.5 * ((z - q) ** 2).mean())
    loss.backward()
    torch.testing.assert_close(z.grad, 0.5 * 2 * (z - q).detach() / z.numel())


def test_assignment_is_nearest_code():
    vq = EMAVectorQuantizer(7, 4)
    z = torch.randn(50, 4)
    d = torch.cdist(z, vq.embed)
    assert torch.equal(vq.assign(z), d.argmin(-1))


def test_ema_with_zero_decay_sets_used_codes_to_cluster_means():
    vq = EMAVectorQuantizer(6, 2, decay=0.0, eps=0.0)
    before = vq.embed.clone()
    z = torch.randn(40, 2, dtype=torch.float32) * 3
    idx = vq.assign(z)
    vq.ema_update(z, idx)
    for k in range(6):
        sel = idx == k
        if sel.any():
            torch.testing.assert_close(vq.embed[k], z[sel].mean(0), atol=1e-6, rtol=0)
        else:
            torch.testing.assert_close(vq.embed[k], before[k], atol=0, rtol=0)
    assert (~torch.isin(torch.arange(6), idx)).any() or True  # the check above covers both kinds


def test_ema_unused_code_unchanged_when_some_codes_unused():
    vq = EMAVectorQuantizer(4, 2, decay=0.0, eps=0.0)
    vq.embed.copy_(torch.tensor([[0.0, 0.0], [10.0, 10.0], [-10.0, 5.0], [50.0, 50.0]]))
    before = vq.embed.clone()
    z = torch.tensor([[0.1, 0.2], [-0.1, 0.0], [9.0, 11.0]])
    vq.ema_update(z, vq.assign(z))
    torch.testing.assert_close(vq.embed[0], z[:2].mean(0), atol=1e-6, rtol=0)
    torch.testing.assert_close(vq.embed[1], z[2], atol=1e-6, rtol=0)
    torch.testing.assert_close(vq.embed[2:], before[2:], atol=0, rtol=0)


def test_ema_with_decay_099_is_not_the_cluster_mean_but_a_running_mean():
    vq = EMAVectorQuantizer(1, 2, decay=0.99, eps=0.0)
    e0 = vq.embed.clone()
    z = torch.randn(5, 2) + 4
    vq.ema_update(z, vq.assign(z))
    assert not torch.allclose(vq.embed[0], z.mean(0), atol=1e-3)
    # N = 0.99 * 1 + 0.01 * 5, S = 0.99 e0 + 0.01 sum z
    torch.testing.assert_close(vq.embed[0], (0.99 * e0[0] + 0.01 * z.sum(0)) / (0.99 + 0.05))


def test_training_forward_updates_codebook_eval_does_not():
    vq = EMAVectorQuantizer(8, 3, data_init=True)
    z = torch.randn(30, 3)
    vq.eval()
    e = vq.embed.clone()
    vq(z)
    assert torch.equal(vq.embed, e)
    vq.train()
    vq(z)
    assert not torch.equal(vq.embed, e)
    assert bool(vq.initted)


def test_dead_code_restart_moves_dead_codes_onto_data():
    vq = EMAVectorQuantizer(4, 2, decay=0.5, eps=0.0, threshold_ema_dead_code=0.9)
    vq.embed.copy_(torch.tensor([[0.0, 0.0], [100.0, 100.0], [200.0, 0.0], [0.0, 300.0]]))
    vq.embed_avg.copy_(vq.embed)
    z = torch.randn(20, 2) * 0.1
    vq.ema_update(z, vq.assign(z))
    # codes 1-3 got no vectors: count 0.5 < 0.9 -> restarted on batch vectors
    for k in (1, 2, 3):
        assert any(torch.allclose(vq.embed[k], v) for v in z)


def test_bitrate_and_perplexity():
    assert bitrate_bps(65536, 12.5) == 200.0
    assert bitrate_bps(1024, 12.5) == 125.0
    assert codebook_perplexity(torch.tensor([3, 3, 3]), 8) == pytest.approx(1.0)
    assert codebook_perplexity(torch.arange(8), 8) == pytest.approx(8.0)


# ---------------------------------------------------------------- decoder


def test_zero_steps_return_the_noise():
    dec = RectifiedFlowDecoder(6, 3, d_model=8, n_layers=1, n_heads=2)
    cond = torch.randn(2, 5, 3)
    noise = torch.randn(2, 5, 6)
    torch.testing.assert_close(dec.sample(cond, steps=0, noise=noise), noise, rtol=0, atol=0)
    assert dec.sample(cond, steps=0).shape == (2, 5, 6)


def _oracle(x1: torch.Tensor):
    """The exact velocity of the flow to the point mass x1: (x1 - x) / (1 - tau)."""
    return lambda x, tau: (x1 - x) / (1 - tau[:, None, None])


def test_flow_loss_is_zero_for_the_oracle_velocity_and_positive_otherwise():
    g = torch.Generator().manual_seed(0)
    x1, noise = torch.randn(3, 4, 5, generator=g, dtype=F64), torch.randn(3, 4, 5, generator=g, dtype=F64)
    tau = torch.rand(3, generator=g, dtype=F64) * 0.99
    assert float(flow_matching_loss(_oracle(x1), x1, noise, tau)) < 1e-20
    zero = flow_matching_loss(lambda x, t: torch.zeros_like(x), x1, noise, tau)
    torch.testing.assert_close(zero, ((x1 - noise) ** 2).mean())


def test_flow_loss_mask_drops_padded_frames():
    g = torch.Generator().manual_seed(1)
    x1, noise = torch.randn(2, 4, 3, generator=g), torch.randn(2, 4, 3, generator=g)
    tau = torch.full((2,), 0.3)
    mask = torch.tensor([[True, True, False, False], [True, True, True, True]])
    v = lambda x, t: torch.zeros_like(x)  # noqa: E731
    err = ((x1 - noise) ** 2).mean(-1)
    torch.testing.assert_close(flow_matching_loss(v, x1, noise, tau, mask), err[mask].mean())


def test_euler_with_the_oracle_velocity_lands_on_the_target():
    x1 = torch.randn(2, 3, 4, dtype=F64)
    noise = torch.randn(2, 3, 4, dtype=F64)
    for steps in (1, 4, 16):
        torch.testing.assert_close(euler_sample(_oracle(x1), noise, steps), x1, atol=1e-12, rtol=0)


class _PerfectX(RectifiedFlowDecoder):
    """An x-prediction decoder whose network returns the true clean frames (passed as the condition)."""

    def network(self, x, tau, cond, mask=None):
        return cond


def test_x_prediction_with_the_true_x1_is_the_oracle_velocity():
    dec = _PerfectX(5, 5, d_model=8, n_layers=1, n_heads=2, prediction="x", t_min=0.05)
    g = torch.Generator().manual_seed(2)
    x1, noise = torch.randn(3, 4, 5, generator=g, dtype=F64), torch.randn(3, 4, 5, generator=g, dtype=F64)
    tau = torch.tensor([0.0, 0.5, 0.9], dtype=F64)
    v = lambda x, t: dec(x, t, x1)  # noqa: E731
    assert float(flow_matching_loss(v, x1, noise, tau)) < 1e-20
    torch.testing.assert_close(dec.sample(x1, steps=8, noise=noise), x1, atol=1e-10, rtol=0)
    # below the floor 1 - tau >= t_min the velocity is (x1 - x) / t_min
    x = torch.randn(3, 4, 5, dtype=F64)
    torch.testing.assert_close(dec(x, torch.full((3,), 0.99, dtype=F64), x1), (x1 - x) / 0.05)


def test_v_prediction_returns_the_network_output():
    dec = RectifiedFlowDecoder(6, 3, d_model=8, n_layers=1, n_heads=2, prediction="v").eval()
    x, c, tau = torch.randn(2, 5, 6), torch.randn(2, 5, 3), torch.rand(2)
    assert torch.equal(dec(x, tau, c), dec.network(x, tau, c))


def test_decoder_gates_start_at_zero_and_mask_ignores_padding():
    dec = RectifiedFlowDecoder(6, 3, d_model=8, n_layers=2, n_heads=2).eval()
    x, c, tau = torch.randn(1, 5, 6), torch.randn(1, 5, 3), torch.rand(1)
    mask = torch.tensor([[True, True, True, False, False]])
    with torch.no_grad():
        for p in dec.parameters():
            p.add_(0.1 * torch.randn_like(p))
        a = dec(x, tau, c, mask)[:, :3]
        x2, c2 = x.clone(), c.clone()
        x2[:, 3:] += 5
        c2[:, 3:] -= 5
        b = dec(x2, tau, c2, mask)[:, :3]
    torch.testing.assert_close(a, b, atol=1e-5, rtol=0)


# ---------------------------------------------------------------- CTC


def _brute_ctc(log_probs: torch.Tensor, target: list[int], blank: int) -> float:
    """-log sum over all frame paths that collapse to `target` (repeats merged, blanks dropped)."""
    t, c = log_probs.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t):
        collapsed = [s for i, s in enumerate(path) if s != blank and (i == 0 or s != path[i - 1])]
        if collapsed == target:
            total += math.exp(sum(float(log_probs[i, s]) for i, s in enumerate(path)))
    return -math.log(total)


def test_ctc_loss_matches_brute_force_alignment_sum():
    g = torch.Generator().manual_seed(0)
    lp = torch.randn(1, 5, 3, generator=g, dtype=F64).log_softmax(-1)
    for target in ([0], [0, 1], [1, 1], [0, 1, 0]):
        got = ctc_loss(lp, torch.tensor([target]), torch.tensor([5]), torch.tensor([len(target)]), blank=2)
        assert float(got) * len(target) == pytest.approx(_brute_ctc(lp[0], target, 2), rel=1e-9)


def test_ctc_hand_example_two_frames():
    p = torch.tensor([[0.6, 0.4], [0.3, 0.7]], dtype=F64)  # columns: symbol a, blank
    expected = -math.log(0.6 * 0.3 + 0.6 * 0.7 + 0.4 * 0.3)  # "a a", "a -", "- a"
    got = ctc_loss(p.log()[None], torch.tensor([[0]]), torch.tensor([2]), torch.tensor([1]), blank=1)
    assert float(got) == pytest.approx(expected, rel=1e-12)
    ref = F.ctc_loss(p.log()[:, None], torch.tensor([[0]]), torch.tensor([2]), torch.tensor([1]), blank=1)
    assert float(got) == pytest.approx(float(ref), rel=1e-12)


def test_ctc_head_upsamples_each_token_and_loss_matches_torch():
    head = CTCHead(4, 3, upsample=2)
    h = torch.randn(2, 3, 4)
    lp = head(h)
    assert lp.shape == (2, 6, 4)
    torch.testing.assert_close(lp.exp().sum(-1), torch.ones(2, 6))
    # frames 2t, 2t+1 come from token t only
    h2 = h.clone()
    h2[:, 1] += 1
    assert torch.equal(head(h2)[:, [0, 1, 4, 5]], lp[:, [0, 1, 4, 5]])
    y, yl, il = torch.tensor([[0, 1], [2, 0]]), torch.tensor([2, 1]), torch.tensor([3, 2])
    ref = F.ctc_loss(lp.transpose(0, 1), y, il * 2, yl, blank=3, zero_infinity=True)
    torch.testing.assert_close(head.loss(h, y, il, yl), ref)


def test_greedy_decode_edit_distance_and_per():
    lp = torch.log(
        torch.tensor([[[0.9, 0.1, 0.0], [0.8, 0.2, 0.0], [0.1, 0.0, 0.9], [0.9, 0.0, 0.1]]]) + 1e-9
    )
    assert ctc_greedy_decode(lp, torch.tensor([4]), blank=2) == [[0, 0]]
    assert ctc_greedy_decode(lp, torch.tensor([2]), blank=2) == [[0]]
    assert edit_distance([1, 2, 3], [1, 3]) == 1
    assert edit_distance([1, 2, 3], [3, 2, 1]) == 2
    assert edit_distance([], [1, 2]) == 2
    assert phone_error_rate([[1, 2], [3, 4, 5]], [[1, 2], []]) == pytest.approx(3 / 5)


# ---------------------------------------------------------------- tokenizer


def test_stack_unstack_round_trip_and_layout():
    tok = _tiny()
    tok.set_normalization(torch.randn(16), torch.rand(16) + 0.5)
    mel = torch.randn(2, 16, 12)
    x = tok.stack_frames(mel)
    assert x.shape == (2, 3, 64)
    norm = (mel - tok.mel_mean[:, None]) / tok.mel_std[:, None]
    torch.testing.assert_close(x[:, 1, 16:32], norm[:, :, 5])  # token 1 holds frames 4..7, in order
    torch.testing.assert_close(tok.unstack_frames(x), mel, atol=1e-5, rtol=0)


@pytest.mark.parametrize("f", [4, 5, 7, 8, 13, 19])
def test_encode_is_causal(f):
    tok = _tiny().eval()
    mel = torch.randn(1, 16, 20)
    later = mel.clone()
    later[:, :, f:] = torch.randn(1, 16, 20 - f) * 3
    a, b = tok.encode(mel), tok.encode(later)
    assert torch.equal(a[:, : f // 4], b[:, : f // 4])
    za, zb = tok.latents(mel), tok.latents(later)
    torch.testing.assert_close(za[:, : f // 4], zb[:, : f // 4], atol=1e-6, rtol=0)
    assert not torch.allclose(za[:, f // 4 :], zb[:, f // 4 :])


def test_encode_uses_fixed_statistics_not_the_utterance():
    tok = _tiny().eval()
    mel = torch.randn(2, 16, 16)
    both = tok.encode(mel)
    assert torch.equal(both[:1], tok.encode(mel[:1])) and torch.equal(both[1:], tok.encode(mel[1:]))
    # shifting the whole utterance changes the codes' inputs (no per-utterance mean removal)
    assert not torch.allclose(tok.latents(mel + 3.0), tok.latents(mel))


def test_forward_losses_and_lambda_zero():
    mel = torch.randn(2, 16, 16)
    text = [torch.tensor([0, 1, 2]), torch.tensor([4])]
    for lam in (0.0, 0.7):
        tok = _tiny(lambda_ctc=lam)
        out = tok(mel, text, generator=torch.Generator().manual_seed(0))
        torch.testing.assert_close(out["loss"], out["loss_diff"] + lam * out["loss_ctc"] + out["loss_commit"])
        out["loss"].backward()
        has_grad = tok.ctc.net.weight.grad is not None and bool(tok.ctc.net.weight.grad.abs().sum() > 0)
        assert has_grad == (lam > 0)
        assert (
            tok.encoder.inp.weight.grad.abs().sum() > 0
        )  # the decoder loss reaches the encoder (straight-through)


def test_padding_leaves_losses_of_the_valid_frames_unchanged():
    tok = _tiny("regression")
    tok.eval()  # no EMA update, so both calls see the same codebook
    mel = torch.randn(1, 16, 8)
    text = [torch.tensor([1, 2])]
    padded = torch.cat([mel, torch.randn(1, 16, 8) * 4], 2)
    a = tok(mel, text)
    b = tok(padded, text, mel_lengths=torch.tensor([8]))
    for k in ("loss_diff", "loss_ctc", "loss_commit"):
        torch.testing.assert_close(a[k], b[k], atol=1e-5, rtol=1e-5)


def test_decode_shapes_and_regression_is_deterministic():
    tok = _tiny("regression").eval()
    codes = torch.randint(0, 16, (2, 3))
    a, b = tok.decode(codes), tok.decode(codes, steps=16)
    assert a.shape == (2, 16, 12)
    assert torch.equal(a, b)
    dtok = _tiny().eval()
    g = lambda: torch.Generator().manual_seed(3)  # noqa: E731
    assert torch.equal(dtok.decode(codes, 4, g()), dtok.decode(codes, 4, g()))
    # zero steps: the noise itself, de-normalised
    noise = torch.randn(2, 3, 64, generator=g())
    torch.testing.assert_close(dtok.decode(codes, 0, g()), dtok.unstack_frames(noise))


def test_training_round_trip_beats_the_mean_frame():
    """150 steps on 6 utterances: regression reconstructions beat the predict-the-mean-frame L1, and re-encoding
    the reconstruction gives back the codes far more often than a random code would (1 / 32)."""
    corpus = espeak_corpus(6, (0, 2), seed=3)
    allm = torch.cat(corpus["mel"], 1)
    mean, std = allm.mean(1), allm.std(1)
    torch.manual_seed(0)
    tok = SiTokenizer(d_model=32, enc_layers=1, dec_layers=1, n_heads=2, codebook_size=32, code_dim=8,
                      decoder="regression", dead_code_threshold=0.5)  # fmt: skip
    tok.set_normalization(mean, std)
    train_tokenizer(tok, corpus, steps=150, batch=6, lr=3e-3, seed=0)
    mel = corpus["mel"][0][None]
    codes = tok.encode(mel)
    recon = tok.decode(codes)
    l1 = float((recon - mel).abs().mean())
    base = float((mel - mean[None, :, None]).abs().mean())
    assert l1 < 0.8 * base
    agree = float((tok.encode(recon) == codes).float().mean())
    assert agree > 2 / 32


# ---------------------------------------------------------------- data and metrics


def test_corpus_frames_multiple_of_four_labels_valid_and_deterministic():
    a = espeak_corpus(4, (1, 4), seed=5)
    b = espeak_corpus(4, (1, 4), seed=5)
    for m, p, mb in zip(a["mel"], a["phones"], b["mel"]):
        assert m.shape[0] == 128 and m.shape[1] % 4 == 0
        assert torch.equal(m, mb)
        assert int(p.min()) >= 0 and int(p.max()) < len(PHONES)
        assert m.shape[1] // 4 >= len(p) / 2  # the CTC head (x2 upsampling) can emit every phone
    assert a["voice"] == [1, 4, 1, 4]
    assert len(PHONES) == 35


def test_log_mel_frames_and_filterbank():
    fb = mel_filterbank()
    assert fb.shape == (128, 513)
    assert bool((fb.sum(1) > 0).all())  # no empty filter
    wave = np.sin(2 * np.pi * 1000 * np.arange(16000) / 16000).astype(np.float32)
    mel = log_mel(wave)
    assert mel.shape == (128, 1 + 16000 // 320)
    peak = int(mel[:, 25].argmax())
    centres = (fb * torch.linspace(0, 8000, 513)).sum(1) / fb.sum(1)
    assert abs(float(centres[peak]) - 1000) < 60


def test_frechet_distance_closed_forms():
    g = np.random.default_rng(0)
    a = g.normal(size=(4000, 3))
    assert frechet_distance(a, a) == pytest.approx(0.0, abs=1e-9)
    # 1-D: (mu_a - mu_b)^2 + (sd_a - sd_b)^2
    x, y = g.normal(0, 1, size=(5000, 1)), g.normal(2, 3, size=(5000, 1))
    want = (x.mean() - y.mean()) ** 2 + (x.std(ddof=1) - y.std(ddof=1)) ** 2
    assert frechet_distance(x, y) == pytest.approx(want, rel=1e-9)
    # against scipy's matrix square root form
    b = g.normal(size=(3000, 3)) @ np.array([[1.0, 0.3, 0], [0, 2, 0.1], [0, 0, 0.5]])
    sa, sb = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    ref = ((a.mean(0) - b.mean(0)) ** 2).sum() + np.trace(sa + sb - 2 * scipy.linalg.sqrtm(sa @ sb).real)
    assert frechet_distance(a, b) == pytest.approx(ref, rel=1e-7)


def test_fd_from_per_utterance_stats_equals_concatenated_frames():
    g = torch.Generator().manual_seed(0)
    mels_a = [torch.randn(6, n, generator=g) for n in (8, 12, 4)]
    mels_b = [torch.randn(6, n, generator=g) * 2 + 1 for n in (8, 12, 4)]
    sa, sb = _utt_stats(mels_a), _utt_stats(mels_b)
    idx = np.array([0, 2, 2, 1])
    cat = lambda ms: torch.cat([ms[i] for i in idx], 1).T.double().numpy()  # noqa: E731
    assert _fd_from_stats(sa, sb, idx) == pytest.approx(frechet_distance(cat(mels_a), cat(mels_b)), rel=1e-9)


def test_bootstrap_se_of_a_corpus_rate():
    edits, lengths = np.ones(400), np.full(400, 4.0)
    assert bootstrap_se(corpus_rate(edits, lengths), 400, 50) == pytest.approx(0.0, abs=1e-12)
    g = np.random.default_rng(1)
    x = g.normal(size=2000)
    se = bootstrap_se(lambda i: float(x[i].mean()), 2000, 300)
    assert se == pytest.approx(1 / math.sqrt(2000), rel=0.2)


def test_kmeans_tokenizer_decodes_centroids():
    mels = [torch.randn(8, 40) for _ in range(3)]
    tok = KMeansTokenizer(codebook_size=4, n_mels=8, seed=0).fit(mels)
    codes = tok.encode(torch.randn(2, 8, 12))
    assert codes.shape == (2, 3)
    again = tok.encode(tok.decode(codes))
    assert torch.equal(again, codes)  # a centroid is its own nearest centroid


def test_phone_recognizer_output_lengths():
    rec = PhoneRecognizer(8, 5, hidden=4, stack=2, upsample=3)
    assert rec(torch.randn(2, 9, 8)).shape == (2, 12, 6)
    assert rec.output_lengths(torch.tensor([9, 4])).tolist() == [12, 6]


# ---------------------------------------------------------------- claim rule


def _rows(gain: float, rec_diff: float, fd_gain: float, se: float = 0.005, n: int = 3) -> list[dict]:
    rows = []
    for i in range(n):
        j = 0.002 * (i - 1)
        rows.append({
            "noctc_probe_per": 0.6, "sitok_probe_per": 0.6 - gain + j,
            "noctc_rec_per": 0.1, "sitok_rec_per": 0.1 + rec_diff + j,
            "l1ctc_fd": 10.0, "sitok_fd": 10.0 - fd_gain + j,
            "se_probe_gain": se, "se_rec_diff": se, "se_fd_gain": se,
        })  # fmt: skip
    return rows


def test_paired_interval_hand_computed():
    est, lo, hi, se = paired_interval(np.array([0.1, 0.2, 0.3]), np.array([0.0, 0.0, 0.0]))
    assert est == pytest.approx(0.2)
    assert se == pytest.approx(0.1 / math.sqrt(3))
    # within-seed error dominates when seeds agree
    est, lo, hi, se = paired_interval(np.array([0.2, 0.2]), np.array([0.1, 0.1]))
    assert se == pytest.approx(0.1 / math.sqrt(2)) and lo == pytest.approx(0.2 - 1.959963984540054 * se)


def test_claim_rule_outcomes():
    decide = sitok_decider()
    assert decide(_rows(0.2, 0.0, 2.0)).outcome is Outcome.SUPPORTED
    assert decide(_rows(0.0, 0.0, 2.0)).outcome is Outcome.NOT_SUPPORTED  # (1) refuted
    assert decide(_rows(0.2, 0.1, 2.0)).outcome is Outcome.INCONCLUSIVE  # (2) fails: rec PER penalty
    assert decide(_rows(0.2, 0.0, -2.0)).outcome is Outcome.INCONCLUSIVE  # (2) fails: FD above L1's
    assert decide(_rows(0.06, 0.0, 2.0, se=0.05)).outcome is Outcome.INCONCLUSIVE  # wide interval
    assert decide(_rows(0.04, 0.0, 2.0, se=0.001)).outcome is Outcome.NOT_SUPPORTED  # excludes 5 points


def test_two_stage_reuses_the_frozen_codes_and_sweep_runs(tmp_path, monkeypatch):
    """The full budget's extra variants at smoke scale: the two-stage baseline keeps the L1 model's encoder and
    codebook frozen, so its codes (hence its probe PER) are exactly the L1 model's; the lambda sweep runs."""
    import dataclasses

    from iclr26.generative.sitok.experiment import _SMOKE, run

    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path))
    cfg = dataclasses.replace(_SMOKE, variants=("sitok", "l1ctc", "twostage"), lambda_sweep=(0.5,))
    m = run(cfg, 0, "cpu").values
    assert m["twostage_probe_per"] == m["l1ctc_probe_per"]
    assert m["twostage_perplexity"] == m["l1ctc_perplexity"]
    assert math.isfinite(m["twostage_fd"]) and math.isfinite(m["sitok_lam0p5_probe_per"])
