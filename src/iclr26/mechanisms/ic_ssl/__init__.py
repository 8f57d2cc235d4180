"""In-Context Semi-Supervised Learning (IC-SSL), arXiv 2512.15934, OpenReview lqrpmqrTnH (ICLR 2026).

A transformer that builds a Laplacian-eigenmap-like representation from labelled and unlabelled context points
(RBF attention + power-iteration layers) and classifies queries by in-context gradient descent on it.
"""

from iclr26.mechanisms.ic_ssl.baselines import (
    PlainICLTransformer,
    eigenmap_logreg,
    knn_labelled,
    label_spreading,
    laplacian_eigenmap,
)
from iclr26.mechanisms.ic_ssl.claim_check import icssl_decider
from iclr26.mechanisms.ic_ssl.model import (
    GDSoftmaxLayer,
    ICSSLTransformer,
    PowerIterLayer,
    RBFAttention,
    orthonormalize,
    softmax_regression_gd,
)
from iclr26.mechanisms.ic_ssl.tasks import (
    FAMILIES,
    ID_FAMILIES,
    OOD_FAMILIES,
    ManifoldTask,
    make_task,
    task_batch,
    tokens_from_task,
)

__all__ = [
    "FAMILIES",
    "GDSoftmaxLayer",
    "ICSSLTransformer",
    "ID_FAMILIES",
    "ManifoldTask",
    "OOD_FAMILIES",
    "PlainICLTransformer",
    "PowerIterLayer",
    "RBFAttention",
    "eigenmap_logreg",
    "laplacian_eigenmap",
    "icssl_decider",
    "knn_labelled",
    "label_spreading",
    "make_task",
    "orthonormalize",
    "softmax_regression_gd",
    "task_batch",
    "tokens_from_task",
]
