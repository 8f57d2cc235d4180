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
        if not (isinstance(d, int) and d >= 1):
            raise ValueError(f"d must be a positive integer, got {d!r}")
        if lam is not None and not (lam > 0 and math.isfinite(lam)):
            raise ValueError(f"lam (Gibbs temperature) must be positive, got {lam}")
        if not (
            isinstance(n_particles, int) and n_particles >= 1 and isinstance(n_steps, int) and n_steps >= 1
        ):
            raise ValueError(
                f"n_particles and n_steps must be positive integers, got {n_particles}, {n_steps}"
            )
        if not (step_size > 0 and noise_sd > 0 and prior_sd > 0):
            raise ValueError(
                f"step_size, noise_sd and prior_sd must be positive, got {step_size}, {noise_sd}, {prior_sd}"
            )
        if batch_size is not None and not (isinstance(batch_size, int) and batch_size >= 1):
            raise ValueError(f"batch_size must be a positive integer or None, got {batch_size!r}")
        self.d, self.lam, self.noise_sd = d, lam, noise_sd
        self.step_size, self.n_steps, self.batch_size = step_size, n_steps, batch_size
        self.rng = np.random.default_rng(seed)
        self.particles = prior_sd * self.rng.standard_normal((n_particles, d))

    def update(self, X: np.ndarray, y: np.ndarray) -> SGLDGibbs:
        """Run the task's Langevin steps from the current particles; returns self."""
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.d or y.shape != (X.shape[0],):
            raise ValueError(f"X must have shape (m, {self.d}) and y shape (m,), got {X.shape} and {y.shape}")
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
