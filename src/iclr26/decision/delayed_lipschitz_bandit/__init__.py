"""Delayed Zooming + DLPP: "Lipschitz Bandits with Stochastic Delayed Feedback" (ICLR 2026, arXiv 2510.00309).

Environments (:class:`LipschitzEnv`, the test functions ``trig1d``, ``tent1d``, ``bimodal2d``), delay models
(:class:`NoDelay`, :class:`UniformDelay`, :class:`GeometricDelay`, :class:`CensoredDelay`) and the
:class:`DelayQueue`; the paper's algorithms :class:`DelayedZooming` (bounded delays; ``lazy=False`` is the naive
baseline) and :class:`DLPP` (unbounded or censored delays); the baselines :class:`Zooming` (classical, slow
reference), :class:`GridDelayedUCB1` and :class:`BLiN`; and the loop :func:`run`.

Example
-------
>>> from iclr26.decision.delayed_lipschitz_bandit import DelayedZooming, UniformDelay, make_env, run
>>> out = run(make_env("trig1d"), DelayedZooming(1, 2000, conf_scale=0.1), UniformDelay(100), T=2000, seed=0)
>>> bool(out["regret_curve"][-1] < 0.05 * 2000)
True
"""

from iclr26.decision.delayed_lipschitz_bandit.blin import BLiN
from iclr26.decision.delayed_lipschitz_bandit.classical import Zooming
from iclr26.decision.delayed_lipschitz_bandit.delays import (
    CensoredDelay,
    DelayModel,
    DelayQueue,
    GeometricDelay,
    NoDelay,
    UniformDelay,
)
from iclr26.decision.delayed_lipschitz_bandit.dlpp import DLPP
from iclr26.decision.delayed_lipschitz_bandit.envs import (
    REWARD_FUNCTIONS,
    LipschitzEnv,
    bimodal2d,
    make_env,
    tent1d,
    trig1d,
)
from iclr26.decision.delayed_lipschitz_bandit.grid_ucb import GridDelayedUCB1
from iclr26.decision.delayed_lipschitz_bandit.runner import LipschitzBandit, run
from iclr26.decision.delayed_lipschitz_bandit.zooming import DelayedZooming

__all__ = [
    "BLiN",
    "DLPP",
    "REWARD_FUNCTIONS",
    "CensoredDelay",
    "DelayModel",
    "DelayQueue",
    "DelayedZooming",
    "GeometricDelay",
    "GridDelayedUCB1",
    "LipschitzBandit",
    "LipschitzEnv",
    "NoDelay",
    "UniformDelay",
    "Zooming",
    "bimodal2d",
    "make_env",
    "run",
    "tent1d",
    "trig1d",
]
