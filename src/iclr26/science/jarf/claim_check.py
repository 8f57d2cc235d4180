"""Claim check of the JARF reproduction (arXiv 2512.08306): the brief's three-part rule over harness seeds.

(i) JARF-sqrt beats RF by >= 2 accuracy points, with a paired 95% t-interval above 0, on at least 2 of the 3
generated oblique classification sets; (ii) averaged over all classification sets, JARF-sqrt trails the oblique
reference (SPORF when available, else our Rotation Forest) by <= 1 point with the paired interval's lower end
> -2; (iii) the median fit time of JARF over (dataset, seed) is below the oblique baselines' medians.
Supported when all three hold and SPORF was measured. Not supported when JARF <= RF (mean gain <= 0) on at least
2 of the 3 generated sets, or when JARF trails the oblique reference by > 2 points on average. Otherwise
inconclusive; in particular, when SPORF is unavailable a rule that holds in full with Rotation Forest as the
oblique reference is reported as inconclusive (the brief's rule), and the explanation says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["GAIN_POINTS", "NONINFERIORITY", "TRAIL_POINTS", "jarf_decider"]

GAIN_POINTS = 2.0  # (i) accuracy points over RF
TRAIL_POINTS = 1.0  # (ii) JARF may trail the oblique reference by at most this much (mean)
NONINFERIORITY = -2.0  # (ii) lower end of the paired interval must exceed this


def jarf_decider(synthetic: Sequence[str], classification: Sequence[str], timed: Sequence[str]) -> Decider:
    """The brief's rule; `synthetic` ⊂ `classification` are dataset names, `timed` the sets whose fit times count."""
    metrics = ["sporf_available"]
    for ds in classification:
        metrics += [f"{ds}_jarf_sqrt_acc", f"{ds}_rf_acc", f"{ds}_rotf_acc", f"{ds}_sporf_acc"]
    for ds in timed:
        metrics += [f"{ds}_jarf_sqrt_fit_s", f"{ds}_rotf_fit_s", f"{ds}_sporf_fit_s"]
    metrics = list(dict.fromkeys(metrics))

    @decider(*metrics, description="JARF >= RF + 2 on 2/3 oblique sets, ~ oblique forests, faster")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        def col(name: str) -> np.ndarray:
            return np.array([float(r[name]) for r in rows])

        n = len(rows)
        # (i) gains over RF on the generated oblique sets
        parts, n_win, n_lose = [], 0, 0
        for ds in synthetic:
            diff = col(f"{ds}_jarf_sqrt_acc") - col(f"{ds}_rf_acc")
            if not np.all(np.isfinite(diff)):
                return Verdict(Outcome.INCONCLUSIVE, f"non-finite accuracies on {ds}", n_seeds=n)
            iv = t_interval(diff)
            if not iv.defined:
                return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, n)
            n_win += int(iv.estimate >= GAIN_POINTS and iv.lo > 0)
            n_lose += int(iv.estimate <= 0)
            parts.append(f"{ds} {iv.estimate:+.2f} [{iv.lo:+.2f}, {iv.hi:+.2f}]")
        need = min(2, len(synthetic))
        ok_i = n_win >= need
        bad_i = n_lose >= need
        # (ii) non-inferiority against the oblique reference
        sporf = bool(np.all(col("sporf_available") > 0.5))
        ref = "sporf" if sporf else "rotf"
        gap = np.mean([col(f"{ds}_jarf_sqrt_acc") - col(f"{ds}_{ref}_acc") for ds in classification], axis=0)
        if not np.all(np.isfinite(gap)):
            return Verdict(Outcome.INCONCLUSIVE, f"non-finite accuracies for {ref}", n_seeds=n)
        gv = t_interval(gap)
        ok_ii = gv.estimate >= -TRAIL_POINTS and gv.lo > NONINFERIORITY
        bad_ii = gv.estimate < NONINFERIORITY
        # (iii) median fit times over (dataset, seed)
        t_jarf = np.median(np.concatenate([col(f"{ds}_jarf_sqrt_fit_s") for ds in timed]))
        t_rotf = np.median(np.concatenate([col(f"{ds}_rotf_fit_s") for ds in timed]))
        t_sporf = np.median(np.concatenate([col(f"{ds}_sporf_fit_s") for ds in timed])) if sporf else np.nan
        timed_ok = np.isfinite(t_jarf) and np.isfinite(t_rotf)
        ok_iii = bool(timed_ok and t_jarf < t_rotf and (not sporf or t_jarf < t_sporf))
        text = (
            f"(i) JARF-sqrt - RF accuracy points: {'; '.join(parts)}; {n_win}/{len(synthetic)} sets >= "
            f"{GAIN_POINTS:g} with interval > 0 (need {need}), {n_lose} with mean <= 0; "
            f"(ii) mean over {len(classification)} classification sets of JARF-sqrt - {ref.upper()}: "
            f"{gv.estimate:+.2f} [{gv.lo:+.2f}, {gv.hi:+.2f}] (need >= -{TRAIL_POINTS:g}, lower end > "
            f"{NONINFERIORITY:g}); (iii) median fit s: JARF {t_jarf:.3g}, RotF {t_rotf:.3g}, SPORF "
            f"{'n/a' if not sporf else f'{t_sporf:.3g}'} -> {'holds' if ok_iii else 'fails'}"
        )
        if bad_i or bad_ii:
            outcome = Outcome.NOT_SUPPORTED
        elif ok_i and ok_ii and ok_iii and sporf:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        if not sporf:
            text += (
                "; SPORF (treeple) unavailable: Rotation Forest is the oblique reference and a rule holding in "
                "full is only inconclusive"
            )
            if not timed_ok:
                text += "; fit times not measured (NaN)"
        head = t_interval(
            np.mean([col(f"{ds}_jarf_sqrt_acc") - col(f"{ds}_rf_acc") for ds in synthetic], axis=0)
        )
        text = f"headline: mean JARF-sqrt - RF gain over the generated sets; {text}"
        return Verdict(outcome, text, head.estimate, (head.lo, head.hi), n)

    return decide
