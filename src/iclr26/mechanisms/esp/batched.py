"""A batched forward pass of P one-layer ``AttnOnlyTransformer`` parameter sets on ESP inputs.

"Two (narrow) heads are better than (an arbitrarily wide) one", ICLR 2026, OpenReview RRmPbbZsvl. The
reference is the shared ``AttnOnlyTransformer`` (one model at a time); this is its fast path for ESP, equal
to it up to float rounding (a test holds them equal). It computes only what the answer at ``#`` needs:

* the input x_t = E[token_t] + P[t] takes one of at most vocab x 4 values, so LN_1, the keys and the
  per-head outputs are computed once per (token, position) pair that occurs, in a table; each instance
  gathers its four scores and mixes its four rows of per-head outputs;
* the query is always ``#`` at the last position, so every instance shares one query per head (causal
  attention from the last position sees all four keys):

    q_h = LN_1(E[#] + P[4]) W_Q[h] + b_Q[h]
    a_{h,t} = softmax_t( q_h . (LN_1(x_t) W_K[h] + b_K[h]) / sqrt(d_head) )
    h_# = x_# + sum_h sum_t a_{h,t} (LN_1(x_t) W_V[h] + b_V[h]) W_O[h] + b_O
    logits = (g_f * (h_# - mean) / std) E^T          (final LayerNorm without bias, tied unembedding)

Parameters are a dict of stacked tensors (P, ...) keyed like ``AttnOnlyTransformer.named_parameters()``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor
from torch.func import stack_module_state

from iclr26.checks import check_tensor
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp.task import SEQ_LEN

__all__ = ["batched_esp_logits", "stack_models"]

_EPS = 1e-5  # LayerNorm eps of the shared model


def stack_models(models: Sequence[AttnOnlyTransformer]) -> dict[str, Tensor]:
    """Stack the parameters of same-shaped models along a new leading axis (P, ...), as leaf tensors."""
    models = list(models)
    if not models or not all(isinstance(m, AttnOnlyTransformer) for m in models):
        raise TypeError("models must be a non-empty sequence of AttnOnlyTransformer")
    params, _ = stack_module_state(list(models))
    return params


def _layer_norm(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """LayerNorm over the last axis with per-set gain (P, d) and bias, for x (P, ..., d)."""
    shape = (weight.shape[0],) + (1,) * (x.ndim - 2) + (weight.shape[1],)
    y = torch.nn.functional.layer_norm(x, x.shape[-1:], eps=_EPS) * weight.view(shape)
    return y if bias is None else y + bias.view(shape)


def batched_esp_logits(params: dict[str, Tensor], tokens: Tensor) -> Tensor:
    """Logits (P, N, vocab) at the ``#`` position for P parameter sets, each on its own instances (P, N, 4).

    Every row of `tokens` must end in the query token (the last vocabulary id), as ESP instances do.
    """
    check_tensor("tokens", tokens, floating=False)
    W_E, W_pos = params["W_E"], params["positions.W_pos"]
    P, vocab, d = W_E.shape
    if tokens.ndim != 3 or tokens.shape[0] != P or tokens.shape[2] != SEQ_LEN:
        raise ValueError(f"tokens must have shape ({P}, N, {SEQ_LEN}), got {tuple(tokens.shape)}")
    if tokens.numel() and (bool((tokens[..., -1] != vocab - 1).any()) or int(tokens.max()) >= vocab):
        raise ValueError(
            f"tokens must be ESP instances over {vocab} ids ending in the query token {vocab - 1}"
        )
    W_Q, W_K, W_V, W_O = (params[f"blocks.0.attn.{w}"] for w in ("W_Q", "W_K", "W_V", "W_O"))
    b_Q, b_K, b_V, b_O = (params.get(f"blocks.0.attn.{b}") for b in ("b_Q", "b_K", "b_V", "b_O"))
    H, d_head = W_Q.shape[1], W_Q.shape[3]
    # table over the (token, position) pairs that occur: x = E[token] + P[position], shape (P, U, d)
    rows = tokens * SEQ_LEN + torch.arange(SEQ_LEN, device=tokens.device)  # (P, N, 4) pair index per key
    used, index = torch.unique(rows, return_inverse=True)
    x = W_E[:, used // SEQ_LEN] + W_pos[:, used % SEQ_LEN]
    y = _layer_norm(x, params["blocks.0.ln1.weight"], params.get("blocks.0.ln1.bias"))
    keys = torch.einsum("ptd,phde->pthe", y, W_K)
    values = torch.einsum("ptd,phde->pthe", y, W_V)
    if b_K is not None:
        keys, values = keys + b_K[:, None], values + b_V[:, None]
    head_out = torch.einsum("pthe,phem->pthm", values, W_O)  # (P, U, H, d): what each head writes per key
    query_row = int(index[0, 0, -1])  # `#` at the last position, the same in every instance
    q = torch.einsum("pd,phde->phe", y[:, query_row], W_Q) + (0 if b_Q is None else b_Q)
    table_scores = torch.einsum("phe,pthe->pth", q, keys) * d_head**-0.5  # (P, U, H)
    N, U = tokens.shape[1], used.numel()
    scores = torch.gather(table_scores, 1, index.reshape(P, -1, 1).expand(-1, -1, H)).view(P, N, SEQ_LEN, H)
    weights = torch.softmax(scores, dim=2)
    # scatter the weights onto the table rows, (P, N, U, H), and mix the table's per-head outputs with one
    # batched matmul (the four keys of an instance are distinct rows: they differ in position)
    dense = torch.zeros(P, N, U, H, dtype=weights.dtype, device=weights.device)
    dense = dense.scatter(2, index[..., None].expand(-1, -1, -1, H), weights)
    attn_out = torch.bmm(dense.view(P, N, U * H), head_out.reshape(P, U * H, d))
    attn_out = attn_out + (0 if b_O is None else b_O[:, None])
    resid = x[:, query_row][:, None] + attn_out  # h_# = x_# + attention output
    final = params.get("ln_final.weight")
    if final is not None:
        resid = _layer_norm(resid, final, None)
    return torch.einsum("pnd,pvd->pnv", resid, W_E)
