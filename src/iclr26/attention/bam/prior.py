"""The generalized-Gaussian (GGD) positional prior of BAM (arXiv 2505.22842, OpenReview dXJB9O8fLd).

BAM reads an additive positional score ``g_h(i, j)`` as the log of a prior over the relative offset
``delta = j - i`` (``<= 0`` for causal attention). Its prior is a generalized Gaussian, per head ``h``:

    g_h(delta) = -exp(theta_alpha_h) * (|delta - mu_h| + eps) ** beta_h,    mu_h = exp(theta_mu_h) - exp(-theta_mu_h)

``beta = 0`` is a constant (the uniform prior, i.e. NoPE); ``beta = 1, mu = 0, exp(theta_alpha) = m_h`` is ALiBi
(a Laplace prior) up to ``m_h * eps``; ``beta = 2`` is a Gaussian. ``theta_alpha`` (log scale) and ``beta`` (shape)
are trained; the location ``mu`` is frozen at 0 unless ``train_loc``.

An earlier version of the official code put the scale inside the power, ``-(|(delta - mu) e^{s}| + eps) ** beta``;
:func:`legacy_to_readme` maps it onto this form (a reparameterization with different gradients).

Example
-------
>>> import torch
>>> prior = GGDPrior(2, init_scale=0.5, init_shape=1.0)
>>> bias = prior(torch.arange(4), torch.arange(4))
>>> bias.shape
torch.Size([1, 2, 4, 4])
>>> round(float(bias[0, 0, 3, 0].detach()), 4)
-1.5
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor

__all__ = ["EPS", "GGDPrior", "alibi_slopes", "ggd_bias", "legacy_ggd_bias", "legacy_to_readme"]

EPS = 1e-5


def alibi_slopes(n_heads: int) -> Tensor:
    """ALiBi's per-head slopes (Press et al., 2022): ``2^(-8 i / n)`` for ``n`` a power of two, interleaved else.

    >>> alibi_slopes(4).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625]
    """
    check_int("n_heads", n_heads, low=1)

    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    if math.log2(n_heads).is_integer():
        return torch.tensor(power_of_two(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    extra = power_of_two(2 * closest)[0::2][: n_heads - closest]
    return torch.tensor(power_of_two(closest) + extra)


def ggd_bias(
    delta: Tensor, theta_alpha: Tensor, beta: Tensor, mu: Tensor | float = 0.0, eps: float = EPS
) -> Tensor:
    """``-exp(theta_alpha) * (|delta - mu| + eps) ** beta`` with every argument broadcast (the README form)."""
    check_tensor("delta", delta, floating=True)
    _check_bias_args(delta, eps, mu, theta_alpha=theta_alpha, beta=beta)
    return _ggd(delta, theta_alpha, beta, mu, eps)


def _ggd(delta: Tensor, theta_alpha: Tensor, beta: Tensor, mu: Tensor | float, eps: float) -> Tensor:
    return -torch.exp(theta_alpha) * (torch.abs(delta - mu) + eps) ** beta


def _check_bias_args(delta: Tensor | None, eps: float | Tensor, mu: Tensor | float, **params: Tensor) -> None:
    """Floating tensors that broadcast together, a finite ``mu`` and a finite ``eps >= 0`` (tensors are used as
    given)."""
    if delta is not None:
        check_tensor("delta", delta, floating=True)
    if isinstance(mu, Tensor):
        params = {**params, "mu": mu}
    else:
        check_float("mu", mu)
    for name, t in params.items():
        check_tensor(name, t, floating=True)
    if not isinstance(eps, Tensor):
        check_float("eps", eps, low=0.0)
    shapes = [t.shape for t in ([delta] if delta is not None else []) + list(params.values())]
    try:
        torch.broadcast_shapes(*shapes)
    except RuntimeError:
        names = (["delta"] if delta is not None else []) + list(params)
        got = ", ".join(f"{n} {tuple(sh)}" for n, sh in zip(names, shapes))
        raise ValueError(f"{', '.join(names)} must broadcast together, got shapes {got}") from None


def legacy_ggd_bias(
    delta: Tensor, theta_scale: Tensor, theta_shape: Tensor, mu: Tensor | float = 0.0, eps: float = EPS
) -> Tensor:
    """The earlier code's form, scale inside the power: ``-(|(delta - mu) e^{theta_scale}| + eps) ** theta_shape``,
    every argument broadcast (as :func:`ggd_bias`)."""
    check_tensor("delta", delta, floating=True)
    _check_bias_args(delta, eps, mu, theta_scale=theta_scale, theta_shape=theta_shape)
    return -((torch.abs((delta - mu) * torch.exp(theta_scale)) + eps) ** theta_shape)


def legacy_to_readme(
    theta_scale: Tensor, theta_shape: Tensor, eps: float = EPS
) -> tuple[Tensor, Tensor, Tensor]:
    """README-form ``(theta_alpha, beta, eps')`` giving the same bias as :func:`legacy_ggd_bias` (elementwise:
    `theta_scale` and `theta_shape` of any shapes that broadcast together).

    ``(e^s |x| + eps)^b = e^{b s} (|x| + eps e^{-s})^b``, so ``theta_alpha = b s`` and ``eps' = eps e^{-s}``.
    """
    _check_bias_args(None, eps, 0.0, theta_scale=theta_scale, theta_shape=theta_shape)
    return theta_shape * theta_scale, theta_shape, eps * torch.exp(-theta_scale)


def _check_positions(name: str, pos: Tensor) -> Tensor:
    if not isinstance(pos, Tensor):
        raise TypeError(f"{name} must be a 1-D integer tensor of positions, got {type(pos).__name__}")
    if pos.dtype.is_floating_point or pos.dtype.is_complex or pos.dtype == torch.bool:
        raise ValueError(f"{name} must hold integer positions, got dtype {pos.dtype}")
    if pos.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(pos.shape)}")
    return pos


class GGDPrior(nn.Module):
    """BAM's learnable generalized-Gaussian prior over relative position, one (scale, shape) per head.

    Parameters
    ----------
    n_heads : number of heads H.
    init_scale : ``"alibi"`` (``exp(theta_alpha) = m_h``, the ALiBi slopes), a positive float (the same scale for
        every head; the official default is 1.0), or ``"lognormal"`` (``theta_alpha ~ N(0, 1)``).
    init_shape : a float ``beta`` for every head (1.0: ALiBi at init; 0.0: NoPE at init, the official default),
        ``"linspace"`` (0..1 across heads) or ``"sampled"`` (``N(0, 1)``; needs ``allow_increasing``).
    train_loc : learn the location ``mu`` (frozen at 0 otherwise; then it is a buffer, not a parameter).
    train_shape : learn ``beta`` (``False`` with ``init_shape=1`` gives a learnable-scale Laplace prior).
    allow_increasing : allow ``beta < 0`` at init (a prior that grows with distance).
    causal : the prior is defined for ``delta <= 0`` only; calling it non-causally raises.
    eps : the offset that keeps the power finite (and differentiable in ``beta``) at ``delta = mu``.
    """

    def __init__(
        self,
        n_heads: int,
        init_scale: str | float = "alibi",
        init_shape: str | float = 1.0,
        train_loc: bool = False,
        *,
        train_shape: bool = True,
        allow_increasing: bool = False,
        causal: bool = True,
        eps: float = EPS,
    ) -> None:
        super().__init__()
        check_int("n_heads", n_heads, low=1)
        for flag, value in (
            ("train_loc", train_loc),
            ("train_shape", train_shape),
            ("allow_increasing", allow_increasing),
            ("causal", causal),
        ):
            check_bool(flag, value)
        if isinstance(init_scale, str):
            if init_scale not in ("alibi", "lognormal"):
                raise ValueError(
                    f"init_scale must be 'alibi', 'lognormal' or a positive float, got {init_scale!r}"
                )
        else:
            check_float("init_scale", init_scale, low=0.0, low_open=True)
        if isinstance(init_shape, str):
            if init_shape not in ("linspace", "sampled"):
                raise ValueError(f"init_shape must be 'linspace', 'sampled' or a float, got {init_shape!r}")
            if init_shape == "sampled" and not allow_increasing:
                raise ValueError(
                    "init_shape='sampled' draws negative beta (a prior increasing with distance); "
                    "pass allow_increasing=True"
                )
        elif check_float("init_shape", init_shape) < 0 and not allow_increasing:
            raise ValueError(
                f"init_shape must be >= 0: negative beta={init_shape} gives a prior increasing with distance "
                "(pass allow_increasing=True to allow it)"
            )
        check_float("eps", eps, low=0.0, low_open=True)
        self.n_heads, self.init_scale, self.init_shape = n_heads, init_scale, init_shape
        self.train_loc, self.train_shape, self.causal, self.eps = train_loc, train_shape, causal, float(eps)
        self.theta_alpha = nn.Parameter(torch.zeros(n_heads))
        if train_shape:
            self.theta_beta = nn.Parameter(torch.zeros(n_heads))
        else:
            self.register_buffer("theta_beta", torch.zeros(n_heads))
        if train_loc:
            self.theta_mu = nn.Parameter(torch.zeros(n_heads))
        else:
            self.register_buffer("theta_mu", torch.zeros(n_heads))
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Apply the init options (the sampled ones draw from ``generator``)."""
        h = self.n_heads
        with torch.no_grad():
            if self.init_scale == "alibi":
                alpha = alibi_slopes(h).log()
            elif self.init_scale == "lognormal":
                alpha = torch.randn(h, generator=generator)
            else:
                alpha = torch.full((h,), math.log(float(self.init_scale)))
            if self.init_shape == "linspace":
                beta = torch.linspace(0.0, 1.0, h)
            elif self.init_shape == "sampled":
                beta = torch.randn(h, generator=generator)
            else:
                beta = torch.full((h,), float(self.init_shape))
            self.theta_alpha.copy_(alpha)
            self.theta_beta.copy_(beta)
            self.theta_mu.zero_()

    @property
    def mu(self) -> Tensor:
        """The location ``mu_h = exp(theta_mu) - exp(-theta_mu)`` (0 when frozen at init)."""
        return torch.exp(self.theta_mu) - torch.exp(-self.theta_mu)

    @property
    def scale(self) -> Tensor:
        """``exp(theta_alpha)`` per head."""
        return torch.exp(self.theta_alpha)

    def _check_call(self, causal: bool) -> None:
        if self.causal and not causal:
            raise ValueError(
                "non-causal call with a causal-only prior (defined for delta = j - i <= 0); "
                "build GGDPrior(..., causal=False) for bidirectional attention"
            )

    def forward(self, q_pos: Tensor, k_pos: Tensor, causal: bool = True) -> Tensor:
        """The (1, H, Tq, Tk) bias ``g_h(k_pos[j] - q_pos[i])`` for integer query and key positions.

        Any query block (``q_pos = arange(a, b)``) gives the matching rows of the full bias, which is how long
        contexts are processed in (chunk x T) blocks.
        """
        self._check_call(causal)
        q_pos, k_pos = _check_positions("q_pos", q_pos), _check_positions("k_pos", k_pos)
        dtype = self.theta_alpha.dtype
        delta = (k_pos.to(dtype)[None, :] - q_pos.to(dtype)[:, None])[None]  # (1, Tq, Tk), j - i
        alpha, beta, mu = (t[:, None, None] for t in (self.theta_alpha, self.theta_beta, self.mu))
        return _ggd(delta, alpha, beta, mu, self.eps)[None]

    def score_fn(self, q_offset: int = 0, causal: bool = True) -> Callable[[Tensor, Tensor, Tensor], Tensor]:
        """``fn(h, q_idx, kv_idx)`` giving the prior elementwise, for :func:`iclr26.lab.flex.additive_bias`.

        ``q_offset`` is added to ``q_idx`` (a query block starting at ``q_offset``).
        """
        self._check_call(causal)

        def fn(h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
            delta = (kv_idx - (q_idx + q_offset)).to(self.theta_alpha.dtype)
            return _ggd(delta, self.theta_alpha[h], self.theta_beta[h], self.mu[h], self.eps)

        return fn

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, train_loc={self.train_loc}, train_shape={self.train_shape}"
