"""Oracle tests for RECALL (attack, tiny DDPM substrate, unlearning, claim rule)."""

import hashlib

import numpy as np
import pytest
import torch

from iclr26.agents.recall_unlearning_attack import (
    DigitsDDPM,
    DigitsSampler,
    RecallAttack,
    TextEmbeddingAttack,
    add_noise,
    alphas_cumprod_schedule,
    anchor_of,
    ddim_timesteps,
    esd_unlearn,
    img2img_timesteps,
    prompt_tokens,
    recall_timesteps,
    styled_digits,
    uce_unlearn,
)
from iclr26.agents.recall_unlearning_attack.claim_check import (
    _win,
    cell_bootstrap_var,
    recall_beats_reference,
    recall_beats_text,
)
from iclr26.agents.recall_unlearning_attack.tiny import D_TOK, T_TRAIN, VOCAB
from iclr26.harness.claims import Outcome

torch.set_num_threads(1)


class LinearEps(torch.nn.Module):
    """eps(x, t, c) = x A^T + (sum of c) B^T: a denoiser whose gradients can be written by hand."""

    def __init__(self, d=6, dc=3, T=50, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.A = torch.randn(d, d, generator=g, dtype=torch.float64) / d**0.5
        self.B = torch.randn(d, dc, generator=g, dtype=torch.float64)
        self.alphas_cumprod = alphas_cumprod_schedule(T)

    def forward(self, x, t, c):
        return x @ self.A.T + c.sum(1) @ self.B.T


def _never(x):
    return np.zeros(len(x), bool)


def _recorder():
    seen = []

    def img2img(z, cond, strength, steps, generator):
        seen.append(z.detach().clone())
        return z.detach().clone()

    return seen, img2img


def test_forward_marginal_matches_closed_form():
    ab = alphas_cumprod_schedule(100)
    betas = torch.linspace((0.0085) ** 0.5, (0.12) ** 0.5, 100, dtype=torch.float64) ** 2
    mean, var = torch.tensor(1.0, dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64)
    for t in range(100):  # q(x_t | x_{t-1}) = N(sqrt(1 - beta_t) x_{t-1}, beta_t), composed step by step
        mean, var = mean * (1 - betas[t]).sqrt(), var * (1 - betas[t]) + betas[t]
        assert abs(mean - ab[t].sqrt()) < 1e-12 and abs(var - (1 - ab[t])) < 1e-12
    g = torch.Generator().manual_seed(0)
    x0 = torch.full((4_000_000,), 0.7, dtype=torch.float64)
    xt = add_noise(x0, torch.randn(x0.shape, generator=g, dtype=torch.float64), 60, ab)
    assert abs(xt.mean() - 0.7 * ab[60].sqrt()) < 1e-3
    assert abs(xt.var() - (1 - ab[60])) < 1e-3


def test_timestep_lists():
    assert recall_timesteps(1000, 50) == list(range(10, 1000, 20))
    assert recall_timesteps(100, 20) == [2 + 5 * i for i in range(20)]
    assert ddim_timesteps(100, 20) == list(range(95, -1, -5))
    # diffusers img2img: skip the first steps - int(steps * strength) entries of the grid
    assert img2img_timesteps(100, 20, 0.8) == list(range(75, -1, -5))
    assert img2img_timesteps(1000, 50, 0.8) == ddim_timesteps(1000, 50)[10:]
    assert img2img_timesteps(100, 20, 1.0) == ddim_timesteps(100, 20)


def test_ddim_recovers_a_point_mass_exactly():
    """With the exact eps of a one-point data set, DDIM (text and image-to-image) returns that point."""
    x_star = torch.linspace(-0.9, 0.9, 64)
    model = DigitsDDPM()

    class Exact(torch.nn.Module):
        alphas_cumprod = model.alphas_cumprod

        def forward(self, x, t, c):
            a = self.alphas_cumprod.float()[int(torch.as_tensor(t).reshape(-1)[0])]
            return (x - a.sqrt() * x_star) / (1 - a).sqrt()

        def encode(self, tok):
            return model.encode(tok)

    s = DigitsSampler(Exact(), guidance=3.0)
    c = model.encode(prompt_tokens(["3 thin", "5 thick"])).detach()
    g = torch.Generator().manual_seed(0)
    assert torch.allclose(s.txt2img(c, 20, g), x_star.expand(2, 64), atol=1e-5)
    assert torch.allclose(
        s.img2img(torch.randn(2, 64, generator=g), c, 0.8, 20, g), x_star.expand(2, 64), atol=1e-5
    )


@pytest.mark.parametrize("ascent", [True, False])
def test_inner_step_equals_hand_computation(ascent):
    m = LinearEps()
    g = torch.Generator().manual_seed(1)
    z_ref, z_adv = (
        torch.randn(2, 6, generator=g, dtype=torch.float64),
        torch.randn(2, 6, generator=g, dtype=torch.float64),
    )
    cond, uncond = (
        torch.randn(2, 2, 3, generator=g, dtype=torch.float64),
        torch.zeros(2, 2, 3, dtype=torch.float64),
    )
    atk = RecallAttack(m, lambda *a: None, _never, lr=0.01, momentum=0.9, ascent=ascent)
    t = 17
    s = m.alphas_cumprod[t].sqrt().item()
    A = m.A.numpy()
    v = np.zeros((2, 6))
    z = z_adv.numpy().copy()
    zt, vt = z_adv, torch.zeros_like(z_adv)
    for _ in range(2):
        noise = torch.randn(2, 6, generator=g, dtype=torch.float64)
        # L_row = mean over (2 CFG halves, 6 dims) of (A s (z_ref - z))^2; both halves are equal for a linear eps
        r = A @ (s * (z_ref.numpy() - z)).T  # (6, 2)
        grad = (-2 * s / 6) * (A.T @ r).T
        loss_hand = (r**2).mean(0)
        grad = grad / (np.abs(grad).mean(1, keepdims=True) + 1e-8)
        v = 0.9 * v + grad
        z = z + (1 if ascent else -1) * 0.01 * np.sign(v)
        loss = atk.objective(z_ref, zt, t, cond, uncond, noise)
        np.testing.assert_allclose(loss.detach().numpy(), loss_hand, rtol=1e-10)
        zt, vt = atk.step(z_ref, zt, vt, t, cond, uncond, noise)
        np.testing.assert_allclose(vt.numpy(), v, rtol=1e-9)
        np.testing.assert_allclose(zt.numpy(), z, rtol=1e-12)


def test_objective_gradient_matches_finite_differences():
    m = LinearEps()
    g = torch.Generator().manual_seed(2)
    z_ref, z = (
        torch.randn(1, 6, generator=g, dtype=torch.float64),
        torch.randn(1, 6, generator=g, dtype=torch.float64),
    )
    cond = torch.randn(1, 2, 3, generator=g, dtype=torch.float64)
    noise = torch.randn(1, 6, generator=g, dtype=torch.float64)
    atk = RecallAttack(m, lambda *a: None, _never)
    zz = z.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(atk.objective(z_ref, zz, 30, cond, 0 * cond, noise).sum(), zz)
    fd = torch.zeros(6, dtype=torch.float64)
    for k in range(6):
        e = torch.zeros(1, 6, dtype=torch.float64)
        e[0, k] = 1e-6
        fd[k] = (
            atk.objective(z_ref, z + e, 30, cond, 0 * cond, noise)
            - atk.objective(z_ref, z - e, 30, cond, 0 * cond, noise)
        ).item() / 2e-6
    torch.testing.assert_close(grad[0], fd, rtol=1e-6, atol=1e-9)


def test_injection_adds_gamma_z_ref_every_interval():
    m = LinearEps()
    seen, img2img = _recorder()
    z_ref = torch.randn(3, 6, dtype=torch.float64)
    atk = RecallAttack(
        m, img2img, _never, num_timesteps=12, iters=1, lr=0.0, inject_every=5, inject_gamma=0.05
    )
    atk(
        z_ref,
        torch.zeros(3, 2, 3, dtype=torch.float64),
        torch.zeros(3, 2, 3, dtype=torch.float64),
        torch.Generator().manual_seed(0),
    )
    assert len(seen) == 13 and torch.equal(seen[0], z_ref)
    init = seen[1]
    for i in range(1, 13):  # generation after timestep i carries floor(i / 5) injections
        torch.testing.assert_close(seen[i], init + (i // 5) * 0.05 * z_ref, rtol=0, atol=1e-12)
    delta = torch.randn(z_ref.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    torch.testing.assert_close(init, 0.25 * z_ref + 0.75 * delta, rtol=0, atol=1e-12)


def test_identity_limit_equals_reference_as_is():
    """iters = 0, blend = 1, no injection: the first optimised generation is the reference-as-is generation."""
    model = DigitsDDPM().eval()
    s = DigitsSampler(model)
    z_ref = torch.rand(4, 64) * 2 - 1
    cond = model.encode(prompt_tokens(["1 thin"] * 4)).detach()
    atk = RecallAttack(
        model, s.img2img, _never, num_timesteps=3, iters=0, blend=1.0, inject_gamma=0.0, steps=10
    )
    r = atk(
        z_ref, cond, s.uncond(4).detach(), torch.Generator().manual_seed(0), sample_seed=7, keep_history=True
    )
    assert torch.equal(r.history[1], r.history[0])
    assert torch.equal(r.history[0], s.img2img(z_ref, cond, 0.8, 10, torch.Generator().manual_seed(7)))


def test_attack_never_changes_weights_and_stops_early():
    model = DigitsDDPM().eval()
    s = DigitsSampler(model)

    def digest():
        return hashlib.sha256(
            b"".join(p.detach().numpy().tobytes() for p in model.state_dict().values())
        ).hexdigest()

    before = digest()
    calls = []

    def judge(x):  # row 0 succeeds at the reference try, row 1 after timestep 2, row 2 never
        calls.append(1)
        k = len(calls) - 1
        return np.array([k == 0, k == 2, False])

    z_ref = torch.rand(3, 64) * 2 - 1
    cond = model.encode(prompt_tokens(["4 thick"] * 3)).detach()
    r = RecallAttack(model, s.img2img, judge, num_timesteps=4, iters=2, steps=5)(
        z_ref, cond, s.uncond(3).detach(), torch.Generator().manual_seed(0), keep_history=True
    )
    assert digest() == before
    assert r.step.tolist() == [0, 2, -1] and r.success.tolist() == [True, True, False]
    assert torch.equal(r.latent[0], z_ref[0])
    torch.testing.assert_close(r.image[1], r.history[2][1])
    assert len(r.history) == 5


def test_text_attack_without_steps_is_plain_text_to_image():
    model = DigitsDDPM().eval()
    s = DigitsSampler(model)
    cond = model.encode(prompt_tokens(["7 thin", "7 thick"])).detach()
    r = TextEmbeddingAttack(model, s.txt2img, _never, iters=0, steps=10)(
        torch.zeros(2, 64), cond, torch.Generator(), 3
    )
    assert torch.equal(r.image, s.txt2img(cond, 10, torch.Generator().manual_seed(3)))
    r2 = TextEmbeddingAttack(model, s.txt2img, _never, iters=3, steps=10)(
        torch.zeros(2, 64), cond, torch.Generator(), 3
    )
    assert not torch.equal(r2.latent, cond)


def test_uce_closed_form_minimises_its_objective():
    model = DigitsDDPM()
    concept, anchor = 3, anchor_of(3)
    new = uce_unlearn(model, concept, lam=0.1)
    E, W, W2 = (
        model.token_embedding.weight.detach().double(),
        model.text_proj.weight.detach().double(),
        new.text_proj.weight.detach().double().requires_grad_(True),
    )
    keep = [i for i in range(len(VOCAB)) if i != concept]
    obj = ((W2 @ E[concept] - W @ E[anchor]) ** 2).sum() + ((E[keep] @ W2.T - E[keep] @ W.T) ** 2).sum()
    obj = obj + 0.1 * ((W2 - W) ** 2).sum()
    (g,) = torch.autograd.grad(obj, W2)
    assert g.abs().max() < 1e-4  # float32-stored solution of the normal equations
    assert torch.equal(model.text_proj.weight, W.float())  # original untouched
    for name, p in new.state_dict().items():
        if name != "text_proj.weight":
            assert torch.equal(p, model.state_dict()[name])


def test_esd_touches_only_conditioning_layers():
    model = DigitsDDPM().eval()
    x, y, _ = styled_digits()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    new = esd_unlearn(model, 2, torch.as_tensor(x[y == 2][:50]), steps=3, seed=0)
    cond_names = {n for n, _ in new.named_parameters() if n.startswith(("text_proj", "cond_layers"))}
    for k, v in new.state_dict().items():
        assert torch.equal(model.state_dict()[k], before[k])
        assert torch.equal(v, before[k]) == (k not in cond_names), k


def test_styled_digits_and_tokens():
    x, y, s = styled_digits()
    assert x.shape == (3594, 64) and x.min() >= -1 and x.max() <= 1
    assert (x[s == 0].mean() < x[s == 1].mean()) and set(np.unique(y)) == set(range(10))
    assert prompt_tokens(["3 thin"]).tolist() == [[3, 10]]
    assert DigitsDDPM().encode(prompt_tokens(["3 thin"])).shape == (1, 2, D_TOK)
    assert T_TRAIN == 100


def test_cell_bootstrap_variance_matches_closed_form():
    rng = np.random.default_rng(0)
    d = [rng.integers(-1, 2, 10).astype(float) for _ in range(3)]
    want = sum(np.var(v) / len(v) for v in d) / 9
    got = cell_bootstrap_var(d, np.random.default_rng(1), n_boot=40_000)
    assert abs(got - want) / want < 0.05


def test_claim_rules_pass_and_fail():
    rows = [{} for _ in range(3)]
    win = _win(rows)
    assert recall_beats_text(win).outcome is Outcome.SUPPORTED
    assert recall_beats_reference(win).outcome is Outcome.SUPPORTED
    lose = [{**r, "asr_recall": 0.3, "delta_asr_text": -0.3, "delta_fid_text": -0.2} for r in win]
    assert recall_beats_text(lose).outcome is Outcome.NOT_SUPPORTED
    worse_style = [{**r, "delta_fid_text": -0.2} for r in win]
    assert recall_beats_text(worse_style).outcome is Outcome.INCONCLUSIVE


def test_judge_forward_pass_equals_sklearn_predict():
    from sklearn.neural_network import MLPClassifier

    from iclr26.agents.recall_unlearning_attack.tiny import Judges

    x, y, s = styled_digits()
    idx = np.random.default_rng(0).choice(len(x), 300, replace=False)
    for labels, hidden in ((y, (16,)), (s, (8,))):
        clf = MLPClassifier(hidden, max_iter=30, random_state=0).fit(x[idx], labels[idx])
        layers = list(zip(clf.coefs_, clf.intercepts_))
        np.testing.assert_array_equal(Judges._predict(layers, torch.as_tensor(x[:500])), clf.predict(x[:500]))
