"""Bad input to the AND-OR template, its parts, renderer and config."""

import numpy as np

from iclr26.generative.and_or_template import AndOrTemplate, CompositionRenderer, Part, as_parts, sample_scene
from iclr26.generative.and_or_template.experiment import AOTConfig

_X = [sample_scene("centred", np.random.default_rng(i)) for i in range(20)]
_M = AndOrTemplate(n_ref=500, n_branches=1).fit(_X)

CASES = [
    (lambda: as_parts([]), ValueError, ["parts", "empty"]),
    (lambda: _M.score([]), ValueError, ["non-empty", "empty"]),
    (lambda: Part("subject", 1.5, 0.5), ValueError, ["cx", "[0, 1]", "1.5"]),
    (lambda: Part("subject", 0.5, -0.1), ValueError, ["cy", "[0, 1]"]),
    (lambda: Part("tree", 0.5, 0.5), ValueError, ["category", "subject", "tree"]),
    (lambda: Part("subject", 0.5, 0.5, scale=0.0), ValueError, ["scale", "(0, 1]"]),
    (lambda: as_parts([{"category": "subject", "x": 0.5}]), ValueError, ["part dict", "cx"]),
    (lambda: as_parts("subject"), TypeError, ["parts", "list"]),
    (lambda: AndOrTemplate(penalty=-1.0).fit(_X), ValueError, ["penalty", ">= 0", "-1"]),
    (lambda: AndOrTemplate(rho=2.0).fit(_X), ValueError, ["rho", "[0, 1]"]),
    (lambda: AndOrTemplate(n_branches=0).fit(_X), ValueError, ["n_branches", ">= 1"]),
    (lambda: AndOrTemplate(or_rule="mean").fit(_X), ValueError, ["or_rule", "max"]),
    (lambda: AndOrTemplate().fit([]), ValueError, ["parts_list", "non-empty"]),
    (lambda: AndOrTemplate(n_ref=500).fit(_X, ["a"]), ValueError, ["y_paradigm", "one label per scene"]),
    (lambda: AndOrTemplate().score(_X[0]), RuntimeError, ["not fitted", "fit"]),
    (lambda: _M.prescribe(_X[0], k=0), ValueError, ["k", ">= 1"]),
    (lambda: _M.expand([]), ValueError, ["unlabeled", "non-empty"]),
    (lambda: sample_scene("cubism", np.random.default_rng(0)), ValueError, ["paradigm", "thirds"]),
    (lambda: CompositionRenderer(size=2), ValueError, ["size", ">= 8"]),
    (lambda: AOTConfig(n_per_paradigm=1), ValueError, ["n_per_paradigm", ">= 5"]),
]
