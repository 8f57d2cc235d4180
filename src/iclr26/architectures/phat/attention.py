"""Positive-negative "X-shaped" attention of PHAT (arXiv 2602.00654) over a period grid (B, P, N, d):
offset axis P (position within the period), cycle axis N.

For every cycle column n, head pair h and sign e in {+, -} (queries/keys/values from one Linear(d -> 3d),
keys scaled by hd^-1/2):
    l^e[i, j] = <q^e_i, k^e_j>
    l~^e[i, j] = l^e[i, j] - sum_s softplus(l^e[i, s]) * I^e[i, s, j]          (periodic modulation)
    A = softmax_j(l~^+) - lambda_j * softmax_j(l~^-),  lambda = sigmoid(Linear(d -> H/2)) at the key j
    A~[n, m] = softmax_m(<q^+_{o,n}, k^+_{o,m}>)                              (period-aligned, N > 1 only)
    out = A x_offset (A~ x_cycle V) + lambda * Z;  DyT per head pair; concat; Linear(d -> d).
:func:`naive_pna` is a step-by-step loop reference of the same computation.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from iclr26.architectures.phat.periods import periodic_distance, periodic_modulation_index
from iclr26.checks import check_bool, check_float, check_int, check_tensor

__all__ = ["DyT", "PNAttention", "naive_pna", "stick_softplus"]

_CAP = math.log(32768)


def stick_softplus(x: torch.Tensor) -> torch.Tensor:
    """softplus(x), replaced by the identity above log(32768) (as in the released code)."""
    check_tensor("x", x, floating=True)
    return torch.where(x < _CAP, F.softplus(x), x)


class DyT(nn.Module):
    """Dynamic tanh normalisation: ``gamma * tanh(alpha x) + beta`` (scalar alpha, init 0.5)."""

    def __init__(self, dim: int, init_alpha: float = 0.5) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.tensor([check_float("init_alpha", init_alpha)]))
        self.beta = nn.Parameter(torch.zeros(dim))
        self.gamma = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, floating=True)
        if x.ndim < 1 or x.shape[-1] != self.gamma.shape[0]:
            raise ValueError(f"x must have shape (..., dim={self.gamma.shape[0]}), got {tuple(x.shape)}")
        return self.gamma * torch.tanh(self.alpha * x) + self.beta


class PNAttention(nn.Module):
    """Positive-negative attention over a period grid ``(batch, P offsets, N cycles, d)``.

    Flags mirror the released code's ablation switches: `offset` (period-offset attention), `modulation`
    (its periodic penalty), `negative` (the subtracted lambda-gated path), `aligned` (attention along cycles),
    `lambda_residual`, `head_norm` (DyT per head pair).

    Example
    -------
    >>> attn = PNAttention(16, 4)
    >>> attn(torch.randn(2, 6, 3, 16)).shape
    torch.Size([2, 6, 3, 16])
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int = 8,
        offset: bool = True,
        modulation: bool = True,
        negative: bool = True,
        aligned: bool = True,
        lambda_residual: bool = True,
        head_norm: bool = True,
    ) -> None:
        super().__init__()
        d_model = check_int("d_model", d_model, low=1)
        n_heads = check_int("n_heads", n_heads, low=2)
        if n_heads % 2:
            raise ValueError(f"n_heads must be even (heads come in +/- pairs), got {n_heads}")
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        for name, v in (
            ("offset", offset),
            ("modulation", modulation),
            ("negative", negative),
            ("aligned", aligned),
            ("lambda_residual", lambda_residual),
            ("head_norm", head_norm),
        ):
            check_bool(name, v)
        self.d_model, self.pairs, self.head_dim = d_model, n_heads // 2, d_model // n_heads
        self.offset, self.modulation, self.negative = offset, modulation, negative
        self.aligned, self.lambda_residual = aligned, lambda_residual
        self.qkv = nn.Linear(d_model, 3 * d_model)  # viewed as (pairs, 3 * head_dim, 2 signs)
        self.gate = nn.Linear(d_model, self.pairs)
        self.norm = DyT(2 * self.head_dim) if head_norm else nn.Identity()
        self.out = nn.Linear(d_model, d_model)
        for lin in (self.qkv, self.out):
            nn.init.xavier_uniform_(lin.weight)
            nn.init.zeros_(lin.bias)

    def projections(self, z: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """q, k (B, P, N, pairs, hd, 2; k scaled), v (B, P, N, pairs, 2 hd), lambda (B, P, N, pairs)."""
        check_tensor("z", z, ndim=4, floating=True, shape=(None, None, None, self.d_model))
        hd = self.head_dim
        qkv = self.qkv(z).unflatten(-1, (self.pairs, 3 * hd, 2))
        q, k, v = qkv.split(hd, dim=-2)
        return q, k * hd**-0.5, v.flatten(-2), torch.sigmoid(self.gate(z))

    def signed_weights(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """softmax_j of the (modulated) logits, (B, P_query, P_key, N, pairs, 2 signs)."""
        P, N = q.shape[1], q.shape[2]
        logits = torch.einsum("bingde,bjngde->bijnge", q, k)
        if self.modulation:
            idx = periodic_modulation_index(P, cyclic=N > 1).to(logits)
            logits = logits - torch.einsum("bisnge,isje->bijnge", stick_softplus(logits), idx)
        return torch.softmax(logits, dim=2)

    def offset_weights(self, q: torch.Tensor, k: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
        """A (B, P_query, P_key, N, pairs): modulated positive minus lambda-gated negative softmax."""
        attn = self.signed_weights(q, k)
        if not self.negative:
            return attn[..., 0]
        return attn[..., 0] - lam[:, None] * attn[..., 1]

    def aligned_weights(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """A~ (B, P, N_query, N_key, pairs) along the cycle axis from the positive queries/keys."""
        return torch.softmax(torch.einsum("bpngd,bpmgd->bpnmg", q[..., 0], k[..., 0]), dim=3)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        q, k, v, lam = self.projections(z)
        if self.aligned and z.shape[2] > 1:
            v = torch.einsum("bpnmg,bpmgd->bpngd", self.aligned_weights(q, k), v)
        if self.offset:
            v = torch.einsum("bijng,bjngd->bingd", self.offset_weights(q, k, lam), v)
        if self.lambda_residual:
            v = v + lam[..., None] * z.unflatten(-1, (self.pairs, -1))
        return self.out(self.norm(v).flatten(-2))


def naive_pna(attn: PNAttention, z: torch.Tensor) -> torch.Tensor:
    """Loop reference of :meth:`PNAttention.forward` (same parameters), one (cycle, pair, query) at a time."""
    check_tensor("z", z, ndim=4, floating=True, shape=(None, None, None, attn.d_model))
    B, P, N, _ = z.shape
    hd, G = attn.head_dim, attn.pairs
    W = attn.qkv.weight.view(G, 3 * hd, 2, -1)
    bias = attn.qkv.bias.view(G, 3 * hd, 2)
    dist = periodic_distance(P, cyclic=N > 1)
    lam = torch.sigmoid(attn.gate(z))  # (B, P, N, G)
    heads = []
    for g in range(G):

        def proj(part: int, e: int, g: int = g) -> torch.Tensor:  # (B, P, N, hd)
            rows = slice(part * hd, (part + 1) * hd)
            return z @ W[g, rows, e].T + bias[g, rows, e]

        q = [proj(0, e) for e in (0, 1)]
        k = [proj(1, e) / math.sqrt(hd) for e in (0, 1)]
        v = torch.stack([proj(2, 0), proj(2, 1)], -1).flatten(-2)  # (B, P, N, 2 hd), interleaved signs
        if attn.aligned and N > 1:
            rows = []
            for p in range(P):
                s = torch.einsum("bnd,bmd->bnm", q[0][:, p], k[0][:, p])
                rows.append(torch.softmax(s, -1) @ v[:, p])
            v = torch.stack(rows, 1)
        if attn.offset:
            cols = []
            for n in range(N):
                out_rows = []
                for i in range(P):
                    weights = []
                    for e in (0, 1):
                        logit = [(q[e][:, i, n] * k[e][:, j, n]).sum(-1) for j in range(P)]
                        mod = []
                        for j in range(P):
                            pen = torch.zeros(B)
                            for s in range(P):
                                if e == 1 and N > 1:
                                    use = s != i and dist[i, s] > dist[i, j]
                                else:
                                    use = s != i and dist[i, s] < dist[i, j]
                                if use or s == j:
                                    pen = pen + stick_softplus(logit[s])
                            mod.append(logit[j] - pen if attn.modulation else logit[j])
                        weights.append(torch.softmax(torch.stack(mod, -1), -1))  # (B, P_key)
                    a = weights[0]
                    if attn.negative:
                        a = a - lam[:, :, n, g] * weights[1]
                    out_rows.append((a[:, :, None] * v[:, :, n]).sum(1))
                cols.append(torch.stack(out_rows, 1))
            v = torch.stack(cols, 2)
        if attn.lambda_residual:
            v = v + lam[..., g, None] * z[..., g * 2 * hd : (g + 1) * 2 * hd]
        heads.append(attn.norm(v))
    return attn.out(torch.cat(heads, -1))
