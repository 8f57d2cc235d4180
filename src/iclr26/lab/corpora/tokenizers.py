"""Offline tokenizers: byte-level BPE or character-level, with fixed special tokens at ids 0-3.

Fitted with the ``tokenizers`` library and wrapped as a Hugging Face
:class:`~transformers.PreTrainedTokenizerFast`.
"""

from __future__ import annotations

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from iclr26.checks import check_choice, check_int
from iclr26.lab.corpora.splits import chunk_text

__all__ = ["SPECIAL_TOKENS", "TOKENIZER_KINDS", "train_tokenizer"]

#: Special tokens of every tokenizer made here, in id order (ids 0..3).
SPECIAL_TOKENS = {
    "bos_token": "<|bos|>",
    "eos_token": "<|eos|>",
    "pad_token": "<|pad|>",
    "unk_token": "<|unk|>",
}
TOKENIZER_KINDS = ("bpe", "char")


def _wrap(backend: Tokenizer) -> PreTrainedTokenizerFast:
    return PreTrainedTokenizerFast(
        tokenizer_object=backend, clean_up_tokenization_spaces=False, **SPECIAL_TOKENS
    )


def train_tokenizer(text: str, vocab_size: int = 2048, kind: str = "bpe") -> PreTrainedTokenizerFast:
    """Fit a tokenizer on ``text`` offline; deterministic for the same text.

    Both kinds reserve ids 0-3 for ``<|bos|>``, ``<|eos|>``, ``<|pad|>``, ``<|unk|>`` and add no special
    tokens when encoding, so ``tok.decode(tok.encode(x)) == x``.

    Parameters
    ----------
    text : str
        Training text (non-empty).
    vocab_size : int
        Target vocabulary size for ``kind="bpe"``, at least 260 (256 byte symbols plus the specials);
        ignored for ``kind="char"``.
    kind : {"bpe", "char"}
        ``"bpe"``: byte-level BPE (GPT-2 style pre-tokenisation; encodes any string losslessly).
        ``"char"``: one token per distinct character of ``text``; unseen characters map to ``<|unk|>``.

    Returns
    -------
    transformers.PreTrainedTokenizerFast
        Saveable with ``save_pretrained`` and loadable with ``AutoTokenizer.from_pretrained``.

    Example
    -------
    >>> tok = train_tokenizer("hello world\\n" * 50, kind="char")
    >>> tok.convert_ids_to_tokens(tok.encode("hello"))
    ['h', 'e', 'l', 'l', 'o']
    """
    if not isinstance(text, str) or not text:
        raise ValueError("text must be a non-empty str")
    check_choice("kind", kind, TOKENIZER_KINDS)
    specials = list(SPECIAL_TOKENS.values())
    if kind == "char":
        vocab = {token: i for i, token in enumerate(specials + sorted(set(text) - set(specials)))}
        backend = Tokenizer(models.WordLevel(vocab, unk_token=SPECIAL_TOKENS["unk_token"]))
        backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
        backend.decoder = decoders.Fuse()
        return _wrap(backend)
    check_int("vocab_size (for kind='bpe')", vocab_size, low=256 + len(specials))
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(chunk_text(text, 100_000), trainer=trainer)
    return _wrap(backend)
