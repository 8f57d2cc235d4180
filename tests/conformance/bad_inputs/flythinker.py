"""Bad input to FlyThinker's fusion model, decoding, baselines and world."""

import torch

from iclr26.agents.flythinker import (
    GPT,
    SFT,
    FlyThinker,
    ThinkThenGenerate,
    TopP,
    World,
    decode,
    fuse,
    generate,
)
from iclr26.agents.flythinker.experiment import FlyConfig

_G = GPT(30, 16, 1, 2, 20, seed=0)
_R = GPT(30, 8, 1, 2, 20, seed=1)
_R_VOCAB = GPT(31, 8, 1, 2, 20, seed=1)
_R_WIDE = GPT(30, 32, 1, 2, 20, seed=1)
_M = FlyThinker(_G, _R)
_X = torch.randint(0, 30, (2, 6))

CASES = [
    (lambda: FlyThinker(_G, _R_VOCAB), ValueError, ["share one tokenizer", "generator 30", "reasoner 31"]),
    (lambda: FlyThinker(_G, _R_WIDE), ValueError, ["d_R = 32", "d_G = 16"]),
    (lambda: FlyThinker(_G, _R, lam=-0.1), ValueError, ["lam", ">= 0", "-0.1"]),
    (lambda: FlyThinker(_G, _R, lam=float("nan")), ValueError, ["lam"]),
    (lambda: FlyThinker(_G, _R, norm_match=1), TypeError, ["norm_match", "bool"]),
    (lambda: FlyThinker(_G, object()), TypeError, ["reasoner", "get_input_embeddings"]),
    (lambda: _M(torch.randint(0, 30, (1, 21))), ValueError, ["T = 21", "max_len = 20"]),
    (lambda: _M(torch.tensor([[1, 2, 30]])), ValueError, ["input_ids", "[0, 30)"]),
    (lambda: _M(torch.zeros(2, 3)), TypeError, ["input_ids", "integer"]),
    (lambda: _M(torch.zeros(6, dtype=torch.long)), ValueError, ["input_ids", "2-D"]),
    (lambda: _M(_X, labels=_X[:, :3]), ValueError, ["labels", "shape"]),
    (lambda: _M(_X, attention_mask=torch.tensor([[0, 1, 1, 1, 1, 1]] * 2)), ValueError, ["right-padded"]),
    (lambda: generate(_M, _X, 0), ValueError, ["max_new_tokens", ">= 1"]),
    (lambda: generate(_M, _X, 16), ValueError, ["exceeds", "max_len = 20"]),
    (lambda: generate(_M, _X, 2, parallel="yes"), TypeError, ["parallel", "bool"]),
    (lambda: generate(SFT(_G), _X, 2), TypeError, ["FlyThinker"]),
    (lambda: generate(_M, _X, 2, sampler=3), TypeError, ["sampler", "callable"]),
    (lambda: TopP(0.0), ValueError, ["temperature", "> 0"]),
    (lambda: TopP(1.0, 1.5), ValueError, ["top_p", "(0, 1]"]),
    (lambda: fuse(torch.zeros(1, 3, 4), torch.zeros(1, 3, 5), 0.5), ValueError, ["d_R = 5", "d_G = 4"]),
    (lambda: fuse(torch.zeros(1, 3, 4), torch.zeros(1, 1, 4), 0.5), ValueError, ["latents", "shape"]),
    (lambda: ThinkThenGenerate(_G, _R, prompt_len=0), ValueError, ["prompt_len", ">= 1"]),
    (
        lambda: ThinkThenGenerate(_G, _R, 4)(torch.randint(0, 30, (1, 18))),
        ValueError,
        ["+ 4", "max_len = 20"],
    ),
    (lambda: decode(_M, _X, 2), TypeError, ["SFT or ThinkThenGenerate"]),
    (lambda: GPT(30, 15, 1, 2, 20), ValueError, ["d (15)", "n_head (2)"]),
    (lambda: World(deviate=1.5), ValueError, ["deviate", "[0, 1]"]),
    (lambda: FlyConfig(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: FlyConfig(test_frac=1.0), ValueError, ["test_frac"]),
]
