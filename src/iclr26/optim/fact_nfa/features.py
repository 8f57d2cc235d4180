"""FACT and NFA feature matrices of a trained network's layer, read off with hooks.

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz for how networks learn
representations" (Boix-Adsera, Mallinar, Simon, Belkin; OpenReview j4964wtJMz, arXiv 2507.05644).

For a weight matrix W (out x in) acting on the layer input h_i and the objective
``(1/n) sum_i l(f(x_i), y_i) + (lambda/2) ||W||_F^2``, with ``g_i = dl_i/d(W h_i)`` and ``r_i = W^T g_i``,
first-order stationarity ``(1/n) sum_i g_i h_i^T + lambda W = 0`` gives the Features At Convergence Theorem

    W^T W = -(1/(n lambda)) sum_i r_i h_i^T                                   (FACT)

The Neural Feature Ansatz compares W^T W with ``AGOP^alpha``, ``AGOP = (1/n) sum_i J_i^T J_i`` and
``J_i = d f(x_i) / d h_i`` (all output units). A layer used several times per example (weight sharing) sums
over its uses in both matrices.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn
from torch.func import jacrev, vmap

from iclr26.checks import check_array, check_choice, check_float, check_tensor

__all__ = ["agop_matrix", "fact_matrix", "feature_agreement", "psd_power"]

FACT_FORMS = ("raw", "symmetric", "sqrt")


def check_square(name: str, A: object) -> None:
    """A finite square matrix (numpy array or tensor)."""
    a = A.detach().cpu().numpy() if isinstance(A, torch.Tensor) else check_array(name, A)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")


def _check_model_input(model: object, X: object) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    check_tensor("X", X, floating=True, finite=True)
    if X.ndim < 1 or X.shape[0] < 1:
        raise ValueError(f"X must hold at least one row, got shape {tuple(X.shape)}")


def psd_power(A: np.ndarray | torch.Tensor, power: float) -> np.ndarray | torch.Tensor:
    """``A^power`` of the symmetric part of `A` by eigendecomposition, eigenvalues clipped at 0.

    Example
    -------
    >>> import numpy as np
    >>> psd_power(np.diag([4.0, -1.0]), 0.5).tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    check_float("power", power)
    check_square("A", A)
    return psd_power_unchecked(A, power)


def psd_power_unchecked(A: np.ndarray | torch.Tensor, power: float) -> np.ndarray | torch.Tensor:
    if isinstance(A, torch.Tensor):
        vals, vecs = torch.linalg.eigh((A + A.T) / 2)
        return (vecs * vals.clamp(min=0.0) ** power) @ vecs.T
    vals, vecs = np.linalg.eigh((A + A.T) / 2)
    return (vecs * np.clip(vals, 0.0, None) ** power) @ vecs.T


def _resolve_layer(model: nn.Module, layer: str | nn.Module) -> nn.Module:
    if isinstance(layer, nn.Module):
        if not any(m is layer for m in model.modules()):
            raise ValueError("layer module not found in model")
        module = layer
    else:
        modules = dict(model.named_modules())
        if layer not in modules:
            raise ValueError(f"layer {layer!r} not found in model; named modules: {sorted(modules)[:12]}")
        module = modules[layer]
    weight = getattr(module, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.ndim != 2:
        raise ValueError(f"layer {layer!r} must have a 2-D weight (out, in) acting on the input's last axis")
    return module


def fact_matrix(
    model: nn.Module,
    layer: str | nn.Module,
    X: torch.Tensor,
    Y: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    weight_decay: float,
    *,
    form: str = "raw",
) -> torch.Tensor:
    """The FACT matrix ``-(1/(n lambda)) sum_i r_i h_i^T`` of `layer` (shape in x in).

    Parameters
    ----------
    model : the network; ``model(X)`` gives the outputs.
    layer : the name of the layer in ``model.named_modules()`` (or the module); it has a 2-D ``weight``.
    X, Y : inputs and targets (same number of rows).
    loss_fn : ``loss_fn(model(X), Y)`` is the MEAN data loss over the rows, as in the objective.
    weight_decay : lambda of the ``(lambda/2)||W||^2`` term added to the mean loss; must be > 0.
    form : ``"raw"`` (the theorem's right-hand side), ``"symmetric"`` (its symmetric part) or ``"sqrt"``
        (``(F F^T)^{1/2}``, PSD); all three equal W^T W at a critical point.

    Example
    -------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    >>> X, Y = torch.randn(10, 3), torch.randn(10, 1)
    >>> fact_matrix(net, "0", X, Y, torch.nn.functional.mse_loss, 1e-2).shape
    torch.Size([3, 3])
    """
    check_float("weight_decay (FACT needs lambda > 0)", weight_decay, low=0.0, low_open=True)
    _check_model_input(model, X)
    check_tensor("Y", Y)
    if Y.is_complex():
        raise TypeError(f"Y must hold real targets or class ids, got {Y.dtype}")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable loss_fn(outputs, Y), got {type(loss_fn).__name__}")
    check_choice("form", form, FACT_FORMS)
    if len(X) != len(Y):
        raise ValueError(f"X and Y must have the same number of rows, got {len(X)} and {len(Y)}")
    module = _resolve_layer(model, layer)
    inputs: list[torch.Tensor] = []
    outputs: list[torch.Tensor] = []

    def hook(mod: nn.Module, args: tuple[torch.Tensor, ...], out: torch.Tensor) -> torch.Tensor:
        inputs.append(args[0].detach())
        leaf = out.detach().requires_grad_(True)  # gradients stop here: we only need dl/d(W h)
        outputs.append(leaf)
        return leaf

    handle = module.register_forward_hook(hook)
    try:
        with torch.enable_grad():
            loss = loss_fn(model(X), Y)
            grads = torch.autograd.grad(loss, outputs)
    finally:
        handle.remove()
    W = module.weight.detach()
    # (1/n) sum_i g_i h_i^T, summed over the layer's uses (the mean loss already carries the 1/n)
    gh = sum(g.reshape(-1, W.shape[0]).T @ h.reshape(-1, W.shape[1]) for g, h in zip(grads, inputs))
    F = -(W.T @ gh) / weight_decay  # FACT: W^T W = -(1/(n lambda)) sum_i r_i h_i^T, r_i = W^T g_i
    if form == "symmetric":
        return (F + F.T) / 2
    if form == "sqrt":
        return psd_power_unchecked(F @ F.T, 0.5)
    return F


def agop_matrix(
    model: nn.Module, layer: str | nn.Module, X: torch.Tensor, power: float = 1.0
) -> torch.Tensor:
    """``AGOP^power`` with ``AGOP = (1/n) sum_i J_i^T J_i``, ``J_i = d model(x_i) / d h_i`` at `layer`'s input.

    Per-example Jacobians come from ``torch.func.vmap(jacrev(...))``, substituting the layer's input with a
    forward pre-hook, so the model must accept a batch of one row.

    Example
    -------
    >>> import torch
    >>> lin = torch.nn.Sequential(torch.nn.Linear(3, 1, bias=False))
    >>> A = agop_matrix(lin, "0", torch.randn(5, 3))
    >>> torch.allclose(A, lin[0].weight.T @ lin[0].weight)
    True
    """
    check_float("power", power, 0.0, 1.0, low_open=True)
    _check_model_input(model, X)
    if X.ndim < 2:
        raise ValueError(f"X must be (n, ...) with one input row per example, got shape {tuple(X.shape)}")
    module = _resolve_layer(model, layer)
    captured: list[torch.Tensor] = []
    handle = module.register_forward_hook(lambda mod, args, out: captured.append(args[0].detach()))
    try:
        with torch.no_grad():
            model(X)
    finally:
        handle.remove()

    def output_of_inputs(x: torch.Tensor, hs: tuple[torch.Tensor, ...]) -> torch.Tensor:
        use = iter(hs)
        pre = module.register_forward_pre_hook(lambda mod, args: (next(use).unsqueeze(0), *args[1:]))
        try:
            return model(x.unsqueeze(0)).reshape(-1)
        finally:
            pre.remove()

    jacobians = vmap(jacrev(output_of_inputs, argnums=1))(X, tuple(captured))  # per use: (n, out, *h)
    d_in = module.weight.shape[1]
    J = torch.cat([j.reshape(len(X), -1, d_in) for j in jacobians], dim=1)
    agop = torch.einsum("nki,nkj->ij", J, J) / len(X)  # AGOP = (1/n) sum_i J_i^T J_i
    return agop if power == 1.0 else psd_power_unchecked(agop, power)


def feature_agreement(A: np.ndarray | torch.Tensor, B: np.ndarray | torch.Tensor) -> tuple[float, float]:
    """(Pearson correlation of the upper triangles incl. the diagonal, cosine of the flattened matrices).

    Example
    -------
    >>> import numpy as np
    >>> [round(v, 6) for v in feature_agreement(np.eye(3), 2 * np.eye(3))]
    [1.0, 1.0]
    """
    a = A.detach().cpu().numpy() if isinstance(A, torch.Tensor) else check_array("A", A)
    b = B.detach().cpu().numpy() if isinstance(B, torch.Tensor) else check_array("B", B)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape != b.shape:
        raise ValueError(f"A and B must be square matrices of the same shape, got {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("A and B must be finite (no NaN or infinity)")
    iu = np.triu_indices(a.shape[0])
    ua, ub = a[iu] - a[iu].mean(), b[iu] - b[iu].mean()
    pearson = float(ua @ ub / np.sqrt((ua @ ua) * (ub @ ub)))
    cosine = float(a.ravel() @ b.ravel() / np.sqrt((a.ravel() @ a.ravel()) * (b.ravel() @ b.ravel())))
    return pearson, cosine
