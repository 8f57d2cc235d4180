"""The brief's two claim rules for Overtone, judged over seeds.

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (ICLR 2026, arXiv
2507.09264).

Harmonic mitigation (within one CSM model), per seed: the 30-step rollout VRMSE with the cyclic schedule
``vrmse_long_csm_cyc`` and with fixed p = 8 ``vrmse_long_csm_p8``, and the harmonic peak ratio at the p = 8
harmonics of the step-30 error, ``hpr8_csm_cyc`` and ``hpr8_csm_p8``:

* SUPPORTED when mean cyclic VRMSE is >= 10% below mean fixed, the paired 95% t-interval of (cyclic - fixed) lies
  below 0, and the mean harmonic peak ratio falls (cyclic < fixed);
* NOT SUPPORTED when mean cyclic VRMSE >= mean fixed;
* INCONCLUSIVE otherwise.

Flexibility, per seed: the ratio of the CSM model's 10-step VRMSE at p = 8 to the fixed-p = 8 baseline's:

* SUPPORTED when the mean ratio is <= 1.10 and the upper end of its 95% t-interval is <= 1.25;
* NOT SUPPORTED when the mean ratio is > 1.25;
* INCONCLUSIVE otherwise.
"""

from __future__ import annotations

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = [
    "FLEX_HI",
    "FLEX_MEAN",
    "REL_DROP",
    "cyclic_mitigates_harmonics",
    "flexible_matches_fixed",
]

REL_DROP = 0.10
FLEX_MEAN = 1.10
FLEX_HI = 1.25


def _clear_mitigation(rows: Rows) -> Rows:
    return [
        {
            **r,
            "vrmse_long_csm_cyc": 0.5 * float(r["vrmse_long_csm_p8"]) + seed_spread(i, 1e-3),
            "hpr8_csm_cyc": 0.5 * float(r["hpr8_csm_p8"]),
        }
        for i, r in enumerate(rows)
    ]


@decider(
    "vrmse_long_csm_cyc",
    "vrmse_long_csm_p8",
    "hpr8_csm_cyc",
    "hpr8_csm_p8",
    description=(
        f"mean cyclic 30-step VRMSE >= {REL_DROP:.0%} below fixed p = 8, paired t-interval of cyclic - fixed < 0, "
        "and the harmonic peak ratio at the p = 8 harmonics falls; not supported when cyclic >= fixed"
    ),
    compares=[
        Comparison("vrmse_long_csm_cyc", "vrmse_long_csm_p8", False),
        Comparison("hpr8_csm_cyc", "hpr8_csm_p8", False),
    ],
    synthesize=_clear_mitigation,
)
def cyclic_mitigates_harmonics(rows: PerSeed) -> Verdict:
    """The brief's harmonic-mitigation rule; see the module docstring."""
    cyc, fix = column(rows, "vrmse_long_csm_cyc"), column(rows, "vrmse_long_csm_p8")
    h_cyc, h_fix = column(rows, "hpr8_csm_cyc"), column(rows, "hpr8_csm_p8")
    diff = t_interval(cyc - fix)
    m_cyc, m_fix = float(cyc.mean()), float(fix.mean())
    drop = 1.0 - m_cyc / m_fix
    text = (
        f"30-step VRMSE cyclic {m_cyc:.4f} vs fixed p = 8 {m_fix:.4f} (relative drop {drop:.1%}); cyclic - fixed = "
        f"{diff.estimate:.4f} [{diff.lo:.4f}, {diff.hi:.4f}] (95% t, {len(cyc)} seeds); harmonic peak ratio at the "
        f"p = 8 harmonics {float(h_cyc.mean()):.3f} (cyclic) vs {float(h_fix.mean()):.3f} (fixed)"
    )
    if m_cyc >= m_fix:
        outcome = Outcome.NOT_SUPPORTED
    elif drop >= REL_DROP and diff.hi < 0 and float(h_cyc.mean()) < float(h_fix.mean()):
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, diff.estimate, (diff.lo, diff.hi), len(cyc))


def _clear_flex(rows: Rows) -> Rows:
    return [
        {**r, "vrmse_flex_csm_p8": float(r["vrmse_flex_base_p8"]) * (0.95 + seed_spread(i, 1e-2))}
        for i, r in enumerate(rows)
    ]


@decider(
    "vrmse_flex_csm_p8",
    "vrmse_flex_base_p8",
    description=(
        f"ratio of the CSM model's 10-step VRMSE at p = 8 to the fixed-p = 8 baseline's: mean <= {FLEX_MEAN:g} and "
        f"upper 95% t bound <= {FLEX_HI:g}; not supported when the mean > {FLEX_HI:g}"
    ),
    synthesize=_clear_flex,
)
def flexible_matches_fixed(rows: PerSeed) -> Verdict:
    """The brief's flexibility rule (a non-inferiority check: the CSM model equal to the baseline passes)."""
    ratio = column(rows, "vrmse_flex_csm_p8") / column(rows, "vrmse_flex_base_p8")
    iv = t_interval(ratio)
    text = (
        f"VRMSE ratio CSM / fixed-p = 8 at 10 steps = {iv.estimate:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] (95% t, "
        f"{len(ratio)} seeds; per seed {', '.join(f'{r:.3f}' for r in ratio)})"
    )
    if iv.estimate > FLEX_HI:
        outcome = Outcome.NOT_SUPPORTED
    elif iv.estimate <= FLEX_MEAN and iv.hi <= FLEX_HI:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), len(ratio))
