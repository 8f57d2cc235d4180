"""Weight matching (Ainsworth et al., Git Re-Basin, ICLR 2023): the permutation baseline of LEWC.

For each hidden layer k of an MLP, the permutation P_k of model B's units maximises the sum of inner products of
A's and B's weights around that layer, given the other layers' permutations:

    P_k = argmax_P  < W_A^k, P W_B^k P_{k-1}^T > + < b_A^k, P b_B^k > + < W_A^{k+1}, P_{k+1} W_B^{k+1} P^T >,

a linear assignment problem (``scipy.optimize.linear_sum_assignment`` on the similarity matrix). Layers are
visited in a random order until a full pass improves no layer (a fixed point). Permuting hidden units (and any
BatchNorm1d directly after the layer) leaves the function computed by the network unchanged.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment
from torch import nn

from iclr26.checks import check_array, check_int
from iclr26.optim.lewc.merging import check_same_architecture

__all__ = ["permute_hidden_units", "weight_matching", "weight_matching_permute"]

ELEMENTWISE = (nn.ReLU, nn.LeakyReLU, nn.GELU, nn.Tanh, nn.Sigmoid, nn.SiLU, nn.ELU, nn.Identity, nn.Dropout)


def _mlp_layers(model: nn.Module, name: str) -> list[tuple[nn.Linear, nn.BatchNorm1d | None]]:
    """The chain of (Linear, following BatchNorm1d or None) of an MLP; ``ValueError`` for anything else."""
    layers: list[tuple[nn.Linear, nn.BatchNorm1d | None]] = []
    for mod_name, mod in model.named_modules():
        if list(mod.children()):
            if not isinstance(mod, nn.Sequential) and mod is not model:
                raise ValueError(f"{name}: weight matching supports MLPs only, found container {mod_name!r}")
            continue
        if isinstance(mod, nn.Linear):
            layers.append((mod, None))
        elif isinstance(mod, nn.BatchNorm1d) and layers and layers[-1][1] is None:
            layers[-1] = (layers[-1][0], mod)
        elif not isinstance(mod, (*ELEMENTWISE, nn.Flatten)):
            raise ValueError(
                f"{name}: weight matching supports MLPs of Linear, BatchNorm1d and elementwise activations; "
                f"found {type(mod).__name__} at {mod_name!r}"
            )
    if len(layers) < 2:
        raise ValueError(
            f"{name} needs at least two Linear layers (one hidden layer) to permute, got {len(layers)}"
        )
    return layers


@torch.no_grad()
def permute_hidden_units(model: nn.Module, perms: list[np.ndarray]) -> nn.Module:
    """A copy of the MLP `model` whose hidden units of layer k are reordered as ``perms[k]``.

    Unit i of the new layer k is unit ``perms[k][i]`` of the old one: rows of W^k, b^k (and BatchNorm1d
    parameters and statistics) are permuted, and so are the columns of W^{k+1}.
    """
    out = copy.deepcopy(model)
    layers = _mlp_layers(out, "model")
    if len(perms) != len(layers) - 1:
        raise ValueError(
            f"perms must hold one permutation per hidden layer ({len(layers) - 1}), got {len(perms)}"
        )
    for k, perm in enumerate(perms):
        lin, bn = layers[k]
        p = torch.as_tensor(check_array(f"perms[{k}]", perm, ndim=1, integer=True), dtype=torch.long)
        if sorted(p.tolist()) != list(range(lin.out_features)):
            raise ValueError(f"perms[{k}] must be a permutation of range({lin.out_features})")
        lin.weight.copy_(lin.weight[p])  # W^k <- P W^k
        if lin.bias is not None:
            lin.bias.copy_(lin.bias[p])
        if bn is not None:
            for t in (bn.weight, bn.bias, bn.running_mean, bn.running_var):
                if t is not None:
                    t.copy_(t[p])
        nxt = layers[k + 1][0]
        nxt.weight.copy_(nxt.weight[:, p])  # W^{k+1} <- W^{k+1} P^T
    return out


def _unit_params(lin: nn.Linear, bn: nn.BatchNorm1d | None) -> list[np.ndarray]:
    vecs = [lin.bias] if lin.bias is not None else []
    if bn is not None:
        vecs += [t for t in (bn.weight, bn.bias) if t is not None]
    return [v.detach().to("cpu", torch.float64).numpy() for v in vecs]


def weight_matching(
    model_a: nn.Module, model_b: nn.Module, max_iter: int = 100, seed: int = 0
) -> list[np.ndarray]:
    """Permutations of B's hidden units that align B's weights with A's (one index array per hidden layer).

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    >>> perm = [torch.randperm(5).numpy()]
    >>> found = weight_matching(net, permute_hidden_units(net, perm))
    >>> bool((perm[0][found[0]] == range(5)).all())
    True
    """
    check_same_architecture(model_a, model_b)
    check_int("max_iter", max_iter, low=1)
    check_int("seed", seed, low=0)
    la, lb = _mlp_layers(model_a, "model_a"), _mlp_layers(model_b, "model_b")
    wa = [lin.weight.detach().to("cpu", torch.float64).numpy() for lin, _ in la]
    wb = [lin.weight.detach().to("cpu", torch.float64).numpy() for lin, _ in lb]
    ua, ub = [_unit_params(*x) for x in la], [_unit_params(*x) for x in lb]
    hidden = len(la) - 1
    perms = [np.arange(wa[k].shape[0]) for k in range(hidden)]
    rng = np.random.default_rng(seed)
    for _ in range(max_iter):
        improved = False
        for k in rng.permutation(hidden):
            w_in_b = wb[k] if k == 0 else wb[k][:, perms[k - 1]]  # B's incoming weights, inputs aligned
            w_out_b = (
                wb[k + 1] if k + 1 == hidden else wb[k + 1][perms[k + 1]]
            )  # B's outgoing, outputs aligned
            sim = wa[k] @ w_in_b.T + wa[k + 1].T @ w_out_b  # S[i, j] = <A unit i, B unit j>
            for va, vb in zip(ua[k], ub[k]):
                sim += np.outer(va, vb)
            _, cols = linear_sum_assignment(sim, maximize=True)
            old = sim[np.arange(len(cols)), perms[k]].sum()
            new = sim[np.arange(len(cols)), cols].sum()
            if new > old + 1e-12 * max(1.0, abs(old)):
                perms[k] = cols
                improved = True
        if not improved:
            break
    return perms


def weight_matching_permute(
    model_a: nn.Module, model_b: nn.Module, max_iter: int = 100, seed: int = 0
) -> nn.Module:
    """A copy of `model_b` with its hidden units permuted by weight matching to align with `model_a`.

    It computes the same function as `model_b`; merging it linearly with `model_a` is the permutation baseline.

    Examples
    --------
    >>> import torch
    >>> mlp = lambda: torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    >>> a, b = mlp(), mlp()
    >>> x = torch.randn(4, 3)
    >>> torch.allclose(weight_matching_permute(a, b)(x), b(x), atol=1e-6)
    True
    """
    return permute_hidden_units(model_b, weight_matching(model_a, model_b, max_iter, seed))
