"""Figures of the PWYC-LP reproduction, drawn from stored per-seed results.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612). Each function takes the per-seed results of one budget and returns a matplotlib Figure
(built without pyplot); its docstring's first line is the caption.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure

__all__ = ["cost_ratios", "failure_rates", "misreport_gains", "pos_vs_m"]


def _pooled(results: Sequence[Any], key: str) -> np.ndarray:
    parts = [np.asarray(r.artifacts.get(key, []), dtype=float).ravel() for r in results]
    return np.concatenate(parts) if parts else np.zeros(0)


def _boxes(ax: Any, data: dict[str, np.ndarray]) -> None:
    names = [n for n, v in data.items() if v.size]
    ax.boxplot([data[n] for n in names], showfliers=True)
    ax.set_xticks(range(1, len(names) + 1), names, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("cost / LP lower bound")


def cost_ratios(results: Sequence[Any]) -> Figure:
    """Cost over the LP lower bound: main instances (left) and the random 2-3-agent games (right); dashed: L1/L0."""
    fig, (left, right) = new_figure(ncols=2, width=10, height=3.8)
    _boxes(
        left,
        {
            "LP (rounded)": metric_values(results, "ratio_lp_lb", required=False),
            "go alone": metric_values(results, "ratio_alone_lb", required=False),
            "homogeneous": metric_values(results, "ratio_homog_lb", required=False),
        },
    )
    factor = metric_values(results, "lp_factor", required=False)
    if factor.size:
        left.axhline(float(np.median(factor)), color="k", ls="--", lw=1, label="L1/L0 (median)")
        legend(left, fontsize=8)
    left.set_title(f"main instances ({len(results)} seeds)")
    ratios = [r.artifacts.get("ne_ratios", {}) for r in results]
    names = list(ratios[0]) if ratios and ratios[0] else []
    data = {}
    for name in names:
        vals = np.array([v for rr in ratios for v in rr.get(name, [])], dtype=float)
        data[name] = vals[np.isfinite(vals)]
    if data:
        _boxes(right, data)
    right.set_title("random 2-3-agent games (V = inf)")
    return fig


def failure_rates(results: Sequence[Any]) -> Figure:
    """Per-(instance, agent) Monte Carlo failure rates, sorted, for the LP and the homogeneous planner; lines: delta and the 0.07 validity cap."""
    fig, ax = new_figure(width=6.5, height=4)
    for key, label, color in (("lp", "LP (rounded)", "tab:blue"), ("homog", "homogeneous", "tab:orange")):
        rate, hi = _pooled(results, f"{key}_fail"), _pooled(results, f"{key}_fail_hi")
        if not rate.size:
            continue
        order = np.argsort(rate, kind="stable")
        x = np.arange(1, rate.size + 1) / rate.size
        ax.plot(x, rate[order], color=color, label=f"{label}: rate")
        ax.plot(x, hi[order], color=color, ls=":", lw=1, label=f"{label}: Clopper-Pearson upper")
    delta = float(results[0].artifacts.get("delta", 0.05)) if results else 0.05
    cap = float(results[0].artifacts.get("valid_upper", 0.07)) if results else 0.07
    ax.axhline(delta, color="k", ls="--", lw=1, label=f"delta = {delta:g}")
    ax.axhline(cap, color="grey", ls="-.", lw=1, label=f"validity cap {cap:g}")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlabel("fraction of (instance, agent) pairs")
    ax.set_ylabel("failure rate of worst-case ERM")
    legend(ax)
    return fig


def pos_vs_m(results: Sequence[Any]) -> Figure:
    """Price of stability: the two-agent family vs agent 2's cost M (left; dotted: (n + M n')/min(N, n + M n')) and the random games (right)."""
    fig, (left, right) = new_figure(ncols=2, width=10, height=3.8)
    curve = results[0].curves.get("pos_vs_M") if results else None
    if curve:
        M = np.asarray(curve["x"], dtype=float)
        left.loglog(M, curve["y"], "o-", label="measured: best NE / milp OPT")
        n, N = int(results[0].config["pos_n"]), int(results[0].config["pos_N"])
        n2 = math.ceil(n * (1 - n / N))  # agent 2's need once agent 1 gave its n samples
        left.loglog(M, (n + M * n2) / np.minimum(N, n + M * n2), "k:", label="(n + M n') / min(N, n + M n')")
        left.set_xlabel("M (unit cost of agent 2)")
        left.set_ylabel("price of stability")
        legend(left, fontsize=8)
    pooled = {k: metric_values(results, f"ne{k}_pos", required=False) for k in (2, 3)}
    top = max((float(v.max()) for v in pooled.values() if v.size), default=1.0)
    bins = np.linspace(1.0, max(1.2, top), 21)
    for (k, pos), color in zip(pooled.items(), ("tab:blue", "tab:green")):
        if pos.size:
            right.hist(pos, bins=bins, alpha=0.6, color=color, label=f"{k} agents ({pos.size} games)")
    right.set_xlabel("best NE cost / OPT (random games, V = inf)")
    right.set_ylabel("games")
    legend(right, fontsize=8)
    return fig


def misreport_gains(results: Sequence[Any]) -> Figure:
    """Utility gain of random misreports over the truthful report: PWYC vs the marginal-benefit rule (symlog x)."""
    fig, ax = new_figure(width=6.5, height=3.8)
    pooled = {"PWYC": _pooled(results, "gains_pwyc"), "marginal benefit": _pooled(results, "gains_benefit")}
    span = max((float(np.abs(v).max()) for v in pooled.values() if v.size), default=1.0)
    edges = np.concatenate(
        [-np.geomspace(max(span, 1.0), 1e-3, 20), [0.0], np.geomspace(1e-3, max(span, 1.0), 20)]
    )
    for (name, gains), color in zip(pooled.items(), ("tab:blue", "tab:red")):
        if gains.size:
            ax.hist(
                gains,
                bins=edges,
                alpha=0.55,
                color=color,
                label=f"{name} ({int(np.sum(gains > 1e-9))} profitable)",
            )
    ax.axvline(0.0, color="k", lw=1)
    ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_yscale("log")
    ax.set_xlabel("utility(misreport) - utility(truth)")
    ax.set_ylabel("reports")
    legend(ax, fontsize=8)
    return fig
