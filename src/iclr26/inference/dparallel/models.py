"""Masked diffusion LMs for dParallel: the shared protocol and an adapter for Hugging Face dLLMs.

:class:`MaskedDiffusionLM` (from :mod:`iclr26.lab.masked_diffusion`) is the protocol every function here
accepts: ``model(ids (B, L)) -> logits (B, L, V)`` plus an integer ``mask_id``. The project's tiny denoiser,
:class:`iclr26.lab.masked_diffusion.MaskedDiffusionTransformer`, satisfies it directly. Hugging Face dLLMs
(LLaDA-8B-Instruct, Dream-7B, which ship their modelling code and need ``trust_remote_code=True``) and masked LMs
such as ``BertForMaskedLM`` return an output object with ``.logits``; :class:`HFMaskedDiffusionAdapter` wraps
them.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from iclr26.checks import check_int, check_tensor, check_token_ids
from iclr26.lab.masked_diffusion import MaskedDiffusionLM

__all__ = ["LLADA_MASK_ID", "HFMaskedDiffusionAdapter", "MaskedDiffusionLM"]

#: The [MASK] id of LLaDA-8B (its tokenizer's ``<|mdm_mask|>``).
LLADA_MASK_ID = 126336


class HFMaskedDiffusionAdapter(nn.Module):
    """Wrap a Hugging Face model so that ``adapter(ids) -> logits`` and ``adapter.mask_id`` exist.

    Parameters
    ----------
    model : any module called as ``model(input_ids=ids)`` returning logits or an object with ``.logits``
        (LLaDA / Dream via ``AutoModel`` with ``trust_remote_code=True``, ``BertForMaskedLM``, ...).
    mask_id : the [MASK] token id; default ``model.config.mask_token_id`` (Dream), else an error.

    Example
    -------
    >>> from transformers import BertConfig, BertForMaskedLM
    >>> cfg = BertConfig(vocab_size=12, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
    ...                  intermediate_size=32, max_position_embeddings=16)
    >>> lm = HFMaskedDiffusionAdapter(BertForMaskedLM(cfg), mask_id=11)
    >>> lm(torch.zeros(2, 5, dtype=torch.long)).shape
    torch.Size([2, 5, 12])
    """

    def __init__(self, model: nn.Module, mask_id: int | None = None) -> None:
        super().__init__()
        if not callable(model):
            raise TypeError(f"model must be a callable module, got {type(model).__name__}")
        if mask_id is None:
            mask_id = getattr(getattr(model, "config", None), "mask_token_id", None)
        self.model = model
        self.mask_id = check_int(
            "mask_id (pass it, or use a model whose config has mask_token_id)", mask_id, low=0
        )

    @classmethod
    def from_pretrained(
        cls,
        name_or_path: str,
        mask_id: int | None = None,
        *,
        trust_remote_code: bool = False,
        **kwargs: Any,
    ) -> HFMaskedDiffusionAdapter:
        """Load with ``transformers.AutoModel.from_pretrained(name_or_path, trust_remote_code=..., **kwargs)``.

        ``trust_remote_code`` is False by default: it runs Python shipped with the checkpoint, so pass
        ``trust_remote_code=True`` only for a repository you trust (LLaDA and Dream need it; pin a ``revision``).
        Needs the weights locally or network access (never used by the offline reproduction). For LLaDA pass
        ``mask_id=LLADA_MASK_ID``.
        """
        from transformers import AutoModel

        model = AutoModel.from_pretrained(name_or_path, trust_remote_code=trust_remote_code, **kwargs)
        return cls(model, mask_id)

    def forward(self, ids: Tensor) -> Tensor:
        """(batch, length) token ids -> (batch, length, vocab) logits."""
        check_tensor("ids", ids, ndim=2, floating=False)
        emb = self.model.get_input_embeddings() if hasattr(self.model, "get_input_embeddings") else None
        if isinstance(emb, nn.Embedding):
            check_token_ids("ids", ids, emb.num_embeddings)
        out = self.model(input_ids=ids)
        logits = out if torch.is_tensor(out) else getattr(out, "logits", None)
        if logits is None and isinstance(out, (tuple, list)):
            logits = out[0]
        if not torch.is_tensor(logits) or logits.ndim != 3:
            raise TypeError(
                "the wrapped model must return (batch, length, vocab) logits or an object with .logits"
            )
        return logits
