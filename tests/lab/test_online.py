import numpy as np
import pytest

from iclr26.lab.online import AskTell, curve_band, log_spaced_rounds, run_many


def square_plus_draw(seed: int) -> float:
    return seed**2 + float(np.random.default_rng(seed).uniform())


def test_run_many_parallel_equals_serial_in_seed_order():
    serial = run_many(square_plus_draw, range(6), workers=1)
    parallel = run_many(square_plus_draw, range(6), workers=2)
    assert serial == parallel
    assert [int(v) for v in serial] == [0, 1, 4, 9, 16, 25]


def test_run_many_bad_workers():
    with pytest.raises(ValueError, match="workers"):
        run_many(square_plus_draw, range(3), workers=0)


def test_curve_band_matches_t_interval():
    rng = np.random.default_rng(0)
    curves = rng.normal(size=(8, 5))
    mean, lo, hi = curve_band(curves)
    assert np.allclose(mean, curves.mean(0))
    assert np.all(lo < mean) and np.all(mean < hi)
    with pytest.raises(ValueError, match="curves"):
        curve_band(np.zeros(3))


def test_log_spaced_rounds():
    r = log_spaced_rounds(20_000, 50)
    assert r[0] == 1 and r[-1] == 20_000 and np.all(np.diff(r) > 0)
    with pytest.raises(ValueError, match="T"):
        log_spaced_rounds(0)


def test_ask_tell_protocol_is_structural():
    class Greedy:
        def select(self, t):
            return 0

        def receive(self, t, *feedback):
            pass

    assert isinstance(Greedy(), AskTell)
