"""Oracle tests for the masked-diffusion LM core (ELBO, SUBS, reverse kernel, ancestral sampler)."""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from scipy import stats
from torch import nn

from iclr26.lab.masked_diffusion import (
    MaskedDiffusionLM,
    MaskedDiffusionTransformer,
    alpha,
    ancestral_sample,
    elbo_weight,
    mask_tokens,
    mdlm_loss,
    reverse_step,
    reverse_transition,
    subs_log_probs,
    train_mdlm,
)


class TableDenoiser(nn.Module):
    """Ignores its input: fixed per-position logits over V clean tokens plus a mask id (the oracle model)."""

    def __init__(self, logits: torch.Tensor) -> None:
        super().__init__()
        self.table = nn.Parameter(logits.clone())  # (L, V + 1)
        self.mask_id = logits.shape[1] - 1

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.table.expand(ids.shape[0], -1, -1)

    def clean_probs(self) -> torch.Tensor:
        return torch.softmax(self.table[:, : self.mask_id], dim=-1)


def _table(L: int = 3, V: int = 3, seed: int = 0, dtype=torch.float64) -> TableDenoiser:
    g = torch.Generator().manual_seed(seed)
    return TableDenoiser(torch.randn(L, V + 1, generator=g, dtype=dtype))


def test_schedules_and_weights() -> None:
    t = torch.tensor([0.1, 0.5, 1.0], dtype=torch.float64)
    assert torch.allclose(alpha(t), 1 - t)
    assert float(alpha(0.0, "cosine")) == pytest.approx(1.0) and float(alpha(1.0, "cosine")) == pytest.approx(
        0.0
    )
    for schedule in ("linear", "cosine"):  # weight == -alpha'/(1-alpha), by finite differences
        h = 1e-6
        d = (alpha(t - h, schedule) - alpha(t.clamp(max=1 - h) + h, schedule)) / (
            t.clamp(max=1 - h) + h - t + h
        )
        assert torch.allclose(elbo_weight(t, schedule), d / (1 - alpha(t, schedule)), rtol=1e-4)


def test_subs_copies_unmasked_and_never_predicts_mask() -> None:
    logits = torch.randn(2, 4, 6)
    x_t = torch.tensor([[5, 1, 5, 2], [0, 5, 3, 5]])
    logp = subs_log_probs(logits, x_t, mask_id=5)
    assert torch.all(logp[..., 5] == -math.inf)
    assert torch.allclose(logp.exp().sum(-1), torch.ones(2, 4))
    assert logp[0, 1, 1] == 0 and logp[1, 2, 3] == 0
    ref = torch.log_softmax(logits[0, 0, :5], -1)
    assert torch.allclose(logp[0, 0, :5], ref)


def test_mask_tokens_rate_and_maskable() -> None:
    x0 = torch.zeros(2000, 10, dtype=torch.long)
    t = torch.full((2000,), 0.3)
    maskable = torch.ones_like(x0, dtype=torch.bool)
    maskable[:, :3] = False
    x_t, masked = mask_tokens(x0, t, 7, torch.Generator().manual_seed(0), maskable)
    assert not masked[:, :3].any()
    assert torch.equal(x_t == 7, masked)
    assert abs(masked[:, 3:].float().mean().item() - 0.3) < 0.01


def test_elbo_equals_nll_for_an_input_blind_model() -> None:
    # For a model that ignores its input, E_t,mask[w(t) sum_masked CE] = sum_l -log p_l(x_l) exactly.
    model = _table(L=3, V=3)
    x0 = torch.tensor([[0, 2, 1]])
    exact = -torch.log(model.clean_probs()[torch.arange(3), x0[0]]).mean().detach()
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        est = torch.stack([mdlm_loss(model, x0.expand(4000, -1), gen, eps=0.0) for _ in range(10)]).mean()
    assert float(est) == pytest.approx(float(exact), rel=0.03)


def test_elbo_deterministic_given_t_and_gradients_flow() -> None:
    model = _table(L=3, V=3)
    x0 = torch.tensor([[0, 2, 1], [1, 1, 1]])
    t = torch.tensor([1.0, 1.0], dtype=torch.float64)  # everything masked at t = 1, weight 1
    loss = mdlm_loss(model, x0, torch.Generator().manual_seed(0), t=t)
    logp = torch.log(model.clean_probs())
    ref = -(logp[torch.arange(3), x0[0]].sum() + logp[torch.arange(3), x0[1]].sum()) / 6
    assert torch.allclose(loss, ref)
    loss.backward()
    assert model.table.grad is not None and model.table.grad[:, :3].abs().sum() > 0
    assert torch.all(model.table.grad[:, 3] == 0)  # the mask logit never matters


def test_reverse_transition_is_a_distribution_with_the_right_unmask_rate() -> None:
    model = _table(L=4, V=3)
    x_t = torch.tensor([[3, 1, 3, 3]])
    logq = reverse_transition(model(x_t).detach(), x_t, t=0.8, s=0.5, mask_id=3)
    q = logq.exp()
    assert torch.allclose(q.sum(-1), torch.ones(1, 4, dtype=q.dtype))
    assert q[0, 1, 1] == 1
    assert float(q[0, 0, 3]) == pytest.approx(0.5 / 0.8)  # stay masked: (1 - a_s) / (1 - a_t)
    assert torch.allclose(q[0, 0, :3], (1 - 0.5 / 0.8) * model.clean_probs()[0])
    last = reverse_transition(model(x_t), x_t, t=0.25, s=0.0, mask_id=3).exp()
    assert torch.all(last[..., 3] == 0)


def test_ancestral_law_of_an_input_blind_model_is_the_product_of_its_marginals() -> None:
    # Whatever the number of steps, an input-blind denoiser's samples are independent draws from its tables.
    model = _table(L=3, V=3, seed=1)
    p = model.clean_probs().detach()
    prompt = torch.zeros(6000, 0, dtype=torch.long)
    for steps in (1, 2, 5):
        out = ancestral_sample(
            model, prompt, gen_len=3, steps=steps, generator=torch.Generator().manual_seed(steps)
        )
        codes = (out[:, 0] * 9 + out[:, 1] * 3 + out[:, 2]).bincount(minlength=27).double()
        expected = torch.tensor(
            [float(p[0, a] * p[1, b] * p[2, c]) for a, b, c in itertools.product(range(3), repeat=3)]
        )
        assert stats.chisquare(codes.numpy(), 6000 * expected.numpy()).pvalue > 1e-3


def test_ancestral_keeps_prompt_and_unmasks_monotonically() -> None:
    model = MaskedDiffusionTransformer(n_tokens=4, seq_len=7, d_model=16, n_layers=1, n_heads=2, init_seed=0)
    prompt = torch.tensor([[1, 2, 3]])
    out, traj = ancestral_sample(
        model, prompt, gen_len=4, steps=4, generator=torch.Generator().manual_seed(0), return_trajectory=True
    )
    assert torch.equal(out[:, :3], prompt)
    masked = [int((x == model.mask_id).sum()) for x in traj]
    assert masked[0] == 4 and masked[-1] == 0 and all(a >= b for a, b in itertools.pairwise(masked))
    for before, after in itertools.pairwise(traj):  # a committed token never changes
        keep = before != model.mask_id
        assert torch.equal(after[keep], before[keep])


def test_reverse_step_seeded() -> None:
    model = _table(L=5, V=3)
    x_t = torch.full((3, 5), 3)
    a = reverse_step(model(x_t), x_t, 1.0, 0.4, 3, torch.Generator().manual_seed(4))
    b = reverse_step(model(x_t), x_t, 1.0, 0.4, 3, torch.Generator().manual_seed(4))
    assert torch.equal(a, b)


def test_transformer_is_bidirectional_and_a_protocol_member() -> None:
    model = MaskedDiffusionTransformer(n_tokens=4, seq_len=6, d_model=16, n_layers=1, n_heads=2, init_seed=0)
    assert isinstance(model, MaskedDiffusionLM)
    x = torch.tensor([[0, 1, 2, 3, 4, 4]])
    y = x.clone()
    y[0, -1] = 0
    assert not torch.allclose(model(x)[0, 0], model(y)[0, 0])  # position 0 sees the last token


def test_train_mdlm_learns_a_constant_sequence() -> None:
    model = MaskedDiffusionTransformer(n_tokens=3, seq_len=4, d_model=16, n_layers=1, n_heads=2, init_seed=0)
    target = torch.tensor([[2, 0, 1, 2]])
    res = train_mdlm(model, lambda g: (target.expand(16, -1), None), steps=60, lr=1e-2, seed=0)
    assert res.losses[-1] < 0.2 * res.losses[0]
    out = ancestral_sample(model, torch.zeros(1, 0, dtype=torch.long), 4, 2, torch.Generator().manual_seed(0))
    assert torch.equal(out, target)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda m: mdlm_loss(m, torch.tensor([[0, 3]]), None), ["x0", "mask id"]),
        (lambda m: mdlm_loss(m, torch.tensor([[0, 1]]), None, schedule="cubic"), ["schedule"]),
        (lambda m: ancestral_sample(m, torch.zeros(1, 0, dtype=torch.long), 0, 2), ["gen_len"]),
        (lambda m: ancestral_sample(m, torch.zeros(1, 0, dtype=torch.long), 2, 0), ["steps"]),
        (
            lambda m: reverse_transition(m(torch.tensor([[3]])), torch.tensor([[3]]), 0.2, 0.5, 3),
            ["0 <= s < t"],
        ),
        (lambda m: MaskedDiffusionTransformer(n_tokens=0, seq_len=3), ["n_tokens"]),
    ],
)
def test_bad_input(call, words) -> None:
    model = _table(L=2, V=3)
    with pytest.raises(ValueError) as err:
        call(model)
    for w in words:
        assert w in str(err.value)


def test_alpha_follows_the_input_precision_and_reverse_rates_are_exact_in_float64():
    import math

    assert alpha(0.3).dtype == torch.float64 and alpha(0.3, "cosine").dtype == torch.float64
    assert alpha(torch.tensor([0.3], dtype=torch.float32)).dtype == torch.float32
    t, s = 0.7, 0.3
    for schedule, a in (("linear", lambda u: 1 - u), ("cosine", lambda u: math.cos(math.pi * u / 2))):
        logits = torch.randn(1, 2, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        x_t = torch.tensor([[4, 1]])  # position 0 masked (mask id 4), position 1 clean
        out = reverse_transition(logits, x_t, t, s, mask_id=4, schedule=schedule)
        stay = (1 - a(s)) / (1 - a(t))
        assert float(out[0, 0, 4].exp()) == pytest.approx(stay, rel=1e-12, abs=0)  # was ~5e-8 off (float32)
