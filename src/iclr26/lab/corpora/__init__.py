"""Offline text corpora and tokenizers for the tiny language models that many reproductions train.

Nothing here touches the network. Text comes from two places:

* the Python standard library's own ``.py`` sources, which ship with every interpreter (``"stdlib"``),
  or only their docstrings, extracted with :mod:`ast`, which read more like English
  (``"stdlib-docstrings"``);
* generated task corpora with checkable answers, made from a seed (``"arithmetic"``: ``Q: 37+45= A: 82``
  and a few other wordings of the same problem; ``"worded-arithmetic"``: multi-step problems whose every step
  can be worded several ways, ending in ``Answer: N``, mixed with docstring paragraphs).

Every corpus is deterministic: the same arguments on the same Python version give the same string.
:func:`split_text` cuts a text into train/val/test at chunk granularity, and :func:`train_tokenizer`
fits a byte-level BPE (or a character-level) tokenizer with the ``tokenizers`` library and wraps it as a
Hugging Face :class:`~transformers.PreTrainedTokenizerFast`.

Example
-------
>>> from iclr26.lab.corpora import get_corpus, split_text, train_tokenizer
>>> text = get_corpus("stdlib-docstrings", max_chars=50_000)
>>> parts = split_text(text)
>>> tok = train_tokenizer(parts["train"], vocab_size=512)
>>> tok.decode(tok.encode("def f(x): return x")) == "def f(x): return x"
True
"""

from iclr26.lab.corpora.arithmetic import (
    ARITHMETIC_STYLES,
    ArithmeticProblem,
    arithmetic_problems,
    arithmetic_text,
)
from iclr26.lab.corpora.registry import UnknownCorpusError, get_corpus, list_corpora, register_corpus
from iclr26.lab.corpora.splits import SPLIT_NAMES as SPLIT_NAMES
from iclr26.lab.corpora.splits import chunk_text, split_text
from iclr26.lab.corpora.stdlib import EXCLUDED_STDLIB_DIRS as EXCLUDED_STDLIB_DIRS
from iclr26.lab.corpora.stdlib import stdlib_files, stdlib_text
from iclr26.lab.corpora.tokenizers import SPECIAL_TOKENS, train_tokenizer
from iclr26.lab.corpora.tokenizers import TOKENIZER_KINDS as TOKENIZER_KINDS
from iclr26.lab.corpora.worded import (
    STEP_FORMS,
    WordedProblem,
    parse_answer,
    worded_arithmetic_text,
    worded_problems,
)

# EXCLUDED_STDLIB_DIRS, SPLIT_NAMES and TOKENIZER_KINDS (re-exported "as" themselves above) stay importable
# from here, as they were from the single-file module, but are not part of __all__.
__all__ = [
    "ARITHMETIC_STYLES",
    "SPECIAL_TOKENS",
    "STEP_FORMS",
    "ArithmeticProblem",
    "UnknownCorpusError",
    "WordedProblem",
    "arithmetic_problems",
    "arithmetic_text",
    "chunk_text",
    "get_corpus",
    "list_corpora",
    "parse_answer",
    "register_corpus",
    "split_text",
    "stdlib_files",
    "stdlib_text",
    "train_tokenizer",
    "worded_arithmetic_text",
    "worded_problems",
]
