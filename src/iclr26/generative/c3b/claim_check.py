"""The brief's offline claim check for C3B, over seeds.

(a) progressive difficulty: the trained backend's L1 accuracy minus its L2 accuracy is >= 10 points, with the
    95% bootstrap interval over test items x seeds above 0;
(b) multi-culture images are harder: L1 accuracy on 1-culture strips minus 3-culture strips is >= 5 points, with
    the interval above 0;
(c) harness sanity: oracle 100% on L1/L2 and chrF 100 on L3; random and text-only within 3 binomial standard
    errors of chance (1/4) on L1 and L2, in every seed.

A part is supported when its estimate reaches the margin and its interval lies above 0, not supported when the
interval lies at or below 0, inconclusive otherwise; the claim is supported when (a) and (b) are, with (c).

The interval is a two-level bootstrap: resample the seeds with replacement, then each resampled seed's test items
with replacement. Resampling n Bernoulli outcomes with replacement is a binomial draw at their observed rate, so
the per-seed (accuracy, item count) pairs are all the rule needs.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread

__all__ = ["CHANCE", "Z_MAX", "difficulty_gap", "harness_sane", "pooled_gap", "sanity_rows"]

CHANCE = 0.25  # 4 options at L1 and L2
Z_MAX = 3.0
N_BOOT = 4000


def pooled_gap(
    acc_a: np.ndarray,
    n_a: np.ndarray,
    acc_b: np.ndarray,
    n_b: np.ndarray,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Pooled accuracy difference ``a - b`` over seeds and its two-level bootstrap 95% interval."""
    acc_a, n_a, acc_b, n_b = (np.asarray(x, dtype=float) for x in (acc_a, n_a, acc_b, n_b))
    k_a, k_b = np.round(acc_a * n_a), np.round(acc_b * n_b)
    est = float(k_a.sum() / n_a.sum() - k_b.sum() / n_b.sum())
    rng = np.random.default_rng(seed)
    s = len(acc_a)
    pick = rng.integers(s, size=(n_boot, s))
    na, nb = n_a[pick].astype(np.int64), n_b[pick].astype(np.int64)
    ka = rng.binomial(na, np.clip(k_a / n_a, 0, 1)[pick])
    kb = rng.binomial(nb, np.clip(k_b / n_b, 0, 1)[pick])
    diffs = ka.sum(1) / na.sum(1) - kb.sum(1) / nb.sum(1)
    return est, float(np.quantile(diffs, 0.025)), float(np.quantile(diffs, 0.975))


def _gap_outcome(est: float, lo: float, hi: float, margin: float) -> Outcome:
    if est >= margin and lo > 0:
        return Outcome.SUPPORTED
    if hi <= 0:
        return Outcome.NOT_SUPPORTED
    return Outcome.INCONCLUSIVE


def difficulty_gap(a: str, b: str, margin: float, what: str):
    """Decider: pooled ``acc a - acc b >= margin`` with the two-level bootstrap interval above 0.

    Reads ``acc_<a>``, ``n_<a>``, ``acc_<b>``, ``n_<b>``.
    """
    names = (f"acc_{a}", f"n_{a}", f"acc_{b}", f"n_{b}")

    def clear(rows: Rows) -> Rows:
        return [{**r, names[0]: min(1.0, float(r[names[2]]) + margin + 0.3 + seed_spread(i)),
                 names[1]: max(float(r[names[1]]), 200.0), names[3]: max(float(r[names[3]]), 200.0)}
                for i, r in enumerate(rows)]  # fmt: skip

    @decider(
        *names,
        description=f"{what}: acc_{a} - acc_{b} >= {margin} with the items x seeds bootstrap interval above 0",
        compares=[(names[0], names[2])],
        synthesize=clear,
    )
    def rule(rows: PerSeed) -> Verdict:
        cols = [column(rows, m) for m in names]
        if np.any(cols[1] < 1) or np.any(cols[3] < 1):
            return Verdict(Outcome.INCONCLUSIVE, f"{what}: a seed has no items in one group")
        est, lo, hi = pooled_gap(*cols)
        outcome = _gap_outcome(est, lo, hi, margin)
        text = (
            f"{what}: acc_{a} - acc_{b} = {est:.4f} [{lo:.4f}, {hi:.4f}] (95% bootstrap over "
            f"{int(cols[1].sum())} + {int(cols[3].sum())} test items x {len(rows)} seeds); needs >= {margin} with "
            f"the interval above 0, refuted at or below 0"
        )
        return Verdict(outcome, text, est, (lo, hi), len(rows))

    return rule


SANITY = (
    "oracle_l1",
    "oracle_l2",
    "oracle_chrf",
    "random_z_l1",
    "random_z_l2",
    "textonly_z_l1",
    "textonly_z_l2",
)


def sanity_rows(rows: Rows) -> Rows:
    """Rows rewritten so every harness sanity check passes."""
    return [{**r, "oracle_l1": 1.0, "oracle_l2": 1.0, "oracle_chrf": 100.0, "random_z_l1": 0.1,
             "random_z_l2": -0.1, "textonly_z_l1": 0.2, "textonly_z_l2": 0.0} for r in rows]  # fmt: skip


@decider(
    *SANITY,
    description=f"oracle 100% (chrF 100); random and text-only within {Z_MAX} standard errors of chance, every seed",
    synthesize=sanity_rows,
)
def harness_sane(rows: PerSeed) -> Verdict:
    o1, o2, oc = column(rows, "oracle_l1"), column(rows, "oracle_l2"), column(rows, "oracle_chrf")
    z = np.stack([column(rows, m) for m in SANITY[3:]])
    ok_oracle = bool(np.all(o1 == 1.0) and np.all(o2 == 1.0) and np.all(np.abs(oc - 100.0) < 1e-9))
    ok_chance = bool(np.all(np.abs(z) <= Z_MAX))
    outcome = Outcome.SUPPORTED if ok_oracle and ok_chance else Outcome.NOT_SUPPORTED
    text = (
        f"oracle L1/L2 min {min(o1.min(), o2.min()):.3f}, chrF min {oc.min():.2f} (need 1, 1, 100); largest |z| "
        f"of random/text-only vs chance = {np.abs(z).max():.2f} (need <= {Z_MAX})"
    )
    return Verdict(outcome, text, float(np.abs(z).max()), None, len(rows))
