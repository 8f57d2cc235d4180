"""Model-space metrics of the IG-FWI reproduction: relative model error, SSIM and the high-wavenumber error.

``ssim`` follows the definition of Wang et al. (2004) as scikit-image computes it by default (a 7 x 7 uniform
window, sample covariances, K1 = 0.01, K2 = 0.03, the mean over the window centres at least 3 pixels from the
border); scikit-image is not installed here, so this is our own implementation, tested against a direct
window-by-window loop.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter, uniform_filter

from iclr26.checks import check_float, check_int

__all__ = ["highpass", "highpass_error", "relative_model_error", "ssim"]


def _arr(name: str, x) -> np.ndarray:
    a = np.asarray(x.detach().cpu() if hasattr(x, "detach") else x, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D model (nz, nx), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, but holds NaN or infinite values")
    return a


def _pair(v, v_true) -> tuple[np.ndarray, np.ndarray]:
    a, b = _arr("v", v), _arr("v_true", v_true)
    if a.shape != b.shape:
        raise ValueError(f"v has shape {a.shape} but v_true has {b.shape}")
    return a, b


def relative_model_error(v, v_true) -> float:
    """||v - v*|| / ||v*|| (Frobenius)."""
    a, b = _pair(v, v_true)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def highpass(x, sigma: float = 2.0) -> np.ndarray:
    """x - G_sigma * x: the Gaussian high-pass component (sigma in cells, reflecting borders)."""
    sigma = check_float("sigma", sigma, low=0.0, low_open=True)
    a = _arr("x", x)
    return a - gaussian_filter(a, sigma, mode="reflect")


def highpass_error(v, v_true, sigma: float = 2.0) -> float:
    """||HP(v) - HP(v*)|| / ||HP(v*)||: the relative error of the high-wavenumber component."""
    a, b = _pair(v, v_true)
    hb = highpass(b, sigma)
    return float(np.linalg.norm(highpass(a, sigma) - hb) / np.linalg.norm(hb))


def ssim(x, y, data_range: float | None = None, win_size: int = 7) -> float:
    """Mean structural similarity of two 2-D images (scikit-image's default definition; `y` is the reference).

    ``data_range`` defaults to y.max() - y.min().
    """
    a, b = _arr("x", x), _arr("y", y)
    if a.shape != b.shape:
        raise ValueError(f"x has shape {a.shape} but y has {b.shape}")
    win_size = check_int("win_size", win_size, low=3)
    if win_size % 2 == 0 or win_size > min(a.shape):
        raise ValueError(f"win_size must be odd and <= the smaller image side {min(a.shape)}, got {win_size}")
    rng = (
        float(b.max() - b.min())
        if data_range is None
        else check_float("data_range", data_range, low=0.0, low_open=True)
    )
    if rng <= 0:
        raise ValueError("data_range must be > 0 (the reference image is constant); pass data_range")
    c1, c2 = (0.01 * rng) ** 2, (0.03 * rng) ** 2
    npix = win_size**2
    cov = npix / (npix - 1.0)

    def mean(z):
        return uniform_filter(z, size=win_size, mode="reflect")

    ux, uy = mean(a), mean(b)
    vx, vy = cov * (mean(a * a) - ux * ux), cov * (mean(b * b) - uy * uy)
    vxy = cov * (mean(a * b) - ux * uy)
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux**2 + uy**2 + c1) * (vx + vy + c2))
    pad = (win_size - 1) // 2
    return float(s[pad:-pad, pad:-pad].mean())
