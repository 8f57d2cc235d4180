"""Signed-weight measures: Dale index, sign-split logits, graded ablation, feature visualisation, attribution."""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
from torch import nn

from iclr26.checks import check_float, check_int, check_tensor

__all__ = [
    "ablate_readout",
    "dale_index",
    "feature_viz",
    "graded_ablation",
    "input_attribution",
    "mask_fraction",
    "random_sign_split",
    "sign_split_logits",
    "signed_dale_index",
    "spatial_spread",
    "spectral_centroid",
]


def _check_weight(weight: torch.Tensor, axis: int) -> int:
    check_tensor("weight", weight, floating=True, finite=True)
    if weight.dim() < 2:
        raise ValueError(
            f"weight must have at least 2 dims (Linear or Conv), got shape {tuple(weight.shape)}"
        )
    check_int("axis", axis)
    if not -weight.dim() <= axis < weight.dim():
        raise ValueError(f"axis {axis} out of range for weight with {weight.dim()} dims")
    return axis % weight.dim()


def _sign_fractions(weight: torch.Tensor, axis: int) -> tuple[torch.Tensor, torch.Tensor]:
    axis = _check_weight(weight, axis)
    w = weight.detach().movedim(axis, 0).reshape(weight.shape[axis], -1)
    return (w > 0).double().mean(1), (w < 0).double().mean(1)


def dale_index(weight: torch.Tensor, axis: int = 1) -> torch.Tensor:
    """Per-unit Dale index D_j = max(p+_j, p-_j) in [0.5, 1] (fractions by count of the unit's weights).

    ``axis`` enumerates the units: for a Linear weight (out, in) ``axis=1`` indexes presynaptic units by their
    outgoing weights (the default, as Dale's law suggests) and ``axis=0`` indexes each output unit by its
    incoming weights; for a Conv weight (out, in, kh, kw) ``axis=1`` counts every outgoing kernel tap of an input
    channel. The layer index is the mean of the returned vector.
    """
    pos, neg = _sign_fractions(weight, axis)
    return torch.maximum(pos, neg)


def signed_dale_index(weight: torch.Tensor, axis: int = 1, sum_spatial: bool = True) -> torch.Tensor:
    """Library extra: D^s_j = p+_j - p-_j in [-1, 1]; for Conv weights taps are summed per kernel first."""
    _check_weight(weight, axis)
    w = weight.detach()
    if sum_spatial and w.dim() > 2:
        w = w.sum(dim=tuple(range(2, w.dim())))
    pos, neg = _sign_fractions(w, axis)
    return pos - neg


def _linear(model: nn.Module, layer: nn.Module | str) -> nn.Linear:
    if isinstance(layer, str):
        layer = dict(model.named_modules()).get(layer)  # type: ignore[assignment]
        if layer is None:
            raise ValueError("layer name not found in model")
    if not isinstance(layer, nn.Linear):
        raise TypeError(f"layer must be an nn.Linear (or its name), got {type(layer).__name__}")
    return layer


def sign_split_logits(
    model: nn.Module, layer: nn.Module | str, x: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(z+, z-, b) of the Linear ``layer`` on input ``x``: z = z+ + z- + b exactly.

    z+_c sums the terms w_cj a_j with w_cj > 0, z-_c the others; a is the layer's input, captured by a hook.
    """
    lin = _linear(model, layer)
    store: dict[str, torch.Tensor] = {}
    handle = lin.register_forward_hook(lambda m, inp, out: store.__setitem__("a", inp[0]))
    try:
        model(x)
    finally:
        handle.remove()
    a, w = store["a"], lin.weight
    bias = lin.bias if lin.bias is not None else torch.zeros(w.shape[0], dtype=w.dtype)
    return a @ w.clamp(min=0).T, a @ w.clamp(max=0).T, bias.expand(a.shape[0], -1)


def graded_ablation(weight: torch.Tensor, alpha: float, sign: str) -> torch.Tensor:
    """Zero, per row (class unit), the fewest largest-|w| weights of ``sign`` whose |w| sum reaches alpha x total.

    ``alpha = 0`` returns the weight unchanged; ``alpha = 1`` removes every weight of that sign.
    """
    _check_weight(weight, 0)
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (out, in) for graded_ablation, got shape {tuple(weight.shape)}")
    check_float("alpha", alpha, 0.0, 1.0)
    if sign not in ("positive", "negative"):
        raise ValueError(f"sign must be 'positive' or 'negative', got {sign!r}")
    w = weight.detach().clone()
    if alpha == 0.0:
        return w
    sel = w > 0 if sign == "positive" else w < 0
    for r in range(w.shape[0]):
        idx = torch.nonzero(sel[r]).flatten()
        if idx.numel() == 0:
            continue
        mags = w[r, idx].abs()
        order = torch.argsort(mags, descending=True)
        if alpha >= 1.0:
            k = idx.numel()
        else:
            csum = torch.cumsum(mags[order], 0)
            k = int(torch.searchsorted(csum, alpha * csum[-1]).item()) + 1
        w[r, idx[order[: min(k, idx.numel())]]] = 0.0
    return w


def random_sign_split(weight: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Baseline: a boolean mask per row with as many (randomly chosen) True entries as the row has w > 0."""
    _check_weight(weight, 0)
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (out, in), got shape {tuple(weight.shape)}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    mask = torch.zeros_like(weight, dtype=torch.bool)
    for r in range(weight.shape[0]):
        n_pos = int((weight[r] > 0).sum())
        mask[r, torch.randperm(weight.shape[1], generator=generator)[:n_pos]] = True
    return mask


def ablate_readout(model: nn.Module, alpha: float, sign: str, attr: str = "fc") -> nn.Module:
    """A copy of ``model`` whose Linear readout ``attr`` has :func:`graded_ablation` applied."""
    out = copy.deepcopy(model)
    lin = _linear(out, getattr(out, attr))
    with torch.no_grad():
        lin.weight.copy_(graded_ablation(lin.weight, alpha, sign))
    return out


def _fourier_image(spec: torch.Tensor, size: int, decay: float) -> torch.Tensor:
    fy = torch.fft.fftfreq(size).abs()[:, None]
    fx = torch.fft.rfftfreq(size)[None, :]
    scale = 1.0 / torch.clamp(torch.sqrt(fx**2 + fy**2), min=1.0 / size) ** decay
    coeffs = torch.complex(spec[..., 0], spec[..., 1]) * scale / size
    return torch.sigmoid(torch.fft.irfft2(coeffs, s=(size, size)) * size / 4)


def feature_viz(
    model: nn.Module,
    objective: Callable[[torch.Tensor], torch.Tensor],
    steps: int = 256,
    param: str = "fourier",
    *,
    n_images: int = 1,
    size: int = 32,
    channels: int = 1,
    lr: float = 0.05,
    l2: float = 1e-3,
    jitter: int = 2,
    seed: int = 0,
    decay: float = 1.0,
) -> tuple[torch.Tensor, list[float]]:
    """Maximise ``objective(model(images))`` (a scalar) over images in [0, 1] with Adam.

    ``param='fourier'`` optimises 1/f-scaled Fourier coefficients (sigmoid to pixels); ``'pixel'`` optimises
    pixel logits. Random jitter (roll by up to ``jitter`` pixels) and an L2 penalty on the centred image
    regularise. Returns the final images (n_images, channels, size, size) and the per-step objective trace.
    """
    if param not in ("fourier", "pixel"):
        raise ValueError(f"param must be 'fourier' or 'pixel', got {param!r}")
    check_int("steps", steps, low=1)
    if not callable(objective):
        raise TypeError("objective must be callable: objective(model_output) -> scalar")
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    for name, value in (("n_images", n_images), ("size", size), ("channels", channels)):
        check_int(name, value, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("l2", l2, low=0.0)
    check_int("jitter", jitter, low=0)
    check_int("seed", seed, low=0)
    check_float("decay", decay)
    gen = torch.Generator().manual_seed(seed)
    if param == "fourier":
        shape = (n_images, channels, size, size // 2 + 1, 2)
        p = (0.01 * torch.randn(shape, generator=gen)).requires_grad_(True)

        def render() -> torch.Tensor:
            return _fourier_image(p, size, decay)
    else:
        p = (0.01 * torch.randn(n_images, channels, size, size, generator=gen)).requires_grad_(True)

        def render() -> torch.Tensor:
            return torch.sigmoid(p)

    for q in model.parameters():
        q.requires_grad_(False)
    opt = torch.optim.Adam([p], lr=lr)
    trace: list[float] = []
    try:
        for _ in range(steps):
            img = render()
            if jitter > 0:
                dy, dx = torch.randint(-jitter, jitter + 1, (2,), generator=gen).tolist()
                img = torch.roll(img, (dy, dx), dims=(2, 3))
            obj = objective(model(img))
            if obj.dim() != 0:
                raise ValueError(f"objective must return a scalar, got shape {tuple(obj.shape)}")
            loss = -obj + l2 * ((img - 0.5) ** 2).sum() / n_images
            opt.zero_grad()
            loss.backward()
            opt.step()
            trace.append(float(obj.detach()))
    finally:
        for q in model.parameters():
            q.requires_grad_(True)
    with torch.no_grad():
        return render().detach(), trace


def input_attribution(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Gradient x input of the per-example scalar ``fn(x)`` (shape (n,)), summed over channels: (n, H, W)."""
    if not callable(fn):
        raise TypeError(f"fn must be callable fn(x) -> (n,) scores, got {type(fn).__name__}")
    check_tensor("x", x, ndim=4, floating=True)
    x = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():  # a gradient is the point: also inside a caller's torch.no_grad()
        out = fn(x)
        if out.shape != (x.shape[0],):
            raise ValueError(
                f"fn must return one scalar per example, shape ({x.shape[0]},), got {tuple(out.shape)}"
            )
        (g,) = torch.autograd.grad(out.sum(), x)
    return (g * x).sum(1).detach()


def mask_fraction(attribution: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per example, the share of |attribution| that falls inside the object mask (values in [0, 1])."""
    check_tensor("attribution", attribution, floating=True)
    check_tensor("mask", mask)
    if attribution.shape != mask.shape:
        raise ValueError(
            f"attribution and mask must have the same shape, got {attribution.shape}, {mask.shape}"
        )
    if attribution.dim() != 3:
        raise ValueError(f"attribution must be (n, H, W), got shape {tuple(attribution.shape)}")
    m = mask.bool()
    if not bool(m.flatten(1).any(1).all()):
        raise ValueError("mask must be non-empty for every example (an empty mask has no object)")
    a = attribution.abs()
    return (a * m).flatten(1).sum(1) / a.flatten(1).sum(1).clamp(min=1e-12)


def spatial_spread(attribution: torch.Tensor) -> torch.Tensor:
    """Per example, the RMS distance (pixels) of |attribution| mass from its centroid (second moment)."""
    check_tensor("attribution", attribution, floating=True)
    if attribution.dim() != 3:
        raise ValueError(f"attribution must be (n, H, W), got shape {tuple(attribution.shape)}")
    a = attribution.abs()
    a = a / a.flatten(1).sum(1).clamp(min=1e-12)[:, None, None]
    h, w = a.shape[1:]
    yy, xx = torch.meshgrid(torch.arange(h, dtype=a.dtype), torch.arange(w, dtype=a.dtype), indexing="ij")
    my = (a * yy).sum((1, 2))
    mx = (a * xx).sum((1, 2))
    var = (a * ((yy - my[:, None, None]) ** 2 + (xx - mx[:, None, None]) ** 2)).sum((1, 2))
    return var.sqrt()


def spectral_centroid(images: torch.Tensor) -> torch.Tensor:
    """Per image, the power-weighted mean radial frequency (cycles/pixel) of the mean-removed image."""
    check_tensor("images", images, floating=True)
    if images.dim() < 2:
        raise ValueError(f"images must have at least 2 dims (..., H, W), got shape {tuple(images.shape)}")
    x = images - images.mean(dim=(-2, -1), keepdim=True)
    power = torch.fft.fft2(x).abs() ** 2
    h, w = x.shape[-2:]
    r = torch.sqrt(torch.fft.fftfreq(h)[:, None] ** 2 + torch.fft.fftfreq(w)[None, :] ** 2)
    out = (power * r).sum((-2, -1)) / power.sum((-2, -1)).clamp(min=1e-12)
    return out.reshape(images.shape[:-2]) if images.dim() > 2 else out
