"""Activation patching, path patching and per-head attribution over the lab transformer's hook points.

Generic over any :class:`iclr26.lab.transformer.Transformer` (or another :class:`HookedModule` whose
attention blocks expose ``blocks.{l}.attn.hook_z`` with layout (batch, seq, heads, d_head)).

Conventions (as in IOI-style path patching, Wang et al. 2023):

* ``clean`` and ``corrupt`` are token tensors of identical shape; the patched run is always a run of
  ``corrupt`` into which values from ``clean`` are written.
* :func:`activation_patch` overwrites the given sites with their ``clean`` values and returns
  ``metric(logits)``.
* :func:`path_patch` is the two-pass procedure: (1) run ``corrupt`` with every head's output ``z``
  frozen to its ``corrupt`` value except the sender heads, whose ``z`` (all positions) comes from ``clean``;
  MLPs and norms are recomputed; record the receiver activations. (2) run ``corrupt`` again, patching only
  the receivers with the recorded values, and return ``metric(logits)``. Only effects that travel from
  the senders to the receivers through MLPs/residual (not through other heads) survive.
* :func:`head_attribution` runs :func:`path_patch` for every single head as sender.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import torch
from torch import Tensor

from iclr26.lab.transformer.hooks import HookPoint, SiteLike, as_site

__all__ = [
    "activation_patch",
    "check_heads",
    "check_pair",
    "head_attribution",
    "n_layers_heads",
    "path_patch",
    "relative_effect",
]

Head = tuple[int, int]
Metric = Callable[[Tensor], Tensor]


def check_pair(clean: Tensor, corrupt: Tensor) -> None:
    """Clean and corrupt prompts must be integer token tensors of the same shape."""
    for name, t in (("clean", clean), ("corrupt", corrupt)):
        if not isinstance(t, Tensor) or t.dim() != 2:
            raise ValueError(
                f"{name} must be a 2-D (batch, seq) token tensor, got {type(t).__name__} "
                f"with shape {tuple(getattr(t, 'shape', ()))}"
            )
    if clean.shape[1] != corrupt.shape[1]:
        raise ValueError(
            f"clean and corrupt prompts must have the same token length, got clean length {clean.shape[1]} "
            f"and corrupt length {corrupt.shape[1]}"
        )
    if clean.shape[0] != corrupt.shape[0]:
        raise ValueError(
            f"clean and corrupt must have the same batch size, got {clean.shape[0]} and {corrupt.shape[0]}"
        )


def n_layers_heads(model) -> tuple[int, int]:
    """``(n_layers, n_heads)`` of a hooked model (read from its ``blocks.{l}.attn.hook_z`` hook points)."""
    layers = sorted({int(n.split(".")[1]) for n in model.hook_names() if n.endswith("attn.hook_z")})
    if not layers:
        raise ValueError("model has no blocks.{l}.attn.hook_z hook points")
    n_heads = model.blocks[layers[0]].attn.n_heads
    return len(layers), n_heads


def check_heads(heads: Iterable[Head], n_layers: int, n_heads: int) -> list[Head]:
    """``heads`` as a list of ``(layer, head)`` int pairs, each in range; a clear error names any that is not."""
    out = []
    for h in heads:
        if (
            not isinstance(h, tuple)
            or len(h) != 2
            or not all(isinstance(v, int) for v in h)
            or not (0 <= h[0] < n_layers and 0 <= h[1] < n_heads)
        ):
            raise ValueError(
                f"head must be (layer, head) with 0 <= layer < {n_layers}, 0 <= head < {n_heads}, got {h!r}"
            )
        out.append(h)
    return out


@torch.no_grad()
def activation_patch(
    model, clean: Tensor, corrupt: Tensor, sites: Sequence[SiteLike], metric: Metric
) -> Tensor:
    """Run ``corrupt`` with each site overwritten by its value in the ``clean`` run; return ``metric(logits)``."""
    check_pair(clean, corrupt)
    sites = [as_site(s) for s in sites]
    _, cache = model.run_with_cache(clean, sites)
    replace = {s: cache[s.name][s.index()] for s in sites}
    return metric(model.run_with_hooks(corrupt, replace=replace))


@torch.no_grad()
def path_patch(
    model,
    clean: Tensor,
    corrupt: Tensor,
    senders: Iterable[Head],
    receivers: Sequence[SiteLike],
    metric: Metric,
) -> Tensor:
    """IOI-style path patching from sender heads (their ``z`` taken from ``clean``) to receiver sites.

    ``senders``: (layer, head) pairs; ``receivers``: sites such as ``Site("resid_final")`` or
    ``Site("v", layer, head=h)`` (the value input of a receiver head). Returns ``metric(logits)`` of the
    second pass (``corrupt`` with only the receivers patched).
    """
    check_pair(clean, corrupt)
    n_layers, n_heads = n_layers_heads(model)
    senders = check_heads(senders, n_layers, n_heads)
    receivers = [as_site(r) for r in receivers]
    if not receivers:
        raise ValueError("receivers must name at least one site, got none")
    z_names = [f"blocks.{l}.attn.hook_z" for l in range(n_layers)]
    for r in receivers:
        if r.name in z_names:
            raise ValueError(
                f"receiver {r} is a head output (hook_z), which pass 1 freezes; use q/k/v or "
                "residual sites as receivers"
            )
    _, z_clean = model.run_with_cache(clean, z_names)
    _, z_corr = model.run_with_cache(corrupt, z_names)
    frozen = {}
    for l, name in enumerate(z_names):
        z = z_corr[name].clone()
        for sl, sh in senders:
            if sl == l:
                z[:, :, sh] = z_clean[name][:, :, sh]
        frozen[name] = z
    recorded: dict[str, Tensor] = {}

    def freeze(name: str):
        return lambda act, _: frozen[name]

    def record(name: str):
        def fn(act: Tensor, _: HookPoint) -> None:
            recorded[name] = act.detach()

        return fn

    fns = {name: freeze(name) for name in z_names}
    for r in dict.fromkeys(r.name for r in receivers):
        fns[r] = record(r)
    with model.hooks(fns):
        model(corrupt)
    replace = {r: recorded[r.name][r.index()] for r in receivers}
    return metric(model.run_with_hooks(corrupt, replace=replace))


@torch.no_grad()
def head_attribution(
    model, clean: Tensor, corrupt: Tensor, receivers: Sequence[SiteLike], metric: Metric
) -> Tensor:
    """``path_patch`` with each single head as sender: a (n_layers, n_heads) tensor of metric values
    (the metric must return a scalar)."""
    n_layers, n_heads = n_layers_heads(model)
    out = torch.zeros(n_layers, n_heads)
    for l in range(n_layers):
        for h in range(n_heads):
            out[l, h] = path_patch(model, clean, corrupt, [(l, h)], receivers, metric).float()
    return out


def relative_effect(
    patched: Tensor | float, corrupt_value: Tensor | float, clean_value: Tensor | float
) -> Tensor:
    """r = (F_patched - F_corrupt) / (F_corrupt - F_clean); -1 means the component carries the whole effect.

    (With F = logit(y_clean) - logit(y_corrupt) this is the function-induction paper's relative effect.)
    """
    patched, c, b = (torch.as_tensor(v, dtype=torch.float64) for v in (patched, corrupt_value, clean_value))
    denom = c - b
    if torch.any(denom == 0):
        raise ValueError(
            "relative_effect: corrupt and clean metric values are equal, the effect is undefined"
        )
    return (patched - c) / denom
