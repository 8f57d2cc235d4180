"""Linear weight interpolation without permutation (LEWC, arXiv 2510.08023, ICLR 2026).

"Do We Really Need Permutations? Impact of Model Width on Linear Mode Connectivity" (Ito et al.) merges two
independently trained models of the same architecture by the straight line in weight space,

    theta_lambda = (1 - lambda) theta_A + lambda theta_B,        lambda in [0, 1],

computed here as ``theta_A + lambda (theta_B - theta_A)`` so that two identical models merge to exactly the
same weights. BatchNorm running statistics of the merged model can be recomputed on training data (a plain
reset, not REPAIR's rescaling).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import torch
from torch import nn

from iclr26.checks import check_float
from iclr26.optim.lewc.training import check_model_input

__all__ = ["check_same_architecture", "merge_linear", "reset_batchnorm"]


def check_same_architecture(model_a: nn.Module, model_b: nn.Module) -> None:
    """Raise ``ValueError`` naming the first parameter or buffer whose name or shape differs between A and B."""
    if not isinstance(model_a, nn.Module) or not isinstance(model_b, nn.Module):
        raise ValueError(
            f"model_a and model_b must be torch modules, got {type(model_a).__name__} and {type(model_b).__name__}"
        )
    sa, sb = model_a.state_dict(), model_b.state_dict()
    if list(sa) != list(sb):
        only_a = sorted(set(sa) - set(sb))
        only_b = sorted(set(sb) - set(sa))
        raise ValueError(
            f"architecture mismatch between model_a and model_b: entries only in A {only_a[:3]}, only in B {only_b[:3]}"
        )
    for name, ta in sa.items():
        if ta.shape != sb[name].shape:
            raise ValueError(
                f"shape mismatch between model_a and model_b at {name!r}: {tuple(ta.shape)} vs {tuple(sb[name].shape)}"
            )
    for (na, ma), (_, mb) in zip(model_a.named_modules(), model_b.named_modules()):
        if type(ma) is not type(mb):
            raise ValueError(
                f"architecture mismatch between model_a and model_b at module {na!r}: "
                f"{type(ma).__name__} vs {type(mb).__name__}"
            )


def check_lambda(lam: float) -> float:
    """Return `lam` as a float, or raise ``ValueError`` when it lies outside [0, 1]."""
    return check_float("lambda (lam)", lam, 0.0, 1.0)


@torch.no_grad()
def reset_batchnorm(model: nn.Module, batches: Iterable[torch.Tensor]) -> nn.Module:
    """Recompute the running mean and variance of every BatchNorm layer of `model` on `batches` (in place).

    The statistics are the cumulative average over all batches (``momentum=None``); the model's train/eval mode
    and the layers' momenta are restored afterwards.
    """
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return model
    was_training, momenta = model.training, [m.momentum for m in norms]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    seen = 0
    for x in batches:
        check_model_input(f"batches[{seen}]", x, model)
        model(x)
        seen += 1
    if seen == 0:
        raise ValueError("reset_bn_loader yielded no batches: cannot recompute BatchNorm statistics")
    for m, mom in zip(norms, momenta):
        m.momentum = mom
    model.train(was_training)
    return model


@torch.no_grad()
def merge_linear(
    model_a: nn.Module,
    model_b: nn.Module,
    lam: float,
    reset_bn_loader: Iterable[torch.Tensor] | None = None,
) -> nn.Module:
    """The linearly interpolated model ``theta_lambda = (1 - lambda) theta_A + lambda theta_B``.

    Parameters
    ----------
    model_a, model_b : two models with identical architecture (same state-dict names and shapes).
    lam : the interpolation coefficient lambda in [0, 1]; 0 returns an exact copy of A, 1 of B.
    reset_bn_loader : an iterable of input batches (tensors, or ``(x, y)`` pairs) on which the BatchNorm running
        statistics of the merged model are recomputed; ``None`` interpolates them like the weights.

    Returns
    -------
    A new module (a deep copy of `model_a` carrying the merged weights), in eval mode.

    Examples
    --------
    >>> import torch
    >>> a, b = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    >>> m = merge_linear(a, b, 0.25)
    >>> torch.allclose(m.weight, 0.75 * a.weight + 0.25 * b.weight)
    True
    """
    check_same_architecture(model_a, model_b)
    lam = check_lambda(lam)
    merged = copy.deepcopy(model_a)
    sa, sb = model_a.state_dict(), model_b.state_dict()
    out = {}
    for name, ta in sa.items():
        tb = sb[name]
        if lam == 0.0 or not torch.is_floating_point(ta):
            out[name] = ta.clone()  # integer buffers (BatchNorm's num_batches_tracked) follow A
        elif lam == 1.0:
            out[name] = tb.clone()
        else:
            out[name] = ta + lam * (tb - ta)  # (1 - lambda) theta_A + lambda theta_B, exact when A == B
    merged.load_state_dict(out)
    if reset_bn_loader is not None and 0.0 < lam < 1.0:
        reset_batchnorm(merged, (b[0] if isinstance(b, (tuple, list)) else b for b in reset_bn_loader))
    return merged.eval()
