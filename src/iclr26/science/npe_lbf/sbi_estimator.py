"""The LBF family as an sbi conditional density estimator (imports sbi; loaded lazily by the package).

``build_lbf(batch_theta, batch_x, **kw)`` has the signature sbi expects of a custom density-estimator builder,
so ``sbi.inference.NPE(prior, density_estimator=build_lbf)`` (or ``functools.partial(build_lbf, ...)``) trains
the LBF family with sbi's own loop, next to its built-in MDN and flows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from sbi.neural_nets.estimators.base import ConditionalDensityEstimator
from torch import Tensor, nn

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor
from iclr26.science.npe_lbf.bases import (
    BSplineBasis1D,
    LegendreBasis,
    MLPBasis,
    TensorBSpline2D,
    check_support,
)
from iclr26.science.npe_lbf.family import LBFPosterior

__all__ = ["LBFDensityEstimator", "build_lbf", "default_support", "make_basis"]


def default_support(theta: Tensor, margin: float = 0.1, q: float = 0.001) -> tuple[Tensor, Tensor]:
    """Support box from training latents: the [q, 1 - q] quantiles widened by `margin` of their range per side."""
    if not isinstance(theta, Tensor) or theta.dim() != 2 or theta.shape[0] < 2:
        raise ValueError(f"batch_theta must be a (N >= 2, d_z) tensor, got {getattr(theta, 'shape', theta)}")
    check_tensor("batch_theta", theta, floating=True, finite=True)
    check_float("margin", margin, low=0.0)
    check_float("q (quantile)", q, 0.0, 0.5, high_open=True)
    t = theta.to(torch.float64)
    lo, hi = torch.quantile(t, q, dim=0), torch.quantile(t, 1 - q, dim=0)
    span = (hi - lo).clamp_min(1e-6)
    return lo - margin * span, hi + margin * span


def make_basis(
    kind: str, d_z: int, low: Tensor, high: Tensor, n_basis: int | None = None, degree: int = 3
) -> nn.Module:
    """A basis by name: ``"bspline"`` (K = 64 in 1-D, 24 x 24 in 2-D), ``"legendre"`` (degree 8), ``"mlp"``."""
    check_int("d_z", d_z, low=1)
    if n_basis is not None:
        check_int("n_basis (None for the default)", n_basis, low=1)
    if d_z > 2:
        raise ValueError(
            f"d_z = {d_z} > 2: grid quadrature is limited to d_z <= 2; project theta onto the 1 or 2 dimensions "
            "of interest before NPE (the other coordinates are marginalised automatically)"
        )
    if kind == "bspline":
        if d_z == 1:
            return BSplineBasis1D(n_basis or 64, float(low[0]), float(high[0]), degree)
        return TensorBSpline2D(n_basis or 24, low, high, degree)
    if kind == "legendre":
        return LegendreBasis(
            n_basis or 8, low if d_z == 2 else float(low[0]), high if d_z == 2 else float(high[0]), d_z
        )
    if kind == "mlp":
        return MLPBasis(d_z, n_basis or 32, low, high)
    check_choice("basis", kind, ("bspline", "legendre", "mlp"))
    raise AssertionError("unreachable")


class LBFDensityEstimator(ConditionalDensityEstimator):
    """sbi wrapper of an :class:`LBFPosterior` following sbi's (sample, batch, event) shape conventions.

    ``log_prob(input (S, B, d) or (B, d), condition (B, ...)) -> (S, B) or (B,)``;
    ``loss(input (B, d), condition (B, ...)) -> (B,)``; ``sample(sample_shape, condition (B, ...)) ->
    (*sample_shape, B, d)``.
    """

    def __init__(self, net: LBFPosterior, input_shape: torch.Size, condition_shape: torch.Size) -> None:
        if not isinstance(net, LBFPosterior):
            raise TypeError(f"net must be an LBFPosterior, got {type(net).__name__}")
        super().__init__(net, torch.Size(input_shape), torch.Size(condition_shape))

    @property
    def embedding_net(self) -> nn.Module:
        return self.net.embedding_net

    def log_prob(self, input: Tensor, condition: Tensor, **kwargs) -> Tensor:
        """log q(input | condition) with sbi's shape conventions; -inf outside the support box.

        A(eta) is computed once per condition and the sample dimension is processed in chunks.
        """
        has_sample_dim = input.dim() > len(self.input_shape) + 1
        if not has_sample_dim:
            input = input.unsqueeze(0)
        self._check_condition_shape(condition)
        self._check_input_shape(input)
        s, b_in = input.shape[0], input.shape[1]
        eta = self.net.eta(condition)
        b = b_in if eta.shape[0] == 1 else eta.shape[0]
        if b_in not in (1, b):
            raise ValueError(f"batch of input ({b_in}) and condition ({eta.shape[0]}) cannot be broadcast")
        a = self.net.normalizer(eta)
        eta, a = eta.expand(b, -1), a.expand(b)
        z = input.expand(s, b, *self.input_shape)
        chunk = max(1, 8192 // b)
        out = []
        for s0 in range(0, s, chunk):
            zc = z[s0 : s0 + chunk]
            c = zc.shape[0]
            rows = self.net.log_prob_eta(
                zc.reshape(c * b, -1),
                eta.unsqueeze(0).expand(c, b, -1).reshape(c * b, -1),
                log_norm=a.unsqueeze(0).expand(c, b).reshape(-1),
            )
            out.append(rows.reshape(c, b))
        lp = torch.cat(out, dim=0).to(input.dtype)
        return lp if has_sample_dim else lp.squeeze(0)

    def loss(self, input: Tensor, condition: Tensor, **kwargs) -> Tensor:
        """Per-pair LBF NPE loss (B,)."""
        self._check_condition_shape(condition)
        self._check_input_shape(input)
        return self.net.loss(input.reshape(input.shape[0], -1), condition)

    def sample(self, sample_shape: torch.Size, condition: Tensor, **kwargs) -> Tensor:
        """Samples (*sample_shape, B, d) by grid-cell sampling with uniform jitter."""
        self._check_condition_shape(condition)
        sample_shape = torch.Size(sample_shape)
        for s in sample_shape:
            check_int("sample_shape (each size)", s, low=1)
        if kwargs.get("generator") is not None and not isinstance(kwargs["generator"], torch.Generator):
            raise TypeError(
                f"generator must be None or a torch.Generator, got {type(kwargs['generator']).__name__}"
            )
        n = max(1, math.prod(sample_shape))
        with torch.no_grad():
            z = self.net.sample_eta(self.net.eta(condition), n, kwargs.get("generator"))
        return z.reshape(*sample_shape, z.shape[1], *self.input_shape).to(condition.dtype)


def build_lbf(
    batch_theta: Tensor,
    batch_x: Tensor,
    basis: str | nn.Module = "bspline",
    n_basis: int | None = None,
    support: tuple[Sequence[float] | Tensor, Sequence[float] | Tensor] | None = None,
    grid: int | None = None,
    eta_net: str | nn.Module = "mlp",
    hidden: Sequence[int] = (128, 128),
    embedding_net: nn.Module | None = None,
    penalty: float = 1e-4,
    log_base: Callable[[Tensor], Tensor] | None = None,
    z_score_x: bool = True,
    quad_dtype: torch.dtype = torch.float64,
) -> LBFDensityEstimator:
    """sbi density-estimator builder for the LBF family (usable as ``NPE(density_estimator=build_lbf)``).

    `support` is the latent box (low, high), e.g. the prior's bounds; by default the [0.1%, 99.9%] quantiles of
    `batch_theta` widened by 10% of their range. x is z-scored with the batch statistics (``z_score_x``) and then
    passed through `embedding_net` (default identity) and the eta-network.
    """
    if not isinstance(batch_theta, Tensor) or batch_theta.dim() != 2:
        raise ValueError(
            f"batch_theta must be a (N, d_z) tensor, got {getattr(batch_theta, 'shape', batch_theta)}"
        )
    if not isinstance(batch_x, Tensor) or batch_x.dim() < 2 or batch_x.shape[0] != batch_theta.shape[0]:
        raise ValueError(
            f"batch_x must be a (N, ...) tensor with the same N as batch_theta ({batch_theta.shape[0]}), "
            f"got {getattr(batch_x, 'shape', batch_x)}"
        )
    check_tensor("batch_theta", batch_theta, floating=True, finite=True)
    if batch_x.is_floating_point() and not bool(torch.isfinite(batch_x).all()):
        raise ValueError("batch_x must be finite, but holds NaN or infinite values")
    check_bool("z_score_x", z_score_x)
    if embedding_net is not None and not isinstance(embedding_net, nn.Module):
        raise TypeError(f"embedding_net must be None or an nn.Module, got {type(embedding_net).__name__}")
    if support is not None and (
        isinstance(support, (str, bytes)) or not hasattr(support, "__len__") or len(support) != 2
    ):
        raise ValueError(f"support must be a pair (low, high), got {support!r}")
    d_z = batch_theta.shape[1]
    if d_z > 2 and not isinstance(basis, nn.Module):
        make_basis("bspline", d_z, torch.zeros(d_z), torch.ones(d_z))  # raises the projection hint
    if support is None:
        low, high = default_support(batch_theta)
    else:
        low, high = check_support(support[0], support[1], d_z)
    basis_mod = basis if isinstance(basis, nn.Module) else make_basis(basis, d_z, low, high, n_basis)
    emb = embedding_net if embedding_net is not None else nn.Identity()
    with torch.no_grad():
        x_dim = int(emb(batch_x[:2]).reshape(2, -1).shape[1])
    lbf = LBFPosterior(
        basis_mod,
        x_dim,
        eta_net=eta_net,
        hidden=hidden,
        grid=grid,
        log_base=log_base,
        penalty=penalty,
        embedding_net=embedding_net,
        quad_dtype=quad_dtype,
    )
    if z_score_x:
        lbf.set_x_standardization(batch_x)
    return LBFDensityEstimator(lbf, batch_theta.shape[1:], batch_x.shape[1:])
