import numpy as np
import pytest
from scipy import stats as sps

from iclr26.harness.stats import bootstrap_interval, paired_difference, t_interval


def test_t_interval_matches_scipy():
    x = np.array([0.3, 0.9, 1.4, 0.2, 0.8])
    iv = t_interval(x, 0.9)
    lo, hi = sps.t.interval(0.9, df=4, loc=x.mean(), scale=sps.sem(x))
    assert iv.estimate == pytest.approx(x.mean())
    assert (iv.lo, iv.hi) == pytest.approx((lo, hi))


def test_t_interval_coverage_is_nominal():
    rng = np.random.default_rng(0)
    hits = sum((iv := t_interval(rng.normal(1.0, 2.0, size=5))).lo < 1.0 < iv.hi for _ in range(4000))
    assert 0.93 < hits / 4000 < 0.97


def test_bootstrap_is_deterministic_and_brackets_mean():
    x = [1.0, 2.0, 4.0, 8.0]
    a, b = bootstrap_interval(x), bootstrap_interval(x)
    assert a == b
    assert a.lo < a.estimate < a.hi


def test_single_seed_interval_is_undefined():
    iv = t_interval([3.0])
    assert iv.estimate == 3.0 and not iv.defined


def test_paired_difference_uses_pairs():
    a = [10.0, 20.0, 30.0]
    b = [9.0, 19.0, 29.1]
    iv = paired_difference(a, b)
    assert iv.estimate == pytest.approx(0.9666, abs=1e-3)
    assert iv.lo > 0.5  # unpaired, the seed-to-seed spread would swamp the difference


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: t_interval([]), "empty"),
        (lambda: t_interval([1.0, float("nan")]), "non-finite"),
        (lambda: t_interval([1.0, 2.0], level=1.5), "level"),
        (lambda: paired_difference([1.0], [1.0, 2.0]), "pair"),
        (lambda: bootstrap_interval([1.0, 2.0], n_boot=5), "n_boot"),
    ],
)
def test_bad_input_names_the_problem(call, word):
    with pytest.raises(ValueError, match=word):
        call()
