"""Oracle tests of the ELM reproduction (OpenReview lqJT6xmuH3)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from transformers import DynamicCache

from iclr26.harness.claims import Outcome
from iclr26.inference.equilibrium_lm import (
    ELMTrainer,
    FixedPointBlock,
    GPPOPolicy,
    block_influence,
    count_parameters,
    decoder_layers,
    find_fixed_point_block,
    group_activations,
    linear_replacement,
    lm_weight,
    make_elm,
    one_step_reference_decode,
    replace_group,
)
from iclr26.inference.equilibrium_lm.claim_check import elm_claim_decider, loss_gain_decider
from iclr26.lab.tinylm import SMOKE_CONFIG, build_model

VOCAB = 64


def _dense(arch: str = "llama", n_layers: int = 4, seed: int = 0) -> torch.nn.Module:
    cfg = replace(SMOKE_CONFIG, arch=arch, n_layers=n_layers, seed=seed)
    return build_model(cfg, vocab_size=VOCAB).double().eval()


def _ids(shape: tuple[int, int], seed: int = 0) -> torch.Tensor:
    return torch.randint(3, VOCAB, shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_one_iteration_identity_adaptor_equals_dense_with_layer_s(arch: str) -> None:
    dense = _dense(arch, n_layers=5)
    elm = make_elm(dense, start=1, group_len=3, eps_exit=None)
    # dense with layers 2 and 3 deleted == group [1, 4) replaced by layer 1 alone
    reference = replace_group(replace_group(dense, 3, 1, None), 2, 1, None)
    ids = _ids((2, 9))
    with torch.no_grad():
        find_fixed_point_block(elm).n_iter_grad = 1
        got = elm(input_ids=ids).logits
        want = reference(input_ids=ids).logits
    torch.testing.assert_close(got, want, atol=1e-6, rtol=0)


@pytest.mark.parametrize(
    ("arch", "eps"), [("llama", None), ("gpt2", None), ("llama", 0.065), ("gpt2", 0.065)]
)
def test_generate_with_one_step_cache_matches_cache_free_reference(arch: str, eps: float | None) -> None:
    elm = make_elm(_dense(arch), start=1, group_len=3, eps_exit=eps, seed=3)
    with torch.no_grad():  # make the fixed point non-trivial so that iterations matter
        find_fixed_point_block(elm).adaptor.weight[:, :32] *= 10
    ids = _ids((2, 5), seed=1)
    iters: list[int] = []
    hook = find_fixed_point_block(elm).register_forward_hook(lambda m, a, o: iters.append(m.last_n_iter))
    out = elm.generate(ids, max_new_tokens=8, do_sample=False, eos_token_id=None, pad_token_id=2)
    hook.remove()
    ref = one_step_reference_decode(elm, ids, 8)
    assert out.tolist() == ref.tolist()
    assert iters[0] == 3 and (min(iters) < 3) == (eps is not None)  # early exit exercised when enabled


def test_cache_grows_by_exactly_one_per_token() -> None:
    elm = make_elm(_dense("llama", n_layers=5), start=1, group_len=3)
    cache = DynamicCache(config=elm.config)
    ids = _ids((1, 6))
    with torch.no_grad():
        elm(input_ids=ids, cache=cache, use_cache=True)
        assert [layer.get_seq_length() for layer in cache.layers] == [6, 6, 6]
        for t in range(1, 4):
            elm(input_ids=ids[:, :1], cache=cache, use_cache=True)
            assert [layer.get_seq_length() for layer in cache.layers] == [6 + t] * 3


def test_sabotage_appending_cache_breaks_the_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block that appends K/V on every iteration (no One-Step overwrite) fails the cache-length oracle."""
    elm = make_elm(_dense("llama", n_layers=5), start=1, group_len=3, eps_exit=None)
    monkeypatch.setattr(FixedPointBlock, "_cache_layer", lambda self, args, kwargs: None)
    cache = DynamicCache(config=elm.config)
    with torch.no_grad():
        elm(input_ids=_ids((1, 6)), cache=cache, use_cache=True)
    assert cache.layers[1].get_seq_length() == 18  # 3 iterations x 6 tokens, not 6


def test_early_exit_only_for_single_token_decoding() -> None:
    elm = make_elm(_dense(), start=0, group_len=3, eps_exit=1e9)
    fp = find_fixed_point_block(elm)
    cache = DynamicCache(config=elm.config)
    with torch.no_grad():
        elm(input_ids=_ids((1, 4)), cache=cache, use_cache=True)
        assert fp.last_n_iter == 3  # prefill: all G iterations
        elm(input_ids=_ids((1, 1)), cache=cache, use_cache=True)
        assert fp.last_n_iter == 1  # residual below a huge eps after the first step


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_parameter_drop_is_g_minus_one_layers_minus_adaptor(arch: str) -> None:
    dense = _dense(arch, n_layers=6)
    g = 4
    elm = make_elm(dense, start=1, group_len=g)
    layer = count_parameters(getattr(*decoder_layers(dense))[1])
    adaptor = count_parameters(find_fixed_point_block(elm).adaptor)
    assert adaptor == 2 * 32 * 32 + 32
    assert count_parameters(dense) - count_parameters(elm) == (g - 1) * layer - adaptor


def test_adaptor_init_identity_on_x() -> None:
    fp = FixedPointBlock(torch.nn.Identity(), 8, max_iter=1)
    w = fp.adaptor.weight.detach()
    torch.testing.assert_close(w[:, 8:], torch.eye(8))
    assert 0 < w[:, :8].abs().max() <= 0.1 / np.sqrt(16) + 1e-9
    assert torch.all(fp.adaptor.bias == 0)


def test_jacobian_free_gradient_flows_only_through_grad_iterations() -> None:
    block = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.Tanh()).double()
    fp = FixedPointBlock(block, 6, max_iter=4, generator=torch.Generator().manual_seed(0)).double()
    x = torch.randn(2, 3, 6, dtype=torch.float64)
    fp(x, n_iter_nograd=3, n_iter_grad=1).sum().backward()
    got = fp.adaptor.weight.grad.clone()
    fp.zero_grad()
    with torch.no_grad():
        z = torch.zeros_like(x)
        for _ in range(3):
            z = block(fp.adaptor(torch.cat([z, x], -1)))
    block(fp.adaptor(torch.cat([z, x], -1))).sum().backward()  # one differentiable step from detached z_3
    torch.testing.assert_close(got, fp.adaptor.weight.grad)


def test_trainer_updates_only_the_fixed_point_module() -> None:
    dense = _dense(n_layers=4)
    elm = make_elm(dense, start=1, group_len=2)
    before = {k: v.clone() for k, v in elm.state_dict().items()}
    dense_before = {k: v.clone() for k, v in dense.state_dict().items()}
    trainer = ELMTrainer(elm, dense, steps=4, lr=1e-2, seed=0)
    trainer.train(_ids((1, 200)).view(-1), batch_size=2, seq_len=8)
    trainer.close()
    changed = {k for k, v in elm.state_dict().items() if not torch.equal(v, before[k])}
    assert changed and all(k.startswith("model.layers.1.") for k in changed)
    assert all(torch.equal(v, dense_before[k]) for k, v in dense.state_dict().items())
    assert [h["w_lm"] for h in trainer.history] == [lm_weight(i / 4) for i in range(4)]
    assert find_fixed_point_block(elm).n_iter_grad is None  # inference iterations restored


def test_lm_weight_schedule() -> None:
    assert lm_weight(0.0) == lm_weight(0.49) == 0.0
    assert lm_weight(0.75) == pytest.approx(np.sin(np.pi / 4))
    assert lm_weight(1.0) == 1.0


def test_gppo_converges_to_known_best_arm() -> None:
    policy = GPPOPolicy(5, update_freq=10, update_iters=2, clip_eps=0.5, lr=0.05, seed=0)
    rng = np.random.default_rng(0)
    means = np.array([0.0, 0.2, 1.0, 0.3, 0.1])
    for _ in range(600):
        arm, logp = policy.sample()
        policy.record(arm, float(means[arm] + 0.3 * rng.standard_normal()), logp)
    assert int(policy.probs().argmax()) == 2
    assert float(policy.probs()[2]) > 0.5


def test_ppo_clip_blocks_gradient_outside_trust_region() -> None:
    policy = GPPOPolicy(2, update_freq=2, clip_eps=0.2, lr=0.1)
    # arm 0: ratio 0.5 / exp(-5) > 1 + eps with advantage +1; arm 1: ratio 0.5 / 1 < 1 - eps with advantage -1.
    # Both terms sit on the clipped side of the min, so the objective has zero gradient.
    policy.buffer = [(0, 1.0, -5.0), (1, 0.0, 0.0)]
    policy.update()
    torch.testing.assert_close(policy.logits.detach(), torch.zeros(2, dtype=torch.float64))


def test_linear_replacement_is_least_squares_on_calibration() -> None:
    dense = _dense(n_layers=4)
    calib = _ids((4, 12))
    model = linear_replacement(dense, 1, 2, calib, ridge=0.0)
    hs = group_activations(dense, calib)
    x = hs[1].reshape(-1, 32).numpy()
    y = hs[3].reshape(-1, 32).numpy()
    sol, *_ = np.linalg.lstsq(np.c_[x, np.ones(len(x))], y, rcond=None)
    lin = getattr(*decoder_layers(model))[1]
    np.testing.assert_allclose(lin.weight.detach().numpy(), sol[:-1], atol=1e-6)
    np.testing.assert_allclose(lin.bias.detach().numpy(), sol[-1], atol=1e-6)


def test_block_influence_is_zero_for_an_identity_layer() -> None:
    dense = _dense(n_layers=4)
    layer = getattr(*decoder_layers(dense))[2]
    with torch.no_grad():
        layer.self_attn.o_proj.weight.zero_()
        layer.mlp.down_proj.weight.zero_()
    bi = block_influence(dense, _ids((2, 8)), group_len=1)
    assert float(bi[2]) == pytest.approx(0.0, abs=1e-12)
    assert int(bi.argmin()) == 2


def _rows(elm, dense, gain, dense_loss_ratio=0.6, elm_mse_ratio=0.3):
    """Seeds with ELM accuracy `elm`, every baseline `gain` below it (the first one best)."""
    return [
        {
            "elm_acc": e,
            "dense_acc": d,
            "drop_ft_acc": e - f,
            "single_layer_acc": e - f - 0.05,
            "linear_acc": e - f - 0.1,
            "dense_loss_over_unigram": dense_loss_ratio,
            "elm_group_mse_over_trivial": elm_mse_ratio,
        }
        for e, d, f in zip(elm, dense, gain)
    ]


def _claim(claim_id: str):
    from iclr26.inference.equilibrium_lm.experiment import EXPERIMENT

    return next(c for c in EXPERIMENT.claims if c.id == claim_id)


def test_claim_decider_three_outcomes() -> None:
    decide = elm_claim_decider()
    ok = decide(_rows([0.60, 0.61, 0.59], [0.6, 0.6, 0.6], [0.10, 0.12, 0.09]))
    assert ok.outcome == Outcome.SUPPORTED
    bad = decide(_rows([0.40, 0.41, 0.39], [0.6, 0.6, 0.6], [0.10, 0.12, 0.09]))  # retention 0.67
    assert bad.outcome == Outcome.NOT_SUPPORTED
    below = decide(_rows([0.60, 0.61, 0.59], [0.6, 0.6, 0.6], [-0.02, 0.005, -0.01]))  # excludes +3 points
    assert below.outcome == Outcome.NOT_SUPPORTED
    small = decide(_rows([0.57, 0.58, 0.57], [0.6, 0.6, 0.6], [0.010, 0.012, 0.011]))  # 95% retention, +1 pt
    assert (
        small.outcome == Outcome.INCONCLUSIVE
    )  # significant but below 3 points: the brief says inconclusive
    mid = decide(_rows([0.58, 0.585, 0.58], [0.6, 0.6, 0.6], [0.04, 0.05, 0.06]))  # 96.9% retention
    assert mid.outcome == Outcome.INCONCLUSIVE


def test_claim_decider_interval_reaching_zero_is_not_a_refutation() -> None:
    # the old rule refuted whenever the lower end was <= 0; an interval that still reaches +3 points is open
    wide = elm_claim_decider()(_rows([0.60, 0.61, 0.59], [0.6, 0.6, 0.6], [-0.02, 0.10, 0.04]))
    assert wide.interval[0] <= 0 < 0.03 <= wide.interval[1]
    assert wide.outcome == Outcome.INCONCLUSIVE


def test_claim_reads_the_best_baseline_itself() -> None:
    rows = _rows([0.60, 0.61, 0.59], [0.6, 0.6, 0.6], [0.10, 0.12, 0.09])
    rows = [{**r, "linear_acc": r["elm_acc"]} for r in rows]  # one baseline as good as ELM
    assert elm_claim_decider()(rows).outcome == Outcome.NOT_SUPPORTED


def test_dense_precondition_turns_a_weak_dense_model_into_not_reproduced() -> None:
    claim = _claim("elm-retains-and-beats-baselines")
    weak = claim.judge(_rows([0.010, 0.011, 0.009], [0.0104] * 3, [-0.01, 0.0, 0.01]))  # 1 of 96 problems
    assert weak.outcome == Outcome.NOT_REPRODUCED
    learned = claim.judge(_rows([0.60, 0.61, 0.59], [0.6, 0.6, 0.6], [0.10, 0.12, 0.09]))
    assert learned.outcome == Outcome.SUPPORTED  # a dense model that learned gives a real verdict
    assert claim.judge(_rows([0.40, 0.41, 0.39], [0.6] * 3, [0.1] * 3)).outcome == Outcome.NOT_SUPPORTED


def test_untrained_fixed_point_layer_turns_every_claim_into_not_reproduced() -> None:
    # an ELM whose group output is no closer to the dense one than skipping the group (or its own
    # initialisation) was not trained: no claim about ELM is judged, whatever the accuracies say
    rows = _rows([0.40, 0.41, 0.39], [0.6] * 3, [0.1] * 3, elm_mse_ratio=1.2)
    rows = [
        {**r, "elm_loss": 2.0, "drop_ft_loss": 1.9, "single_layer_loss": 1.95, "linear_loss": 2.2}
        for r in rows
    ]
    rows = [{**r, "elm_cache_ppl_gap": 1e-4} for r in rows]
    for claim in (
        _claim("elm-retains-and-beats-baselines"),
        _claim("elm-loss-beats-baselines"),
        _claim("elm-one-step-cache-lossless"),
    ):
        assert claim.judge(rows).outcome == Outcome.NOT_REPRODUCED


def test_loss_claims_need_a_dense_model_beyond_unigram() -> None:
    def rows(elm: list[float], ratio: float) -> list[dict[str, float]]:
        return [
            {
                "elm_loss": e,
                "drop_ft_loss": 2.0,
                "single_layer_loss": 2.1,
                "linear_loss": 2.5,
                "elm_cache_ppl_gap": 1e-4 * (1 + i),
                "dense_loss_over_unigram": ratio,
                "elm_group_mse_over_trivial": 0.3,
            }
            for i, e in enumerate(elm)
        ]

    for claim_id in ("elm-loss-beats-baselines", "elm-one-step-cache-lossless"):
        claim = _claim(claim_id)
        assert claim.judge(rows([1.90, 1.91, 1.89], 0.98)).outcome == Outcome.NOT_REPRODUCED
        assert claim.judge(rows([1.90, 1.91, 1.89], 0.6)).outcome == Outcome.SUPPORTED


def test_loss_gain_decider_three_outcomes() -> None:
    decide = loss_gain_decider()

    def rows(elm: list[float]) -> list[dict[str, float]]:
        return [
            {"elm_loss": e, "drop_ft_loss": 2.0, "single_layer_loss": 2.1, "linear_loss": 2.5} for e in elm
        ]

    assert decide(rows([1.90, 1.91, 1.89])).outcome == Outcome.SUPPORTED
    assert decide(rows([2.10, 2.11, 2.09])).outcome == Outcome.NOT_SUPPORTED
    assert decide(rows([1.95, 2.05, 2.00])).outcome == Outcome.INCONCLUSIVE
