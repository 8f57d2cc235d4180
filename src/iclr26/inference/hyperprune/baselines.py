"""One-shot n:m baselines written here: magnitude, Wanda, SparseGPT, and a MaskLLM-lite learned-mask baseline.

All take a Hugging Face causal LM and prune the linear layers of its decoder blocks in place; the ones that need
activations calibrate sequentially (block ``l`` sees the outputs of the already pruned blocks ``0..l-1``).
Each returns ``{qualified linear name: bool mask (d_out, d_in)}``.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.func import functional_call
from transformers.pytorch_utils import Conv1D

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.inference.hyperprune.layers import (
    block_linears,
    check_calib_ids_for,
    find_blocks,
    get_weight,
    gram_hook,
    run_sequential,
    set_weight,
)
from iclr26.inference.hyperprune.masks import (
    anneal_tau,
    apply_nm_mask,
    check_matrix,
    check_nm,
    gumbel_pattern_mask,
    nm_mask_from_scores,
    nm_patterns,
    pattern_logits_from_scores,
)

__all__ = [
    "magnitude_prune",
    "maskllm_lite_prune",
    "sparsegpt_matrix",
    "sparsegpt_prune",
    "wanda_prune",
    "wanda_scores",
]

Masks = dict[str, torch.Tensor]


def check_model_nm(model: nn.Module, n: int, m: int) -> list[tuple[str, nn.Module]]:
    check_nm(n, m)
    blocks = find_blocks(model)
    out = []
    prefix = next(name for name, mod in model.named_modules() if mod is blocks)
    for idx, block in enumerate(blocks):
        for name, mod in block_linears(block):
            d_in = get_weight(mod).shape[1]
            if d_in % m:
                raise ValueError(f"{prefix}.{idx}.{name}: in_features {d_in} is not divisible by m={m}")
            out.append((f"{prefix}.{idx}.{name}", mod))
    return out


def check_gram(weight: torch.Tensor, gram: torch.Tensor) -> None:
    """``gram`` must be the (d_in, d_in) input Gram matrix of a (d_out, d_in) ``weight``, finite."""
    check_tensor("weight", weight, ndim=2, floating=True)
    d_in = weight.shape[1]
    check_tensor("gram", gram, floating=True, shape=(d_in, d_in), finite=True)


def check_tau(tau: object) -> tuple[float, float]:
    """A (tau_start, tau_end) pair of finite temperatures > 0."""
    if not isinstance(tau, (tuple, list)) or len(tau) != 2:
        raise ValueError(f"tau must be a (tau_start, tau_end) pair, got {tau!r}")
    return (
        check_float("tau[0]", tau[0], low=0.0, low_open=True),
        check_float("tau[1]", tau[1], low=0.0, low_open=True),
    )


def qualified_name(model: nn.Module, idx: int, name: str) -> str:
    blocks = find_blocks(model)
    prefix = next(n for n, mod in model.named_modules() if mod is blocks)
    return f"{prefix}.{idx}.{name}"


def wanda_scores(weight: torch.Tensor, gram: torch.Tensor) -> torch.Tensor:
    """Wanda importance ``|W_ij| * ||X_j||_2`` from the input Gram matrix ``X^T X / N`` (scale-free)."""
    check_gram(weight, gram)
    return weight.abs() * gram.diagonal().clamp_min(0).sqrt()[None, :]


@torch.no_grad()
def magnitude_prune(model: nn.Module, n: int = 2, m: int = 4) -> Masks:
    """Keep the ``n`` largest-|w| weights of every group of ``m`` input weights (no calibration)."""
    masks = {}
    for qname, mod in check_model_nm(model, n, m):
        w = get_weight(mod)
        masks[qname] = nm_mask_from_scores(w.abs(), n, m)
        set_weight(mod, apply_nm_mask(w, masks[qname]))
    return masks


@torch.no_grad()
def wanda_prune(model: nn.Module, calib_ids: torch.Tensor, n: int = 2, m: int = 4) -> Masks:
    """Wanda n:m: per row and group keep the top-``n`` of ``|W_ij| * ||X_j||`` (sequential calibration)."""
    check_model_nm(model, n, m)
    masks: Masks = {}

    def fn(idx: int, _block: nn.Module, linears: list, grams: dict) -> None:
        for name, mod in linears:
            w = get_weight(mod)
            mask = nm_mask_from_scores(wanda_scores(w, grams[name]), n, m)
            masks[qualified_name(model, idx, name)] = mask
            set_weight(mod, apply_nm_mask(w, mask))

    run_sequential(model, check_calib_ids_for(model, calib_ids), fn)
    return masks


@torch.no_grad()
def sparsegpt_matrix(
    weight: torch.Tensor,
    gram: torch.Tensor,
    n: int = 2,
    m: int = 4,
    blocksize: int = 128,
    percdamp: float = 0.01,
    prune_mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """SparseGPT on one ``(d_out, d_in)`` matrix with input Gram ``X^T X / N``: returns ``(new weight, keep mask)``.

    Columns are processed left to right; at the first column of every group of ``m`` the ``m - n`` weights of
    smallest ``w^2 / [H^-1]_jj^2`` (current, already error-compensated weights) are chosen for pruning, then each
    column is zeroed where pruned and its error is spread over the later columns with the upper Cholesky factor
    of ``H^-1`` (the OBS update); updates to columns beyond the current lazy block of ``blocksize`` columns are
    applied once per block. ``prune_mask`` (True = prune) fixes the mask instead (any pattern; all-False keeps
    every weight and returns ``weight`` unchanged).
    """
    check_matrix(weight, m)
    check_tensor("weight", weight, floating=True)
    check_int("blocksize", blocksize, low=1)
    check_float("percdamp", percdamp, low=0.0)
    if prune_mask is None:
        check_nm(n, m)
        if blocksize % m:
            raise ValueError(f"blocksize must be a multiple of m={m}, got {blocksize}")
    else:
        check_tensor("prune_mask", prune_mask, shape=tuple(weight.shape))
    d_out, d_in = weight.shape
    check_tensor("gram", gram, floating=True)
    if gram.shape != (d_in, d_in):
        raise ValueError(f"gram must be ({d_in}, {d_in}), got {tuple(gram.shape)}")
    check_tensor("gram", gram, finite=True)
    dt = torch.float64 if weight.dtype == torch.float64 else torch.float32
    w_all = weight.clone().to(dt)
    h = gram.clone().to(dt)
    dead = h.diagonal() == 0
    h[dead, dead] = 1.0
    w_all[:, dead] = 0.0
    h += percdamp * h.diagonal().mean() * torch.eye(d_in, dtype=dt)
    try:
        hinv = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(h)), upper=True)
    except torch.linalg.LinAlgError:
        raise ValueError(
            "gram (+ percdamp damping) is not positive definite: pass the Gram matrix X^T X / N of real inputs"
        ) from None
    prune = torch.zeros(d_out, d_in, dtype=torch.bool)
    for i1 in range(0, d_in, blocksize):
        i2 = min(i1 + blocksize, d_in)
        w1 = w_all[:, i1:i2].clone()
        q1 = torch.zeros_like(w1)
        err1 = torch.zeros_like(w1)
        h1 = hinv[i1:i2, i1:i2]
        p1 = (
            prune_mask[:, i1:i2].clone().bool()
            if prune_mask is not None
            else torch.zeros_like(w1, dtype=torch.bool)
        )
        for i in range(i2 - i1):
            if prune_mask is None and i % m == 0:
                tmp = w1[:, i : i + m] ** 2 / h1.diagonal()[i : i + m][None, :] ** 2
                drop = torch.topk(tmp, m - n, dim=1, largest=False).indices
                p1.scatter_(1, i + drop, True)
            w = w1[:, i]
            q = torch.where(p1[:, i], torch.zeros_like(w), w)
            q1[:, i] = q
            e = (w - q) / h1[i, i]
            w1[:, i:] -= e[:, None] * h1[i, i:][None, :]
            err1[:, i] = e
        w_all[:, i1:i2] = q1
        prune[:, i1:i2] = p1
        w_all[:, i2:] -= err1 @ hinv[i1:i2, i2:]
    return w_all.to(weight.dtype), ~prune


@torch.no_grad()
def sparsegpt_prune(
    model: nn.Module,
    calib_ids: torch.Tensor,
    n: int = 2,
    m: int = 4,
    blocksize: int = 128,
    percdamp: float = 0.01,
) -> Masks:
    """SparseGPT n:m with OBS weight reconstruction on every linear of every block (sequential calibration)."""
    check_model_nm(model, n, m)
    masks: Masks = {}

    def fn(idx: int, _block: nn.Module, linears: list, grams: dict) -> None:
        for name, mod in linears:
            w_new, keep = sparsegpt_matrix(get_weight(mod), grams[name], n, m, blocksize, percdamp)
            masks[qualified_name(model, idx, name)] = keep
            set_weight(mod, apply_nm_mask(w_new, keep))

    run_sequential(model, check_calib_ids_for(model, calib_ids), fn)
    return masks


def standardized_log_wanda(weight: torch.Tensor, gram: torch.Tensor) -> torch.Tensor:
    """``log(|W_ij| ||X_j||)`` standardised over the matrix (the pattern prior of the learned-mask methods)."""
    z = torch.log(wanda_scores(weight, gram) + 1e-12)
    return (z - z.mean()) / (z.std() + 1e-8)


def maskllm_lite_prune(
    model: nn.Module,
    calib_ids: torch.Tensor,
    n: int = 2,
    m: int = 4,
    steps: int = 200,
    lr: float = 0.05,
    prior_scale: float = 3.0,
    batch_size: int = 8,
    tau: tuple[float, float] = (4.0, 0.05),
    seed: int = 0,
) -> Masks:
    """MaskLLM-lite: free per-group pattern logits trained end to end on the LM loss with straight-through Gumbel.

    Logits start at ``prior_scale`` times the summed standardised log-Wanda scores of each pattern (a Wanda prior,
    from one dense calibration pass) and are trained with Adam on the next-token loss of random minibatches of
    ``batch_size`` calibration sequences for ``steps`` steps (tau annealed geometrically). The final mask is the
    argmax pattern; weights are not updated.
    """
    named = check_model_nm(model, n, m)
    calib_ids = check_calib_ids_for(model, calib_ids)
    check_int("steps", steps, low=0)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("prior_scale", prior_scale)
    check_int("batch_size", batch_size, low=1)
    tau = check_tau(tau)
    check_int("seed", seed, low=0)
    pats = nm_patterns(n, m)
    grams: dict[str, torch.Tensor] = {}
    counts: dict[str, int] = {}

    was_training = model.training
    model.eval()
    hooks = [mod.register_forward_pre_hook(gram_hook(q, grams, counts)) for q, mod in named]
    with torch.no_grad():
        model(input_ids=calib_ids, use_cache=False)
    for h in hooks:
        h.remove()
    weights = {q: get_weight(mod) for q, mod in named}
    logits = {
        q: nn.Parameter(
            prior_scale
            * pattern_logits_from_scores(standardized_log_wanda(weights[q], grams[q] / counts[q]), n, m)
        )
        for q, _ in named
    }
    conv = {q: isinstance(mod, Conv1D) for q, mod in named}
    opt = torch.optim.Adam(list(logits.values()), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    for p in model.parameters():
        p.requires_grad_(False)
    for t in range(steps):
        tau_t = anneal_tau(t, steps, *tau)
        batch = calib_ids[torch.randperm(calib_ids.shape[0], generator=gen)[:batch_size]]
        params = {}
        for q, _ in named:
            lg = logits[q]
            g = -torch.empty(lg.shape).exponential_(generator=gen).log()
            mask = gumbel_pattern_mask(lg, pats, tau_t, noise=g).reshape(weights[q].shape)
            w = weights[q] * mask
            params[q + ".weight"] = w.t() if conv[q] else w
        out = functional_call(model, params, (), {"input_ids": batch, "labels": batch, "use_cache": False})
        opt.zero_grad()
        out.loss.backward()
        opt.step()
    for p in model.parameters():
        p.requires_grad_(True)
    masks: Masks = {}
    with torch.no_grad():
        for q, mod in named:
            keep = pats.bool()[logits[q].argmax(-1)].reshape(weights[q].shape)
            masks[q] = keep
            set_weight(mod, apply_nm_mask(weights[q], keep))
    model.train(was_training)
    return masks
