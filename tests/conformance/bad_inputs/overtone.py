"""Bad input to the Overtone tokenizers, resize, emulator, rollout and spectral diagnostics."""

import torch

from iclr26.science.overtone import (
    CKMEncoder2d,
    CSMDecoder2d,
    CSMEncoder2d,
    PatchModulatedEmulator,
    extra_padding,
    harmonic_peak_ratio,
    pi_resize,
    rollout,
    vrmse,
)
from iclr26.science.overtone.experiment import OvertoneConfig

SET = [(2, 2), (4, 2), (4, 4)]
ENC = CSMEncoder2d(2, 16, (4, 4), SET, groups=2)
DEC = CSMDecoder2d(1, 16, (4, 4), SET, groups=2)
CKM = CKMEncoder2d(2, 16, (4, 4), (4, 8, 16), groups=2)
EMU = PatchModulatedEmulator(1, 2, 16, 1, 2, (4, 4), SET, groups=2)
X = torch.randn(1, 2, 32, 32)

CASES = [
    (lambda: ENC(X, (8, 4)), ValueError, ["strides (8, 4)", "not in the trained set"]),
    (lambda: ENC(X, 32), ValueError, ["patch size 32", "not in the trained set"]),
    (lambda: ENC(X, (0, 2)), ValueError, ["stride must be positive", "(0, 2)"]),
    (lambda: ENC(X, -4), ValueError, ["strides (a patch size)", "int >= 1", "-4"]),
    (lambda: ENC(torch.randn(2, 32, 32), (2, 2)), ValueError, ["x must be 4-D", "(2, 32, 32)"]),
    (lambda: ENC(torch.randn(1, 3, 32, 32), (2, 2)), ValueError, ["3 channels", "in_channels = 2"]),
    (lambda: DEC(torch.randn(1, 8, 4, 4), (4, 4)), ValueError, ["8 channels", "hidden_dim = 16"]),
    (lambda: ENC(torch.randn(1, 2, 33, 32), (2, 2)), ValueError, ["padding of axis H", "odd"]),
    (lambda: CKM(torch.randn(1, 2, 32), 8), ValueError, ["x must be 4-D"]),
    (lambda: CKM(torch.randn(1, 1, 32, 32), 8), ValueError, ["1 channels", "in_channels = 2"]),
    (lambda: CKM(X, 0), ValueError, ["patch must be an int >= 1", "got 0"]),
    (
        lambda: CSMEncoder2d(1, 16, (4, 4), [(8, 2)], groups=2),
        ValueError,
        ["stride must be <= its kernel", "(8, 2)"],
    ),
    (lambda: CSMEncoder2d(1, 16, groups=3), ValueError, ["groups (3)", "hidden_dim // 4"]),
    (
        lambda: CSMEncoder2d(1, 16, (4, 4), SET, groups=2, boundary="reflect"),
        ValueError,
        ["boundary", "'periodic'"],
    ),
    (lambda: extra_padding(64, (4, 4), (0, 2)), ValueError, ["stride", ">= 1"]),
    (lambda: pi_resize(torch.randn(3, 4, 4), (0, 4)), ValueError, ["new_shape", "positive"]),
    (
        lambda: EMU(torch.randn(1, 3, 1, 32, 32), 8),
        ValueError,
        ["history must have shape", "(B, 2, 1, H, W)"],
    ),
    (lambda: EMU(torch.randn(2, 1, 32, 32), 8), ValueError, ["history must be 5-D"]),
    (lambda: EMU(torch.randn(1, 2, 1, 32, 32), 12), ValueError, ["patch size 12", "not in the trained set"]),
    (lambda: PatchModulatedEmulator(mode="vit"), ValueError, ["mode", "'csm'"]),
    (lambda: rollout(EMU, torch.randn(1, 2, 1, 32, 32), 2, []), ValueError, ["schedule", "non-empty"]),
    (lambda: rollout(EMU, torch.randn(1, 2, 1, 32, 32), -1, 8), ValueError, ["n_steps", ">= 0"]),
    (lambda: harmonic_peak_ratio([1.0] * 33, 6, 64), ValueError, ["multiple of the patch size", "6"]),
    (lambda: harmonic_peak_ratio([1.0] * 10, 8, 64), ValueError, ["spec must be", "33"]),
    (
        lambda: vrmse(torch.zeros(2, 1, 8, 8), torch.zeros(2, 1, 8, 4)),
        ValueError,
        ["pred has shape", "must match"],
    ),
    (lambda: OvertoneConfig(long_steps=60), ValueError, ["long_steps + 2", "n_frames"]),
]
