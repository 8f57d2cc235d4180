"""Figures of the SiTok reproduction (arXiv 2602.06602); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["codebook_usage", "mel_panels", "tradeoff_scatter", "training_curves"]

LABELS = {
    "sitok": "SiTok (diffusion + CTC)",
    "noctc": "diffusion, no CTC",
    "l1ctc": "L1 decoder + CTC",
    "twostage": "two-stage",
    "kmeans": "k-means on mel",
}


def _variants(results: Sequence[SeedResult]) -> list[str]:
    names = {k.removesuffix("_probe_per") for k in results[0].metrics if k.endswith("_probe_per")}
    names.discard("probe_clean")
    return sorted(names, key=lambda v: (list(LABELS).index(v) if v in LABELS else len(LABELS), v))


def tradeoff_scatter(results: Sequence[SeedResult]) -> Figure:
    """Understanding vs reconstruction: probe PER against reconstruction PER per variant (dots: seeds; cross: mean)."""
    fig, axes = new_figure(ncols=2, width=9.5)
    for ax, other, xlabel in (
        (axes[0], "rec_per", "reconstruction PER (clean recogniser on decoded mels)"),
        (axes[1], "fd", "mel-frame Fréchet distance"),
    ):
        for i, v in enumerate(_variants(results)):
            x = np.array([r.metrics[f"{v}_{other}"] for r in results])
            y = np.array([r.metrics[f"{v}_probe_per"] for r in results])
            color = f"C{i}"
            ax.scatter(x, y, s=14, color=color, alpha=0.6)
            ax.scatter([x.mean()], [y.mean()], s=60, marker="X", color=color, label=LABELS.get(v, v))
        clean = np.mean([r.metrics["probe_clean_per"] for r in results])
        ax.axhline(clean, color="0.5", ls=":", lw=1, label="probe on clean mel frames")
        ax.set(xlabel=xlabel, ylabel="probe PER on the codes")
        legend(ax)
    return fig


def mel_panels(results: Sequence[SeedResult]) -> Figure:
    """First test utterance (first seed, 64 of 128 bins, averaged in pairs): reference and each variant's decoding."""
    panels = results[0].artifacts["panels"]
    names = [
        "reference",
        *[v for v in LABELS if v in panels],
        *[v for v in panels if v not in LABELS and v != "reference"],
    ]
    fig, axes = new_figure(ncols=1, nrows=len(names), width=6, height=1.3 * len(names), flat=True)
    ref = np.asarray(panels["reference"])
    lo, hi = float(ref.min()), float(ref.max())
    for ax, name in zip(axes, names):
        ax.imshow(np.asarray(panels[name]), origin="lower", aspect="auto", vmin=lo, vmax=hi, cmap="magma")
        ax.set_ylabel(LABELS.get(name, name), fontsize=7, rotation=0, ha="right", va="center")
        ax.set_yticks([])
    axes[-1].set_xlabel("frame (50 Hz)")
    return fig


def codebook_usage(results: Sequence[SeedResult]) -> Figure:
    """Codebook usage on the test set: counts of the 256 most used codes, sorted (first seed), with perplexity."""
    usage = results[0].artifacts["usage"]
    fig, ax = new_figure(width=6)
    for i, v in enumerate(_variants(results)):
        if v not in usage:
            continue
        counts = np.asarray(usage[v], float)
        ppl = np.mean([r.metrics[f"{v}_perplexity"] for r in results])
        ax.plot(
            np.arange(1, len(counts) + 1), counts, color=f"C{i}", label=f"{LABELS.get(v, v)} (ppl {ppl:.0f})"
        )
    ax.set(xscale="log", yscale="symlog", xlabel="code rank", ylabel="test tokens")
    legend(ax)
    return fig


def training_curves(results: Sequence[SeedResult]) -> Figure:
    """Training over steps (mean and range over seeds): decoder loss (flow loss; L1 for the L1 decoder), CTC loss
    (untrained head without CTC) and the code perplexity of each batch."""
    fig, axes = new_figure(ncols=3, width=12)
    for ax, key in zip(axes, ("loss_diff", "loss_ctc", "perplexity")):
        for i, v in enumerate(_variants(results)):
            name = f"{v}_{key}"
            if name in results[0].curves:
                seed_band(ax, results, name, label=LABELS.get(v, v), color=f"C{i}")
        ax.set(xlabel="training step", ylabel=key, yscale="log" if key == "loss_diff" else "linear")
        legend(ax)
    return fig
