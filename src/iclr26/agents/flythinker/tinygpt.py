"""A tiny pre-LN decoder-only GPT with a KV cache and ``inputs_embeds``, shaped like a Hugging Face causal LM.

The shared :class:`iclr26.lab.tinygpt.TinyGPT` has neither a KV cache nor an ``inputs_embeds`` entry, both of
which FlyThinker needs (the Generator reads fused embeddings; decoding steps both models incrementally). This
module is the thin private stand-in: the same block layout (pre-LN, separate q/k/v/o, GELU MLP, learned
positions, untied head), but ``forward`` takes ``input_ids`` *or* ``inputs_embeds``, optional
``past_key_values`` (a list of per-layer ``(k, v)``) and returns an object with ``logits``, ``hidden_states``
(a 1-tuple holding the last layer's state after the final LayerNorm, like Hugging Face's last entry) and
``past_key_values``. ``config`` carries ``vocab_size``, ``hidden_size`` and ``max_position_embeddings``.

Example
-------
>>> import torch
>>> m = GPT(20, 16, 1, 2, 12)
>>> out = m(input_ids=torch.tensor([[1, 2, 3]]), use_cache=True)
>>> out.logits.shape, len(out.past_key_values)
(torch.Size([1, 3, 20]), 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_int

__all__ = ["GPT", "GPTConfig", "GPTOutput"]


@dataclass(frozen=True)
class GPTConfig:
    """The attribute names Hugging Face configs use, so FlyThinker reads both the same way."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    max_position_embeddings: int


@dataclass
class GPTOutput:
    logits: torch.Tensor
    hidden_states: tuple[torch.Tensor, ...] | None
    past_key_values: list[tuple[torch.Tensor, torch.Tensor]] | None


class _Block(nn.Module):
    def __init__(self, d: int, n_head: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.ln1 = nn.LayerNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d, bias=False)
        self.proj = nn.Linear(4 * d, d, bias=False)

    def forward(self, x, past):
        b, t, d = x.shape
        h = self.ln1(x)

        def heads(z):
            return z.view(b, t, self.n_head, d // self.n_head).transpose(1, 2)

        q, k, v = heads(self.q(h)), heads(self.k(h)), heads(self.v(h))
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        s = k.shape[2]
        if t == 1 or s == t and past is None:
            att = F.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
        else:  # a block of t new queries after s - t cached keys: causal with an offset
            mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(s - t)
            att = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.o(att.transpose(1, 2).reshape(b, t, d))
        return x + self.proj(F.gelu(self.fc(self.ln2(x)))), (k, v)


class GPT(nn.Module):
    """``GPT(vocab, d, n_layer, n_head, max_len)``: pre-LN causal transformer, learned positions, untied head."""

    def __init__(self, vocab: int, d: int, n_layer: int, n_head: int, max_len: int, seed: int = 0) -> None:
        super().__init__()
        check_int("vocab", vocab, low=2)
        check_int("d", d, low=1)
        check_int("n_layer", n_layer, low=1)
        check_int("n_head", n_head, low=1)
        check_int("max_len", max_len, low=1)
        seed = check_int("seed", seed, low=0)
        if d % n_head:
            raise ValueError(f"d ({d}) must be divisible by n_head ({n_head})")
        self.config = GPTConfig(vocab, d, n_layer, n_head, max_len)
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(_Block(d, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        gen = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if p.ndim == 2:
                    std = (
                        0.02 / math.sqrt(2 * n_layer) if name.endswith(("o.weight", "proj.weight")) else 0.02
                    )
                    p.copy_(torch.randn(p.shape, generator=gen) * std)

    def get_input_embeddings(self) -> nn.Embedding:
        return self.tok

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        past_key_values=None,
        use_cache: bool = False,
        output_hidden_states: bool = False,
        **_ignored,
    ) -> GPTOutput:
        """Logits (B, T, V) for ids or embeddings of T new positions after the cached ones."""
        if (input_ids is None) == (inputs_embeds is None):
            raise ValueError("give exactly one of input_ids and inputs_embeds")
        x = self.tok(input_ids) if inputs_embeds is None else inputs_embeds
        start = 0 if not past_key_values else past_key_values[0][0].shape[2]
        t = x.shape[1]
        if start + t > self.config.max_position_embeddings:
            raise ValueError(
                f"sequence length {start + t} exceeds max_len = {self.config.max_position_embeddings}"
            )
        x = x + self.pos(torch.arange(start, start + t, device=x.device)).to(x.dtype)
        cache = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, past_key_values[i] if past_key_values else None)
            cache.append(kv)
        h = self.ln_f(x)
        return GPTOutput(
            logits=self.lm_head(h),
            hidden_states=(h,) if output_hidden_states else None,
            past_key_values=cache if use_cache else None,
        )
