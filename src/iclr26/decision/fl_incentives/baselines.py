"""Allocations of an instance: the LP planner and the baselines it is compared with.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612).

* ``lp_plan``: the covering LP on the instance's rows (per-agent union bound by default), rounded up.
* ``go_alone``: every agent covers its own B_i with its own samples,
  m_i = max_{h in B_i} ceil(ln(|B_i|/delta) / a_i(h)).
* ``homogeneous_plan``: a planner that treats all samples as exchangeable and buys the textbook
  m = ceil(ln(|H|/delta) / epsilon) from the cheapest agent; it is evaluated under the true heterogeneous model.
* ``cooperative_optimum``: the exact integer optimum of the per-agent proxy (``milp``), OPT for the PoS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iclr26.decision.fl_incentives.instances import Instance, check_instance
from iclr26.decision.fl_incentives.lp import integer_optimum, round_up, solve_allocation

__all__ = ["Plan", "cooperative_optimum", "go_alone", "homogeneous_plan", "lp_plan"]

RATIO_TOL = 1e-9  # relative slack when turning a covering ratio into a sample count


@dataclass(frozen=True)
class Plan:
    """An integer allocation, its cost and (for the LP planner) the cost of the fractional LP solution."""

    name: str
    m: np.ndarray
    cost: float
    fractional_cost: float = math.nan


def lp_plan(inst: Instance, rule: str = "agent") -> Plan:
    """Solve the covering LP on ``inst.rows(rule)`` and round up (every row holds after rounding).

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import threshold_instance
    >>> inst = threshold_instance(3, rng=0)
    >>> bool(inst.certified(lp_plan(inst).m).all())
    True
    """
    a, rhs = check_instance(inst).rows(rule)
    sol = solve_allocation(a, inst.c, rhs)
    m = round_up(sol.m, a, rhs)
    return Plan(f"LP ({rule})", m, float(inst.c @ m), sol.cost)


def go_alone(inst: Instance) -> Plan:
    """Each agent covers B_i alone: m_i = max_{h in B_i} ceil(r_i / a_i(h)), r_i = ln(|B_i| / delta).

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import pos_family_instance
    >>> go_alone(pos_family_instance(10, 100, 5.0)).m.tolist()
    [10, 10]
    """
    need = check_instance(inst).need
    m = np.zeros(inst.k, dtype=int)
    for i in range(inst.k):
        own = inst.a_all[i, inst.bad[i]]
        if own.size:
            m[i] = math.ceil(float(np.max(need[i] / own)) * (1 - RATIO_TOL))
    return Plan("go alone", m, float(inst.c @ m))


def homogeneous_plan(inst: Instance) -> Plan:
    """ceil(ln(|H|/delta) / epsilon) samples from the cheapest agent, as if all data were exchangeable.

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import pos_family_instance
    >>> homogeneous_plan(pos_family_instance(10, 100, 5.0)).m.tolist()      # ln(3/0.05)/0.1 -> 41
    [41, 0]
    """
    m = np.zeros(check_instance(inst).k, dtype=int)
    m[int(np.argmin(inst.c))] = math.ceil(math.log(inst.n_hypotheses / inst.delta) / inst.epsilon)
    return Plan("homogeneous", m, float(inst.c @ m))


def cooperative_optimum(inst: Instance, time_limit: float = 60.0) -> Plan:
    """The cheapest integer allocation meeting every agent's per-agent union-bound condition (``milp``)."""
    a, rhs = check_instance(inst).rows("agent")
    sol = integer_optimum(a, inst.c, rhs, time_limit=time_limit)
    return Plan("optimum", np.asarray(sol.m, dtype=int), sol.cost)
