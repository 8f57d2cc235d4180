"""A freshly initialised Hugging Face ``LlamaForCausalLM`` or ``GPT2LMHeadModel`` for a tiny-LM config."""

from __future__ import annotations

import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedModel

from iclr26.checks import check_int
from iclr26.lab.tinylm.config import TinyLMConfig

__all__ = ["build_model"]


def build_model(cfg: TinyLMConfig, vocab_size: int) -> PreTrainedModel:
    """A freshly initialised model for ``cfg``, seeded by ``cfg.seed`` (the global RNG is left untouched).

    Parameters
    ----------
    cfg : TinyLMConfig
    vocab_size : int
        Size of the embedding table (the tokenizer's ``len(tokenizer)``).

    Returns
    -------
    LlamaForCausalLM or GPT2LMHeadModel
        Dropout off, tied embeddings, room for ``max(seq_len, 1024)`` positions (positions past ``seq_len``
        are never trained).

    Example
    -------
    >>> model = build_model(TinyLMConfig(arch="gpt2", d_model=32, n_layers=1, n_heads=2), vocab_size=300)
    >>> type(model).__name__
    'GPT2LMHeadModel'
    """
    check_int("vocab_size", vocab_size, low=1)
    positions = max(cfg.seq_len, 1024)
    # The tokenizers of iclr26.lab.corpora put <|bos|>, <|eos|>, <|pad|> at ids 0, 1, 2.
    special_ids = {"bos_token_id": 0, "eos_token_id": 1, "pad_token_id": 2}
    if cfg.arch == "llama":
        hf_config = LlamaConfig(
            vocab_size=vocab_size,
            hidden_size=cfg.d_model,
            intermediate_size=cfg.ff_width,
            num_hidden_layers=cfg.n_layers,
            num_attention_heads=cfg.n_heads,
            num_key_value_heads=cfg.n_heads,
            max_position_embeddings=positions,
            rms_norm_eps=1e-5,
            tie_word_embeddings=True,
            **special_ids,
        )
        model_class: type[PreTrainedModel] = LlamaForCausalLM
    else:
        hf_config = GPT2Config(
            vocab_size=vocab_size,
            n_embd=cfg.d_model,
            n_layer=cfg.n_layers,
            n_head=cfg.n_heads,
            n_inner=cfg.ff_width,
            n_positions=positions,
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
            tie_word_embeddings=True,
            **special_ids,
        )
        model_class = GPT2LMHeadModel
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        model = model_class(hf_config)
    model.loss_type = "ForCausalLM"  # GPT2LMHeadModel's class name does not reveal its loss to transformers
    return model
