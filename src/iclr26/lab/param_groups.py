"""Parameter routing and optimizer-state accounting shared by every matrix optimizer in the project.

Matrix optimizers (RACS, Alice, COSMOS, Muon, SpectralGD) precondition 2-D *hidden* weight matrices; everything
else (embedding and positional tables, the output head, biases, norm gains) goes to an element-wise optimizer,
usually AdamW. :func:`split_param_groups` makes that split once, the same way for every paper, and
:func:`state_numel` counts the floats an optimizer keeps in its state (the memory axis of the optimizer plots).

Example
-------
>>> import torch
>>> from torch import nn
>>> model = nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 8), nn.LayerNorm(8), nn.Linear(8, 10))
>>> matrices, others = split_param_groups(model)
>>> [tuple(p.shape) for p in matrices]
[(8, 8)]
>>> opt = torch.optim.AdamW(model.parameters())
>>> state_numel(opt)  # no step taken yet
0
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn

__all__ = ["split_param_groups", "state_numel"]

_HEAD_PARTS = {"lm_head", "head", "unembed", "w_u", "output", "classifier"}


def _output_head_params(model: nn.Module) -> set[int]:
    """Ids of the parameters of the model's last Linear layer (the output head)."""
    last: nn.Module | None = None
    for module in model.modules():
        if isinstance(module, nn.Linear):
            last = module
    if last is None:
        return set()
    return {id(p) for p in last.parameters(recurse=False)}


def split_param_groups(
    model: nn.Module, *, exclude_head: bool = True
) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    """Split ``model``'s trainable parameters into ``(hidden 2-D matrices, everything else)``.

    A parameter is a hidden matrix when it is 2-D and belongs neither to an :class:`~torch.nn.Embedding` (nor
    another lookup table such as a positional table whose name ends in ``pos``/``wpe``/``wte``) nor, when
    ``exclude_head`` is true, to the output head: the model's last :class:`~torch.nn.Linear`, or any parameter
    with a dotted-name component ``lm_head``, ``head``, ``unembed``, ``W_U``, ``output`` or ``classifier``. Weights
    tied between the embedding and the head are therefore never treated as hidden matrices. Parameters with
    ``requires_grad=False`` are left out of both lists; each parameter appears once, in model order.

    Parameters
    ----------
    model : nn.Module
        Any PyTorch model.
    exclude_head : bool
        Route the output head to the "other" list (the convention of Muon, COSMOS and RACS); set false to
        precondition it as a matrix too.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    table_ids = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters(False)}
    head_ids = _output_head_params(model) if exclude_head else set()
    matrices: list[nn.Parameter] = []
    others: list[nn.Parameter] = []
    seen: set[int] = set()
    for name, p in model.named_parameters():
        if id(p) in seen or not p.requires_grad:
            continue
        seen.add(id(p))
        leaf = name.rsplit(".", 1)[-1].lower()
        is_table = id(p) in table_ids or leaf.endswith(("pos", "wpe", "wte")) or leaf in ("w_e", "w_pos")
        parts = {part.lower() for part in name.split(".")}
        is_head = exclude_head and (id(p) in head_ids or bool(parts & _HEAD_PARTS))
        if p.ndim == 2 and not is_table and not is_head:
            matrices.append(p)
        else:
            others.append(p)
    return matrices, others


def _tensor_numel(value: object) -> int:
    if isinstance(value, torch.Tensor):
        # a scalar step counter is bookkeeping, not optimizer memory
        return 0 if value.ndim == 0 else value.numel()
    if isinstance(value, dict):
        return sum(_tensor_numel(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_tensor_numel(v) for v in value)
    return 0


def state_numel(optimizer: torch.optim.Optimizer | Iterable[torch.optim.Optimizer]) -> int:
    """Number of floats held in the optimizer's per-parameter state (0-d step counters excluded).

    Accepts one optimizer or several (e.g. Muon for the matrices plus AdamW for the rest) and sums them.
    Nested containers of tensors inside a parameter's state are counted too.
    """
    if isinstance(optimizer, torch.optim.Optimizer):
        optimizers = [optimizer]
    else:
        optimizers = list(optimizer)
        for o in optimizers:
            if not isinstance(o, torch.optim.Optimizer):
                raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(o).__name__}")
    return sum(_tensor_numel(dict(o.state)) for o in optimizers)
