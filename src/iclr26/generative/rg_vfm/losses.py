"""Training losses of RG-VFM and its baselines (arXiv 2502.12981, OpenReview NlnDselrtl).

All losses are callables ``(model, x0, x1, t) -> scalar`` on pairs x0 ~ p_0, x1 ~ p_1 and times t in [0, 1).

- geodesic path   x_t = exp_{x0}(t log_{x0}(x1)),  conditional velocity u_t = log_{x_t}(x1) / (1 - t)
- RG-VFM (intrinsic): Riemannian Gaussian posterior N_M(x1; mu_theta(x_t, t), sigma^2) with fixed sigma; on a
  homogeneous space its negative log-likelihood is, up to scale and constants, d(mu_theta(x_t, t), x1)^2.
- RG-VFM (extrinsic): Euclidean Gaussian in the embedding, ||raw_theta(x_t, t) - x1||^2 on the ambient mean
  (projected onto M only when sampling).
- RFM (Chen & Lipman 2024): ||v_theta(x_t, t) - u_t||_g^2 with a tangent velocity head.
- CFM (Lipman et al. 2023), written here (torchcfm is not installed): straight path in the ambient space,
  x_t = (1 - t) x0 + t x1, target x1 - x0.

In R^n with mu = x_t + (1 - t) v the identities mu - x1 = (1 - t)(v - u) make RG-VFM = (1 - t)^2 RFM per sample.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from iclr26.checks import check_choice, check_float, check_tensor
from iclr26.generative.rg_vfm.manifolds import Manifold, Sphere, bcast

__all__ = ["CFMLoss", "RFMLoss", "RGVFMLoss", "check_pairs"]

ANTIPODAL_GAP = 1e-4


def check_pairs(manifold: Manifold, x0: torch.Tensor, x1: torch.Tensor, t: torch.Tensor) -> None:
    """Validate a training batch: points on `manifold`, equal batch sizes, t of shape (batch,) in [0, 1)."""
    manifold.check_point(x0, "x0")
    manifold.check_point(x1, "x1")
    if x0.shape[0] != x1.shape[0]:
        raise ValueError(f"x0 and x1 must have the same batch size, got {x0.shape[0]} and {x1.shape[0]}")
    check_tensor("t", t, floating=True)
    if t.dim() != 1 or t.shape[0] != x0.shape[0]:
        raise ValueError(f"t must be a tensor of shape (batch,) = ({x0.shape[0]},), got {tuple(t.shape)}")
    if not bool(((t >= 0) & (t < 1)).all()):
        raise ValueError(f"t must lie in [0, 1), got values in [{float(t.min()):.4g}, {float(t.max()):.4g}]")


def resample_antipodal(
    manifold: Manifold, x0: torch.Tensor, x1: torch.Tensor, max_tries: int = 10
) -> torch.Tensor:
    """On a sphere, redraw x0 wherever it is (numerically) antipodal to x1, where log is undefined; warn."""
    if not isinstance(manifold, Sphere):
        return x0
    limit = torch.pi * manifold.radius * (1 - ANTIPODAL_GAP)
    bad = manifold.dist(x0, x1) > limit
    if not bool(bad.any()):
        return x0
    warnings.warn(
        f"{int(bad.sum())} antipodal (x0, x1) pairs on {manifold.name}: log is undefined there, resampling x0",
        RuntimeWarning,
        stacklevel=3,
    )
    gen = torch.Generator().manual_seed(0)
    x0 = x0.clone()
    for _ in range(max_tries):
        x0[bad] = manifold.random_base(int(bad.sum()), gen, x0.dtype, x0.device)
        bad = manifold.dist(x0, x1) > limit
        if not bool(bad.any()):
            break
    return x0


def _prepare(manifold: Manifold, x0: torch.Tensor, x1: torch.Tensor, t: torch.Tensor):
    check_pairs(manifold, x0, x1, t)
    x0 = resample_antipodal(manifold, x0, x1)
    return manifold.geodesic(x0, x1, t)


def _reduce(v: torch.Tensor, reduction: str) -> torch.Tensor:
    return v.mean() if reduction == "mean" else v


class RGVFMLoss:
    """Riemannian Gaussian VFM loss: E d(mu_theta(x_t, t), x1)^2 (intrinsic) or E ||raw - x1||^2 (extrinsic).

    The model is an :class:`~iclr26.generative.rg_vfm.models.EndpointMLP` (``model(x, t)`` a point on M; the
    extrinsic variant reads ``model.raw(x, t)``, the unprojected ambient mean).

    ``t_clip``: ``None`` (default) gives the plain mean of d(mu, x1)^2. A value c in [0, 1) divides each sample's
    error by (1 - min(t, c))^2, the time normalisation of the official RG-VFM code (V-ReQFlow divides the
    endpoint distance by ``1 - min(t, t_normalize_clip)`` with ``t_normalize_clip = 0.9``); it is the fixed-sigma
    posterior with width sigma (1 - t), and makes the flat-space loss equal to the velocity loss for t <= c.
    """

    def __init__(
        self,
        manifold: Manifold,
        variant: str = "intrinsic",
        reduction: str = "mean",
        t_clip: float | None = None,
    ) -> None:
        if not isinstance(manifold, Manifold):
            raise TypeError(f"manifold must be a Manifold, got {type(manifold).__name__}")
        check_choice("variant", variant, ("intrinsic", "extrinsic"))
        check_choice("reduction", reduction, ("mean", "none"))
        if t_clip is not None:
            t_clip = check_float("t_clip", t_clip, 0.0, 1.0, high_open=True)
        self.manifold, self.variant, self.reduction, self.t_clip = manifold, variant, reduction, t_clip

    def from_endpoint(
        self, mu: torch.Tensor, x1: torch.Tensor, t: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Per-sample or mean d(mu, x1)^2 (intrinsic) / ||mu - x1||^2 (extrinsic, mu ambient).

        With ``t_clip`` set and times ``t`` given, each error is divided by (1 - min(t, t_clip))^2.
        """
        if self.variant == "intrinsic":
            err = self.manifold.dist(mu, x1).pow(2)
        else:
            err = (mu - x1).flatten(1).pow(2).sum(-1)
        if self.t_clip is not None and t is not None:
            err = err / (1 - t.to(err.dtype).clamp_max(self.t_clip)).pow(2)
        return _reduce(err, self.reduction)

    def from_tangent(
        self, x_t: torch.Tensor, w: torch.Tensor, x1: torch.Tensor, t: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Intrinsic loss with mu = exp_{x_t}(w) for a tangent output w at x_t."""
        return self.from_endpoint(self.manifold.exp(x_t, w), x1, t)

    def __call__(self, model: Callable, x0: torch.Tensor, x1: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        x_t = _prepare(self.manifold, x0, x1, t)
        if self.variant == "extrinsic":
            if not hasattr(model, "raw"):
                raise TypeError("the extrinsic variant needs a model with a .raw(x, t) ambient output")
            return self.from_endpoint(model.raw(x_t, t), x1, t)
        return self.from_endpoint(model(x_t, t), x1, t)


class RFMLoss:
    """Riemannian flow matching loss E ||v_theta(x_t, t) - log_{x_t}(x1) / (1 - t)||_g^2 (velocity head)."""

    def __init__(self, manifold: Manifold, reduction: str = "mean") -> None:
        if not isinstance(manifold, Manifold):
            raise TypeError(f"manifold must be a Manifold, got {type(manifold).__name__}")
        check_choice("reduction", reduction, ("mean", "none"))
        self.manifold, self.reduction = manifold, reduction

    def target(self, x_t: torch.Tensor, x1: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """Conditional velocity u_t(x_t | x1) = log_{x_t}(x1) / (1 - t)."""
        return self.manifold.log(x_t, x1) / bcast(1 - t, x_t)

    def from_velocity(
        self, x_t: torch.Tensor, v: torch.Tensor, x1: torch.Tensor, t: torch.Tensor
    ) -> torch.Tensor:
        """Loss of a tangent velocity v at x_t."""
        diff = v - self.target(x_t, x1, t)
        return _reduce(self.manifold.inner(x_t, diff, diff), self.reduction)

    def __call__(self, model: Callable, x0: torch.Tensor, x1: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        x_t = _prepare(self.manifold, x0, x1, t)
        return self.from_velocity(x_t, model(x_t, t), x1, t)


class CFMLoss:
    """Euclidean conditional flow matching in the ambient space: E ||v_theta(x_t, t) - (x1 - x0)||^2."""

    def __init__(self, reduction: str = "mean") -> None:
        check_choice("reduction", reduction, ("mean", "none"))
        self.reduction = reduction

    def __call__(self, model: Callable, x0: torch.Tensor, x1: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        check_tensor("x0", x0, floating=True)
        check_tensor("x1", x1, floating=True)
        check_tensor("t", t, floating=True)
        if x0.shape != x1.shape:
            raise ValueError(
                f"x0 and x1 must have the same shape, got {tuple(x0.shape)} and {tuple(x1.shape)}"
            )
        if t.dim() != 1 or t.shape[0] != x0.shape[0] or not bool(((t >= 0) & (t < 1)).all()):
            raise ValueError(f"t must have shape (batch,) = ({x0.shape[0]},) with values in [0, 1)")
        tt = bcast(t, x0)
        x_t = (1 - tt) * x0 + tt * x1
        return _reduce((model(x_t, t) - (x1 - x0)).flatten(1).pow(2).sum(-1), self.reduction)
