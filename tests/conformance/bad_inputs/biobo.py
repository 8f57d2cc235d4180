"""Bad input to the BioBO components (arXiv 2509.19988)."""

import numpy as np
import torch

from iclr26.science.biobo import BioBO, PiBO, make_perturbation_landscape, ora_hypergeom

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
