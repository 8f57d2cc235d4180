"""Continual learners whose posteriors are certified (OpenReview hWw269fPov).

- :class:`VILearner`: variational continual learning with prior P_t = Q_(t-1); per task it minimises
  ``CE_surrogate(Q) + KL(Q || Q_(t-1)) / lam_train`` (Bayes-by-backprop, local reparameterisation), the
  task-t part of the Catoni bound with cross-entropy standing in for the 0-1 loss.
- :class:`ReplayLearner`: fine-tuning with a replay buffer of past examples (a baseline; ``EWCLearner`` with
  ``ewc_lambda=0`` is plain fine-tuning).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from iclr26.checks import check_float, check_int
from iclr26.decision.pac_bayes_continual.posteriors import BayesMLP, EWCLearner, check_xy_tensors

__all__ = ["ReplayLearner", "VILearner"]


class VILearner:
    """Mean-field Gaussian continual learner whose next prior is its last posterior.

    Parameters
    ----------
    sizes : MLP widths. prior_sd : sd of the data-free prior P = N(w_0, prior_sd^2 I), w_0 a random
    initialisation drawn from `seed` (no data). lam_train : KL weight 1 / lam_train in the training objective.
    lr, epochs, batch_size : Adam per task. seed : initialisation, minibatches and weight noise.

    >>> vi = VILearner((4, 8, 2), epochs=1, seed=0)
    >>> kl = vi.fit_task(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    >>> kl >= 0
    True
    """

    def __init__(
        self,
        sizes: Sequence[int] = (64, 100, 10),
        prior_sd: float = 0.1,
        lam_train: float = 400.0,
        lr: float = 1e-3,
        epochs: int = 10,
        batch_size: int = 64,
        seed: int = 0,
    ) -> None:
        check_float("lam_train (positive)", lam_train, low=0.0, low_open=True)
        check_float("prior_sd (positive)", prior_sd, low=0.0, low_open=True)
        check_float("lr (positive)", lr, low=0.0, low_open=True)
        check_int("epochs", epochs, low=1)
        check_int("batch_size", batch_size, low=1)
        check_int("seed", seed, low=0)
        self.generator = torch.Generator().manual_seed(seed)
        self.data_free_prior = BayesMLP(sizes, init_sd=prior_sd, generator=self.generator).frozen_copy()
        self.prior = self.data_free_prior
        self.posterior = copy.deepcopy(self.data_free_prior).requires_grad_(True)
        self.sizes = self.posterior.sizes
        self.lam_train, self.lr, self.epochs, self.batch_size = lam_train, lr, epochs, batch_size

    def fit_task(self, X: torch.Tensor, y: torch.Tensor) -> float:
        """Train Q_t on one task's sample from Q_(t-1); returns KL(Q_t || P_t) and sets P_(t+1) = Q_t."""
        check_xy_tensors(X, y, self.sizes[0], self.sizes[-1])
        opt = torch.optim.Adam(self.posterior.parameters(), lr=self.lr)
        for _ in range(self.epochs):
            for idx in torch.randperm(len(X), generator=self.generator).split(self.batch_size):
                opt.zero_grad()
                logits = self.posterior(X[idx], generator=self.generator)
                loss = F.cross_entropy(logits, y[idx]) + self.posterior.kl_to(self.prior) / self.lam_train
                loss.backward()
                opt.step()
        with torch.no_grad():
            kl = float(self.posterior.kl_to(self.prior))
        self.prior = self.posterior.frozen_copy()
        return kl

    def kl_to_data_free(self) -> float:
        """KL(Q_t || P) to the data-free prior (the naive per-task certificate's KL)."""
        with torch.no_grad():
            return float(self.posterior.kl_to(self.data_free_prior))


class ReplayLearner(EWCLearner):
    """Fine-tuning plus replay: each minibatch adds an equal-size batch drawn from a buffer of past examples.

    Parameters are those of :class:`EWCLearner` (without ``ewc_lambda``) plus ``buffer_per_task`` examples kept
    from each finished task.
    """

    def __init__(self, sizes: Sequence[int] = (64, 100, 10), buffer_per_task: int = 20, **kwargs) -> None:
        check_int("buffer_per_task", buffer_per_task, low=1)
        super().__init__(sizes, ewc_lambda=0.0, **kwargs)
        self.buffer_per_task = buffer_per_task
        self.buffer_X = torch.zeros(0, self.sizes[0])
        self.buffer_y = torch.zeros(0, dtype=torch.long)

    def train_loss(self, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        loss = F.cross_entropy(self.model(X), y)
        if len(self.buffer_y):
            idx = torch.randint(0, len(self.buffer_y), (len(y),), generator=self.generator)
            loss = loss + F.cross_entropy(self.model(self.buffer_X[idx]), self.buffer_y[idx])
        return loss

    def fit_task(self, X: torch.Tensor, y: torch.Tensor) -> None:
        super().fit_task(X, y)
        keep = torch.randperm(len(y), generator=self.generator)[: self.buffer_per_task]
        self.buffer_X = torch.cat([self.buffer_X, X[keep]])
        self.buffer_y = torch.cat([self.buffer_y, y[keep]])
