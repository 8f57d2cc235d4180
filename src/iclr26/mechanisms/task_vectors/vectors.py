"""Task-vector extraction and injection for the linear-attention model and the lab's softmax GPT.

Convention for both models: ``layer`` is a 0-indexed block and the task vector is that block's output
(``resid_post``) at an arrow token; injection overwrites the same site and lets blocks ``layer + 1 ..`` run.
So ``layer`` must lie in ``[0, n_layers - 2]`` (overwriting the last block's output would copy the answer).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_int, check_tensor
from iclr26.lab.transformer import Site, Transformer
from iclr26.mechanisms.task_vectors.linear import LinearAttentionTransformer, arrow_positions

__all__ = ["ARROW_ID", "extract", "inject", "multi_inject"]

ARROW_ID = 64  # the arrow token "->" of the discrete alphabet (symbols 0..63)


def check_layer(model: nn.Module, layer: object) -> int:
    n_layers = model.n_layers
    if n_layers < 2:
        raise ValueError(
            f"model has {n_layers} layer; task vectors need >= 2 (a block whose output feeds another block)"
        )
    return check_int(
        f"layer (a block in [0, {n_layers - 2}] whose output feeds another block)", layer, 0, n_layers - 2
    )


def _check_model(model: nn.Module) -> None:
    if not isinstance(model, (LinearAttentionTransformer, Transformer)):
        raise TypeError(f"model must be a LinearAttentionTransformer or a lab Transformer, got {type(model)}")


def _check_prompts(model: nn.Module, name: str, prompts: Tensor, arrow_id: int) -> None:
    if isinstance(model, LinearAttentionTransformer):
        check_tensor(name, prompts, floating=True)
        if prompts.ndim != 3 or prompts.shape[1] < 1 or prompts.shape[-1] != model.d_model:
            raise ValueError(
                f"{name} must have shape (batch, tokens >= 1, {model.d_model}), got {tuple(prompts.shape)}"
            )
    else:
        check_tensor(name, prompts, ndim=2, floating=False)
        if prompts.shape[1] < 1:
            raise ValueError(f"{name} must have shape (batch, tokens >= 1), got {tuple(prompts.shape)}")
        check_int("arrow_id", arrow_id, 0, model.vocab_size - 1)
    if prompts.shape[0] < 1:
        raise ValueError(f"{name} must hold at least one prompt, got shape {tuple(prompts.shape)}")


def _check_tau(model: nn.Module, name: str, tau: object, batch: int) -> None:
    check_tensor(name, tau, floating=True)
    width = model.d_model
    if not (tau.shape == (width,) or tau.ndim == 2 and tau.shape[0] in (1, batch) and tau.shape[1] == width):
        raise ValueError(f"{name} must have shape ({width},) or ({batch}, {width}), got {tuple(tau.shape)}")


def _check_arrow(model: nn.Module, prompts: Tensor, positions: Sequence[int], arrow_id: int) -> None:
    t = prompts.shape[1]
    for p in positions:
        check_int(f"pos (a position in a prompt of {t} tokens)", p, -t, t - 1)
    if isinstance(model, LinearAttentionTransformer):
        if model.fmt != "triplet":
            raise ValueError(f"task vectors need a triplet-format model, got format {model.fmt!r}")
        if t == 3:
            arrows = [1]
        elif t % 3 == 0:
            arrows = arrow_positions(t // 3 - 1)
        else:
            raise ValueError(f"prompts of {t} tokens are not triplet prompts")
        for p in positions:
            if p % t not in arrows:
                raise ValueError(
                    f"pos {p} is not an arrow token of a {t}-token triplet prompt (arrows: {arrows})"
                )
    else:
        for p in positions:
            if not bool((prompts[:, p] == arrow_id).all()):
                raise ValueError(f"pos {p} is not an arrow token (id {arrow_id}) in every prompt")


def _linear_positions(model: LinearAttentionTransformer, t: int) -> list[int] | None:
    return model.query_positions() if t == 3 else None


@torch.no_grad()
def extract(
    model: nn.Module,
    prompts: Tensor,
    layer: int,
    pos: int = -2,
    normalize: bool = False,
    arrow_id: int = ARROW_ID,
) -> Tensor:
    """Task vectors (B, width): block `layer`'s output at arrow token `pos` of each prompt.

    For the linear model the default ``pos=-2`` is the query's arrow of a triplet prompt; for the GPT use
    ``pos=-1`` (prompts end with ``x_q ->``). `normalize` rescales every vector to unit norm.
    """
    _check_model(model)
    check_layer(model, layer)
    _check_prompts(model, "prompts", prompts, arrow_id)
    _check_arrow(model, prompts, [pos], arrow_id)
    check_bool("normalize", normalize)
    if isinstance(model, LinearAttentionTransformer):
        _, states = model.run_with_hooks(
            prompts, positions=_linear_positions(model, prompts.shape[1]), return_states=True
        )
        tv = states[layer][:, pos]
    else:
        _, cache = model.run_with_cache(prompts, [Site("resid_post", layer)])
        tv = cache[Site("resid_post", layer).name][:, pos]
    if normalize:
        tv = tv / tv.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    return tv


def _run_patched(model: nn.Module, prompts: Tensor, patches: dict[tuple[int, int], Tensor]) -> Tensor:
    if isinstance(model, LinearAttentionTransformer):
        states = model.run_with_hooks(prompts, patches, positions=_linear_positions(model, prompts.shape[1]))
        return model.readout(states)
    return model.run_with_hooks(
        prompts, {Site("resid_post", lay, pos=p): v for (lay, p), v in patches.items()}
    )


@torch.no_grad()
def inject(
    model: nn.Module, zero_shot: Tensor, tau: Tensor, layer: int, pos: int = 1, arrow_id: int = ARROW_ID
) -> Tensor:
    """Run `zero_shot` prompts with task vectors `tau` (B, width) or (width,) written at (layer, pos).

    Linear model: returns the read-out (B, d) of the 3-token prompt ``[x_q; 0], tau, [0; 0]`` (which uses the
    position codes of the n-shot query triplet). GPT: returns the logits (B, T, V) of ``x_q ->``.
    """
    _check_model(model)
    check_layer(model, layer)
    _check_prompts(model, "zero_shot", zero_shot, arrow_id)
    _check_arrow(model, zero_shot, [pos], arrow_id)
    _check_tau(model, "tau", tau, zero_shot.shape[0])
    return _run_patched(model, zero_shot, {(layer, pos): tau})


@torch.no_grad()
def multi_inject(
    model: nn.Module,
    prompts: Tensor,
    taus: Sequence[Tensor] | Tensor,
    layer: int,
    positions: Sequence[int],
    arrow_id: int = ARROW_ID,
) -> Tensor:
    """TaskV-M: write one task vector per arrow token (``taus[k]`` at ``positions[k]``) of few-shot prompts."""
    _check_model(model)
    check_layer(model, layer)
    _check_prompts(model, "prompts", prompts, arrow_id)
    for name, seq in (("taus", taus), ("positions", positions)):
        if not isinstance(seq, (Sequence, Tensor)):
            raise TypeError(f"{name} must be a sequence, got {type(seq).__name__}")
    if len(taus) != len(positions):
        raise ValueError(
            f"taus and positions must have the same length, got {len(taus)} and {len(positions)}"
        )
    if len(positions) == 0:
        raise ValueError("positions must name at least one arrow token, got none")
    _check_arrow(model, prompts, list(positions), arrow_id)
    sites = [p % prompts.shape[1] for p in positions]
    if len(set(sites)) != len(sites):
        raise ValueError(f"positions must be distinct tokens, got {list(positions)}")
    for k, tau in enumerate(taus):
        _check_tau(model, f"taus[{k}]", tau, prompts.shape[0])
    return _run_patched(model, prompts, {(layer, p): tv for p, tv in zip(positions, taus)})
