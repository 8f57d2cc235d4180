"""Oracle tests of the ICL causal-structure reproduction (OpenReview bpF8zgSt41)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.mechanisms.icl_causal_structure import (
    DisentangledRPETransformer,
    StandardRPETransformer,
    TrainConfig,
    bma_claim_decider,
    bma_direct,
    bma_predict,
    column_softmax_error,
    construct_bma_transformer,
    log_loss,
    map_parent_predict,
    oracle_predict,
    parent_selection_loss,
    previous_parent_predict,
    row_softmax_error,
    sample_contexts,
    sample_task,
    softmax_columns,
    train,
    uniform_parent_predict,
    unigram_predict,
)
from iclr26.mechanisms.icl_causal_structure.experiment import EXPERIMENT, late_drop


@pytest.fixture(scope="module")
def pi5() -> torch.Tensor:
    return sample_task(5, alpha=1.0, eps=0.1, seed=3)


def test_task_and_contexts_follow_the_generative_process(pi5: torch.Tensor) -> None:
    assert torch.allclose(pi5.sum(1), torch.ones(5, dtype=torch.float64))
    assert float(pi5.min()) >= 0.1 / 5 - 1e-12
    tokens, parents = sample_contexts(pi5, 4000, 1, 4, seed=0)
    assert tokens.shape == (4000, 2, 4) and parents.shape == (4000, 4)
    assert (parents[:, 0] == -1).all()
    for h in range(1, 4):
        counts = torch.bincount(parents[:, h], minlength=h)
        assert counts.numel() == h and (counts.double() / 4000 - 1 / h).abs().max() < 0.04
    # empirical transition frequencies from parent to child match pi
    pa = parents[:, 1:]
    child = tokens[:, 0, 1:]
    par = tokens[:, 0].gather(1, pa)
    joint = torch.zeros(5, 5, dtype=torch.float64)
    joint.index_put_(
        (par.reshape(-1), child.reshape(-1)), torch.ones(child.numel(), dtype=torch.float64), True
    )
    emp = joint / joint.sum(1, keepdim=True)
    assert (emp - pi5).abs().max() < 0.06
    again, _ = sample_contexts(pi5, 4000, 1, 4, seed=0)
    assert torch.equal(tokens, again)


def test_posterior_concentrates_on_true_parent_with_many_examples(pi5: torch.Tensor) -> None:
    tokens, parents = sample_contexts(pi5, 20, 500, 10, seed=1)
    w, _ = bma_predict(tokens, pi5)
    on_parent = w[:, 1:].gather(-1, parents[:, 1:, None])
    assert float(on_parent.mean()) > 0.99


def test_single_candidate_parent_bma_equals_oracle(pi5: torch.Tensor) -> None:
    tokens, parents = sample_contexts(pi5, 50, 3, 2, seed=2)
    _, pred = bma_predict(tokens, pi5)
    assert torch.allclose(pred, oracle_predict(tokens, parents, pi5), atol=1e-15)


def test_predictive_sums_to_one_and_posterior_is_supported_on_earlier_positions(pi5: torch.Tensor) -> None:
    tokens, _ = sample_contexts(pi5, 30, 4, 7, seed=3)
    w, pred = bma_predict(tokens, pi5)
    assert torch.allclose(pred.sum(-1), torch.ones(30, 7, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(w[:, 1:].sum(-1), torch.ones(30, 6, dtype=torch.float64), atol=1e-12)
    assert (w[:, 0] == 0).all() and (w.triu() == 0).all()


def test_log_space_equals_direct_products(pi5: torch.Tensor) -> None:
    tokens, _ = sample_contexts(pi5, 6, 5, 6, seed=4)
    w, pred = bma_predict(tokens, pi5)
    w2, pred2 = bma_direct(tokens, pi5)
    assert (w - w2).abs().max() < 1e-10 and (pred - pred2).abs().max() < 1e-10
    # numpy in -> numpy out, unbatched 2-D context, and L = 0 gives the uniform prior
    wn, pn = bma_predict(tokens[0].numpy(), pi5.numpy())
    assert isinstance(wn, np.ndarray) and np.allclose(wn, w[0].numpy()) and np.allclose(pn, pred[0].numpy())
    w0, p0 = bma_predict(tokens[:, -1:], pi5)
    assert torch.allclose(p0, uniform_parent_predict(tokens[:, -1:], pi5))


def test_bma_has_lowest_log_loss_among_non_oracle_predictors(pi5: torch.Tensor) -> None:
    tokens, parents = sample_contexts(pi5, 10_000, 3, 6, seed=5)
    target = tokens[:, -1, 1:]
    _, p_bma = bma_predict(tokens, pi5)
    ll_bma = log_loss(p_bma[:, 1:], target).mean(1)
    for fn in (map_parent_predict, uniform_parent_predict, previous_parent_predict, unigram_predict):
        diff = log_loss(fn(tokens, pi5)[:, 1:], target).mean(1) - ll_bma
        z = float(diff.mean() / (diff.std() / np.sqrt(diff.numel())))
        assert float(diff.mean()) > 0 and z > 3, fn.__name__
    ll_oracle = log_loss(oracle_predict(tokens, parents, pi5)[:, 1:], target).mean()
    assert float(ll_oracle) < float(ll_bma.mean())


def test_column_shift_invariance_and_construction_matches_posterior(pi5: torch.Tensor) -> None:
    logpi = torch.log(pi5)
    a = torch.randn(5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    shifted = logpi + torch.ones(5, 1, dtype=torch.float64) * a[None, :]
    assert torch.allclose(softmax_columns(shifted), softmax_columns(logpi), atol=1e-14)
    assert column_softmax_error(shifted, pi5) < 1e-12 and row_softmax_error(shifted, pi5) > 1e-3
    L, H = 4, 6
    tokens, parents = sample_contexts(pi5, 32, L, H, seed=6)
    w, pred = bma_predict(tokens, pi5)
    model = construct_bma_transformer(pi5, L, H)
    attn = model.layer2_attention(tokens)
    assert (attn[:, 1:] - w[:, 1:]).abs().max() < 1e-3
    assert torch.allclose(model(tokens)[:, -1, 1:].exp(), pred[:, 1:], atol=1e-3)
    assert abs(float(parent_selection_loss(attn, parents) - parent_selection_loss(w, parents))) < 1e-3
    # adding a column shift to every diagonal head block leaves the layer-2 attention unchanged
    d = 5
    with torch.no_grad():
        for k in range(L):
            model.W_KQ[d * (k + 1) : d * (k + 2), d * (k + 1) : d * (k + 2)] += a[None, :]
    assert (model.layer2_attention(tokens) - attn).abs().max() < 1e-10
    assert column_softmax_error(model.w_tf(), pi5) < 1e-12


def test_sabotage_wrong_kernel_or_transposed_w_violates_the_oracles(pi5: torch.Tensor) -> None:
    L, H = 4, 6
    tokens, _ = sample_contexts(pi5, 32, L, H, seed=7)
    w, _ = bma_predict(tokens, pi5)
    broken = construct_bma_transformer(pi5.T.contiguous() / pi5.T.sum(1, keepdim=True), L, H)
    assert (broken.layer2_attention(tokens)[:, 1:] - w[:, 1:]).abs().max() > 1e-2
    assert column_softmax_error(torch.log(pi5).T, pi5) > 0.05


def test_models_shapes_hooks_and_no_leak_of_the_target(pi5: torch.Tensor) -> None:
    L, H = 2, 4
    tokens, _ = sample_contexts(pi5, 3, L, H, seed=8)
    model = DisentangledRPETransformer(5, L, H, init_seed=0)
    out = model(tokens)
    assert out.shape == (3, L + 1, H, 5)
    _, cache = model.run_with_cache(tokens, ["hook_l1_pattern", "hook_l2_pattern"])
    assert cache["hook_l1_pattern"].shape == (L, 12, 12) and cache["hook_l2_pattern"].shape == (
        3,
        L + 1,
        H,
        H,
    )
    assert model.layer2_blocks().shape == (L, 5, 5)
    # the prediction at the query's position h must not depend on the query token x^L_h itself
    changed = tokens.clone()
    changed[:, -1, 2] = (changed[:, -1, 2] + 1) % 5
    assert torch.allclose(model(changed)[:, -1, :3], out[:, -1, :3])
    std = StandardRPETransformer(5, L, H, d_model=16, n_heads=2)
    so = std(tokens)
    assert so.shape == (3, L + 1, H, 5) and std.attention(tokens, 1).shape == (3, 2, 12, 12)
    assert torch.allclose(std(changed)[:, -1, :3], so[:, -1, :3], atol=1e-6)


def test_query_row_path_equals_the_full_pass(pi5: torch.Tensor) -> None:
    L, H = 3, 5
    tokens, _ = sample_contexts(pi5, 6, L, H, seed=9)
    for readout in ("logit", "mixture"):
        model = DisentangledRPETransformer(
            5, L, H, readout=readout, init_seed=2, rpe_init=1.0, init_scale=0.5
        )
        full = model(tokens)
        assert torch.allclose(model.query_logits(tokens), full[:, -1], atol=1e-6)
        _, cache = model.run_with_cache(tokens, ["hook_l2_pattern"])
        assert torch.allclose(model.layer2_attention(tokens), cache["hook_l2_pattern"][:, -1], atol=1e-6)


def test_cosine_schedule_warms_up_and_decays_to_zero() -> None:
    cfg = TrainConfig(steps=100, schedule="cosine", warmup=10)
    assert cfg.lr_factor(0) == pytest.approx(0.1, abs=1e-3)
    assert cfg.lr_factor(9) == pytest.approx(0.5 * (1 + np.cos(np.pi * 0.09)))  # warmed up, decay under way
    assert cfg.lr_factor(50) == pytest.approx(0.5, abs=1e-9)
    assert cfg.lr_factor(100) == pytest.approx(0.0, abs=1e-12)
    assert TrainConfig(steps=100).lr_factor(70) == 1.0
    with pytest.raises(ValueError, match="schedule"):
        TrainConfig(schedule="linear")


def test_training_lowers_the_loss_and_is_deterministic(pi5: torch.Tensor) -> None:
    def fit() -> dict:
        model = DisentangledRPETransformer(5, 2, 4, init_seed=1, rpe_init=0.1)
        with limited_threads(1):
            return train(model, pi5, TrainConfig(steps=30, batch=16, log_every=10), 0, 2, 4)

    log = fit()
    assert log["loss"][-1] < log["loss"][0]
    assert log == fit()


def _rows(ratio, col, row, gap, base=0.1, **extra):
    return [
        {"kl_tf": r * base, "kl_best_baseline": base, "col_err": c, "row_err": w, "lpa_gap": g, **extra}
        for r, c, w, g in zip(ratio, col, row, gap)
    ]


def test_claim_decider_supported_not_supported_inconclusive() -> None:
    decide = bma_claim_decider()
    good = _rows([0.1, 0.15, 0.2], [0.02, 0.03, 0.025], [0.3, 0.35, 0.3], [0.02, 0.03, 0.025])
    assert decide(good).outcome is Outcome.SUPPORTED
    bad = _rows([0.5, 0.6, 0.45], [0.02, 0.03, 0.025], [0.3, 0.35, 0.3], [0.02, 0.03, 0.025])
    assert decide(bad).outcome is Outcome.NOT_SUPPORTED
    misaligned = _rows([0.1, 0.15, 0.2], [0.25, 0.3, 0.22], [0.3, 0.35, 0.3], [0.02, 0.03, 0.025])
    assert decide(misaligned).outcome is Outcome.NOT_SUPPORTED
    mixed = _rows([0.1, 0.5, 0.2], [0.02, 0.03, 0.025], [0.3, 0.35, 0.3], [0.02, 0.03, 0.025])
    assert decide(mixed).outcome is Outcome.INCONCLUSIVE
    gap = _rows([0.1, 0.15, 0.2], [0.02, 0.03, 0.025], [0.3, 0.35, 0.3], [0.2, 0.3, 0.25])
    assert decide(gap).outcome is Outcome.INCONCLUSIVE
    assert decide(good[:1]).outcome is Outcome.INCONCLUSIVE
    # sabotage: the transformer is the best structure-blind baseline (ratio 1) -> not supported
    same = [{**r, "kl_tf": r["kl_best_baseline"]} for r in good]
    assert decide(same).outcome is Outcome.NOT_SUPPORTED
    # the row-wise reading of W_tf fits as well as the column-wise one -> not supported either way
    flat = [{**r, "col_err": r["row_err"]} for r in good]
    assert decide(flat).outcome is not Outcome.SUPPORTED


def test_late_drop_measures_the_fall_over_the_last_30_percent() -> None:
    steps = [1.0, 51.0, 101.0, 151.0, 200.0]
    assert late_drop(steps, [2.0, 1.5, 1.2, 1.0, 0.9], 200) == pytest.approx(
        1.2 - 0.9
    )  # from step 101 <= 140
    assert late_drop(steps, [1.0] * 5, 200) == 0.0
    assert late_drop([1.0, 60.0], [1.0, 0.5], 60) == pytest.approx(0.5)  # only the first log lies before 70%


def test_claim_is_not_reproduced_while_the_model_is_still_learning() -> None:
    claim = EXPERIMENT.claims[0]
    converged = {"lpa_tf_late_drop": 0.02, "logloss_gain_over_uniform": 0.2, "lpa_gain_over_uniform": 0.5}
    # the earlier quick run's per-seed numbers (KL ratio, col / row error, L_pa gap): not supported by the rule
    quick = [
        {**r, **converged}
        for r in _rows(
            [0.398, 0.845, 0.861], [0.421, 0.285, 0.140], [0.770, 0.361, 0.196], [0.371, 0.609, 0.759]
        )
    ]
    assert claim.judge(quick).outcome is Outcome.NOT_SUPPORTED  # a converged model with these numbers
    still_falling = [{**quick[0], "lpa_tf_late_drop": 0.25}, *quick[1:]]
    assert claim.judge(still_falling).outcome is Outcome.NOT_REPRODUCED
    no_better_than_uniform = [{**quick[0], "logloss_gain_over_uniform": -0.01}, *quick[1:]]
    assert claim.judge(no_better_than_uniform).outcome is Outcome.NOT_REPRODUCED
    # attention no closer to the true parents than the uniform prior: it never learned to select parents
    no_parent_selection = [{**quick[0], "lpa_gain_over_uniform": -0.01}, *quick[1:]]
    assert claim.judge(no_parent_selection).outcome is Outcome.NOT_REPRODUCED
    good = [
        {**r, **converged}
        for r in _rows([0.1, 0.15, 0.2], [0.02, 0.03, 0.025], [0.3, 0.35, 0.3], [0.02, 0.03, 0.025])
    ]
    assert claim.judge(good).outcome is Outcome.SUPPORTED
