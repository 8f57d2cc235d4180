"""The fixed-point layer of an Equilibrium Language Model and the surgery that puts it into a Hugging Face LM.

A contiguous group of ``G`` decoder layers ``[s, s + G)`` is replaced by one weight-shared block ``T_phi``
iterated to an (approximate) fixed point::

    z_0 = 0,    z_{k+1} = T_phi(W [z_k ; x] + b),    x = h_s,    z* replaces h_{s+G}

``W`` (``d x 2d``) starts as ``[0.1 R | I]`` with ``b = 0``, so the first iterate is ``T_phi(x)``. At inference
the block iterates at most ``max_iter`` times (``G`` by default, so compute never exceeds the dense group's)
and, for single-token decoding, stops early once ``||z_{k+1} - z_k||_2 < eps_exit`` for every sequence.

One-Step KV cache: the first iteration appends the new tokens' keys/values to the group's cache slot, every
later iteration overwrites them (crop then append), so the cache keeps only the final iterate's K/V of past
tokens -- one layer's worth of cache for the whole group.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import torch
from torch import nn
from transformers import PreTrainedModel
from transformers.cache_utils import Cache

from iclr26.checks import check_choice, check_float, check_int, check_tensor, check_token_ids

__all__ = [
    "FixedPointBlock",
    "count_parameters",
    "decoder_layers",
    "find_fixed_point_block",
    "make_elm",
    "replace_group",
]

CACHE_MODES = ("one_step",)


def check_module(name: str, value: object) -> nn.Module:
    if not isinstance(value, nn.Module):
        raise TypeError(
            f"{name} must be a torch.nn.Module (a Hugging Face causal LM), got {type(value).__name__}"
        )
    return value


def check_model_ids(model: nn.Module, ids: object, name: str = "input_ids", ndim: int = 2) -> torch.Tensor:
    """An integer ``ndim``-D tensor of token ids, non-empty, inside ``model``'s input vocabulary."""
    check_tensor(name, ids, ndim=ndim, floating=False)
    if ids.numel() == 0:
        raise ValueError(f"{name} must hold at least one token, got shape {tuple(ids.shape)}")
    emb = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    if isinstance(emb, nn.Embedding):
        check_token_ids(name, ids, emb.num_embeddings)
    return ids


def decoder_layers(model: nn.Module) -> tuple[nn.Module, str]:
    """The parent module and attribute name of a causal LM's decoder-layer list.

    Supports Llama/Qwen2/Mistral-style ``model.model.layers`` and GPT-2-style ``model.transformer.h``.

    Raises
    ------
    ValueError
        When no such ``nn.ModuleList`` is found (unsupported architecture).
    """
    check_module("model", model)
    for outer, attr in (("model", "layers"), ("transformer", "h")):
        parent = getattr(model, outer, None)
        layers = getattr(parent, attr, None) if parent is not None else None
        if isinstance(layers, nn.ModuleList):
            return parent, attr
    raise ValueError(
        f"model: unsupported architecture {type(model).__name__}: no decoder layer list found "
        "(looked for model.model.layers and model.transformer.h)"
    )


def _attention_modules(layer: nn.Module) -> list[nn.Module]:
    return [m for m in layer.modules() if hasattr(m, "layer_idx")]


def check_group(n_layers: int, start: object, group_len: object, min_len: int = 2) -> None:
    for name, value in (("start", start), ("group_len", group_len)):
        check_int(name, value, type_error=True)
    if group_len < min_len:
        raise ValueError(
            f"group_len must be >= {min_len} (a group of one layer is not compressed), got {group_len}"
        )
    if start < 0 or start + group_len > n_layers:
        raise ValueError(
            f"start + group_len must be <= n_layers={n_layers} with start >= 0, got start={start}, "
            f"group_len={group_len}"
        )


def replace_group(
    model: PreTrainedModel, start: int, group_len: int, replacement: nn.Module | None
) -> PreTrainedModel:
    """A deep copy of ``model`` whose layers ``[start, start + group_len)`` become ``replacement`` (or nothing).

    The attention modules of the new layer list are renumbered ``0, 1, ...`` (their cache slots) and
    ``config.num_hidden_layers`` (and ``config.layer_types`` where present) follow the new list, so
    ``generate()`` and ``DynamicCache`` keep working. ``replacement`` is inserted as is (not copied).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"model must be a torch.nn.Module (a Hugging Face causal LM), got {type(model).__name__}"
        )
    parent, attr = decoder_layers(model)
    n_layers = len(getattr(parent, attr))
    check_group(n_layers, start, group_len, min_len=1)
    if replacement is not None and not isinstance(replacement, nn.Module):
        raise TypeError(f"replacement must be an nn.Module or None, got {type(replacement).__name__}")
    new = copy.deepcopy(model)
    parent, attr = decoder_layers(new)
    old = list(getattr(parent, attr))
    if replacement is not None:
        replacement.train(model.training)
    middle = [replacement] if replacement is not None else []
    layers = old[:start] + middle + old[start + group_len :]
    setattr(parent, attr, nn.ModuleList(layers))
    slot = 0
    for layer in layers:
        attn = _attention_modules(layer)
        for module in attn:
            module.layer_idx = slot
        slot += 1 if attn else 0
    new.config.num_hidden_layers = len(layers)
    layer_types = getattr(new.config, "layer_types", None)
    if isinstance(layer_types, list) and len(layer_types) == n_layers:
        kept = (
            layer_types[:start] + layer_types[start : start + len(middle)] + layer_types[start + group_len :]
        )
        new.config.layer_types = kept
    return new


class FixedPointBlock(nn.Module):
    """One decoder layer ``T_phi`` iterated to a fixed point through an adaptor ``W [z ; x] + b``.

    Parameters
    ----------
    block : nn.Module
        Any decoder layer whose forward takes the hidden states first and returns a tensor (or a tuple whose
        first item is the hidden states). It is used as is (``make_elm`` passes a copy of layer ``s``).
    d_model : int
        Hidden size ``d``.
    init : {"identity_x"}
        Adaptor initialisation: x-half the identity, z-half ``0.1`` times a default ``nn.Linear`` draw,
        bias 0 (so the first iterate is ``T_phi(x)``).
    max_iter : int
        Iterations at inference (the paper: the group length ``G``).
    eps_exit : float or None
        Early-exit threshold on ``||z_{k+1} - z_k||_2`` (over ``d``) for single-token decoding; None disables.
    generator : torch.Generator or None
        Source of the adaptor's random z-half.

    Notes
    -----
    ``forward(x, *args, n_iter_nograd=None, n_iter_grad=None, cache_mode="one_step", **kwargs)``: ``args`` and
    ``kwargs`` (``attention_mask``, ``position_ids``, ``cache``/``past_key_value``, rotary embeddings, ...)
    go to ``block`` unchanged. Without explicit counts the block uses :attr:`n_iter_nograd` and
    :attr:`n_iter_grad` (set by :class:`~iclr26.inference.equilibrium_lm.ELMTrainer`), else ``0`` and
    ``max_iter``. Diagnostics of the last call: :attr:`last_residuals` (mean over tokens of
    ``||z_{k+1} - z_k||_2`` per iteration) and :attr:`last_n_iter`.

    Example
    -------
    >>> layer = nn.Linear(4, 4)
    >>> fp = FixedPointBlock(layer, 4, max_iter=3)
    >>> fp(torch.zeros(1, 2, 4)).shape
    torch.Size([1, 2, 4])
    >>> fp.last_n_iter
    3
    """

    def __init__(
        self,
        block: nn.Module,
        d_model: int,
        init: str = "identity_x",
        max_iter: int = 8,
        eps_exit: float | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(block, nn.Module):
            raise TypeError(f"block must be a torch.nn.Module, got {type(block).__name__}")
        check_int("d_model", d_model, low=1)
        if init != "identity_x":
            raise ValueError(f"init must be 'identity_x', got {init!r}")
        check_int("max_iter", max_iter, low=1)
        if eps_exit is not None:
            check_float("eps_exit", eps_exit, low=0.0, low_open=True)
        if generator is not None and not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
        self.block = block
        self.d_model = d_model
        self.max_iter = max_iter
        self.eps_exit = None if eps_exit is None else float(eps_exit)
        param = next(block.parameters(), None)
        dtype = param.dtype if param is not None else torch.float32
        device = param.device if param is not None else torch.device("cpu")
        self.adaptor = nn.Linear(2 * d_model, d_model, dtype=dtype, device=device)
        with torch.no_grad():
            bound = 1.0 / math.sqrt(2 * d_model)  # nn.Linear's default uniform range for fan_in = 2d
            z_half = (torch.rand(d_model, d_model, generator=generator, dtype=torch.float64) * 2 - 1) * bound
            # drawn on the CPU (same numbers on every device), then moved to the block's device
            self.adaptor.weight[:, :d_model] = (0.1 * z_half).to(device=device, dtype=dtype)
            self.adaptor.weight[:, d_model:] = torch.eye(d_model, dtype=dtype, device=device)
            self.adaptor.bias.zero_()
        self.n_iter_nograd: int | None = None
        self.n_iter_grad: int | None = None
        self.last_residuals: list[float] = []
        self.last_n_iter = 0
        self._frozen_prefix: torch.Tensor | None = None
        self.last_block_input: torch.Tensor | None = None

    @property
    def cache_slot(self) -> int | None:
        """The cache slot of the wrapped block's attention (None if it has none)."""
        attn = _attention_modules(self.block)
        return attn[0].layer_idx if attn else None

    def _step(
        self, z: torch.Tensor, x: torch.Tensor, args: tuple, kwargs: dict
    ) -> tuple[torch.Tensor, torch.Tensor]:
        u = self.adaptor(torch.cat([z, x], dim=-1))  # W [z_k ; x] + b
        if self._frozen_prefix is not None:  # oracle decode: past tokens keep their final-iterate input
            u = torch.cat([self._frozen_prefix.to(u.dtype), u[:, self._frozen_prefix.shape[1] :]], dim=1)
        out = self.block(u, *args, **kwargs)
        return (out[0] if isinstance(out, tuple) else out), u

    def forward(
        self,
        x: torch.Tensor,
        *args: object,
        n_iter_nograd: int | None = None,
        n_iter_grad: int | None = None,
        cache_mode: str = "one_step",
        **kwargs: object,
    ) -> torch.Tensor:
        """Iterate ``z_{k+1} = T_phi(W [z_k ; x] + b)`` from ``z_0 = 0``; return the last iterate."""
        check_choice("cache_mode", cache_mode, CACHE_MODES)
        if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[-1] != self.d_model:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"x must be a (batch, seq, {self.d_model}) tensor, got {shape}")
        check_tensor("x", x, floating=True)
        if n_iter_nograd is not None:
            check_int("n_iter_nograd", n_iter_nograd, low=0)
        if n_iter_grad is not None:
            check_int("n_iter_grad", n_iter_grad, low=1)
        if "past_key_value" in kwargs:
            kwargs["cache"] = kwargs.pop("past_key_value")
        nograd = n_iter_nograd if n_iter_nograd is not None else (self.n_iter_nograd or 0)
        grad = n_iter_grad if n_iter_grad is not None else (self.n_iter_grad or self.max_iter)
        if nograd < 0 or grad < 1:
            raise ValueError(f"n_iter_nograd must be >= 0 and n_iter_grad >= 1, got {nograd}, {grad}")
        layer = self._cache_layer(args, kwargs)
        start_len = layer.get_seq_length() if layer is not None else 0
        frozen = 0 if self._frozen_prefix is None else self._frozen_prefix.shape[1]
        early_exit = self.eps_exit is not None and not self.training and x.shape[1] - frozen == 1
        z = torch.zeros_like(x)
        residuals: list[float] = []
        total = nograd + grad
        for k in range(total):
            if k > 0 and layer is not None:  # One-Step cache: overwrite this call's K/V instead of appending
                extra = layer.get_seq_length() - start_len
                if extra > 0:
                    layer.crop(-extra)
            with torch.set_grad_enabled(torch.is_grad_enabled() and k >= nograd):
                z_next, u = self._step(z, x, args, kwargs)
            step = (z_next - z)[:, frozen:].detach().norm(dim=-1)  # (batch, seq - frozen)
            residuals.append(float(step.mean()))
            z = z_next
            if early_exit and k + 1 < total and float(step.max()) < self.eps_exit:
                break
        self.last_residuals = residuals
        self.last_n_iter = len(residuals)
        self.last_block_input = u.detach()
        return z

    def _cache_layer(self, args: tuple, kwargs: dict) -> object | None:
        cache = kwargs.get("cache")
        if cache is None:
            cache = next((a for a in args if isinstance(a, Cache)), None)
        cache = getattr(cache, "self_attention_cache", cache)
        idx = self.cache_slot
        if cache is None or idx is None:
            return None
        if not isinstance(cache, Cache):
            raise TypeError(f"cache must be a transformers Cache, got {type(cache).__name__}")
        if idx >= len(cache.layers):  # a lazily grown cache: the slot appears on the first update
            return _LazySlot(cache, idx)
        return cache.layers[idx]


class _LazySlot:
    """A cache slot that may not exist yet (lazily grown ``DynamicCache``)."""

    def __init__(self, cache: Cache, idx: int) -> None:
        self.cache, self.idx = cache, idx

    def get_seq_length(self) -> int:
        return self.cache.layers[self.idx].get_seq_length() if self.idx < len(self.cache.layers) else 0

    def crop(self, n: int) -> None:
        self.cache.layers[self.idx].crop(n)


def find_fixed_point_block(model: nn.Module) -> FixedPointBlock:
    """The (single) :class:`FixedPointBlock` of an ELM model."""
    check_module("model", model)
    blocks = [m for m in model.modules() if isinstance(m, FixedPointBlock)]
    if len(blocks) != 1:
        raise ValueError(f"model must contain exactly one FixedPointBlock, found {len(blocks)}")
    return blocks[0]


def make_elm(
    model: PreTrainedModel,
    start: int,
    group_len: int,
    *,
    max_iter: int | None = None,
    eps_exit: float | None | str = "auto",
    seed: int = 0,
) -> PreTrainedModel:
    """A copy of a Hugging Face causal LM with layers ``[start, start + group_len)`` replaced by one
    :class:`FixedPointBlock` initialised from layer ``start``.

    Parameters
    ----------
    model : PreTrainedModel
        Llama/Qwen2/Mistral-style (``model.model.layers``) or GPT-2-style (``model.transformer.h``).
    start, group_len : int
        The group ``[start, start + group_len)``; ``group_len >= 2``.
    max_iter : int or None
        Inference iterations; None means ``group_len``.
    eps_exit : float, None or "auto"
        Early-exit threshold; "auto" means ``1e-2 * sqrt(d_model)``.
    seed : int
        Seed of the adaptor's random half.

    Returns
    -------
    PreTrainedModel
        Same class as ``model``; ``generate()`` works with the One-Step KV cache.

    Example
    -------
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG, build_model
    >>> from dataclasses import replace
    >>> dense = build_model(replace(SMOKE_CONFIG, n_layers=4), vocab_size=300)
    >>> elm = make_elm(dense, start=1, group_len=2)
    >>> elm.config.num_hidden_layers
    3
    """
    parent, attr = decoder_layers(model)
    check_group(len(getattr(parent, attr)), start, group_len)
    if max_iter is not None:
        check_int("max_iter", max_iter, low=1)
    check_int("seed", seed, low=0)
    d_model = int(model.config.hidden_size)
    if isinstance(eps_exit, str) and eps_exit != "auto":
        raise ValueError(f"eps_exit must be a float > 0, None or 'auto', got {eps_exit!r}")
    if eps_exit == "auto":
        eps_exit = 1e-2 * math.sqrt(d_model)
    block = copy.deepcopy(getattr(parent, attr)[start])
    generator = torch.Generator().manual_seed(seed)
    fp = FixedPointBlock(
        block,
        d_model,
        max_iter=group_len if max_iter is None else max_iter,
        eps_exit=eps_exit,
        generator=generator,
    )
    elm = replace_group(model, start, group_len, fp)
    elm.config.elm_group = [start, group_len]
    return elm


def count_parameters(modules: Sequence[nn.Module] | nn.Module) -> int:
    """Number of distinct parameters of a module (or modules), tied weights counted once."""
    if not isinstance(modules, nn.Module) and not isinstance(modules, (list, tuple)):
        raise TypeError(f"modules must be an nn.Module or a sequence of them, got {type(modules).__name__}")
    mods = [modules] if isinstance(modules, nn.Module) else list(modules)
    for i, m in enumerate(mods):
        check_module(f"modules[{i}]", m)
    seen = {id(p): p.numel() for m in mods for p in m.parameters()}
    return sum(seen.values())
