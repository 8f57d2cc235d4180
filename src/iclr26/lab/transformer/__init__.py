"""A small, hookable transformer shared by the papers that train or dissect tiny models.

* :class:`Transformer`: decoder (causal) or bidirectional, pre-LN blocks, pluggable sequence mixer and FFN,
  learned absolute / no / relative positions, tied or untied unembedding.
* :class:`AttnOnlyTransformer`: the attention-only configuration (no FFN, bias-free final LayerNorm) used by
  the ESP paper ("Two (narrow) heads are better than (an arbitrarily wide) one", OpenReview RRmPbbZsvl).
* Hook points (:mod:`iclr26.lab.transformer.hooks`): read q/k/v, scores, patterns, per-head outputs and the
  residual stream with ``run_with_cache``; patch any of them at a layer, position and head with
  ``run_with_hooks(replace={Site(kind, layer, pos, head): value})``.

Example
-------
>>> import torch
>>> from iclr26.lab.transformer import AttnOnlyTransformer, Site
>>> model = AttnOnlyTransformer(n_layers=1, n_heads=2, d_model=8, vocab_size=5, seq_len=4, init_seed=0)
>>> _, cache = model.run_with_cache(torch.tensor([[0, 1, 2, 3]]), names=[Site("result", 0)])
>>> cache["blocks.0.attn.hook_result"].shape
torch.Size([1, 4, 2, 8])
"""

from iclr26.lab.transformer.attention import MultiHeadAttention
from iclr26.lab.transformer.blocks import (
    MLP,
    Block,
    BlockSpec,
    ModuleFactory,
    SwiGLU,
    gelu_mlp,
    softmax_attention,
    swiglu_mlp,
)
from iclr26.lab.transformer.checks import check_sequence_input
from iclr26.lab.transformer.hooks import HookedModule, HookPoint, Site, SiteLike
from iclr26.lab.transformer.model import AttnOnlyTransformer, Transformer
from iclr26.lab.transformer.positions import (
    LearnedAbsolutePositions,
    NoPositions,
    PositionScheme,
    RelativePositionBias,
)

__all__ = [
    "MLP",
    "AttnOnlyTransformer",
    "Block",
    "BlockSpec",
    "HookPoint",
    "HookedModule",
    "LearnedAbsolutePositions",
    "ModuleFactory",
    "MultiHeadAttention",
    "NoPositions",
    "PositionScheme",
    "RelativePositionBias",
    "Site",
    "SiteLike",
    "SwiGLU",
    "Transformer",
    "check_sequence_input",
    "gelu_mlp",
    "softmax_attention",
    "swiglu_mlp",
]
