"""iclr26.decision: online learning, bidding, mechanisms and reinforcement learning.

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "LipschitzEnv": "delayed_lipschitz_bandit",
        "DelayedZooming": "delayed_lipschitz_bandit",
        "DLPP": "delayed_lipschitz_bandit",
        "RepeatedAuction": "l2fob",
        "L2FOB": "l2fob",
        "WangDualPacing": "l2fob",
        "solve_allocation": "fl_incentives",
        "PWYC": "fl_incentives",
        "NodeMappingEnv": "virne",
        "OnlineSimulator": "virne",
        "NRMRank": "virne",
        "GRCRank": "virne",
        "SharedHeadQNet": "is_ql",
        "ISDQN": "is_ql",
        "TargetFreeDQN": "is_ql",
        "DQN": "is_ql",
        "FAME": "dual_learner_crl",
        "FAMEConfig": "dual_learner_crl",
        "GridTasks": "dual_learner_crl",
        "cumulative_bound": "pac_bayes_continual",
        "VILearner": "pac_bayes_continual",
        "EWCLearner": "pac_bayes_continual",
        "GaussianGibbsLinReg": "pac_bayes_continual",
        "SGLDGibbs": "pac_bayes_continual",
        "MassSpring2D": "zero_shot_evolution",
        "UniversalController": "zero_shot_evolution",
        "NoveltyArchive": "zero_shot_evolution",
    },
)
