"""AND-OR template for art and design composition (ICLR 2026; working name, official title unknown).

A reconstruction after Si & Zhu (PAMI 2013) and Jin et al. (arXiv 2410.06124): an AND-OR template inside a
maximum-entropy log-linear model gives a consistency score S(I) = log p(I | T) - log q(I) = sum_k e_k(I),
learned by penalised EM block pursuit, expanded from unlabeled scenes, and turned into prescriptions.

Example
-------
>>> import numpy as np
>>> from iclr26.generative.and_or_template import AndOrTemplate, sample_scene
>>> rng = np.random.default_rng(0)
>>> y = ["thirds", "frame"] * 40
>>> X = [sample_scene(p, rng) for p in y]
>>> t = AndOrTemplate(n_ref=2000).fit(X, y)
>>> s, ev = t.score(X[0]), t.evidence(X[0])
>>> bool(abs(s - sum(ev.values())) < 1e-9)
True
"""

from iclr26.generative.and_or_template.baselines import SmallCNN, kmeans_paradigms, ridge_ratings, train_cnn
from iclr26.generative.and_or_template.scenes import (
    CATEGORIES,
    LABELLED_PARADIGMS,
    PARADIGMS,
    CompositionRenderer,
    Part,
    as_parts,
    rating,
    sample_scene,
)
from iclr26.generative.and_or_template.template import AndOrTemplate, Branch, ParseTree, Prescription, pursue
from iclr26.generative.and_or_template.terms import TERMS, Term, fit_lambdas, geometry, term_features

__all__ = [
    "CATEGORIES",
    "LABELLED_PARADIGMS",
    "PARADIGMS",
    "TERMS",
    "AndOrTemplate",
    "Branch",
    "CompositionRenderer",
    "ParseTree",
    "Part",
    "Prescription",
    "SmallCNN",
    "Term",
    "as_parts",
    "fit_lambdas",
    "geometry",
    "kmeans_paradigms",
    "pursue",
    "rating",
    "ridge_ratings",
    "sample_scene",
    "term_features",
    "train_cnn",
]
