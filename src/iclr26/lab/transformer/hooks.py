"""Hook points: named activations that can be read (cached) or replaced (patched) during a forward pass.

In the spirit of TransformerLens's hook points, much smaller. Every activation worth inspecting passes
through a :class:`HookPoint`, an identity ``nn.Module``; its module path (``"blocks.0.attn.hook_pattern"``)
is its name. Reading and patching use PyTorch's own forward hooks on those modules, attached only for the
duration of a call, so a model without hooks attached runs at full speed and keeps no state.

Addressing. A :class:`Site` names a kind of activation at a layer, optionally one position and one head:

================  =============================================  ==============================
kind              shape                                           hook name
================  =============================================  ==============================
``embed``         (batch, seq, d_model) token embeddings          ``hook_embed``
``pos_embed``     (seq, d_model) additive position embeddings     ``hook_pos_embed``
``resid_pre``     (batch, seq, d_model) block input               ``blocks.{l}.hook_resid_pre``
``attn_in``       (batch, seq, d_model) normalised mixer input    ``blocks.{l}.hook_attn_in``
``q``/``k``/``v`` (batch, seq, heads, d_head)                     ``blocks.{l}.attn.hook_q`` ...
``scores``        (batch, heads, query, key) pre-softmax          ``blocks.{l}.attn.hook_scores``
``pattern``       (batch, heads, query, key) softmax weights      ``blocks.{l}.attn.hook_pattern``
``z``             (batch, seq, heads, d_head) weighted values     ``blocks.{l}.attn.hook_z``
``result``        (batch, seq, heads, d_model) per-head output    ``blocks.{l}.attn.hook_result``
``attn_out``      (batch, seq, d_model) mixer output              ``blocks.{l}.hook_attn_out``
``resid_mid``     (batch, seq, d_model) after the mixer residual  ``blocks.{l}.hook_resid_mid``
``mlp_in``        (batch, seq, d_model) normalised FFN input      ``blocks.{l}.hook_mlp_in``
``mlp_out``       (batch, seq, d_model) FFN output                ``blocks.{l}.hook_mlp_out``
``resid_post``    (batch, seq, d_model) block output              ``blocks.{l}.hook_resid_post``
``resid_final``   (batch, seq, d_model) after the final norm      ``hook_resid_final``
================  =============================================  ==============================

``pos`` indexes the sequence axis (the *query* axis for ``scores``/``pattern``) and ``head`` the head axis.
A custom mixer or FFN may add its own hook points; they are addressed by their full module path.

Example
-------
>>> import torch
>>> from iclr26.lab.transformer import Site, Transformer
>>> model = Transformer(vocab_size=10, seq_len=6, d_model=16, n_layers=2, n_heads=2, init_seed=0)
>>> tokens = torch.randint(0, 10, (3, 6), generator=torch.Generator().manual_seed(0))
>>> logits, cache = model.run_with_cache(tokens, [Site("pattern", 0), Site("resid_post", 1)])
>>> cache["blocks.0.attn.hook_pattern"].shape
torch.Size([3, 2, 6, 6])
>>> patched = model.run_with_hooks(tokens, replace={Site("resid_post", 1, pos=2): torch.zeros(16)})
>>> bool(torch.equal(patched[:, :2], logits[:, :2]))
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

import torch
from torch import Tensor, nn

__all__ = ["HookPoint", "HookedModule", "Site", "SiteLike"]

# kind -> (hook path relative to the block, or to the model when the kind has no layer; axis layout)
_KINDS: dict[str, tuple[str, str]] = {
    "embed": ("hook_embed", "bsd"),
    "pos_embed": ("hook_pos_embed", "sd"),
    "resid_final": ("hook_resid_final", "bsd"),
    "resid_pre": ("hook_resid_pre", "bsd"),
    "attn_in": ("hook_attn_in", "bsd"),
    "q": ("attn.hook_q", "bshd"),
    "k": ("attn.hook_k", "bshd"),
    "v": ("attn.hook_v", "bshd"),
    "scores": ("attn.hook_scores", "bhqk"),
    "pattern": ("attn.hook_pattern", "bhqk"),
    "z": ("attn.hook_z", "bshd"),
    "result": ("attn.hook_result", "bshd"),
    "attn_out": ("hook_attn_out", "bsd"),
    "resid_mid": ("hook_resid_mid", "bsd"),
    "mlp_in": ("hook_mlp_in", "bsd"),
    "mlp_out": ("hook_mlp_out", "bsd"),
    "resid_post": ("hook_resid_post", "bsd"),
}
_MODEL_LEVEL = ("embed", "pos_embed", "resid_final")

Index = int | slice | None


class HookPoint(nn.Module):
    """An identity module marking a named activation; hooks attached to it may read or replace the value."""

    def forward(self, x: Tensor) -> Tensor:
        return x

    @property
    def has_hooks(self) -> bool:
        """Whether a forward hook is attached (lets a module skip work nobody reads)."""
        return bool(self._forward_hooks)


@dataclass(frozen=True)
class Site:
    """A named activation: ``kind`` at ``layer``, optionally restricted to one position and one head.

    Parameters
    ----------
    kind : one of the kinds in the module docstring, or a full hook name (``"blocks.0.attn.hook_z"``).
    layer : block index (``None`` for model-level kinds and full names).
    pos : sequence position (query position for ``scores``/``pattern``); an int, a slice or None (all).
    head : head index for per-head kinds; an int, a slice or None (all).
    """

    kind: str
    layer: int | None = None
    pos: Index = None
    head: Index = None

    @property
    def name(self) -> str:
        """The full hook-point name this site refers to."""
        if self.kind not in _KINDS:
            return self.kind
        path, _ = _KINDS[self.kind]
        if self.kind in _MODEL_LEVEL:
            return path
        if self.layer is None:
            raise ValueError(f"site kind {self.kind!r} needs a layer index, got layer=None")
        return f"blocks.{self.layer}.{path}"

    def index(self) -> tuple[Index, ...]:
        """The indexing tuple that selects this site's slice of the activation tensor."""
        layout = _KINDS[self.kind][1] if self.kind in _KINDS else "bs"
        full = slice(None)
        pos = full if self.pos is None else self.pos
        head = full if self.head is None else self.head
        if layout == "bhqk":
            return (full, head, pos)
        if layout == "bshd":
            return (full, pos, head)
        if self.head is not None:
            raise ValueError(f"site kind {self.kind!r} has no head axis, got head={self.head!r}")
        if layout == "sd":
            return (pos,)
        return (full, pos)


SiteLike = Site | str | tuple


def as_site(site: SiteLike) -> Site:
    """Normalise a site given as a :class:`Site`, a hook name, ``(layer, pos)`` (the block's output
    ``resid_post``), or ``(kind, layer[, pos[, head]])``."""
    if isinstance(site, Site):
        return site
    if isinstance(site, str):
        return Site(site)
    if isinstance(site, tuple) and len(site) == 2 and all(isinstance(v, int) for v in site):
        return Site("resid_post", site[0], site[1])
    if isinstance(site, tuple) and 2 <= len(site) <= 4 and isinstance(site[0], str):
        return Site(*site)
    raise ValueError(
        f"site must be a Site, a hook name, (layer, pos) or (kind, layer[, pos[, head]]), got {site!r}"
    )


HookFn = Callable[[Tensor, HookPoint], Tensor | None]


class HookedModule(nn.Module):
    """Mixin giving a module with :class:`HookPoint` children a small read/patch API."""

    def hook_points(self) -> dict[str, HookPoint]:
        """All hook points of the module, by full name."""
        return {name: m for name, m in self.named_modules() if isinstance(m, HookPoint)}

    def hook_names(self) -> list[str]:
        return list(self.hook_points())

    def _hook_point(self, name: str) -> HookPoint:
        points = self.hook_points()
        if name not in points:
            raise ValueError(f"unknown hook point {name!r}; this model has: {', '.join(points)}")
        return points[name]

    @contextlib.contextmanager
    def hooks(self, fns: Mapping[str, HookFn]) -> Iterator[None]:
        """Attach ``fn(activation, hook_point) -> replacement or None`` to named hook points for a block."""
        handles = []
        try:
            for name, fn in fns.items():
                point = self._hook_point(name)
                handles.append(point.register_forward_hook(lambda mod, args, out, fn=fn: fn(out, mod)))
            yield
        finally:
            for handle in handles:
                handle.remove()

    def run_with_cache(
        self, inputs: Tensor, names: Iterable[SiteLike] | None = None, detach: bool = True
    ) -> tuple[Tensor, dict[str, Tensor]]:
        """Run ``self(inputs)`` and return ``(output, cache)``; the cache maps hook names to activations.

        ``names`` selects the hook points (sites are reduced to their hook names; all points when None).
        """
        wanted = self.hook_names() if names is None else [as_site(s).name for s in names]
        cache: dict[str, Tensor] = {}

        def save(name: str) -> HookFn:
            def fn(act: Tensor, _: HookPoint) -> None:
                cache[name] = act.detach() if detach else act

            return fn

        with self.hooks({name: save(name) for name in dict.fromkeys(wanted)}):
            out = self(inputs)
        return out, cache

    def run_with_hooks(
        self,
        inputs: Tensor,
        replace: Mapping[SiteLike, Tensor | float] | None = None,
        hooks: Mapping[str, HookFn] | None = None,
    ) -> Tensor:
        """Run ``self(inputs)`` with activation patching and/or custom hooks.

        ``replace`` maps sites to values: the site's slice of the activation is overwritten with the value
        (broadcast to the slice's shape), e.g. ``{Site("resid_post", 1, pos=3): vec}`` or the shorthand
        ``{(1, 3): vec}``. Several sites on one hook point are applied in the given order.
        """
        by_name: dict[str, list[tuple[Site, Tensor | float]]] = {}
        for raw, value in (replace or {}).items():
            site = as_site(raw)
            by_name.setdefault(site.name, []).append((site, value))

        def patch(items: list[tuple[Site, Tensor | float]]) -> HookFn:
            def fn(act: Tensor, _: HookPoint) -> Tensor:
                act = act.clone()
                for site, value in items:
                    target = act[site.index()]
                    value = torch.as_tensor(value, dtype=act.dtype, device=act.device)
                    try:
                        act[site.index()] = value.expand_as(target)
                    except RuntimeError as err:
                        raise ValueError(
                            f"replacement for {site} has shape {tuple(value.shape)}, which does not broadcast "
                            f"to the site's slice of shape {tuple(target.shape)}"
                        ) from err
                return act

            return fn

        fns = {name: patch(items) for name, items in by_name.items()}
        for name, fn in (hooks or {}).items():
            if name in fns:
                raise ValueError(f"hook point {name!r} is both patched and hooked; combine them in one hook")
            fns[name] = fn
        with self.hooks(fns):
            return self(inputs)
