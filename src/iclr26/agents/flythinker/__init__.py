"""FlyThinker: "Think-While-Generating: On-the-Fly Reasoning for Personalized Long-Form Generation" (Wang et al.,
ICLR 2026, arXiv 2512.06690).

A Reasoner reads the response so far in one parallel pass; its last-layer state at t, norm-matched to the
Generator's embedding scale, is added (times lambda) to the Generator's input embedding at t+1. Both models are
trained end to end with response-only cross-entropy; at decoding time the Reasoner's step runs concurrently with
the Generator's. Here: the fused model, two-cache decoding (sequential reference and threaded), a tiny GPT with a
KV cache, the baselines (SFT, think-then-generate, latent chain) and a synthetic personalised writing world.

Example
-------
>>> import torch
>>> from iclr26.agents.flythinker import GPT, FlyThinker, generate
>>> g, r = GPT(30, 16, 1, 2, 24, seed=0), GPT(30, 8, 1, 2, 24, seed=1)
>>> model = FlyThinker(g, r, lam=0.5)
>>> ids = torch.randint(0, 30, (2, 6))
>>> model(ids, labels=ids).loss.shape
torch.Size([])
>>> out = generate(model, ids, max_new_tokens=4, parallel=True)
>>> out.sequences.shape
torch.Size([2, 10])
"""

from iclr26.agents.flythinker.baselines import SFT, LatentChain, ThinkThenGenerate, decode
from iclr26.agents.flythinker.core import (
    FlyThinker,
    FlyThinkerOutput,
    GenerationOutput,
    TopP,
    fuse,
    generate,
    greedy,
    norm_match,
    response_labels,
    shifted_loss,
)
from iclr26.agents.flythinker.tinygpt import GPT
from iclr26.agents.flythinker.world import World

__all__ = [
    "GPT",
    "SFT",
    "FlyThinker",
    "FlyThinkerOutput",
    "GenerationOutput",
    "LatentChain",
    "ThinkThenGenerate",
    "TopP",
    "World",
    "decode",
    "fuse",
    "generate",
    "greedy",
    "norm_match",
    "response_labels",
    "shifted_loss",
]
