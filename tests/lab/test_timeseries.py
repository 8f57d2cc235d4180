"""Tests of the shared time-series pieces: generator, windows, schedules, baselines."""

import numpy as np
import pytest
import torch

from iclr26.lab.timeseries import (
    DLinear,
    ITransformer,
    PatchTST,
    SeasonalNaive,
    TimesNetLite,
    evaluate,
    group_labels,
    lr_at_epoch,
    make_heterogeneous_periodic,
    make_windows,
    train_forecaster,
)


def test_generator_plants_group_periods_and_is_seeded():
    v = make_heterogeneous_periodic(6, 2400, groups=3, periods=(12, 24, 48), seed=3)
    assert v.shape == (2400, 6) and v.dtype == np.float32
    assert np.array_equal(v, make_heterogeneous_periodic(6, 2400, groups=3, periods=(12, 24, 48), seed=3))
    labels = group_labels(6, 3)
    for c in range(6):
        amp = np.abs(np.fft.rfft(v[:, c] - v[:, c].mean()))
        amp[: 2400 // 100] = 0  # drop the slow trend
        assert round(2400 / np.argmax(amp)) == (12, 24, 48)[labels[c]]


def test_group_correlation_is_high_within_groups():
    v = make_heterogeneous_periodic(8, 4000, groups=2, periods=(12, 30), noise=0.0, seed=1)
    c = np.corrcoef(v.T)
    assert np.mean([c[0, i] for i in range(1, 4)]) > np.mean([abs(c[0, i]) for i in range(4, 8)])


def test_windows_and_splits():
    d = make_windows(np.random.default_rng(0).normal(size=(500, 3)), 20, 5)
    x, y = d.windows(torch.tensor([0, 10]))
    assert x.shape == (2, 20, 3) and y.shape == (2, 5, 3)
    assert torch.equal(y[0], d.series[20:25])
    assert int(d.split_starts("train").max()) + 25 <= d.train_end


def test_type3_schedule():
    assert [round(lr_at_epoch(1.0, e), 4) for e in range(6)] == [1, 1, 1, 1, 0.9, 0.81]


def test_seasonal_naive_repeats_last_period():
    x = torch.arange(12.0).view(1, 12, 1)
    assert SeasonalNaive(12, 6, 1, 4)(x).flatten().tolist() == [8, 9, 10, 11, 8, 9]


@pytest.mark.parametrize("cls", [DLinear, ITransformer, PatchTST, TimesNetLite])
def test_baselines_shape_and_train(cls):
    torch.manual_seed(0)
    v = make_heterogeneous_periodic(4, 800, groups=2, periods=(8, 16), seed=0)
    d = make_windows(v, 32, 8)
    m = cls(32, 8, 4)
    losses = train_forecaster(m, d, epochs=1, batch=16, steps_per_epoch=3, seed=0)
    assert len(losses) == 3 and all(np.isfinite(losses))
    assert m(torch.randn(2, 32, 4)).shape == (2, 8, 4)
    assert all(np.isfinite(evaluate(m, d, "test", 8)))
