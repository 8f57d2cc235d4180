"""Bad input to the task-vector reproduction's public API (arXiv 2506.09048)."""

import torch

from iclr26.mechanisms.task_vectors import (
    LinearAttentionTransformer,
    extract,
    inject,
    linear_icl_data,
    map_pool,
    map_prompts,
    multi_inject,
    zero_shot_prompt,
)

_M = LinearAttentionTransformer(3, 4, 3, "triplet")
_B = linear_icl_data("triplet", 2, 3, seed=0, batch=2)

CASES = [
    (lambda: extract(_M, _B.prompts, 2, pos=10), ValueError, ["layer", "[0, 1]"]),
    (lambda: extract(_M, _B.prompts, -1, pos=10), ValueError, ["layer"]),
    (lambda: extract(_M, _B.prompts, 0, pos=9), ValueError, ["pos", "not an arrow"]),
    (
        lambda: inject(_M, zero_shot_prompt(_B.xq), torch.zeros(4), 0, pos=2),
        ValueError,
        ["pos", "not an arrow"],
    ),
    (lambda: multi_inject(_M, _B.prompts, [torch.zeros(4)], 0, [1, 4]), ValueError, ["taus", "same length"]),
    (lambda: linear_icl_data("quad", 2, 3), ValueError, ["format"]),
    (lambda: linear_icl_data("triplet", 2, 3, rank=3), ValueError, ["rank", "<= d"]),
    (lambda: LinearAttentionTransformer(2, 5), ValueError, ["d_model", "even"]),
    (lambda: LinearAttentionTransformer(2, 4, keep_prob=0.0), ValueError, ["keep_prob"]),
    (lambda: map_prompts(map_pool(0), "reverse", 3, 2, 0), ValueError, ["task"]),
    (lambda: extract(torch.nn.Linear(2, 2), _B.prompts, 0), TypeError, ["model"]),
]
