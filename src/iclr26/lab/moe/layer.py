"""A mixture-of-experts FFN over any router, a drop-in FFN for :class:`iclr26.lab.transformer.Transformer`.

    gates, aux = router(x)                       (batch, seq, E), see :mod:`iclr26.lab.moe.router`
    y = sum_e gates_e * Expert_e(x)              Expert_e(x) = W2_e act(W1_e x + b1_e) + b2_e

``dispatch="dense"`` runs every expert on every token (toy-scale training); ``dispatch="sparse"`` runs each expert
only on the tokens whose gate is non-zero, which gives the same output.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_bool, check_choice, check_int, check_tensor
from iclr26.lab.moe.router import Router, check_module
from iclr26.lab.transformer import BlockSpec, check_sequence_input

__all__ = ["ExpertBank", "MoEFFN", "moe_aux_loss", "moe_ffn", "moe_layers"]

DISPATCH = ("dense", "sparse")
ACTIVATIONS = ("gelu", "swiglu")


class ExpertBank(nn.Module):
    """E two-layer FFN experts with stacked weights: GELU MLPs, or SwiGLU (``W_d (silu(W_g x) * W_u x)``)."""

    def __init__(
        self, d_model: int, d_hidden: int, n_experts: int, activation: str = "gelu", bias: bool = True
    ) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)
        self.d_hidden = check_int("d_hidden", d_hidden, low=1)
        self.n_experts = check_int("n_experts", n_experts, low=1)
        bias = check_bool("bias", bias)
        check_choice("activation", activation, ACTIVATIONS)
        self.activation = activation
        width = 2 * d_hidden if activation == "swiglu" else d_hidden
        self.w_in = nn.Parameter(torch.empty(n_experts, d_model, width))
        self.w_out = nn.Parameter(torch.empty(n_experts, d_hidden, d_model))
        self.b_in = nn.Parameter(torch.zeros(n_experts, width)) if bias else None
        self.b_out = nn.Parameter(torch.zeros(n_experts, d_model)) if bias else None
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Weights ~ N(0, 1/fan_in), biases zero (the lab MLP's initialisation)."""
        with torch.no_grad():
            self.w_in.normal_(0.0, self.d_model**-0.5, generator=generator)
            self.w_out.normal_(0.0, self.d_hidden**-0.5, generator=generator)
            for b in (self.b_in, self.b_out):
                if b is not None:
                    b.zero_()

    def _act(self, pre: Tensor) -> Tensor:
        if self.activation == "gelu":
            return F.gelu(pre)
        gate, up = pre.chunk(2, dim=-1)
        return F.silu(gate) * up

    def dense(self, x: Tensor) -> Tensor:
        """Every expert on every token: (N, d_model) -> (N, E, d_model)."""
        pre = torch.einsum("nd,edh->neh", x, self.w_in)
        if self.b_in is not None:
            pre = pre + self.b_in
        out = torch.einsum("neh,ehd->ned", self._act(pre), self.w_out)
        return out if self.b_out is None else out + self.b_out

    def expert(self, e: int, x: Tensor) -> Tensor:
        """Expert `e` on tokens (n, d_model) -> (n, d_model)."""
        pre = x @ self.w_in[e]
        if self.b_in is not None:
            pre = pre + self.b_in[e]
        out = self._act(pre) @ self.w_out[e]
        return out if self.b_out is None else out + self.b_out[e]


class MoEFFN(nn.Module):
    """Mixture-of-experts FFN: ``y = sum_e g_e(x) Expert_e(x)`` with gates from any :class:`Router`.

    Parameters
    ----------
    d_model, d_hidden, n_experts : token width, expert hidden width, number of experts.
    router : a :class:`Router` with the same ``d_model`` and ``n_experts``.
    dispatch : ``"dense"`` (all experts on all tokens) or ``"sparse"`` (only tokens with a non-zero gate).
    activation, bias : expert MLP form (``"gelu"`` with biases by default, ``"swiglu"`` as in Mixtral).
    layer : the block index, used in error messages.

    After each forward, ``last_aux`` holds the router's aux dict and ``last_gates`` the detached gates.

    Examples
    --------
    >>> from iclr26.lab.moe import TopKSoftmaxRouter
    >>> moe = MoEFFN(16, 32, 4, TopKSoftmaxRouter(16, 4, k=1)).eval()
    >>> moe(torch.randn(2, 3, 16)).shape
    torch.Size([2, 3, 16])
    """

    def __init__(
        self,
        d_model: int,
        d_hidden: int,
        n_experts: int,
        router: Router,
        dispatch: str = "dense",
        activation: str = "gelu",
        bias: bool = True,
        layer: int = 0,
    ) -> None:
        super().__init__()
        if not isinstance(router, Router):
            raise TypeError(f"router must be a dirmoe Router, got {type(router).__name__}")
        if router.d_model != d_model:
            raise ValueError(f"router d_model={router.d_model} does not match the MoE d_model={d_model}")
        if router.n_experts != n_experts:
            raise ValueError(
                f"router n_experts={router.n_experts} does not match the MoE n_experts={n_experts}"
            )
        check_choice("dispatch", dispatch, DISPATCH)
        check_int("layer", layer, low=0)
        self.d_model, self.n_experts, self.layer, self.dispatch = d_model, n_experts, layer, dispatch
        self.router = router
        self.experts = ExpertBank(d_model, d_hidden, n_experts, activation, bias)
        self.last_aux: dict[str, Tensor] = {}
        self.last_gates: Tensor | None = None

    def forward(self, x: Tensor) -> Tensor:
        check_sequence_input(x, self.d_model)
        gates, aux = self.router(x)
        for key, value in (("gates", gates), *aux.items()):
            if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                check_tensor("x", x, finite=True)  # a non-finite input is the caller's, not the router's
                raise ValueError(f"router of MoE layer {self.layer} returned non-finite {key}")
        self.last_aux, self.last_gates = aux, gates.detach()
        flat, g = x.reshape(-1, self.d_model), gates.reshape(-1, self.n_experts)
        if self.dispatch == "dense":
            y = torch.einsum("ne,ned->nd", g, self.experts.dense(flat))
        else:
            y = torch.zeros_like(flat)
            for e in range(self.n_experts):
                idx = torch.nonzero(g[:, e]).squeeze(-1)
                if idx.numel():
                    y = y.index_add(0, idx, g[idx, e, None] * self.experts.expert(e, flat[idx]))
        return y.reshape(x.shape)


def moe_ffn(
    router_factory: Callable[[int, int], Router],
    n_experts: int,
    d_hidden: int | None = None,
    dispatch: str = "dense",
    activation: str = "gelu",
) -> Callable[[BlockSpec], MoEFFN]:
    """An FFN factory for ``Transformer(..., ffn=moe_ffn(...))``.

    ``router_factory(d_model, n_experts)`` builds a fresh router per layer; experts get ``d_hidden`` (default
    the block's ``d_mlp``).

    Examples
    --------
    >>> from iclr26.lab.moe import TopKSoftmaxRouter
    >>> from iclr26.lab.transformer import Transformer
    >>> ffn = moe_ffn(lambda d, e: TopKSoftmaxRouter(d, e, k=2), n_experts=4, d_hidden=16)
    >>> model = Transformer(vocab_size=10, seq_len=6, d_model=16, n_layers=2, n_heads=2, ffn=ffn, init_seed=0)
    >>> model(torch.zeros(1, 6, dtype=torch.long)).shape
    torch.Size([1, 6, 10])
    """
    if not callable(router_factory):
        raise TypeError(
            f"router_factory must be a callable (d_model, n_experts) -> Router, got {router_factory!r}"
        )
    check_int("n_experts", n_experts, low=2)
    if d_hidden is not None:
        check_int("d_hidden", d_hidden, low=1)
    check_choice("dispatch", dispatch, DISPATCH)
    check_choice("activation", activation, ACTIVATIONS)

    def factory(spec: BlockSpec) -> MoEFFN:
        router = router_factory(spec.d_model, n_experts)
        hidden = spec.d_mlp if d_hidden is None else d_hidden
        return MoEFFN(spec.d_model, hidden, n_experts, router, dispatch, activation, spec.bias, spec.layer)

    return factory


def moe_layers(model: nn.Module) -> list[MoEFFN]:
    """The MoE FFNs inside `model`, in module order."""
    check_module("model", model)
    return [m for m in model.modules() if isinstance(m, MoEFFN)]


def moe_aux_loss(model: nn.Module) -> Tensor:
    """Sum of the routers' auxiliary losses from the last forward of every MoE layer in `model`."""
    losses = [m.last_aux["loss"] for m in moe_layers(model) if "loss" in m.last_aux]
    if not losses:
        raise ValueError("model has no MoE layer that has run a forward pass")
    return torch.stack(losses).sum()
