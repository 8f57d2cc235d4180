"""Pre-LN transformer block with a pluggable sequence mixer and an optional, pluggable FFN.

    resid_mid  = resid_pre + mixer(LN_1(resid_pre))
    resid_post = resid_mid + ffn(LN_2(resid_mid))         (resid_post = resid_mid when there is no FFN)

A mixer or FFN is built by a factory ``factory(spec: BlockSpec) -> nn.Module``. A mixer maps
(batch, seq, d_model) to (batch, seq, d_model) and takes the position scheme's score bias as a second
argument (``None`` when the scheme has none); an FFN maps (batch, seq, d_model) to the same shape.

Example
-------
>>> import torch
>>> spec = BlockSpec(layer=0, d_model=8, n_heads=2, d_head=4, d_mlp=32, causal=True)
>>> block = Block(spec, mixer=softmax_attention, ffn=gelu_mlp)
>>> block(torch.randn(2, 5, 8)).shape
torch.Size([2, 5, 8])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_int
from iclr26.lab.transformer.attention import MultiHeadAttention
from iclr26.lab.transformer.checks import check_features, check_sequence_input
from iclr26.lab.transformer.hooks import HookPoint

__all__ = [
    "MLP",
    "Block",
    "SwiGLU",
    "BlockSpec",
    "ModuleFactory",
    "check_sequence_input",
    "gelu_mlp",
    "softmax_attention",
    "swiglu_mlp",
]


@dataclass(frozen=True)
class BlockSpec:
    """What a mixer or FFN factory is told about the block it is built for."""

    layer: int
    d_model: int
    n_heads: int
    d_head: int
    d_mlp: int
    causal: bool
    bias: bool = True


ModuleFactory = Callable[[BlockSpec], nn.Module]


def softmax_attention(spec: BlockSpec) -> MultiHeadAttention:
    """The default mixer: multi-head softmax attention."""
    return MultiHeadAttention(spec.d_model, spec.n_heads, spec.d_head, causal=spec.causal, bias=spec.bias)


class MLP(nn.Module):
    """Two-layer GELU MLP: ``W_out gelu(W_in x + b_in) + b_out``."""

    def __init__(self, d_model: int, d_mlp: int, bias: bool = True) -> None:
        super().__init__()
        check_int("d_mlp", d_mlp, low=1)
        self.d_model = d_model  # the input width forward checks (W_in may be wrapped, e.g. by LoRA)
        self.W_in = nn.Linear(d_model, d_mlp, bias=bias)
        self.W_out = nn.Linear(d_mlp, d_model, bias=bias)
        self.hook_post = HookPoint()
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Weights ~ N(0, 1/fan_in), biases zero."""
        with torch.no_grad():
            for lin in (self.W_in, self.W_out):
                lin.weight.normal_(0.0, lin.in_features**-0.5, generator=generator)
                if lin.bias is not None:
                    lin.bias.zero_()

    def forward(self, x: Tensor) -> Tensor:
        check_features(x, self.d_model)
        return self.W_out(self.hook_post(nn.functional.gelu(self.W_in(x))))


def gelu_mlp(spec: BlockSpec) -> MLP:
    """The default FFN: a GELU MLP of width ``d_mlp``."""
    return MLP(spec.d_model, spec.d_mlp, bias=spec.bias)


class SwiGLU(nn.Module):
    """Gated FFN of Llama-style blocks: ``W_down (silu(W_gate x) * W_up x)`` (Shazeer, 2020)."""

    def __init__(self, d_model: int, d_mlp: int, bias: bool = False) -> None:
        super().__init__()
        check_int("d_mlp", d_mlp, low=1)
        self.d_model = (
            d_model  # the input width forward checks (the projections may be wrapped, e.g. by LoRA)
        )
        self.W_gate = nn.Linear(d_model, d_mlp, bias=bias)
        self.W_up = nn.Linear(d_model, d_mlp, bias=bias)
        self.W_down = nn.Linear(d_mlp, d_model, bias=bias)
        self.hook_post = HookPoint()
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Weights ~ N(0, 1/fan_in), biases zero."""
        with torch.no_grad():
            for lin in (self.W_gate, self.W_up, self.W_down):
                lin.weight.normal_(0.0, lin.in_features**-0.5, generator=generator)
                if lin.bias is not None:
                    lin.bias.zero_()

    def forward(self, x: Tensor) -> Tensor:
        check_features(x, self.d_model)
        return self.W_down(self.hook_post(nn.functional.silu(self.W_gate(x)) * self.W_up(x)))


def swiglu_mlp(spec: BlockSpec) -> SwiGLU:
    """A SwiGLU FFN with hidden width ``d_mlp`` (use ~8/3 d_model to match a 4x GELU MLP's parameters)."""
    return SwiGLU(spec.d_model, spec.d_mlp, bias=spec.bias)


class Block(nn.Module):
    """One pre-LN block; ``ffn=None`` gives an attention-only block (no second norm, no FFN)."""

    def __init__(
        self, spec: BlockSpec, mixer: ModuleFactory = softmax_attention, ffn: ModuleFactory | None = gelu_mlp
    ) -> None:
        super().__init__()
        self.d_model = spec.d_model
        self.ln1 = nn.LayerNorm(spec.d_model, bias=spec.bias)
        # the mixer is stored as `attn` whatever it is, so hook names stay uniform across mixers
        self.attn = mixer(spec)
        self.ln2 = nn.LayerNorm(spec.d_model, bias=spec.bias) if ffn is not None else None
        self.mlp = ffn(spec) if ffn is not None else None
        for name in ("resid_pre", "attn_in", "attn_out", "resid_mid", "resid_post"):
            setattr(self, f"hook_{name}", HookPoint())
        if self.mlp is not None:
            self.hook_mlp_in, self.hook_mlp_out = HookPoint(), HookPoint()

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        check_features(x, self.d_model)
        x = self.hook_resid_pre(x)
        # resid_mid = resid_pre + mixer(LN_1(resid_pre))
        attn_out = self.hook_attn_out(self.attn(self.hook_attn_in(self.ln1(x)), score_bias))
        x = self.hook_resid_mid(x + attn_out)
        if self.mlp is not None:
            # resid_post = resid_mid + ffn(LN_2(resid_mid))
            x = x + self.hook_mlp_out(self.mlp(self.hook_mlp_in(self.ln2(x))))
        return self.hook_resid_post(x)
