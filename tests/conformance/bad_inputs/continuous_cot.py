"""Bad input to the continuous-thought (Coconut) reproduction (arXiv 2509.23365)."""

import torch

from iclr26.mechanisms.continuous_cot import (
    CoconutWrapper,
    TrainConfig,
    build_instance,
    capture_attention,
    make_model,
    make_prosqa_like,
    special_id,
    stage_loss,
    track_index_matching_logit,
    train,
    vocab_size,
)

NAN, INF = float("nan"), float("inf")

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
    (lambda: TrainConfig(lr=INF), ValueError, ["lr", "finite"]),
    (lambda: TrainConfig(lr=NAN), ValueError, ["lr"]),
    (lambda: TrainConfig(weight_decay=NAN), ValueError, ["weight_decay", "finite"]),
    (lambda: TrainConfig(uniform_prob=NAN), ValueError, ["uniform_prob", "[0, 1]"]),
    (lambda: TrainConfig(batch_size=True), ValueError, ["batch_size", "int"]),
    (lambda: TrainConfig(epochs_per_stage=(1.5, 1, 1, 1)), ValueError, ["epochs_per_stage[0]", "int"]),
    (lambda: train(_W, _DATA, TrainConfig(), -1), ValueError, ["seed", ">= 0"]),
    (lambda: train(None, _DATA, TrainConfig(), 0), TypeError, ["wrapper", "CoconutWrapper"]),
    (lambda: make_model(None), TypeError, ["data", "ReachabilityData"]),
    (lambda: make_model(_DATA, init_seed=-1), ValueError, ["init_seed", ">= 0"]),
    (lambda: special_id("|", 8.5), ValueError, ["n_node_tokens", "int"]),
    (lambda: vocab_size(-1), ValueError, ["n_node_tokens", ">= 2"]),
    (lambda: stage_loss(_W, _DATA, 0, "coconut", None), TypeError, ["generator", "Generator"]),
    (lambda: capture_attention(_W, torch.zeros(1, 3, 8).long()), TypeError, ["embeds", "floating"]),
]
