"""Error diagnostics of the Overtone paper: VRMSE, residual power spectra and the harmonic peak ratio.

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (ICLR 2026, arXiv
2507.09264). A fixed patch size p phase-locks the rollout error to the patch lattice, so on an N-point axis its
power piles up at the harmonics k = n N / p; the harmonic peak ratio is the mean power there over the mean power
at the neighbours k +- 1 (about 1 for a featureless spectrum).

    VRMSE = sqrt( mean((u - u_hat)^2) / (var(u) + eps) )        (over space, per sample and field, then averaged)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["ResidualSpectrum", "harmonic_peak_ratio", "harmonic_wavenumbers", "residual_spectrum", "vrmse"]


def vrmse(pred: torch.Tensor, true: torch.Tensor, eps: float = 1e-7) -> torch.Tensor:
    """VRMSE of pred vs true, both (..., C, H, W): per sample and field over space, then averaged over fields.

    Returns shape pred.shape[:-3] (one value per sample). Predicting each field's spatial mean gives 1.
    """
    check_tensor("pred", pred, ndim=(3, 4, 5, 6), floating=True)
    check_tensor("true", true, floating=True)
    if pred.shape != true.shape:
        raise ValueError(f"pred has shape {tuple(pred.shape)}, true has {tuple(true.shape)}; they must match")
    eps = check_float("eps", eps, low=0.0)
    mse = (pred - true).pow(2).mean(dim=(-2, -1))
    var = true.var(dim=(-2, -1), unbiased=False)
    return (mse / (var + eps)).sqrt().mean(dim=-1)


class ResidualSpectrum(NamedTuple):
    """One-sided power spectra of an error field: along x (k = 0..W/2), along y (k = 0..H/2), and radial
    (|k| rounded, 0..min(H, W)/2); each averaged over every other axis and over the leading dims."""

    x: np.ndarray
    y: np.ndarray
    radial: np.ndarray

    @property
    def axes(self) -> np.ndarray:
        """The mean of the x and y spectra (square fields)."""
        if self.x.shape != self.y.shape:
            raise ValueError(
                f"axes needs a square field, got spectra of {self.x.size} and {self.y.size} modes"
            )
        return 0.5 * (self.x + self.y)


def _one_sided(power: np.ndarray, n: int) -> np.ndarray:
    """Fold |c_k|^2 over +-k into k = 0..n//2 (power at k and -k summed)."""
    out = power[..., : n // 2 + 1].copy()
    neg = power[..., n - np.arange(1, (n + 1) // 2)]  # modes -1 .. -(n-1)//2
    out[..., 1 : (n + 1) // 2] += neg
    return out


def residual_spectrum(err: torch.Tensor) -> ResidualSpectrum:
    """The 1-D power spectrum along each axis and the radial spectrum of err (..., H, W).

    Normalised so that the x spectrum sums to the mean of err^2 (Parseval).
    """
    check_tensor("err", err, ndim=(2, 3, 4, 5, 6), floating=True)
    e = err.detach().double().cpu()
    H, W = e.shape[-2:]
    lead = tuple(range(e.ndim - 2))
    px = (torch.fft.fft(e, dim=-1).abs() ** 2 / W**2).mean(dim=(*lead, -2)).numpy()
    py = (torch.fft.fft(e, dim=-2).abs() ** 2 / H**2).mean(dim=(*lead, -1)).numpy()
    p2 = (
        (torch.fft.fft2(e).abs() ** 2 / (H * W) ** 2).mean(dim=lead).numpy()
        if lead
        else (torch.fft.fft2(e).abs() ** 2 / (H * W) ** 2).numpy()
    )
    ky = np.fft.fftfreq(H, 1.0 / H)[:, None]
    kx = np.fft.fftfreq(W, 1.0 / W)[None, :]
    kr = np.rint(np.sqrt(kx**2 + ky**2)).astype(int)
    kmax = min(H, W) // 2
    radial = np.bincount(kr.ravel(), weights=p2.ravel(), minlength=kmax + 1)[: kmax + 1]
    return ResidualSpectrum(_one_sided(px, W), _one_sided(py, H), radial)


def harmonic_wavenumbers(p: int, N: int) -> list[int]:
    """k = n N / p (n = 1, 2, ...) that have both neighbours k +- 1 inside the one-sided range 0..N/2."""
    p, N = check_int("p", p, low=1), check_int("N", N, low=2)
    if N % p:
        raise ValueError(f"N ({N}) must be a multiple of the patch size p ({p}) for harmonics n N / p")
    base = N // p
    return [k for k in range(base, N // 2, base) if k + 1 <= N // 2]


def harmonic_peak_ratio(spec, p: int, N: int) -> float:
    """Mean power at the harmonics k = n N / p over the mean power at their neighbours k +- 1.

    ``spec`` is a one-sided spectrum (k = 0..N/2), e.g. ``residual_spectrum(err).axes``. Greater than 1 when the
    error is locked to a lattice of period p; about 1 for white noise.
    """
    s = np.asarray(spec.detach().cpu() if isinstance(spec, torch.Tensor) else spec, dtype=float)
    if s.ndim != 1 or s.size != N // 2 + 1:
        raise ValueError(
            f"spec must be a one-sided spectrum of N // 2 + 1 = {N // 2 + 1} values, got shape {s.shape}"
        )
    ks = harmonic_wavenumbers(p, N)
    if not ks:
        raise ValueError(
            f"patch size p = {p} has no harmonic below the Nyquist mode of N = {N} with both neighbours"
        )
    neigh = sorted({j for k in ks for j in (k - 1, k + 1)} - set(ks))
    return float(s[ks].mean() / max(s[neigh].mean(), 1e-300))
