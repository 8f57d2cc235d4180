"""Tiny Hugging Face causal language models, trained offline on the CPU and cached by config hash.

Many reproductions need "a real language model" to decode from, quantize, watermark, probe or steer. This
package makes one without the model hub: a standard ``LlamaForCausalLM`` or ``GPT2LMHeadModel`` with a tiny
config, trained for a few minutes on an offline corpus from :mod:`iclr26.lab.corpora`, and saved with
``save_pretrained`` so that any code written against Hugging Face models (``generate``, logits processors,
``AutoModelForCausalLM.from_pretrained(local_dir)``) works on it unchanged.

Training is plain next-token prediction: random windows of ``seq_len`` tokens from the train split, AdamW
with linear warmup then cosine decay to 10% of ``lr``, gradient clipping at 1. Given ``cfg.seed`` the
weights are bit-identical on the same CPU. The cache lives in ``<cache>/tinylm/<config_hash>/`` where
``<cache>`` is the ``cache_dir`` argument, else ``$ICLR26_CACHE``, else
``platformdirs.user_cache_dir("iclr26")``.
Entries are written into a temporary sibling directory and renamed into place, so a crashed or concurrent
writer never leaves a half entry under the final name; an entry that is nevertheless unreadable raises
:class:`TinyLMCacheError` naming the directory (delete it to retrain).

Example
-------
>>> from iclr26.lab.tinylm import SMOKE_CONFIG, TinyLMConfig, load_or_train, train_tiny_lm
>>> lm = load_or_train(TinyLMConfig())  # doctest: +SKIP
>>> lm = train_tiny_lm(SMOKE_CONFIG)  # seconds, not cached
>>> ids = lm.tokenizer("Return the", return_tensors="pt").input_ids
>>> out = lm.model.generate(ids, max_new_tokens=5, do_sample=False)
>>> out.shape[1] - ids.shape[1]
5
"""

from iclr26.lab.tinylm.cache import TinyLMCacheError, cache_path, load_or_train
from iclr26.lab.tinylm.config import ARCHS as ARCHS
from iclr26.lab.tinylm.config import FORMAT_VERSION, SMOKE_CONFIG, TinyLMConfig, config_hash
from iclr26.lab.tinylm.evaluation import encode_text, evaluate_loss, perplexity, unigram_loss
from iclr26.lab.tinylm.model import build_model
from iclr26.lab.tinylm.training import SPLIT_SEED as SPLIT_SEED
from iclr26.lab.tinylm.training import VAL_WINDOWS as VAL_WINDOWS
from iclr26.lab.tinylm.training import Progress as Progress
from iclr26.lab.tinylm.training import TrainedLM, corpus_splits, train_tiny_lm

# ARCHS, SPLIT_SEED, VAL_WINDOWS and Progress (re-exported "as" themselves above) stay importable from here,
# as they were from the single-file module, but are not part of __all__.
__all__ = [
    "FORMAT_VERSION",
    "SMOKE_CONFIG",
    "TinyLMCacheError",
    "TinyLMConfig",
    "TrainedLM",
    "build_model",
    "cache_path",
    "config_hash",
    "corpus_splits",
    "encode_text",
    "evaluate_loss",
    "load_or_train",
    "perplexity",
    "train_tiny_lm",
    "unigram_loss",
]
