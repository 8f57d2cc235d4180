"""Scoring a causal LM on a text: mean token cross-entropy, perplexity, and the unigram baseline."""

from __future__ import annotations

import math

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from iclr26.checks import check_int
from iclr26.lab.corpora import chunk_text

__all__ = ["encode_text", "evaluate_loss", "perplexity", "unigram_loss"]


def encode_text(tokenizer: PreTrainedTokenizerBase, text: str) -> torch.Tensor:
    """Token ids of ``text`` as one long 1-D tensor (encoded in line-aligned chunks, no special tokens)."""
    chunks = chunk_text(text, 20_000)
    if not chunks:
        return torch.zeros(0, dtype=torch.long)
    encoded = tokenizer(chunks, add_special_tokens=False)["input_ids"]
    return torch.tensor([i for ids in encoded for i in ids], dtype=torch.long)


@torch.no_grad()
def evaluate_loss(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    text: str,
    seq_len: int = 128,
    max_windows: int | None = None,
    batch_size: int = 16,
) -> float:
    """Mean next-token cross-entropy (nats) of ``model`` on ``text``.

    The text is encoded without special tokens and cut into consecutive, non-overlapping windows of
    ``seq_len`` tokens (a text shorter than one window is scored as one window); each window scores its
    last ``seq_len - 1`` tokens. If there are more than ``max_windows`` windows, evenly spaced ones are used.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        Any causal LM returning ``.logits``; scored on its own device, restored to its train/eval mode.
    tokenizer : transformers.PreTrainedTokenizerBase
    text : str
    seq_len : int
        Window length in tokens (>= 2).
    max_windows : int or None
        Cap on the number of windows; None scores them all.
    batch_size : int
        Windows per forward pass.

    Returns
    -------
    float

    Example
    -------
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG, train_tiny_lm
    >>> lm = train_tiny_lm(SMOKE_CONFIG)
    >>> 0 < evaluate_loss(lm.model, lm.tokenizer, "Return the value.", seq_len=16) < 20
    True
    """
    check_int("seq_len", seq_len, low=2)
    check_int("batch_size", batch_size, low=1)
    if max_windows is not None:
        check_int("max_windows (or None)", max_windows, low=1)
    ids = encode_text(tokenizer, text)
    if len(ids) < 2:
        raise ValueError(f"text must encode to at least 2 tokens, got {len(ids)}")
    n_windows = len(ids) // seq_len
    if n_windows == 0:
        windows = ids[None, :]
    else:
        windows = ids[: n_windows * seq_len].view(n_windows, seq_len)
        if max_windows is not None and n_windows > max_windows:
            windows = windows[torch.linspace(0, n_windows - 1, max_windows).round().long()]
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for batch in windows.split(batch_size):
        batch = batch.to(device)
        logits = model(input_ids=batch, use_cache=False).logits[:, :-1].float()
        losses = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1), reduction="sum"
        )
        total += losses.item()
        count += batch[:, 1:].numel()
    model.train(was_training)
    return total / count


def perplexity(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    text: str,
    seq_len: int = 128,
    max_windows: int | None = None,
    batch_size: int = 16,
) -> float:
    """``exp`` of :func:`evaluate_loss` (same arguments).

    Example
    -------
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG, train_tiny_lm
    >>> lm = train_tiny_lm(SMOKE_CONFIG)
    >>> perplexity(lm.model, lm.tokenizer, "Return the value.", seq_len=16) > 1
    True
    """
    return math.exp(evaluate_loss(model, tokenizer, text, seq_len, max_windows, batch_size))


def unigram_loss(tokenizer: PreTrainedTokenizerBase, text: str) -> float:
    """Entropy (nats) of the token frequencies of ``text``: the loss of the best unigram model fit to it.

    A trained LM should score well below this on the same text; it is the baseline for "learned
    something beyond token frequencies".

    Example
    -------
    >>> from iclr26.lab.corpora import train_tokenizer
    >>> round(unigram_loss(train_tokenizer("abab", kind="char"), "abab"), 4)  # two equiprobable tokens: ln 2
    0.6931
    """
    counts = torch.bincount(encode_text(tokenizer, text)).double()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * p.log()).sum())
