"""chrF: the character n-gram F-score of Popovic (WMT 2015), with sacrebleu's defaults (sacrebleu is not a
dependency here).

For n = 1..6, on the strings with all whitespace removed: ``P_n = matches_n / hyp_ngrams_n`` and
``R_n = matches_n / ref_ngrams_n``, where ``matches_n`` counts common n-grams with clipped multiplicity. Like
sacrebleu >= 2 (``eps_smoothing=False``), the precisions and recalls are averaged over the *effective* orders
(those where both strings have n-grams), then

    chrF = 100 * (1 + beta^2) P R / (beta^2 P + R),   beta = 2 (recall weighted higher).

A hypothesis with more references gets the best of them (sacrebleu keeps the statistics of the reference with the
highest F). Case is kept.

>>> chrf("abc", "abc")
100.0
>>> chrf("", "abc")
0.0
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from iclr26.checks import check_float, check_int

__all__ = ["char_ngrams", "chrf", "chrf_reference"]


def char_ngrams(text: str, n: int) -> Counter[str]:
    """The multiset of character n-grams of ``text`` after removing whitespace."""
    s = "".join(text.split())
    return Counter(s[i : i + n] for i in range(len(s) - n + 1))


def _check_text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a str, got {type(value).__name__}")
    return value


def _score(hyp: str, ref: str, order: int, beta: float) -> float:
    avg_p = avg_r = 0.0
    effective = 0
    for n in range(1, order + 1):
        h, r = char_ngrams(hyp, n), char_ngrams(ref, n)
        n_hyp, n_ref = sum(h.values()), sum(r.values())
        if n_hyp == 0 or n_ref == 0:
            continue
        match = sum(min(c, r[g]) for g, c in h.items() if g in r)
        avg_p += match / n_hyp
        avg_r += match / n_ref
        effective += 1
    if effective == 0:
        return 0.0
    p, r = avg_p / effective, avg_r / effective
    if p + r == 0:
        return 0.0
    b2 = beta * beta
    return 100.0 * (1 + b2) * p * r / (b2 * p + r)


def chrf(hypothesis: str, references: str | Sequence[str], *, order: int = 6, beta: float = 2.0) -> float:
    """Sentence chrF in [0, 100] of ``hypothesis`` against one reference or the best of several."""
    hyp = _check_text("hypothesis", hypothesis)
    refs = [references] if isinstance(references, str) else list(references)
    if not refs:
        raise ValueError("references must be a str or a non-empty sequence of str")
    refs = [_check_text(f"references[{i}]", r) for i, r in enumerate(refs)]
    order = check_int("order", order, 1, 32)
    beta = check_float("beta", beta, 0.0, None, low_open=True)
    return max(_score(hyp, r, order, beta) for r in refs)


def chrf_reference(hypothesis: str, reference: str, order: int = 6, beta: float = 2.0) -> float:
    """The slow textbook form: every n-gram listed and matched one by one (for tests)."""
    hyp, ref = "".join(hypothesis.split()), "".join(reference.split())
    ps, rs = [], []
    for n in range(1, order + 1):
        hg = [hyp[i : i + n] for i in range(len(hyp) - n + 1)]
        rg = [ref[i : i + n] for i in range(len(ref) - n + 1)]
        if not hg or not rg:
            continue
        pool = list(rg)
        match = 0
        for g in hg:
            if g in pool:
                pool.remove(g)
                match += 1
        ps.append(match / len(hg))
        rs.append(match / len(rg))
    if not ps:
        return 0.0
    p, r = sum(ps) / len(ps), sum(rs) / len(rs)
    return 0.0 if p + r == 0 else 100.0 * (1 + beta**2) * p * r / (beta**2 * p + r)
