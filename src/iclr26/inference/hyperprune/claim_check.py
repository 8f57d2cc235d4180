"""Claim check of the HyperPrune reproduction (OpenReview lqjQs2lVNm): the brief's rule over harness seeds.

Per seed, from held-out log-perplexities after 2:4 pruning (no weight update for HyperPrune):
``d_wanda = log ppl(HyperPrune) - log ppl(Wanda)``, ``d_sgpt`` likewise for SparseGPT, and the ablation gaps
``log ppl(beta = 0) - log ppl(HyperPrune)`` and ``log ppl(gamma = 0) - log ppl(HyperPrune)``. 95% Student-t
intervals over seeds. Not supported: the ``d_wanda`` interval reaches 0 or above. Supported: both ``d``
intervals below 0, both mean ratios ``exp(mean d) <= 0.97`` (>= 3% lower perplexity), and at least one ablation
interval above 0. Inconclusive otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["REL_GAIN", "hyperprune_decider"]

REL_GAIN = 0.03


def hyperprune_decider(prefix: str = "nm24_") -> Decider:
    """The brief's supported / not supported / inconclusive rule on the metrics ``<prefix>logppl_<method>``."""
    names = ("hyperprune", "wanda", "sparsegpt", "hyperprune_nobeta", "hyperprune_nogamma")
    keys = {k: f"{prefix}logppl_{k}" for k in names}

    @decider(*keys.values(), description="HyperPrune ppl >= 3% below Wanda and SparseGPT, an ablation hurts")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        col = {k: np.array([float(r[v]) for r in rows]) for k, v in keys.items()}
        if not all(np.all(np.isfinite(c)) for c in col.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite perplexities in some seeds", n_seeds=len(rows))
        iv_w = t_interval(col["hyperprune"] - col["wanda"])
        iv_s = t_interval(col["hyperprune"] - col["sparsegpt"])
        iv_b = t_interval(col["hyperprune_nobeta"] - col["hyperprune"])
        iv_g = t_interval(col["hyperprune_nogamma"] - col["hyperprune"])
        if not iv_w.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv_w.estimate, None, iv_w.n)
        thr = math.log(1 - REL_GAIN)
        beats_w = iv_w.hi < 0 and iv_w.estimate <= thr
        beats_s = iv_s.hi < 0 and iv_s.estimate <= thr
        ablation = iv_b.lo > 0 or iv_g.lo > 0
        if iv_w.hi >= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif beats_w and beats_s and ablation:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"ppl ratio vs Wanda = {math.exp(iv_w.estimate):.4g} (log diff {iv_w.estimate:.3g} "
            f"[{iv_w.lo:.3g}, {iv_w.hi:.3g}]), vs SparseGPT = {math.exp(iv_s.estimate):.4g} (log diff "
            f"{iv_s.estimate:.3g} [{iv_s.lo:.3g}, {iv_s.hi:.3g}]); need both <= {1 - REL_GAIN} with interval < 0; "
            f"ablation gaps beta=0: {iv_b.estimate:.3g} [{iv_b.lo:.3g}, {iv_b.hi:.3g}], gamma=0: {iv_g.estimate:.3g} "
            f"[{iv_g.lo:.3g}, {iv_g.hi:.3g}] (need one interval > 0); 95% t, {iv_w.n} seeds"
        )
        return Verdict(outcome, text, iv_w.estimate, (iv_w.lo, iv_w.hi), iv_w.n)

    return decide
