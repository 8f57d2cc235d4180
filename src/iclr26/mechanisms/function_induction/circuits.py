"""Circuit discovery for function induction: path patching, head ablation and the naive-prompt read-out.

Conventions of the paper and its official code (``clean`` = the base prompt ``x_base``, ``corrupt`` = the contrast
prompt ``x_cont``; the patched run is always a run of ``x_cont``):

    F(logits) = logit(y_base) - logit(y_cont)   at the final position, per prompt
    r = (mean F_patched - mean F_cont) / (mean F_cont - mean F_base)      (-1: the component carries the whole +1)

* :func:`path_patch` / :func:`activation_patch`: the shared IOI-style tools of :mod:`iclr26.lab.patching` under the
  brief's names (``sender`` may be one ``(layer, head)`` or several).
* :func:`path_patch_scan`: every head as the sender for one receiver set, with the head outputs of both prompts
  computed once (the fast form of looping :func:`path_patch`, which it equals).
* :func:`ablate_heads`: a run with chosen heads' outputs ``z`` (all positions) replaced by their values on a source
  prompt (the base-task version of the same prompt, as the official code does) or by their mean over a batch.
* :func:`naive_logit_effect`: the function-vector-style read-out of the parallel pieces: a head's mean output at
  the final position of the contrast prompts is added to the residual stream of naive identity prompts
  (``x = x ; ... ; y =``) and the change of the number logits is returned.
* :func:`induction_scores`: the standard repeated-random-token induction score per head.
* :class:`TransformerLensAdapter`: runs the same functions on a TransformerLens ``HookedTransformer``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_array, check_int, check_tensor, check_token_ids
from iclr26.lab import patching as _lab
from iclr26.lab.patching import check_pair
from iclr26.lab.transformer.hooks import HookedModule, SiteLike, as_site

__all__ = [
    "TransformerLensAdapter",
    "ablate_heads",
    "activation_patch",
    "bootstrap_relative_effect",
    "induction_scores",
    "logit_diff",
    "n_layers_heads",
    "naive_logit_effect",
    "offset_profile",
    "path_patch",
    "path_patch_scan",
    "random_heads",
    "relative_effect",
]

Head = tuple[int, int]
Metric = Callable[[Tensor], Tensor]


def _ids(name: str, y: Tensor | Sequence[int]) -> Tensor:
    """Answer or token ids as an integer tensor (an integer array-like converts)."""
    if isinstance(y, Tensor):
        return check_tensor(name, y, floating=False)
    return torch.as_tensor(check_array(name, y, integer=True))


def _values(name: str, v: Tensor | float, *, finite: bool = False) -> Tensor:
    """Metric values as a float64 tensor (a float, an array or a floating-point tensor)."""
    if isinstance(v, Tensor):
        check_tensor(name, v, floating=True, finite=finite)
    else:
        v = check_array(name, v, finite=finite)
    return torch.as_tensor(v, dtype=torch.float64)


def _check_prompt_ids(model, name: str, tokens: Tensor) -> None:
    """`tokens` must be a (batch, seq) integer tensor of ids below the model's vocabulary size (when it has one)."""
    check_tensor(name, tokens, ndim=2, floating=False)
    vocab = getattr(model, "vocab_size", None)
    if isinstance(vocab, int):
        check_token_ids(name, tokens, vocab)


def logit_diff(y_base: Tensor, y_cont: Tensor, pos: int = -1) -> Metric:
    """The metric ``F = logit(y_base) - logit(y_cont)`` at position ``pos``, one value per prompt."""
    y_base, y_cont = _ids("y_base", y_base), _ids("y_cont", y_cont)
    if y_base.dim() != 1 or y_base.shape != y_cont.shape:
        raise ValueError(
            f"y_base and y_cont must be 1-D answer ids of the same length, got shapes {tuple(y_base.shape)} "
            f"and {tuple(y_cont.shape)}"
        )

    def metric(logits: Tensor) -> Tensor:
        if logits.dim() != 3 or logits.shape[0] != y_base.shape[0]:
            raise ValueError(
                f"logits must be (batch={y_base.shape[0]}, seq, vocab), got {tuple(logits.shape)}"
            )
        check_token_ids("y_base", y_base, logits.shape[-1])
        check_token_ids("y_cont", y_cont, logits.shape[-1])
        last = logits[:, pos]
        idx = torch.arange(last.shape[0], device=last.device)
        return last[idx, y_base.to(last.device)] - last[idx, y_cont.to(last.device)]

    return metric


def n_layers_heads(model) -> tuple[int, int]:
    """(number of attention layers, heads per layer) of a model with ``blocks.{l}.attn.hook_z`` hook points."""
    return _lab.n_layers_heads(model)


def _senders(sender) -> list[Head]:
    if isinstance(sender, tuple) and len(sender) == 2 and all(isinstance(v, int) for v in sender):
        return [sender]
    if isinstance(sender, Iterable) and not isinstance(sender, (str, bytes)):
        return list(sender)
    raise ValueError(f"sender must be a (layer, head) pair or an iterable of them, got {sender!r}")


def path_patch(model, clean: Tensor, corrupt: Tensor, sender, receivers: Sequence[SiteLike], metric: Metric):
    """Path patching from ``sender`` (one ``(layer, head)`` or several; outputs at all positions from ``clean``)
    to ``receivers`` (e.g. ``Site("resid_final", pos=-1)`` or ``Site("v", l, head=h)``); returns ``metric`` of
    the run of ``corrupt`` with only the receivers patched. See :func:`iclr26.lab.patching.path_patch`."""
    check_pair(clean, corrupt)
    _check_prompt_ids(model, "clean", clean)
    _check_prompt_ids(model, "corrupt", corrupt)
    return _lab.path_patch(model, clean, corrupt, _senders(sender), receivers, metric)


def activation_patch(model, clean: Tensor, corrupt: Tensor, sites: Sequence[SiteLike], metric: Metric):
    """Run ``corrupt`` with each site overwritten by its ``clean`` value; return ``metric(logits)``."""
    check_pair(clean, corrupt)
    _check_prompt_ids(model, "clean", clean)
    _check_prompt_ids(model, "corrupt", corrupt)
    return _lab.activation_patch(model, clean, corrupt, sites, metric)


def _z_names(model) -> list[str]:
    n_layers, _ = n_layers_heads(model)
    return [f"blocks.{l}.attn.hook_z" for l in range(n_layers)]


@torch.no_grad()
def path_patch_scan(
    model,
    clean: Tensor,
    corrupt: Tensor,
    receivers: Sequence[SiteLike],
    metric: Metric,
    senders: Iterable[Head] | None = None,
) -> Tensor:
    """:func:`path_patch` with each head of ``senders`` (all heads when None) as the only sender.

    Returns a tensor ``(n_layers, n_heads, *metric_shape)``; heads not in ``senders`` are NaN. The head outputs
    of ``clean`` and ``corrupt`` are computed once for all senders.
    """
    check_pair(clean, corrupt)
    _check_prompt_ids(model, "clean", clean)
    _check_prompt_ids(model, "corrupt", corrupt)
    n_layers, n_heads = n_layers_heads(model)
    heads = (
        [(l, h) for l in range(n_layers) for h in range(n_heads)]
        if senders is None
        else _lab.check_heads(senders, n_layers, n_heads)
    )
    receivers = [as_site(r) for r in receivers]
    if not receivers:
        raise ValueError("receivers must name at least one site, got none")
    z_names = _z_names(model)
    for r in receivers:
        if r.name in z_names:
            raise ValueError(
                f"receiver {r} is a head output (hook_z), which pass 1 freezes; use q/k/v or resid"
            )
    _, z_clean = model.run_with_cache(clean, z_names)
    _, z_corr = model.run_with_cache(corrupt, z_names)
    out: Tensor | None = None
    for sl, sh in heads:
        recorded: dict[str, Tensor] = {}

        def freeze(l: int, sl=sl, sh=sh):
            def fn(act: Tensor, _) -> Tensor:
                z = z_corr[z_names[l]]
                if l == sl:
                    z = z.clone()
                    z[:, :, sh] = z_clean[z_names[l]][:, :, sh]
                return z

            return fn

        def record(name: str, recorded=recorded):
            def fn(act: Tensor, _) -> None:
                recorded[name] = act.detach()

            return fn

        fns = {name: freeze(l) for l, name in enumerate(z_names)}
        for r in dict.fromkeys(r.name for r in receivers):
            fns[r] = record(r)
        with model.hooks(fns):
            model(corrupt)
        replace = {r: recorded[r.name][r.index()] for r in receivers}
        value = torch.as_tensor(metric(model.run_with_hooks(corrupt, replace=replace))).float().cpu()
        if out is None:
            out = torch.full((n_layers, n_heads, *value.shape), float("nan"))
        out[sl, sh] = value
    if out is None:  # no senders: every entry NaN, shaped like the metric
        shape = torch.as_tensor(metric(model(corrupt))).shape
        out = torch.full((n_layers, n_heads, *shape), float("nan"))
    return out


def relative_effect(
    patched: Tensor | float, corrupt_value: Tensor | float, clean_value: Tensor | float
) -> Tensor:
    """r = (F_patched - F_corrupt) / (F_corrupt - F_clean); -1 means the component carries the whole effect.

    The three values broadcast together (floats, arrays or floating-point tensors); a NaN ``patched`` (an empty
    sender set) propagates, while the two reference values must be finite. See
    :func:`iclr26.lab.patching.relative_effect`.
    """
    patched = _values("patched", patched)
    corrupt_value = _values("corrupt_value", corrupt_value, finite=True)
    clean_value = _values("clean_value", clean_value, finite=True)
    try:
        torch.broadcast_shapes(patched.shape, corrupt_value.shape, clean_value.shape)
    except RuntimeError:
        raise ValueError(
            f"patched, corrupt_value and clean_value must broadcast together, got shapes {tuple(patched.shape)}, "
            f"{tuple(corrupt_value.shape)} and {tuple(clean_value.shape)}"
        ) from None
    return _lab.relative_effect(patched, corrupt_value, clean_value)


def bootstrap_relative_effect(
    f_patched: Tensor, f_cont: Tensor, f_base: Tensor, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[Tensor, Tensor, Tensor]:
    """Relative effect ``r`` of per-prompt metric values (last axis = prompts; leading axes e.g. heads) and a
    percentile bootstrap interval over prompts: returns ``(r, lo, hi)``."""
    f_patched = _values("f_patched", f_patched)  # NaN (an empty sender set) propagates
    f_cont, f_base = _values("f_cont", f_cont, finite=True), _values("f_base", f_base, finite=True)
    n = f_cont.shape[-1] if f_cont.ndim else 0
    if f_cont.shape != (n,) or f_base.shape != (n,) or f_patched.ndim < 1 or f_patched.shape[-1] != n:
        raise ValueError(
            f"f_cont and f_base must be (n_prompts,) and f_patched (..., n_prompts); got {tuple(f_patched.shape)}, "
            f"{tuple(f_cont.shape)}, {tuple(f_base.shape)}"
        )
    check_int("n_boot", n_boot, low=1)
    r = relative_effect(f_patched.mean(-1), f_cont.mean(), f_base.mean())
    g = torch.Generator().manual_seed(int(seed))
    idx = torch.randint(0, n, (n_boot, n), generator=g)
    fp = f_patched[..., idx].mean(-1)  # (..., n_boot)
    fc, fb = f_cont[idx].mean(-1), f_base[idx].mean(-1)
    rb = (fp - fc) / (fc - fb)
    a = (1 - level) / 2
    lo, hi = torch.nanquantile(rb, a, dim=-1), torch.nanquantile(rb, 1 - a, dim=-1)
    return r.float(), lo.float(), hi.float()


@torch.no_grad()
def ablate_heads(
    model,
    tokens: Tensor,
    heads: Iterable[Head],
    source: Tensor | str = "mean",
    positions: slice | None = None,
) -> Tensor:
    """Logits of ``tokens`` with the given heads' outputs ``z`` replaced.

    ``source``: a token tensor of the same shape (the heads' values on that prompt, e.g. the base-task version of
    the same prompt, as the official code does), or ``"mean"`` (their mean over the batch at each position).
    ``positions``: the sequence positions to replace (all when None).
    """
    n_layers, n_heads = n_layers_heads(model)
    heads = _lab.check_heads(list(heads), n_layers, n_heads)
    if isinstance(source, str):
        if source != "mean":
            raise ValueError(f"source must be a token tensor or 'mean', got {source!r}")
        src_tokens = tokens
    else:
        check_pair(source, tokens)
        src_tokens = source
    if not heads:
        return model(tokens)
    z_names = _z_names(model)
    _, cache = model.run_with_cache(src_tokens, [z_names[l] for l, _ in heads])
    pos = slice(None) if positions is None else positions
    by_layer: dict[int, list[int]] = {}
    for l, h in heads:
        by_layer.setdefault(l, []).append(h)

    def fn(l: int):
        def hook(act: Tensor, _) -> Tensor:
            src = cache[z_names[l]]
            if isinstance(source, str):
                src = src.mean(0, keepdim=True).expand_as(src)
            act = act.clone()
            for h in by_layer[l]:
                act[:, pos, h] = src[:, pos, h]
            return act

        return hook

    with model.hooks({z_names[l]: fn(l) for l in by_layer}):
        return model(tokens)


@torch.no_grad()
def naive_logit_effect(
    model: nn.Module, head: Head, source: Tensor, naive: Sequence[Tensor], numbers: int = 10
) -> Tensor:
    """Change of the number logits when ``head``'s mean output at the final position of ``source`` (contrast
    prompts) is added to the residual stream at the final position of naive prompts.

    ``naive[y]`` is a batch of naive prompts whose query is ``y``; returns ``(len(naive), numbers)``: the mean change
    of the logits of tokens ``0..numbers-1`` (rows: query, columns: output number).
    """
    n_layers, n_heads = n_layers_heads(model)
    ((l, h),) = _lab.check_heads([head], n_layers, n_heads)
    check_int("numbers", numbers, low=1)
    _check_prompt_ids(model, "source", source)
    name = f"blocks.{l}.attn.hook_result"
    _, cache = model.run_with_cache(source, [name])
    vec = cache[name][:, -1, h].mean(0)  # (d_model,)
    out_name = f"blocks.{l}.hook_attn_out"
    rows = []
    for tokens in naive:
        base = model(tokens)[:, -1, :numbers]

        def add(act: Tensor, _) -> Tensor:
            act = act.clone()
            act[:, -1] = act[:, -1] + vec
            return act

        with model.hooks({out_name: add}):
            patched = model(tokens)[:, -1, :numbers]
        rows.append((patched - base).mean(0))
    return torch.stack(rows)


def offset_profile(heat: Tensor, offsets: Sequence[int] = (-3, -2, -1, 0, 1, 2, 3)) -> Tensor:
    """Mean of ``heat[y, y + o]`` over the queries ``y`` for which ``y + o`` is a column: how much a head pushes
    each offset ``o`` in the naive-prompt read-out."""
    heat = _values("heat", heat)
    if heat.dim() != 2:
        raise ValueError(f"heat must be a 2-D (query, output) tensor, got shape {tuple(heat.shape)}")
    out = []
    for o in offsets:
        vals = [heat[y, y + o] for y in range(heat.shape[0]) if 0 <= y + o < heat.shape[1]]
        out.append(torch.stack(vals).mean() if vals else torch.tensor(float("nan"), dtype=torch.float64))
    return torch.stack(out)


@torch.no_grad()
def induction_scores(model, tokens: Tensor) -> Tensor:
    """Standard induction score per head: mean attention from position ``i`` of the second repeat of
    ``BOS r r`` (``r`` of length ``half``) to the token after ``i``'s earlier copy, ``i - half + 1``.
    Returns ``(n_layers, n_heads)``."""
    if not isinstance(tokens, Tensor) or tokens.dim() != 2 or tokens.shape[1] % 2 != 1 or tokens.shape[1] < 3:
        raise ValueError(
            f"tokens must be (batch, 1 + 2 * half) repeated-sequence prompts, got {tuple(getattr(tokens, 'shape', ()))}"
        )
    half = (tokens.shape[1] - 1) // 2
    n_layers, n_heads = n_layers_heads(model)
    names = [f"blocks.{l}.attn.hook_pattern" for l in range(n_layers)]
    _, cache = model.run_with_cache(tokens, names)
    q = torch.arange(half + 1, 2 * half + 1)
    k = q - half + 1
    out = torch.zeros(n_layers, n_heads)
    for l, name in enumerate(names):
        out[l] = cache[name][:, :, q, k].mean((0, 2))
    return out


class TransformerLensAdapter(HookedModule):
    """Wrap a TransformerLens ``HookedTransformer`` so that the functions of this module run on it.

    TransformerLens names its hook points as the lab transformer does (``blocks.{l}.attn.hook_z``,
    ``blocks.{l}.attn.hook_v``, ``blocks.{l}.hook_attn_out``, ...); the adapter maps :meth:`hooks` onto
    ``model.hooks(fwd_hooks=...)`` and exposes ``blocks[l].attn.n_heads``. Final-residual sites use
    ``ln_final.hook_normalized``. Grouped-query models need ``model.set_ungroup_grouped_query_attention(True)``.
    """

    _ALIASES = {"hook_resid_final": "ln_final.hook_normalized"}

    def __init__(self, tl_model) -> None:
        super().__init__()
        for attr in ("hook_dict", "hooks", "cfg"):
            if not hasattr(tl_model, attr):
                raise TypeError(
                    f"tl_model must be a TransformerLens HookedTransformer (it lacks {attr!r}), got "
                    f"{type(tl_model).__name__}"
                )
        self.tl = tl_model
        n_heads = int(tl_model.cfg.n_heads)

        class _Attn:
            def __init__(self) -> None:
                self.n_heads = n_heads

        class _Block:
            def __init__(self) -> None:
                self.attn = _Attn()

        self._blocks = [_Block() for _ in range(int(tl_model.cfg.n_layers))]

    @property
    def blocks(self):  # type: ignore[override]
        return self._blocks

    def _name(self, name: str) -> str:
        return self._ALIASES.get(name, name)

    def hook_names(self) -> list[str]:
        names = list(self.tl.hook_dict)
        return names + [a for a, b in self._ALIASES.items() if b in self.tl.hook_dict]

    @contextlib.contextmanager
    def hooks(self, fns: Mapping[str, Callable]) -> Iterator[None]:
        known = set(self.hook_names())
        for name in fns:
            if name not in known:
                raise ValueError(f"unknown hook point {name!r} in the TransformerLens model")
        fwd = [(self._name(n), lambda act, hook, fn=fn: fn(act, hook)) for n, fn in fns.items()]
        with self.tl.hooks(fwd_hooks=fwd):
            yield

    def forward(self, tokens: Tensor) -> Tensor:
        return self.tl(tokens)


def random_heads(n_layers: int, n_heads: int, k: int, rng: np.random.Generator, exclude=()) -> list[Head]:
    """``k`` distinct heads drawn uniformly (without the excluded ones)."""
    pool = [(l, h) for l in range(n_layers) for h in range(n_heads) if (l, h) not in set(exclude)]
    check_int("k", k, low=0, high=len(pool))
    idx = rng.choice(len(pool), size=k, replace=False)
    return [pool[int(i)] for i in idx]
