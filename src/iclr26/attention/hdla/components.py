"""HDLA's mixers in the component registry: the experiment's roster and the mixer battery's cases."""

from __future__ import annotations

from functools import partial

from torch import nn

from iclr26.attention.hdla.mixers import (
    DeltaNetMixer,
    DeltaProductMixer,
    GatedDeltaNetMixer,
    GLAMixer,
    HDLAAttention,
)
from iclr26.lab.registry import register

__all__ = ["MIXERS"]

MIXERS: dict[str, type[nn.Module]] = {
    "hdla": HDLAAttention,
    "gated_deltanet": GatedDeltaNetMixer,
    "gla": GLAMixer,
    "deltanet": DeltaNetMixer,
    "deltaproduct2": DeltaProductMixer,
}
"""The reproduction's mixers (name -> class), each built as ``cls(d_model, n_heads, d_head, chunk_size=...)``."""

_SEQ_LENS = (15, 17, 33)
_KWARGS = {"deltanet": {"allow_neg_eigval": True}}
for _name, _cls in MIXERS.items():
    register(
        "mixer",
        _name.replace("_", "-"),
        _cls,
        partial(_cls, n_heads=2, **_KWARGS.get(_name, {})),
        paper="hdla",
        seq_lens=_SEQ_LENS,
    )
register(
    "mixer",
    "hdla-chunk4-bounded",
    HDLAAttention,
    lambda d_model: HDLAAttention(d_model, 2, chunk_size=4, lower_bound=0.3, use_offset=True),
    paper="hdla",
    seq_lens=_SEQ_LENS,
)
for _name in ("hdla", "gated_deltanet"):  # the experiment's setting: a width-4 short convolution on q, k, v
    register(
        "mixer",
        f"{_name.replace('_', '-')}-conv4",
        MIXERS[_name],
        partial(
            MIXERS[_name],
            n_heads=2,
            chunk_size=4,
            conv_size=4,
            **({"use_offset": True} if _name == "hdla" else {}),
        ),
        paper="hdla",
        seq_lens=_SEQ_LENS,
    )
