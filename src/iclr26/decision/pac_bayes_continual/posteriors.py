"""Posteriors for the cumulative-loss certificates (OpenReview hWw269fPov).

- :class:`BayesLinear` / :class:`BayesMLP`: mean-field Gaussian networks, sd = softplus(rho), trained by
  Bayes-by-backprop with the local reparameterisation (pre-activations sampled from their exact Gaussian
  marginal, i.e. an independent weight draw per example); ``kl_to(prior)`` is KL(Q || P) between two of them.
- :class:`EWCLearner`: a point-estimate MLP trained with the (online) EWC penalty
  ``(ewc_lambda / 2) sum_i F_i (w_i - w*_i)^2``; certified through ``Q_t = N(w_t, s^2 I)`` (see
  :meth:`EWCLearner.gaussian`).
- :class:`GaussianGibbsLinReg` (defined in :mod:`.gibbs`): the Gibbs posterior
  ``Q_t(h) ~ exp(-lambda Lhat(h, S_t)) Q_(t-1)(h)`` for linear regression with mean squared loss, in closed form:
  ``A_t = A_(t-1) + (2 lambda / m) X^T X``, ``A_t mu_t = A_(t-1) mu_(t-1) + (2 lambda / m) X^T y``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor
from iclr26.decision.pac_bayes_continual.gibbs import GaussianGibbsLinReg, kl_full_gauss

__all__ = ["BayesLinear", "BayesMLP", "EWCLearner", "GaussianGibbsLinReg", "kl_full_gauss"]


def _inv_softplus(x: float) -> float:
    return x + math.log(-math.expm1(-x))


def _check_sizes(sizes: Sequence[int]) -> tuple[int, ...]:
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or len(sizes) < 2:
        raise ValueError(f"sizes must list >= 2 positive integer layer widths, got {sizes!r}")
    return tuple(check_int("sizes (each layer width)", s, low=1) for s in sizes)


def check_xy_tensors(X: torch.Tensor, y: torch.Tensor, d_in: int, n_classes: int | None = None) -> None:
    check_tensor("X", X, floating=True, finite=True)
    if X.ndim != 2 or X.shape[1] != d_in or X.shape[0] < 1:
        raise ValueError(f"X must have shape (n, {d_in}) with n >= 1, got {tuple(X.shape)}")
    check_tensor("y", y, floating=False)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) matching X, got {tuple(y.shape)}")
    if n_classes is not None and (int(y.min()) < 0 or int(y.max()) >= n_classes):
        raise ValueError(
            f"y must hold class labels in [0, {n_classes}), got values in [{int(y.min())}, {int(y.max())}]"
        )


def _check_generator(generator: object) -> None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be None or a torch.Generator, got {type(generator).__name__}")


def _kl_fast(
    mu_q: torch.Tensor, rho_q: torch.Tensor, mu_p: torch.Tensor, rho_p: torch.Tensor
) -> torch.Tensor:
    """:func:`kl_diag_gauss` on softplus-parameterised sds, without argument checks (the training hot path)."""
    var_q, var_p = F.softplus(rho_q) ** 2, F.softplus(rho_p) ** 2
    return 0.5 * (torch.log(var_p / var_q) + (var_q + (mu_q - mu_p) ** 2) / var_p - 1.0).sum()


class BayesLinear(nn.Module):
    """Mean-field Gaussian linear layer ``y = x W^T + b`` with ``W ~ N(mu, sd^2)`` element-wise.

    Parameters
    ----------
    in_features, out_features : layer widths.
    init_sd : initial posterior standard deviation of every weight and bias.
    generator : torch.Generator for the mean initialisation (uniform in +-1/sqrt(in_features)).

    >>> layer = BayesLinear(3, 2, init_sd=0.1, generator=torch.Generator().manual_seed(0))
    >>> layer(torch.ones(4, 3), sample=False).shape
    torch.Size([4, 2])
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        init_sd: float = 0.05,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        check_int("in_features", in_features, low=1)
        check_int("out_features", out_features, low=1)
        check_float("init_sd (positive)", init_sd, low=0.0, low_open=True)
        _check_generator(generator)
        bound = 1.0 / math.sqrt(in_features)
        w = (torch.rand(out_features, in_features, generator=generator) * 2 - 1) * bound
        b = (torch.rand(out_features, generator=generator) * 2 - 1) * bound
        rho = _inv_softplus(init_sd)
        self.weight_mu = nn.Parameter(w)
        self.bias_mu = nn.Parameter(b)
        self.weight_rho = nn.Parameter(torch.full_like(w, rho))
        self.bias_rho = nn.Parameter(torch.full_like(b, rho))

    @property
    def weight_sd(self) -> torch.Tensor:
        return F.softplus(self.weight_rho)

    @property
    def bias_sd(self) -> torch.Tensor:
        return F.softplus(self.bias_rho)

    def forward(
        self,
        x: torch.Tensor,
        sample: bool = True,
        local: bool = True,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Mean network (``sample=False``), local reparameterisation (one weight draw per row, default) or one
        shared weight draw for the whole batch (``local=False``)."""
        check_tensor("x", x, floating=True, finite=True)
        check_bool("sample", sample)
        check_bool("local", local)
        if x.ndim != 2 or x.shape[1] != self.weight_mu.shape[1]:
            raise ValueError(f"x must have shape (batch, {self.weight_mu.shape[1]}), got {tuple(x.shape)}")
        mean = x @ self.weight_mu.T + self.bias_mu
        if not sample:
            return mean
        if local:
            var = (x * x) @ (self.weight_sd**2).T + self.bias_sd**2
            eps = torch.randn(mean.shape, generator=generator, dtype=mean.dtype)
            return mean + var.sqrt() * eps
        w = self.weight_mu + self.weight_sd * torch.randn(self.weight_mu.shape, generator=generator)
        b = self.bias_mu + self.bias_sd * torch.randn(self.bias_mu.shape, generator=generator)
        return x @ w.T + b

    def kl_to(self, prior: BayesLinear) -> torch.Tensor:
        """KL(self || prior) in nats (differentiable in self's parameters; the prior is treated as constant)."""
        if not isinstance(prior, BayesLinear):
            raise TypeError(f"prior must be a BayesLinear, got {type(prior).__name__}")
        if prior.weight_mu.shape != self.weight_mu.shape:
            raise ValueError(
                f"posterior/prior shape mismatch: {tuple(self.weight_mu.shape)} vs {tuple(prior.weight_mu.shape)}"
            )
        return _kl_fast(
            self.weight_mu, self.weight_rho, prior.weight_mu.detach(), prior.weight_rho.detach()
        ) + (_kl_fast(self.bias_mu, self.bias_rho, prior.bias_mu.detach(), prior.bias_rho.detach()))


class BayesMLP(nn.Module):
    """Mean-field Gaussian MLP with ReLU hidden layers, e.g. ``sizes=(64, 100, 10)``.

    >>> net = BayesMLP((4, 8, 3), generator=torch.Generator().manual_seed(0))
    >>> float(net.kl_to(net.frozen_copy()).detach())
    0.0
    """

    def __init__(
        self,
        sizes: Sequence[int] = (64, 100, 10),
        init_sd: float = 0.05,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.sizes = _check_sizes(sizes)
        self.layers = nn.ModuleList(
            BayesLinear(a, b, init_sd, generator) for a, b in zip(self.sizes[:-1], self.sizes[1:])
        )

    def forward(
        self,
        x: torch.Tensor,
        sample: bool = True,
        local: bool = True,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x, sample=sample, local=local, generator=generator)
            if i < len(self.layers) - 1:
                x = torch.relu(x)
        return x

    def kl_to(self, prior: BayesMLP) -> torch.Tensor:
        """KL(self || prior), summed over layers; raises ValueError when the architectures differ."""
        if not isinstance(prior, BayesMLP):
            raise TypeError(f"prior must be a BayesMLP, got {type(prior).__name__}")
        if prior.sizes != self.sizes:
            raise ValueError(f"posterior/prior shape mismatch: sizes {self.sizes} vs {prior.sizes}")
        return sum((q.kl_to(p) for q, p in zip(self.layers, prior.layers)), torch.zeros(()))

    def frozen_copy(self) -> BayesMLP:
        """A detached copy (the next task's prior P_(t+1) = Q_t)."""
        out = copy.deepcopy(self)
        for p in out.parameters():
            p.requires_grad_(False)
        return out

    @classmethod
    def isotropic(cls, weights: Sequence[tuple[torch.Tensor, torch.Tensor]], sd: float) -> BayesMLP:
        """``N(w, sd^2 I)`` around point weights ``[(W_1, b_1), ...]`` (W of shape (out, in))."""
        check_float("sd (positive)", sd, low=0.0, low_open=True)
        if not isinstance(weights, Sequence) or not weights:
            raise ValueError(f"weights must be a non-empty list of (W, b) pairs, got {weights!r}")
        for i, pair in enumerate(weights):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise ValueError(f"weights[{i}] must be a (W, b) pair, got {pair!r}")
            W, b = pair
            check_tensor(f"weights[{i}] W", W, ndim=2, floating=True, finite=True)
            check_tensor(f"weights[{i}] b", b, floating=True, finite=True, shape=(W.shape[0],))
            if i and W.shape[1] != weights[i - 1][0].shape[0]:
                raise ValueError(
                    f"weights[{i}] W must take the {weights[i - 1][0].shape[0]} outputs of layer {i - 1}, "
                    f"got shape {tuple(W.shape)}"
                )
        sizes = [int(weights[0][0].shape[1])] + [int(W.shape[0]) for W, _ in weights]
        net = cls(sizes, init_sd=sd)
        with torch.no_grad():
            for layer, (W, b) in zip(net.layers, weights):
                layer.weight_mu.copy_(W)
                layer.bias_mu.copy_(b)
        for p in net.parameters():
            p.requires_grad_(False)
        return net

    @torch.no_grad()
    def gibbs_error(
        self, X: torch.Tensor, y: torch.Tensor, n_mc: int, generator: torch.Generator | None = None
    ) -> float:
        """Monte Carlo estimate of E_(h~Q) of the 0-1 error on (X, y): ``n_mc * len(X)`` independent terms.

        Each row gets its own weight draw (local reparameterisation), which is unbiased for the Gibbs risk
        because the risk is linear in the per-example losses.
        """
        check_xy_tensors(X, y, self.sizes[0], self.sizes[-1])
        check_int("n_mc", n_mc, low=1)
        _check_generator(generator)
        Xr = X.repeat(n_mc, 1)
        pred = self(Xr, sample=True, generator=generator).argmax(1)
        return float((pred != y.repeat(n_mc)).double().mean())


class _MLP(nn.Module):
    def __init__(self, sizes: Sequence[int], generator: torch.Generator) -> None:
        super().__init__()
        self.sizes = _check_sizes(sizes)
        self.layers = nn.ModuleList()
        for a, b in zip(self.sizes[:-1], self.sizes[1:]):
            lin = nn.Linear(a, b)
            bound = 1.0 / math.sqrt(a)
            with torch.no_grad():
                lin.weight.copy_((torch.rand(b, a, generator=generator) * 2 - 1) * bound)
                lin.bias.copy_((torch.rand(b, generator=generator) * 2 - 1) * bound)
            self.layers.append(lin)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = torch.relu(x)
        return x


class EWCLearner:
    """Point-estimate continual learner with the online EWC penalty (ewc_lambda = 0: plain fine-tuning).

    After each task the diagonal empirical Fisher of the task's sample (mean of squared per-example gradients of
    the cross-entropy) is added to the running Fisher and the anchor moves to the new weights.

    Parameters
    ----------
    sizes : MLP widths. ewc_lambda : penalty weight (>= 0). lr, epochs, batch_size : Adam training per task.
    seed : initialisation and minibatch order. optimizer : ``"adam"`` or ``"sgd"``.
    """

    def __init__(
        self,
        sizes: Sequence[int] = (64, 100, 10),
        ewc_lambda: float = 100.0,
        lr: float = 1e-3,
        epochs: int = 10,
        batch_size: int = 64,
        seed: int = 0,
        optimizer: str = "adam",
    ) -> None:
        check_float("ewc_lambda", ewc_lambda, low=0.0)
        check_float("lr (positive)", lr, low=0.0, low_open=True)
        check_int("epochs", epochs, low=1)
        check_int("batch_size", batch_size, low=1)
        check_int("seed", seed, low=0)
        check_choice("optimizer", optimizer, ("adam", "sgd"))
        self.generator = torch.Generator().manual_seed(seed)
        self.model = _MLP(sizes, self.generator)
        self.sizes = self.model.sizes
        self.ewc_lambda, self.lr, self.epochs, self.batch_size, self.optimizer = (
            ewc_lambda,
            lr,
            epochs,
            batch_size,
            optimizer,
        )
        self.init_weights = self.weights()
        self.fisher = [torch.zeros_like(p) for p in self.model.parameters()]
        self.anchor = [p.detach().clone() for p in self.model.parameters()]

    def weights(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Current weights as ``[(W_1, b_1), ...]`` (detached copies)."""
        return [(lin.weight.detach().clone(), lin.bias.detach().clone()) for lin in self.model.layers]

    def penalty(self) -> torch.Tensor:
        """``(ewc_lambda / 2) sum_i F_i (w_i - w*_i)^2``."""
        return (
            0.5
            * self.ewc_lambda
            * sum(
                (f * (p - a) ** 2).sum() for f, p, a in zip(self.fisher, self.model.parameters(), self.anchor)
            )
        )

    def _batches(self, n: int):
        for _ in range(self.epochs):
            perm = torch.randperm(n, generator=self.generator)
            yield from perm.split(self.batch_size)

    def train_loss(self, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Surrogate loss of one minibatch (cross-entropy + EWC penalty)."""
        return F.cross_entropy(self.model(X), y) + self.penalty()

    def fit_task(self, X: torch.Tensor, y: torch.Tensor) -> None:
        """Train on one task's sample, then fold its Fisher into the penalty."""
        check_xy_tensors(X, y, self.sizes[0], self.sizes[-1])
        params = list(self.model.parameters())
        opt = (
            torch.optim.Adam(params, lr=self.lr)
            if self.optimizer == "adam"
            else torch.optim.SGD(params, lr=self.lr)
        )
        for idx in self._batches(len(X)):
            opt.zero_grad()
            self.train_loss(X[idx], y[idx]).backward()
            opt.step()
        if self.ewc_lambda > 0:
            for f, g in zip(self.fisher, self.empirical_fisher(X, y)):
                f.add_(g)
        self.anchor = [p.detach().clone() for p in self.model.parameters()]

    def empirical_fisher(self, X: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
        """Diagonal empirical Fisher: mean over examples of squared per-example cross-entropy gradients."""
        check_xy_tensors(X, y, self.sizes[0], self.sizes[-1])
        params = {k: v.detach() for k, v in self.model.named_parameters()}

        def loss(p, x, t):
            return F.cross_entropy(functional_call(self.model, p, (x[None],)), t[None])

        grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, X, y)
        return [(grads[k] ** 2).mean(0) for k, _ in self.model.named_parameters()]

    def gaussian(self, sd: float) -> BayesMLP:
        """The certified posterior ``Q_t = N(w_t, sd^2 I)``."""
        return BayesMLP.isotropic(self.weights(), sd)

    @torch.no_grad()
    def error(self, X: torch.Tensor, y: torch.Tensor) -> float:
        """0-1 error of the point estimate."""
        check_xy_tensors(X, y, self.sizes[0], self.sizes[-1])
        return float((self.model(X).argmax(1) != y).double().mean())
