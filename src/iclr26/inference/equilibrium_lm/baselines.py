"""Layer-pruning baselines at the same pruned group, written here.

- :func:`block_influence`: ShortGPT-style group score ``BI(s) = 1 - mean_tokens cos(h_s, h_{s+G})`` on
  calibration text (the lowest score is the most redundant group).
- :func:`drop_group`: delete the group (Shortened-LLaMA / ShortGPT style; fine-tuned afterwards by
  :class:`~iclr26.inference.equilibrium_lm.training.DistillTrainer` on the layer next to the gap).
- :func:`single_layer_replacement`: LLM-Streamline style, one trainable layer (initialised from layer ``s``)
  in place of the group.
- :func:`linear_replacement`: ReplaceMe style, the group becomes ``h_{s+G} ~= h_s T + c`` with ``T, c`` fitted
  by least squares on calibration activations (closed form, no training).
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from transformers import PreTrainedModel

from iclr26.checks import check_float, check_tensor
from iclr26.inference.equilibrium_lm.fixed_point import (
    check_group,
    check_model_ids,
    decoder_layers,
    replace_group,
)

__all__ = [
    "LinearGroup",
    "block_influence",
    "drop_group",
    "group_activations",
    "linear_replacement",
    "single_layer_replacement",
]


@torch.no_grad()
def group_activations(model: PreTrainedModel, batch: torch.Tensor) -> list[torch.Tensor]:
    """Hidden states ``h_0..h_L`` (``h_i`` = input of layer ``i``; ``h_L`` = last layer's output, pre-norm)."""
    parent, attr = decoder_layers(model)
    check_model_ids(model, batch, "batch")
    layers = getattr(parent, attr)
    outs: list[torch.Tensor] = []
    inputs: list[torch.Tensor] = []
    handles = [
        layer.register_forward_pre_hook(
            lambda m, a, kw: inputs.append(a[0] if a else kw["hidden_states"]), with_kwargs=True
        )
        for layer in layers[:1]
    ]
    handles += [
        layer.register_forward_hook(lambda m, a, o: outs.append(o[0] if isinstance(o, tuple) else o))
        for layer in layers
    ]
    try:
        model(input_ids=batch.to(model.device), use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return inputs[:1] + outs


def block_influence(model: PreTrainedModel, batch: torch.Tensor, group_len: int) -> torch.Tensor:
    """``1 - mean cos(h_s, h_{s+G})`` for every start ``s`` in ``0..L-G`` on the calibration ``batch``."""
    hs = group_activations(model, batch)
    check_group(len(hs) - 1, 0, group_len, min_len=1)
    scores = [
        1 - torch.nn.functional.cosine_similarity(hs[s], hs[s + group_len], dim=-1).mean()
        for s in range(len(hs) - group_len)
    ]
    return torch.stack(scores)


def drop_group(model: PreTrainedModel, start: int, group_len: int) -> tuple[PreTrainedModel, nn.Module, int]:
    """Delete the group; return the model, the layer to fine-tune next to the gap, and the dense layer index
    whose output that layer should reproduce (``start + G`` after the gap, else ``start - 1`` before it)."""
    n_layers = len(getattr(*decoder_layers(model)))
    pruned = replace_group(model, start, group_len, None)
    layers = getattr(*decoder_layers(pruned))
    if start + group_len < n_layers:
        return pruned, layers[start], start + group_len
    if start == 0:
        raise ValueError("start, group_len: dropping every layer leaves nothing to fine-tune")
    return pruned, layers[start - 1], start + group_len - 1


def single_layer_replacement(
    model: PreTrainedModel, start: int, group_len: int
) -> tuple[PreTrainedModel, nn.Module]:
    """The group replaced by one copy of layer ``start``; return the model and that layer."""
    check_group(len(getattr(*decoder_layers(model))), start, group_len, min_len=1)
    layer = copy.deepcopy(getattr(*decoder_layers(model))[start])
    return replace_group(model, start, group_len, layer), layer


class LinearGroup(nn.Module):
    """``y = x T + c``: a decoder-layer stand-in without attention (ignores every other argument)."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor) -> None:
        super().__init__()
        check_tensor("weight", weight, ndim=2, floating=True)
        check_tensor("bias", bias, floating=True, shape=(weight.shape[1],))
        self.weight = nn.Parameter(weight)
        self.bias = nn.Parameter(bias)

    def forward(self, hidden_states: torch.Tensor, *args: object, **kwargs: object) -> torch.Tensor:
        """Apply the affine map to the hidden states (..., d): position-wise, over any leading axes."""
        check_tensor("hidden_states", hidden_states, floating=True)
        if hidden_states.ndim < 1 or hidden_states.shape[-1] != self.weight.shape[0]:
            raise ValueError(
                f"hidden_states must be (..., {self.weight.shape[0]}) hidden states, "
                f"got shape {tuple(hidden_states.shape)}"
            )
        return hidden_states @ self.weight + self.bias


@torch.no_grad()
def linear_replacement(
    model: PreTrainedModel, start: int, group_len: int, calibration: torch.Tensor, ridge: float = 1e-4
) -> PreTrainedModel:
    """The group replaced by the least-squares affine map ``h_s -> h_{s+G}`` on ``calibration`` token ids."""
    n_layers = len(getattr(*decoder_layers(model)))
    check_group(n_layers, start, group_len, min_len=1)
    check_float("ridge", ridge, low=0.0)
    check_model_ids(model, calibration, "calibration")
    hs = group_activations(model, calibration)
    x = hs[start].reshape(-1, hs[start].shape[-1]).double()
    y = hs[start + group_len].reshape(-1, x.shape[-1]).double()
    x1 = torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype, device=x.device)], dim=1)
    gram = x1.T @ x1 + ridge * len(x) * torch.eye(x1.shape[1], dtype=x.dtype, device=x.device)
    sol = torch.linalg.solve(gram, x1.T @ y)
    dtype = hs[start].dtype
    return replace_group(model, start, group_len, LinearGroup(sol[:-1].to(dtype), sol[-1].to(dtype)))
