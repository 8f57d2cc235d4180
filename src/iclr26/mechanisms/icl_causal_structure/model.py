"""The two-layer disentangled transformer with two-axis relative positions, its BMA construction, and an ablation.

Input: a context ``tokens`` (B, L + 1, H) flattened row by row to T = (L + 1) H tokens; position t = (r, h)
with r the example row (the query is row L) and h the position in the row. ``e(x)`` is the one-hot of a token.

Layer 1 (K heads, position-only attention over the strictly causal mask t' < t):

    A1_k(t, t') = softmax_{t' < t} ( w_L[k, r - r'] + w_H[k, h - h'] ),   o_k(t) = sum_{t'} A1_k(t, t') e(x_{t'})

Residual stream (disentangled: concatenation, not sum): ``z_t = [e(x_t), o_1(t), ..., o_K(t)]`` (width d (K + 1)).

Layer 2 (one head, within the same row, keys h' < h). The query side hides the position's own token (it is
the prediction target): ``q_t = [0, o_1(t), ..., o_K(t)]``.

    A2(t, (r, h')) = softmax_{h' < h} ( z_{(r, h')}^T W_KQ q_t ),   logits_t = sum_{h'} A2(t, (r, h')) W_OV[x_{(r, h')}]

The logits at (r, h) predict x^r_h. In the BMA construction head k copies ``x^{r-k}_h`` (w_L[k, k] and
w_H[k, 0] large), the (head k, head k) blocks of W_KQ are ``log pi`` (rows: parent/key value, columns:
child/query value) and ``W_OV = log pi``; then A2 at the query row is the BMA posterior over parents.

Example
-------
>>> import torch
>>> model = DisentangledRPETransformer(d=3, L=2, H=4, init_seed=0)
>>> model(torch.zeros(5, 3, 4, dtype=torch.long)).shape
torch.Size([5, 3, 4, 3])
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_array, check_float, check_int, check_tensor
from iclr26.lab.transformer import HookedModule, HookPoint, Site, Transformer
from iclr26.mechanisms.icl_causal_structure.causal_mc import check_kernel

__all__ = [
    "DisentangledRPETransformer",
    "StandardRPETransformer",
    "column_softmax_error",
    "construct_bma_transformer",
    "row_softmax_error",
    "softmax_columns",
]


def _check_context(tokens: Tensor, L: int, H: int, d: int) -> Tensor:
    if not isinstance(tokens, Tensor):
        raise TypeError(f"tokens must be a torch tensor, got {type(tokens).__name__}")
    if tokens.ndim != 3 or tokens.shape[1:] != (L + 1, H):
        raise ValueError(f"tokens must have shape (batch, {L + 1}, {H}), got {tuple(tokens.shape)}")
    if tokens.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"tokens must hold integer ids, got dtype {tokens.dtype}")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= d):
        raise ValueError(f"tokens must lie in [0, d={d}), got [{int(tokens.min())}, {int(tokens.max())}]")
    return tokens.long()


class DisentangledRPETransformer(HookedModule):
    """Attention-only 2-layer disentangled transformer with two-axis relative position biases.

    Parameters
    ----------
    d : vocabulary size (>= 2).
    L : number of in-context examples (>= 1); the context has L + 1 rows.
    H : row length (>= 2).
    n_heads : layer-1 heads K (default L, as in the construction).
    readout : ``"logit"`` (standard: attention-weighted W_OV rows, then softmax) or ``"mixture"``
        (attention-weighted mixture of the distributions softmax(W_OV) rows; exact BMA form).
    init_seed : seed of the initial weights.
    init_scale : std of the initial layer-2 weights.
    rpe_init : std of the initial layer-1 RPE tables w_L, w_H.

    Hook points: ``hook_l1_pattern`` (K, T, T), ``hook_l1_out`` (B, T, K, d), ``hook_l2_scores`` and
    ``hook_l2_pattern`` (B, L + 1, H, H) (query row index, query position, key position).
    """

    def __init__(
        self,
        d: int,
        L: int,
        H: int,
        n_heads: int | None = None,
        readout: str = "logit",
        init_seed: int = 0,
        init_scale: float = 0.02,
        rpe_init: float = 1.0,
    ) -> None:
        super().__init__()
        self.d, self.L, self.H = (
            check_int("d", d, low=2, type_error=True),
            check_int("L", L, low=1, type_error=True),
            check_int("H", H, low=2, type_error=True),
        )
        self.K = check_int("n_heads", n_heads, low=1, type_error=True) if n_heads is not None else L
        if readout not in ("logit", "mixture"):
            raise ValueError(f"readout must be 'logit' or 'mixture', got {readout!r}")
        check_int("init_seed", init_seed, low=0, type_error=True)
        check_float("init_scale", init_scale, low=0.0)
        check_float("rpe_init", rpe_init, low=0.0)
        self.readout = readout
        self.T = (L + 1) * H
        self.D = d * (self.K + 1)
        self.w_L = nn.Parameter(torch.empty(self.K, L + 1))  # index r - r' in [0, L]
        self.w_H = nn.Parameter(torch.empty(self.K, 2 * H - 1))  # index h - h' + H - 1
        self.W_KQ = nn.Parameter(torch.empty(self.D, self.D))  # [key feature, query feature]
        self.W_OV = nn.Parameter(torch.empty(d, d))  # [key token, output logit]
        for name in ("l1_pattern", "l1_out", "l2_scores", "l2_pattern"):
            setattr(self, f"hook_{name}", HookPoint())
        pos = torch.arange(self.T)
        r, h = pos // H, pos % H
        self.register_buffer("dr", (r[:, None] - r[None, :]).clamp(0, L), persistent=False)
        self.register_buffer("dh", h[:, None] - h[None, :] + H - 1, persistent=False)
        mask1 = torch.ones(self.T, self.T, dtype=torch.bool).tril(-1)
        mask1[0, 0] = True  # the first token has no predecessor: let it see itself, its output is zeroed
        self.register_buffer("mask1", mask1, persistent=False)
        mask2 = torch.ones(H, H, dtype=torch.bool).tril(-1)
        mask2[0, 0] = True  # position 0 has no parent: self-attention placeholder, never scored
        self.register_buffer("mask2", mask2, persistent=False)
        gen = torch.Generator().manual_seed(int(init_seed))
        with torch.no_grad():
            self.w_L.normal_(0.0, rpe_init, generator=gen)
            self.w_H.normal_(0.0, rpe_init, generator=gen)
            self.W_KQ.normal_(0.0, init_scale, generator=gen)
            self.W_OV.normal_(0.0, init_scale, generator=gen)

    def layer1_pattern(self) -> Tensor:
        """Layer-1 attention (K, T, T): position-only, identical for every context."""
        bias = self.w_L[:, self.dr] + self.w_H[:, self.dh]
        return torch.softmax(bias.masked_fill(~self.mask1, float("-inf")), dim=-1)

    def layer2_blocks(self) -> Tensor:
        """The (head k, head k) d x d blocks of W_KQ, k = 1..K, shape (K, d, d) (rows: key value)."""
        d = self.d
        return torch.stack(
            [self.W_KQ[d * (k + 1) : d * (k + 2), d * (k + 1) : d * (k + 2)] for k in range(self.K)]
        )

    def w_tf(self) -> Tensor:
        """W_tf: the mean of the diagonal head blocks of W_KQ (invariant to permuting the layer-1 heads)."""
        return self.layer2_blocks().mean(0)

    def _rows(self, x: Tensor, first_row: int, hooks: bool) -> tuple[Tensor, Tensor]:
        """Logits and layer-2 attention of rows ``first_row..L`` only (each row needs only its own layer-1 outputs).

        Layer 1 is evaluated at the positions of those rows alone, so the query-row path (``first_row = L``) costs
        about 1 / (L + 1) of the full pass and gives the same numbers as its last row.
        """
        B, d, H = x.shape[0], self.d, self.H
        n_rows, t0 = self.L + 1 - first_row, first_row * H
        dtype = self.W_KQ.dtype
        onehot = nn.functional.one_hot(x.reshape(B, self.T), d).to(dtype)  # (B, T, d)
        bias = self.w_L[:, self.dr[t0:]] + self.w_H[:, self.dh[t0:]]
        a1 = torch.softmax(bias.masked_fill(~self.mask1[t0:], float("-inf")), dim=-1)  # (K, T - t0, T)
        if hooks:
            a1 = self.hook_l1_pattern(a1)
        out1 = torch.einsum("kts,bsc->btkc", a1, onehot)
        if t0 == 0:  # the first token has no predecessor: its layer-1 output is zero
            out1 = out1 * (torch.arange(self.T, device=x.device) > 0).to(dtype)[None, :, None, None]
        if hooks:
            out1 = self.hook_l1_out(out1)
        keys = torch.cat([onehot[:, t0:, None, :], out1], dim=2).reshape(B, n_rows, H, self.D)
        queries = torch.cat([torch.zeros_like(onehot[:, t0:, None, :]), out1], dim=2)
        queries = queries.reshape(B, n_rows, H, self.D)
        # scores[b, r, h, h'] = z_{(r,h')}^T W_KQ q_{(r,h)}
        scores = torch.einsum("brke,ef,brqf->brqk", keys, self.W_KQ, queries)
        scores = scores.masked_fill(~self.mask2, float("-inf"))
        if hooks:
            scores = self.hook_l2_scores(scores)
        a2 = torch.softmax(scores, dim=-1)
        if hooks:
            a2 = self.hook_l2_pattern(a2)
        xr = x[:, first_row:]
        if self.readout == "logit":
            return torch.einsum("brqk,brkc->brqc", a2, self.W_OV[xr]), a2
        probs = torch.softmax(self.W_OV, dim=-1)[xr]
        return torch.log(torch.einsum("brqk,brkc->brqc", a2, probs).clamp_min(1e-30)), a2

    def forward(self, tokens: Tensor) -> Tensor:
        """Logits (B, L + 1, H, d); entry (r, h) predicts x^r_h (log-probabilities for the mixture readout)."""
        x = _check_context(tokens, self.L, self.H, self.d)
        return self._rows(x, 0, hooks=True)[0]

    def query_logits(self, tokens: Tensor) -> Tensor:
        """Logits of the query row only, (B, H, d): equal to ``forward(tokens)[:, -1]`` at ~1 / (L + 1) the cost."""
        x = _check_context(tokens, self.L, self.H, self.d)
        return self._rows(x, self.L, hooks=False)[0][:, 0]

    def layer2_attention(self, tokens: Tensor) -> Tensor:
        """Layer-2 attention of the query row, (B, H, H): entry [b, h, h'] for h' < h (row 0 undefined)."""
        x = _check_context(tokens, self.L, self.H, self.d)
        return self._rows(x, self.L, hooks=False)[1][:, 0]


def construct_bma_transformer(
    pi: Tensor, L: int, H: int, rpe_scale: float = 30.0, readout: str = "mixture"
) -> DisentangledRPETransformer:
    """Hand-built weights implementing BMA (float64): copy heads at offset (k, 0), W = log pi, W_OV = log pi."""
    p = check_kernel(pi)
    check_float("rpe_scale", rpe_scale, low=0.0, low_open=True)
    d = p.shape[0]
    model = DisentangledRPETransformer(d, L, H, readout=readout).double()
    logpi = torch.log(p.clamp_min(1e-300))
    with torch.no_grad():
        model.w_L.zero_()
        model.w_H.zero_()
        model.W_KQ.zero_()
        for k in range(L):
            model.w_L[k, k + 1] = rpe_scale
            model.w_H[k, H - 1] = rpe_scale
            model.W_KQ[d * (k + 1) : d * (k + 2), d * (k + 1) : d * (k + 2)] = logpi
        model.W_OV.copy_(logpi)
    return model


class StandardRPETransformer(nn.Module):
    """Ablation: the shared 2-layer attention-only transformer (summed residual, T5-style scalar RPE).

    Runs next-token prediction on the flattened context; the output is rearranged to (B, L + 1, H, d) so that
    entry (r, h) predicts x^r_h like :class:`DisentangledRPETransformer` (entry (0, 0) is zero logits).
    """

    def __init__(
        self, d: int, L: int, H: int, d_model: int = 64, n_heads: int = 4, init_seed: int = 0
    ) -> None:
        super().__init__()
        self.d, self.L, self.H = (
            check_int("d", d, low=2, type_error=True),
            check_int("L", L, low=1, type_error=True),
            check_int("H", H, low=2, type_error=True),
        )
        self.T = (L + 1) * H
        self.net = Transformer(
            vocab_size=d,
            seq_len=self.T,
            d_model=check_int("d_model", d_model, low=1, type_error=True),
            n_layers=2,
            n_heads=check_int("n_heads", n_heads, low=1, type_error=True),
            positions="relative",
            ffn=None,
            tie=False,
            init_seed=check_int("init_seed", init_seed, low=0, type_error=True),
        )

    def forward(self, tokens: Tensor) -> Tensor:
        """Logits (B, L + 1, H, d); entry (r, h) predicts x^r_h from the tokens before it."""
        x = _check_context(tokens, self.L, self.H, self.d)
        B = x.shape[0]
        logits = self.net(x.reshape(B, self.T))
        shifted = torch.cat([torch.zeros_like(logits[:, :1]), logits[:, :-1]], dim=1)
        return shifted.reshape(B, self.L + 1, self.H, self.d)

    def attention(self, tokens: Tensor, layer: int) -> Tensor:
        """Per-head attention (B, heads, T, T) of `layer` (0 or 1) via the shared model's hooks."""
        x = _check_context(tokens, self.L, self.H, self.d)
        _, cache = self.net.run_with_cache(x.reshape(x.shape[0], self.T), [Site("pattern", layer)])
        return cache[f"blocks.{layer}.attn.hook_pattern"]

    def layer2_wkq(self) -> Tensor:
        """Per-head bilinear score matrices of layer 2, ``W_Q[h] W_K[h]^T / sqrt(d_head)``, (heads, d_model, d_model)."""
        attn = self.net.blocks[1].attn
        return torch.einsum("hde,hfe->hdf", attn.W_Q, attn.W_K) / math.sqrt(attn.d_head)


def _matrix(W: Tensor | np.ndarray) -> Tensor:
    """`W` as a 2-D float64 tensor: a floating-point tensor or a real NumPy array."""
    if isinstance(W, np.ndarray):
        return torch.as_tensor(check_array("W", W, ndim=2))
    return check_tensor("W", W, ndim=2, floating=True).detach().to(torch.float64)


def softmax_columns(W: Tensor) -> Tensor:
    """Softmax of each column of W over its rows (the representation invariant to W + 1 a^T)."""
    return torch.softmax(_matrix(W), dim=0)


def _check_w(W: Tensor, pi: Tensor) -> tuple[Tensor, Tensor]:
    p = check_kernel(pi)
    W = _matrix(W)
    if W.shape != p.shape:
        raise ValueError(f"W must have the shape of pi {tuple(p.shape)}, got {tuple(W.shape)}")
    return W, torch.log(p.clamp_min(1e-300))


def column_softmax_error(W: Tensor, pi: Tensor) -> float:
    """(1/d) || softmax_col(W) - softmax_col(log pi) ||_1 (entrywise L1)."""
    W, logpi = _check_w(W, pi)
    return float((softmax_columns(W) - softmax_columns(logpi)).abs().sum() / W.shape[0])


def row_softmax_error(W: Tensor, pi: Tensor) -> float:
    """(1/d) || softmax_row(W) - softmax_row(log pi) ||_1 = (1/d) || softmax_row(W) - pi ||_1."""
    W, logpi = _check_w(W, pi)
    return float((torch.softmax(W, 1) - torch.softmax(logpi, 1)).abs().sum() / W.shape[0])
