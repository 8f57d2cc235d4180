"""Claim check of the HyperPrune reproduction (OpenReview lqjQs2lVNm): the brief's rule over harness seeds.

Per seed, from held-out log-perplexities after 2:4 pruning (no weight update for HyperPrune), 95% Student-t
intervals over seeds of paired differences; three parts, combined as a conjunction (not supported if any part
is, supported if all are, inconclusive otherwise):

* vs Wanda (:func:`lower_by`): ``log ppl(Wanda) - log ppl(HyperPrune)`` supported at >= ``-log 0.97``
  (>= 3% lower perplexity) with the interval above 0; not supported when the interval reaches 0 (or lies below
  it) and lies wholly below ``-log 0.97`` (the data exclude a 3% gain); an interval that reaches 0 but also the
  3% gain is inconclusive (the harness rule that overrides the brief's "CI contains 0 -> not supported"), and so
  is a significant gain smaller than 3% (the brief's "inconclusive otherwise");
* vs SparseGPT: the same support rule; it never refutes (the brief: beating Wanda but not SparseGPT is
  inconclusive);
* ablation (:func:`ablation_hurts`): at least one of ``log ppl(beta = 0) - log ppl(HyperPrune)`` and
  ``log ppl(gamma = 0) - log ppl(HyperPrune)`` has its interval above 0; it never refutes either.

The dense model must have learned the text (:data:`DENSE_BEATS_UNIGRAM`, a precondition on the claims).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from iclr26.harness.claims import Decider, Outcome, Precondition, Verdict, all_of, decider
from iclr26.harness.claims import column as _col
from iclr26.harness.stats import t_interval

__all__ = ["DENSE_BEATS_UNIGRAM", "REL_GAIN", "ablation_hurts", "hyperprune_decider", "lower_by"]

REL_GAIN = 0.03
MAX_LOSS_OVER_UNIGRAM = 0.9

DENSE_BEATS_UNIGRAM = Precondition(
    "dense_logppl_over_unigram",
    "<=",
    MAX_LOSS_OVER_UNIGRAM,
    "the dense model's held-out loss is >= 10% below the unigram entropy of the test text (the loss of the "
    "best context-free predictor)",
)


def _jitter(i: int) -> float:
    return 1e-2 * ((i % 3) - 1)


def lower_by(method: str, baseline: str, gain: float, *, refutes: bool = True) -> Decider:
    """Paired ``baseline - method`` (a loss: lower is better), 95% t-interval over seeds.

    Supported when the mean reaches `gain` and the interval lies above 0; when `refutes`, not supported when the
    interval's lower end is <= 0 and its upper end lies below `gain`; inconclusive otherwise.
    """

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            base = float(r[baseline]) if math.isfinite(float(r[baseline])) else 4.0
            out.append({**r, method: base - 3.0 * max(gain, 0.01) * (1.0 + _jitter(i))})
        return out

    @decider(
        method,
        baseline,
        description=f"{baseline} - {method} >= {gain:.4g}",
        compares=[(method, baseline, False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        iv = t_interval(_col(rows, baseline) - _col(rows, method))
        if iv.estimate >= gain and iv.lo > 0:
            outcome = Outcome.SUPPORTED
        elif refutes and iv.lo <= 0 and iv.hi < gain:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"{baseline} - {method} = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; "
            f"ppl ratio {math.exp(-iv.estimate):.4g}); supported >= {gain:.4g} with the interval above 0"
            + (f", refuted when it reaches 0 and lies below {gain:.4g}" if refutes else "")
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide


def ablation_hurts(full: str, ablations: Sequence[str]) -> Decider:
    """Supported when, for at least one ablation, the 95% t-interval of ``ablation - full`` lies above 0 (the
    ablation raises the loss); inconclusive otherwise (an ablation without effect refutes nothing here)."""
    ablations = tuple(ablations)

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        return [
            {**r, **{a: float(r[full]) + 0.1 * (1.0 + _jitter(i)) for a in ablations}}
            for i, r in enumerate(rows)
        ]

    @decider(full, *ablations, description=f"one of {', '.join(ablations)} > {full}", synthesize=win)
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        ivs = {a: t_interval(_col(rows, a) - _col(rows, full)) for a in ablations}
        hurts = any(iv.lo > 0 for iv in ivs.values())
        text = "; ".join(
            f"{a} - {full} = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}]" for a, iv in ivs.items()
        )
        outcome = Outcome.SUPPORTED if hurts else Outcome.INCONCLUSIVE
        return Verdict(outcome, f"ablation gaps {text} (need one interval > 0; 95% t)", n_seeds=len(rows))

    return decide


def hyperprune_decider(prefix: str = "nm24_") -> Decider:
    """The brief's supported / not supported / inconclusive rule on the metrics ``<prefix>logppl_<method>``."""
    key = {
        k: f"{prefix}logppl_{k}"
        for k in ("hyperprune", "wanda", "sparsegpt", "hyperprune_nobeta", "hyperprune_nogamma")
    }
    gain = -math.log(1 - REL_GAIN)  # 3% lower perplexity, in log-perplexity
    vs_wanda = lower_by(key["hyperprune"], key["wanda"], gain)
    vs_sgpt = lower_by(key["hyperprune"], key["sparsegpt"], gain, refutes=False)
    ablation = ablation_hurts(key["hyperprune"], (key["hyperprune_nobeta"], key["hyperprune_nogamma"]))
    decide = all_of(vs_wanda, vs_sgpt, ablation)

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        """HyperPrune 10% below the better one-shot method, both ablations 10% above HyperPrune."""
        out = []
        for i, r in enumerate(rows):
            best = min(float(r[key["wanda"]]), float(r[key["sparsegpt"]]))
            best = best if math.isfinite(best) else 4.0
            hyper = best - 0.1 * (1.0 + _jitter(i))
            row = {**r, key["hyperprune"]: hyper}
            for k, a in enumerate(("hyperprune_nobeta", "hyperprune_nogamma")):
                row[key[a]] = hyper + 0.1 * (1.0 + _jitter(i + k))
            out.append(row)
        return out

    decide.synthesize = win  # the parts' own wins would overwrite each other's HyperPrune value
    decide.description = "HyperPrune ppl >= 3% below Wanda and SparseGPT, an ablation hurts"
    return decide
