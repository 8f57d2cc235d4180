"""Bad input to the continuous-thought (Coconut) reproduction (arXiv 2509.23365)."""

import torch

from iclr26.mechanisms.continuous_cot import (
    CoconutWrapper,
    TrainConfig,
    build_instance,
    make_model,
    make_prosqa_like,
    track_index_matching_logit,
)

_DATA = make_prosqa_like(2, n_nodes=10, depth=3, seed=0, n_edges=12)
_W = CoconutWrapper(make_model(_DATA, d_model=8, n_heads=2, init_seed=0))

CASES = [
    (lambda: _W(_DATA.prompt, -1), ValueError, ["n_thoughts", ">= 0"]),
    (
        lambda: build_instance([(0, 1), (1, 2), (2, 3), (4, 5)], 0, (4, 5), depth=3, n_node_tokens=6),
        ValueError,
        ["candidates", "reachable"],
    ),
    (lambda: make_prosqa_like(2, n_nodes=20, depth=3, n_node_tokens=12), ValueError, ["n_nodes", "exceeds"]),
    (lambda: make_prosqa_like(2, n_nodes=6, depth=3), ValueError, ["n_nodes", "depth"]),
    (lambda: make_prosqa_like(0, n_nodes=12, depth=3), ValueError, ["n_graphs"]),
    (lambda: make_prosqa_like(2, n_nodes=12, depth=3, n_edges=5), ValueError, ["n_edges", "tree"]),
    (lambda: TrainConfig(method="beam"), ValueError, ["method"]),
    (lambda: track_index_matching_logit(_W, _DATA, 0), ValueError, ["step"]),
    (lambda: track_index_matching_logit(_W, _DATA, 4), ValueError, ["step", "depth"]),
    (lambda: _W(_DATA.prompt, 2, thoughts=torch.zeros(2, 3, 8)), ValueError, ["thoughts", "shape"]),
    (lambda: CoconutWrapper(torch.nn.Linear(2, 2)), TypeError, ["embed"]),
]
