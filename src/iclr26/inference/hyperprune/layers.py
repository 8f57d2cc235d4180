"""Plumbing for Hugging Face causal LMs: decoder blocks, their linear layers, and sequential calibration.

Works for any model whose decoder blocks sit in one ``nn.ModuleList`` (Llama/Qwen/Mistral ``model.layers``,
GPT-2 ``transformer.h``) and whose projections are ``nn.Linear`` or GPT-2's ``Conv1D``. ``Conv1D`` stores its
weight as ``(d_in, d_out)``; :func:`get_weight` / :func:`set_weight` always speak ``(d_out, d_in)`` so the n:m
groups run along the input dimension for both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from transformers.pytorch_utils import Conv1D

from iclr26.checks import check_tensor, check_token_ids

__all__ = [
    "block_linears",
    "check_calib_ids",
    "find_blocks",
    "get_weight",
    "run_sequential",
    "set_weight",
]

BlockFn = Callable[[int, nn.Module, list[tuple[str, nn.Module]], dict[str, torch.Tensor]], None]


def find_blocks(model: nn.Module) -> nn.ModuleList:
    """The decoder blocks of a causal LM: the first ``nn.ModuleList`` of length ``num_hidden_layers``."""
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"model must be a torch nn.Module (a Hugging Face causal LM), got {type(model).__name__}"
        )
    cfg = getattr(model, "config", None)
    n_layers = getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "n_layer", None)
    for _, mod in model.named_modules():
        if isinstance(mod, nn.ModuleList) and len(mod) > 0 and (n_layers is None or len(mod) == n_layers):
            return mod
    raise ValueError(
        "model has no nn.ModuleList of decoder blocks (expected e.g. model.layers or transformer.h)"
    )


def block_linears(block: nn.Module) -> list[tuple[str, nn.Module]]:
    """``(relative name, module)`` of every ``nn.Linear`` / ``Conv1D`` inside one decoder block."""
    if not isinstance(block, nn.Module):
        raise TypeError(f"block must be an nn.Module (a decoder block), got {type(block).__name__}")
    found = [(name, mod) for name, mod in block.named_modules() if isinstance(mod, (nn.Linear, Conv1D))]
    if not found:
        raise ValueError(
            "decoder block has no nn.Linear or Conv1D modules to prune (non-linear modules only)"
        )
    return found


def _check_linear(module: nn.Module) -> None:
    if not isinstance(module, (nn.Linear, Conv1D)):
        raise TypeError(f"module must be nn.Linear or transformers Conv1D, got {type(module).__name__}")


def get_weight(module: nn.Module) -> torch.Tensor:
    """The weight of a linear layer as ``(d_out, d_in)`` (a transposed copy for ``Conv1D``)."""
    _check_linear(module)
    w = module.weight.detach()
    return w.t().clone() if isinstance(module, Conv1D) else w.clone()


def set_weight(module: nn.Module, weight: torch.Tensor) -> None:
    """Write a ``(d_out, d_in)`` weight back into a linear layer (transposing for ``Conv1D``)."""
    _check_linear(module)
    check_tensor("weight", weight, ndim=2, floating=True, finite=True)
    w = weight.t() if isinstance(module, Conv1D) else weight
    if w.shape != module.weight.shape:
        raise ValueError(
            f"weight shape {tuple(weight.shape)} does not fit module weight {tuple(module.weight.shape)}"
        )
    with torch.no_grad():
        module.weight.copy_(w)


def check_calib_ids(calib_ids: Any) -> torch.Tensor:
    """Validate calibration token ids: a non-empty ``(n_seq, seq_len)`` integer tensor."""
    if not isinstance(calib_ids, torch.Tensor):
        raise TypeError(f"calib_ids must be a torch.Tensor of token ids, got {type(calib_ids).__name__}")
    if calib_ids.dim() != 2 or calib_ids.numel() == 0:
        raise ValueError(
            f"calib_ids must be a non-empty (n_seq, seq_len) tensor, got shape {tuple(calib_ids.shape)}"
        )
    if calib_ids.dtype not in (torch.int32, torch.int64):
        raise TypeError(f"calib_ids must hold integer token ids, got dtype {calib_ids.dtype}")
    return calib_ids.long()


def check_calib_ids_for(model: nn.Module, calib_ids: Any) -> torch.Tensor:
    """:func:`check_calib_ids`, plus ids inside the model's vocabulary and sequences within its positions."""
    calib_ids = check_calib_ids(calib_ids)
    emb = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    if isinstance(emb, nn.Embedding):
        check_token_ids("calib_ids", calib_ids, emb.num_embeddings)
    cfg = getattr(model, "config", None)
    n_pos = getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None)
    if isinstance(n_pos, int) and calib_ids.shape[1] > n_pos:
        raise ValueError(
            f"calib_ids sequences of length {calib_ids.shape[1]} exceed the model's {n_pos} positions"
        )
    return calib_ids


def gram_hook(name: str, grams: dict, counts: dict) -> Callable:
    """Forward pre-hook accumulating ``X^T X`` and the token count of a linear's input under ``name``."""

    def hook(_mod: nn.Module, inp: tuple) -> None:
        x = inp[0].detach().reshape(-1, inp[0].shape[-1]).float()
        grams[name] = grams.get(name, 0) + x.T @ x
        counts[name] = counts.get(name, 0) + x.shape[0]

    return hook


class _Stop(Exception):
    pass


def _hidden(out: Any) -> torch.Tensor:
    return out[0] if isinstance(out, (tuple, list)) else out


def _with_hidden(args: tuple, kwargs: dict, h: torch.Tensor) -> tuple[tuple, dict]:
    if args:
        return (h, *args[1:]), kwargs
    return args, {**kwargs, "hidden_states": h}


@torch.no_grad()
def run_sequential(model: nn.Module, calib_ids: torch.Tensor, fn: BlockFn) -> None:
    """Go through the decoder blocks in order, calling ``fn(l, block, linears, grams)`` for each.

    ``grams[name] = X^T X / N`` of that linear's input activations (``d_in x d_in``), where the inputs of block
    ``l`` come from running the calibration batch through blocks ``0..l-1`` *after* ``fn`` pruned them
    (sequential calibration, as in SparseGPT). ``fn`` edits the block's weights in place.
    """
    blocks = find_blocks(model)
    calib_ids = check_calib_ids_for(model, calib_ids)
    if not callable(fn):
        raise TypeError(f"fn must be a callable fn(index, block, linears, grams), got {type(fn).__name__}")
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    store: dict[str, Any] = {}

    def catch(_mod: nn.Module, args: tuple, kwargs: dict) -> None:
        store["args"], store["kwargs"] = args, kwargs
        raise _Stop

    handle = blocks[0].register_forward_pre_hook(catch, with_kwargs=True)
    try:
        model(input_ids=calib_ids.to(device), use_cache=False)
    except _Stop:
        pass
    finally:
        handle.remove()
    args, kwargs = store["args"], store["kwargs"]
    for idx, block in enumerate(blocks):
        linears = block_linears(block)
        grams: dict[str, torch.Tensor] = {}
        counts: dict[str, int] = {}

        hooks = [mod.register_forward_pre_hook(gram_hook(name, grams, counts)) for name, mod in linears]
        try:
            block(*args, **kwargs)
        finally:
            for h in hooks:
                h.remove()
        grams = {k: v / counts[k] for k, v in grams.items()}
        fn(idx, block, linears, grams)
        out = _hidden(block(*args, **kwargs))
        args, kwargs = _with_hidden(args, kwargs, out)
    model.train(was_training)
