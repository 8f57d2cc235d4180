"""Helpers for the papers' ``figures.py``: figure setup, per-seed curves and bands, bars with seed dots.

A figure function takes the stored per-seed results (:class:`~iclr26.harness.store.SeedResult`) and returns a
``matplotlib.figure.Figure``; the first line of its docstring is the caption. These helpers keep the recurring
pieces in one place:

* :func:`new_figure` builds a ``Figure`` (no pyplot global state) with constrained layout and its axes;
* :func:`metric_values` / :func:`metric_mean` read one metric over seeds, skipping seeds without a finite value;
* :func:`curve_matrix` aligns one stored curve over seeds into ``(x, Y)``; :func:`seed_summary` (and
  :func:`curve_band`, its Student-t case) turn ``Y`` into a centre line and a band; :func:`plot_band` and
  :func:`seed_band` draw them;
* :func:`seed_bars` (bar of the mean, one dot per seed, optional interval), :func:`grouped_bars`,
  :func:`seed_dots` and :func:`seed_errorbar` draw per-seed numbers;
* :func:`legend` (only when something is labelled) and :func:`note` (a panel that says why it is empty);
* :data:`VERDICT_COLORS`, one colour per claim :class:`~iclr26.harness.claims.Outcome`, shared with the report.

Intervals (the ``interval`` argument) are computed over seeds, per point, from the finite values only:

``"minmax"``  mean, and the smallest and largest seed;
``"sd"``      mean +- the standard deviation over seeds (numpy's ``std``, ddof = 0);
``"t"``       mean +- the Student-t half-width at ``level`` (lo = hi = mean with one seed);
``"normal"``  mean +- the normal-approximation half-width at ``level`` (s / sqrt(n), ddof = 1);
``"iqr"``     the median, and the 25% and 75% quantiles.

Example
-------
>>> from iclr26.harness.store import SeedResult
>>> runs = [SeedResult("demo", "smoke", s, {}, {"acc": 0.5 + s / 10}, {"loss": {"x": [0, 1, 2], "y": [3.0, 2.0 - s, 1.0]}},
...         {}, 0.0, None, {}) for s in range(3)]
>>> x, Y = curve_matrix(runs, "loss")
>>> Y.shape
(3, 3)
>>> fig, (ax_curve, ax_bar) = new_figure(ncols=2)
>>> line = seed_band(ax_curve, runs, "loss", label="loss")
>>> bars = seed_bars(ax_bar, [0], [metric_values(runs, "acc")])
>>> round(float(bars.patches[0].get_height()), 2)
0.6
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from iclr26.harness.claims import Outcome

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection
    from matplotlib.container import BarContainer, ErrorbarContainer
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
    from matplotlib.lines import Line2D
    from matplotlib.text import Text

    from iclr26.harness.store import SeedResult

__all__ = [
    "INTERVALS",
    "VERDICT_COLORS",
    "curve_band",
    "curve_matrix",
    "grouped_bars",
    "legend",
    "metric_mean",
    "metric_values",
    "new_figure",
    "note",
    "plot_band",
    "seed_band",
    "seed_bars",
    "seed_dots",
    "seed_errorbar",
    "seed_summary",
]

INTERVALS: tuple[str, ...] = ("minmax", "sd", "t", "normal", "iqr")

VERDICT_COLORS: dict[Outcome, str] = {
    Outcome.SUPPORTED: "#1a7f37",
    Outcome.NOT_SUPPORTED: "#cf222e",
    Outcome.INCONCLUSIVE: "#9a6700",
    Outcome.NOT_REPRODUCED: "#8250df",
    Outcome.NOT_JUDGED: "#6e7781",
}
"""The colour of each claim outcome, in figures and in the report's badges and summary figure."""


# ------------------------------------------------------------------------------------------ figure setup


def new_figure(
    ncols: int = 1,
    nrows: int = 1,
    *,
    width: float | None = None,
    height: float | None = None,
    squeeze: bool = True,
    flat: bool = False,
    layout: str | None = "constrained",
    **subplots_kw: Any,
) -> tuple[Figure, Any]:
    """A ``Figure`` of ``nrows x ncols`` panels and its axes, without pyplot's global state.

    Parameters
    ----------
    ncols, nrows : the grid of panels.
    width, height : the figure's size in inches; default 4.5 per column and 3.2 per row.
    squeeze : as in matplotlib: one panel gives an ``Axes``, one row or column a 1-D array, else a 2-D array;
        ``squeeze=False`` always gives a 2-D array.
    flat : always a 1-D array of all panels (row by row), whatever the grid (for a variable number of panels).
    layout : the layout engine (``"constrained"`` by default, so labels and colour bars never overlap).
    subplots_kw : passed to ``Figure.subplots`` (``sharey``, ``width_ratios``, ``subplot_kw``, ...).
    """
    from matplotlib.figure import Figure

    if ncols < 1 or nrows < 1:
        raise ValueError(f"need at least one panel, got nrows={nrows}, ncols={ncols}")
    width = 4.5 * ncols if width is None else width
    height = 3.2 * nrows if height is None else height
    fig = Figure(figsize=(width, height), layout=layout)
    axes = fig.subplots(nrows, ncols, squeeze=squeeze and not flat, **subplots_kw)
    return fig, (np.asarray(axes).ravel() if flat else axes)


def legend(target: Axes | Figure, *, fontsize: float | None = 7, **kw: Any) -> Legend | None:
    """``target.legend(fontsize=7, ...)`` if anything in it is labelled; None (and no warning) otherwise.

    ``fontsize=None`` keeps matplotlib's default size; other keywords go to ``legend`` (``loc``, ``ncol``, ...).
    """
    axes = target.axes if hasattr(target, "subfigs") else [target]
    if not any(
        label and not label.startswith("_") for ax in axes for label in ax.get_legend_handles_labels()[1]
    ):
        return None
    return target.legend(fontsize=fontsize, **kw)


def note(ax: Axes, text: str, **kw: Any) -> Text:
    """Say in the middle of an empty panel why it is empty (``"no timings at this budget"``); hides its axes."""
    ax.set_axis_off()
    return ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, **kw)


# ------------------------------------------------------------------------------------------ reading results


def metric_values(results: Sequence[SeedResult], name: str, *, required: bool = True) -> np.ndarray:
    """The finite values of metric `name`, one per seed that has one, in seed order.

    Seeds without the metric, or with a NaN/inf/None value, are skipped. With ``required`` (the default) a metric
    that no seed has at all is an error (a typo, most likely); ``required=False`` gives an empty array instead.
    """
    present = [r.metrics[name] for r in results if name in r.metrics]
    if required and not present:
        known = sorted(results[0].metrics)[:12] if results else []
        raise KeyError(f"no seed has a metric {name!r} (first seed's metrics start {known})")
    values = np.array([np.nan if v is None else float(v) for v in present], dtype=float)
    return values[np.isfinite(values)]


def metric_mean(results: Sequence[SeedResult], name: str, *, required: bool = True) -> float:
    """Mean over seeds of the finite values of metric `name`; NaN when there are none (see :func:`metric_values`)."""
    values = metric_values(results, name, required=required)
    return float(values.mean()) if values.size else float("nan")


def curve_matrix(
    results: Sequence[SeedResult],
    name: str,
    *,
    field: str = "y",
    ragged: str = "error",
    same_x: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Curve `name` aligned over seeds: ``(x, Y)`` with ``Y[i]`` the `field` of the i-th seed that has the curve.

    Parameters
    ----------
    field : which stored array to stack (``"y"``; ``"x"`` where the x values themselves vary by seed).
    ragged : curves of different lengths over seeds are an error (``"error"``, the default, naming the lengths)
        or cut to their common prefix (``"truncate"``).
    same_x : check that the seeds share one x grid (an error otherwise: averaging points at different x is
        meaningless); x is the first seed's.

    Seeds without the curve are skipped; no seed with it is a ``KeyError``. Non-finite values stay NaN in ``Y``.
    """
    if ragged not in ("error", "truncate"):
        raise ValueError(f"ragged must be 'error' or 'truncate', got {ragged!r}")
    found = [r for r in results if name in r.curves]
    if not found:
        known = sorted(results[0].curves)[:12] if results else []
        raise KeyError(f"no seed has a curve {name!r} (first seed's curves start {known})")
    rows = [
        np.asarray([np.nan if v is None else v for v in r.curves[name][field]], dtype=float) for r in found
    ]
    xs = [np.asarray(r.curves[name]["x"]) for r in found]
    lengths = [len(row) for row in rows]
    n = min(lengths)
    if len(set(lengths)) > 1 and ragged == "error":
        sizes = ", ".join(f"seed {r.seed}: {k}" for r, k in zip(found, lengths))
        raise ValueError(
            f"curve {name!r} has different lengths over seeds ({sizes}); "
            "pass ragged='truncate' to keep the common prefix"
        )
    for r, x, row in zip(found, xs, rows):
        if len(x) != len(row):
            raise ValueError(
                f"curve {name!r} of seed {r.seed} has {len(x)} x values but {len(row)} {field} values"
            )
    x0 = xs[0][:n]
    if same_x:
        for r, x in zip(found[1:], xs[1:]):
            x = x[:n]
            same = np.allclose(x, x0, equal_nan=True) if x0.dtype.kind in "fiub" else np.array_equal(x, x0)
            if not same:
                raise ValueError(
                    f"seeds {found[0].seed} and {r.seed} disagree on the x values of curve {name!r}; "
                    "pass same_x=False to take the first seed's x"
                )
    return x0, np.stack([row[:n] for row in rows])


# ------------------------------------------------------------------------------------------ summaries


def _check_interval(interval: str, level: float) -> None:
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {', '.join(INTERVALS)}, got {interval!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")


def seed_summary(
    values: Sequence[Sequence[float]] | np.ndarray, interval: str = "t", level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pointwise ``(centre, lo, hi)`` over seeds of `values` shaped (n_seeds, n_points); see the module's intervals.

    NaN entries (a seed without a finite value at a point) are left out of that point; a point with no finite
    value at all gives NaN.
    """
    _check_interval(interval, level)
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 2 or arr.shape[0] < 1:
        raise ValueError(f"values must have shape (n_seeds, n_points), got {arr.shape}")
    ok = np.isfinite(arr)
    n = ok.sum(axis=0)
    some = n > 0
    filled = np.where(ok, arr, 0.0)
    mean = np.full(arr.shape[1], np.nan)
    mean[some] = filled[:, some].sum(axis=0) / n[some]
    if interval in ("minmax", "iqr"):
        centre, lo, hi = (np.full(arr.shape[1], np.nan) for _ in range(3))
        if some.any():
            col = arr[:, some]
            if interval == "minmax":
                centre[some] = mean[some]
                lo[some] = np.where(ok[:, some], col, np.inf).min(axis=0)
                hi[some] = np.where(ok[:, some], col, -np.inf).max(axis=0)
            else:
                lo[some], centre[some], hi[some] = np.nanquantile(col, [0.25, 0.5, 0.75], axis=0)
        return centre, lo, hi
    dev = np.where(ok, arr - np.where(some, mean, 0.0), 0.0)
    ss = (dev**2).sum(axis=0)
    if interval == "sd":
        half = np.full(arr.shape[1], np.nan)
        half[some] = np.sqrt(ss[some] / n[some])
    else:
        from scipy import stats as sps  # imported here: scipy.stats costs half a second at start-up

        half = np.zeros(arr.shape[1])
        many = n > 1
        se = np.sqrt(ss[many] / (n[many] - 1)) / np.sqrt(n[many])
        if interval == "t":
            half[many] = sps.t.ppf(0.5 + level / 2, df=n[many] - 1) * se
        else:
            half[many] = sps.norm.ppf(0.5 + level / 2) * se
        half[~some] = np.nan
    return mean, mean - half, mean + half


def curve_band(
    curves: Sequence[Sequence[float]] | np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pointwise mean and Student-t interval over seeds of curves shaped (n_seeds, n_points).

    With one seed the interval is the mean itself. ``seed_summary(curves, "t", level)`` under its old name.
    """
    arr = np.asarray(curves, dtype=float)
    if arr.ndim != 2 or arr.shape[0] < 1:
        raise ValueError(f"curves must have shape (n_seeds, n_points), got {arr.shape}")
    return seed_summary(arr, "t", level)


def _groups(values_by_group: Sequence[Any]) -> np.ndarray:
    """Ragged per-group samples (a scalar counts as one value) as a NaN-padded (max_n, n_groups) matrix."""
    cols = [np.atleast_1d(np.asarray(v, dtype=float)).ravel() for v in values_by_group]
    out = np.full((max((c.size for c in cols), default=0) or 1, len(cols)), np.nan)
    for j, c in enumerate(cols):
        out[: c.size, j] = c
    return out


def _centre_and_errors(
    values_by_group: Sequence[Any], interval: str | None, level: float
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per group: the centre, and ``yerr`` (2, n_groups) for `interval` (None without one, or with one seed)."""
    mat = _groups(values_by_group)
    centre, lo, hi = seed_summary(mat, interval or "sd", level)
    if interval is None or not (np.isfinite(mat).sum(axis=0) > 1).any():
        return centre, None
    return centre, np.nan_to_num(np.vstack([centre - lo, hi - centre]))


# ------------------------------------------------------------------------------------------ drawing


def plot_band(
    ax: Axes,
    x: Sequence[float] | np.ndarray,
    Y: Sequence[Sequence[float]] | np.ndarray,
    *,
    interval: str | None = "minmax",
    level: float = 0.95,
    label: str | None = None,
    color: Any = None,
    alpha: float = 0.2,
    **plot_kw: Any,
) -> Line2D:
    """Draw the centre line of `Y` (n_seeds, n_points) over `x` and, with two seeds or more, its band.

    ``interval=None`` draws the mean line alone. Extra keywords go to ``ax.plot`` (``ls``, ``lw``, ``marker``);
    the band takes the line's colour. Returns the line.
    """
    centre, lo, hi = seed_summary(Y, interval or "sd", level)
    (line,) = ax.plot(x, centre, label=label, color=color, **plot_kw)
    if interval is not None and np.asarray(Y).shape[0] > 1:
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=alpha, lw=0)
    return line


def seed_band(
    ax: Axes,
    results: Sequence[SeedResult],
    name: str,
    *,
    interval: str | None = "minmax",
    level: float = 0.95,
    label: str | None = None,
    color: Any = None,
    alpha: float = 0.2,
    ragged: str = "error",
    **plot_kw: Any,
) -> Line2D:
    """Curve `name` over seeds: its mean line and band (see :func:`curve_matrix` and :func:`plot_band`)."""
    x, Y = curve_matrix(results, name, ragged=ragged)
    return plot_band(
        ax, x, Y, interval=interval, level=level, label=label, color=color, alpha=alpha, **plot_kw
    )


def seed_dots(
    ax: Axes,
    positions: Sequence[float] | np.ndarray,
    values_by_group: Sequence[Any],
    *,
    color: Any = "k",
    size: float = 10,
    jitter: float = 0.0,
    zorder: float = 3,
    **scatter_kw: Any,
) -> PathCollection:
    """One dot per seed at each position (finite values only); ``jitter`` spreads a group over +- jitter."""
    pos = np.asarray(positions, dtype=float)
    if len(pos) != len(values_by_group):
        raise ValueError(f"{len(pos)} positions for {len(values_by_group)} groups")
    xs, ys = [], []
    for p, group in zip(pos, values_by_group):
        v = np.atleast_1d(np.asarray(group, dtype=float)).ravel()
        v = v[np.isfinite(v)]
        xs.append(p + (np.linspace(-jitter, jitter, v.size) if jitter and v.size > 1 else np.zeros(v.size)))
        ys.append(v)
    return ax.scatter(
        np.concatenate(xs or [[]]),
        np.concatenate(ys or [[]]),
        s=size,
        color=color,
        zorder=zorder,
        **scatter_kw,
    )


def seed_bars(
    ax: Axes,
    positions: Sequence[float] | np.ndarray,
    values_by_group: Sequence[Any],
    *,
    width: float = 0.8,
    interval: str | None = None,
    level: float = 0.95,
    dots: bool = True,
    color: Any = None,
    label: str | None = None,
    dot_color: Any = "k",
    dot_size: float = 10,
    capsize: float = 3,
    **bar_kw: Any,
) -> BarContainer:
    """A bar of the mean over seeds at each position, one dot per seed, and optionally an interval as error bar.

    Parameters
    ----------
    values_by_group : one sequence of per-seed values per position (a scalar is one value); non-finite values
        are left out, and a group with none gets no bar.
    interval : None (no error bar) or one of :data:`INTERVALS`; ``"iqr"`` bars show the median.
    dots : draw each seed's value as a dot on its bar.
    bar_kw : passed to ``ax.bar`` (``alpha``, ``edgecolor``, ``align``, ...).
    """
    pos = np.asarray(positions, dtype=float)
    if len(pos) != len(values_by_group):
        raise ValueError(f"{len(pos)} positions for {len(values_by_group)} groups")
    centre, yerr = _centre_and_errors(values_by_group, interval, level)
    bars = ax.bar(
        pos, np.nan_to_num(centre), width, yerr=yerr, capsize=capsize, color=color, label=label, **bar_kw
    )
    if dots:
        seed_dots(ax, pos, values_by_group, color=dot_color, size=dot_size)
    return bars


def grouped_bars(
    ax: Axes,
    categories: Sequence[str],
    series: Mapping[str, Sequence[Any]],
    *,
    width: float = 0.8,
    colors: Sequence[Any] | None = None,
    interval: str | None = None,
    level: float = 0.95,
    dots: bool = False,
    tick_kw: Mapping[str, Any] | None = None,
    **bar_kw: Any,
) -> dict[str, BarContainer]:
    """Side-by-side bars: one group per category, one bar per series (its label), centred on the category's tick.

    ``series`` maps a label to one entry per category: the per-seed values there (or one number). Bars are means
    over seeds (see :func:`seed_bars` for ``interval`` and ``dots``); ``tick_kw`` goes to ``ax.set_xticks``
    (``rotation``, ``fontsize``, ``ha``). Returns the bars of each series.
    """
    x = np.arange(len(categories), dtype=float)
    w = width / max(len(series), 1)
    out = {}
    for j, (label, groups) in enumerate(series.items()):
        if len(groups) != len(categories):
            raise ValueError(f"series {label!r} has {len(groups)} entries for {len(categories)} categories")
        out[label] = seed_bars(
            ax,
            x + (j - (len(series) - 1) / 2) * w,
            groups,
            width=w,
            interval=interval,
            level=level,
            dots=dots,
            color=None if colors is None else colors[j],
            label=label,
            **bar_kw,
        )
    ax.set_xticks(x, list(categories), **dict(tick_kw or {}))
    return out


def seed_errorbar(
    ax: Axes,
    x: Sequence[float] | np.ndarray,
    values_by_group: Sequence[Any],
    *,
    interval: str = "sd",
    level: float = 0.95,
    capsize: float = 3,
    **errorbar_kw: Any,
) -> ErrorbarContainer:
    """Mean over seeds at each x with its interval as error bars (none when every group has a single value).

    ``values_by_group`` holds one sequence of per-seed values per x (non-finite values left out); extra keywords
    go to ``ax.errorbar`` (``fmt``, ``marker``, ``label``, ``color``, ``ls``).
    """
    if len(x) != len(values_by_group):
        raise ValueError(f"{len(x)} x values for {len(values_by_group)} groups")
    centre, yerr = _centre_and_errors(values_by_group, interval, level)
    return ax.errorbar(x, centre, yerr=yerr, capsize=capsize, **errorbar_kw)
