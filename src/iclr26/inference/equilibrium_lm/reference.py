"""A slow, cache-free oracle of One-Step KV-cache decoding for an ELM (used by the tests).

Every decoding step recomputes the whole sequence without any cache, but inside the fixed-point group the
past tokens' block inputs are frozen at the values of their own final iteration; only the newest token
iterates. That is what the One-Step cache stores (the final iterate's keys/values of past tokens), computed
along an independent path: no ``Cache`` object, no cropping, the model's own full-sequence forward.
"""

from __future__ import annotations

import torch
from transformers import PreTrainedModel

from iclr26.checks import check_int
from iclr26.inference.equilibrium_lm.fixed_point import check_model_ids, find_fixed_point_block

__all__ = ["one_step_reference_decode"]


@torch.no_grad()
def one_step_reference_decode(
    model: PreTrainedModel, input_ids: torch.Tensor, max_new_tokens: int, eos_token_id: int | None = None
) -> torch.Tensor:
    """Greedy decoding of ``max_new_tokens`` tokens by full recomputation with frozen final-iterate inputs.

    The prompt is processed in parallel (all iterations over all prompt tokens, as the cached prefill
    does); afterwards each new token iterates alone against its predecessors' final-iterate inputs.
    Decoding stops early when every sequence has produced ``eos_token_id`` (if given).
    """
    check_int("max_new_tokens", max_new_tokens, low=0)
    fp = find_fixed_point_block(model)
    check_model_ids(model, input_ids)
    if eos_token_id is not None:
        emb = model.get_input_embeddings()
        check_int(
            "eos_token_id",
            eos_token_id,
            0,
            emb.num_embeddings - 1 if isinstance(emb, torch.nn.Embedding) else None,
        )
    ids = input_ids
    done = torch.zeros(ids.shape[0], dtype=torch.bool, device=ids.device)
    try:
        fp._frozen_prefix = None
        logits = model(input_ids=ids, use_cache=False).logits
        for _ in range(max_new_tokens):
            prefix = fp.last_block_input
            nxt = logits[:, -1].argmax(-1)
            if eos_token_id is not None:
                nxt = torch.where(done, torch.full_like(nxt, eos_token_id), nxt)
                done |= nxt == eos_token_id
            ids = torch.cat([ids, nxt[:, None]], dim=1)
            if bool(done.all()):
                break
            fp._frozen_prefix = prefix
            logits = model(input_ids=ids, use_cache=False).logits
    finally:
        fp._frozen_prefix = None
    return ids
