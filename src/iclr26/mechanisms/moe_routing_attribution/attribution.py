"""Cross-layer routing-contribution decomposition, influence measures and the rank-change intervention.

At MoE layer ``l`` of a pre-norm transformer the router reads ``Norm(h_l)`` with

    h_l = e + p + sum_{j<l} (a_j + m_j) + a_l          (token / position embedding, attention and MoE outputs)

and scores expert ``n`` with ``s_{l,n} = g_{l,n} . Norm(h_l)``. Sharing the normaliser's scale of the whole input
among the components makes the map linear (exact given ``sigma(h_l)``):

    phi_{c,n} = (g_{l,n} * gamma) . centre(c) / sigma(h_l),       sum_c phi_{c,n} + (g_{l,n} . beta) = s_{l,n}

with ``centre(c) = c - mean(c)`` for LayerNorm (the centring is linear too) and ``centre(c) = c`` for RMSNorm.
Components split further: an attention output into its heads (``W_O^h z^h``, plus the output bias), an MoE output
into its experts (``gate_{j,e} E_{j,e}(x_j)``).

Influence of a component (Proposition 1 of the paper): the variance of its sub-scores across the receiver's N
experts, ``Var_n phi_{c,n}`` (a shift shared by all experts cannot change the top-k); promoting / inhibiting scores
APS / ANS are the means over experts of the positive / negative parts. The causal check AARV zeroes a component's
sub-scores, re-ranks the experts and averages ``|rank_orig(e) - rank_new(e)|`` over the original top-k.

Component names: ``"embed"``, ``"pos"``, ``"attn{j}"`` (``"attn{j}.h{i}"``, ``"attn{j}.bias"`` with heads),
``"moe{j}"`` (``"moe{j}.e{k}"`` with experts), ``"bias"`` (the norm's additive bias and router bias); layers are
0-based block indices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_array, check_int, check_tensor
from iclr26.lab.moe import MoEFFN

__all__ = [
    "InfluenceMatrix",
    "RoutingTrace",
    "aarv",
    "ablation_contributions",
    "cofiring",
    "decompose",
    "expert_firing",
    "influence",
    "influence_matrix",
    "linear_subscores",
    "rank_change",
    "router_scores",
    "trace_routing",
]


def _router(model: nn.Module, layer: object) -> tuple[nn.Module, Tensor, Tensor | None]:
    """(norm, router weight (E, d), router bias) of MoE block `layer`; ValueError if there is no router there."""
    blocks = getattr(model, "blocks", None)
    if blocks is None:
        raise TypeError(f"model must be a lab Transformer with .blocks, got {type(model).__name__}")
    check_int("layer (a block index)", layer, 0, len(blocks) - 1, type_error=True)
    block = blocks[layer]
    mlp = getattr(block, "mlp", None)
    gate = getattr(getattr(mlp, "router", None), "gate", None)
    if not isinstance(mlp, MoEFFN) or not isinstance(gate, nn.Linear):
        raise ValueError(
            f"layer {layer} has no router (its FFN is {type(mlp).__name__}, not a linear-gate MoE)"
        )
    return block.ln2, gate.weight, gate.bias


def _check_tokens(model: nn.Module, tokens: object) -> Tensor:
    if not isinstance(tokens, Tensor):
        raise TypeError(f"tokens must be a torch.Tensor of ids, got {type(tokens).__name__}")
    if tokens.ndim != 2:
        raise ValueError(f"tokens must have shape (batch, seq), got {tuple(tokens.shape)}")
    if tokens.shape[1] > model.seq_len:
        raise ValueError(f"tokens length {tokens.shape[1]} exceeds the model context seq_len={model.seq_len}")
    model.check_tokens(tokens)
    return tokens


def _norm_parts(norm: nn.Module, h: Tensor) -> tuple[Tensor, Tensor, Tensor | None, bool]:
    """(1/scale per token, gamma, beta, centred) of a LayerNorm or RMSNorm applied to `h` (T, d)."""
    d = h.shape[-1]
    weight = getattr(norm, "weight", None)
    gamma = torch.ones(d, dtype=h.dtype, device=h.device) if weight is None else weight.detach().to(h.dtype)
    bias = getattr(norm, "bias", None)
    beta = None if bias is None else bias.detach().to(h.dtype)
    if isinstance(norm, nn.LayerNorm):
        inv = torch.rsqrt(h.var(-1, unbiased=False) + norm.eps)
        return inv, gamma, beta, True
    if isinstance(norm, nn.RMSNorm):
        eps = norm.eps if norm.eps is not None else torch.finfo(h.dtype).eps
        return torch.rsqrt(h.pow(2).mean(-1) + eps), gamma, beta, False
    raise TypeError(f"norm must be nn.LayerNorm or nn.RMSNorm, got {type(norm).__name__}")


def _apply_norm(norm: nn.Module, x: Tensor) -> Tensor:
    """`norm` (LayerNorm or RMSNorm) applied to float64 `x` with its own parameters in float64."""
    w = None if getattr(norm, "weight", None) is None else norm.weight.detach().double()
    if isinstance(norm, nn.LayerNorm):
        b = None if norm.bias is None else norm.bias.detach().double()
        return nn.functional.layer_norm(x, norm.normalized_shape, w, b, norm.eps)
    if isinstance(norm, nn.RMSNorm):
        return nn.functional.rms_norm(x, norm.normalized_shape, w, norm.eps)
    raise TypeError(f"norm must be nn.LayerNorm or nn.RMSNorm, got {type(norm).__name__}")


def linear_subscores(
    components: Mapping[str, Tensor], norm: nn.Module, weight: Tensor, bias: Tensor | None = None
) -> dict[str, Tensor]:
    """Sub-scores ``phi_c`` (T, E) of components (T, d) whose sum is the norm's input, for router rows `weight`.

    The result has one entry per component plus ``"bias"`` when the norm or the router has an additive bias;
    the entries sum to ``Norm(sum_c c) @ weight.T + bias`` exactly (shared scale, linear centring).
    """
    if not components:
        raise ValueError("components must be a non-empty mapping of (tokens, d_model) tensors")
    check_tensor("weight", weight, ndim=2, floating=True)
    if bias is not None:
        check_tensor("bias", bias, floating=True, shape=(weight.shape[0],))
    for name, c in components.items():
        check_tensor(f"components[{name!r}]", c, ndim=2, floating=True)
    w = weight.detach().double()
    h = sum(c.double() for c in components.values())
    if h.ndim != 2 or h.shape[-1] != w.shape[-1]:
        raise ValueError(
            f"components must be (tokens, d) tensors with d = weight.shape[1] = {w.shape[-1]}, got {tuple(h.shape)}"
        )
    inv, gamma, beta, centred = _norm_parts(norm, h)
    wg = w * gamma  # (E, d)
    out: dict[str, Tensor] = {}
    for name, c in components.items():
        c = c.double()
        if centred:
            c = c - c.mean(-1, keepdim=True)
        out[name] = (c @ wg.T) * inv[:, None]
    const = torch.zeros(w.shape[0], dtype=torch.float64, device=w.device)
    if beta is not None:
        const = const + w @ beta
    if bias is not None:
        const = const + bias.detach().double()
    if beta is not None or bias is not None:
        out["bias"] = const.expand(h.shape[0], -1).clone()
    return out


@dataclass
class RoutingTrace:
    """One forward's activations needed to decompose the routing of every MoE layer (float64, tokens flattened)."""

    embed: Tensor  # (T, d)
    pos: Tensor | None  # (T, d)
    attn: list[Tensor]  # per layer (T, d)
    attn_heads: list[Tensor] | None  # per layer (T, H, d)
    attn_bias: list[Tensor | None]
    moe: list[Tensor]  # per layer (T, d)
    moe_experts: list[Tensor] | None  # per layer (T, E, d), gate-weighted expert outputs
    resid_mid: list[Tensor]  # per layer (T, d)
    firing: list[Tensor]  # per layer (T, E) bool, selected experts

    def __post_init__(self) -> None:
        check_tensor("embed", self.embed, ndim=2, floating=True)
        shape = tuple(self.embed.shape)
        if self.pos is not None:
            check_tensor("pos", self.pos, floating=True, shape=shape)
        for name in ("attn", "moe", "resid_mid"):
            for j, x in enumerate(getattr(self, name)):
                check_tensor(f"{name}[{j}]", x, floating=True, shape=shape)
        for j, x in enumerate(self.firing):
            check_tensor(f"firing[{j}]", x, ndim=2, shape=(shape[0], None))

    def components(self, layer: int, heads: bool = False, experts: bool = False) -> dict[str, Tensor]:
        """The residual components that sum to ``h_layer`` (the input of layer `layer`'s MoE norm)."""
        out: dict[str, Tensor] = {"embed": self.embed}
        if self.pos is not None:
            out["pos"] = self.pos
        for j in range(layer + 1):
            if heads:
                if self.attn_heads is None:
                    raise ValueError("heads=True needs a trace made with heads=True")
                for i in range(self.attn_heads[j].shape[1]):
                    out[f"attn{j}.h{i}"] = self.attn_heads[j][:, i]
                if self.attn_bias[j] is not None:
                    out[f"attn{j}.bias"] = self.attn_bias[j].expand_as(self.attn[j])
            else:
                out[f"attn{j}"] = self.attn[j]
            if j == layer:
                break
            if experts:
                if self.moe_experts is None:
                    raise ValueError("experts=True needs a trace made with experts=True")
                for e in range(self.moe_experts[j].shape[1]):
                    out[f"moe{j}.e{e}"] = self.moe_experts[j][:, e]
            else:
                out[f"moe{j}"] = self.moe[j]
        return out


def trace_routing(
    model: nn.Module, tokens: Tensor, heads: bool = False, experts: bool = False
) -> RoutingTrace:
    """Run `model` once on `tokens` (batch, seq) with hooks and keep what the decomposition needs."""
    _check_tokens(model, tokens)
    n = len(model.blocks)
    for j in range(n):
        _router(model, j)
    names = ["hook_embed", "hook_pos_embed"]
    for j in range(n):
        names += [f"blocks.{j}.hook_{k}" for k in ("attn_out", "mlp_out", "mlp_in", "resid_mid")]
        if heads:
            names.append(f"blocks.{j}.attn.hook_result")
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            _, cache = model.run_with_cache(tokens, names)
            b, s = tokens.shape
            t = b * s

            def flat(x: Tensor) -> Tensor:
                return x.reshape(t, *x.shape[2:]).double()

            pos = cache.get("hook_pos_embed")
            pos = None if pos is None else pos.double().expand(b, s, -1).reshape(t, -1)
            attn, moe, mids, fire = [], [], [], []
            attn_heads: list[Tensor] | None = [] if heads else None
            moe_experts: list[Tensor] | None = [] if experts else None
            attn_bias: list[Tensor | None] = []
            for j, block in enumerate(model.blocks):
                attn.append(flat(cache[f"blocks.{j}.hook_attn_out"]))
                moe.append(flat(cache[f"blocks.{j}.hook_mlp_out"]))
                mids.append(flat(cache[f"blocks.{j}.hook_resid_mid"]))
                b_o = getattr(block.attn, "b_O", None)
                attn_bias.append(None if b_o is None else b_o.detach().double())
                if attn_heads is not None:
                    attn_heads.append(flat(cache[f"blocks.{j}.attn.hook_result"]))
                x = cache[f"blocks.{j}.hook_mlp_in"].reshape(t, -1)
                gates, _ = block.mlp.router(x)
                fire.append(gates > 0)
                if moe_experts is not None:
                    moe_experts.append(gates.double()[..., None] * block.mlp.experts.dense(x).double())
    finally:
        model.train(was_training)
    return RoutingTrace(
        embed=flat(cache["hook_embed"]),
        pos=pos,
        attn=attn,
        attn_heads=attn_heads,
        attn_bias=attn_bias,
        moe=moe,
        moe_experts=moe_experts,
        resid_mid=mids,
        firing=fire,
    )


def decompose(
    model: nn.Module,
    tokens: Tensor,
    layer: int,
    heads: bool = False,
    experts: bool = False,
    trace: RoutingTrace | None = None,
) -> dict[str, Tensor]:
    """Sub-scores ``{component: (tokens, n_experts)}`` of MoE layer `layer`'s router scores (float64).

    They sum to :func:`router_scores` (up to float64 rounding). `heads` / `experts` split attention outputs into
    heads and MoE outputs into experts; pass a `trace` from :func:`trace_routing` to reuse one forward.
    """
    norm, weight, bias = _router(model, layer)
    if trace is None:
        trace = trace_routing(model, tokens, heads=heads, experts=experts)
    return linear_subscores(trace.components(layer, heads, experts), norm, weight, bias)


def router_scores(model: nn.Module, tokens: Tensor, layer: int) -> Tensor:
    """The router's assignment scores (pre-softmax logits, (tokens, n_experts), float64) at MoE layer `layer`."""
    norm, weight, bias = _router(model, layer)
    _check_tokens(model, tokens)
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens, [f"blocks.{layer}.hook_resid_mid"])
        h = cache[f"blocks.{layer}.hook_resid_mid"].reshape(-1, weight.shape[1]).double()
        y = _apply_norm(norm, h)
        s = y @ weight.detach().double().T
        return s if bias is None else s + bias.detach().double()


def influence(sub: Tensor) -> dict[str, Tensor]:
    """Per-token influence of one component's sub-scores (tokens, N): variance across experts, APS and ANS."""
    if not isinstance(sub, Tensor) or sub.ndim != 2 or sub.shape[1] < 2:
        raise ValueError(f"sub must be a (tokens, n_experts >= 2) tensor, got {getattr(sub, 'shape', sub)!r}")
    check_tensor("sub", sub, floating=True)
    return {
        "var": sub.var(-1, unbiased=False),
        "aps": sub.clamp(min=0).mean(-1),
        "ans": sub.clamp(max=0).mean(-1),
    }


def _ranks(scores: Tensor) -> Tensor:
    """Rank of every expert (0 = highest score), ties broken by index."""
    order = torch.sort(-scores, dim=-1, stable=True).indices
    return torch.empty_like(order).scatter_(
        -1, order, torch.arange(scores.shape[-1], device=scores.device).expand_as(order)
    )


def rank_change(scores: Tensor, sub: Tensor, k: int) -> Tensor:
    """Per-token AARV: mean over the original top-`k` experts of ``|rank(scores) - rank(scores - sub)|``."""
    check_tensor("scores", scores)
    check_tensor("sub", sub)
    if scores.shape != sub.shape or scores.ndim != 2:
        raise ValueError(
            f"scores and sub must be equal (tokens, n_experts) shapes, got {scores.shape}, {sub.shape}"
        )
    check_int("k", k, 1, scores.shape[1])
    check_tensor("scores", scores, floating=True, finite=True)
    check_tensor("sub", sub, floating=True, finite=True)
    before, after = _ranks(scores), _ranks(scores - sub)
    top = before < k
    return ((before - after).abs().double() * top).sum(-1) / k


def aarv(
    model: nn.Module,
    tokens: Tensor,
    component: str,
    layer: int,
    k: int | None = None,
    trace: RoutingTrace | None = None,
) -> float:
    """Average absolute rank variation of layer `layer`'s top-k experts when `component`'s sub-scores are zeroed.

    `k` defaults to the router's top-k. Component names follow :func:`decompose` (heads / experts splits are
    chosen from the name).
    """
    heads, experts = ".h" in component, ".e" in component
    if trace is not None and (
        (heads and trace.attn_heads is None) or (experts and trace.moe_experts is None)
    ):
        trace = None
    subs = decompose(model, tokens, layer, heads=heads, experts=experts, trace=trace)
    if component not in subs:
        raise ValueError(f"component {component!r} does not feed layer {layer}; known: {sorted(subs)[:8]}...")
    if k is None:
        k = int(model.blocks[layer].mlp.router.k)
    scores = sum(subs.values())
    return float(rank_change(scores, subs[component], k).mean())


def ablation_contributions(
    model: nn.Module, trace: RoutingTrace, layer: int, names: list[str] | None = None
) -> dict[str, Tensor]:
    """Dense ablation estimate: ``s(h) - s(h - c)`` with the norm recomputed, for layer-level components."""
    norm, weight, bias = _router(model, layer)
    comps = trace.components(layer)
    h = trace.resid_mid[layer]
    w = weight.detach().double()

    def score(x: Tensor) -> Tensor:
        return _apply_norm(norm, x) @ w.T

    with torch.no_grad():
        full = score(h)
        return {name: full - score(h - comps[name]) for name in (names or list(comps))}


@dataclass
class InfluenceMatrix:
    """Sender x receiver influence (NaN where the sender does not feed the receiver)."""

    senders: list[str]
    receivers: list[int]
    var: np.ndarray
    aps: np.ndarray
    ans: np.ndarray

    def __post_init__(self) -> None:
        shape = (len(self.senders), len(self.receivers))
        for name in ("var", "aps", "ans"):
            x = check_array(name, getattr(self, name), ndim=2)
            if x.shape != shape:
                raise ValueError(f"{name} must have shape (senders, receivers) = {shape}, got {x.shape}")

    def share(self) -> np.ndarray:
        """Influence as a share of the summed influence of all senders of each receiver."""
        return self.var / np.nansum(self.var, axis=0, keepdims=True)


def influence_matrix(
    model: nn.Module, tokens: Tensor, experts: bool = False, trace: RoutingTrace | None = None
) -> InfluenceMatrix:
    """Token-averaged variance-across-experts, APS and ANS of every sender at every MoE receiver layer."""
    if trace is None or (experts and trace.moe_experts is None):
        trace = trace_routing(model, tokens, experts=experts)
    n = len(model.blocks)
    per: dict[tuple[str, int], dict[str, float]] = {}
    senders: list[str] = []
    for layer in range(n):
        for name, sub in decompose(model, tokens, layer, experts=experts, trace=trace).items():
            if name == "bias":
                continue
            if name not in senders:
                senders.append(name)
            per[(name, layer)] = {key: float(v.mean()) for key, v in influence(sub).items()}
    mats = {key: np.full((len(senders), n), np.nan) for key in ("var", "aps", "ans")}
    for (name, layer), vals in per.items():
        for key, v in vals.items():
            mats[key][senders.index(name), layer] = v
    return InfluenceMatrix(senders, list(range(n)), mats["var"], mats["aps"], mats["ans"])


def expert_firing(trace: RoutingTrace) -> Tensor:
    """Selected-expert indicators (n_layers, tokens, n_experts) of a trace."""
    return torch.stack(trace.firing)


def cofiring(
    firing_a: Tensor, firing_b: Tensor, n_shuffles: int = 20, seed: int = 0
) -> dict[str, float | np.ndarray]:
    """Correlation of "expert e fired at layer a" with "expert e' fired at layer b" against a shuffled-token null.

    Returns the (E_a, E_b) phi-correlation matrix, its mean absolute value and the null's mean absolute value
    (tokens of `firing_b` permuted).
    """
    check_tensor("firing_a", firing_a)
    check_tensor("firing_b", firing_b)
    if firing_a.ndim != 2 or firing_b.ndim != 2 or firing_a.shape[0] != firing_b.shape[0]:
        raise ValueError(
            f"firing_a and firing_b must be (tokens, experts) with equal tokens, got "
            f"{tuple(firing_a.shape)} and {tuple(firing_b.shape)}"
        )
    check_int("n_shuffles", n_shuffles, low=1)
    check_int("seed", seed, low=0)
    for name, f in (("firing_a", firing_a), ("firing_b", firing_b)):
        if f.is_floating_point() and not bool(torch.isfinite(f).all()):
            raise ValueError(f"{name} must be finite (0/1 firing indicators)")
    a, b = firing_a.double().cpu().numpy(), firing_b.double().cpu().numpy()

    def corr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x = x - x.mean(0)
        y = y - y.mean(0)
        den = np.sqrt(np.outer((x * x).sum(0), (y * y).sum(0)))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, x.T @ y / np.where(den > 0, den, 1.0), 0.0)

    obs = corr(a, b)
    rng = np.random.default_rng(seed)
    null = [np.abs(corr(a, b[rng.permutation(len(b))])).mean() for _ in range(n_shuffles)]
    return {"corr": obs, "mean_abs": float(np.abs(obs).mean()), "null_mean_abs": float(np.mean(null))}
