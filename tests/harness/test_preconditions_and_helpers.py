"""The harness v2 decision pieces: preconditions, shared guards, the new helpers, synthetic wins and sabotage."""

import math

import pytest

from iclr26.harness.claims import (
    Claim,
    Comparison,
    Outcome,
    Precondition,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    effect_at_least,
    equivalent,
    fraction_of_seeds,
    guarded,
    mean_at_least,
    never_exceeds,
    non_inferior,
    ratio_at_least,
)


def rows(**cols):
    n = len(next(iter(cols.values())))
    return [{k: float(v[i]) for k, v in cols.items()} for i in range(n)]


LEARNED = Precondition("acc_method", ">=", 0.35, "beats chance (1/4) by 10 points")
CLAIM = Claim(
    "beats-base",
    "method beats baseline",
    "+5 points",
    difference_at_least("acc_method", "acc_base", margin=0.0),
    preconditions=(LEARNED,),
)


def test_precondition_failure_is_not_reproduced_with_the_measured_values():
    v = CLAIM.judge(rows(acc_method=[0.26, 0.40, 0.41], acc_base=[0.25, 0.25, 0.25]))
    assert v.outcome is Outcome.NOT_REPRODUCED
    assert "failed in 1/3 seeds (measured 0.26)" in v.explanation and "unguarded:" in v.explanation
    assert Outcome.NOT_REPRODUCED.label == "not reproduced at this budget"


def test_precondition_passes_when_the_model_learned_and_the_claim_is_judged():
    assert (
        CLAIM.judge(rows(acc_method=[0.8, 0.82, 0.81], acc_base=[0.5, 0.52, 0.49])).outcome
        is Outcome.SUPPORTED
    )
    v = CLAIM.judge(rows(acc_method=[0.5, 0.52, 0.49], acc_base=[0.8, 0.82, 0.81]))
    assert v.outcome is Outcome.NOT_SUPPORTED  # a learned model that loses is a real negative result


def test_missing_or_nan_precondition_metric_fails_it():
    assert LEARNED.failures([{"acc_method": math.nan}, {}]) == [
        (0, pytest.approx(math.nan, nan_ok=True)),
        (1, pytest.approx(math.nan, nan_ok=True)),
    ]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"op": "=="}, "op"),
        ({"threshold": math.inf}, "finite"),
        ({"reason": ""}, "reason"),
    ],
)
def test_precondition_rejects_bad_arguments(kwargs, match):
    args = {"metric": "m", "op": ">=", "threshold": 0.5, "reason": "r"} | kwargs
    with pytest.raises(ValueError, match=match):
        Precondition(**args)


def test_claim_metrics_include_preconditions_and_kind_is_checked():
    assert CLAIM.metrics == ("acc_method", "acc_base")
    with pytest.raises(ValueError, match="kind"):
        Claim("x", "s", "p", mean_at_least("m", 0), kind="theorem")
    assert Claim("x", "s", "p", mean_at_least("m", 0), kind="check").kind == "check"


def test_shared_guards_run_once_before_any_rule():
    calls = []

    @decider("m")
    def rule(rs):
        calls.append(len(rs))
        return Verdict(Outcome.SUPPORTED, "ok")

    assert rule([{"m": 1.0}]).outcome is Outcome.INCONCLUSIVE  # one seed: no interval
    assert "non-finite" in rule([{"m": 1.0}, {"m": math.nan}]).explanation
    assert "missing" in rule([{"m": 1.0}, {"x": 1.0}]).explanation
    assert calls == []
    assert rule([{"m": 1.0}, {"m": 2.0}]).outcome is Outcome.SUPPORTED and calls == [2]

    @decider("m", min_seeds=1, allow_nonfinite=["m"])
    def lenient(rs):
        return Verdict(Outcome.SUPPORTED, "ok")

    assert lenient([{"m": math.nan}]).outcome is Outcome.SUPPORTED


@pytest.mark.parametrize(
    ("values", "outcome"),
    [
        ([0.06, 0.07, 0.065, 0.07], Outcome.SUPPORTED),  # reaches 0.05, interval past 0
        ([0.0, 0.01, -0.01, 0.005], Outcome.NOT_SUPPORTED),  # the interval excludes the claimed 0.05
        ([-0.05, 0.15, 0.02, 0.08], Outcome.INCONCLUSIVE),  # contains 0 but also 0.05: not a refutation
    ],
)
def test_effect_rule_three_ways(values, outcome):
    d = effect_at_least("gain", support_at=0.05)
    assert d(rows(gain=values)).outcome is outcome


def test_effect_rule_on_a_paired_difference_with_lower_is_better():
    d = effect_at_least("loss_m", "loss_b", support_at=0.1, higher_is_better=False)
    assert d(rows(loss_m=[1.0, 1.01, 0.99], loss_b=[1.5, 1.52, 1.49])).outcome is Outcome.SUPPORTED
    assert d.compares == (Comparison("loss_m", "loss_b", False),)


def test_non_inferiority_and_equivalence():
    ni = non_inferior("a", "b", margin=0.02)
    assert ni(rows(a=[0.5, 0.501, 0.499], b=[0.5, 0.5, 0.5])).outcome is Outcome.SUPPORTED
    assert ni(rows(a=[0.4, 0.41, 0.39], b=[0.5, 0.5, 0.5])).outcome is Outcome.NOT_SUPPORTED
    eq = equivalent("a", "b", margin=0.05)
    assert eq(rows(a=[1.0, 1.01, 0.99], b=[1.0, 1.0, 1.0])).outcome is Outcome.SUPPORTED
    assert eq(rows(a=[2.0, 2.01, 1.99], b=[1.0, 1.0, 1.0])).outcome is Outcome.NOT_SUPPORTED
    assert eq(rows(a=[1.0, 1.2, 0.9], b=[1.0, 1.0, 1.0])).outcome is Outcome.INCONCLUSIVE


def test_all_of_sanity_parts_make_it_inconclusive_never_refuted():
    d = all_of(mean_at_least("gain", 0.0), sanity=[mean_at_least("probe_acc", 0.9)])
    assert d(rows(gain=[1, 1.1, 0.9], probe_acc=[0.95, 0.96, 0.97])).outcome is Outcome.SUPPORTED
    v = d(rows(gain=[-1, -1.1, -0.9], probe_acc=[0.2, 0.3, 0.2]))
    assert v.outcome is Outcome.INCONCLUSIVE and "sanity check failed" in v.explanation


HELPERS = [
    mean_at_least("m", 0.5),
    difference_at_least("a", "b", margin=0.1),
    difference_at_least("a", "b", margin=0.1, higher_is_better=False),
    effect_at_least("a", "b", support_at=0.2),
    effect_at_least("m", support_at=3.0),
    non_inferior("a", "b", 0.05),
    equivalent("a", "b", 0.05),
    ratio_at_least("r", 1.5),
    fraction_of_seeds("m", ">=", 0.9, support_at=0.75),
    never_exceeds("a", "b"),
    all_of(difference_at_least("a", "b"), mean_at_least("m", 0.0), sanity=[mean_at_least("s", 0.9)]),
    guarded(difference_at_least("a", "b"), "s", ">=", 0.5, "a probe works"),
]


@pytest.mark.parametrize("d", HELPERS, ids=lambda d: d.description)
def test_every_helper_can_pass_and_fails_under_sabotage(d):
    base = [{m: 0.3 + 0.01 * i for m in d.metrics} for i in range(4)]
    win = d.synthesize(base)
    assert d(win).outcome is Outcome.SUPPORTED, d(win)
    for comp in d.compares:
        sabotaged = [{**r, comp.method: r[comp.baseline]} for r in win]
        assert d(sabotaged).outcome is not Outcome.SUPPORTED


def test_derive_keeps_what_is_not_replaced():
    from iclr26.harness.claims import difference_at_least, never_refutes

    inner = difference_at_least("m", "b", 0.1)
    same = inner.derive()
    assert (same.metrics, same.description, same.compares, same.synthesize, same.min_seeds) == (
        inner.metrics,
        inner.description,
        inner.compares,
        inner.synthesize,
        inner.min_seeds,
    )
    plain = inner.derive(description="d", compares=(), synthesize=None)
    assert plain.description == "d" and plain.compares == () and plain.synthesize is None
    rows = [{"m": 0.0, "b": 1.0 + 0.01 * i} for i in range(5)]
    assert inner(rows).outcome.value == "not supported"
    assert never_refutes(inner)(rows).outcome.value == "inconclusive"
    assert never_refutes(inner).compares == inner.compares
