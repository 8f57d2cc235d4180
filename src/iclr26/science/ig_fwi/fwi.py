"""Full-waveform inversion through a representation: Adam on L(theta) = 1/2 sum_k ||F_k(v_theta) - d_k||^2.

Paper: "Unveiling the Mechanism of Continuous Representation Full-Waveform Inversion" (ICLR 2026, arXiv
2603.22362). v_theta = clamp(v_0 + s G_theta, v_lo, v_hi) at the grid nodes. Learning rates (brief): 1e-3 for
network weights, 1e-2 for grid tables, and 10/s on pixels (about 10 m/s per Adam step).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.pde.wave import AcousticWave2D
from iclr26.science.ig_fwi.metrics import highpass_error, relative_model_error, ssim
from iclr26.science.ig_fwi.representations import Representation

__all__ = ["FWIHistory", "OptConfig", "fwi_fit", "velocity"]


@dataclass(frozen=True)
class OptConfig:
    """Adam settings and the output map of CR-FWI."""

    lr_net: float = 1e-3
    lr_grid: float = 1e-2
    lr_pixel: float = 1e-2  # = 10 m/s / scale
    scale: float = 1000.0  # s in v = v_0 + s G
    v_lo: float = 1000.0
    v_hi: float = 6000.0
    hp_sigma: float = 2.0

    def __post_init__(self) -> None:
        for name in ("lr_net", "lr_grid", "lr_pixel", "scale", "v_lo", "v_hi", "hp_sigma"):
            check_float(name, getattr(self, name), low=0.0, low_open=True)
        if not 0 < self.v_lo < self.v_hi:
            raise ValueError(f"need 0 < v_lo < v_hi, got v_lo={self.v_lo}, v_hi={self.v_hi}")


@dataclass
class FWIHistory:
    """Per iteration (index 0: the initial model): loss, and with v_true the model error, high-pass error, SSIM."""

    loss: list[float] = field(default_factory=list)
    model_error: list[float] = field(default_factory=list)
    highpass_error: list[float] = field(default_factory=list)
    ssim: list[float] = field(default_factory=list)
    v_final: torch.Tensor | None = None


def velocity(rep: Representation, v0: torch.Tensor, cfg: OptConfig) -> torch.Tensor:
    """v_theta = clamp(v_0 + s G_theta, v_lo, v_hi) on v0's grid."""
    check_tensor("v0", v0, ndim=2, floating=True, finite=True)  # the clamp would hide a non-finite start
    return torch.clamp(v0 + cfg.scale * rep.render(*v0.shape), cfg.v_lo, cfg.v_hi)


def fwi_fit(
    rep: Representation,
    op: AcousticWave2D,
    d_obs: torch.Tensor,
    v0: torch.Tensor,
    iters: int,
    opt_cfg: OptConfig | None = None,
    *,
    v_true: torch.Tensor | None = None,
) -> FWIHistory:
    """Fit `rep` by Adam for `iters` steps; the history holds the loss (and metrics against `v_true`) per step."""
    cfg = opt_cfg or OptConfig()
    iters = check_int("iters", iters, low=0)
    check_tensor("d_obs", d_obs, shape=(op.n_shots, op.n_rec, op.nt), floating=True, finite=True)
    check_tensor("v0", v0, shape=op.shape, floating=True, finite=True)
    if v_true is not None:
        check_tensor("v_true", v_true, shape=op.shape, floating=True, finite=True)
    opt = torch.optim.Adam(rep.param_groups(cfg.lr_net, cfg.lr_grid, cfg.lr_pixel))
    hist = FWIHistory()

    def log(v: torch.Tensor, loss: float) -> None:
        hist.loss.append(loss)
        if v_true is not None:
            vd = v.detach()
            hist.model_error.append(relative_model_error(vd, v_true))
            hist.highpass_error.append(highpass_error(vd, v_true, cfg.hp_sigma))
            hist.ssim.append(ssim(vd, v_true))

    for _ in range(iters + 1):
        opt.zero_grad(set_to_none=True)
        v = velocity(rep, v0, cfg)
        loss = 0.5 * (op(v) - d_obs).square().sum()
        log(v, float(loss.detach()))
        if len(hist.loss) > iters:
            break
        loss.backward()
        opt.step()
    hist.v_final = v.detach()
    return hist
