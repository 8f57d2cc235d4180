"""Claim checks of the iS-QN reproduction (arXiv 2506.04398): the brief's gap-recovery rule and the memory rule.

Replicates are pooled over harness seeds and the members trained in lockstep inside each seed (metric
``{env}_{method}_auc_m{j}``; without per-member metrics the per-seed mean ``{env}_{method}_auc`` is one
replicate). Methods are paired by replicate (same environment seeds). Intervals: 95% percentile bootstrap of the
mean paired difference (deterministic, :func:`iclr26.harness.stats.bootstrap_interval`).

Gap recovery, per environment: the DQN - TF gap is *significant* when the interval of (DQN - TF) lies above 0.
No significant gap anywhere -> inconclusive. Supported when, in every gap environment, the method recovers
>= ``min_fraction`` of the gap (``AUC_m >= AUC_TF + f (AUC_DQN - AUC_TF)`` on the means) with the interval of
(m - TF) above 0, and (if asked) its parameter count is <= 1.10 x TF's and <= 0.6 x DQN's. Not supported when the
interval of (m - TF) does not lie above 0 in any gap environment, or when the parameter rule fails. Otherwise
inconclusive. The estimate is the recovered fraction in the worst gap environment with its bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = [
    "DQN_RATIO",
    "TF_RATIO",
    "gap_recovery_decider",
    "param_decider",
    "pooled_auc",
    "recovered_fraction",
]

TF_RATIO = 1.10
DQN_RATIO = 0.6


def pooled_auc(rows: Sequence[Mapping[str, float]], env: str, method: str) -> np.ndarray:
    """All replicates' AUC of ``method`` on ``env``, ordered (seed, member) so that methods pair up."""
    out: list[float] = []
    for row in rows:
        j, vals = 0, []
        while f"{env}_{method}_auc_m{j}" in row:
            vals.append(float(row[f"{env}_{method}_auc_m{j}"]))
            j += 1
        out.extend(vals if vals else [float(row[f"{env}_{method}_auc"])])
    return np.asarray(out, dtype=float)


def recovered_fraction(
    dqn: np.ndarray, tf: np.ndarray, other: np.ndarray
) -> tuple[float, tuple[float, float]]:
    """(mean(other) - mean(TF)) / (mean(DQN) - mean(TF)) and its paired-bootstrap 95% interval."""
    n = len(dqn)

    def stat(idx: np.ndarray) -> np.ndarray:
        i = idx.astype(int)
        gap = dqn[i].mean(-1) - tf[i].mean(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (other[i].mean(-1) - tf[i].mean(-1)) / gap

    iv = bootstrap_interval(np.arange(n, dtype=float), statistic=stat, n_boot=2000)
    return iv.estimate, (iv.lo, iv.hi)


def _params_ok(rows: Sequence[Mapping[str, float]], env: str, method: str) -> tuple[bool, float, float]:
    r = rows[0]
    tf_ratio = float(r[f"{env}_{method}_params"]) / float(r[f"{env}_tf_params"])
    dqn_ratio = float(r[f"{env}_{method}_params"]) / float(r[f"{env}_dqn_params"])
    return tf_ratio <= TF_RATIO and dqn_ratio <= DQN_RATIO, tf_ratio, dqn_ratio


def gap_recovery_decider(
    envs: Sequence[str], method: str = "is4", min_fraction: float = 0.5, check_params: bool = True
) -> Decider:
    """The brief's rule for ``method`` against TF-DQN and DQN over ``envs``."""
    metrics = [f"{e}_{m}_auc" for e in envs for m in ("dqn", "tf", method)]
    if check_params:
        metrics += [f"{e}_{m}_params" for e in envs for m in ("dqn", "tf", method)]

    @decider(*metrics, description=f"{method} recovers >= {min_fraction:.0%} of the DQN-TF AUC gap")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        parts, gap_envs, above, enough, worst = [], [], [], [], None
        for env in envs:
            dqn, tf, other = (pooled_auc(rows, env, m) for m in ("dqn", "tf", method))
            if not (np.all(np.isfinite(dqn)) and np.all(np.isfinite(tf)) and np.all(np.isfinite(other))):
                return Verdict(Outcome.INCONCLUSIVE, f"non-finite AUC on {env}", n_seeds=len(rows))
            if len(dqn) < 2:
                return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 replicates", n_seeds=len(rows))
            gap = bootstrap_interval(dqn - tf)
            if not gap.lo > 0:
                parts.append(
                    f"{env}: no significant gap (DQN-TF {gap.estimate:.3g} [{gap.lo:.3g}, {gap.hi:.3g}])"
                )
                continue
            gap_envs.append(env)
            diff = bootstrap_interval(other - tf)
            frac, (flo, fhi) = recovered_fraction(dqn, tf, other)
            above.append(diff.lo > 0)
            enough.append(frac >= min_fraction)
            if worst is None or frac < worst[0]:
                worst = (frac, (flo, fhi))
            parts.append(
                f"{env}: gap {gap.estimate:.3g} [{gap.lo:.3g}, {gap.hi:.3g}], {method}-TF {diff.estimate:.3g} "
                f"[{diff.lo:.3g}, {diff.hi:.3g}], recovered {frac:.2f} [{flo:.2f}, {fhi:.2f}] ({len(dqn)} reps)"
            )
        params_fail = []
        if check_params:
            for env in envs:
                ok, rt, rd = _params_ok(rows, env, method)
                parts.append(f"{env} params {rt:.3f}x TF, {rd:.3f}x DQN")
                if not ok:
                    params_fail.append(env)
        text = "; ".join(parts)
        if not gap_envs:
            return Verdict(Outcome.INCONCLUSIVE, "no DQN-TF gap to bridge. " + text, n_seeds=len(rows))
        assert worst is not None
        if params_fail:
            outcome = Outcome.NOT_SUPPORTED
        elif all(above) and all(enough):
            outcome = Outcome.SUPPORTED
        elif not any(above):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(outcome, text, worst[0], worst[1], len(rows))

    return decide


def param_decider(envs: Sequence[str], method: str = "is4") -> Decider:
    """Memory rule: ``method``'s parameters <= 1.10 x TF-DQN's and <= 0.6 x DQN's in every environment."""
    metrics = [f"{e}_{m}_params" for e in envs for m in ("dqn", "tf", method)]

    @decider(*metrics, description=f"{method} params <= {TF_RATIO} x TF and <= {DQN_RATIO} x DQN")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        checks = [(env, *_params_ok(rows, env, method)) for env in envs]
        text = "; ".join(f"{e}: {rt:.3f}x TF, {rd:.3f}x DQN" for e, _, rt, rd in checks)
        worst = max(rt for _, _, rt, _ in checks)
        outcome = Outcome.SUPPORTED if all(ok for _, ok, _, _ in checks) else Outcome.NOT_SUPPORTED
        return Verdict(outcome, text, worst, None, len(rows))

    return decide
