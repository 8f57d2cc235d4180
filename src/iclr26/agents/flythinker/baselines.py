"""The brief's baselines: SFT of one causal LM, think-then-generate (static prefix) and the latent chain.

* :class:`SFT` -- the Generator alone (same size) or a parameter-matched one, next-token CE on the response.
* :class:`ThinkThenGenerate` -- R reads the prompt once; its last hidden state is projected to ``n_prefix``
  embeddings prepended to G's input (one static reasoning pass before writing).
* :class:`LatentChain` -- R's input at t+1 is E_R[z_{t+1}] + lam * h^_t of *its own* previous latent, so R must
  run one position at a time (sequential over T); G is fused as in FlyThinker. Used only to time training steps.

All three share FlyThinker's call form ``forward(input_ids, attention_mask=None, labels=None) -> output`` with
``loss`` and ``logits`` aligned with ``input_ids``; :func:`decode` greedily decodes an SFT or think-then-generate
model with a KV cache.
"""

from __future__ import annotations

import torch
from torch import nn

from iclr26.agents.flythinker.core import (
    FlyThinkerOutput,
    check_ids,
    check_pair,
    fuse,
    greedy,
    hidden_of,
    max_len_of,
    norm_match,
    shifted_loss,
    vocab_of,
)
from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["SFT", "LatentChain", "ThinkThenGenerate", "decode"]


class SFT(nn.Module):
    """A causal LM trained alone (labels -100 outside the response)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        if not isinstance(model, nn.Module) or not hasattr(model, "get_input_embeddings"):
            raise TypeError(
                f"model must be an nn.Module with get_input_embeddings(), got {type(model).__name__}"
            )
        self.model = model
        self.vocab_size = vocab_of(model)
        self.max_len = max_len_of(model)

    def forward(self, input_ids, attention_mask=None, labels=None) -> FlyThinkerOutput:
        check_ids(input_ids, attention_mask, self.vocab_size, self.max_len)
        logits = self.model(input_ids=input_ids).logits
        loss = shifted_loss(logits, labels) if labels is not None else None
        return FlyThinkerOutput(loss, logits, logits.new_zeros(0))


class ThinkThenGenerate(nn.Module):
    """R reads ``input_ids[:, :prompt_len]`` once; ``Linear(h_last) -> n_prefix`` embeddings prefixed to G's input."""

    def __init__(self, generator: nn.Module, reasoner: nn.Module, prompt_len: int, n_prefix: int = 4) -> None:
        super().__init__()
        check_pair(generator, reasoner)
        self.generator, self.reasoner = generator, reasoner
        self.prompt_len = check_int("prompt_len", prompt_len, low=1)
        self.n_prefix = check_int("n_prefix", n_prefix, low=1)
        self.proj = nn.Linear(hidden_of(reasoner), self.n_prefix * hidden_of(generator))
        nn.init.normal_(self.proj.weight, std=0.02)
        nn.init.zeros_(self.proj.bias)
        self.vocab_size = vocab_of(generator)
        lens = [x for x in (max_len_of(generator), max_len_of(reasoner)) if x is not None]
        self.max_len = min(lens) if lens else None

    def prefix(self, input_ids: torch.Tensor) -> torch.Tensor:
        h = self.reasoner(input_ids=input_ids[:, : self.prompt_len], output_hidden_states=True).hidden_states[
            -1
        ]
        return self.proj(h[:, -1]).view(input_ids.shape[0], self.n_prefix, -1)

    def forward(self, input_ids, attention_mask=None, labels=None) -> FlyThinkerOutput:
        check_ids(input_ids, attention_mask, self.vocab_size, self.max_len, extra=self.n_prefix)
        if input_ids.shape[1] < self.prompt_len:
            raise ValueError(
                f"input_ids has {input_ids.shape[1]} positions, fewer than prompt_len = {self.prompt_len}"
            )
        pre = self.prefix(input_ids)
        e = self.generator.get_input_embeddings()(input_ids)
        logits = self.generator(inputs_embeds=torch.cat([pre.to(e.dtype), e], dim=1)).logits[
            :, self.n_prefix :
        ]
        loss = shifted_loss(logits, labels) if labels is not None else None
        return FlyThinkerOutput(loss, logits, pre)


class LatentChain(nn.Module):
    """R conditions on its own previous latent (a sequential thought chain), G fused as in FlyThinker."""

    def __init__(self, generator: nn.Module, reasoner: nn.Module, lam: float = 0.5) -> None:
        super().__init__()
        check_pair(generator, reasoner)
        self.generator, self.reasoner = generator, reasoner
        self.lam = check_float("lam", lam, low=0.0)
        self.vocab_size = vocab_of(generator)
        lens = [x for x in (max_len_of(generator), max_len_of(reasoner)) if x is not None]
        self.max_len = min(lens) if lens else None

    def forward(self, input_ids, attention_mask=None, labels=None) -> FlyThinkerOutput:
        check_ids(input_ids, attention_mask, self.vocab_size, self.max_len)
        er = self.reasoner.get_input_embeddings()
        past, lats = None, []
        prev = None
        for t in range(input_ids.shape[1]):  # one position at a time: the chain is sequential
            x = er(input_ids[:, t : t + 1])
            if prev is not None:
                x = x + self.lam * norm_match(prev, er.weight)
            out = self.reasoner(
                inputs_embeds=x, past_key_values=past, use_cache=True, output_hidden_states=True
            )
            past, prev = out.past_key_values, out.hidden_states[-1]
            lats.append(prev)
        lat = norm_match(torch.cat(lats, dim=1), self.generator.get_input_embeddings().weight)
        emb = self.generator.get_input_embeddings()(input_ids)
        logits = self.generator(inputs_embeds=fuse(emb, lat, self.lam)).logits
        loss = shifted_loss(logits, labels) if labels is not None else None
        return FlyThinkerOutput(loss, logits, lat)


@torch.no_grad()
def decode(model: nn.Module, input_ids: torch.Tensor, max_new_tokens: int, sampler=None) -> torch.Tensor:
    """Greedy (or `sampler`) decoding of an :class:`SFT` or :class:`ThinkThenGenerate` model with G's KV cache."""
    if not isinstance(model, (SFT, ThinkThenGenerate)):
        raise TypeError(f"model must be an SFT or ThinkThenGenerate, got {type(model).__name__}")
    check_tensor("input_ids", input_ids, ndim=2, floating=False)
    n = check_int("max_new_tokens", max_new_tokens, low=1)
    sampler = greedy if sampler is None else sampler
    extra = model.n_prefix if isinstance(model, ThinkThenGenerate) else 0
    check_ids(input_ids, None, model.vocab_size, model.max_len, extra=extra + n - 1)
    g = model.model if isinstance(model, SFT) else model.generator
    emb = g.get_input_embeddings()
    x = emb(input_ids)
    if isinstance(model, ThinkThenGenerate):
        x = torch.cat([model.prefix(input_ids).to(x.dtype), x], dim=1)
    out = g(inputs_embeds=x, use_cache=True)
    seq = [input_ids]
    for i in range(n):
        tok = sampler(out.logits[:, -1]).view(-1, 1).to(input_ids.dtype)
        seq.append(tok)
        if i < n - 1:
            out = g(inputs_embeds=emb(tok), past_key_values=out.past_key_values, use_cache=True)
    return torch.cat(seq, dim=1)
