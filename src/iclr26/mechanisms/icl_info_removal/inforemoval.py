"""Task-oriented information removal: low-rank filter, hidden-state metrics, denoising-head scan (arXiv 2509.21012).

Low-rank filter at (layer l, query position), with U in R^{d x r} orthonormal (r << d):

    h' = h_mean + U U^T (h - h_mean)                                  (keep the task subspace, reset the rest)

and the forward pass continues from layer l with h'. U is learned per task by minimising the cross-entropy of
the intended label on zero-shot queries with the model frozen (Stiefel constraint through
``torch.nn.utils.parametrizations.orthogonal``). Metrics (library choices):

    selectivity      = p(intended label set) / p(all tasks' label sets)
    off-subspace     = ||(I - U U^T)(h - m)||^2 / ||h - m||^2          (lower = more task-irrelevant info removed)
    alignment        = cos(h_fewshot - m_fewshot, U U^T (h_zero - h_mean))

A head's effect is measured by mean-ablating its output ``z_h W_O[h]`` at the query position (replacing it with
its mean over the scanned prompts) or zero-ablating it; the heads whose ablation lowers selectivity most are the
denoising heads.

Example
-------
>>> filt = LowRankFilter(8, 8, init_seed=0)
>>> h = torch.randn(3, 8)
>>> bool(torch.allclose(filt(h), h, atol=1e-5))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils import parametrizations

from iclr26.checks import check_array, check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.transformer import Site, Transformer
from iclr26.mechanisms.icl_info_removal.task import ICLBatch

__all__ = [
    "HeadScan",
    "LowRankFilter",
    "alignment",
    "head_means",
    "head_scan",
    "hidden_states",
    "learn_filter",
    "metrics",
    "off_subspace_ratio",
    "pca_filter",
    "random_filter",
    "run_ablated",
    "run_filtered",
    "selectivity",
]

ABLATIONS = ("mean", "zero")


def _check_rank(d: int, r: int) -> None:
    check_int("d", d, low=1)
    check_int("rank r (at most d)", r, low=1, high=d)


class LowRankFilter(nn.Module):
    """h' = h_mean + U U^T (h - h_mean) with U (d, r) kept orthonormal by an orthogonal parametrisation.

    Parameters
    ----------
    d : hidden width.
    r : rank of the kept subspace, 1 <= r <= d.
    h_mean : (d,) centre of the filter (zeros when None).
    init_seed : seed of the random initial U (global RNG when None).

    Insert it into a model with :meth:`hook` (a hook function for ``HookedModule.hooks``) or
    :func:`run_filtered`.
    """

    def __init__(self, d: int, r: int, h_mean: Tensor | None = None, init_seed: int | None = None) -> None:
        super().__init__()
        _check_rank(d, r)
        if init_seed is not None:
            check_int("init_seed", init_seed, low=0)
        self.d, self.r = d, r
        if isinstance(h_mean, Tensor):
            check_tensor("h_mean", h_mean, floating=True)
        elif h_mean is not None:
            h_mean = check_array("h_mean", h_mean)
        gen = torch.Generator().manual_seed(init_seed) if init_seed is not None else None
        basis = nn.Linear(r, d, bias=False)
        with torch.no_grad():
            basis.weight.copy_(torch.randn(d, r, generator=gen))
        self.basis = parametrizations.orthogonal(basis)
        mean = (
            torch.zeros(d)
            if h_mean is None
            else torch.as_tensor(h_mean, dtype=torch.float32).detach().clone()
        )
        if mean.shape != (d,):
            raise ValueError(f"h_mean must have shape ({d},), got {tuple(mean.shape)}")
        if not bool(torch.isfinite(mean).all()):
            raise ValueError("h_mean must be finite, but holds NaN or infinite values")
        self.register_buffer("h_mean", mean)
        self.to(mean.device)  # the filter lives where its centre does (U is drawn on the CPU first)

    @property
    def U(self) -> Tensor:
        """The (d, r) orthonormal basis of the kept subspace."""
        return self.basis.weight

    def set_basis(self, U: Tensor) -> LowRankFilter:
        """Set U to a given (d, r) matrix with orthonormal columns (returns self)."""
        U = torch.as_tensor(U, dtype=torch.float32, device=self.h_mean.device)
        if U.shape != (self.d, self.r):
            raise ValueError(f"U must have shape ({self.d}, {self.r}), got {tuple(U.shape)}")
        if not torch.allclose(U.T @ U, torch.eye(self.r, device=U.device), atol=1e-4):
            raise ValueError("U must have orthonormal columns (U^T U = I)")
        with torch.no_grad():
            self.basis.weight = U
        return self

    def forward(self, h: Tensor) -> Tensor:
        """Filter hidden states (..., d)."""
        check_tensor("h", h, floating=True)
        if h.ndim < 1 or h.shape[-1] != self.d:
            raise ValueError(f"h must have last dimension {self.d}, got shape {tuple(h.shape)}")
        U = self.U
        c = h - self.h_mean
        return self.h_mean + (c @ U) @ U.T

    def hook(self, pos: int = -1):
        """A hook function replacing position `pos` of a (batch, seq, d) activation by its filtered value."""

        def fn(act: Tensor, _: object) -> Tensor:
            out = act.clone()
            out[:, pos] = self(act[:, pos])
            return out

        return fn


def _check_pos(tokens: Tensor, pos: int) -> int:
    """`pos` as a valid (possibly negative) index into the sequence axis of (n, seq) `tokens`."""
    check_tensor("tokens", tokens, ndim=2, floating=False)
    seq = tokens.shape[1]
    return check_int("pos", pos, -seq, seq - 1)


def run_filtered(
    model: Transformer, tokens: Tensor, layer: int, filt: LowRankFilter, pos: int = -1
) -> Tensor:
    """Logits with the filter applied to the residual stream entering block `layer` at position `pos`."""
    check_int("layer", layer, 0, model.n_layers - 1)
    if not isinstance(filt, LowRankFilter):
        raise TypeError(f"filt must be a LowRankFilter, got {type(filt).__name__}")
    _check_pos(tokens, pos)
    with model.hooks({Site("resid_pre", layer).name: filt.hook(pos)}):
        return model(tokens)


def hidden_states(model: Transformer, tokens: Tensor, layer: int, pos: int = -1) -> tuple[Tensor, Tensor]:
    """(logits at `pos` (n, vocab), residual stream entering block `layer` at `pos` (n, d))."""
    check_int("layer", layer, 0, model.n_layers - 1)
    _check_pos(tokens, pos)
    site = Site("resid_pre", layer)
    with torch.no_grad():
        logits, cache = model.run_with_cache(tokens, [site])
    return logits[:, pos], cache[site.name][:, pos]


@torch.enable_grad()  # it trains: also inside a caller's torch.no_grad()
def learn_filter(
    model: Transformer,
    tokens: Tensor,
    targets: Tensor,
    layer: int,
    r: int,
    h_mean: Tensor,
    steps: int = 200,
    lr: float = 0.05,
    seed: int = 0,
) -> LowRankFilter:
    """Learn U (rank r) minimising the cross-entropy of `targets` at the last position, model frozen."""
    check_int("layer", layer, 0, model.n_layers - 1)
    check_int("steps", steps, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("seed", seed, low=0)
    check_tensor("tokens", tokens, ndim=2, floating=False)
    check_tensor("targets", targets, floating=False, shape=(tokens.shape[0],))
    check_token_ids("targets", targets, model.vocab_size)
    filt = LowRankFilter(model.d_model, r, h_mean, init_seed=seed)
    frozen = [p.requires_grad for p in model.parameters()]
    for p in model.parameters():
        p.requires_grad_(False)
    opt = torch.optim.Adam(filt.parameters(), lr=lr)
    try:
        for _ in range(steps):
            logits = run_filtered(model, tokens, layer, filt)[:, -1]
            loss = nn.functional.cross_entropy(logits, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
    finally:
        for p, g in zip(model.parameters(), frozen):
            p.requires_grad_(g)
    return filt


def random_filter(d: int, r: int, h_mean: Tensor, generator: torch.Generator) -> LowRankFilter:
    """Baseline: a uniformly random r-dimensional subspace (QR of a Gaussian matrix)."""
    _check_rank(d, r)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    q, _ = torch.linalg.qr(torch.randn(d, r, generator=generator))
    return LowRankFilter(d, r, h_mean).set_basis(q)


def pca_filter(hidden: Tensor, r: int, h_mean: Tensor) -> LowRankFilter:
    """Baseline without training: the top-r principal directions of `hidden` (n, d), centred on its mean."""
    check_tensor("hidden", hidden, floating=True)
    check_tensor("h_mean", h_mean, floating=True)
    if hidden.ndim != 2:
        raise ValueError(f"hidden must have shape (n, d), got {tuple(hidden.shape)}")
    _check_rank(hidden.shape[1], r)
    check_tensor("hidden", hidden, floating=True, finite=True)
    c = hidden - hidden.mean(0)
    _, _, vh = torch.linalg.svd(c.double(), full_matrices=False)
    basis = vh[:r].T.float()
    if basis.shape[1] < r:  # fewer rows than r: complete the basis
        basis = torch.linalg.qr(
            torch.cat([basis, torch.randn(hidden.shape[1], r - basis.shape[1], device=hidden.device)], 1)
        )[0]
    basis, _ = torch.linalg.qr(basis)
    return LowRankFilter(hidden.shape[1], r, h_mean).set_basis(basis)


def off_subspace_ratio(hidden: Tensor, U: Tensor, h_mean: Tensor) -> Tensor:
    """Per row: ||(I - U U^T)(h - h_mean)||^2 / ||h - h_mean||^2 (energy outside span U)."""
    check_tensor("hidden", hidden, floating=True)
    check_tensor("U", U, floating=True, finite=True)  # an infinite direction would clamp to a silent 0 or 1
    if hidden.ndim != 2 or U.ndim != 2 or U.shape[0] != hidden.shape[1]:
        raise ValueError(f"hidden (n, d) and U (d, r) disagree: {tuple(hidden.shape)}, {tuple(U.shape)}")
    check_tensor("h_mean", h_mean, floating=True, shape=(hidden.shape[1],))
    c = hidden - h_mean
    inside = (c @ U).pow(2).sum(-1)
    total = c.pow(2).sum(-1).clamp_min(1e-12)
    return (1.0 - inside / total).clamp(0.0, 1.0)


def selectivity(probs: Tensor, label_sets: Tensor, tasks: Tensor | int) -> Tensor:
    """Per row: probability of the intended task's label set over that of all label sets."""
    check_tensor("probs", probs, floating=True)
    check_tensor("label_sets", label_sets, floating=False)
    if probs.ndim != 2 or label_sets.ndim != 2:
        raise ValueError(
            f"probs must be (n, vocab) and label_sets (tasks, labels), got {tuple(probs.shape)}, "
            f"{tuple(label_sets.shape)}"
        )
    check_tensor("probs", probs, floating=True)
    if label_sets.numel() and int(label_sets.max()) >= probs.shape[1]:
        raise ValueError(
            f"label_sets hold token ids up to {int(label_sets.max())}, beyond probs' vocab of {probs.shape[1]}"
        )
    if isinstance(tasks, torch.Tensor):
        check_tensor("tasks", tasks, ndim=(0, 1), floating=False)
        if tasks.ndim == 1 and tasks.shape[0] not in (1, probs.shape[0]):
            raise ValueError(
                f"tasks must hold one task per row of probs ({probs.shape[0]}), got {tasks.shape[0]}"
            )
    else:
        check_int("tasks", tasks, low=0)
    if bool(probs.isnan().any()):
        raise ValueError("probs must hold no NaN")
    tasks = torch.as_tensor(tasks, device=probs.device).long().expand(probs.shape[0])
    if int(tasks.min()) < 0 or int(tasks.max()) >= label_sets.shape[0]:
        raise ValueError(f"tasks must lie in [0, {label_sets.shape[0]})")
    flat = label_sets.flatten().to(probs.device)
    per_task = probs[:, flat].view(probs.shape[0], *label_sets.shape).sum(-1)
    rows = torch.arange(probs.shape[0], device=probs.device)
    return per_task[rows, tasks] / per_task.sum(-1).clamp_min(1e-12)


def alignment(fewshot: Tensor, filtered_zero: Tensor, fewshot_mean: Tensor, h_mean: Tensor) -> Tensor:
    """Per row: cosine between the centred few-shot state and the centred filtered zero-shot state."""
    check_tensor("fewshot", fewshot, ndim=2, floating=True)
    check_tensor("filtered_zero", filtered_zero, floating=True, shape=tuple(fewshot.shape))
    check_tensor("fewshot_mean", fewshot_mean, floating=True, shape=(fewshot.shape[1],))
    check_tensor("h_mean", h_mean, floating=True, shape=(fewshot.shape[1],))
    return nn.functional.cosine_similarity(fewshot - fewshot_mean, filtered_zero - h_mean, dim=-1)


def metrics(
    hidden: Tensor,
    U: Tensor,
    label_sets: Tensor,
    probs: Tensor,
    *,
    tasks: Tensor | int | None = None,
    h_mean: Tensor | None = None,
) -> dict[str, Tensor]:
    """Per-query off-subspace ratio and selectivity of hidden states (n, d) and output probabilities (n, vocab).

    ``h_mean`` defaults to the mean of `hidden` (a per-condition centre). With ``tasks=None`` the selectivity of
    every task is returned, shape (n, n_tasks).
    """
    check_tensor("hidden", hidden, ndim=2, floating=True)
    check_tensor("probs", probs, ndim=2, floating=True)
    if hidden.shape[0] != probs.shape[0]:
        raise ValueError(
            f"hidden and probs must have the same rows, got {hidden.shape[0]} and {probs.shape[0]}"
        )
    centre = hidden.mean(0) if h_mean is None else h_mean
    return {
        "off_subspace": off_subspace_ratio(hidden, U, centre),
        "selectivity": (
            torch.stack([selectivity(probs, label_sets, t) for t in range(label_sets.shape[0])], -1)
            if tasks is None
            else selectivity(probs, label_sets, tasks)
        ),
    }


def _check_heads(model: Transformer, heads: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for item in heads:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise ValueError(f"heads must be (layer, head) pairs, got {item!r}")
        layer, head = item
        check_int("layer", layer, 0, model.n_layers - 1)
        check_int("head", head, 0, model.n_heads - 1)
        out.append((layer, head))
    return out


def head_means(model: Transformer, tokens: Tensor, pos: int = -1) -> Tensor:
    """(n_layers, n_heads, d_model): each head's output z_h W_O[h] at `pos`, averaged over the prompts."""
    _check_pos(tokens, pos)
    sites = [Site("result", layer) for layer in range(model.n_layers)]
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens, sites)
    return torch.stack([cache[s.name][:, pos].mean(0) for s in sites])


def run_ablated(
    model: Transformer,
    tokens: Tensor,
    heads: Sequence[tuple[int, int]],
    ablation: str = "mean",
    means: Tensor | None = None,
    pos: int = -1,
) -> Tensor:
    """Logits with the outputs of `heads` at `pos` replaced by their means (or zeros)."""
    if ablation not in ABLATIONS:
        raise ValueError(f"ablation must be one of {ABLATIONS}, got {ablation!r}")
    heads = _check_heads(model, heads)
    if ablation == "mean" and means is None:
        raise ValueError("means (n_layers, n_heads, d_model) are required for ablation='mean'")
    if ablation == "mean":
        check_tensor(
            "means", means, floating=True, finite=True, shape=(model.n_layers, model.n_heads, model.d_model)
        )
    replace = {
        Site("result", layer, pos=pos, head=head): (means[layer, head] if ablation == "mean" else 0.0)
        for layer, head in heads
    }
    with torch.no_grad():
        return model.run_with_hooks(tokens, replace=replace)


@dataclass
class HeadScan:
    """Per-head effects (n_layers, n_heads) of ablating that head alone; larger = stronger denoising."""

    selectivity_drop: Tensor
    accuracy_drop: Tensor
    off_subspace_increase: Tensor  # NaN for heads at or above the hidden-state layer

    def __post_init__(self) -> None:
        check_tensor("selectivity_drop", self.selectivity_drop, ndim=2, floating=True)
        for name in ("accuracy_drop", "off_subspace_increase"):
            check_tensor(name, getattr(self, name), floating=True, shape=tuple(self.selectivity_drop.shape))

    def top(self, k: int) -> list[tuple[int, int]]:
        """The k heads with the largest selectivity drop, as (layer, head)."""
        n_heads = self.selectivity_drop.shape[1]
        order = torch.argsort(self.selectivity_drop.flatten(), descending=True, stable=True)[:k]
        return [(int(i) // n_heads, int(i) % n_heads) for i in order]


def head_scan(
    model: Transformer,
    prompts: ICLBatch,
    ablation: str = "mean",
    *,
    label_sets: Tensor | None = None,
    layer: int | None = None,
    U: Tensor | Sequence[Tensor] | None = None,
    means: Tensor | None = None,
) -> HeadScan:
    """Ablate each head alone at the query position of `prompts` and measure the damage.

    Selectivity drop and accuracy drop are measured on the output; when `layer` and `U` (one (d, r) basis, or one
    per task) are given, the mean increase of the off-subspace ratio at that layer is measured for heads below it.
    ``means`` defaults to the head means over `prompts`; ``label_sets`` to ``prompts.label_sets``.
    """
    if not isinstance(prompts, ICLBatch):
        raise TypeError(f"prompts must be an ICLBatch (from icl_prompts), got {type(prompts).__name__}")
    label_sets = prompts.label_sets if label_sets is None else label_sets
    if label_sets is None:
        raise ValueError("label_sets are required when prompts carry none")
    if ablation not in ABLATIONS:
        raise ValueError(f"ablation must be one of {ABLATIONS}, got {ablation!r}")
    tokens, tasks, targets = prompts.tokens, prompts.tasks, prompts.targets
    if layer is not None:
        check_int("layer", layer, 0, model.n_layers - 1)
    means = head_means(model, tokens) if means is None else means

    def measure(heads: list[tuple[int, int]]) -> tuple[float, float, float]:
        site = Site("resid_pre", layer) if layer is not None else None
        replace = {
            Site("result", lyr, pos=-1, head=h): (means[lyr, h] if ablation == "mean" else 0.0)
            for lyr, h in heads
        }
        cache: dict[str, Tensor] = {}
        hooks = {}
        if site is not None:
            hooks[site.name] = lambda act, _: cache.__setitem__("h", act[:, -1].detach())
        with torch.no_grad():
            logits = model.run_with_hooks(tokens, replace=replace, hooks=hooks)[:, -1]
        probs = logits.softmax(-1)
        sel = float(selectivity(probs, label_sets, tasks).mean())
        acc = float((logits.argmax(-1) == targets).float().mean())
        off = float("nan")
        if site is not None and U is not None:
            h = cache["h"]
            bases = [U] * int(tasks.max() + 1) if isinstance(U, Tensor) else list(U)
            ratios = torch.empty(len(h), device=h.device)
            for t in tasks.unique().tolist():
                rows = tasks == t
                ratios[rows] = off_subspace_ratio(h[rows], bases[t], h[rows].mean(0))
            off = float(ratios.mean())
        return sel, acc, off

    base = measure([])
    shape = (model.n_layers, model.n_heads)
    sel_drop, acc_drop, off_inc = torch.zeros(shape), torch.zeros(shape), torch.full(shape, float("nan"))
    for lyr in range(model.n_layers):
        for h in range(model.n_heads):
            sel, acc, off = measure([(lyr, h)])
            sel_drop[lyr, h] = base[0] - sel
            acc_drop[lyr, h] = base[1] - acc
            if layer is not None and lyr < layer:
                off_inc[lyr, h] = off - base[2]
    return HeadScan(sel_drop, acc_drop, off_inc)
