"""Oracle tests for Cactus (constrained acceptance speculative sampling), arXiv 2604.04987."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy import stats

from iclr26.harness.claims import Outcome
from iclr26.inference.cactus import (
    BaseVerifier,
    CactusVerifier,
    InterpVerifier,
    SpSVerifier,
    TableLM,
    TopKVerifier,
    TypicalVerifier,
    acceptance_probability,
    binary_kl,
    cactus_h,
    enumerate_rule,
    one_step_law,
    one_step_output_distribution,
    speculative_generate,
)
from iclr26.inference.cactus.claim_check import divergence_check, frontier_decider
from iclr26.lab.speculative import SamplingVerifier, speculative_decode
from iclr26.lab.threads import limited_threads

F64 = torch.float64


def _dirichlet(shape: tuple[int, ...], v: int, seed: int, conc: float = 0.5) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch._standard_gamma(torch.full((*shape, v), conc, dtype=F64), generator=g)
    return x / x.sum(-1, keepdim=True)


def _brute_r(p: torch.Tensor, q: torch.Tensor, verifier: BaseVerifier) -> torch.Tensor:
    """Independent enumeration: loop over drafted tokens, rebuild each rule by hand (Cactus / SpS / TAS)."""
    v = q.shape[0]
    r = torch.zeros(v, dtype=F64)
    for n in range(v):
        if isinstance(verifier, CactusVerifier):
            qn = float(q[n])
            hn = min(1.0, qn + (2 * verifier.delta * qn * (1 - qn)) ** 0.5)
            h = q * (1 - hn) / (1 - qn)
            h[n] = hn
        elif isinstance(verifier, SpSVerifier):
            h = q.clone()
        else:  # typical
            ent = float(-(q * q.log()).sum())
            a = float(q[n] > min(verifier.eps, verifier.alpha * np.exp(-ent)))
            r[n] += p[n] * a
            r[int(q.argmax())] += p[n] * (1 - a)
            continue
        a = min(1.0, float(h[n] / p[n]))
        res = (h - p).clamp_min(0)
        res = res / res.sum()
        r[n] += p[n] * a
        r += p[n] * (1 - a) * res
    return r


def test_delta_zero_is_sps_and_lossless() -> None:
    q, p = _dirichlet((20,), 30, 0), _dirichlet((20,), 30, 1)
    n = torch.randint(0, 30, (20,), generator=torch.Generator().manual_seed(2))
    for solver in ("taylor", "exact"):
        assert torch.equal(cactus_h(q, n, 0.0, solver), q)
        r = one_step_output_distribution(p, q, CactusVerifier(0.0, solver))
        assert float((r - q).abs().max()) < 1e-12
    assert float((one_step_output_distribution(p, q, SpSVerifier()) - q).abs().max()) < 1e-12


def test_enumeration_matches_brute_force_oracle() -> None:
    q, p = _dirichlet((3,), 7, 3, 1.0), _dirichlet((3,), 7, 4, 1.0)
    for ver in (CactusVerifier(0.3), SpSVerifier(), TypicalVerifier()):
        fast = one_step_output_distribution(p, q, ver)
        for i in range(3):
            assert torch.allclose(fast[i], _brute_r(p[i], q[i], ver), atol=1e-12)


def test_one_step_law_is_acceptance_and_law_from_one_enumeration() -> None:
    q, p = _dirichlet((4, 3), 9, 10, 1.0), _dirichlet((4, 3), 9, 11, 1.0)
    for ver in (CactusVerifier(0.3), SpSVerifier(), TypicalVerifier(), TopKVerifier(2), InterpVerifier(0.4)):
        acc, law = one_step_law(p, q, ver)
        assert torch.equal(acc, acceptance_probability(p, q, ver))
        assert torch.equal(law, one_step_output_distribution(p, q, ver))
        assert acc.shape == (4, 3) and law.shape == (4, 3, 9)
        # the accepted drafts' mass sits inside the emitted law: r_n >= p_n a(n)
        a, _ = enumerate_rule(p, q, ver)
        assert bool((law >= p * a - 1e-12).all())


def test_h_is_a_distribution_and_acceptance_grows_with_delta() -> None:
    q, p = _dirichlet((50,), 20, 5), _dirichlet((50,), 20, 6)
    n = torch.randint(0, 20, (50,), generator=torch.Generator().manual_seed(7))
    sps = torch.minimum(p, q).sum(-1)
    prev = acceptance_probability(p, q, CactusVerifier(0.0))
    assert torch.allclose(prev, sps, atol=1e-12)
    for delta in (0.01, 0.05, 0.2, 1.0, 3.0):
        for solver in ("taylor", "exact"):
            h = cactus_h(q, n, delta, solver)
            assert bool((h >= 0).all()) and torch.allclose(h.sum(-1), torch.ones(50, dtype=F64), atol=1e-12)
        acc = acceptance_probability(p, q, CactusVerifier(delta))
        assert bool((acc >= sps - 1e-12).all()) and bool((acc >= prev - 1e-12).all())
        prev = acc


def test_exact_solver_hits_the_budget() -> None:
    q = _dirichlet((200,), 10, 8, 1.0)
    n = torch.randint(0, 10, (200,), generator=torch.Generator().manual_seed(9))
    qn = q.gather(-1, n[:, None])[:, 0]
    for delta in (1e-3, 0.05, 0.5, 2.0):
        hn = cactus_h(q, n, delta, "exact").gather(-1, n[:, None])[:, 0]
        kl = binary_kl(hn, qn)
        full = -torch.log(qn) <= delta
        assert bool(torch.all(hn[full] == 1.0))
        assert float((kl[~full] - delta).abs().max()) < 1e-10
        # for this family KL(h || q) over V is the binary KL
        h = cactus_h(q, n, delta, "exact")
        kl_full = (h * (h.clamp_min(1e-300).log() - q.log())).sum(-1)
        assert torch.allclose(kl_full, kl, atol=1e-10)


def test_taylor_error_bound() -> None:
    qn = torch.linspace(0.05, 0.9, 200, dtype=F64)
    q = torch.stack([qn, 1 - qn], -1)
    n = torch.zeros(200, dtype=torch.long)
    for delta in (1e-4, 1e-3, 0.01):
        hn = cactus_h(q, n, delta, "taylor")[:, 0]
        assert float((binary_kl(hn, qn) - delta).abs().max()) <= 2.5 * delta**1.5


def test_edge_cases_q_zero_and_one_and_p_equals_q() -> None:
    q = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.0, 0.5]], dtype=F64)
    for solver in ("taylor", "exact"):
        h = cactus_h(q, torch.tensor([0, 1]), 1.0, solver)
        assert not bool(torch.isnan(h).any()) and torch.equal(h, q)
    p = _dirichlet((10,), 12, 10)
    for ver in (CactusVerifier(0.5), SpSVerifier(), InterpVerifier(0.4)):
        assert torch.allclose(acceptance_probability(p, p, ver), torch.ones(10, dtype=F64), atol=1e-12)


def test_readme_example_numbers() -> None:
    # README example: q_n = 0.35 raised to 0.66 with SpS acceptance 0.44 -> 0.82 at ~0.2 nats
    q = torch.tensor([[0.35, 0.65]], dtype=F64)
    hn = float(cactus_h(q, torch.tensor([0]), 0.21)[0, 0])
    assert abs(hn - 0.66) < 0.01
    assert abs(float(binary_kl(torch.tensor(hn), torch.tensor(0.35))) - 0.198) < 0.01


def test_verify_samples_the_enumerated_law() -> None:
    q, p = _dirichlet((1, 1), 6, 11, 1.0), _dirichlet((1, 1), 6, 12, 1.0)
    ver = CactusVerifier(0.2)
    b = 40000
    gen = torch.Generator().manual_seed(0)
    ids = torch.multinomial(p[0, 0], b, replacement=True, generator=gen)[None]
    acc, res = ver.verify(q.expand(1, b, 6), p.expand(1, b, 6), ids, gen)
    out = torch.where(acc, ids, res)[0]
    counts = torch.bincount(out, minlength=6).double().numpy()
    r = one_step_output_distribution(p[0, 0], q[0, 0], ver).numpy()
    assert stats.chisquare(counts, r * b).pvalue > 0.01
    assert abs(acc.double().mean().item() - float(acceptance_probability(p[0, 0], q[0, 0], ver))) < 0.01


def _tables(v: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    return _dirichlet((v,), v, 20, 1.0), _dirichlet((v,), v, 21, 1.0)


def _first_token_counts(target, drafter, ver, n: int) -> np.ndarray:
    counts = np.zeros(8)
    prompt = torch.tensor([[0]])
    # spread-out seeds: consecutive small seeds give visibly correlated first draws of torch's generator
    for s in np.random.default_rng(0).integers(1, 2**62, size=n).tolist():
        if isinstance(ver, BaseVerifier):
            ids, _ = speculative_generate(target, drafter, prompt, ver, gamma=2, max_new_tokens=2, seed=s)
        else:
            from iclr26.inference.cactus.generate import target_sample

            ids, _ = speculative_decode(
                target, drafter, prompt, ver, gamma=2, max_new_tokens=2, seed=s, draft_sampler=target_sample()
            )
        counts[int(ids[0, 1])] += 1
    return counts


@pytest.mark.parametrize("ver", [CactusVerifier(0.5), SpSVerifier(), "lab"])
def test_generate_loop_matches_enumerated_law(ver) -> None:
    t, d = _tables()
    target, drafter = TableLM(t), TableLM(d)
    law_ver = SpSVerifier() if ver == "lab" else ver
    loop_ver = SamplingVerifier() if ver == "lab" else ver
    n = 1200
    with limited_threads(1):
        counts = _first_token_counts(target, drafter, loop_ver, n)
    r = one_step_output_distribution(d[0], t[0], law_ver).numpy()
    assert stats.chisquare(counts, r * n).pvalue > 0.01


def test_temperature_and_stats() -> None:
    t, d = _tables()
    ids, st = speculative_generate(
        TableLM(t),
        TableLM(d),
        torch.tensor([[1, 2]]),
        CactusVerifier(1.0),
        gamma=3,
        temperature=0.7,
        max_new_tokens=12,
        seed=3,
    )
    assert ids.shape == (1, 14) and st.emitted == 12 and st.acceptance_length >= 1.0


def test_sabotage_wrong_residual_breaks_losslessness() -> None:
    class BrokenSpS(SpSVerifier):
        def rule(self, q, p, n):  # residual drawn from q instead of (q - p)_+
            acc, _ = super().rule(q, p, n)
            return acc, q

    q, p = _dirichlet((5,), 10, 30), _dirichlet((5,), 10, 31)
    assert float((one_step_output_distribution(p, q, BrokenSpS()) - q).abs().max()) > 1e-3


def _frontier_rows(diffs, gains, drop=0.0):
    return [
        {
            "b2_tasloose_kl": 0.075,
            "b2_cactus_kl": 0.075 + d,
            "tau_sps": 2.3,
            "tau_cactus": 2.3 + g,
            "acc_sps": 0.2,
            "acc_cactus": 0.2 - drop,
            "b2_acc_ratio": 1.0,
            "target_nll_over_unigram": 0.4,
        }
        for d, g in zip(diffs, gains)
    ]


def test_frontier_decider_outcomes() -> None:
    good = _frontier_rows([-0.05, -0.04, -0.03], [0.3, 0.32, 0.34])
    assert frontier_decider(good).outcome is Outcome.SUPPORTED
    worse = _frontier_rows([0.02, 0.03, 0.04], [0.3, 0.32, 0.34])
    assert frontier_decider(worse).outcome is Outcome.NOT_SUPPORTED  # interval above 0: refuted
    # (b) undecided: the interval contains 0 (the old rule called this a failure, i.e. "not supported")
    mixed = _frontier_rows([-0.05, 0.01, -0.03], [0.3, 0.32, 0.34])
    assert frontier_decider(mixed).outcome is Outcome.INCONCLUSIVE
    weak_c = _frontier_rows([-0.05, -0.04, -0.03], [0.3, 0.32, 0.34], drop=0.2)
    assert frontier_decider(weak_c).outcome is Outcome.INCONCLUSIVE
    no_gain = _frontier_rows([-0.05, -0.04, -0.03], [0.0, 0.0, 0.0])
    assert frontier_decider(no_gain).outcome is Outcome.INCONCLUSIVE


def test_frontier_claim_preconditions() -> None:
    from iclr26.inference.cactus.experiment import EXPERIMENT

    claim = next(c for c in EXPERIMENT.claims if c.id == "cactus-frontier-beats-tas")
    good = _frontier_rows([-0.021, -0.022, -0.020], [0.9, 0.8, 1.0])
    assert claim.judge(good).outcome is Outcome.SUPPORTED  # acceptance matched, target learned
    unmatched = [{**r, "b2_acc_ratio": 0.95} for r in good]
    assert claim.judge(unmatched).outcome is Outcome.NOT_REPRODUCED
    untrained = [{**r, "target_nll_over_unigram": 1.0} for r in good]
    assert claim.judge(untrained).outcome is Outcome.NOT_REPRODUCED
    check = next(c for c in EXPERIMENT.claims if c.id == "cactus-controlled-divergence")
    assert check.kind == "check"


def test_divergence_check() -> None:
    good = [{"a_exact_kl_excess": -1e-12, "a_klr_monotone": 1.0, "a_klr_small_delta": 2e-3}] * 3
    assert divergence_check()(good).outcome is Outcome.SUPPORTED
    for key, value in (("a_exact_kl_excess", 1e-6), ("a_klr_monotone", 0.0), ("a_klr_small_delta", 0.02)):
        bad = [good[0], good[1], {**good[2], key: value}]
        assert divergence_check()(bad).outcome is Outcome.NOT_SUPPORTED, key


def test_topk_official_rule_accepts_ties_at_the_kth_value() -> None:
    q = torch.tensor([0.3, 0.2, 0.2, 0.2, 0.1], dtype=torch.float64)
    p = torch.full((5,), 0.2, dtype=torch.float64)
    acc, res = enumerate_rule(p, q, TopKVerifier(2))
    assert acc.tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]  # every token at the 2nd largest value 0.2
    strict, _ = enumerate_rule(p, q, TopKVerifier(2, exact_k=True))
    assert strict.sum() == 2 and strict[0] == 1 and strict[4] == 0
    # residual (1[q >= 0.2] - p)_+ over the tied set
    torch.testing.assert_close(res[4], torch.tensor([0.25, 0.25, 0.25, 0.25, 0.0], dtype=torch.float64))


def test_topk_official_rule_with_fewer_than_k_nonzero_accepts_anything() -> None:
    q = torch.tensor([0.7, 0.3, 0.0, 0.0], dtype=torch.float64)
    p = torch.tensor([0.1, 0.1, 0.4, 0.4], dtype=torch.float64)
    acc, _ = enumerate_rule(p, q, TopKVerifier(3))
    assert acc.tolist() == [1.0, 1.0, 1.0, 1.0]  # the 3rd largest value is 0: even q_n = 0 is accepted
    r = one_step_output_distribution(p, q, TopKVerifier(3))
    torch.testing.assert_close(r, p)  # everything accepted: the draft's law comes out
    strict, _ = enumerate_rule(p, q, TopKVerifier(3, exact_k=True))
    assert strict.sum() == 3 and strict[0] == 1 and strict[1] == 1
    with pytest.raises(TypeError, match="exact_k"):
        TopKVerifier(2, exact_k=1)  # type: ignore[arg-type]


def test_topk_rules_agree_without_ties() -> None:
    q, p = _dirichlet((50,), 12, 40), _dirichlet((50,), 12, 41)
    for k in (1, 3, 5):
        a = one_step_output_distribution(p, q, TopKVerifier(k))
        b = one_step_output_distribution(p, q, TopKVerifier(k, exact_k=True))
        torch.testing.assert_close(a, b, atol=0, rtol=0)


# --- devices -----------------------------------------------------------------------------------------------------


def test_loop_verifier_is_what_speculative_generate_runs() -> None:
    from iclr26.inference.cactus import LoopVerifier, target_sample

    t, d = _tables()
    prompt = torch.tensor([[1, 2]])
    a, _ = speculative_generate(
        TableLM(t), TableLM(d), prompt, CactusVerifier(1.0), gamma=3, max_new_tokens=10
    )
    loop = LoopVerifier(CactusVerifier(1.0))
    b, _ = speculative_decode(
        TableLM(t), TableLM(d), prompt, loop, gamma=3, max_new_tokens=10, draft_sampler=target_sample(1.0)
    )
    assert torch.equal(a, b)
    with pytest.raises(TypeError, match="^verifier must be"):
        LoopVerifier(SamplingVerifier())
    with pytest.raises(ValueError, match="^temperature must be"):
        LoopVerifier(SpSVerifier(), temperature=0.0)


def test_registered_cactus_verifiers_are_loop_verifiers_of_the_decoded_roster() -> None:
    from iclr26.inference.cactus import LoopVerifier
    from iclr26.inference.cactus.components import DECODED, VERIFIERS
    from iclr26.lab.registry import components

    registered = {c.name: c for c in components("verifier", paper="cactus")}
    assert set(registered) == set(VERIFIERS) and set(DECODED) <= set(registered)
    assert [n for n, c in registered.items() if c.option("lossless")] == ["sps"]
    for name, c in registered.items():
        case = c.case()
        assert isinstance(case, LoopVerifier) and type(case.verifier) is VERIFIERS[name] is c.cls
    assert registered["cactus"].case(delta=0.5).verifier.delta == 0.5
