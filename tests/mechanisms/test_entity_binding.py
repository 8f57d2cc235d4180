"""Oracle tests of the entity-binding reproduction (arXiv 2510.06182)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.mechanisms.entity_binding import (
    GPTConfig,
    MixCausalModel,
    agreement,
    build_gpt,
    candidate_distribution,
    interchange,
    js_divergence,
    make_counterfactual,
    make_prompts,
)
from iclr26.mechanisms.entity_binding.binding import _render
from iclr26.mechanisms.entity_binding.claim_check import binding_decider
from iclr26.mechanisms.entity_binding.experiment import EXPERIMENT, middle_positions


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


def _tiny_model(n_max: int = 6):
    return build_gpt(GPTConfig(d_model=16, n_layers=2, n_heads=2, n_max=n_max, filler_max=2), seed=0)


@pytest.mark.parametrize("template", [0, 1, 2])
def test_prompt_structure(template):
    p = make_prompts(5, 3, template, seed=4, filler=2)[0]
    assert p.answer == p.a_entities[2]
    assert [p.tokens[i] for i in p.answer_positions] == list(p.a_entities)
    assert p.b_entities[2] in p.tokens[-4:]
    assert len(set(p.a_entities)) == 5 and len(set(p.b_entities)) == 5
    assert make_prompts(5, 3, template, seed=4, filler=2) == make_prompts(5, 3, template, seed=4, filler=2)


@pytest.mark.parametrize("n", [3, 4, 7, 12])
def test_counterfactual_targets_distinct_and_correct(n):
    for s in range(30):
        o = make_prompts(n, 1 + s % n, s % 3, seed=s, filler=s % 3)[0]
        cf = make_counterfactual(o, seed=s)
        p, k, i = cf.targets
        assert len({p, k, i}) == 3
        c = cf.prompt
        assert len(c.tokens) == len(o.tokens) and c.template == o.template
        # positional: c's query index; lexical: o's group bound to c's query entity; reflexive: c's answer in o
        assert c.q == p
        assert o.b_entities[k] == c.b_entities[c.q]
        assert o.a_entities[i] == c.answer
        # c's answer is not the A entity bound to its query entity in o (the swap separates lexical/reflexive)
        assert c.answer != o.a_entities[k]


def test_counterfactual_query_fixes_positional_target():
    o = make_prompts(6, 2, 0, seed=1)[0]
    assert all(make_counterfactual(o, seed=s, query=4).positional == 3 for s in range(5))


def test_patch_with_itself_is_identity():
    model = _tiny_model()
    os_ = make_prompts(5, 2, 1, seed=3, count=4)
    clean = candidate_distribution(model, os_)
    for layer in range(model.n_layers):
        assert torch.allclose(interchange(model, os_, os_, layer), clean, atol=1e-12)


def test_patch_changes_output():
    model = _tiny_model()
    o = make_prompts(5, 2, 0, seed=3, count=3)
    c = [make_counterfactual(p, seed=i).prompt for i, p in enumerate(o)]
    patched = interchange(model, o, c, 1)
    assert patched.shape == (3, 5)
    assert torch.allclose(patched.sum(1), torch.ones(3, dtype=torch.float64))
    assert not torch.allclose(patched, candidate_distribution(model, o))


def _simulate(n: int):
    torch.manual_seed(0)
    true = MixCausalModel(n)
    with torch.no_grad():
        true.w_pos.fill_(3.0)
        true.sigma_coef.copy_(torch.tensor([0.6, 1.2, -0.8], dtype=torch.float64))
        true.g_lex.copy_(torch.linspace(1.5, 2.5, n, dtype=torch.float64))
        true.g_ref.copy_(torch.linspace(3.0, 2.0, n, dtype=torch.float64))
    grid = np.array([(p, k, i) for p in range(n) for k in range(n) for i in range(n) if len({p, k, i}) == 3])
    with torch.no_grad():
        dists = true.predict(grid)
    return true, grid, dists


def test_fit_recovers_simulated_parameters():
    true, grid, dists = _simulate(5)
    fitted = MixCausalModel(5)
    fitted.fit(dists, grid, steps=800, lr=0.05)
    assert float(fitted.agreement(dists, grid).mean()) > 0.99
    for name in ("w_pos", "g_lex", "g_ref"):
        t, f = getattr(true, name).detach(), getattr(fitted, name).detach()
        assert torch.all((f - t).abs() / t.abs() < 0.05), name


def test_positional_only_cannot_fit_mixture():
    _, grid, dists = _simulate(5)
    pos = MixCausalModel(5, ("positional",))
    pos.fit(dists, grid, steps=300, polish=False)
    assert float(pos.agreement(dists, grid).mean()) < 0.95


def test_agreement_limits():
    p = torch.softmax(torch.randn(4, 6, dtype=torch.float64), -1)
    assert torch.allclose(agreement(p, p), torch.ones(4, dtype=torch.float64))
    a = torch.tensor([[0.5, 0.5, 0.0, 0.0]], dtype=torch.float64)
    b = torch.tensor([[0.0, 0.0, 0.3, 0.7]], dtype=torch.float64)
    assert torch.allclose(agreement(a, b), torch.zeros(1, dtype=torch.float64))


def test_js_matches_scipy():
    from scipy.spatial.distance import jensenshannon

    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
    assert abs(float(js_divergence(p, q)) - jensenshannon(p, q, base=2) ** 2) < 1e-10


def test_model_structure():
    cm = MixCausalModel(4)
    pred = cm.predict(np.array([[0, 1, 2], [3, 2, 1]]))
    assert pred.shape == (2, 4) and torch.allclose(pred.sum(1), torch.ones(2, dtype=torch.float64))
    lex = MixCausalModel(4, ("lexical",))
    with torch.no_grad():
        lex.g_lex.fill_(50.0)
    assert lex.predict(np.array([[0, 2, 1]]))[0, 2] > 0.999


def test_middle_positions():
    assert middle_positions(12) == [4, 5, 6, 7]
    assert middle_positions(9) == [3, 4, 5]
    assert middle_positions(3) == [1]


def test_render_fillers_preserved_by_counterfactual():
    o = _render([30, 31, 32, 33], [230, 231, 232, 233], 1, 0, [0, 2, 2])
    c = make_counterfactual(o, seed=2).prompt
    assert [t for t in c.tokens if 8 <= t < 24] != [] and len(c.tokens) == len(o.tokens)


def _row(**kw):
    base = dict(
        acc_gate=0.95,
        agree_full=0.93,
        agree_pos=0.85,
        adv_full_pos_lo=0.03,
        pos_mass_gap_lo=0.02,
        sigma_gap=0.4,
    )
    base.update(kw)
    return base


def test_decider_supported_not_supported_inconclusive():
    decide = binding_decider()
    assert decide([_row(), _row(agree_pos=0.86)]).outcome is Outcome.SUPPORTED
    assert decide([_row(agree_pos=0.92), _row(agree_pos=0.93)]).outcome is Outcome.NOT_SUPPORTED
    assert decide([_row(pos_mass_gap_lo=-0.01), _row()]).outcome is Outcome.INCONCLUSIVE
    assert decide([_row(agree_full=float("nan")), _row()]).outcome is Outcome.INCONCLUSIVE
    assert decide([_row()]).outcome is Outcome.INCONCLUSIVE  # one seed
    # sabotage: the full model is the positional-only model -> no mixing
    assert decide([_row(agree_full=0.85), _row(agree_full=0.85)]).outcome is Outcome.NOT_SUPPORTED


def test_claim_is_not_reproduced_unless_binding_was_learned():
    claim = EXPERIMENT.claims[0]
    # the earlier quick run: clean accuracy at n = 12 of 0.054-0.071 (chance 0.083), no advantage over pos-only
    quick = [
        _row(acc_gate=a, agree_full=f, agree_pos=p)
        for a, f, p in ((0.054, 0.831, 0.833), (0.071, 0.841, 0.842), (0.060, 0.824, 0.827))
    ]
    assert binding_decider()(quick).outcome is Outcome.NOT_SUPPORTED  # what the rule alone would say
    assert claim.judge(quick).outcome is Outcome.NOT_REPRODUCED
    # binding learned: the precondition passes and the rule decides
    assert claim.judge([_row(), _row(agree_pos=0.86)]).outcome is Outcome.SUPPORTED
    learned_no_mix = [_row(agree_pos=0.92), _row(agree_pos=0.93)]
    assert claim.judge(learned_no_mix).outcome is Outcome.NOT_SUPPORTED


def test_sabotage_swapped_targets_break_the_oracle():
    """A broken counterfactual (lexical and reflexive swapped) fails the target check the generator passes."""
    o = make_prompts(6, 2, 0, seed=0)[0]
    cf = make_counterfactual(o, seed=1)
    assert o.a_entities[cf.reflexive] == cf.prompt.answer
    assert o.a_entities[cf.lexical] != cf.prompt.answer  # the swapped assignment would fail this oracle
