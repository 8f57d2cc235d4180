"""The LBF conditional family q(z | x) = h(z) exp(eta(x)^T T(z) - A(eta(x))) and its plain-torch NPE trainer.

A(eta) = log int_Z h(z) exp(eta^T T(z)) dz is computed by midpoint quadrature on a uniform grid over the support
box Z (float64 log-sum-exp). Tensor-product B-spline bases are evaluated separably on the grid
(B1 eta B2^T per sample). The training loss is the NPE loss E[A(eta(x)) - eta(x)^T T(z) - log h(z)] plus an
optional second-difference penalty on spline coefficients.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor
from iclr26.science.npe_lbf.bases import BSplineBasis1D, MLPBasis, TensorBSpline2D

__all__ = ["LBFPosterior", "default_grid", "npe_train"]


def default_grid(d_z: int) -> int:
    """Quadrature nodes per dimension: 512 in 1-D, 128 per axis in 2-D."""
    return 512 if d_z == 1 else 128


def _mlp(d_in: int, hidden: Sequence[int], d_out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = d_in
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    last = nn.Linear(width, d_out)
    nn.init.zeros_(last.weight)  # eta = 0 at start: q is h(z) normalised on the support
    nn.init.zeros_(last.bias)
    layers.append(last)
    return nn.Sequential(*layers)


class LBFPosterior(nn.Module):
    """Latent-basis-function posterior q(z | x) on a bounded support box (d_z <= 2).

    Parameters
    ----------
    basis : a basis module with ``d_z``, ``n_basis``, ``low``, ``high`` (see :mod:`.bases`).
    x_dim : dimension of x after `embedding_net` (the eta-network's input).
    eta_net : ``"mlp"`` (ReLU MLP with `hidden` widths), ``"linear"`` (eta = W x + c, a classical
        exponential-family regression, convex in (W, c)), or any module mapping x to (N, K).
    grid : quadrature nodes per dimension (default 512 in 1-D, 128 in 2-D).
    log_base : None for the uniform base measure on the support, or a callable z (N, d_z) -> log h(z) (N,),
        e.g. the prior's log density.
    penalty : weight lambda of the second-difference roughness penalty on spline coefficients.
    embedding_net : optional module applied to standardised x before the eta-network.
    quad_dtype : floating dtype of the quadrature and log-densities (float64 by default; float32 is about 3x
        faster on CPU and is what the experiment's training runs use).
    """

    def __init__(
        self,
        basis: nn.Module,
        x_dim: int,
        eta_net: str | nn.Module = "mlp",
        hidden: Sequence[int] = (128, 128),
        grid: int | None = None,
        log_base: Callable[[Tensor], Tensor] | None = None,
        penalty: float = 1e-4,
        embedding_net: nn.Module | None = None,
        quad_dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        d_z = getattr(basis, "d_z", None)
        if (
            not isinstance(basis, nn.Module)
            or d_z is None
            or not all(hasattr(basis, a) for a in ("n_basis", "low", "high"))
        ):
            raise TypeError(
                "basis must be an nn.Module with d_z, n_basis, low and high (see the .bases module)"
            )
        check_int("basis.d_z", d_z, low=1)
        check_int("basis.n_basis", basis.n_basis, low=1)
        if d_z > 2:
            raise ValueError(
                f"d_z = {d_z} > 2: grid quadrature of A(eta) is limited to d_z <= 2; project the latent onto the "
                "1 or 2 dimensions of interest (NPE marginalises the rest automatically)"
            )
        x_dim = check_int("x_dim", x_dim, low=1)
        grid = default_grid(d_z) if grid is None else grid
        grid = check_int("grid (quadrature nodes per dim)", grid, low=2)
        if quad_dtype not in (torch.float32, torch.float64):
            raise ValueError(f"quad_dtype must be torch.float32 or torch.float64, got {quad_dtype}")
        check_float("penalty", penalty, low=0.0)
        if log_base is not None and not callable(log_base):
            raise TypeError(
                f"log_base must be None or a callable z -> log h(z), got {type(log_base).__name__}"
            )
        if embedding_net is not None and not isinstance(embedding_net, nn.Module):
            raise TypeError(f"embedding_net must be None or an nn.Module, got {type(embedding_net).__name__}")
        if eta_net == "mlp":
            if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence):
                raise TypeError(f"hidden must be a sequence of layer widths, got {hidden!r}")
            for h in hidden:
                check_int("hidden (each layer width)", h, low=1)
        self.basis, self.d_z, self.n_basis, self.x_dim = basis, d_z, int(basis.n_basis), x_dim
        self.grid, self.penalty, self.log_base = grid, float(penalty), log_base
        self.embedding_net = embedding_net if embedding_net is not None else nn.Identity()
        if isinstance(eta_net, nn.Module):
            self.eta_net = eta_net
        elif eta_net == "mlp":
            self.eta_net = _mlp(x_dim, tuple(hidden), self.n_basis)
        elif eta_net == "linear":
            self.eta_net = _mlp(x_dim, (), self.n_basis)
        else:
            raise ValueError(f"eta_net must be 'mlp', 'linear' or an nn.Module, got {eta_net!r}")
        self.register_buffer("x_shift", torch.zeros(0))  # set from training data (event shape of raw x)
        self.register_buffer("x_scale", torch.ones(0))
        low, high = basis.low.to(torch.float64), basis.high.to(torch.float64)
        width = (high - low) / grid
        nodes = [low[d] + (torch.arange(grid, dtype=torch.float64) + 0.5) * width[d] for d in range(d_z)]
        mesh = torch.meshgrid(*nodes, indexing="ij")
        self.register_buffer("grid_nodes", torch.stack(nodes))  # (d_z, grid)
        self.register_buffer("grid_z", torch.stack([m.reshape(-1) for m in mesh], dim=-1))  # (G, d_z)
        self.register_buffer("cell", width)
        self.log_cell = float(torch.log(width).sum())
        self.separable = isinstance(basis, (BSplineBasis1D, TensorBSpline2D))
        self.learned_basis = isinstance(basis, MLPBasis) or any(p.requires_grad for p in basis.parameters())
        if self.separable:
            for d, f in enumerate(self._node_factors()):
                self.register_buffer(f"grid_factor{d}", f.to(quad_dtype))
        elif not self.learned_basis:
            self.register_buffer("grid_T", basis(self.grid_z).to(quad_dtype))
        self.register_buffer("grid_log_h", self._log_h(self.grid_z).to(quad_dtype))

    # ----------------------------------------------------------------------------------------------- helpers
    @property
    def low(self) -> Tensor:
        return self.basis.low

    @property
    def high(self) -> Tensor:
        return self.basis.high

    def _node_factors(self) -> list[Tensor]:
        if isinstance(self.basis, BSplineBasis1D):
            return [self.basis.evaluate(self.grid_nodes[0])]
        return [self.basis.b1.evaluate(self.grid_nodes[0]), self.basis.b2.evaluate(self.grid_nodes[1])]

    @property
    def quad_dtype(self) -> torch.dtype:
        """dtype of the quadrature (follows ``.double()`` / ``.float()`` of the module)."""
        return self.grid_log_h.dtype if hasattr(self, "grid_log_h") else torch.float64

    def _log_h(self, z: Tensor) -> Tensor:
        if self.log_base is None:
            return torch.zeros(z.shape[0], dtype=z.dtype, device=z.device)
        out = self.log_base(z)
        if not isinstance(out, Tensor) or out.numel() != z.shape[0] or bool(torch.isnan(out).any()):
            raise ValueError(
                f"log_base must return one log density per point ({z.shape[0]}) without NaN, got "
                f"{tuple(out.shape) if isinstance(out, Tensor) else type(out).__name__}"
            )
        return out.to(z.dtype).reshape(z.shape[0])

    def set_x_standardization(self, x: Tensor) -> None:
        """Standardise x with the per-feature mean and std of training data `x` (N, x_dim) (std floored)."""
        if not isinstance(x, Tensor) or x.dim() < 2 or x.shape[0] < 2:
            raise ValueError(
                f"x must be a tensor (N >= 2, ...) of training observations, got {getattr(x, 'shape', x)}"
            )
        x = x.to(torch.get_default_dtype())
        if not bool(torch.isfinite(x).all()):
            raise ValueError("x (training observations) must be finite, but holds NaN or infinite values")
        if isinstance(self.embedding_net, nn.Identity) and (x.dim() != 2 or x.shape[1] != self.x_dim):
            raise ValueError(f"x must have shape (N, x_dim = {self.x_dim}), got {tuple(x.shape)}")
        self.x_shift = x.mean(0)
        std = x.std(0)
        self.x_scale = torch.where(std > 1e-8, std, torch.ones_like(std))

    def _check_eta(self, eta: Tensor) -> Tensor:
        if not isinstance(eta, Tensor) or eta.dim() != 2 or eta.shape[1] != self.n_basis:
            shape = tuple(eta.shape) if isinstance(eta, Tensor) else type(eta).__name__
            raise ValueError(f"eta must have shape (B, K = {self.n_basis}), got {shape}")
        check_tensor("eta", eta, floating=True, finite=True)
        return eta

    def _check_z(self, z: Tensor) -> None:
        if not isinstance(z, Tensor):
            raise TypeError(f"z must be a torch.Tensor, got {type(z).__name__}")
        if z.dim() != 2 or z.shape[1] != self.d_z:
            raise ValueError(f"z must have shape (N, d_z = {self.d_z}), got {tuple(z.shape)}")
        if z.is_floating_point() and bool(torch.isnan(z).any()):
            raise ValueError("z must not hold NaN (+-inf counts as outside the support)")

    # -------------------------------------------------------------------------------------------- the family
    def eta(self, x: Tensor) -> Tensor:
        """Natural parameters eta(x) (N, K) of the observations x (N, ...)."""
        if not isinstance(x, Tensor):
            raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if x.dim() < 1 or x.shape[0] < 1:
            raise ValueError(f"x must have a non-empty batch dimension, got shape {tuple(x.shape)}")
        if isinstance(self.embedding_net, nn.Identity) and (x.dim() != 2 or x.shape[1] != self.x_dim):
            raise ValueError(f"x must have shape (N, x_dim = {self.x_dim}), got {tuple(x.shape)}")
        if isinstance(self.embedding_net, nn.Identity):
            check_tensor("x", x, floating=True)
        if x.is_floating_point() and not bool(torch.isfinite(x).all()):
            raise ValueError("x must be finite, but holds NaN or infinite values")
        if self.x_shift.numel() > 0:
            if tuple(x.shape[1:]) != tuple(self.x_shift.shape):
                raise ValueError(
                    f"x must have event shape {tuple(self.x_shift.shape)}, got {tuple(x.shape[1:])}"
                )
            x = (x - self.x_shift.to(x.dtype)) / self.x_scale.to(x.dtype)
        return self.eta_net(self.embedding_net(x))

    def grid_logits(self, eta: Tensor) -> Tensor:
        """eta^T T(z_g) + log h(z_g) at every grid node (B, G), G = grid ** d_z (row-major), in quad_dtype."""
        eta = self._check_eta(eta).to(self.quad_dtype)
        if self.separable and self.d_z == 1:
            out = eta @ self.grid_factor0.T
        elif self.separable:
            k1, k2 = self.basis.shape
            out = self.grid_factor0 @ eta.reshape(-1, k1, k2) @ self.grid_factor1.T
            out = out.reshape(eta.shape[0], -1)
        else:
            t = self.basis(self.grid_z).to(self.quad_dtype) if self.learned_basis else self.grid_T
            out = eta @ t.T
        return out + self.grid_log_h

    def normalizer(self, eta: Tensor) -> Tensor:
        """Log-partition A(eta) (B,) in quad_dtype: logsumexp_g(eta^T T(z_g) + log h(z_g)) + log(cell volume)."""
        return torch.logsumexp(self.grid_logits(eta), dim=-1) + self.log_cell

    def grid_weights(self, eta: Tensor) -> Tensor:
        """Cell probabilities q(z_g) * cell volume (B, G); each row sums to 1."""
        return torch.softmax(self.grid_logits(eta), dim=-1)

    def moments(self, eta: Tensor) -> tuple[Tensor, Tensor]:
        """E_q[T] (B, K) and Cov_q[T] (B, K, K) by the same quadrature as A."""
        w = self.grid_weights(eta)
        t = self.basis(self.grid_z.to(self.quad_dtype)).to(self.quad_dtype)
        mean = w @ t
        centred = t.unsqueeze(0) - mean.unsqueeze(1)
        cov = torch.einsum("bg,bgk,bgl->bkl", w, centred, centred)
        return mean, cov

    def in_support(self, z: Tensor) -> Tensor:
        """Boolean (N,) mask of rows of z inside the closed support box."""
        self._check_z(z)
        lo, hi = self.low.to(z.dtype), self.high.to(z.dtype)
        return ((z >= lo) & (z <= hi)).all(dim=-1)

    def linear_term(self, z: Tensor, eta: Tensor) -> Tensor:
        """eta^T T(z) (N,) for paired rows (separable for tensor-product splines), in quad_dtype."""
        self._check_z(z)
        self._check_eta(eta)
        if eta.shape[0] not in (1, z.shape[0]):
            raise ValueError(f"batch of eta ({eta.shape[0]}) differs from the batch of z ({z.shape[0]})")
        zq, eq = z.to(self.quad_dtype), eta.to(self.quad_dtype)
        if isinstance(self.basis, TensorBSpline2D):
            f1, f2 = self.basis.factors(zq)
            return torch.einsum("ni,nij,nj->n", f1, eq.reshape(-1, *self.basis.shape), f2)
        return (eq * self.basis(zq).to(self.quad_dtype)).sum(-1)

    def log_prob_eta(
        self, z: Tensor, eta: Tensor, strict: bool = False, log_norm: Tensor | None = None
    ) -> Tensor:
        """log q(z | eta) (N,) for paired rows of z (N, d_z) and eta (N, K); -inf outside the support.

        `log_norm` may pass precomputed A(eta) (N,) to skip the quadrature.
        """
        self._check_z(z)
        eta = self._check_eta(eta)
        if eta.shape[0] not in (1, z.shape[0]):
            raise ValueError(f"batch of x/eta ({eta.shape[0]}) differs from the batch of z ({z.shape[0]})")
        check_bool("strict", strict)
        if log_norm is not None:
            check_tensor("log_norm", log_norm, floating=True, shape=(eta.shape[0],))
        inside = self.in_support(z)
        if strict and not bool(inside.all()):
            raise ValueError(
                f"z outside the support [{self.low.tolist()}, {self.high.tolist()}] in {int((~inside).sum())} row(s)"
            )
        zq = z.to(self.quad_dtype)
        a = self.normalizer(eta) if log_norm is None else log_norm.to(self.quad_dtype)
        lp = self.linear_term(zq, eta) - a + self._log_h(zq)
        lp = torch.where(inside, lp, torch.full_like(lp, -math.inf))
        return lp.to(z.dtype) if z.dtype.is_floating_point else lp

    def log_prob(self, z: Tensor, x: Tensor, strict: bool = False) -> Tensor:
        """log q(z | x) (N,) for paired rows; -inf for z outside the support (``strict=True`` raises instead)."""
        self._check_z(z)
        check_bool("strict", strict)
        if not isinstance(x, Tensor):
            raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if x.dim() == 0 or x.shape[0] not in (1, z.shape[0]):
            raise ValueError(
                f"batch of x ({x.shape[0] if x.dim() else 'scalar'}) differs from the batch of z ({z.shape[0]})"
            )
        return self.log_prob_eta(z, self.eta(x), strict=strict)

    def roughness(self, eta: Tensor) -> Tensor:
        """Squared second differences of spline coefficients ||D2 eta||^2 per row (B,); zero for other bases."""
        self._check_eta(eta)
        if isinstance(self.basis, BSplineBasis1D):
            d2 = eta[:, 2:] - 2 * eta[:, 1:-1] + eta[:, :-2]
            return d2.pow(2).sum(-1)
        if isinstance(self.basis, TensorBSpline2D):
            e = eta.reshape(-1, *self.basis.shape)
            r1 = (e[:, 2:] - 2 * e[:, 1:-1] + e[:, :-2]).pow(2).sum((1, 2))
            r2 = (e[:, :, 2:] - 2 * e[:, :, 1:-1] + e[:, :, :-2]).pow(2).sum((1, 2))
            return r1 + r2
        return torch.zeros(eta.shape[0], dtype=eta.dtype, device=eta.device)

    def loss(self, z: Tensor, x: Tensor) -> Tensor:
        """Per-pair NPE loss A(eta) - eta^T T(z) - log h(z) + lambda ||D2 eta||^2 (N,).

        Pairs with z outside the support contribute 0 (the support is chosen to cover the training data).
        """
        self._check_z(z)
        eta = self.eta(x)
        if eta.shape[0] != z.shape[0]:
            raise ValueError(f"batch of x ({eta.shape[0]}) differs from the batch of z ({z.shape[0]})")
        inside = self.in_support(z)
        zc = torch.where(inside.unsqueeze(-1), z, self.low.to(z.dtype).expand_as(z))
        nll = -self.log_prob_eta(zc.to(self.quad_dtype), eta)
        out = nll + self.penalty * self.roughness(eta.to(self.quad_dtype))
        out = torch.where(inside, out, torch.zeros_like(out))
        return out.to(z.dtype)

    @torch.no_grad()
    def sample_eta(self, eta: Tensor, n: int, generator: torch.Generator | None = None) -> Tensor:
        """n samples per row of eta -> (n, B, d_z): a grid cell by its probability, then uniform within it."""
        check_int("n (samples per x)", n, low=1)
        if generator is not None and not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be None or a torch.Generator, got {type(generator).__name__}")
        w = self.grid_weights(eta)
        idx = torch.multinomial(w, n, replacement=True, generator=generator).T  # (n, B)
        g = self.grid
        digits = []
        rest = idx
        for _ in range(self.d_z):
            digits.append(rest % g)
            rest = rest // g
        cells = torch.stack(digits[::-1], dim=-1).to(torch.float64)  # row-major: first dim is slowest
        u = torch.rand(cells.shape, generator=generator, dtype=torch.float64, device=cells.device)
        return (self.low.to(torch.float64) + (cells + u) * self.cell).to(torch.get_default_dtype())

    @torch.no_grad()
    def sample(self, x: Tensor, n: int, generator: torch.Generator | None = None) -> Tensor:
        """n samples from q(z | x) per row of x -> (n, B, d_z) (sbi's sample-first layout)."""
        return self.sample_eta(self.eta(x), n, generator)

    @torch.no_grad()
    def grid_log_density(self, x: Tensor) -> Tensor:
        """log q on the grid (B, grid[, grid]) in quad_dtype, for plots and references."""
        eta = self.eta(x)
        lp = self.grid_logits(eta) - self.normalizer(eta).unsqueeze(-1)
        return lp.reshape(eta.shape[0], *([self.grid] * self.d_z))


def npe_train(
    simulate: Callable[[Tensor, torch.Generator], Tensor],
    prior: Callable[[int, torch.Generator], Tensor],
    family: LBFPosterior,
    n_sims: int,
    epochs: int = 50,
    batch_size: int = 256,
    lr: float = 1e-3,
    seed: int = 0,
    project: Callable[[Tensor], Tensor] | None = None,
    cosine: bool = True,
) -> tuple[LBFPosterior, list[float]]:
    """Plain-torch NPE: simulate n_sims pairs, fit `family` by Adam on the LBF loss; returns it and epoch losses.

    `prior(n, generator)` draws the full parameter vector theta (n, d_theta); `simulate(theta, generator)` returns
    x; `project(theta)` picks the latent of interest z (default: the first d_z columns). Nuisance coordinates are
    simply discarded, which is NPE's automatic marginalisation. With `cosine` the learning rate decays to 0 along a
    cosine over the run.
    """
    if not isinstance(family, LBFPosterior):
        raise TypeError(f"family must be an LBFPosterior, got {type(family).__name__}")
    for name, v in (("n_sims", n_sims), ("epochs", epochs), ("batch_size", batch_size)):
        check_int(name, v, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("seed", seed, low=0)
    check_bool("cosine", cosine)
    for name, fn in (("simulate", simulate), ("prior", prior), ("project", project)):
        if not callable(fn) and not (name == "project" and fn is None):
            raise TypeError(f"{name} must be a callable, got {type(fn).__name__}")
    gen = torch.Generator().manual_seed(seed)
    theta = prior(n_sims, gen)
    check_tensor("prior(n_sims, generator)", theta, floating=True, finite=True)
    if theta.dim() != 2 or theta.shape[0] != n_sims:
        raise ValueError(
            f"prior(n_sims, generator) must return (n_sims = {n_sims}, d_theta), got {tuple(theta.shape)}"
        )
    x = simulate(theta, gen)
    check_tensor("simulate(theta, generator)", x, finite=True)
    if x.dim() < 1 or x.shape[0] != n_sims:
        raise ValueError(
            f"simulate(theta, generator) must return one row per theta ({n_sims}), got {tuple(x.shape)}"
        )
    z = project(theta) if project is not None else theta[:, : family.d_z]
    check_tensor("z (the projected latent)", z, finite=True, shape=(n_sims, family.d_z))
    family.set_x_standardization(x)
    opt = torch.optim.Adam(family.parameters(), lr=lr)
    n_steps = epochs * math.ceil(n_sims / batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / n_steps)) if cosine else 1.0
    )
    losses: list[float] = []
    for _ in range(epochs):
        perm = torch.randperm(n_sims, generator=gen)
        total = 0.0
        for start in range(0, n_sims, batch_size):
            b = perm[start : start + batch_size]
            loss = family.loss(z[b], x[b]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * b.numel()
        losses.append(total / n_sims)
    return family, losses
