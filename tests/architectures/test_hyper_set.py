"""Tests of Hyper-SET (arXiv 2502.11646): energy-gradient identities, descent, invariants, data, claim rule."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from iclr26.architectures.hyper_set import (
    CRATE,
    DepthwiseLoRA,
    EnergyTransformer,
    HyperSET,
    HyperSETBlock,
    StepSizeNet,
    VanillaTransformer,
    average_angle,
    count_solutions,
    digit_patches,
    effective_rank,
    generate_sudoku,
    is_solution,
)
from iclr26.architectures.hyper_set.baselines import EnergyBlock
from iclr26.architectures.hyper_set.claim_check import hyperset_decider
from iclr26.harness.claims import Outcome
from tests.conformance.bad_inputs.hyper_set import CASES

D64 = torch.float64


def _block(attention="bisoftmax", ff_act="relu", norm=False, d=12, h=3, ff=20, seed=0):
    torch.manual_seed(seed)
    return HyperSETBlock(d, h, ff_dim=ff, attention=attention, ff_act=ff_act, use_rmsnorm=norm).to(D64)


def _x(b=2, n=5, d=12, seed=1):
    return torch.randn(b, n, d, generator=torch.Generator().manual_seed(seed), dtype=D64)


def _explicit_lse_energy(block: HyperSETBlock, x: torch.Tensor) -> torch.Tensor:
    """sqrt(p) sum_h sum_i lse_j(<W_h x_i, W_h x_j>/sqrt(p)), written head by head from the definition."""
    p = block.head_dim
    total = torch.zeros(x.shape[0], dtype=x.dtype)
    for hh in range(block.n_heads):
        wh = block.W[hh * p : (hh + 1) * p]  # (p, d)
        u = x @ wh.T  # (B, N, p)
        a = torch.einsum("bip,bjp->bij", u, u) / math.sqrt(p)
        total = total + math.sqrt(p) * torch.logsumexp(a, -1).sum(-1)
    return total


@pytest.mark.parametrize("attention", ["bisoftmax", "sigmoid", "linear"])
def test_attention_is_energy_gradient(attention):
    block, x = _block(attention), _x().requires_grad_(True)
    (g,) = torch.autograd.grad(block.energy_attn(x).sum(), x)
    assert torch.allclose(block.attn_update(x), g, rtol=0, atol=1e-8)


def test_bisoftmax_energy_matches_definition():
    block, x = _block(), _x()
    assert torch.allclose(block.energy_attn(x), _explicit_lse_energy(block, x), rtol=1e-12, atol=1e-10)
    xr = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(_explicit_lse_energy(block, xr).sum(), xr)
    assert torch.allclose(block.attn_update(x), g, rtol=0, atol=1e-8)


def test_ff_is_negative_energy_gradient():
    block, x = _block(), _x().requires_grad_(True)
    (g,) = torch.autograd.grad(block.energy_ff(x).sum(), x)
    assert torch.allclose(block.ff_update(x), -g, rtol=0, atol=1e-8)
    ref = -0.5 * F.relu(x @ block.W_f.T).pow(2).sum((1, 2))
    assert torch.allclose(block.energy_ff(x), ref, rtol=1e-12, atol=0)


def test_sabotage_row_softmax_breaks_identity():
    """A standard (row-only) softmax attention with tied output is not the energy gradient: the oracle catches it."""
    block, x = _block(), _x().requires_grad_(True)
    (g,) = torch.autograd.grad(block.energy_attn(x).sum(), x)
    w = block._heads(x, block.W)
    a = w @ w.transpose(-1, -2) / math.sqrt(block.head_dim)
    y = (F.softmax(a, -1) @ w).transpose(1, 2).reshape(x.shape) @ block.W
    assert (y - g).abs().max() > 1e-3


def test_descent_property():
    """Norms removed, ReLU, small scalar step: each alternating step strictly lowers E_attn + E_ff."""
    block = _block()
    w2 = torch.linalg.matrix_norm(block.W, 2).item() ** 2
    wf2 = torch.linalg.matrix_norm(block.W_f, 2).item() ** 2
    n = 6
    for seed in range(10):
        x = _x(b=3, n=n, seed=seed) * 0.5
        lip = (
            w2
            * (
                2.0
                + 4.0 * n * float((x @ block.W.detach().T).pow(2).sum(-1).max()) / math.sqrt(block.head_dim)
            )
            + wf2
        )
        eta = 0.5 / lip
        e0 = block.energy(x)
        x1 = x - eta * block.attn_update(x)
        e1 = block.energy(x1)
        x2 = x1 + eta * block.ff_update(x1)
        e2 = block.energy(x2)
        assert torch.all(e1 < e0) and torch.all(e2 < e1)
        assert torch.allclose(block(x, eta, eta), x2)


def test_zero_init_is_identity():
    torch.manual_seed(0)
    model = HyperSET(16, 2, 4, 10, 16, in_features=4, time_emb=16)
    x = torch.rand(3, 16, 4)
    h = model.stem(x)
    codes = model.steps.time_codes(4)
    alpha, beta = model.steps(codes[0], h)
    assert torch.count_nonzero(alpha) == 0 and torch.count_nonzero(beta) == 0
    assert torch.equal(model.block(h, alpha, beta), h)
    assert torch.equal(model(x), model.head(h))
    sud = HyperSET(16, 2, 3, 9, 81, task="sudoku", vocab_size=10, ff_mult=4, time_emb=16, lora_rank=2)
    cells = torch.randint(0, 10, (2, 81))
    assert torch.equal(sud(cells), sud.head(sud.stem(cells)))


def test_bisoftmax_is_row_plus_column_stochastic():
    torch.manual_seed(0)
    block = HyperSETBlock(12, 3, use_rmsnorm=True)
    x = torch.randn(2, 7, 12, dtype=torch.float32)
    s = block.scores(x).double()
    w = block._heads(x, block.W)
    q, k = block.qkv_norms[0](w), block.qkv_norms[1](w)
    r = F.softmax(q @ k.transpose(-1, -2) / math.sqrt(block.head_dim), -1).double()
    c = s - r
    assert torch.allclose(r.sum(-1), torch.ones_like(r.sum(-1)), atol=1e-6)
    assert torch.allclose(c.sum(-2), torch.ones_like(c.sum(-2)), atol=1e-6)
    sym = _block(norm=False)  # shared-norm-free: symmetric scores, so C = R^T
    xs = _x()
    ss = sym.scores(xs)
    wr = sym._heads(xs, sym.W)
    rr = F.softmax(wr @ wr.transpose(-1, -2) / math.sqrt(sym.head_dim), -1)
    assert torch.allclose(ss, rr + rr.transpose(-1, -2), atol=1e-12)


def test_params_independent_of_n_iter_and_shapes():
    def make(t):
        torch.manual_seed(0)
        return HyperSET(16, 4, t, 10, 16, in_features=4, time_emb=16)

    a, b = make(2), make(12)
    assert sum(p.numel() for p in a.parameters()) == sum(p.numel() for p in b.parameters())
    x = torch.rand(3, 16, 4)
    assert a(x).shape == (3, 10) and a(x, n_iter=7).shape == (3, 10)
    logits, traj = a(x, n_iter=5, return_trajectory=True)
    assert set(traj) == {"energy", "energy_attn", "energy_ff", "effective_rank", "mean_angle"}
    assert all(v.shape == (3, 5) for v in traj.values())
    assert torch.allclose(traj["energy"], traj["energy_attn"] + traj["energy_ff"])
    blk = HyperSETBlock(16, 4)
    h = torch.randn(2, 9, 16)
    assert blk(h, torch.rand_like(h), torch.rand_like(h)).shape == h.shape


def _perturb_steps(model):
    with torch.no_grad():
        for p in model.steps.parameters():
            p.add_(0.1 * torch.randn_like(p))


def test_permutation_equivariance_without_positions():
    torch.manual_seed(0)
    sud = HyperSET(16, 2, 3, 9, 81, task="sudoku", vocab_size=10, ff_mult=4, time_emb=16, positions=False)
    _perturb_steps(sud)
    cells = torch.randint(0, 10, (2, 81))
    perm = torch.randperm(81)
    out = sud(cells)
    assert torch.allclose(sud(cells[:, perm]), out[:, perm], atol=1e-5)
    img = HyperSET(16, 2, 3, 10, 16, in_features=4, time_emb=16, positions=False)
    _perturb_steps(img)
    x = torch.rand(2, 16, 4)
    p16 = torch.randperm(16)
    assert torch.allclose(img(x[:, p16]), img(x), atol=1e-5)


def test_step_size_net_variants():
    for variant in ("image", "sudoku"):
        net = StepSizeNet(8, 16, variant)
        assert all(
            torch.count_nonzero(p) == 0 for n, p in net.named_parameters() if "weight" in n and p.dim() == 2
        )
        a, b = net(net.time_codes(3)[2], torch.randn(2, 5, 8))
        assert a.shape == b.shape == (2, 5, 8)


def test_depthwise_lora_zero_then_low_rank():
    lora = DepthwiseLoRA(8, 16, 3, rank=2)
    dw, dwf = lora(1)
    assert dw.shape == (8, 8) and dwf.shape == (16, 8) and torch.count_nonzero(dw) == 0
    with torch.no_grad():
        lora.B.normal_()
    assert torch.linalg.matrix_rank(lora(0)[0]) == 2
    assert torch.equal(lora(10)[0], lora(2)[0])  # beyond the trained depth: last delta


def test_effective_rank_and_angle_oracles():
    u = torch.randn(4, 6, 3, dtype=D64)
    s = np.linalg.svd(u.numpy(), compute_uv=False)
    q = s / s.sum(-1, keepdims=True)
    assert np.allclose(effective_rank(u).numpy(), np.exp(-(q * np.log(q)).sum(-1)))
    e = torch.eye(3, dtype=D64)[None]  # orthonormal rows: rank 3, angles 90 degrees
    assert torch.allclose(effective_rank(e), torch.tensor([3.0], dtype=D64))
    assert torch.allclose(average_angle(e), torch.tensor([90.0], dtype=D64))


def test_baselines_shapes_and_widths():
    torch.manual_seed(0)
    van = VanillaTransformer(16, 4, 3, 10, 16, in_features=4)
    sh = VanillaTransformer(16, 4, 3, 10, 16, in_features=4, shared=True)
    assert len(van.layers) == 3 and len(sh.layers) == 1
    assert van.layers[0].linear1.out_features == 64 and van.layers[0].norm_first
    x = torch.rand(2, 16, 4)
    for m in (
        van,
        sh,
        CRATE(16, 4, 2, 10, 16, in_features=4),
        EnergyTransformer(16, 4, 2, 10, 16, in_features=4),
    ):
        assert m(x).shape == (2, 10)
    cells = torch.randint(0, 10, (2, 81))
    assert VanillaTransformer(16, 4, 2, 9, 81, task="sudoku", vocab_size=10)(cells).shape == (2, 81, 9)


def test_energy_transformer_step_is_negative_gradient():
    torch.manual_seed(0)
    blk = EnergyBlock(8, 2).double().eval()
    x = torch.randn(2, 5, 8, dtype=D64)
    g = blk.norm(x).detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(blk.energy(g).sum(), g)
    assert torch.allclose(blk(x), x - grad)


def test_sudoku_generator_unique_and_valid():
    p, s = generate_sudoku(6, seed=3, givens=(36, 45))
    givens = (p > 0).sum(1)
    assert np.all((givens >= 36) & (givens <= 45))
    for i in range(6):
        assert is_solution(s[i], p[i]) and count_solutions(p[i]) == 1
    assert np.array_equal(generate_sudoku(2, seed=3)[0], generate_sudoku(2, seed=3)[0])
    assert count_solutions(np.zeros(81, int)) == 2
    bad = s[0].copy()
    bad[1] = bad[0]
    assert not is_solution(bad) and count_solutions(bad) == 0


def test_digit_patches_reassemble_images():
    from sklearn.datasets import load_digits

    x_tr, y_tr, x_te, _ = digit_patches(0)
    assert x_tr.shape[1:] == (16, 4) and x_tr.shape[0] + x_te.shape[0] == 1797
    imgs = x_tr.reshape(-1, 4, 4, 2, 2).permute(0, 1, 3, 2, 4).reshape(-1, 8, 8).numpy() * 16
    ref = load_digits().images
    assert any(np.allclose(imgs[0], r) for r in ref)
    assert np.bincount(y_tr.numpy()).min() > 100  # stratified


def _rows(diffs, ratio=0.1, descent=0.95, vanilla=92.0, loss=0.8, train_margin=8.0):
    return [
        {
            "acc_hyperset": vanilla + d,
            "acc_vanilla": vanilla,
            "params_hyperset": ratio * 300_000.0,
            "params_vanilla": 300_000.0,
            "energy_descent_frac": descent,
            "final_loss_hyperset": loss,
            "final_loss_vanilla": 0.5,
            "train_margin_hyperset": train_margin,
            "train_margin_vanilla": 9.0,
        }
        for d in diffs
    ]


def test_decider_outcomes():
    dec = hyperset_decider()
    assert dec(_rows([-0.5, 0.3, -0.2, 0.1, -0.4])).outcome == Outcome.SUPPORTED
    assert dec(_rows([-6.0, -5.5, -7.0, -6.2, -5.8])).outcome == Outcome.NOT_SUPPORTED
    assert dec(_rows([0.1, 0.2, 0.0, 0.3, 0.1], descent=0.3)).outcome == Outcome.NOT_SUPPORTED
    assert dec(_rows([0.1, 0.2, 0.0, 0.3, 0.1], ratio=0.5)).outcome == Outcome.NOT_SUPPORTED
    assert dec(_rows([0.1, 0.2, 0.0, 0.3, 0.1], descent=0.65)).outcome == Outcome.INCONCLUSIVE
    assert dec(_rows([-1.0, -4.0, 1.0, -3.0, -2.0])).outcome == Outcome.INCONCLUSIVE
    assert dec(_rows([0.0])).outcome == Outcome.INCONCLUSIVE
    assert dec(dec.synthesize(_rows([-9.0, -8.0, -9.5], descent=0.1))).outcome == Outcome.SUPPORTED


def test_claim_preconditions_need_trained_models():
    from iclr26.architectures.hyper_set.experiment import EXPERIMENT

    (claim,) = EXPERIMENT.claims
    # trained models (above chance, loss below ln 10, training set fitted at least as well as the nearest-class-mean
    # classifier) give a real verdict either way
    assert claim.judge(_rows([-0.5, 0.3, -0.2, 0.1, -0.4])).outcome == Outcome.SUPPORTED
    assert claim.judge(_rows([-6.0, -5.5, -7.0, -6.2, -5.8])).outcome == Outcome.NOT_SUPPORTED
    # the earlier quick recipe (batch 128, lr 1e-3, 360 steps): Hyper-SET 74.9% vs 92.8% test accuracy, and 73.9%
    # training accuracy in seed 0 against the nearest-class-mean classifier's 90.8%: not fitted, so not judged
    earlier = _rows(
        [69.7 - 92.5, 83.6 - 94.7, 71.4 - 90.6, 73.1 - 94.4, 76.9 - 91.9], descent=0.22, train_margin=-10.0
    )
    assert claim.judge(earlier).outcome == Outcome.NOT_REPRODUCED
    assert claim.judge(_rows([0.0] * 5, train_margin=0.0)).outcome == Outcome.SUPPORTED
    # a Hyper-SET stuck at chance, or whose loss never left the uniform prediction's, is not judged
    stuck = [{**r, "acc_hyperset": 11.0} for r in _rows([0.0] * 5)]
    assert claim.judge(stuck).outcome == Outcome.NOT_REPRODUCED
    assert claim.judge(_rows([0.0] * 5, loss=2.31)).outcome == Outcome.NOT_REPRODUCED


def test_nearest_centroid_baseline():
    from iclr26.architectures.hyper_set.experiment import nearest_centroid

    x = torch.tensor([[0.0, 0.0], [0.2, 0.0], [1.0, 1.0], [0.8, 1.0]])[:, None, :]
    y = torch.tensor([0, 0, 1, 1])
    xt = torch.tensor([[0.1, 0.1], [0.9, 0.9], [0.0, 0.1]])[:, None, :]
    tr, te = nearest_centroid(x, y, xt, torch.tensor([0, 1, 1]), n_classes=2)
    assert tr == 100.0 and abs(te - 200.0 / 3.0) < 1e-9
    tr0, _ = nearest_centroid(*digit_patches(0))
    assert 85.0 < tr0 < 95.0  # the template matcher fits about 91% of the digits training set


@pytest.mark.parametrize("case", range(len(CASES)))
def test_bad_inputs(case):
    fn, exc, words = CASES[case]
    with pytest.raises(exc) as err:
        fn()
    assert all(w.lower() in str(err.value).lower() for w in words)
