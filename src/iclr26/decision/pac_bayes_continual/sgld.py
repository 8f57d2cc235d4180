"""Warm-started SGLD particles as an approximate sequential Gibbs posterior (OpenReview hWw269fPov).

Per task the particles start where the previous task left them and take a fixed number of Langevin steps on
``lambda Lhat(h, S_t)`` alone (mean squared loss of linear regression):

    h <- h - eta grad(lambda Lhat(h, B)) + sqrt(2 eta) xi,    xi ~ N(0, I),  B a minibatch of S_t.

This is *not* the exact Gibbs posterior ``Q_t ~ exp(-lambda Lhat_t) Q_(t-1)``: the previous posterior enters only
through the starting point, so old tasks are re-weighted only as far as the finite run fails to forget them.
That approximation is what makes task order matter (see the README).
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.pac_bayes_continual.gibbs import check_xy

__all__ = ["SGLDGibbs"]


class SGLDGibbs:
    """Particle approximation of a sequence of Gibbs posteriors for linear regression.

    Parameters
    ----------
    d : input dimension. lam : Gibbs temperature on the mean squared loss (``None``: m / (2 noise_sd^2)).
    n_particles : K_p particles (32). step_size, n_steps : Langevin step and steps per task.
    batch_size : minibatch size (``None``: the full sample). prior_sd : particles start from N(0, prior_sd^2 I).
    seed : all randomness.

    >>> s = SGLDGibbs(2, n_steps=50, seed=0)
    >>> s.update(np.eye(2), np.array([1.0, -1.0])).particles.shape
    (32, 2)
    """

    def __init__(
        self,
        d: int,
        lam: float | None = None,
        noise_sd: float = 0.1,
        n_particles: int = 32,
        step_size: float = 1e-5,
        n_steps: int = 20,
        batch_size: int | None = None,
        prior_sd: float = 1.0,
        seed: int = 0,
    ) -> None:
        check_int("d", d, low=1)
        if lam is not None:
            check_float("lam (the Gibbs temperature, positive)", lam, low=0.0, low_open=True)
        check_int("n_particles", n_particles, low=1)
        check_int("n_steps", n_steps, low=1)
        check_float("step_size (positive)", step_size, low=0.0, low_open=True)
        check_float("noise_sd (positive)", noise_sd, low=0.0, low_open=True)
        check_float("prior_sd (positive)", prior_sd, low=0.0, low_open=True)
        if batch_size is not None:
            check_int("batch_size (None or an int)", batch_size, low=1)
        check_int("seed", seed, low=0)
        self.d, self.lam, self.noise_sd = d, lam, noise_sd
        self.step_size, self.n_steps, self.batch_size = step_size, n_steps, batch_size
        self.rng = np.random.default_rng(seed)
        self.particles = prior_sd * self.rng.standard_normal((n_particles, d))

    def update(self, X: np.ndarray, y: np.ndarray) -> SGLDGibbs:
        """Run the task's Langevin steps from the current particles; returns self."""
        X, y = check_xy(X, y, self.d)
        m = X.shape[0]
        lam = self.lam if self.lam is not None else m / (2 * self.noise_sd**2)
        b = m if self.batch_size is None else min(self.batch_size, m)
        h, eta = self.particles, self.step_size
        for _ in range(self.n_steps):
            idx = self.rng.choice(m, size=b, replace=False) if b < m else np.arange(m)
            Xb, yb = X[idx], y[idx]
            grad = lam * 2.0 / b * ((h @ Xb.T - yb) @ Xb)  # (n_particles, d)
            h = h - eta * grad + math.sqrt(2 * eta) * self.rng.standard_normal(h.shape)
        self.particles = h
        return self

    @property
    def mean(self) -> np.ndarray:
        return self.particles.mean(0)
