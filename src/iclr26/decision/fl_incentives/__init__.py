"""PWYC-LP: "Incentives in Federated Learning with Heterogeneous Agents" (ICLR 2026, arXiv 2509.21612).

Procaccia, Shao, Shapira. Agents with different data distributions buy samples for a pooled ERM; the planner
covers every bad hypothesis with an LP over the disagreement exponents a_j(h) = -ln(1 - d_j(h)), rounds it up,
and pays each agent its own sample cost (pay-what-you-contribute), which makes truthful reporting optimal.
Also here: the Monte Carlo of the learning outcome, the uncoordinated contribution game (best responses,
pure-NE search) and the baselines (go alone, homogeneous planner, best equilibrium).

Example
-------
>>> from iclr26.decision.fl_incentives import (
...     PWYC, lower_bound, lp_plan, simulate_failures, threshold_instance)
>>> inst = threshold_instance(3, rng=0)
>>> plan = lp_plan(inst)
>>> bool(plan.cost >= lower_bound(inst.a, inst.c, inst.delta))
True
>>> bool(simulate_failures(inst, plan.m, 500, rng=0).rate.max() <= inst.delta)
True
"""

from iclr26.decision.fl_incentives.baselines import (
    Plan,
    cooperative_optimum,
    go_alone,
    homogeneous_plan,
    lp_plan,
)
from iclr26.decision.fl_incentives.game import (
    ContributionGame,
    DynamicsResult,
    best_equilibrium,
    best_response,
    best_response_dynamics,
    is_nash,
    pure_nash_equilibria,
    required_contribution,
)
from iclr26.decision.fl_incentives.instances import (
    Instance,
    halfspace_instance,
    pos_family_instance,
    random_labeling_instance,
    threshold_instance,
)
from iclr26.decision.fl_incentives.lp import (
    Allocation,
    integer_optimum,
    lower_bound,
    round_up,
    solve_allocation,
)
from iclr26.decision.fl_incentives.mechanism import (
    PAYMENT_RULES,
    PWYC,
    MisreportSearch,
    agent_utility,
    marginal_benefit_payments,
    marginal_benefit_rule,
    misreport_search,
    perturb_report,
    pwyc_payments,
)
from iclr26.decision.fl_incentives.sim import FailureEstimate, clopper_pearson, simulate_failures

__all__ = [
    "PAYMENT_RULES",
    "PWYC",
    "Allocation",
    "ContributionGame",
    "DynamicsResult",
    "FailureEstimate",
    "Instance",
    "MisreportSearch",
    "Plan",
    "agent_utility",
    "best_equilibrium",
    "best_response",
    "best_response_dynamics",
    "clopper_pearson",
    "cooperative_optimum",
    "go_alone",
    "halfspace_instance",
    "homogeneous_plan",
    "integer_optimum",
    "is_nash",
    "lower_bound",
    "lp_plan",
    "marginal_benefit_payments",
    "marginal_benefit_rule",
    "misreport_search",
    "perturb_report",
    "pos_family_instance",
    "pure_nash_equilibria",
    "pwyc_payments",
    "random_labeling_instance",
    "required_contribution",
    "round_up",
    "simulate_failures",
    "solve_allocation",
    "threshold_instance",
]
