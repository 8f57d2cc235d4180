"""Bad input to the soft-thinking decoders and probes (arXiv 2508.03440)."""

import torch

from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.soft_thinking import (
    END,
    EOS,
    VOCAB_SIZE,
    TrainConfig,
    check_answer,
    dag_problem,
    dirichlet_weights,
    gumbel_weights,
    js_divergence,
    layer_overlap,
    make_problems,
    mix_embeddings,
    soft_decode,
    soft_weights,
    top1_dominance,
    trained_model,
    training_batch,
)

_M = Transformer(VOCAB_SIZE, 48, 8, 1, 2, init_seed=0)
_P = torch.tensor([[12, 0, 1, 14]])
_X = torch.zeros(1, 3, 8)


def _dec(**kw):
    kw.setdefault("end_think_id", END)
    kw.setdefault("eos_id", EOS)
    return lambda: soft_decode(_M, _P, **kw)


CASES = [
    (_dec(mode="gumbel", tau=0.0), ValueError, ["tau", "> 0"]),
    (_dec(mode="dirichlet", beta=-1.0), ValueError, ["beta", "> 0"]),
    (_dec(k=0), ValueError, ["k", ">= 1"]),
    (_dec(k=2.5), TypeError, ["k", "int"]),
    (_dec(mode="beam"), ValueError, ["mode"]),
    (
        lambda: soft_decode(torch.nn.Linear(2, 2), _P, end_think_id=END, eos_id=EOS),
        TypeError,
        ["model", "embeddings"],
    ),
    (
        lambda: soft_decode(_M, torch.tensor([[0, 99]]), end_think_id=END, eos_id=EOS),
        ValueError,
        ["prompt", "ids"],
    ),
    (lambda: soft_weights(torch.zeros(1, 5), top_p=0.0), ValueError, ["top_p"]),
    (lambda: gumbel_weights(torch.ones(1, 2) / 2, tau=-0.5), ValueError, ["tau"]),
    (lambda: dirichlet_weights(torch.ones(1, 2) / 2, beta=0.0), ValueError, ["beta"]),
    (lambda: js_divergence(torch.ones(3) / 3, torch.ones(2) / 2), ValueError, ["same shape"]),
    (
        lambda: top1_dominance(_M, _X, torch.tensor([[1, 2]]), torch.tensor([[0.7, 0.7]])),
        ValueError,
        ["weights", "sum to 1"],
    ),
    (lambda: layer_overlap(_M, _X, torch.tensor([1]), torch.tensor([2]), 1.5), ValueError, ["weight"]),
    (lambda: make_problems(3, "tree", 0), ValueError, ["kind"]),
    (
        lambda: soft_weights(torch.zeros(1, 5), temperature=float("inf")),
        ValueError,
        ["temperature", "finite"],
    ),
    (lambda: soft_weights(torch.zeros(1, 5), top_p=float("nan")), ValueError, ["top_p"]),
    (lambda: soft_weights(torch.zeros(1, 5).long()), TypeError, ["logits", "floating"]),
    (lambda: soft_weights(torch.full((1, 5), float("nan"))), ValueError, ["logits", "NaN"]),
    (lambda: dirichlet_weights(torch.full((1, 3), 1 / 3), beta=float("inf")), ValueError, ["beta", "finite"]),
    (lambda: dirichlet_weights(torch.tensor([[-1.0, 2.0]])), ValueError, ["p", "non-negative"]),
    (lambda: gumbel_weights(torch.full((1, 3), 1 / 3), generator=5), TypeError, ["generator", "Generator"]),
    (
        lambda: mix_embeddings(torch.randn(5, 4), torch.tensor([[9]]), torch.ones(1, 1)),
        ValueError,
        ["ids", "[0, 5)"],
    ),
    (
        lambda: mix_embeddings(torch.randn(5, 4), torch.tensor([[1, 2]]), torch.ones(1, 3)),
        ValueError,
        ["weights", "shape"],
    ),
    (
        lambda: js_divergence(torch.tensor([-1.0, 2.0]), torch.tensor([0.5, 0.5])),
        ValueError,
        ["p", "non-negative"],
    ),
    (_dec(end_think_id=99), ValueError, ["end_think_id", "<= 19"]),
    (lambda: check_answer(None, [1]), TypeError, ["problem", "Problem"]),
    (lambda: dag_problem(None), TypeError, ["rng", "Generator"]),
    (lambda: training_batch(None, 2), TypeError, ["rng", "Generator"]),
    (lambda: make_problems(2, "dag", -1), ValueError, ["seed", ">= 0"]),
    (lambda: TrainConfig(lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: TrainConfig(dag_frac=1.5), ValueError, ["dag_frac", "[0, 1]"]),
    (lambda: trained_model(TrainConfig(), -1), ValueError, ["seed", ">= 0"]),
]
