"""Per-model analyses: pathway attribution on test images, readout-feature similarity of visualisations."""

from __future__ import annotations

import numpy as np
import torch
from scipy.stats import spearmanr

from iclr26.harness.stats import bootstrap_interval
from iclr26.mechanisms.dale_signed_weights.dale import (
    ablate_readout,
    feature_viz,
    input_attribution,
    mask_fraction,
    random_sign_split,
    signed_dale_index,
    spatial_spread,
)
from iclr26.mechanisms.dale_signed_weights.zoo import SmallCNN

__all__ = ["intermediate_channels", "pathway_mask_fractions", "spearman_interval", "viz_similarity"]


def _pathway(model: SmallCNN, w: torch.Tensor, y: torch.Tensor):
    def fn(x: torch.Tensor) -> torch.Tensor:
        a = model.features(x)
        return (a * w[y]).sum(1)

    return fn


def pathway_mask_fractions(
    model: SmallCNN, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor, seed: int, n_boot: int = 2000
) -> dict[str, float]:
    """Object-mask share of gradient x input for the positive vs negative readout pathway of the true class.

    Also the same for a random split of each class unit's weights into groups of the same sizes (baseline).
    Returns means, the per-image paired difference and its bootstrap 95% interval.
    """
    w = model.fc.weight.detach()
    m_rand = random_sign_split(w, torch.Generator().manual_seed(seed))
    parts = {
        "pos": w.clamp(min=0),
        "neg": w.clamp(max=0),
        "randA": w * m_rand,
        "randB": w * ~m_rand,
    }
    fr = {
        k: mask_fraction(input_attribution(_pathway(model, v, y), x), mask).numpy() for k, v in parts.items()
    }
    diff = fr["pos"] - fr["neg"]
    rdiff = fr["randA"] - fr["randB"]
    iv = bootstrap_interval(diff, n_boot=n_boot, seed=seed)
    return {
        "mask_pos": float(fr["pos"].mean()),
        "mask_neg": float(fr["neg"].mean()),
        "mask_diff": float(diff.mean()),
        "mask_diff_lo": iv.lo,
        "mask_diff_hi": iv.hi,
        "mask_diff_random": float(rdiff.mean()),
    }


def _cos(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(torch.nn.functional.cosine_similarity(a, b, dim=1).mean())


def viz_similarity(
    model: SmallCNN,
    readouts: list[SmallCNN],
    classes: list[int],
    alphas: tuple[float, ...],
    steps: int,
    seed: int,
    reference_x: torch.Tensor | None = None,
) -> tuple[dict[str, float], dict]:
    """Visualise each class unit intact and with positive / negative inputs removed (graded, per alpha).

    Returns the mean readout-feature cosine similarity between intact and ablated images per (sign, alpha), the
    mean spectral centroid per condition, and the images (for figures). With ``reference_x`` each readout's
    features are centred on their mean over those images before the cosine (raw post-ReLU features are all
    non-negative, so their cosine saturates near 1).
    """
    from iclr26.mechanisms.dale_signed_weights.dale import spectral_centroid

    variants = {"intact": model}
    for a in alphas:
        variants[f"minus_pos_{a:g}"] = ablate_readout(model, a, "positive")
        variants[f"minus_neg_{a:g}"] = ablate_readout(model, a, "negative")
    images: dict[str, list] = {k: [] for k in variants}
    for c in classes:
        for name, net in variants.items():
            img, _ = feature_viz(net, lambda out, c=c: out[:, c].mean(), steps, seed=seed * 100 + c)
            images[name].append(img[0])
    stacked = {k: torch.stack(v) for k, v in images.items()}
    values: dict[str, float] = {}
    with torch.no_grad():
        centre = [r.features(reference_x).mean(0) if reference_x is not None else 0.0 for r in readouts]
        feats = {k: [r.features(v) - c for r, c in zip(readouts, centre)] for k, v in stacked.items()}
    for name in variants:
        values[f"centroid_{name}"] = float(spectral_centroid(stacked[name][:, 0]).mean())
        if name != "intact":
            values[f"cos_{name}"] = float(np.mean([_cos(a, b) for a, b in zip(feats["intact"], feats[name])]))
    art = {k: v[:, 0].numpy().round(3).tolist() for k, v in stacked.items()}
    return values, art


def intermediate_channels(model: SmallCNN, x: torch.Tensor, mask: torch.Tensor, layer: int, k: int) -> dict:
    """Rank layer ``layer``'s channels by the signed Dale index of their outgoing kernels; attribute the top-k
    positive and top-k negative channels' mean activation to the input (mask share, spatial spread)."""
    ds = signed_dale_index(model.convs[layer + 1].weight, axis=1)
    order = torch.argsort(ds, descending=True)
    out: dict[str, float] = {}
    for side, chans in (("pos", order[:k]), ("neg", order[-k:])):
        fr, sp = [], []
        for ch in chans.tolist():
            attr = input_attribution(lambda z, ch=ch: model.features(z, upto=layer)[:, ch].mean((1, 2)), x)
            fr.append(mask_fraction(attr, mask).mean())
            sp.append(spatial_spread(attr).mean())
        out[f"inter_mask_{side}"] = float(torch.stack(fr).mean())
        out[f"inter_spread_{side}"] = float(torch.stack(sp).mean())
        out[f"inter_dale_{side}"] = float(ds[chans].mean())
    return out


def spearman_interval(
    x: np.ndarray, y: np.ndarray, seed: int, n_boot: int = 2000
) -> tuple[float, float, float]:
    """Spearman rho of (x, y) and a percentile-bootstrap 95% interval over pairs (interval NaN if < 4 pairs)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size < 2 or np.unique(x).size < 2 or np.unique(y).size < 2:
        return float("nan"), float("nan"), float("nan")
    rho = float(spearmanr(x, y).statistic)
    if x.size < 4:
        return rho, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(0, x.size, x.size)
        if np.unique(x[i]).size > 1 and np.unique(y[i]).size > 1:
            boots.append(spearmanr(x[i], y[i]).statistic)
    lo, hi = np.quantile(boots, [0.025, 0.975]) if boots else (np.nan, np.nan)
    return rho, float(lo), float(hi)
