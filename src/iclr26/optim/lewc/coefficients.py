"""LEWC: layer-wise exponentially weighted connectivity, tested rather than assumed (arXiv 2510.08023).

The paper explains linear mode connectivity of wide models by each layer's output of the merged model being an
exponentially weighted sum of the two models' outputs. Reconstruction (the brief's): for weight layer l
(1-based from the input),

    h_lambda^(l)(x) ~ c_A^(l) h_A^(l)(x) + c_B^(l) h_B^(l)(x),   c_A^(l) = (1 - lambda)^l,  c_B^(l) = lambda^l,

what the product of l interpolated layers gives when the cross terms between the two models cancel. For a deep
linear net this is an exact expansion, (1-lambda)^L A-path + lambda^L B-path + cross terms
(:func:`linear_path_expansion`). For a trained network :func:`lewc_fit` fits (c_A, c_B) by least squares of
h_lambda on [h_A, h_B] (no intercept) over a probe batch and reports R^2 beside the predicted coefficients.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from iclr26.checks import check_tensor
from iclr26.optim.lewc.merging import check_lambda, check_same_architecture, merge_linear

__all__ = ["LayerFit", "lewc_fit", "linear_path_expansion", "weight_layers"]

WEIGHT_LAYERS = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d)


@dataclass(frozen=True)
class LayerFit:
    """Least-squares fit ``h_lambda ~ c_a h_A + c_b h_B`` at one weight layer, with LEWC's prediction."""

    layer: int  # 1-based index of the weight layer from the input
    name: str
    c_a: float
    c_b: float
    r2: float
    pred_a: float  # (1 - lambda)^layer
    pred_b: float  # lambda^layer


def weight_layers(model: nn.Module) -> list[tuple[str, nn.Module]]:
    """The (name, module) pairs of `model`'s Linear and Conv layers in registration order."""
    return [(n, m) for n, m in model.named_modules() if isinstance(m, WEIGHT_LAYERS)]


@torch.no_grad()
def _layer_outputs(model: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    outputs: list[torch.Tensor] = []
    handles = [
        m.register_forward_hook(lambda _m, _inp, out: outputs.append(out.detach().to("cpu", torch.float64)))
        for _, m in weight_layers(model)
    ]
    try:
        model.eval()
        model(x)
    finally:
        for h in handles:
            h.remove()
    return outputs


@torch.no_grad()
def lewc_fit(model_a: nn.Module, model_b: nn.Module, lam: float, probe_x: torch.Tensor) -> list[LayerFit]:
    """Fit each weight layer's merged output as a weighted sum of the two models' outputs.

    Parameters
    ----------
    model_a, model_b : two models of identical architecture.
    lam : interpolation coefficient lambda in [0, 1] of the merged model.
    probe_x : a batch of inputs (forward hooks record every Linear/Conv output on it).

    Returns
    -------
    One :class:`LayerFit` per weight layer: fitted (c_a, c_b), R^2 = 1 - SS_res / SS_tot (SS_tot about the
    mean), and the predicted ((1 - lambda)^l, lambda^l).

    Examples
    --------
    >>> import torch
    >>> a, b = torch.nn.Linear(3, 4), torch.nn.Linear(3, 4)
    >>> fit = lewc_fit(a, b, 0.5, torch.randn(16, 3))[0]
    >>> round(fit.c_a, 6), round(fit.r2, 6)
    (0.5, 1.0)
    """
    check_same_architecture(model_a, model_b)
    lam = check_lambda(lam)
    check_tensor("probe_x", probe_x, floating=True, finite=True)
    if probe_x.ndim < 1 or len(probe_x) == 0:
        raise ValueError("probe_x is empty: need at least one input")
    if not weight_layers(model_a):
        raise ValueError("model_a has no Linear or Conv layer to fit")
    merged = merge_linear(model_a, model_b, lam)
    outs_a, outs_b, outs_m = (_layer_outputs(m, probe_x) for m in (model_a, model_b, merged))
    fits = []
    for idx, ((name, _), ha, hb, hm) in enumerate(
        zip(weight_layers(model_a), outs_a, outs_b, outs_m), start=1
    ):
        design = torch.stack([ha.reshape(-1), hb.reshape(-1)], dim=1)  # [vec h_A, vec h_B]
        target = hm.reshape(-1, 1)
        coef = torch.linalg.lstsq(design, target, driver="gelsd").solution[
            :, 0
        ]  # min ||h_lam - c_A h_A - c_B h_B||
        resid = target[:, 0] - design @ coef
        ss_tot = float(((target - target.mean()) ** 2).sum())
        r2 = (
            1.0 - float((resid**2).sum()) / ss_tot if ss_tot > 0 else float("nan")
        )  # R^2 = 1 - SS_res / SS_tot
        fits.append(
            LayerFit(
                idx, name, float(coef[0]), float(coef[1]), r2, (1.0 - lam) ** idx, lam**idx
            )  # LEWC prediction
        )
    return fits


def linear_path_expansion(
    mats_a: Sequence[torch.Tensor], mats_b: Sequence[torch.Tensor], lam: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Split the product of interpolated layers of a deep linear net into A-path, B-path and cross terms.

    prod_{l=L..1} ((1 - lambda) A_l + lambda B_l) = (1-lambda)^L A_L...A_1 + lambda^L B_L...B_1 + cross, where the
    cross terms are the 2^L - 2 products that pick A at some layers and B at others.

    Examples
    --------
    >>> import torch
    >>> A, B = [torch.eye(2)], [2 * torch.eye(2)]
    >>> a, b, cross = linear_path_expansion(A, B, 0.5)
    >>> float(a[0, 0]), float(b[0, 0]), float(cross.abs().sum())
    (0.5, 1.0, 0.0)
    """
    if len(mats_a) != len(mats_b) or not mats_a:
        raise ValueError(
            f"mats_a and mats_b must be non-empty and of equal length, got {len(mats_a)} and {len(mats_b)}"
        )
    for i, (a, b) in enumerate(zip(mats_a, mats_b)):
        check_tensor(f"mats_a[{i}]", a, ndim=2, floating=True)
        check_tensor(f"mats_b[{i}]", b, ndim=2, floating=True)
        if a.shape != b.shape:
            raise ValueError(
                f"mats_b[{i}] must have the shape of mats_a[{i}] (layer {i + 1}): {tuple(a.shape)} vs {tuple(b.shape)}"
            )
    lam = check_lambda(lam)
    depth = len(mats_a)
    terms = {}
    for choice in itertools.product((0, 1), repeat=depth):  # 0 picks A_l, 1 picks B_l
        prod = None
        weight = 1.0
        for pick, a, b in zip(choice, mats_a, mats_b):
            prod = (b if pick else a) if prod is None else (b if pick else a) @ prod
            weight *= lam if pick else 1.0 - lam
        terms[choice] = weight * prod
    a_path = terms.pop((0,) * depth)  # (1 - lambda)^L A_L ... A_1
    b_path = terms.pop((1,) * depth)  # lambda^L B_L ... B_1
    cross = sum(terms.values(), torch.zeros_like(a_path))
    return a_path, b_path, cross
