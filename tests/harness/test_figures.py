import math
import warnings

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from iclr26.harness import figures as hf
from iclr26.harness.claims import Outcome
from iclr26.harness.store import SeedResult


def seed(s, metrics=None, curves=None):
    return SeedResult("demo", "smoke", s, {}, metrics or {}, curves or {}, {}, 0.0, None, {})


def curve(y, x=None):
    return {"x": list(range(len(y))) if x is None else x, "y": y}


# ---------------------------------------------------------------------------- new_figure, legend, note


def test_new_figure_shapes_and_size():
    fig, ax = hf.new_figure()
    assert isinstance(fig, Figure) and len(fig.axes) == 1 and not isinstance(ax, np.ndarray)
    assert tuple(fig.get_size_inches()) == (4.5, 3.2)
    fig, axes = hf.new_figure(ncols=3, width=9, height=2)
    assert axes.shape == (3,) and tuple(fig.get_size_inches()) == (9, 2)
    assert hf.new_figure(ncols=2, nrows=2)[1].shape == (2, 2)
    assert hf.new_figure(squeeze=False)[1].shape == (1, 1)
    assert hf.new_figure(ncols=1, flat=True)[1].shape == (1,)
    assert hf.new_figure(ncols=3, nrows=2, flat=True)[1].shape == (6,)
    left, right = hf.new_figure(ncols=2, sharey=True)[1]
    assert left.get_shared_y_axes().joined(left, right)
    with pytest.raises(ValueError, match="panel"):
        hf.new_figure(ncols=0)


def test_new_figure_uses_no_pyplot_state():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    hf.new_figure(ncols=2)
    assert plt.get_fignums() == before


def test_legend_only_when_labelled():
    fig, ax = hf.new_figure()
    ax.plot([0, 1], [0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hf.legend(ax) is None
    ax.plot([0, 1], [1, 0], label="down")
    leg = hf.legend(ax)
    assert leg is not None and [t.get_text() for t in leg.get_texts()] == ["down"]
    assert leg.get_texts()[0].get_fontsize() == 7
    assert hf.legend(fig, loc="outside lower center") is not None


def test_note_hides_axes():
    _, ax = hf.new_figure()
    text = hf.note(ax, "no timings at this budget")
    assert text.get_text() == "no timings at this budget" and not ax.axison


# ---------------------------------------------------------------------------- metrics


def test_metric_values_skip_nan_and_missing_seeds():
    rs = [seed(0, {"a": 1.0}), seed(1, {"a": math.nan}), seed(2, {}), seed(3, {"a": 3.0, "b": math.inf})]
    assert hf.metric_values(rs, "a").tolist() == [1.0, 3.0]
    assert hf.metric_mean(rs, "a") == 2.0
    assert hf.metric_values(rs, "b").size == 0 and math.isnan(hf.metric_mean(rs, "b"))
    with pytest.raises(KeyError, match="no seed has a metric 'c'"):
        hf.metric_values(rs, "c")
    assert hf.metric_values(rs, "c", required=False).size == 0
    assert math.isnan(hf.metric_mean(rs, "c", required=False))


# ---------------------------------------------------------------------------- curves


def test_curve_matrix_aligns_seeds_and_skips_missing():
    rs = [
        seed(0, curves={"c": curve([1.0, 2.0, 3.0])}),
        seed(1),
        seed(2, curves={"c": curve([3.0, 4.0, 5.0])}),
    ]
    x, Y = hf.curve_matrix(rs, "c")
    assert x.tolist() == [0, 1, 2] and Y.shape == (2, 3) and Y[1].tolist() == [3.0, 4.0, 5.0]
    _, X = hf.curve_matrix(rs, "c", field="x")
    assert X.shape == (2, 3)
    with pytest.raises(KeyError, match="no seed has a curve 'nope'"):
        hf.curve_matrix(rs, "nope")


def test_curve_matrix_ragged_is_refused_or_truncated():
    rs = [seed(0, curves={"c": curve([1.0, 2.0, 3.0])}), seed(1, curves={"c": curve([5.0, 6.0])})]
    with pytest.raises(ValueError, match=r"different lengths over seeds \(seed 0: 3, seed 1: 2\)"):
        hf.curve_matrix(rs, "c")
    x, Y = hf.curve_matrix(rs, "c", ragged="truncate")
    assert x.tolist() == [0, 1] and Y.tolist() == [[1.0, 2.0], [5.0, 6.0]]
    with pytest.raises(ValueError, match="ragged"):
        hf.curve_matrix(rs, "c", ragged="pad")


def test_curve_matrix_refuses_different_x_grids():
    rs = [seed(0, curves={"c": curve([1.0, 2.0], [0, 1])}), seed(1, curves={"c": curve([1.0, 2.0], [0, 2])})]
    with pytest.raises(ValueError, match="disagree on the x values"):
        hf.curve_matrix(rs, "c")
    x, _ = hf.curve_matrix(rs, "c", same_x=False)
    assert x.tolist() == [0, 1]
    bad = [seed(0, curves={"c": {"x": [0, 1, 2], "y": [1.0, 2.0]}})]
    with pytest.raises(ValueError, match="3 x values but 2 y values"):
        hf.curve_matrix(bad, "c")


def test_curve_matrix_keeps_nan_as_nan():
    rs = [seed(0, curves={"c": curve([1.0, None, math.nan])})]
    _, Y = hf.curve_matrix(rs, "c")
    assert Y[0, 0] == 1.0 and np.isnan(Y[0, 1:]).all()


# ---------------------------------------------------------------------------- summaries and bands


@pytest.mark.parametrize("interval", hf.INTERVALS)
def test_bands_contain_the_centre(interval):
    Y = np.random.default_rng(0).normal(size=(6, 20))
    centre, lo, hi = hf.seed_summary(Y, interval)
    assert centre.shape == lo.shape == hi.shape == (20,)
    assert np.all(lo <= centre) and np.all(centre <= hi) and np.all(lo < hi)


def test_summary_values():
    Y = np.array([[1.0, 10.0], [3.0, 20.0], [5.0, 60.0]])
    c, lo, hi = hf.seed_summary(Y, "minmax")
    assert c.tolist() == [3.0, 30.0] and lo.tolist() == [1.0, 10.0] and hi.tolist() == [5.0, 60.0]
    c, lo, hi = hf.seed_summary(Y, "sd")
    assert np.allclose(hi - c, Y.std(axis=0))
    c, lo, hi = hf.seed_summary(Y, "iqr")
    assert c.tolist() == [3.0, 20.0] and np.allclose(lo, np.quantile(Y, 0.25, axis=0))
    from iclr26.harness.stats import t_interval

    c, lo, hi = hf.seed_summary(Y, "t")
    iv = t_interval(Y[:, 1])
    assert np.isclose(lo[1], iv.lo) and np.isclose(hi[1], iv.hi)
    c, lo, hi = hf.seed_summary(Y, "normal")
    assert np.isclose(hi[0] - c[0], 1.959964 * Y[:, 0].std(ddof=1) / np.sqrt(3), rtol=1e-5)


def test_summary_skips_nan_seeds_pointwise():
    Y = np.array([[1.0, np.nan, np.nan], [3.0, 4.0, np.nan], [np.nan, 6.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "mean of empty slice" noise
        for interval in hf.INTERVALS:
            c, lo, hi = hf.seed_summary(Y, interval)
            assert np.isnan(c[2]) and np.isnan(lo[2]) and np.isnan(hi[2])
            assert lo[0] <= c[0] <= hi[0] and lo[1] <= c[1] <= hi[1]
    c, lo, hi = hf.seed_summary(Y, "minmax")
    assert c[:2].tolist() == [2.0, 5.0] and lo[:2].tolist() == [1.0, 4.0] and hi[:2].tolist() == [3.0, 6.0]


def test_summary_one_seed_and_errors():
    c, lo, hi = hf.seed_summary([[1.0, 2.0]], "t")
    assert c.tolist() == lo.tolist() == hi.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="interval"):
        hf.seed_summary([[1.0]], "ci")
    with pytest.raises(ValueError, match="level"):
        hf.seed_summary([[1.0]], "t", level=1.5)
    with pytest.raises(ValueError, match="n_seeds, n_points"):
        hf.seed_summary([1.0, 2.0])


def test_curve_band_is_the_t_summary_and_lab_reexports_it():
    from iclr26.lab import online

    assert online.curve_band is hf.curve_band
    Y = np.random.default_rng(1).normal(size=(5, 4))
    for a, b in zip(hf.curve_band(Y, 0.9), hf.seed_summary(Y, "t", 0.9)):
        assert np.allclose(a, b)
    with pytest.raises(ValueError, match="curves"):
        hf.curve_band(np.zeros(3))


def test_seed_band_draws_mean_line_and_band():
    rs = [seed(s, curves={"c": curve([float(s), 2.0 + s, 4.0])}) for s in range(3)]
    _, ax = hf.new_figure()
    line = hf.seed_band(ax, rs, "c", label="c", color="tab:red", ls="--")
    assert line.get_ydata().tolist() == [1.0, 3.0, 4.0] and line.get_label() == "c" and line.get_ls() == "--"
    (band,) = ax.collections
    ys = band.get_paths()[0].vertices[:, 1]
    assert ys.min() == 0.0 and ys.max() == 4.0
    _, ax = hf.new_figure()
    hf.seed_band(ax, rs[:1], "c")  # one seed: no band to draw
    hf.seed_band(ax, rs, "c", interval=None)
    assert not ax.collections and len(ax.lines) == 2


def test_seed_band_ragged():
    rs = [seed(0, curves={"c": curve([1.0, 2.0, 3.0])}), seed(1, curves={"c": curve([1.0, 2.0])})]
    _, ax = hf.new_figure()
    with pytest.raises(ValueError, match="ragged='truncate'"):
        hf.seed_band(ax, rs, "c")
    assert len(hf.seed_band(ax, rs, "c", ragged="truncate").get_xdata()) == 2


def test_plot_band_with_t_interval():
    Y = np.array([[1.0, 2.0], [3.0, 4.0]])
    _, ax = hf.new_figure()
    line = hf.plot_band(ax, [0, 1], Y, interval="t")
    assert line.get_ydata().tolist() == [2.0, 3.0] and len(ax.collections) == 1


# ---------------------------------------------------------------------------- bars, dots, error bars


def test_seed_bars_mean_dots_and_nan_seeds():
    _, ax = hf.new_figure()
    groups = [[1.0, 3.0], [2.0, math.nan, 4.0], []]
    bars = hf.seed_bars(ax, [0, 1, 2], groups, color="tab:blue", label="m")
    assert [p.get_height() for p in bars.patches] == [2.0, 3.0, 0.0]
    (dots,) = ax.collections
    assert dots.get_offsets().shape == (4, 2)  # the NaN seed is not drawn
    assert bars.get_label() == "m"


def test_seed_bars_interval_and_scalars():
    _, ax = hf.new_figure()
    bars = hf.seed_bars(ax, [0, 1], [[1.0, 3.0], [5.0, 7.0]], interval="minmax", dots=False)
    assert bars.errorbar is not None and not [c for c in ax.collections if isinstance(c, PathCollection)]
    segs = bars.errorbar.lines[2][0].get_segments()
    assert np.allclose([s[:, 1] for s in segs], [[1.0, 3.0], [5.0, 7.0]])
    _, ax = hf.new_figure()
    bars = hf.seed_bars(ax, [0, 1], [2.0, 3.0], interval="t")  # one value each: no error bar
    assert bars.errorbar is None and [p.get_height() for p in bars.patches] == [2.0, 3.0]
    with pytest.raises(ValueError, match="positions"):
        hf.seed_bars(ax, [0], [[1.0], [2.0]])


def test_grouped_bars_centre_on_ticks():
    _, ax = hf.new_figure()
    out = hf.grouped_bars(ax, ["a", "b"], {"x": [[1.0, 2.0], [3.0]], "y": [0.5, [1.0, 2.0]]}, dots=True)
    assert list(out) == ["x", "y"]
    xs = [p.get_x() + p.get_width() / 2 for p in out["x"].patches + out["y"].patches]
    assert np.allclose(xs, [-0.2, 0.8, 0.2, 1.2])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    assert [p.get_height() for p in out["y"].patches] == [0.5, 1.5]
    with pytest.raises(ValueError, match="categories"):
        hf.grouped_bars(ax, ["a"], {"x": [1.0, 2.0]})


def test_seed_dots_jitter():
    _, ax = hf.new_figure()
    dots = hf.seed_dots(ax, [0, 1], [[1.0, 2.0, 3.0], [4.0]], jitter=0.1)
    xy = dots.get_offsets()
    assert np.allclose(xy[:, 0], [-0.1, 0.0, 0.1, 1.0]) and xy[:, 1].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_seed_errorbar():
    _, ax = hf.new_figure()
    c = hf.seed_errorbar(ax, [1, 2], [[1.0, 3.0], [2.0, np.nan, 6.0]], interval="sd", fmt="o-", label="m")
    assert c.lines[0].get_ydata().tolist() == [2.0, 4.0] and c.has_yerr
    c = hf.seed_errorbar(ax, [1, 2], [[1.0], [2.0]])
    assert not c.has_yerr


# ---------------------------------------------------------------------------- verdict colours


def test_verdict_colors_cover_every_outcome_and_match_the_report():
    from iclr26.harness import report

    assert set(hf.VERDICT_COLORS) == set(Outcome)
    assert len(set(hf.VERDICT_COLORS.values())) == len(Outcome)
    assert report._BADGE == {o.value: c for o, c in hf.VERDICT_COLORS.items()}
