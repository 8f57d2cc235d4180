import math

import pytest

from iclr26.harness.claims import (
    Claim,
    Decider,
    Outcome,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    fraction_of_seeds,
    guarded,
    mean_at_least,
    mean_at_most,
    never_exceeds,
    ratio_at_least,
)

S, N, I = Outcome.SUPPORTED, Outcome.NOT_SUPPORTED, Outcome.INCONCLUSIVE


def rows(**cols):
    n = len(next(iter(cols.values())))
    return [{k: v[i] for k, v in cols.items()} for i in range(n)]


def test_difference_three_outcomes():
    d = difference_at_least("a", "b", margin=0.1)
    assert d(rows(a=[1.0, 1.1, 1.2, 1.05], b=[0.5, 0.6, 0.65, 0.55])).outcome is S
    assert d(rows(a=[0.5, 0.6, 0.65, 0.55], b=[1.0, 1.1, 1.2, 1.05])).outcome is N
    assert d(rows(a=[1.0, 0.0, 1.2, 0.1], b=[0.5, 0.6, 0.65, 0.55])).outcome is I


def test_lower_is_better_direction():
    d = difference_at_least("loss_new", "loss_old", higher_is_better=False)
    assert d(rows(loss_new=[1.0, 1.1, 0.9], loss_old=[2.0, 2.1, 2.05])).outcome is S
    assert d(rows(loss_new=[2.0, 2.1, 2.05], loss_old=[1.0, 1.1, 0.9])).outcome is N


def test_single_seed_is_inconclusive():
    assert mean_at_least("x", 0.0)(rows(x=[5.0])).outcome is I


def test_missing_metric_is_inconclusive_and_named():
    v = mean_at_least("x", 0.0)([{"y": 1.0}])
    assert v.outcome is I and "x" in v.explanation


def test_non_finite_values_are_inconclusive():
    assert mean_at_most("x", 1.0)(rows(x=[0.1, float("nan"), 0.2])).outcome is I


def test_ratio_geometric_mean_and_null_note():
    d = ratio_at_least("speedup", 1.5, null=1.0)
    assert d(rows(speedup=[2.0, 2.2, 1.9, 2.1])).outcome is S
    v = d(rows(speedup=[1.2, 1.25, 1.22, 1.18]))
    assert v.outcome is N and "smaller than claimed" in v.explanation
    assert math.isclose(v.estimate, math.exp(sum(map(math.log, [1.2, 1.25, 1.22, 1.18])) / 4))


def test_fraction_of_seeds_partitions_with_refute_band():
    d = fraction_of_seeds("acc", ">=", 0.99, support_at=0.8, refute_below=0.5)
    assert d(rows(acc=[1.0, 1.0, 1.0, 1.0, 0.7])).outcome is S
    assert d(rows(acc=[1.0, 1.0, 1.0, 0.7, 0.7])).outcome is I
    assert d(rows(acc=[1.0, 1.0, 0.7, 0.7, 0.7])).outcome is N


def test_never_exceeds_bound_metric():
    d = never_exceeds("acc", "optimum", tol=1e-9)
    assert d(rows(acc=[0.7, 0.75], optimum=[0.75, 0.75])).outcome is S
    assert d(rows(acc=[0.7, 0.76], optimum=[0.75, 0.75])).outcome is N


def test_all_of_combines():
    yes = mean_at_least("a", 0.0)
    no = mean_at_most("a", 0.0)
    r = rows(a=[1.0, 1.1, 0.9])
    assert all_of(yes, yes)(r).outcome is S
    assert all_of(yes, no)(r).outcome is N
    assert all_of(yes, mean_at_least("a", 1.0))(r).outcome is I


def test_guard_turns_into_inconclusive():
    inner = mean_at_least("a", 0.0)
    r = rows(a=[1.0, 1.1, 0.9], base_acc=[0.1, 0.1, 0.1])
    assert guarded(inner, "base_acc", ">=", 0.5, "baseline did not train")(r).outcome is I
    assert guarded(inner, "base_acc", ">=", 0.05, "baseline did not train")(r).outcome is S


def test_custom_decider_declares_metrics():
    @decider("x", "y")
    def custom(per_seed):
        return Verdict(S, "ok")

    assert custom.metrics == ("x", "y")
    assert custom([{"x": 1.0}]).outcome is I  # y missing


def test_claim_validation():
    with pytest.raises(ValueError, match="claim id"):
        Claim("bad id!", "s", "p", mean_at_least("a", 0))
    with pytest.raises(TypeError, match="Decider"):
        Claim("ok", "s", "p", lambda rows: None)


@pytest.mark.parametrize(
    "call",
    [
        lambda: difference_at_least("a", "b", margin=-1),
        lambda: ratio_at_least("r", 0.0),
        lambda: fraction_of_seeds("a", "~", 1.0, 0.5),
        lambda: fraction_of_seeds("a", ">", 1.0, 1.5),
        lambda: all_of(),
    ],
)
def test_helper_bad_arguments(call):
    with pytest.raises(ValueError):
        call()


def test_verdict_measured_text():
    assert Verdict(S, "", 0.5, (0.4, 0.6), 3).measured() == "0.5 [0.4, 0.6]"
    assert Verdict(I, "").measured() == "n/a"


def test_combine_outcomes_is_a_conjunction():
    from iclr26.harness.claims import combine_outcomes

    assert combine_outcomes([S, S]) is S
    assert combine_outcomes([S, I]) is I
    assert combine_outcomes([I, N, S]) is N


def test_decider_refuses_a_bad_metric_list_or_function():
    with pytest.raises(ValueError, match="metrics"):
        decider(None)(lambda rows: None)
    with pytest.raises(ValueError, match="metrics"):
        Decider(lambda rows: None, "loss", "a string is not a list of names")
    with pytest.raises(ValueError, match="fn"):
        Decider(None, ("loss",), "no function")
    with pytest.raises(ValueError, match="allow_nonfinite"):
        Decider(lambda rows: None, ("loss",), "d", allow_nonfinite=(1,))
