"""Pay-what-you-contribute (PWYC), a benefit-based comparison rule, and a search for profitable misreports.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612). Agents report marginals D~_i; the planner solves the covering LP on the reported a_j(h)
(per-agent union-bound rows), rounds it up, asks agent j for m_j samples and pays it p_j. Agent i's utility is

    u_i = payoff_i - c_i m_i + p_i,   payoff_i = 1[ sum_{h in B_i} exp(-sum_j a_j(h) m_j) <= delta ]

with B_i and a_j(h) from the TRUE distributions: the deterministic guarantee indicator, never one Monte Carlo
draw. Under PWYC, p_j = c_j m_j, so u_i = payoff_i, and a truthful report certifies payoff_i = 1: no misreport
can gain. The comparison rule is not contribution-based: it pays each agent the marginal benefit its samples
give the others, in their cost units,

    p_j = sum_{i != j} c_i [ g_i(m_{-i} without j) - g_i(m_{-i}) ],

where g_i(x) is the smallest own contribution that meets agent i's reported condition given the others' x.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.fl_incentives.baselines import lp_plan
from iclr26.decision.fl_incentives.game import required_contribution
from iclr26.decision.fl_incentives.instances import Instance, as_generator, check_instance, floats

__all__ = [
    "PAYMENT_RULES",
    "PWYC",
    "MisreportSearch",
    "agent_utility",
    "marginal_benefit_payments",
    "marginal_benefit_rule",
    "misreport_search",
    "perturb_report",
    "pwyc_payments",
]

PaymentRule = Callable[[Instance, np.ndarray], np.ndarray]
GAIN_TOL = 1e-9  # a misreport is profitable when it gains more than this (utilities are O(1) to O(100))


def _per_agent(inst: Instance, x: np.ndarray, name: str, what: str) -> np.ndarray:
    """`x` as a (k,) finite float array (one entry per agent of `inst`)."""
    arr = floats(name, x, f"{inst.k} {what}")
    if arr.shape != (inst.k,) or not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{name} must be {inst.k} finite {what} (one per agent), got {np.asarray(x).tolist()}"
        )
    return arr


def pwyc_payments(report: Instance, m: np.ndarray) -> np.ndarray:
    """p_j = c_j m_j: each agent is reimbursed exactly its own sample cost (contribution-based)."""
    check_instance(report, "report")
    report._check_m(m)
    return report.c * m


def marginal_benefit_payments(report: Instance, m: np.ndarray) -> np.ndarray:
    """p_j = sum_{i != j} c_i [g_i(m_{-i} without j) - g_i(m_{-i})], on the reported a_j(h) and B_i."""
    check_instance(report, "report")
    report._check_m(m)
    k = report.k
    without = np.repeat(np.asarray(m)[None, :], k + 1, axis=0)  # row j < k: m without agent j; row k: m
    without[np.arange(k), np.arange(k)] = 0
    payments = np.zeros(k)
    for i in range(k):
        g = required_contribution(report.a_all, report.bad, report.need, i, without)
        saved = g[:k] - g[k]  # own samples agent i saves thanks to each j
        saved[i] = 0
        payments += report.c[i] * saved
    return payments


PAYMENT_RULES: dict[str, PaymentRule] = {
    "PWYC": pwyc_payments,
    "marginal benefit": marginal_benefit_payments,
}


def PWYC(report: Instance) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 - the paper's name
    """Pay-what-you-contribute: the rounded LP allocation on the reports and payments p_j = c_j m_j.

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import threshold_instance
    >>> inst = threshold_instance(3, rng=0)
    >>> m, p = PWYC(inst)
    >>> bool(np.array_equal(p, inst.c * m)), agent_utility(inst, 0, m, p)
    (True, 1.0)
    """
    m = lp_plan(report).m
    return m, pwyc_payments(report, m)


def marginal_benefit_rule(report: Instance) -> tuple[np.ndarray, np.ndarray]:
    """The same allocation, but agent j is paid the cost its samples save the other agents (on the reports).

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import pos_family_instance
    >>> m, p = marginal_benefit_rule(pos_family_instance(10, 100, 5.0))
    >>> m.tolist(), p.tolist()         # agent 1's 10 samples save agent 2 one sample at cost 5
    ([10, 9], [5.0, 0.0])
    """
    m = lp_plan(report).m
    return m, marginal_benefit_payments(report, m)


def agent_utility(inst: Instance, agent: int, m: np.ndarray, payments: np.ndarray) -> float:
    """payoff_agent (deterministic union-bound certificate on the true instance) - c m + payment."""
    check_instance(inst)
    check_int(f"agent (in [0, {inst.k}))", agent, 0, inst.k - 1)
    _per_agent(inst, payments, "payments", "payments")
    payoff = float(inst.certified(m)[agent])
    return payoff - float(inst.c[agent] * m[agent]) + float(payments[agent])


def perturb_report(D_i: np.ndarray, rng: np.random.Generator, scale: float = 2.0) -> np.ndarray:
    """A random misreport: D_i * exp(sigma Z), renormalised, with sigma ~ U(0, scale) and Z standard normal.

    Examples
    --------
    >>> r = perturb_report(np.full(4, 0.25), np.random.default_rng(0))
    >>> bool(np.isclose(r.sum(), 1.0) and np.all(r > 0))
    True
    """
    check_float("scale", scale, low=0.0, low_open=True)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    D_i = floats("D_i", D_i, "a 1-D probability vector")
    if D_i.ndim != 1 or not np.all(np.isfinite(D_i)) or np.any(D_i < 0) or not D_i.sum() > 0:
        raise ValueError(f"D_i must be a 1-D vector of finite nonnegative probabilities, got {D_i.tolist()}")
    sigma = rng.uniform(0.0, scale)
    out = D_i * np.exp(sigma * rng.standard_normal(D_i.shape))
    return out / out.sum()


@dataclass(frozen=True)
class MisreportSearch:
    """Utility gains of random misreports over the truthful report for one agent under one payment rule."""

    agent: int
    truthful_utility: float
    gains: np.ndarray

    @property
    def best_gain(self) -> float:
        return float(self.gains.max(initial=-np.inf))

    @property
    def n_profitable(self) -> int:
        return int(np.sum(self.gains > GAIN_TOL))


def misreport_search(
    inst: Instance,
    agent: int,
    n_reports: int,
    rng: np.random.Generator | int,
    rules: Mapping[str, PaymentRule] | None = None,
    scale: float = 2.0,
) -> dict[str, MisreportSearch]:
    """Try `n_reports` random perturbed reports of `agent` (others truthful) under each payment rule.

    Every rule sees the same reports and the same allocation (the rounded LP on the reports), so the rules
    are compared pairwise; the gain is the utility of the misreport minus that of the truthful report.

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import threshold_instance
    >>> res = misreport_search(threshold_instance(3, rng=0), agent=1, n_reports=5, rng=0)
    >>> res["PWYC"].n_profitable
    0
    """
    check_instance(inst)
    check_int(f"agent (in [0, {inst.k}))", agent, 0, inst.k - 1)
    check_int("n_reports", n_reports, low=1)
    check_float("scale", scale, low=0.0, low_open=True)
    rules = PAYMENT_RULES if rules is None else rules
    if not isinstance(rules, Mapping) or not rules or not all(callable(pay) for pay in rules.values()):
        raise ValueError(
            f"rules must be a non-empty mapping of names to payment rules (callables), got {rules!r}"
        )
    rng = as_generator(rng)
    m_true = lp_plan(inst).m
    truthful = {name: agent_utility(inst, agent, m_true, pay(inst, m_true)) for name, pay in rules.items()}
    gains = {name: np.empty(n_reports) for name in rules}
    for r in range(n_reports):
        report = inst.with_report(agent, perturb_report(inst.D[agent], rng, scale))
        m = lp_plan(report).m
        for name, pay in rules.items():
            gains[name][r] = agent_utility(inst, agent, m, pay(report, m)) - truthful[name]
    return {name: MisreportSearch(agent, truthful[name], gains[name]) for name in rules}
