"""Oracle tests of COSMOS (arXiv 2502.17410): an independent float64 NumPy re-enactment of the update rule,
its limits (full-rank basis = Adam in the eigenbasis, huge residual weight = Muon on the residual), subspace
tracking, step normalisation, Newton-Schulz spectra, routing, state size and the claim check."""

from __future__ import annotations

import io
import json
import math
import warnings

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.harness.claims import Outcome
from iclr26.lab.param_groups import split_param_groups, state_numel
from iclr26.lab.threads import limited_threads
from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig
from iclr26.optim.cosmos import COSMOS, cosmos_state_numel, newton_schulz5
from iclr26.optim.cosmos.baselines import OPTIMIZER_NAMES, make_optimizer
from iclr26.optim.cosmos.claim_check import beats_adamw_muon, cosmos_claim, matches_soap

A5, B5, C5 = 3.4445, -4.7750, 2.0315


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny matrices: one thread avoids oversubscription on a shared machine."""
    with limited_threads(1):
        yield


# ----------------------------------------------------------------------------------------------------------------
# independent NumPy reference (float64)
# ----------------------------------------------------------------------------------------------------------------
def np_ns5(g: np.ndarray, steps: int = 5) -> np.ndarray:
    x = g / (np.linalg.norm(g) + 1e-7)
    tall = g.shape[0] > g.shape[1]
    if tall:
        x = x.T
    for _ in range(steps):
        a = x @ x.T
        x = A5 * x + (B5 * a + C5 * a @ a) @ x
    return x.T if tall else x


class NumpyCOSMOS:
    """Step-by-step COSMOS for one matrix, written from the equations (no sign fixing: the rule is sign-free)."""

    def __init__(self, shape, rank, lr, betas=(0.9, 0.999), eps=1e-8, rho=0.1, gamma=0.2, variant="code"):
        self.m, self.n = shape
        self.r, self.lr, self.eps, self.rho, self.gamma, self.variant = rank, lr, eps, rho, gamma, variant
        self.b1, self.b2 = betas
        self.t = 0
        self.M = np.zeros(shape)
        self.V = np.zeros((self.m, rank))

    def update(self, g: np.ndarray) -> np.ndarray:
        """Return the parameter change -lr rho sqrt(mn) D/||D|| of one step (no weight decay)."""
        b1, b2 = self.b1, self.b2
        self.t += 1
        t = self.t
        self.M = b1 * self.M + (g if self.variant == "code" else (1 - b1) * g)
        if t == 1:
            _, _, vt = np.linalg.svd(g.T @ g)
            self.U = vt[: self.r].T
            self.S = (1 - b2) * self.U.T @ g.T @ g @ self.U
        else:
            q, _ = np.linalg.qr(b2 * self.U @ self.S + (1 - b2) * g.T @ (g @ self.U))
            rot = self.U.T @ q
            self.U = q
            self.S = b2 * rot.T @ self.S @ rot + (1 - b2) * (g @ q).T @ (g @ q)
        self.V = b2 * self.V + (1 - b2) * (g @ self.U) ** 2
        if self.variant == "code":
            c = (1 - b1**t) / (1 - b1)
            self.Gh = (g + b1 * self.M) / (1 + b1 * c)
        else:
            self.Gh = self.M / (1 - b1**t)
        p = self.Gh @ self.U
        lead = (p / (np.sqrt(self.V / (1 - b2**t)) + self.eps)) @ self.U.T
        self.resid = self.Gh - p @ self.U.T
        if np.linalg.norm(self.resid) < 1e-12 + 1e-12 * np.linalg.norm(self.Gh):
            ortho = np.zeros_like(g)
        else:
            ortho = np_ns5(self.resid)
            ortho = ortho / (np.linalg.norm(ortho) + self.eps)
        scale = math.sqrt(self.m * self.n)
        d = lead + self.gamma * scale * ortho
        return -self.lr * self.rho * scale * d / (np.linalg.norm(d) + self.eps)


def _grad_stream(shape, steps, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(shape)
    return [base + 0.5 * rng.standard_normal(shape) for _ in range(steps)]


def _run_torch(shape, grads, **kw):
    w = nn.Parameter(torch.zeros(shape, dtype=torch.float64))
    opt = COSMOS([w], **kw)
    deltas = []
    for g in grads:
        before = w.detach().clone()
        w.grad = torch.from_numpy(g)
        opt.step()
        deltas.append((w.detach() - before).numpy())
    return w, opt, deltas


@pytest.mark.parametrize("variant", ["code", "paper"])
def test_matches_numpy_reference_over_steps(variant):
    shape, r = (12, 20), 4
    grads = _grad_stream(shape, 8)
    _, _, deltas = _run_torch(shape, grads, lr=0.01, rank=r, variant=variant)
    ref = NumpyCOSMOS(shape, r, lr=0.01, variant=variant)
    for t, (g, d) in enumerate(zip(grads, deltas)):
        np.testing.assert_allclose(d, ref.update(g), rtol=1e-7, atol=1e-12, err_msg=f"step {t + 1}")


def test_full_rank_basis_is_adam_in_the_eigenbasis():
    """r = n <= m: U is a full rotation, the residual vanishes, the step is rotated Adam scaled to RMS lr*rho."""
    shape = (16, 6)
    lr, rho, b1, b2, eps = 0.02, 0.1, 0.9, 0.999, 1e-8
    grads = _grad_stream(shape, 6, seed=3)
    # a huge residual weight would dominate the step if the residual were not exactly removed
    _, _, deltas = _run_torch(shape, grads, lr=lr, rank=6, residual_weight=1e6)
    ref = NumpyCOSMOS(shape, 6, lr=lr)
    mom, v = np.zeros(shape), np.zeros(shape)
    for t, (g, d) in enumerate(zip(grads, deltas), start=1):
        ref.update(g)  # for the tracked basis only
        u = ref.U
        np.testing.assert_allclose(u.T @ u, np.eye(6), atol=1e-10)
        assert np.linalg.norm(ref.resid) < 1e-10 * np.linalg.norm(ref.Gh)
        mom = b1 * mom + g
        v = b2 * v + (1 - b2) * (g @ u) ** 2
        gh = (g + b1 * mom) / (1 + b1 * (1 - b1**t) / (1 - b1))
        adam = ((gh @ u) / (np.sqrt(v / (1 - b2**t)) + eps)) @ u.T
        expected = -lr * rho * math.sqrt(adam.size) * adam / np.linalg.norm(adam)
        np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-10)


def test_huge_residual_weight_is_muon_on_the_residual():
    shape, r = (32, 48), 8
    grads = _grad_stream(shape, 5, seed=5)
    _, _, deltas = _run_torch(shape, grads, lr=0.01, rank=r, residual_weight=1e6)
    ref = NumpyCOSMOS(shape, r, lr=0.01)
    for g, d in zip(grads, deltas):
        ref.update(g)
        muon = np_ns5(ref.resid)
        cos = -np.sum(d * muon) / (np.linalg.norm(d) * np.linalg.norm(muon))
        assert cos >= 0.999, cos


def test_basis_orthonormal_and_tracks_a_stationary_subspace():
    m, n, r = 64, 128, 16
    gen = torch.Generator().manual_seed(0)
    q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64))
    lam = torch.ones(n, dtype=torch.float64)
    lam[:r] = torch.linspace(100.0, 200.0, r, dtype=torch.float64)
    c = q * lam.sqrt()  # covariance C C^T = Q diag(lam) Q^T
    w = nn.Parameter(torch.zeros(m, n, dtype=torch.float64))
    opt = COSMOS([w], lr=1e-3, rank=r)
    for _ in range(100):
        w.grad = torch.randn(m, n, generator=gen, dtype=torch.float64) @ c.T
        opt.step()
        u = opt.state[w]["basis"]
        torch.testing.assert_close(u.T @ u, torch.eye(r, dtype=torch.float64), atol=1e-5, rtol=0)
    cosines = torch.linalg.svdvals(u.T @ q[:, :r]).clamp(max=1.0)
    assert float(torch.arccos(cosines.min())) < 0.05


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_every_hidden_step_has_rms_lr_times_rho(dtype):
    w = nn.Parameter(torch.randn(24, 40, dtype=dtype))
    opt = COSMOS([w], lr=0.03, rank=8, lr_ratio=0.25)
    gen = torch.Generator().manual_seed(1)
    for _ in range(5):
        before = w.detach().clone()
        w.grad = torch.randn(24, 40, generator=gen, dtype=dtype)
        opt.step()
        rms = float((w.detach() - before).double().pow(2).mean().sqrt())
        assert rms == pytest.approx(0.03 * 0.25, rel=1e-6 if dtype == torch.float64 else 1e-4)


@pytest.mark.parametrize("shape", [(64, 256), (128, 384), (384, 128)])
def test_newton_schulz_singular_values_on_rectangular_gaussians(shape):
    g = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    s = torch.linalg.svdvals(newton_schulz5(g))
    assert 0.6 <= float(s.min()) and float(s.max()) <= 1.25


def test_newton_schulz_matches_numpy():
    g = np.random.default_rng(0).standard_normal((20, 33))
    np.testing.assert_allclose(newton_schulz5(torch.from_numpy(g)).numpy(), np_ns5(g), rtol=1e-10, atol=1e-12)


def _tiny_gpt() -> TinyGPT:
    return TinyGPT(TinyGPTConfig(n_layers=1, d_model=16, n_heads=2, seq_len=8), vocab_size=11, init_seed=0)


def _loss_step(model, opt, seed=0):
    x = torch.randint(0, 11, (4, 8), generator=torch.Generator().manual_seed(seed))
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x).flatten(0, 1), x.flatten())
    loss.backward()
    opt.step()


def test_routing_and_state_size_match_the_memory_formula():
    model = _tiny_gpt()
    opt = COSMOS.from_model(model, lr=1e-3, rank=4)
    for s in range(2):
        _loss_step(model, opt, s)
    matrices, others = split_param_groups(model)
    hidden = {id(p) for p in matrices}
    for p in model.parameters():
        keys = set(opt.state[p])
        assert ("basis" in keys) == (id(p) in hidden)
    assert {id(p) for p in others} >= {id(model.tok.weight), id(model.pos.weight), id(model.lm_head.weight)}
    expected = sum(cosmos_state_numel(*p.shape, 4) for p in matrices) + sum(2 * p.numel() for p in others)
    assert state_numel(opt) == expected


def test_adamw_branch_equals_torch_adamw():
    torch.manual_seed(0)
    a = nn.Parameter(torch.randn(7, dtype=torch.float64))
    b = nn.Parameter(a.detach().clone())
    ours = COSMOS([a], lr=0.01, betas=(0.9, 0.99), weight_decay=0.1)
    ref = torch.optim.AdamW([b], lr=0.01, betas=(0.9, 0.99), weight_decay=0.1, eps=1e-8)
    for _ in range(6):
        g = torch.randn(7, dtype=torch.float64)
        a.grad, b.grad = g.clone(), g.clone()
        ours.step()
        ref.step()
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)


def test_per_group_hyperparameters_and_state_dict_round_trip():
    torch.manual_seed(0)
    w1, w2 = nn.Parameter(torch.randn(8, 12)), nn.Parameter(torch.randn(10, 6))
    groups = [{"params": [w1], "rank": 3, "lr": 0.05}, {"params": [w2], "rank": 5, "lr_ratio": 0.5}]

    def steps(opt, params, n, seed):
        gen = torch.Generator().manual_seed(seed)
        for _ in range(n):
            for p in params:
                p.grad = torch.randn(p.shape, generator=gen)
            opt.step()

    opt = COSMOS(groups, lr=0.01)
    steps(opt, [w1, w2], 3, 0)
    assert opt.state[w1]["basis"].shape == (12, 3) and opt.state[w2]["basis"].shape == (6, 5)
    blob = io.BytesIO()
    torch.save(opt.state_dict(), blob)
    saved = [w1.detach().clone(), w2.detach().clone()]
    before = [w.detach().clone() for w in (w1, w2)]
    steps(opt, [w1, w2], 1, 1)
    assert float((w1.detach() - before[0]).pow(2).mean().sqrt()) == pytest.approx(0.05 * 0.1, rel=1e-4)
    assert float((w2.detach() - before[1]).pow(2).mean().sqrt()) == pytest.approx(0.01 * 0.5, rel=1e-4)
    steps(opt, [w1, w2], 3, 2)
    v1, v2 = nn.Parameter(saved[0]), nn.Parameter(saved[1])
    opt2 = COSMOS([{"params": [v1], "rank": 3, "lr": 0.05}, {"params": [v2], "rank": 5, "lr_ratio": 0.5}])
    opt2.load_state_dict(torch.load(io.BytesIO(blob.getvalue()), weights_only=False))
    steps(opt2, [v1, v2], 1, 1)
    steps(opt2, [v1, v2], 3, 2)
    assert torch.equal(v1, w1) and torch.equal(v2, w2)


def test_closure_loss_is_returned():
    w = nn.Parameter(torch.randn(4, 5))

    def closure():
        w.grad = None
        loss = (w**2).sum()
        loss.backward()
        return loss

    assert float(COSMOS([w], rank=2).step(closure).detach()) > 0


def test_rank_clipping_warns_or_raises():
    w = nn.Parameter(torch.randn(4, 6))
    with pytest.warns(UserWarning, match="clipped"):
        opt = COSMOS([w], rank=9)
    w.grad = torch.randn(4, 6)
    opt.step()
    assert opt.state[w]["basis"].shape == (6, 4)
    with pytest.raises(ValueError, match="rank"):
        COSMOS([w], rank=9, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        COSMOS([w], rank=4)


def test_baseline_factories_build_library_optimizers():
    model = _tiny_gpt()
    for name in OPTIMIZER_NAMES:
        opt = make_optimizer(name, _tiny_gpt(), 1e-3, rank=4)
        opts = opt if isinstance(opt, list) else [opt]
        assert all(isinstance(o, torch.optim.Optimizer) for o in opts)
    muon = make_optimizer("muon", model, 1e-3)
    assert isinstance(muon[0], torch.optim.Muon) and all(
        p.ndim == 2 for p in muon[0].param_groups[0]["params"]
    )


def test_sabotage_broken_update_violates_the_oracle(monkeypatch):
    """Skipping the Newton-Schulz orthogonalisation of the residual breaks agreement with the reference."""
    from iclr26.optim.cosmos import optimizer as mod

    shape, r = (12, 20), 4
    grads = _grad_stream(shape, 3)
    expected = [NumpyCOSMOS(shape, r, lr=0.01).update(g) for g in grads[:1]][0]
    monkeypatch.setattr(mod, "newton_schulz5", lambda x, steps=5: x)
    _, _, bad = _run_torch(shape, grads[:1], lr=0.01, rank=r)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(bad[0], expected, rtol=1e-7, atol=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# claim check on hand-made per-seed numbers
# ----------------------------------------------------------------------------------------------------------------
def _rows(cosmos, adamw, muon, soap, state_ratio=0.2, galore=None):
    galore = galore or [x + 0.2 for x in cosmos]
    rows = []
    for c, a, m, s, g in zip(cosmos, adamw, muon, soap, galore):
        row = {
            "cosmos_final": c,
            "adamw_final": a,
            "muon_final": m,
            "soap_final": s,
            "galore_final": g,
            "cosmos_state_floats": state_ratio * 1e6,
            "soap_state_floats": 1e6,
        }
        # every optimizer trained: well below the character-marginal loss (3.6 nats on this corpus)
        row |= {
            f"{k.removesuffix('_final')}_final_over_marginal": v / 3.6 for k, v in row.items() if "final" in k
        }
        rows.append(row)
    return rows


GOOD = ([1.50, 1.52, 1.49, 1.51], [1.60, 1.63, 1.61, 1.62], [1.58, 1.60, 1.59, 1.61], [1.50, 1.52, 1.5, 1.5])


def test_claim_supported_not_supported_inconclusive():
    good = _rows(*GOOD)
    assert beats_adamw_muon(good).outcome is Outcome.SUPPORTED
    assert matches_soap(good).outcome is Outcome.SUPPORTED
    assert cosmos_claim(good).outcome is Outcome.SUPPORTED
    # sabotage: COSMOS worse than Muon everywhere
    bad = _rows(
        [1.70, 1.72, 1.69, 1.71], [1.60, 1.63, 1.61, 1.62], [1.58, 1.60, 1.59, 1.61], [1.5, 1.5, 1.5, 1.5]
    )
    assert beats_adamw_muon(bad).outcome is Outcome.NOT_SUPPORTED
    assert matches_soap(bad).outcome is Outcome.NOT_SUPPORTED
    assert cosmos_claim(bad).outcome is Outcome.NOT_SUPPORTED
    mixed = _rows(
        [1.55, 1.65, 1.50, 1.70], [1.60, 1.63, 1.61, 1.62], [1.58, 1.60, 1.59, 1.61], [1.5, 1.6, 1.5, 1.6]
    )
    assert beats_adamw_muon(mixed).outcome is Outcome.INCONCLUSIVE
    assert cosmos_claim(mixed).outcome is Outcome.INCONCLUSIVE
    heavy = _rows(*GOOD, state_ratio=0.7)
    assert matches_soap(heavy).outcome is Outcome.NOT_SUPPORTED
    # COSMOS equal to Muon (the sabotage of the conformance suite): never supported
    tie = [{**r, "cosmos_final": r["muon_final"]} for r in good]
    assert cosmos_claim(tie).outcome is not Outcome.SUPPORTED


def _claims():
    from iclr26.optim.cosmos.experiment import EXPERIMENT

    return {c.id: c for c in EXPERIMENT.claims}


def test_claims_judge_learned_rows_and_preconditions_give_not_reproduced():
    claims = _claims()
    main, galore = claims["cosmos-beats-adamw-muon-matches-soap"], claims["cosmos-beats-galore"]
    good = _rows(*GOOD)
    assert main.judge(good).outcome is Outcome.SUPPORTED  # every optimizer learned: a real verdict
    assert galore.judge(good).outcome is Outcome.SUPPORTED
    # AdamW never got below the trivial predictor (loss of the character marginal): not reproduced
    untrained = [{**r, "adamw_final_over_marginal": 1.01} for r in good]
    verdict = main.judge(untrained)
    assert verdict.outcome is Outcome.NOT_REPRODUCED and "adamw_final_over_marginal" in verdict.explanation
    assert galore.judge(untrained).outcome is Outcome.SUPPORTED  # AdamW is no part of that claim
    diverged = [{**r, "galore_final": math.nan, "galore_final_over_marginal": math.nan} for r in good]
    assert galore.judge(diverged).outcome is Outcome.NOT_REPRODUCED


def test_invariant_is_a_check_and_gpu_is_declared():
    from iclr26.optim.cosmos.experiment import EXPERIMENT

    assert _claims()["cosmos-invariants"].kind == "check"
    assert EXPERIMENT.devices == ("cpu", "cuda")


def test_marginal_predictor_loss_is_the_unigram_cross_entropy():
    from iclr26.lab.tinygpt import char_data
    from iclr26.optim.cosmos.experiment import marginal_eval_loss

    data = char_data(max_chars=200_000)
    loss = marginal_eval_loss(data, seq_len=32, batch_size=8, eval_batches=2)
    counts = np.bincount(data.train.numpy(), minlength=data.vocab_size) + 1.0
    entropy = -np.sum(counts / counts.sum() * np.log(counts / counts.sum()))
    assert 0.8 * entropy < loss < 1.2 * entropy  # a sample of held-out windows, close to the entropy


def test_tuned_lrs_are_frozen_with_their_grids():
    from iclr26.optim.cosmos.experiment import EXPERIMENT
    from iclr26.optim.cosmos.tuning import TUNED_LRS_PATH, TUNING_SEED, load_tuned_lrs

    record = json.loads(TUNED_LRS_PATH.read_text())["quick"]
    lrs = load_tuned_lrs("quick")
    assert record["tuning_seed"] == TUNING_SEED >= EXPERIMENT.seeds["quick"]
    for name in EXPERIMENT.config("quick").optimizers:
        assert lrs[name] in record["grids"][name][-1]
        tried = {float(k): v for k, v in record["final_eval_loss"][name].items()}
        assert tried[lrs[name]] == min(v for v in tried.values() if math.isfinite(v))


def test_tuning_reads_the_budgets_without_the_experiment():
    """The tuning module and the experiment both read config.py; neither imports the other (no cycle)."""
    import ast
    from pathlib import Path

    import iclr26.optim.cosmos.tuning as tuning

    tree = ast.parse(Path(tuning.__file__).read_text())
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "iclr26.optim.cosmos.experiment" not in mods and "iclr26.optim.cosmos.config" in mods
