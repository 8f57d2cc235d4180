"""The brief's claim rules for FlyThinker, judged over seeds.

Paper: "Think-While-Generating: On-the-Fly Reasoning for Personalized Long-Form Generation" (ICLR 2026,
arXiv 2512.06690).

Main claim. Per seed, the relative NLL gain of FlyThinker over a baseline b is g_b = 1 - fly_nll / b_nll (test
response tokens of unseen users). Interval: a normal 95% interval around the mean of g_b over seeds whose
variance is the within-seed example-bootstrap variance of g_b (``var_gain_<b>``, 1,000 paired resamples of the
test examples) summed over seeds / n^2, i.e. the stratified (seed, example) paired bootstrap in closed form.
SUPPORTED: for both b in {same-size SFT, parameter-matched SFT} mean g_b >= 2%, every seed's g_b > 0 and the
interval's lower end > 0, and FlyThinker's training step time <= 1.5x the parameter-matched SFT's (mean over
seeds). NOT SUPPORTED: the interval of g_pm lies at or below 0 (FlyThinker worse than the parameter-matched SFT).
Otherwise INCONCLUSIVE.

Step cost is measured deterministically (the harness requires reproducible metrics): training-step FLOPs from
``torch.utils.flop_counter`` for the main claim's "<= 1.5x the parameter-matched SFT", and the number of model
passes that run one after another in a training step for the efficiency claim; wall-clock medians are stored as
artifacts and shown in the timing figure.

Efficiency claim. The latent-chain variant (R reads its own previous latent, sequential over T) needs >= 2x
FlyThinker's serial model passes per training step: t-interval of the per-seed log ratio (exact when the ratio
is the same in every seed); SUPPORTED when its lower end exceeds 2, NOT SUPPORTED when its upper end is below 2,
else INCONCLUSIVE.
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import interval

__all__ = [
    "CHAIN_RATIO",
    "GAIN_SUPPORT",
    "STEP_RATIO_MAX",
    "bootstrap_gain_var",
    "chain_slower",
    "fly_beats_sft",
]

GAIN_SUPPORT = 0.02
STEP_RATIO_MAX = 1.5
CHAIN_RATIO = 2.0
_MAIN = ["fly_nll", "sft_nll", "pm_nll", "var_gain_sft", "var_gain_pm", "fly_step_gflop", "pm_step_gflop"]


def _gain(rows: PerSeed, base: str) -> tuple[np.ndarray, float, float]:
    g = 1.0 - column(rows, "fly_nll") / column(rows, f"{base}_nll")
    n = len(g)
    half = 1.96 * math.sqrt(float(column(rows, f"var_gain_{base}").sum())) / n
    return g, float(g.mean()) - half, float(g.mean()) + half


def _win_main(rows: Rows) -> Rows:
    return [
        {
            **r,
            "sft_nll": 1.0,
            "pm_nll": 1.0,
            "fly_nll": 0.9 + seed_spread(i, 1e-3),
            "var_gain_sft": 1e-5,
            "var_gain_pm": 1e-5,
            "fly_step_gflop": 1.0,
            "pm_step_gflop": 1.0,
        }
        for i, r in enumerate(rows)
    ]


@decider(
    *_MAIN,
    description="FlyThinker NLL >= 2% below same-size and parameter-matched SFT, step FLOPs <= 1.5x",
    compares=[
        Comparison("fly_nll", "sft_nll", higher_is_better=False),
        Comparison("fly_nll", "pm_nll", higher_is_better=False),
    ],
    synthesize=_win_main,
)
def fly_beats_sft(rows: PerSeed) -> Verdict:
    """The brief's main rule; see the module docstring."""
    g_s, lo_s, hi_s = _gain(rows, "sft")
    g_p, lo_p, hi_p = _gain(rows, "pm")
    ratio = float((column(rows, "fly_step_gflop") / column(rows, "pm_step_gflop")).mean())
    if hi_p <= 0:
        outcome = Outcome.NOT_SUPPORTED
    elif (
        min(g_s.mean(), g_p.mean()) >= GAIN_SUPPORT
        and bool((g_s > 0).all() and (g_p > 0).all())
        and min(lo_s, lo_p) > 0
        and ratio <= STEP_RATIO_MAX
    ):
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"relative NLL gain vs same-size SFT {g_s.mean():+.4f} [{lo_s:+.4f}, {hi_s:+.4f}], vs parameter-matched "
        f"SFT {g_p.mean():+.4f} [{lo_p:+.4f}, {hi_p:+.4f}] (95%, seeds x test examples; supported at >= "
        f"{GAIN_SUPPORT} with every seed > 0); training-step FLOPs FlyThinker / param-matched = {ratio:.2f} "
        f"(allowed <= {STEP_RATIO_MAX})"
    )
    return Verdict(outcome, text, float(g_p.mean()), (lo_p, hi_p), len(rows))


def _win_chain(rows: Rows) -> Rows:
    return [
        {**r, "fly_serial_passes": 2.0 * (1 + seed_spread(i, 1e-2)), "chain_serial_passes": 73.0}
        for i, r in enumerate(rows)
    ]


@decider(
    "fly_serial_passes",
    "chain_serial_passes",
    description="latent-chain training step needs >= 2x FlyThinker's serial model passes",
    compares=[Comparison("chain_serial_passes", "fly_serial_passes")],
    synthesize=_win_chain,
)
def chain_slower(rows: PerSeed) -> Verdict:
    """The efficiency rule; see the module docstring."""
    logr = np.log(column(rows, "chain_serial_passes") / column(rows, "fly_serial_passes"))
    if float(np.ptp(logr)) == 0.0:  # a structural count: the same in every seed, the interval is the point
        est = lo = hi = float(math.exp(logr[0]))
        defined = True
    else:
        iv = interval(logr, 0.95, "t")
        est, lo, hi, defined = math.exp(iv.estimate), math.exp(iv.lo), math.exp(iv.hi), iv.defined
    if defined and lo > CHAIN_RATIO:
        outcome = Outcome.SUPPORTED
    elif defined and hi < CHAIN_RATIO:
        outcome = Outcome.NOT_SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"latent-chain / FlyThinker serial model passes per training step: geometric mean {est:.2f}x [{lo:.2f}, {hi:.2f}] "
        f"(95% t over seeds; supported above {CHAIN_RATIO}x)"
    )
    return Verdict(outcome, text, est, (lo, hi) if defined else None, len(rows))


def bootstrap_gain_var(
    fly: np.ndarray, base: np.ndarray, rng: np.random.Generator, n_boot: int = 1000
) -> float:
    """Variance of 1 - mean(fly) / mean(base) over paired resamples of the test examples."""
    idx = rng.integers(0, len(fly), size=(n_boot, len(fly)))
    return float(np.var(1.0 - fly[idx].mean(1) / base[idx].mean(1)))
