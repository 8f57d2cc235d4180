"""L2FOB: the look-ahead Lyapunov bidder ("Towards Safe and Optimal Online Bidding: A Modular Look-ahead Lyapunov
Framework", ICLR 2026, OpenReview AtbRCnvcrZ).

Per round t, with value v_t and an oracle's estimates on the bid grid (win rate G_bar, payment p_bar, radii):

1. optimistic reward   r_hat_t(v, b) = v min(1, G_bar_t(b) + eps^r_t(b)),
   pessimistic cost    c_check_t(b)  = max(0, p_bar_t(b) - eps^c_t(b))      (a lower estimate of the cost);
2. look-ahead virtual queues for every candidate bid b,
   Q_rho(t, b) = Q_rho(t-1) + eta_rho (E_v[c_check_t(v, b)] - rho)^+,
   Q_gam(t, b) = Q_gam(t-1) + eta_gam (E_v[gamma c_check_t(v, b) - r_hat_t(v, b)])^+;
3. b_t = argmax_b  r_hat_t(v_t, b) - Phi'(Q_rho(t, b)) eta_rho (E_v[c_check_t(v, b)] - rho)^+
                                   - Phi'(Q_gam(t, b)) eta_gam (E_v[gamma c_check_t(v, b) - r_hat_t(v, b)])^+,
   with Phi(x) = x^2, so Phi'(Q) = 2 Q;
4. after the auction: Q_rho(t) = Q_rho(t, b_t), Q_gam(t) = Q_gam(t, b_t), then the oracle learns the outcome;
   the hard stop of :class:`~iclr26.decision.l2fob.accounting.Bidder` applies.

Open details, exposed as switches (the paper PDF was not read; a secondary note gives the rules above):

* ``queue_mode="clipped"`` (default): the increment is clipped at 0, as written above, so queues never decrease.
  ``queue_mode="standard"``: the Lyapunov queue Q(t, b) = [Q(t-1) + eta x]^+, which falls when the chosen bid's
  predicted violation x is negative. The penalty in step 3 is the same formula in both modes.
* ``cost_bound="lower"`` (default, as the secondary note reads "pessimistic (lower) cost"): c_check above.
  ``cost_bound="upper"``: c_hat = min(b, p_bar + eps^c), the conservative reading of "pessimistic cost
  estimation" in the abstract (the cost of a win never exceeds the bid in either price rule).
* ``mean_field="point"`` (default): E_v is replaced by the current context v_t. ``mean_field="buffer"``: by the
  average over the last ``buffer_size`` contexts (the ROI term then uses their mean value, since r_hat is linear
  in v). In the auctions here the cost does not depend on v, so the budget term is the same in both modes.
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.l2fob.accounting import Bidder, check_oracle
from iclr26.decision.l2fob.envs import AuctionOutcome
from iclr26.decision.l2fob.oracles import EmpiricalCDFOracle

__all__ = ["COST_BOUNDS", "MEAN_FIELDS", "POTENTIALS", "QUEUE_MODES", "L2FOB"]

COST_BOUNDS: tuple[str, ...] = ("lower", "upper")
POTENTIALS: tuple[str, ...] = ("quadratic",)
QUEUE_MODES: tuple[str, ...] = ("clipped", "standard")
MEAN_FIELDS: tuple[str, ...] = ("point", "buffer")


class L2FOB(Bidder):
    """Look-ahead Lyapunov bidder under a budget B = rho T and an ROI target gamma.

    Parameters
    ----------
    grid : bid grid, strictly increasing inside [0, v_max].
    B : total budget (> 0); rho = B / T.
    T : horizon (int >= 1).
    gamma : ROI target (> 0): sum r >= gamma sum c.
    eta_rho, eta_gam : queue step sizes (>= 0; the paper's experiments use 0.6).
    potential : ``"quadratic"``, Phi(x) = x^2.
    queue_mode : ``"clipped"`` (never decreasing) or ``"standard"`` ([Q + eta x]^+).
    mean_field : ``"point"`` (E_v at the current v_t) or ``"buffer"`` (average over recent contexts).
    cost_bound : ``"lower"`` (c_bar - eps^c, default) or ``"upper"`` (c_bar + eps^c) cost estimate.
    oracle : estimator with ``estimate() -> WinRateEstimate`` and ``update(outcome)``; default
        :class:`EmpiricalCDFOracle` (full feedback) for `price_rule` with confidence `delta`.
    v_max : the largest possible value.
    buffer_size : contexts kept by ``mean_field="buffer"``.

    Attributes
    ----------
    Q_rho, Q_gam : the budget and ROI virtual queues after the last update.
    ledger : spend, reward, anytime ROI violation and hard stop.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from iclr26.decision.l2fob import L2FOB, RepeatedAuction
    >>> env = RepeatedAuction(500, stats.uniform(), stats.uniform())
    >>> bidder = L2FOB(np.linspace(0, 1, 101), B=5.0, T=500, gamma=1.8)
    >>> v, _ = env.reset(seed=0)
    >>> for _ in range(500):
    ...     v, _, done, _, info = env.step(bidder.bid(v))
    ...     bidder.update(info["outcome"])
    >>> bool(bidder.ledger.spent <= 5.0), len(bidder.queues)
    (True, 2)
    """

    def __init__(
        self,
        grid: object,
        B: float,
        T: int,
        gamma: float,
        eta_rho: float = 0.6,
        eta_gam: float = 0.6,
        potential: str = "quadratic",
        queue_mode: str = "clipped",
        mean_field: str = "point",
        *,
        cost_bound: str = "lower",
        oracle: object | None = None,
        price_rule: str = "first",
        delta: float = 0.05,
        v_max: float = 1.0,
        buffer_size: int = 1000,
    ) -> None:
        self.eta_rho = check_float("eta_rho", eta_rho, low=0.0)
        self.eta_gam = check_float("eta_gam", eta_gam, low=0.0)
        if potential not in POTENTIALS:
            raise ValueError(f"potential must be one of {POTENTIALS}, got {potential!r}")
        if queue_mode not in QUEUE_MODES:
            raise ValueError(f"queue_mode must be one of {QUEUE_MODES}, got {queue_mode!r}")
        if mean_field not in MEAN_FIELDS:
            raise ValueError(f"mean_field must be one of {MEAN_FIELDS}, got {mean_field!r}")
        if cost_bound not in COST_BOUNDS:
            raise ValueError(f"cost_bound must be one of {COST_BOUNDS}, got {cost_bound!r}")
        check_int("buffer_size", buffer_size, low=1)
        check_oracle(oracle)
        super().__init__(grid, B, T, gamma, oracle=None, v_max=v_max)
        self.oracle = EmpiricalCDFOracle(self.grid, self.T, price_rule, delta) if oracle is None else oracle
        self.potential, self.queue_mode, self.mean_field = potential, queue_mode, mean_field
        self.cost_bound = cost_bound
        self.Q_rho = 0.0
        self.Q_gam = 0.0
        self._next = (0.0, 0.0)  # (Q_rho(t, b_t), Q_gam(t, b_t)) of the bid just chosen
        self._buffer = np.zeros(buffer_size)
        self._buffer_n = 0

    def _lookahead(self, Q: float, eta: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Q(t, b) for every candidate b and the penalty Phi'(Q(t, b)) eta x^+ (Phi(x) = x^2)."""
        inc = eta * np.maximum(x, 0.0)  # eta (x)^+
        if self.queue_mode == "clipped":
            q_next = Q + inc  # Q(t, b) = Q(t-1) + eta (x)^+
        else:
            q_next = np.maximum(Q + eta * x, 0.0)  # Q(t, b) = [Q(t-1) + eta x]^+
        return q_next, 2.0 * q_next * inc  # Phi'(Q(t, b)) eta (x)^+

    def _push_context(self, v: float) -> float:
        """Add v_t to the context buffer and return the buffer's mean (v_t included)."""
        self._buffer[self._buffer_n % self._buffer.size] = v
        self._buffer_n += 1
        return float(self._buffer[: min(self._buffer_n, self._buffer.size)].mean())

    def scores(self, v: float, v_bar: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per grid bid: the penalized score of step 3 and the look-ahead queues Q_rho(t, b), Q_gam(t, b).

        `v_bar` is the value E_v is taken at in the ROI term (None: the point approximation, v_bar = v).
        Reads the current queues and the oracle; changes nothing.
        """
        check_float("v", v, 0.0, self.v_max)
        if v_bar is not None:
            check_float("v_bar (None or a mean value)", v_bar, 0.0, self.v_max)
        est = self.oracle.estimate()
        win_hi = np.minimum(1.0, est.win + est.win_radius)
        r_hat = v * win_hi  # r_hat = v min(1, G_bar + eps)
        if self.cost_bound == "lower":
            c_check = np.maximum(0.0, est.pay - est.pay_radius)  # c_check = max(0, p_bar - eps^c)
        else:
            c_check = np.minimum(self.grid, est.pay + est.pay_radius)  # c_hat = min(b, p_bar + eps^c)
        x_rho = c_check - self.rho  # E_v[c_check(v, b)] - rho (the cost does not depend on v)
        r_mf = r_hat if v_bar is None else v_bar * win_hi  # E_v[r_hat(v, b)] (r_hat is linear in v)
        x_gam = self.gamma * c_check - r_mf  # E_v[gamma c_check(v, b) - r_hat(v, b)]
        q_rho, pen_rho = self._lookahead(self.Q_rho, self.eta_rho, x_rho)
        q_gam, pen_gam = self._lookahead(self.Q_gam, self.eta_gam, x_gam)
        return r_hat - pen_rho - pen_gam, q_rho, q_gam

    def _choose(self, v: float) -> int:
        v_bar = self._push_context(v) if self.mean_field == "buffer" else None
        score, q_rho, q_gam = self.scores(v, v_bar)
        k = int(np.argmax(score))  # ties go to the lowest bid
        self._next = (float(q_rho[k]), float(q_gam[k]))
        return k

    def _learn(self, outcome: AuctionOutcome) -> None:
        self.Q_rho, self.Q_gam = self._next  # Q(t) = Q(t, b_t)

    @property
    def queues(self) -> tuple[float, float]:
        """(Q_rho, Q_gam) after the last update."""
        return self.Q_rho, self.Q_gam
