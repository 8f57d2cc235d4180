"""BioBO: Biology-informed Bayesian Optimization for Perturbation Design (ICLR 2026).

arXiv 2509.19988, OpenReview CF3kJrAwmV. Pool-based batch Bayesian optimisation over genes with a GP on fused
multimodal gene embeddings and a gene prior from pathway enrichment analysis, applied through pi-BO. Also: the
synthetic perturbation landscape, a small exact GP in torch, ORA with BH correction, and the baselines.
"""

from iclr26.science.biobo.acquisition import (
    PiBO,
    expected_improvement,
    thompson_sample,
    top_b,
    upper_confidence_bound,
)
from iclr26.science.biobo.biobo import ACQUISITIONS, BioBO, EAGreedy, RandomSelector, fuse_embeddings
from iclr26.science.biobo.claim_check import (
    biobo_decider,
    efficiency_gain,
    labels_at_rstar,
    labels_to_recall,
)
from iclr26.science.biobo.enrichment import benjamini_hochberg, enrichment_prior, ora_hypergeom
from iclr26.science.biobo.gp import ExactGP, matern52
from iclr26.science.biobo.landscape import PerturbationLandscape, make_perturbation_landscape

__all__ = [
    "ACQUISITIONS",
    "BioBO",
    "EAGreedy",
    "ExactGP",
    "PerturbationLandscape",
    "PiBO",
    "RandomSelector",
    "benjamini_hochberg",
    "biobo_decider",
    "efficiency_gain",
    "enrichment_prior",
    "expected_improvement",
    "fuse_embeddings",
    "labels_at_rstar",
    "labels_to_recall",
    "make_perturbation_landscape",
    "matern52",
    "ora_hypergeom",
    "thompson_sample",
    "top_b",
    "upper_confidence_bound",
]
