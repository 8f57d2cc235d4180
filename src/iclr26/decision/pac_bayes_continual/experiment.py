"""Reproduction of "PAC-Bayes bounds for cumulative loss in Continual Learning" (OpenReview hWw269fPov).

Per harness seed (one independent replication):

- Vision: Permuted-Digits and Split-Digits (sklearn digits, D_t = the task's 1,400-image pool, m draws with
  replacement per task), MLP 64-100-10. VI (prior P_t = Q_(t-1)) and EWC (certified as N(w_t, s^2 I) against
  N(w_(t-1), s^2 I), one s chosen afterwards from a grid) run over T tasks; per task the Gibbs empirical 0-1 risk
  (Monte Carlo), the exact-pool Gibbs risk (Monte Carlo) and KL(Q_t || P_t) are recorded. The certificate is the
  Catoni-form bound at every horizon (grid of 20 lambdas, delta split over the grid and the s grid) plus a pooled
  one-sided Hoeffding Monte Carlo slack (delta_mc, union over the T horizons). Baselines: the same bound with the
  data-free prior for every task, and the final posterior's average risk over all tasks.
- Oracle: closed-form Gibbs posteriors (lambda = m / (2 sigma^2)) of linear regression over four task families in
  two capacity regimes; (1/T) CuL against the oracle right-hand side L(h*_(1:t-1), D_t); warm-started SGLD for
  the task-order comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26.decision.pac_bayes_continual.bounds import mc_correction, running_bound, split_delta
from iclr26.decision.pac_bayes_continual.claim_check import (
    PERM_LEARNED,
    SPLIT_LEARNED,
    certificate_decider,
    certificate_holds,
    oracle_decider,
)
from iclr26.decision.pac_bayes_continual.figures import kl_per_task, oracle_bars, running_certificate
from iclr26.decision.pac_bayes_continual.learners import VILearner
from iclr26.decision.pac_bayes_continual.posteriors import BayesMLP, EWCLearner, GaussianGibbsLinReg
from iclr26.decision.pac_bayes_continual.sgld import SGLDGibbs
from iclr26.decision.pac_bayes_continual.tasks import (
    SCENARIOS,
    DigitsTask,
    linreg_tasks,
    oracle_rhs,
    permuted_digits,
    seen_before,
    split_digits,
)
from iclr26.harness.claims import Claim, all_of, difference_at_least
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track

__all__ = ["EXPERIMENT", "PBCLConfig", "run"]

FAMILIES = {"perm": permuted_digits, "split": split_digits}


@dataclass(frozen=True)
class PBCLConfig:
    """One budget of the reproduction."""

    families: tuple[str, ...] = ("perm", "split")
    n_tasks: int = 60
    m: int = 400
    pool_size: int = 1400
    hidden: int = 100
    epochs: int = 5
    lr: float = 1e-2
    batch_size: int = 64
    prior_sd: float = 0.1
    lam_train: float = 400.0
    ewc_lambda: float = 1.0
    ewc_sds: tuple[float, ...] = (0.02, 0.04, 0.08, 0.16, 0.32)
    n_mc_emp: int = 4
    n_mc_true: int = 2
    delta: float = 0.05
    delta_mc: float = 0.01
    reg_reps: int = 20
    reg_tasks: int = 100
    reg_d: int = 10
    reg_m: int = 50
    noise_sd: float = 0.1
    drift_angle: float = 0.05
    sgld_particles: int = 32
    sgld_steps: int = 20
    sgld_step: float = 1e-5
    single_thread: bool = True


def _certificate(
    emp: np.ndarray, kls: np.ndarray, cfg: PBCLConfig, delta: float, n_grid: int = 1
) -> np.ndarray:
    """Running bound at every horizon: Catoni form at confidence `delta` + pooled Monte Carlo slack.

    The slack's delta_mc is split over the T horizons and the `n_grid` posteriors whose risks were estimated
    (the EWC s grid), so all of them hold at once with probability >= 1 - delta_mc.
    """
    T = len(emp)
    t = np.arange(1, T + 1)
    slack = np.array([mc_correction(cfg.n_mc_emp * cfg.m * int(k), T * n_grid, cfg.delta_mc) for k in t])
    return running_bound(emp, kls, cfg.m, delta) + slack


def _avg_final_risk(q: BayesMLP, tasks: list[DigitsTask], gen: torch.Generator) -> float:
    """Average-loss evaluation of the final posterior Q_T over every distinct task (forgetting contrast)."""
    distinct = {task.name: task for task in tasks}
    return float(np.mean([q.gibbs_error(task.X, task.y, 1, gen) for task in distinct.values()]))


def _run_vi(tasks: list[DigitsTask], cfg: PBCLConfig, seed: int, n_out: int) -> tuple[dict, dict]:
    data_gen = torch.Generator().manual_seed(10_000 * seed + 1)
    mc_gen = torch.Generator().manual_seed(10_000 * seed + 2)
    vi = VILearner(
        (64, cfg.hidden, n_out),
        cfg.prior_sd,
        cfg.lam_train,
        cfg.lr,
        cfg.epochs,
        cfg.batch_size,
        seed=10_000 * seed + 3,
    )
    rows = []
    for task in tasks:
        X, y = task.sample(cfg.m, data_gen)
        kl = vi.fit_task(X, y)
        q = vi.posterior
        rows.append(
            (
                q.gibbs_error(X, y, cfg.n_mc_emp, mc_gen),
                q.gibbs_error(task.X, task.y, cfg.n_mc_true, mc_gen),
                q.gibbs_error(task.X_hold, task.y_hold, cfg.n_mc_true, mc_gen),
                kl,
                vi.kl_to_data_free(),
            )
        )
    emp, true, hold, kls, naive_kls = map(np.array, zip(*rows))
    bound = _certificate(emp, kls, cfg, cfg.delta)
    naive = _certificate(emp, naive_kls, cfg, cfg.delta)
    t = np.arange(1, len(tasks) + 1)
    cul = np.cumsum(true) / t
    values = {
        "cul": cul[-1],
        "bound": bound[-1],
        "gap": bound[-1] - cul[-1],
        "emp": emp.mean(),
        "kl": kls.mean(),
        "holdout": hold.mean(),
        "naive_bound": naive[-1],
        "final_avg_risk": _avg_final_risk(q, tasks, mc_gen),
    }
    return values, {"running_cul": cul, "running_bound": bound, "kl": kls}


def _run_ewc(tasks: list[DigitsTask], cfg: PBCLConfig, seed: int, n_out: int) -> tuple[dict, dict]:
    data_gen = torch.Generator().manual_seed(10_000 * seed + 1)
    mc_gen = torch.Generator().manual_seed(10_000 * seed + 4)
    ewc = EWCLearner(
        (64, cfg.hidden, n_out), cfg.ewc_lambda, cfg.lr, cfg.epochs, cfg.batch_size, seed=10_000 * seed + 3
    )
    prev, init = ewc.init_weights, ewc.init_weights
    sds = cfg.ewc_sds
    emp, true, d2, d2_init, point = [], [], [], [], []
    for task in tasks:
        X, y = task.sample(cfg.m, data_gen)
        ewc.fit_task(X, y)
        w = ewc.weights()
        d2.append(sum(float(((a - b) ** 2).sum() + ((c - e) ** 2).sum()) for (a, c), (b, e) in zip(w, prev)))
        d2_init.append(
            sum(float(((a - b) ** 2).sum() + ((c - e) ** 2).sum()) for (a, c), (b, e) in zip(w, init))
        )
        prev = w
        point.append(ewc.error(task.X, task.y))
        qs = [ewc.gaussian(s) for s in sds]
        emp.append([q.gibbs_error(X, y, cfg.n_mc_emp, mc_gen) for q in qs])
        true.append([q.gibbs_error(task.X, task.y, cfg.n_mc_true, mc_gen) for q in qs])
    emp, true, d2, d2_init = np.array(emp), np.array(true), np.array(d2), np.array(d2_init)
    d_point = split_delta(cfg.delta, len(sds))
    bounds = np.stack(
        [_certificate(emp[:, j], d2 / (2 * s**2), cfg, d_point, len(sds)) for j, s in enumerate(sds)]
    )
    naive = min(
        _certificate(emp[:, j], d2_init / (2 * s**2), cfg, d_point, len(sds))[-1] for j, s in enumerate(sds)
    )
    j = int(np.argmin(bounds[:, -1]))
    t = np.arange(1, len(tasks) + 1)
    cul = np.cumsum(true[:, j]) / t
    s = sds[j]
    values = {
        "cul": cul[-1],
        "bound": bounds[j, -1],
        "gap": bounds[j, -1] - cul[-1],
        "emp": emp[:, j].mean(),
        "kl": float(np.mean(d2 / (2 * s**2))),
        "point_cul": float(np.mean(point)),
        "s": s,
        "naive_bound": naive,
        "final_avg_risk": _avg_final_risk(ewc.gaussian(s), tasks, mc_gen),
    }
    return values, {"running_cul": cul, "running_bound": bounds[j], "kl": d2 / (2 * s**2)}


def _regression(cfg: PBCLConfig, seed: int) -> tuple[dict[str, float], dict]:
    """Closed-form Gibbs CuL vs the oracle RHS in both regimes, plus the SGLD task-order comparison."""
    out: dict[str, list[float]] = {}
    T = cfg.reg_tasks

    def add(key: str, value: float) -> None:
        out.setdefault(key, []).append(float(value))

    for rep in range(cfg.reg_reps):
        for regime in ("overparam", "limited"):
            for scen in SCENARIOS:
                rng = np.random.default_rng([seed, rep, 17])
                tasks = linreg_tasks(scen, regime, T, rng, cfg.reg_d, cfg.noise_sd, cfg.drift_angle)
                samples = [task.sample(cfg.reg_m, rng) for task in tasks]
                oracle = oracle_rhs(tasks)
                seen = seen_before(tasks)
                sel = seen if seen.any() else np.arange(T) > 0
                lam0 = cfg.reg_m / (2 * cfg.noise_sd**2)
                variants = [("", lam0)] + ([("_lam10", lam0 / 10)] if regime == "overparam" else [])
                for suffix, lam in variants:
                    gibbs = GaussianGibbsLinReg(cfg.reg_d, lam=lam)
                    cul = np.array(
                        [
                            task.gibbs_risk(gibbs.update(X, y).mean, gibbs.cov)
                            for task, (X, y) in zip(tasks, samples)
                        ]
                    )
                    key = f"reg_{regime}_{scen}"
                    add(f"{key}_relgap{suffix}", cul[sel].mean() / oracle[sel].mean() - 1.0)
                    if not suffix:
                        add(f"{key}_cul", cul.mean())
                        add(f"{key}_cul_sel", cul[sel].mean())
                        add(f"{key}_oracle_sel", oracle[sel].mean())
                if regime == "limited" and scen in ("alternating", "switch"):
                    sgld = SGLDGibbs(
                        cfg.reg_d,
                        noise_sd=cfg.noise_sd,
                        n_particles=cfg.sgld_particles,
                        step_size=cfg.sgld_step,
                        n_steps=cfg.sgld_steps,
                        seed=seed * 1000 + rep,
                    )
                    cul = [
                        float(np.mean(task.risk(sgld.update(X, y).particles)))
                        for task, (X, y) in zip(tasks, samples)
                    ]
                    add(f"sgld_limited_{scen}_cul", np.mean(cul))
    values = {k: float(np.mean(v)) for k, v in out.items()}
    for prefix in ("reg_limited", "sgld_limited"):
        values[f"{prefix}_switch_minus_alt"] = float(
            np.mean(np.array(out[f"{prefix}_switch_cul"]) - np.array(out[f"{prefix}_alternating_cul"]))
        )
    return values, {
        k: v for k, v in out.items() if k.endswith("_cul") and k.startswith(("reg_limited", "sgld"))
    }


def run(cfg: PBCLConfig, seed: int, device: str) -> Metrics:
    """Run every vision learner and the regression study for one seed."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    jobs = [(fam, meth) for fam in cfg.families for meth in ("vi", "ewc")]
    for fam, meth in track(jobs, description=f"pac-bayes-continual seed {seed}"):
        tasks = FAMILIES[fam](cfg.n_tasks, seed, cfg.pool_size)
        n_out = tasks[0].n_classes
        vals, cv = (_run_vi if meth == "vi" else _run_ewc)(tasks, cfg, seed, n_out)
        values |= {f"{fam}_{meth}_{k}": float(v) for k, v in vals.items()}
        t = list(range(1, cfg.n_tasks + 1))
        curves[f"{fam}_{meth}_running_cul"] = Curve(t, cv["running_cul"].tolist(), "task t", "(1/t) CuL")
        curves[f"{fam}_{meth}_running_bound"] = Curve(t, cv["running_bound"].tolist(), "task t", "bound")
        curves[f"{fam}_{meth}_kl"] = Curve(t, cv["kl"].tolist(), "task t", "KL(Q_t || P_t) (nats)")
    reg_values, reg_art = _regression(cfg, seed)
    values |= reg_values
    return Metrics(
        values=values, curves=curves, artifacts={"families": list(cfg.families), "regression": reg_art}
    )


EXPERIMENT = Experiment(
    slug="pac-bayes-continual",
    configs={
        "smoke": PBCLConfig(
            n_tasks=5,
            m=100,
            epochs=1,
            ewc_sds=(0.04, 0.16),
            n_mc_emp=2,
            n_mc_true=1,
            reg_reps=2,
            reg_tasks=20,
        ),
        "quick": PBCLConfig(),
        "full": PBCLConfig(n_tasks=120, epochs=10, n_mc_true=10),
    },
    seeds={"smoke": 1, "quick": 5, "full": 5},
    run=run,
    claims=[
        Claim(
            id="cul-certificate",
            statement=(
                "VI on Permuted-Digits: (1/T) CuL <= the certificate in every seed and the certificate is < 1 "
                "(non-vacuous 0-1 loss); mean gap <= 0.25 (95% t upper end); and closed-form Gibbs posteriors "
                "in over-parameterised linear regression come within 10% of the oracle right-hand side "
                "(bootstrap intervals inside [-0.1, 0.1] for i.i.d., alternating and single-switch tasks)"
            ),
            paper_value="Permuted-MNIST VI 15.5% vs bound 17.9%, EWC 1.0% vs 10.6% (T = 120); oracle bound "
            "nearly exact for over-parameterised linear regression",
            decide=certificate_decider(),
            preconditions=(PERM_LEARNED,),
            scale_gap="m = 400 draws per task from 1,400 8x8 digits, MLP 64-100-10, T = 60, 5 seeds",
        ),
        Claim(
            id="gibbs-oracle-near-exact",
            statement="closed-form Gibbs CuL within 10% of the oracle RHS on previously seen tasks "
            "(over-parameterised regime; i.i.d., alternating, switch)",
            paper_value="oracle bound nearly exact when over-parameterised (SGLD Gibbs posteriors)",
            decide=oracle_decider(),
            scale_gap="closed-form Gibbs posteriors instead of SGLD; d = 10, m = 50, T = 100",
        ),
        Claim(
            id="sequential-prior-tighter",
            statement="with P_t = Q_(t-1) the VI certificate is lower than with the data-free prior for every task "
            "(paired over seeds, both families)",
            paper_value="(implicit) the previous posterior as prior is what makes the bound non-vacuous",
            decide=all_of(
                difference_at_least("perm_vi_naive_bound", "perm_vi_bound", 0.0),
                difference_at_least("split_vi_naive_bound", "split_vi_bound", 0.0),
            ),
            preconditions=(PERM_LEARNED, SPLIT_LEARNED),
        ),
        Claim(
            id="split-certificate",
            statement="(secondary, ours) VI on Split-Digits: the certificate holds and is non-vacuous in every seed",
            paper_value="Split-MNIST VI 17.6% vs bound 19.4%",
            decide=certificate_holds("split_vi_cul", "split_vi_bound"),
            preconditions=(SPLIT_LEARNED,),
            scale_gap="5 binary digit tasks cycled to T = 60, m = 400",
        ),
    ],
    figures=[running_certificate, kl_per_task, oracle_bars],
    scale_gap=(
        "sklearn 8x8 digits with m = 400 draws per task and a 64-100-10 MLP replace MNIST/CIFAR with CNNs and "
        "large m; T = 60 (quick) instead of 120; the shipped bound is a re-derived Catoni form, not the paper's "
        "Theorem 3.2; the oracle study uses closed-form Gibbs posteriors."
    ),
)
