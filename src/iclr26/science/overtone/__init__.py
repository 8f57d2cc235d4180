"""Overtone: "Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (Mukhopadhyay,
McCabe, Ohana, Cranmer; ICLR 2026, OpenReview itUo64aUeK, arXiv 2507.09264).

A fixed patch size makes an autoregressive emulator's error pile up at the harmonics n N / p of the patch lattice;
Overtone trains one model whose tokenizer runs every patch size of a set on the same weights (stride modulation,
CSM, or kernel modulation, CKM) and cycles the patch size during rollout. Here: the CSM and CKM tokenizers and
decoders, the PI-resize, the patch-modulated ViT emulator, rollouts with fixed or cyclic schedules, VRMSE and the
harmonic spectral diagnostics, and a Navier-Stokes dataset from the lab's pseudo-spectral solver.

Example
-------
>>> import torch
>>> from iclr26.science.overtone import PatchModulatedEmulator, rollout
>>> model = PatchModulatedEmulator(1, hidden_dim=32, depth=1, heads=2, base_kernel=(4, 4),
...                                stride_set=[(2, 2), (4, 2), (4, 4)], groups=4)
>>> rollout(model, torch.randn(1, 2, 1, 32, 32), n_steps=3, schedule=[4, 8, 16]).shape
torch.Size([1, 3, 1, 32, 32])
"""

from iclr26.science.overtone.ckm import CKMDecoder2d, CKMEncoder2d, kernel_partition, pi_resize, resize_matrix
from iclr26.science.overtone.csm import CSMDecoder2d, CSMEncoder2d, extra_padding, token_count
from iclr26.science.overtone.data import NSDataConfig, make_ns_dataset
from iclr26.science.overtone.emulator import PatchModulatedEmulator
from iclr26.science.overtone.rollout import patch_at, rollout
from iclr26.science.overtone.spectra import (
    ResidualSpectrum,
    harmonic_peak_ratio,
    harmonic_wavenumbers,
    residual_spectrum,
    vrmse,
)

__all__ = [
    "CKMDecoder2d",
    "CKMEncoder2d",
    "CSMDecoder2d",
    "CSMEncoder2d",
    "NSDataConfig",
    "PatchModulatedEmulator",
    "ResidualSpectrum",
    "extra_padding",
    "harmonic_peak_ratio",
    "harmonic_wavenumbers",
    "kernel_partition",
    "make_ns_dataset",
    "patch_at",
    "pi_resize",
    "residual_spectrum",
    "resize_matrix",
    "rollout",
    "token_count",
    "vrmse",
]
