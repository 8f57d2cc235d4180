"""Over-representation analysis (hypergeometric, Benjamini-Hochberg) and the enrichment prior pi over genes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from iclr26.checks import check_array, check_bool, check_float, check_int, check_probability

__all__ = ["benjamini_hochberg", "enrichment_prior", "ora_hypergeom"]

_COLUMNS = ["pathway", "overlap", "size", "n_hits", "n_background", "p", "q", "genes"]


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (step-up, monotone, capped at 1)."""
    try:
        p = check_array("p", p)
    except ValueError:
        raise ValueError(f"p must hold p-values in [0, 1], got {p!r}") from None
    if p.ndim != 1:
        raise ValueError(f"p must be one-dimensional, got shape {p.shape}")
    if p.size == 0:
        return p.copy()
    if np.any(~np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("p must contain finite values in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    ranked = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum(np.minimum.accumulate(ranked[::-1])[::-1], 1.0)
    q = np.empty(m)
    q[order] = q_sorted
    return q


def ora_hypergeom(
    hits: Iterable[int], background: Iterable[int], pathways: Mapping[str, Iterable[int]]
) -> pd.DataFrame:
    """One-sided hypergeometric over-representation test of `hits` within `background` for each pathway.

    p_P = hypergeom.sf(|H & P| - 1, M=|O|, n=|O & P|, N=|H|) with O = background (the observed genes) and H = hits;
    q = Benjamini-Hochberg over all pathways. Pathways with no background gene get p = 1. Returns a DataFrame with
    columns pathway, overlap, size (= |O & P|), n_hits, n_background, p, q, genes (the overlapping hit genes).
    """
    bg = set(check_int("background gene", g) for g in background)
    h = set(check_int("hit gene", g) for g in hits)
    if not bg:
        raise ValueError("background is empty: need at least one observed gene")
    if not h <= bg:
        raise ValueError(f"hits must be a subset of background; {len(h - bg)} hit genes are outside it")
    if not isinstance(pathways, Mapping):
        raise TypeError(f"pathways must be a mapping name -> genes, got {type(pathways).__name__}")
    rows = []
    big_m, big_n = len(bg), len(h)
    for name, genes in pathways.items():
        members = set(check_int(f"gene of pathway {name!r}", g) for g in genes)
        in_bg = members & bg
        over = members & h
        k, size = len(over), len(in_bg)
        p = float(hypergeom.sf(k - 1, big_m, size, big_n)) if size > 0 else 1.0
        rows.append([str(name), k, size, big_n, big_m, min(max(p, 0.0), 1.0), np.nan, sorted(over)])
    df = pd.DataFrame(rows, columns=_COLUMNS)
    df["q"] = benjamini_hochberg(df["p"].to_numpy()) if len(df) else []
    return df


def enrichment_prior(
    table: pd.DataFrame,
    pathways: Mapping[str, Iterable[int]],
    n_genes: int,
    q_max: float = 0.25,
    eps: float = 0.1,
    return_source: bool = False,
) -> np.ndarray | tuple[np.ndarray, list[str | None]]:
    """Gene prior from an ORA table: s(g) = max over enriched P containing g of -log10 p_P, pi = (eps+s)/(eps+max s).

    A pathway is enriched when q < `q_max`. pi lies in (0, 1]; with no enriched pathway pi is uniform (all ones).
    With `return_source`, also return, per gene, the name of the pathway that set its score (None if none).
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame (from ora_hypergeom), got {type(table).__name__}")
    check_int("n_genes", n_genes, low=1)
    check_float("eps", eps, low=0.0, low_open=True)
    check_probability("q_max", q_max, open_low=True)
    return_source = check_bool("return_source", return_source)
    missing = {"pathway", "p", "q"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks columns {sorted(missing)}")
    for col in ("p", "q"):
        vals = table[col].to_numpy(dtype=float)
        if not np.all((vals >= 0) & (vals <= 1)):
            raise ValueError(f"table column {col!r} must hold finite values in [0, 1]")
    score = np.zeros(n_genes)
    source: list[str | None] = [None] * n_genes
    enriched = table[table["q"] < q_max].sort_values("p", kind="stable")
    unknown = [name for name in enriched["pathway"] if name not in pathways]
    if unknown:
        raise ValueError(f"table names enriched pathways missing from pathways: {unknown[:5]}")
    for name, p in zip(enriched["pathway"], enriched["p"]):
        s = -np.log10(max(float(p), 1e-300))
        for g in pathways[name]:
            g = int(g)
            if not 0 <= g < n_genes:
                raise ValueError(f"pathway {name!r} holds gene {g} outside the pool of {n_genes}")
            if s > score[g]:
                score[g] = s
                source[g] = str(name)
    pi = (eps + score) / (eps + score.max())
    return (pi, source) if return_source else pi
