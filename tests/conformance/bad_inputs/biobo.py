"""Bad input to the BioBO components (arXiv 2509.19988)."""

import numpy as np
import pandas as pd
import torch

from iclr26.science.biobo import (
    BioBO,
    EAGreedy,
    ExactGP,
    PiBO,
    RandomSelector,
    benjamini_hochberg,
    enrichment_prior,
    expected_improvement,
    make_perturbation_landscape,
    matern52,
    ora_hypergeom,
    thompson_sample,
    top_b,
    upper_confidence_bound,
)
from iclr26.science.biobo.claim_check import labels_to_recall

_E = {"a": np.random.default_rng(0).normal(size=(30, 4)), "b": np.random.default_rng(1).normal(size=(30, 3))}
_PW = {"P": {0, 1, 2}}
_OBS = np.arange(10)
_Y = np.linspace(0.0, 1.0, 10)


def _bo() -> BioBO:
    return BioBO(_E, _PW, fit_iters=1)


CASES = [
    (lambda: BioBO(_E, _PW, beta=-1.0), ValueError, ["beta", ">= 0"]),
    (lambda: PiBO(lambda x: x, torch.ones(3), beta=-0.5, n=1), ValueError, ["beta", ">= 0"]),
    (lambda: _bo().suggest(_OBS, _Y, 25), ValueError, ["batch_size", "larger", "unlabeled pool"]),
    (lambda: _bo().suggest(_OBS, np.r_[_Y[:9], np.nan], 5), ValueError, ["y_obs", "NaN"]),
    (lambda: _bo().suggest(_OBS, np.r_[_Y[:9], np.inf], 5), ValueError, ["y_obs", "inf"]),
    (lambda: BioBO({"a": _E["a"], "b": _E["b"][:20]}, _PW), ValueError, ["row counts", "differ"]),
    (lambda: BioBO(_E, _PW, acq="pi"), ValueError, ["acq"]),
    (lambda: _bo().suggest(np.r_[_OBS[:9], 0], _Y, 5), ValueError, ["obs_idx", "repeated"]),
    (lambda: ora_hypergeom([99], [1, 2], _PW), ValueError, ["hits", "subset"]),
    (lambda: make_perturbation_landscape(0, signal="weak"), ValueError, ["signal"]),
    (lambda: make_perturbation_landscape(0, annotation_noise=1.5), ValueError, ["annotation_noise"]),
]

_NAN = float("nan")
_LAND = make_perturbation_landscape(0, n_genes=50, n_pathways=5, n_causal=2)
_TABLE = ora_hypergeom([1], [1, 2], _PW)

CASES += [
    (lambda: BioBO(_E, _PW, beta=True), ValueError, ["beta", "True"]),
    (lambda: BioBO(_E, _PW, eps=float("inf")), ValueError, ["eps", "finite"]),
    (lambda: BioBO(_E, _PW, q_max=2.0), ValueError, ["q_max", "(0, 1]"]),
    (lambda: BioBO(_E, _PW, beta_ucb=-1.0), ValueError, ["beta_ucb", ">= 0"]),
    (lambda: BioBO(_E, _PW, fit_iters=1.5), ValueError, ["fit_iters", "1.5"]),
    (lambda: BioBO(_E, _PW, lr=_NAN), ValueError, ["lr", "nan"]),
    (lambda: BioBO(_E, _PW, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: BioBO(_E, _PW, n_components=1.5), ValueError, ["n_components", "1.5"]),
    (lambda: BioBO(_E, _PW, use_prior="no"), TypeError, ["use_prior", "bool"]),
    (lambda: BioBO({"a": np.zeros((0, 3))}, _PW), ValueError, ["embedding", "n_genes >= 2"]),
    (lambda: _bo().suggest(_OBS, _Y, 2.0), ValueError, ["batch_size", "2.0"]),
    (lambda: _bo().suggest(_OBS, ["a"] * 10, 2), ValueError, ["y_obs", "numbers"]),
    (
        lambda: _bo().acquisition(np.array([0, 1]), np.array([1.0, 2.0]), np.array([99])),
        ValueError,
        ["free", "pool"],
    ),
    (lambda: RandomSelector(2.5), ValueError, ["n_genes", "2.5"]),
    (lambda: RandomSelector(5, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: EAGreedy(_PW, 30, hit_frac=2.0), ValueError, ["hit_frac", "(0, 1)"]),
    (lambda: EAGreedy(_PW, 0), ValueError, ["n_genes", ">= 1"]),
    (lambda: upper_confidence_bound(torch.zeros(3), torch.ones(4)), ValueError, ["var", "shape"]),
    (lambda: upper_confidence_bound(torch.zeros(3), torch.ones(3), _NAN), ValueError, ["beta_ucb", "nan"]),
    (lambda: upper_confidence_bound(torch.zeros(3), torch.full((3,), _NAN)), ValueError, ["var", "finite"]),
    (lambda: expected_improvement(torch.zeros(3), torch.ones(3), _NAN), ValueError, ["best_f", "nan"]),
    (lambda: expected_improvement(np.zeros(3), np.ones(3), 0.0), TypeError, ["mean", "torch.Tensor"]),
    (lambda: thompson_sample(torch.zeros(3), torch.eye(4), torch.Generator()), ValueError, ["cov", "shape"]),
    (lambda: thompson_sample(torch.zeros(3), torch.eye(3), 3), TypeError, ["generator", "torch.Generator"]),
    (
        lambda: thompson_sample(torch.zeros(3), -torch.eye(3, dtype=torch.float64) * 1e6, torch.Generator()),
        ValueError,
        ["cov", "positive semi-definite"],
    ),
    (lambda: top_b(np.array([_NAN, 1.0, 2.0]), 2), ValueError, ["scores", "finite"]),
    (lambda: top_b(np.ones(3), True), ValueError, ["batch_size", "True"]),
    (lambda: PiBO(lambda x: x, torch.ones(3), True, 1), ValueError, ["beta", "True"]),
    (lambda: PiBO(lambda x: x, torch.ones(3), 1.0, 1, shift="no"), TypeError, ["shift", "bool"]),
    (lambda: benjamini_hochberg(["a"]), ValueError, ["p must", "p-values"]),
    (lambda: ora_hypergeom([1.5], [1.5, 2.5], _PW), ValueError, ["background gene", "1.5"]),
    (lambda: enrichment_prior(None, _PW, 30), TypeError, ["table", "DataFrame"]),
    (lambda: enrichment_prior(_TABLE, _PW, 30, eps=float("inf")), ValueError, ["eps", "finite"]),
    (
        lambda: enrichment_prior(pd.DataFrame({"pathway": ["Q"], "p": [0.01], "q": [0.01]}), _PW, 30),
        ValueError,
        ["pathways", "'Q'"],
    ),
    (
        lambda: enrichment_prior(pd.DataFrame({"pathway": ["P"], "p": [_NAN], "q": [0.01]}), _PW, 30),
        ValueError,
        ["column 'p'", "[0, 1]"],
    ),
    (lambda: ExactGP([1.5]), ValueError, ["blocks", "1.5"]),
    (lambda: ExactGP([2], noise_floor=-1.0), ValueError, ["noise_floor", ">= 0"]),
    (
        lambda: ExactGP([2]).set_hyperparameters([[_NAN, 1.0]], [1.0], 0.1),
        ValueError,
        ["lengthscales", "nan"],
    ),
    (
        lambda: ExactGP([2]).set_hyperparameters([[1.0, 1.0]], [1.0], _NAN),
        ValueError,
        ["noise", "noise_floor"],
    ),
    (lambda: ExactGP([2]).fit(np.zeros((3, 2)), np.arange(3.0), iters=2, lr=-1.0), ValueError, ["lr", "> 0"]),
    (lambda: ExactGP([2]).fit(np.zeros((0, 2)), np.zeros(0)), ValueError, ["x", "at least one"]),
    (lambda: ExactGP([2]).kernel(torch.zeros(3, 3), torch.zeros(3, 3)), ValueError, ["x1", "shape"]),
    (
        lambda: matern52(torch.zeros(2, 2), torch.zeros(2, 2), torch.zeros(2), torch.tensor(1.0)),
        ValueError,
        ["lengthscale", "positive"],
    ),
    (lambda: make_perturbation_landscape(0, n_genes=50, latent_dim=1.5), ValueError, ["latent_dim", "1.5"]),
    (lambda: make_perturbation_landscape(0, n_genes=50, noise_sd=_NAN), ValueError, ["noise_sd", "nan"]),
    (
        lambda: make_perturbation_landscape(0, n_genes=50, size_range=(1.5, 10)),
        ValueError,
        ["size_range", "1.5"],
    ),
    (lambda: make_perturbation_landscape("a"), ValueError, ["seed", "'a'"]),
    (lambda: _LAND.top_genes(2.0), ValueError, ["frac", "(0, 1]"]),
    (lambda: labels_to_recall([1.0, 2.0], [0.1, float("nan")], 0.5), ValueError, ["recall", "finite"]),
    (lambda: labels_to_recall([1.0, 2.0], [0.1, 0.6], float("nan")), ValueError, ["r", "[0, 1]", "nan"]),
]
