"""Oracle tests of DirMoE (OpenReview a15cDnzr6r, arXiv 2602.09001): the paper's router (three heads, the
gate-conditioned posterior, the spike-and-slab prior, the ELBO terms), the earlier abstract-only reconstruction, the
baselines, the MoE FFN, the claim."""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from torch.distributions import Bernoulli, Dirichlet, kl_divergence

from iclr26.attention.dirmoe import (
    DirichletRouter,
    MoEFFN,
    NoisyTopKRouter,
    ReLURouter,
    SoftMoE,
    SpikeSlabPrior,
    TauSchedule,
    TopKSoftmaxRouter,
    bernoulli_kl,
    combine_gates,
    dirichlet_kl,
    expected_active,
    expected_simpson,
    inference_gates,
    moe_aux_loss,
    moe_ffn,
    prior_base,
    relaxed_selection,
    set_progress,
    simpson_concentration,
    sparsity_penalty,
    spike_slab_concentrations,
    switch_balance_loss,
)
from iclr26.attention.dirmoe.claim_check import dirmoe_decider
from iclr26.attention.dirmoe.data import MultiDomainMarkov
from iclr26.attention.dirmoe.routing_metrics import (
    active_histogram,
    expert_sets,
    load_entropy,
    routing_heatmap,
    set_nmi,
)
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.lab.transformer import Transformer


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny ops run far faster on one thread than on a contended pool."""
    with limited_threads(1):
        yield


LOGITS = torch.tensor([-2.0, -0.5, 0.0, 0.7, 2.5])


@pytest.mark.parametrize("tau", [1.0, 0.01])
def test_relaxed_selection_exceeds_half_with_probability_sigmoid(tau: float) -> None:
    torch.manual_seed(0)
    n = 100_000
    z = relaxed_selection(LOGITS.expand(n, -1), tau)
    frac = (z > 0.5).double().mean(0)
    p = torch.sigmoid(LOGITS).double()
    assert torch.all((frac - p).abs() <= 3 * torch.sqrt(p * (1 - p) / n))


def test_relaxed_selection_is_monotone_and_near_binary_at_low_tau() -> None:
    torch.manual_seed(1)
    lo = relaxed_selection(torch.zeros(10_000), 0.5)
    torch.manual_seed(1)
    hi = relaxed_selection(torch.full((10_000,), 0.3), 0.5)
    assert torch.all(hi >= lo)
    z = relaxed_selection(LOGITS.expand(20_000, -1), 0.01)
    assert float(((z < 0.01) | (z > 0.99)).float().mean()) > 0.97


def test_dirichlet_rsample_gradient_matches_mean_gradient() -> None:
    torch.manual_seed(0)
    n = 100_000
    alpha = torch.tensor([0.7, 1.5, 3.0], dtype=torch.float64)
    leaf = alpha.expand(n, -1).clone().requires_grad_(True)
    Dirichlet(leaf).rsample()[:, 0].sum().backward()
    per_sample = leaf.grad  # d theta_1 / d alpha per draw
    est, se = per_sample.mean(0), per_sample.std(0) / math.sqrt(n)
    a0 = alpha.sum()
    analytic = -alpha[0] / a0**2 * torch.ones(3, dtype=torch.float64)
    analytic[0] += 1 / a0
    assert torch.all((est - analytic).abs() <= 4 * se + 1e-4)


def test_kl_closed_forms_equal_torch_distributions() -> None:
    g = torch.Generator().manual_seed(0)
    pi = torch.rand(6, 5, generator=g, dtype=torch.float64) * 0.98 + 0.01
    ref = kl_divergence(Bernoulli(probs=pi), Bernoulli(probs=torch.full_like(pi, 0.25)))
    assert torch.allclose(bernoulli_kl(pi, 0.25), ref, atol=1e-8, rtol=0)
    alpha = torch.rand(6, 5, generator=g, dtype=torch.float64) * 4 + 0.01
    ref = kl_divergence(Dirichlet(alpha), Dirichlet(torch.ones_like(alpha) * 1.3))
    assert torch.allclose(dirichlet_kl(alpha, 1.3), ref, atol=1e-8, rtol=0)


def test_closed_form_gradients_pass_gradcheck() -> None:
    g = torch.Generator().manual_seed(0)
    pi = (torch.rand(3, 4, generator=g, dtype=torch.float64) * 0.9 + 0.05).requires_grad_(True)
    alpha = (torch.rand(3, 4, generator=g, dtype=torch.float64) + 0.2).requires_grad_(True)
    z = torch.rand(3, 4, generator=g, dtype=torch.float64).requires_grad_(True)
    theta = torch.rand(3, 4, generator=g, dtype=torch.float64).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda p: bernoulli_kl(p, 0.3), (pi,))
    assert torch.autograd.gradcheck(lambda a: dirichlet_kl(a, 1.0), (alpha,))
    assert torch.autograd.gradcheck(combine_gates, (z, theta))


def test_training_gates_are_a_distribution_and_inference_gates_are_sparse() -> None:
    torch.manual_seed(0)
    h = torch.randn(4, 7, 12)
    for variant, gate in itertools.product(("paper", "abstract"), ("product", "masked_alpha")):
        router = DirichletRouter(12, 6, k_target=2, gate=gate, tau_schedule=0.5, variant=variant)
        g, aux = router(h)
        assert torch.all(g >= 0) and torch.allclose(g.sum(-1), torch.ones(4, 7), atol=1e-4)
        router.eval()
        g, aux = router(h)
        sel = aux["pi"] > 0.5
        sel = torch.where(
            sel.any(-1, keepdim=True), sel, torch.nn.functional.one_hot(aux["pi"].argmax(-1), 6) > 0
        )
        assert torch.all(g[~sel] == 0) and torch.all(g[sel] > 0)
        assert torch.allclose(g.sum(-1), torch.ones(4, 7), atol=1e-6)
        # weights on S are the Dirichlet mean renormalised on S
        a = torch.where(sel, aux["alpha"], 0)
        assert torch.allclose(g, a / a.sum(-1, keepdim=True))


def test_inference_gates_empty_selection_and_cap() -> None:
    pi = torch.tensor([[0.1, 0.4, 0.2], [0.9, 0.8, 0.7]])
    alpha = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 2.0]])
    g = inference_gates(pi, alpha, k_max=2)
    assert torch.equal(g[0], torch.tensor([0.0, 1.0, 0.0]))
    assert torch.allclose(g[1], torch.tensor([0.5, 0.5, 0.0]))


def test_reduction_to_softmax_when_all_selected_and_concentration_large() -> None:
    torch.manual_seed(0)
    logits = torch.randn(200, 8, dtype=torch.float64)
    target = torch.softmax(logits, -1)
    theta = Dirichlet(1e6 * target).rsample()
    gates = combine_gates(torch.ones_like(theta), theta)
    assert torch.allclose(gates, target, atol=1e-2)


def test_expected_active_matches_monte_carlo_and_the_router_heads() -> None:
    torch.manual_seed(0)
    router = DirichletRouter(10, 8, k_target=3)
    with torch.no_grad():
        router.selection.weight.normal_(0, 1)
    h = torch.randn(5, 10)
    logits = router.selection.weight @ h.T + router.selection.bias[:, None]
    oracle = torch.sigmoid(logits.T).sum(-1)
    with torch.no_grad():
        assert torch.allclose(router.expected_active(h), oracle, atol=1e-6)
        n = 40_000
        z = relaxed_selection(logits.T.expand(n, -1, -1), 0.7) > 0.5
        counts = z.sum(-1).double()
    mc, se = counts.mean(0), counts.std(0) / math.sqrt(n)
    assert torch.all((mc - oracle.double()).abs() <= 4 * se)
    assert torch.allclose(expected_active(torch.sigmoid(logits.T)), oracle)


def test_sparsity_penalty_alone_drives_expected_active_to_k() -> None:
    torch.manual_seed(0)
    router = DirichletRouter(16, 8, k_target=3)
    with torch.no_grad():
        router.selection.bias.fill_(2.0)  # start far from k (sum pi ~ 7)
    opt = torch.optim.Adam(router.selection.parameters(), lr=0.05)
    for _ in range(150):
        h = torch.randn(64, 16)
        loss = router.lambda_s * sparsity_penalty(torch.sigmoid(router.selection(h)), router.k_target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        assert abs(float(router.expected_active(torch.randn(4096, 16)).mean()) - 3) < 0.05


def test_aux_loss_is_the_weighted_elbo_terms() -> None:
    torch.manual_seed(0)
    router = DirichletRouter(8, 4, k_target=1, kappa_z=0.1, kappa_theta=0.2, lambda_s=0.3, recon_weight=0.5)
    for progress in (0.0, 1.0):  # the paper variant has no warm-up by default
        router.set_progress(progress)
        _, aux = router(torch.randn(3, 8))
        want = 0.1 * aux["kl_z"] + 0.2 * aux["kl_theta"] + 0.3 * aux["sparsity"] + 0.5 * aux["recon"]
        assert torch.allclose(aux["loss"], want)
    router.set_progress(0.0)
    assert math.isclose(router.tau, 1.0)
    assert math.isclose(TauSchedule()(0.35), math.sqrt(0.1))
    ramped = DirichletRouter(8, 4, k_target=1, warmup_frac=0.1, recon_weight=0.0)
    assert float(ramped(torch.randn(3, 8))[1]["loss"].detach()) == 0.0


ROUTERS = {
    "dirichlet": lambda: DirichletRouter(12, 5, k_target=2),
    "dirichlet_st": lambda: DirichletRouter(12, 5, k_target=2, straight_through=True),
    "dirichlet_abstract": lambda: DirichletRouter(12, 5, k_target=2, variant="abstract"),
    "topk": lambda: TopKSoftmaxRouter(12, 5, k=2),
    "noisy": lambda: NoisyTopKRouter(12, 5, k=2),
    "relu": lambda: ReLURouter(12, 5, k=2),
    "soft": lambda: SoftMoE(12, 5),
}


@pytest.mark.parametrize("name", sorted(ROUTERS))
def test_sparse_dispatch_equals_dense(name: str) -> None:
    torch.manual_seed(0)
    router = ROUTERS[name]()
    dense = MoEFFN(12, 16, 5, router, dispatch="dense")
    sparse = MoEFFN(12, 16, 5, router, dispatch="sparse")
    sparse.experts.load_state_dict(dense.experts.state_dict())
    x = torch.randn(3, 6, 12)
    for train in (True, False):
        dense.train(train)
        sparse.train(train)
        torch.manual_seed(1)
        yd = dense(x)
        torch.manual_seed(1)
        ys = sparse(x)
        assert torch.allclose(yd, ys, atol=1e-6)
    # dense compute with explicit per-expert outputs and the gates zeroed where the router did not select
    g = dense.last_gates.reshape(-1, 5)
    ref = sum(g[:, e, None] * dense.experts.expert(e, x.reshape(-1, 12)) for e in range(5))
    assert torch.allclose(yd.reshape(-1, 12), ref, atol=1e-6)


def test_topk_router_and_moe_match_mixtral() -> None:
    from transformers import MixtralConfig
    from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock, load_balancing_loss_func

    torch.manual_seed(0)
    cfg = MixtralConfig(hidden_size=12, intermediate_size=10, num_local_experts=5, num_experts_per_tok=2)
    ref = MixtralSparseMoeBlock(cfg)
    for p in ref.parameters():
        torch.nn.init.normal_(p, std=0.3)
    router = TopKSoftmaxRouter(12, 5, k=2)
    moe = MoEFFN(12, 10, 5, router, activation="swiglu", bias=False, dispatch="sparse")
    with torch.no_grad():
        router.gate.weight.copy_(ref.gate.weight)
        moe.experts.w_in.copy_(ref.experts.gate_up_proj.transpose(1, 2))
        moe.experts.w_out.copy_(ref.experts.down_proj.transpose(1, 2))
    x = torch.randn(2, 7, 12)
    ref.eval()
    assert torch.allclose(moe(x), ref(x), atol=1e-5)
    logits, scores, idx = ref.gate(x)
    gates, aux = router(x)
    assert torch.allclose(gates.reshape(-1, 5).gather(-1, idx), scores, atol=1e-6)
    want = load_balancing_loss_func((logits,), 5, 2)
    assert torch.allclose(aux["balance"], want, atol=1e-6)
    assert torch.allclose(switch_balance_loss(aux["probs"], idx, 5), want, atol=1e-6)


def test_baseline_routers_behave() -> None:
    torch.manual_seed(0)
    h = torch.randn(64, 12)
    noisy = NoisyTopKRouter(12, 5, k=2)
    g, aux = noisy(h)
    assert torch.all((g > 0).sum(-1) == 2) and torch.allclose(g.sum(-1), torch.ones(64))
    aux["loss"].backward()
    assert noisy.noise.weight.grad is not None and noisy.noise.weight.grad.abs().sum() > 0
    soft_g, _ = SoftMoE(12, 5)(h)
    assert torch.all(soft_g > 0)
    relu = ReLURouter(12, 8, k=2)
    for _ in range(120):  # the adaptive L1 weight rises while too many experts are active
        relu(h)
    assert float(relu.l1_weight) > 1e-2


def test_moe_trains_inside_the_shared_transformer() -> None:
    torch.manual_seed(0)
    ffn = moe_ffn(lambda d, e: DirichletRouter(d, e, k_target=2), n_experts=4, d_hidden=16)
    model = Transformer(vocab_size=11, seq_len=8, d_model=16, n_layers=2, n_heads=2, ffn=ffn, init_seed=0)
    set_progress(model, 0.5)
    tokens = torch.randint(0, 11, (4, 8))
    loss = torch.nn.functional.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten())
    (loss + moe_aux_loss(model)).backward()
    router = model.blocks[1].mlp.router
    assert router.progress == 0.5
    for lin in (router.selection, router.concentration_hi, router.concentration_lo, router.decoder):
        assert lin.weight.grad is not None and lin.weight.grad.abs().sum() > 0


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="k_target"):
        DirichletRouter(8, 4, k_target=4)
    with pytest.raises(ValueError, match="tau"):
        DirichletRouter(8, 4, k_target=1, tau_schedule=0.0)
    with pytest.raises(ValueError, match="alpha_min"):
        DirichletRouter(8, 4, k_target=1, alpha_min=0.0)
    with pytest.raises(ValueError, match="d_model"):
        MoEFFN(16, 8, 4, DirichletRouter(8, 4, k_target=1))
    router = DirichletRouter(8, 4, k_target=1)
    with torch.no_grad():
        router.concentration_hi.bias.fill_(float("nan"))
    moe = MoEFFN(8, 8, 4, router, layer=3).eval()
    with pytest.raises(ValueError, match="layer 3"):
        moe(torch.randn(1, 2, 8))


def test_sabotage_unnormalised_gate_violates_the_reduction_oracle() -> None:
    torch.manual_seed(0)
    target = torch.softmax(torch.randn(50, 8, dtype=torch.float64), -1)
    theta = Dirichlet(1e6 * target).rsample()
    z = torch.ones_like(theta)
    z[:, 0] = 0.5  # a broken gate that forgets to renormalise after scaling by z
    assert not torch.allclose(z * theta, target, atol=1e-2)


def test_markov_data_follows_its_chains_and_bayes_loss_matches_brute_force() -> None:
    data = MultiDomainMarkov(n_domains=3, vocab_size=9, n_successors=2, seed=1)
    assert torch.all(data.allowed.sum(-1) == 2)
    tokens, domains = data.sample(20, 7, torch.Generator().manual_seed(0))
    assert bool(data.is_valid(tokens, domains).all())
    again, _ = data.sample(20, 7, torch.Generator().manual_seed(0))
    assert torch.equal(tokens, again)
    nll = []
    for seq in tokens.tolist():
        for t in range(1, len(seq)):
            alive = [d for d in range(3) if all(data.allowed[d, seq[s - 1], seq[s]] for s in range(1, t))]
            p = sum(float(data.allowed[d, seq[t - 1], seq[t]]) / 2 for d in alive) / len(alive)
            nll.append(-math.log(p))
    assert math.isclose(data.bayes_loss(tokens), sum(nll) / len(nll), rel_tol=1e-9)


def test_routing_metrics_on_hand_made_gates() -> None:
    domains = torch.tensor([0, 0, 1, 1])
    split = torch.tensor([[1.0, 0, 0], [1.0, 0, 0], [0, 0.5, 0.5], [0, 0.5, 0.5]])
    assert math.isclose(set_nmi(domains, split), 1.0)
    assert set_nmi(domains, torch.tensor([[1.0, 0, 0], [0, 1.0, 0]] * 2)) < 1e-9
    assert torch.equal(expert_sets(split), torch.tensor([1, 1, 6, 6]))
    assert math.isclose(load_entropy(torch.eye(3)), 1.0)
    heat = routing_heatmap(domains, split, 2)
    assert heat.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    assert active_histogram(split) == [0.0, 0.5, 0.5, 0.0]


def _rows(loss_gap: list[float], nmi_gain: list[float], active: float = 2.0) -> list[dict[str, float]]:
    return [
        {"dirmoe_val_loss": 2.0 + g, "topk_val_loss": 2.0, "dirmoe_nmi": 0.3 + n, "topk_nmi": 0.3,
         "dirmoe_active": active}
        for g, n in zip(loss_gap, nmi_gain)
    ]  # fmt: skip


def test_claim_decider_outcomes() -> None:
    decide = dirmoe_decider(k=2.0)
    assert decide(_rows([0.0, 0.01, -0.01], [0.08, 0.1, 0.12])).outcome is Outcome.SUPPORTED
    # sabotage: the baseline's own numbers in place of DirMoE's cannot support the claim
    assert decide(_rows([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])).outcome is not Outcome.SUPPORTED
    assert decide(_rows([0.1, 0.09, 0.12], [0.08, 0.1, 0.12])).outcome is Outcome.NOT_SUPPORTED
    assert decide(_rows([0.0, 0.0, 0.0], [-0.1, -0.12, -0.08])).outcome is Outcome.NOT_SUPPORTED
    assert decide(_rows([0.0, 0.0, 0.0], [0.08, 0.1, 0.12], active=1.0)).outcome is Outcome.INCONCLUSIVE
    assert decide(_rows([0.04, 0.04, 0.04], [0.08, 0.1, 0.12])).outcome is Outcome.INCONCLUSIVE
    assert decide(_rows([0.0], [0.1])).outcome is Outcome.INCONCLUSIVE
    assert decide(decide.synthesize(_rows([0.3, 0.3, 0.3], [-0.1, -0.1, -0.1]))).outcome is Outcome.SUPPORTED


def test_domain_blind_loss_matches_brute_force_and_brackets_the_bayes_loss() -> None:
    data = MultiDomainMarkov(n_domains=3, vocab_size=9, n_successors=2, seed=1)
    tokens, _ = data.sample(20, 7, torch.Generator().manual_seed(0))
    allowed = data.allowed.double()
    mu = [torch.full((3, 9), 1 / 9, dtype=torch.float64)]
    for _ in range(6):
        mu.append(torch.stack([mu[-1][d] @ (allowed[d] / 2) for d in range(3)]))
    nll = []
    for seq in tokens.tolist():
        for t in range(1, len(seq)):
            w = [float(mu[t - 1][d, seq[t - 1]]) for d in range(3)]
            p = sum(w[d] * float(allowed[d, seq[t - 1], seq[t]]) / 2 for d in range(3)) / sum(w)
            nll.append(-math.log(p))
    blind = data.domain_blind_loss(tokens)
    assert math.isclose(blind, sum(nll) / len(nll), rel_tol=1e-9)
    assert blind > data.bayes_loss(tokens)
    one = MultiDomainMarkov(n_domains=1, vocab_size=9, n_successors=2, seed=1)
    tok1, _ = one.sample(10, 7, torch.Generator().manual_seed(0))
    assert math.isclose(one.domain_blind_loss(tok1), one.bayes_loss(tok1), rel_tol=1e-12)  # nothing to infer


def _claim_rows(dirmoe_loss, topk_loss=(2.6, 2.5, 2.5), blind=3.07, nmi_gain=0.1, diverged=0.0):
    rows = []
    for i, (a, b) in enumerate(zip(dirmoe_loss, topk_loss)):
        rows.append(
            {
                "dirmoe_val_loss": a,
                "topk_val_loss": b,
                "dirmoe_nmi": 0.07 + nmi_gain + 0.01 * i,
                "topk_nmi": 0.07,
                "dirmoe_active": 2.0,
                "dirmoe_loss_over_domain_blind": a - blind,
                "topk_loss_over_domain_blind": b - blind,
                "dirmoe_diverged": diverged,
                "topk_diverged": 0.0,
            }
        )
    return rows


def test_claim_preconditions_need_models_that_infer_the_domain() -> None:
    from iclr26.attention.dirmoe.experiment import EXPERIMENT

    (claim,) = EXPERIMENT.claims
    assert claim.judge(_claim_rows((2.6, 2.5, 2.51))).outcome is Outcome.SUPPORTED  # learned: a real verdict
    assert claim.judge(_claim_rows((2.9, 2.8, 2.8))).outcome is Outcome.NOT_SUPPORTED
    # the earlier quick run: DirMoE's seed 0 (3.185 nats) never got below the history-blind floor (3.09)
    earlier = _claim_rows((3.185, 2.974, 3.006), (2.706, 2.516, 2.524), nmi_gain=-0.024)
    earlier[0]["dirmoe_loss_over_domain_blind"] = 3.185 - 3.09
    assert claim.judge(earlier).outcome is Outcome.NOT_REPRODUCED
    assert claim.judge(_claim_rows((2.6, 2.5, 2.51), diverged=1.0)).outcome is Outcome.NOT_REPRODUCED


# ---- the paper's router (variant="paper"): oracle tests ----------------------------------------------------


def _digamma(x: float) -> float:
    """Slow scalar digamma: recurrence up to x >= 10, then the asymptotic series (error < 1e-13)."""
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    inv = 1.0 / (x * x)
    return acc + math.log(x) - 0.5 / x - inv * (1 / 12 - inv * (1 / 120 - inv * (1 / 252 - inv / 240)))


def _slow_dirichlet_kl(a: list[float], b: list[float]) -> float:
    """KL(Dir(a) || Dir(b)) term by term in Python floats."""
    a0, b0 = sum(a), sum(b)
    out = math.lgamma(a0) - math.lgamma(b0)
    for ai, bi in zip(a, b):
        out += math.lgamma(bi) - math.lgamma(ai) + (ai - bi) * (_digamma(ai) - _digamma(a0))
    return out


def _paper_router(**kw) -> DirichletRouter:
    torch.manual_seed(0)
    router = DirichletRouter(12, 6, k_target=2, **kw)
    with torch.no_grad():  # input-dependent heads, so the test does not sit at the initial constants
        for lin in (router.selection, router.concentration_hi, router.concentration_lo):
            lin.weight.normal_(0.0, 0.3)
    return router


def test_slow_digamma_matches_torch() -> None:
    for x in (0.013, 0.4, 1.0, 2.5, 7.0, 40.0):
        want = float(torch.digamma(torch.tensor(x, dtype=torch.float64)))
        assert math.isclose(_digamma(x), want, rel_tol=1e-11, abs_tol=1e-11)


def test_paper_concentrations_reduce_to_slab_and_spike_with_hard_gates() -> None:
    z = torch.tensor([[1.0, 0.0, 1.0, 0.0]])
    hi, lo = torch.tensor([[2.0, 3.0, 0.5, 1.0]]), torch.tensor([[0.1, 0.2, 0.3, 0.4]])
    assert torch.equal(spike_slab_concentrations(z, hi, lo, 4.0), 4.0 * torch.where(z > 0, hi, lo))
    router = _paper_router(lambda_q=3.0).eval()  # lambda^q fixed; in eval the gates are hard
    h = torch.randn(5, 7, 12)
    g, aux = router(h)
    _, a_hi, a_lo = router.heads(h)
    sel = aux["z"] > 0.5
    assert torch.equal(aux["z"], sel.to(aux["z"].dtype))
    assert torch.allclose(aux["alpha"], 3.0 * torch.where(sel, a_hi, a_lo))
    # straight-through training forward: the same hard selection gives the same reduction
    st = _paper_router(lambda_q=3.0, straight_through=True)
    _, aux = st(h)
    sel = aux["z"] > 0.5
    assert torch.allclose(aux["z"], sel.to(aux["z"].dtype), atol=1e-6)
    _, a_hi, a_lo = st.heads(h)
    assert torch.allclose(aux["alpha"], 3.0 * torch.where(sel, a_hi, a_lo), atol=1e-5)


def test_paper_training_gate_has_the_posterior_mean_in_expectation() -> None:
    """With the selection decided (pi near 0/1, tiny tau), E[normalize(z~ theta)] = a_hi renormalised on S: the
    aggregation property of Dir(lambda^q (z a_hi + (1 - z) a_lo)) restricted to the selected set."""
    torch.manual_seed(0)
    router = DirichletRouter(6, 5, k_target=2, tau_schedule=1e-3, lambda_q=2.0)
    with torch.no_grad():
        router.selection.weight.zero_()
        router.selection.bias.copy_(
            torch.tensor([20.0, -20.0, 20.0, 20.0, -20.0])
        )  # beyond the clamped noise
        router.concentration_hi.bias.copy_(torch.tensor([0.3, 1.0, -0.5, 1.5, 0.0]))
    n = 100_000
    h = torch.randn(1, 6).expand(n, -1)
    with torch.no_grad():
        g, aux = router(h)
        router.eval()
        want, _ = router(h[:1])
    assert torch.all(aux["z"][:, [1, 4]] < 1e-3) and torch.all(aux["z"][:, [0, 2, 3]] > 1 - 1e-3)
    mean, se = g.double().mean(0), g.double().std(0) / math.sqrt(n)
    assert torch.all((mean - want[0].double()).abs() <= 4 * se + 1e-4)
    # and the relaxed selection itself fires with probability sigmoid(l)
    logits = torch.tensor([-1.0, 0.0, 1.5])
    frac = (relaxed_selection(logits.expand(n, -1), 0.5) > 0.5).double().mean(0)
    p = torch.sigmoid(logits).double()
    assert torch.all((frac - p).abs() <= 4 * torch.sqrt(p * (1 - p) / n))


def test_paper_kl_equals_a_slow_closed_form_and_monte_carlo() -> None:
    router = _paper_router()
    router.set_progress(0.4)
    h = torch.randn(3, 4, 12)
    _, aux = router(h)
    prior = router.prior_params()
    z = aux["z"]
    assert torch.allclose(aux["alpha_prior"], prior.scale * (z * prior.high + (1 - z) * prior.low))
    q = aux["alpha"].detach().double().reshape(-1, 6)
    p = aux["alpha_prior"].detach().double().reshape(-1, 6)
    slow = [_slow_dirichlet_kl(a.tolist(), b.tolist()) for a, b in zip(q, p)]
    assert torch.allclose(dirichlet_kl(q, p), torch.tensor(slow, dtype=torch.float64), atol=1e-9, rtol=1e-9)
    assert math.isclose(float(aux["kl_theta"].detach()), sum(slow) / len(slow), rel_tol=1e-4, abs_tol=1e-5)
    # Monte Carlo E_q[log q - log p] for one token
    torch.manual_seed(1)
    theta = Dirichlet(q[0]).sample((200_000,))
    diff = Dirichlet(q[0]).log_prob(theta) - Dirichlet(p[0]).log_prob(theta)
    assert abs(float(diff.mean()) - slow[0]) <= 4 * float(diff.std()) / math.sqrt(theta.shape[0])


def test_prior_calibration_mass_and_simpson_index() -> None:
    prior = SpikeSlabPrior(mass_start=0.7, mass_end=0.9, anneal_frac=0.5, simpson=0.55)
    params = prior(0.25, k=2, n_experts=8)  # halfway through the mass schedule
    assert math.isclose(params.mass, 0.8)
    alpha = params.scale * torch.tensor([params.high] * 2 + [params.low] * 6, dtype=torch.float64)
    assert math.isclose(float(expected_simpson(alpha)), 0.55, rel_tol=1e-12)
    torch.manual_seed(0)
    theta = Dirichlet(alpha).sample((200_000,))
    simpson, mass = (theta**2).sum(-1), theta[:, :2].sum(-1)
    n = theta.shape[0]
    assert abs(float(simpson.mean()) - 0.55) <= 4 * float(simpson.std()) / math.sqrt(n)
    assert abs(float(mass.mean()) - 0.8) <= 4 * float(mass.std()) / math.sqrt(
        n
    )  # Beta(lambda m, lambda (1-m))
    # the uniform base gives the per-expert concentration (1 - h) / (h E - 1)
    for h in (0.2, 0.5, 0.9):
        assert math.isclose(simpson_concentration(h, torch.full((8,), 1 / 8)) / 8, (1 - h) / (h * 8 - 1))
    # the default Simpson target is 1/k (k equal contributions), and the midpoint where 1/k is not reachable
    assert SpikeSlabPrior()(1.0, k=2, n_experts=8).simpson == 0.5
    one = SpikeSlabPrior()(1.0, k=1, n_experts=4)
    floor = 0.95**2 + 3 * (0.05 / 3) ** 2
    assert math.isclose(one.simpson, (1 + floor) / 2)
    assert prior_base(0.9, 2, 8) == (0.45, (1 - 0.9) / 6)


def test_paper_gradients_reach_all_three_heads_and_the_decoder() -> None:
    router = _paper_router(tau_schedule=0.7)
    router.set_progress(0.5)
    h = torch.randn(4, 5, 12)
    g, aux = router(h)
    (aux["loss"] + (g * torch.randn_like(g)).sum()).backward()
    for lin in (router.selection, router.concentration_hi, router.concentration_lo, router.decoder):
        assert lin.weight.grad is not None and lin.weight.grad.abs().sum() > 0
    # each term alone: the sampled penalty reaches l; the KL reaches a_hi and a_lo; the reconstruction the decoder
    for key, heads in (
        ("sparsity", ("selection",)),
        ("kl_theta", ("concentration_hi", "concentration_lo", "selection")),
        ("recon", ("decoder", "concentration_hi", "selection")),
    ):
        router.zero_grad()
        router(h)[1][key].backward()
        for name in heads:
            grad = getattr(router, name).weight.grad
            assert grad is not None and grad.abs().sum() > 0, (key, name)


def test_regression_posterior_is_conditioned_on_the_sampled_gate() -> None:
    """The defect of issue 20: the earlier router had one head and theta ~ Dir(alpha) independent of z~, a Bernoulli
    KL in its loss and the penalty on sum pi. The paper's router must fail all of that."""
    router = _paper_router()
    router.set_progress(1.0)
    h = torch.randn(6, 12)
    torch.manual_seed(1)
    _, aux1 = router(h)
    torch.manual_seed(2)
    _, aux2 = router(h)
    assert not torch.allclose(aux1["alpha"], aux2["alpha"])  # alpha^q moves with the sampled z~
    _, a_hi, a_lo = router.heads(h)
    lam = router.prior_params().scale
    assert torch.allclose(aux1["alpha"], lam * (aux1["z"] * a_hi + (1 - aux1["z"]) * a_lo))
    assert torch.allclose(aux1["sparsity"], ((aux1["z"].sum(-1) - 2) ** 2).mean())
    assert not torch.allclose(aux1["sparsity"], ((aux1["pi"].sum(-1) - 2) ** 2).mean())
    want = (
        aux1["kl_theta"] + router.lambda_s * aux1["sparsity"] + aux1["recon"]
    )  # beta_theta = 1, no Bernoulli KL
    assert torch.allclose(aux1["loss"], want)
    assert not hasattr(router, "concentration")


def test_abstract_variant_keeps_the_earlier_router() -> None:
    torch.manual_seed(0)
    router = DirichletRouter(8, 4, k_target=1, variant="abstract", kappa_z=0.1, kappa_theta=0.2, lambda_s=0.3)
    router.set_progress(1.0)
    _, aux = router(torch.randn(3, 8))
    want = 0.1 * aux["kl_z"] + 0.2 * aux["kl_theta"] + 0.3 * aux["sparsity"]
    assert torch.allclose(aux["loss"], want)
    assert torch.allclose(aux["sparsity"], ((aux["pi"].sum(-1) - 1) ** 2).mean())
    assert torch.allclose(aux["kl_theta"], dirichlet_kl(aux["alpha"], 1.0).mean())
    router.set_progress(0.0)
    assert float(router(torch.randn(3, 8))[1]["loss"].detach()) == 0.0
