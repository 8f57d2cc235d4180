"""Oracle tests of the hybrid ZO/FO fine-tuning reproduction (arXiv 2604.09940)."""

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.optim.hybrid_zo_finetune import (
    FinetuneSpec,
    HybridZOFO,
    LoRADelta,
    LoRALinear,
    MeZO,
    ReshuffleLoader,
    TinyClassifier,
    add_lora,
    finetune,
    perturb_,
    spsa_projections,
    step_seed,
    task_a,
    task_b,
    task_b_mapping,
)
from iclr26.optim.hybrid_zo_finetune.claim_check import hybrid_decider
from iclr26.optim.hybrid_zo_finetune.experiment import steps_to_reach


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


def _quadratic(d=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    m = torch.randn(d, d, generator=g, dtype=torch.float64)
    h = m @ m.T + torch.eye(d, dtype=torch.float64)
    b = torch.randn(d, generator=g, dtype=torch.float64)
    x = torch.randn(d, generator=g, dtype=torch.float64)
    return h, b, x


def _spsa_samples(h, b, x, mu, n):
    """n SPSA gradient estimates through the package's code path."""
    p = x.clone()

    def closure(need_grad):
        return 0.5 * p @ h @ p + b @ p

    out = torch.empty(n, p.numel(), dtype=p.dtype)
    for i in range(n):
        (proj,), _ = spsa_projections([p], closure, mu, [i])
        z = torch.zeros_like(p)
        perturb_([z], i, 1.0)
        out[i] = proj * z
    return out


def _unbiased(samples, true):
    mean = samples.mean(0)
    se = samples.std(0) / samples.shape[0] ** 0.5
    return bool(((mean - true).abs() <= 4 * se).all())


@pytest.fixture(scope="module")
def spsa_draws():
    h, b, x = _quadratic()
    return h @ x + b, {mu: _spsa_samples(h, b, x, mu, 20_000) for mu in (1e-3, 0.7)}


@pytest.mark.parametrize("mu", [1e-3, 0.7])
def test_central_difference_spsa_is_unbiased_on_quadratics(spsa_draws, mu):
    true, samples = spsa_draws
    assert _unbiased(samples[mu], true)


def test_sabotage_wrong_difference_scale_is_caught(spsa_draws):
    true, samples = spsa_draws
    assert not _unbiased(2.0 * samples[1e-3], true)  # dividing by mu instead of 2 mu doubles the estimate


@pytest.mark.parametrize(("dtype", "tol"), [(torch.float32, 1e-6), (torch.float64, 1e-12)])
def test_perturb_restore_round_trip(dtype, tol):
    model = TinyClassifier(d_model=16, n_heads=2, d_mlp=32, n_classes=4).to(dtype)
    params = list(model.parameters())
    before = [p.detach().clone() for p in params]
    x, y = task_a(8, 0)

    def closure(need_grad):
        return nn.functional.cross_entropy(model(x), y)

    spsa_projections(params, closure, 1e-3, [step_seed(0, s, k) for s in range(3) for k in range(2)])
    after = torch.cat([p.detach().ravel() for p in params])
    ref = torch.cat([q.ravel() for q in before])
    assert float((after - ref).abs().max() / ref.abs().max()) <= tol


def test_perturbation_is_restored_when_the_closure_fails():
    p = torch.ones(4, dtype=torch.float64)
    calls = []

    def closure(need_grad):
        calls.append(1)
        return float("nan") if len(calls) == 2 else p.sum()

    with pytest.raises(ValueError, match="non-finite"):
        spsa_projections([p], closure, 0.1, [123])
    assert torch.allclose(p, torch.ones(4, dtype=torch.float64), atol=1e-14)


def _lora_model(seed=0):
    torch.manual_seed(seed)
    base = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)).double()
    base[2] = LoRALinear(base[2], r=2, alpha=2.0, generator=torch.Generator().manual_seed(1))
    phi = [base[2].A, base[2].B]
    theta = [p for n, p in base.named_parameters() if not n.endswith((".A", ".B"))]
    return base, theta, phi


def _batches(steps):
    g = torch.Generator().manual_seed(3)
    return [
        (torch.randn(16, 6, generator=g, dtype=torch.float64), torch.randn(16, 3, generator=g).double())
        for _ in range(steps)
    ]


def test_zero_zo_lr_is_plain_lora_training_bit_for_bit():
    data = _batches(20)
    m1, th1, phi1 = _lora_model()
    opt = HybridZOFO(th1, phi1, lr_zo=0.0, lr_fo=0.05, mu=1e-3, fo_optimizer="adam", seed=4)
    m2, th2, phi2 = _lora_model()
    for p in th2:
        p.requires_grad_(False)
    ref = torch.optim.Adam(phi2, lr=0.05)
    rng_before = torch.get_rng_state()
    for x, y in data:
        opt.step(lambda need_grad, x=x, y=y: nn.functional.mse_loss(m1(x), y))
        ref.zero_grad()
        nn.functional.mse_loss(m2(x), y).backward()
        ref.step()
    assert torch.equal(torch.get_rng_state(), rng_before)
    for a, b in zip(m1.parameters(), m2.parameters()):
        assert torch.equal(a, b)


def test_perturb_cycle_with_zero_zo_step_matches_lora_to_1e_10():
    data = _batches(20)
    m1, th1, phi1 = _lora_model()
    m2, th2, phi2 = _lora_model()
    for p in th1 + th2:
        p.requires_grad_(False)
    o1, o2 = torch.optim.SGD(phi1, lr=0.05), torch.optim.SGD(phi2, lr=0.05)
    for t, (x, y) in enumerate(data):
        spsa_projections(
            th1, lambda need_grad, x=x, y=y: nn.functional.mse_loss(m1(x), y), 1e-3, [step_seed(0, t)]
        )
        for m, o in ((m1, o1), (m2, o2)):
            o.zero_grad()
            nn.functional.mse_loss(m(x), y).backward()
            o.step()
    for a, b in zip(m1.parameters(), m2.parameters()):
        assert torch.allclose(a, b, rtol=0, atol=1e-10)


def test_no_fo_params_is_mezo_and_mezo_matches_stored_z_reference():
    data = _batches(10)
    m1, th1, _ = _lora_model()
    m2, th2, _ = _lora_model()
    m3, th3, _ = _lora_model()
    hyb = HybridZOFO(th1, None, lr_zo=0.01, lr_fo=0.0, mu=1e-3, n_perturb=2, seed=9)
    mezo = MeZO(th2, lr=0.01, mu=1e-3, n_perturb=2, seed=9)
    rng_before = torch.get_rng_state()
    for t, (x, y) in enumerate(data):
        hyb.step(lambda need_grad, x=x, y=y: nn.functional.mse_loss(m1(x), y))
        mezo.step(lambda need_grad, x=x, y=y: nn.functional.mse_loss(m2(x), y))
        # slow reference: z stored explicitly, no seed replay
        with torch.no_grad():
            zs, projs = [], []
            for k in range(2):
                gen = torch.Generator().manual_seed(step_seed(9, t, k))
                z = [torch.randn(p.shape, generator=gen, dtype=p.dtype) for p in th3]
                for p, zp in zip(th3, z):
                    p.add_(zp, alpha=1e-3)
                lp = float(nn.functional.mse_loss(m3(x), y))
                for p, zp in zip(th3, z):
                    p.add_(zp, alpha=-2e-3)
                lm = float(nn.functional.mse_loss(m3(x), y))
                for p, zp in zip(th3, z):
                    p.add_(zp, alpha=1e-3)
                zs.append(z)
                projs.append((lp - lm) / 2e-3)
            for z, g in zip(zs, projs):
                for p, zp in zip(th3, z):
                    p.add_(zp, alpha=-0.01 * g / 2)
    assert torch.equal(torch.get_rng_state(), rng_before)
    for a, b, c in zip(th1, th2, th3):
        assert torch.equal(a, b)
        assert torch.allclose(b, c, rtol=0, atol=1e-12)
    assert any(not torch.equal(a, b) for a, b in zip(th1, _lora_model()[1]))


def test_fo_gradient_at_the_perturbed_point():
    (x, y), mu = _batches(1)[0], 0.05
    m1, th1, phi1 = _lora_model()
    m2, th2, phi2 = _lora_model()
    with torch.no_grad():
        for m in (m1, m2):
            m[2].B.normal_(generator=torch.Generator().manual_seed(0))
    opt = HybridZOFO(th1, phi1, lr_zo=1e-9, lr_fo=0.0, mu=mu, seed=5, fo_at_perturbed=True)
    opt.step(lambda need_grad: nn.functional.mse_loss(m1(x), y))
    perturb_(th2, step_seed(5, 0, 0), mu)
    nn.functional.mse_loss(m2(x), y).backward()
    for a, b in zip(phi1, phi2):
        assert torch.allclose(a.grad, b.grad, rtol=0, atol=1e-12)
    perturb_(th2, step_seed(5, 0, 0), -2 * mu)
    m2.zero_grad()
    nn.functional.mse_loss(m2(x), y).backward()
    assert not torch.allclose(phi1[1].grad, phi2[1].grad, rtol=0, atol=1e-6)


def test_hybrid_lowers_the_loss():
    data = _batches(1) * 60
    m, th, phi = _lora_model()
    opt = HybridZOFO(th, phi, lr_zo=1e-3, lr_fo=0.05, fo_optimizer="adam", seed=2, fo_at_perturbed=True)
    x, y = data[0]
    first = float(nn.functional.mse_loss(m(x), y).detach())
    for _ in range(60):
        loss = opt.step(lambda need_grad: nn.functional.mse_loss(m(x), y))
    assert loss < 0.8 * first
    assert all(not p.requires_grad for p in th)
    state = opt.state_dict()
    assert state["steps"] == 60 and state["fo"] is not None


def test_reshuffle_loader_visits_every_index_once_per_epoch():
    loader = ReshuffleLoader(23, 5, seed=1)
    e0, e1 = loader.batches(0), loader.batches(1)
    for ep in (e0, e1):
        assert sorted(torch.cat(ep).tolist()) == list(range(23))
    assert not torch.equal(torch.cat(e0), torch.cat(e1))
    assert torch.equal(torch.cat(ReshuffleLoader(23, 5, seed=1).batches(1)), torch.cat(e1))
    it = iter(loader)
    stream = torch.cat([next(it) for _ in range(len(loader) * 2)])
    assert torch.equal(stream, torch.cat(e0 + e1))
    assert len(ReshuffleLoader(23, 5, drop_last=True).batches(0)) == 4


def test_parameter_sets_must_be_disjoint():
    w = nn.Parameter(torch.ones(3))
    with pytest.raises(ValueError, match="overlap"):
        HybridZOFO([w], [w], lr_zo=0.1, lr_fo=0.1)


def test_lora_starts_at_the_base_and_per_head_delta_matches_linear():
    lin = nn.Linear(6, 8).double()
    wrapped = LoRALinear(lin, r=2, alpha=4.0)
    x = torch.randn(5, 6, dtype=torch.float64)
    assert torch.equal(wrapped(x), lin(x))
    with torch.no_grad():
        wrapped.B.normal_()
    assert torch.allclose(wrapped(x), x @ wrapped.merged_weight().T + lin.bias)
    # per-head (heads=2, in=6, d_head=4) weight vs the equivalent (8, 6) linear map
    delta = LoRADelta((2, 6, 4), r=2, alpha=4.0, dtype=torch.float64)
    with torch.no_grad():
        delta.A.copy_(wrapped.A)
        delta.B.copy_(wrapped.B)
    per_head = torch.einsum("bd,hde->bhe", x, delta.delta()).reshape(5, 8)
    assert torch.allclose(per_head, x @ (wrapped.scale * wrapped.B @ wrapped.A).T)


def test_add_lora_on_the_lab_transformer():
    model = TinyClassifier(d_model=16, n_heads=2, d_mlp=32, n_classes=4, init_seed=0)
    x, _ = task_a(4, 0)
    before = model(x)
    new = add_lora(model.backbone, r=2, alpha=4.0)
    assert len(new) == 2 * 2 * 2  # (A, B) x (q, v) x 2 layers
    assert torch.equal(model(x), before)
    model(x).sum().backward()
    assert all(p.grad is not None for p in new)


def test_task_generators():
    x, y = task_a(200, 1)
    counts = torch.stack([(x == k).sum(1) for k in range(4)], 1)
    assert torch.equal(counts.argmax(1), y)
    assert ((counts == counts.max(1, keepdim=True).values).sum(1) == 1).all()
    mapping = task_b_mapping(4, 8, 0)
    assert np.bincount(mapping.ravel()).tolist() == [2] * 8
    xb, yb = task_b(200, 1, n_classes=8, task_seed=0)
    assert torch.equal(xb, x)
    for row, label in zip(xb.tolist(), yb.tolist()):
        keys = [t for t in row if t < 4]
        assert mapping[keys[0], keys[-1]] == label


def test_diverged_zo_run_stops_and_keeps_its_curve_length():
    kw = {
        "vocab_size": 32,
        "seq_len": 16,
        "d_model": 16,
        "n_layers": 1,
        "n_heads": 2,
        "d_mlp": 32,
        "n_classes": 4,
    }
    state = TinyClassifier(**kw, init_seed=0).state_dict()
    x, y = task_b(64, 0, n_classes=4)
    spec = FinetuneSpec(steps=20, batch=16, eval_every=5)
    steps, accs = finetune("mezo", (1e12,), state, kw, (x, y, x[:32], y[:32]), spec, seed=0)
    assert steps == [0, 5, 10, 15, 20] and len(accs) == 5


def test_steps_to_reach():
    assert steps_to_reach([0, 25, 50], [0.1, 0.5, 0.4], 0.45, 75) == 25
    assert steps_to_reach([0, 25, 50], [0.1, 0.2, 0.3], 0.45, 75) == 75


def _rows(gains, ratios, lora_acc=0.9, pretrain=0.95):
    """Per-seed metrics with Hybrid - LoRA-FO = `gains` points and step ratios `ratios` (LoRA-FO: 500 steps)."""
    return [
        {
            "acc_lora_fo": lora_acc,
            "acc_hybrid": lora_acc + g / 100.0,
            "lora_steps_to_final": 500.0,
            "hybrid_steps_to_lora_final": 500.0 * r,
            "pretrain_acc_task_a": pretrain,
        }
        for g, r in zip(gains, ratios)
    ]


def test_decider_outcomes():
    d = hybrid_decider()
    good = _rows([4, 5, 6, 5, 4], [0.4, 0.5, 0.6, 0.5, 0.4])
    bad = _rows([-3, -2, -4, -3, -1], [1.2] * 5)
    mixed = _rows([3, -1, 2, 0.5, 4], [0.9] * 5)
    assert d(good).outcome is Outcome.SUPPORTED
    assert d(bad).outcome is Outcome.NOT_SUPPORTED
    assert d(mixed).outcome is Outcome.INCONCLUSIVE
    slow = _rows([4, 5, 6, 5, 4], [0.9, 1.0, 0.95, 1.1, 0.9])  # C1 met, C2 not: never refutes on its own
    assert d(slow).outcome is Outcome.INCONCLUSIVE
    same_steps = [{**r, "hybrid_steps_to_lora_final": r["lora_steps_to_final"]} for r in good]
    assert d(same_steps).outcome is not Outcome.SUPPORTED


def test_claim_needs_a_pretrained_model_and_a_lora_baseline_that_learned():
    from iclr26.optim.hybrid_zo_finetune.experiment import EXPERIMENT

    claim = EXPERIMENT.claims[0]
    assert claim.judge(_rows([-3, -2, -4, -3, -1], [1.2] * 5)).outcome is Outcome.NOT_SUPPORTED  # learned
    assert claim.judge(_rows([4, 5, 6, 5, 4], [0.5] * 5)).outcome is Outcome.SUPPORTED
    chance_lora = _rows([4, 5, 6, 5, 4], [0.5] * 5, lora_acc=0.13)  # 1/8 + 0.1 not reached
    assert claim.judge(chance_lora).outcome is Outcome.NOT_REPRODUCED
    no_pretraining = _rows([4, 5, 6, 5, 4], [0.5] * 5, pretrain=0.3)  # 1/4 + 0.1 not reached
    assert claim.judge(no_pretraining).outcome is Outcome.NOT_REPRODUCED
    for budget in ("quick", "full"):  # the chance level of the precondition assumes 8 task-B classes
        assert EXPERIMENT.config(budget).n_classes == 8
    assert EXPERIMENT.devices == ("cpu", "cuda")
