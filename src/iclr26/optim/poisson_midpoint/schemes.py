"""Linear-Gaussian one-step schemes X <- A X + G b(X) + Gamma Z for overdamped and underdamped Langevin.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614). PLMC approximates K steps of such a scheme with step delta = h / K. Two schemes:

* overdamped, dX = b dt + sqrt(2) dB with b = -grad F:  A = I, G = tau I, Gamma = sqrt(2 tau) I;
* underdamped, dx = v dt, dv = -g v dt + b dt + sqrt(2 g u) dB with b = -u grad F: (A, G, Gamma) from exact
  integration of the linear part with the force frozen over tau (the exponential integrator of Cheng, Chatterji,
  Bartlett and Jordan 2018), per coordinate on the pair (x, v):

      A(tau)     = [[1, (1 - e^{-g tau})/g], [0, e^{-g tau}]]
      G(tau)     = [(tau - (1 - e^{-g tau})/g)/g, (1 - e^{-g tau})/g]
      Cov(tau)   = [[2u/g^2 (g tau - 2(1 - e^{-g tau}) + (1 - e^{-2 g tau})/2), u/g (1 - e^{-g tau})^2],
                    [u/g (1 - e^{-g tau})^2,                                  u (1 - e^{-2 g tau})]]
      Gamma(tau) = the lower Cholesky factor of Cov(tau).

Both flows compose exactly: A(s)A(t) = A(s+t), A(s)G(t) + G(s) = G(s+t), and likewise for the noise covariance.
The event-jump form of PLMC relies on this. ``tau`` may be a float or an array of per-chain step lengths.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from iclr26.checks import check_float
from iclr26.optim.poisson_midpoint.backend import namespace

__all__ = ["OverdampedScheme", "UnderdampedScheme", "underdamped_matrices"]

_SERIES_BELOW = 0.01  # below this g*tau the x-variance uses its Taylor series (the closed form cancels)


def _column(coef: Any, like: Any) -> Any:
    """Reshape a per-chain coefficient of shape (m,) to broadcast against `like` of shape (m, d)."""
    if getattr(coef, "ndim", 0) == 0:
        return float(coef)  # a NumPy scalar must not meet a torch tensor
    return coef.reshape((-1,) + (1,) * (like.ndim - 1))


def _scalar_or_array(tau: Any) -> Any:
    """Python numbers become float64 scalars so that one code path serves floats and arrays."""
    return np.float64(tau) if isinstance(tau, (int, float)) else tau


def _x_variance_factor(z: Any) -> Any:
    """q(z) = z - 2(1 - e^{-z}) + (1 - e^{-2z})/2 = sum_{k>=3} (-1)^{k+1} (2^{k-1} - 2) z^k / k!."""
    xp = namespace(z)
    closed = z + 2.0 * xp.expm1(-z) - 0.5 * xp.expm1(-2.0 * z)
    series = z * z * z * (1 / 3 + z * (-1 / 4 + z * (7 / 60 + z * (-1 / 24 + z * 31 / 2520))))
    return xp.where(z < _SERIES_BELOW, series, closed)


class OverdampedScheme:
    """Euler-Maruyama for dX = b dt + sqrt(2) dB: A = I, G = tau I, Gamma = sqrt(2 tau) I.

    The state of a chain is its position, of shape (d,).

    Examples
    --------
    >>> A, G, Gamma = OverdampedScheme().matrices(0.5)
    >>> float(G[0]), float(Gamma[0, 0])
    (0.5, 1.0)
    """

    name = "overdamped"

    def init_state(self, x0: Any, v0: Any = None) -> Any:
        return x0

    def position(self, X: Any) -> Any:
        return X

    def drift(self, grad: Any) -> Any:
        return -grad  # b = -grad F

    def noise_shape(self, m: int, d: int) -> tuple[int, ...]:
        return (m, d)

    def propagate(self, X: Any, tau: Any) -> Any:
        return X  # A(tau) = I

    def force(self, b: Any, tau: Any) -> Any:
        return _column(tau, b) * b  # G(tau) b = tau b

    def kick(self, b: Any, s: Any) -> Any:
        return b  # A(s) e b with e = lim G(delta)/delta = I

    def noise(self, Z: Any, tau: Any) -> Any:
        xp = namespace(tau)
        return _column(xp.sqrt(2.0 * tau), Z) * Z  # Gamma(tau) Z = sqrt(2 tau) Z

    def matrices(self, tau: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A, G, Gamma) for one coordinate as arrays of shape (1, 1), (1,), (1, 1)."""
        return np.ones((1, 1)), np.array([tau]), np.array([[np.sqrt(2.0 * tau)]])


class UnderdampedScheme:
    """Exponential integrator for underdamped Langevin with friction `gamma` and inverse mass `u`.

    The state of a chain is (x, v), of shape (2, d): ``X[:, 0]`` holds positions, ``X[:, 1]`` velocities.

    Examples
    --------
    >>> A, G, Gamma = UnderdampedScheme(gamma=2.0, u=1.0).matrices(0.1)
    >>> A.shape, G.shape, Gamma.shape
    ((2, 2), (2,), (2, 2))
    """

    name = "underdamped"

    def __init__(self, gamma: float = 2.0, u: float = 1.0) -> None:
        for name, value in (("gamma", gamma), ("u", u)):
            check_float(name, value, low=0.0, low_open=True)
        self.gamma = float(gamma)
        self.u = float(u)

    def _flow(self, tau: Any) -> tuple[Any, Any]:
        """A(tau)[0, 1] = (1 - e^{-g tau})/g and A(tau)[1, 1] = e^{-g tau}."""
        e1 = -namespace(tau).expm1(-self.gamma * tau)  # 1 - e^{-g tau}
        return e1 / self.gamma, 1.0 - e1

    def _force(self, tau: Any) -> tuple[Any, Any]:
        """G(tau) = ((tau - (1 - e^{-g tau})/g)/g, (1 - e^{-g tau})/g)."""
        g = self.gamma
        e1 = -namespace(tau).expm1(-g * tau)
        return (g * tau - e1) / g**2, e1 / g

    def _cholesky(self, tau: Any) -> tuple[Any, Any, Any]:
        """Gamma(tau) = [[s11, 0], [s21, s22]], the lower Cholesky factor of the noise covariance."""
        xp = namespace(tau)
        g, u = self.gamma, self.u
        z = g * tau
        e1 = -xp.expm1(-z)  # 1 - e^{-g tau}
        vxx = 2.0 * u / g**2 * _x_variance_factor(z)  # Var x = 2u/g^2 (g tau - 2 e1 + e2/2)
        cxv = u / g * e1 * e1  # Cov(x, v) = u/g (1 - e^{-g tau})^2
        vvv = u * e1 * (2.0 - e1)  # Var v = u (1 - e^{-2 g tau})
        s11 = xp.sqrt(vxx)
        s21 = cxv / xp.where(s11 > 0, s11, 1.0)
        s22 = xp.sqrt(xp.clip(vvv - s21 * s21, 0.0, None))
        return s11, s21, s22

    def init_state(self, x0: Any, v0: Any) -> Any:
        return namespace(x0).stack([x0, v0], 1)

    def position(self, X: Any) -> Any:
        return X[:, 0]

    def drift(self, grad: Any) -> Any:
        return -self.u * grad  # b = -u grad F

    def noise_shape(self, m: int, d: int) -> tuple[int, ...]:
        return (m, 2, d)

    def propagate(self, X: Any, tau: Any) -> Any:
        a12, a22 = (_column(c, X[:, 1]) for c in self._flow(_scalar_or_array(tau)))
        return namespace(X).stack([X[:, 0] + a12 * X[:, 1], a22 * X[:, 1]], 1)  # A(tau) X

    def force(self, b: Any, tau: Any) -> Any:
        gx, gv = (_column(c, b) for c in self._force(_scalar_or_array(tau)))
        return namespace(b).stack([gx * b, gv * b], 1)  # G(tau) b

    def kick(self, b: Any, s: Any) -> Any:
        a12, a22 = (_column(c, b) for c in self._flow(_scalar_or_array(s)))
        return namespace(b).stack([a12 * b, a22 * b], 1)  # A(s) (0, 1)^T b

    def noise(self, Z: Any, tau: Any) -> Any:
        z0, z1 = Z[:, 0], Z[:, 1]
        s11, s21, s22 = (_column(c, z0) for c in self._cholesky(_scalar_or_array(tau)))
        return namespace(Z).stack([s11 * z0, s21 * z0 + s22 * z1], 1)  # Gamma(tau) Z

    def matrices(self, tau: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A, G, Gamma) for one coordinate as arrays of shape (2, 2), (2,), (2, 2)."""
        t = np.float64(tau)
        (a12, a22), (gx, gv), (s11, s21, s22) = self._flow(t), self._force(t), self._cholesky(t)
        A = np.array([[1.0, a12], [0.0, a22]])
        Gamma = np.array([[s11, 0.0], [s21, s22]])
        return A, np.array([gx, gv]), Gamma


def underdamped_matrices(delta: float, gamma: float = 2.0, u: float = 1.0) -> tuple[np.ndarray, ...]:
    """Exponential-integrator matrices (A, G, Gamma) of underdamped Langevin over a step `delta`.

    One coordinate's (x, v) moves as ``(x, v) <- A (x, v) + G b + Gamma Z`` with the force ``b = -u grad F(x)``
    frozen over the step and ``Z ~ N(0, I_2)``; this is the exact solution of the frozen-force SDE.

    Parameters
    ----------
    delta : step length, > 0.
    gamma : friction g, > 0.
    u : inverse mass, > 0 (the noise is sqrt(2 g u) dB).

    Examples
    --------
    >>> A, G, Gamma = underdamped_matrices(0.01)
    >>> round(float(A[1, 1]), 6)  # e^{-2 * 0.01}
    0.980199
    """
    check_float("delta", delta, low=0.0, low_open=True)
    return UnderdampedScheme(gamma, u).matrices(float(delta))
