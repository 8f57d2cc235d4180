"""Measurements of a (compressed) causal LM: arithmetic exact match, KV-cache bytes per token, and the
teacher-forced loss of token-by-token decoding with the model's own KV cache."""

from __future__ import annotations

import re
from collections import defaultdict

import torch
import torch.nn.functional as F
from transformers import DynamicCache, PreTrainedModel, PreTrainedTokenizerBase

from iclr26.checks import check_int
from iclr26.inference.equilibrium_lm.fixed_point import check_model_ids

__all__ = ["arithmetic_items", "cached_decode_loss", "exact_match", "kv_bytes_per_token"]

_ITEM = re.compile(r"^(.*(?:=|A:|Answer:|is))\s+(-?\d+)\.?$")
_LEADING_INT = re.compile(r"^\s*(-?\d+)")


def arithmetic_items(text: str, n: int) -> list[tuple[str, int]]:
    """The first ``n`` ``(prompt, answer)`` pairs of an arithmetic corpus text (one problem per line).

    Example
    -------
    >>> arithmetic_items("Q: 1+2= A: 3\\nWhat is 5 minus 7? Answer: -2", 5)
    [('Q: 1+2= A:', 3), ('What is 5 minus 7? Answer:', -2)]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (one problem per line), got {type(text).__name__}")
    check_int("n", n, low=1)
    items = []
    for line in text.splitlines():
        match = _ITEM.match(line.strip())
        if match:
            items.append((match.group(1), int(match.group(2))))
        if len(items) == n:
            break
    return items


@torch.no_grad()
def exact_match(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    items: list[tuple[str, int]],
    max_new_tokens: int = 4,
    batch_size: int = 32,
) -> float:
    """Fraction of items whose greedy continuation starts with the right integer (``generate()``, KV cache).

    Prompts are batched by token length, so no padding is involved.
    """
    if not items:
        raise ValueError("items must be non-empty")
    if not callable(tokenizer):
        raise TypeError(f"tokenizer must be a Hugging Face tokenizer, got {type(tokenizer).__name__}")
    check_int("max_new_tokens", max_new_tokens, low=1)
    check_int("batch_size", batch_size, low=1)
    for i, item in enumerate(items):
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)):
            raise ValueError(f"items[{i}] must be a (prompt str, answer int) pair, got {item!r}")
        check_int(f"items[{i}][1] (the answer)", item[1])
    by_len: dict[int, list[tuple[list[int], int]]] = defaultdict(list)
    for prompt, answer in items:
        ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        by_len[len(ids)].append((ids, answer))
    correct = 0
    for length in sorted(by_len):
        group = by_len[length]
        for i in range(0, len(group), batch_size):
            chunk = group[i : i + batch_size]
            ids = torch.tensor([c[0] for c in chunk], device=model.device)
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                eos_token_id=None,
                pad_token_id=tokenizer.pad_token_id,
            )
            for row, (_, answer) in zip(out[:, length:], chunk):
                match = _LEADING_INT.match(tokenizer.decode(row.tolist()))
                correct += int(match is not None and int(match.group(1)) == answer)
    return correct / len(items)


@torch.no_grad()
def kv_bytes_per_token(model: PreTrainedModel, seq_len: int = 16, vocab_hi: int = 10) -> float:
    """Bytes of the model's KV cache per token, measured after a forward pass over ``seq_len`` tokens."""
    check_int("seq_len", seq_len, low=1)
    emb = model.get_input_embeddings()
    check_int("vocab_hi", vocab_hi, 4, emb.num_embeddings if isinstance(emb, torch.nn.Embedding) else None)
    cache = DynamicCache(config=model.config)
    ids = torch.randint(3, vocab_hi, (1, seq_len)).to(model.device)
    model(input_ids=ids, cache=cache, use_cache=True)
    total = 0
    for layer in cache.layers:
        for name in ("keys", "values"):
            t = getattr(layer, name, None)
            if isinstance(t, torch.Tensor):
                total += t.numel() * t.element_size()
    return total / seq_len


@torch.no_grad()
def cached_decode_loss(model: PreTrainedModel, windows: torch.Tensor) -> float:
    """Mean next-token cross-entropy when ``windows`` (``(batch, seq)``) are fed one token at a time with a
    ``DynamicCache`` (what decoding sees), instead of in one parallel pass."""
    if not isinstance(windows, torch.Tensor) or windows.dim() != 2 or windows.shape[1] < 2:
        raise ValueError("windows must be a (batch, seq >= 2) tensor of token ids")
    check_model_ids(model, windows, "windows")
    windows = windows.to(model.device)
    cache = DynamicCache(config=model.config)
    losses = []
    for t in range(windows.shape[1] - 1):
        logits = model(input_ids=windows[:, t : t + 1], cache=cache, use_cache=True).logits[:, -1]
        losses.append(F.cross_entropy(logits, windows[:, t + 1]))
    return float(torch.stack(losses).mean())
