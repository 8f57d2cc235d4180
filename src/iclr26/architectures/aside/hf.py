"""Wrap any Hugging Face causal LM so that ``forward`` and ``generate`` take ``segment_ids`` (ASIDE, ISE, Vanilla).

The wrapper computes ``inputs_embeds`` with the role embedding and hands them to the model's own forward, so
everything after the embedding layer (positions, attention, MLP, LM head on the un-rotated E) is unchanged.
Generation is a greedy loop over the model's KV cache in which every new token is embedded with the role of the
prompt's last token (the data role for an ASIDE prompt, as in the official code's decode step).
"""

from __future__ import annotations

import inspect
import math
import types
from typing import Any

import torch
from torch import nn

from iclr26.architectures.aside.embeddings import EMBEDDINGS, make_role_embedding
from iclr26.architectures.aside.rotation import check_segment_ids
from iclr26.checks import check_bool, check_int, check_tensor

__all__ = ["is_wrapped", "wrap_hf_causal_lm"]


def _cache_of(out: Any) -> Any:
    return out["cache"] if "cache" in out else out["past_key_values"]


def is_wrapped(model: nn.Module) -> bool:
    """Whether ``model`` went through :func:`wrap_hf_causal_lm`."""
    return isinstance(getattr(model, "role_embedding", None), nn.Module)


def wrap_hf_causal_lm(
    model: nn.Module,
    method: str = "aside",
    *,
    alpha: float = math.pi / 2,
    direction: str = "right",
    strict: bool = True,
    ise_seed: int = 0,
) -> nn.Module:
    """Patch a ``transformers`` causal LM in place so that ``forward``/``generate`` accept ``segment_ids``.

    Parameters
    ----------
    model : PreTrainedModel
        Any causal LM with ``get_input_embeddings()`` returning an ``nn.Embedding`` and accepting
        ``inputs_embeds``.
    method : {"aside", "ise", "vanilla"}
    alpha, direction, strict : see :class:`~iclr26.architectures.aside.ASIDEEmbedding` (ASIDE only).
    ise_seed : int
        Seed of the ISE segment table's initialisation.

    Returns
    -------
    The same model: ``model(input_ids=..., segment_ids=..., ...)`` and
    ``model.generate(input_ids, segment_ids, max_new_tokens=..., eos_token_id=None)``. With ``strict`` a call
    without ``segment_ids`` raises ``ValueError``; otherwise it falls back to all roles 0 (the unwrapped model).

    Example
    -------
    >>> from iclr26.lab.tinylm import TinyLMConfig, build_model
    >>> lm = wrap_hf_causal_lm(build_model(TinyLMConfig(d_model=32, n_layers=1, n_heads=2), vocab_size=50))
    >>> ids = torch.tensor([[5, 6, 7]])
    >>> lm(input_ids=ids, segment_ids=torch.tensor([[0, 1, 1]])).logits.shape
    torch.Size([1, 3, 50])
    >>> lm.generate(ids, torch.tensor([[0, 1, 1]]), max_new_tokens=2).shape
    torch.Size([1, 5])
    """
    if not isinstance(model, nn.Module) or not hasattr(model, "get_input_embeddings"):
        raise TypeError(f"model must be a Hugging Face causal LM (nn.Module), got {type(model).__name__}")
    if is_wrapped(model):
        raise ValueError("model is already wrapped (it has a role_embedding); wrap the original model once")
    if method not in EMBEDDINGS:
        raise ValueError(f"method must be one of {', '.join(map(repr, EMBEDDINGS))}, got {method!r}")
    check_bool("strict", strict)
    emb = model.get_input_embeddings()
    kwargs: dict[str, Any] = {}
    if method == "aside":
        kwargs = {"alpha": alpha, "direction": direction, "strict": strict}
    elif method == "ise":
        kwargs = {"seed": ise_seed}
    model.role_embedding = make_role_embedding(method, emb, **kwargs)
    model.role_method = method
    original_forward = model.forward
    # recent transformers name the KV-cache argument ``cache``, older ones ``past_key_values``
    cache_kw = "cache" if "cache" in inspect.signature(original_forward).parameters else "past_key_values"

    def _roles(input_ids: torch.Tensor, segment_ids: torch.Tensor | None) -> torch.Tensor:
        if segment_ids is None:
            if strict:
                raise ValueError(
                    "segment_ids is required for a wrapped model (0 = instruction, 1 = data), got None; "
                    "wrap with strict=False to treat a missing segment_ids as all-instruction"
                )
            return torch.zeros_like(input_ids)
        return check_segment_ids(segment_ids, tuple(input_ids.shape))

    def forward(self: nn.Module, input_ids: torch.Tensor | None = None, segment_ids=None, **kw: Any) -> Any:
        if kw.get("inputs_embeds") is not None:
            raise ValueError("pass input_ids and segment_ids to a wrapped model, not inputs_embeds")
        kw.pop("inputs_embeds", None)
        if input_ids is None:
            raise ValueError("input_ids is required for a wrapped model, got None")
        check_tensor("input_ids", input_ids, ndim=2, floating=False)
        roles = _roles(input_ids, segment_ids)
        return original_forward(inputs_embeds=self.role_embedding(input_ids, roles), **kw)

    @torch.no_grad()
    def generate(
        self: nn.Module,
        input_ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        max_new_tokens: int = 16,
        eos_token_id: int | None = None,
    ) -> torch.Tensor:
        """Greedy decoding with the KV cache; returns (batch, prompt + new) ids (EOS-finished rows pad with EOS)."""
        check_tensor("input_ids", input_ids, ndim=2, floating=False)
        roles = _roles(input_ids, segment_ids)
        check_int("max_new_tokens", max_new_tokens, low=1)
        out = original_forward(inputs_embeds=self.role_embedding(input_ids, roles), use_cache=True)
        seq = input_ids
        role = roles[:, -1:]  # every generated token keeps the role of the prompt's last token
        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        for step in range(max_new_tokens):
            nxt = out.logits[:, -1].argmax(-1)
            if eos_token_id is not None:
                nxt = torch.where(done, torch.full_like(nxt, eos_token_id), nxt)
                done = done | (nxt == eos_token_id)
            seq = torch.cat([seq, nxt[:, None]], dim=1)
            if step + 1 == max_new_tokens or (eos_token_id is not None and bool(done.all())):
                break
            step_embeds = self.role_embedding(nxt[:, None], role)
            out = original_forward(inputs_embeds=step_embeds, use_cache=True, **{cache_kw: _cache_of(out)})
        return seq

    model.forward = types.MethodType(forward, model)
    model.generate = types.MethodType(generate, model)
    return model
