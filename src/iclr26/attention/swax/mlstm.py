"""The mLSTM (matrix-memory LSTM of xLSTM, Beck et al. 2024) in its parallel and recurrent forms.

Per head, with an exponential input gate and a sigmoid forget gate (pre-activations ``i~_t``, ``f~_t``):

    C_t = f_t C_{t-1} + i_t v_t k_t^T                       (d_v x d_k matrix memory)
    n_t = f_t n_{t-1} + i_t k_t                             (normaliser)
    h_t = (C_t q_t) / max(|n_t^T q_t|, exp(-m_t))
    i_t = exp(i~_t),  log f_t = logsigmoid(f~_t)
    m_t = max(log f_t + m_{t-1}, i~_t)                      (stabiliser; exponentials are taken relative to m_t)

The recurrent form (:func:`mlstm_recurrent`) runs these lines step by step (decoding). The parallel form
(:func:`mlstm_parallel`, training) unrolls them into an attention-like O(T^2) computation:

    b_t = sum_{r <= t} log f_r,    log D_{ts} = b_t - b_s + i~_s  (s <= t, else -inf)
    m_t = max_s log D_{ts},        S_{ts} = (q_t . k_s) exp(log D_{ts} - m_t)
    h_t = sum_s S_{ts} v_s / max(|sum_s S_{ts}|, exp(-m_t))

which equals the recurrence exactly (the recurrent m_t is the same running maximum). Both equal the
unstabilised formula ``h_t = C'_t q_t / max(|n'_t^T q_t|, 1)`` with ``C'``, ``n'`` built from raw exponentials.

:class:`MLSTMLayer` is the sequence mixer: projections, the cell, a per-head LayerNorm (as in xLSTM's
multi-head norm), an output gate ``o_t = sigmoid(W_o x_t)`` and an output projection.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_choice, check_int, check_tensor
from iclr26.lab.transformer import check_sequence_input

__all__ = ["MLSTMLayer", "MLSTMState", "mlstm_parallel", "mlstm_recurrent"]

MLSTMState = tuple[Tensor, Tensor, Tensor]  # C (B,H,d_v,d_k), n (B,H,d_k), m (B,H)


def _check_cell_inputs(q: Tensor, k: Tensor, v: Tensor, i_pre: Tensor, f_pre: Tensor) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, Tensor) or t.ndim != 4:
            raise ValueError(
                f"{name} must be a (batch, heads, seq, dim) tensor, got {getattr(t, 'shape', t)}"
            )
        check_tensor(name, t, floating=True)
    if q.shape[2] < 1:
        raise ValueError(f"q must hold at least one position (seq >= 1), got shape {tuple(q.shape)}")
    if q.shape != k.shape or v.shape[:3] != q.shape[:3]:
        raise ValueError(
            f"q and k must share shape and v their first three axes: q {tuple(q.shape)}, k {tuple(k.shape)}, "
            f"v {tuple(v.shape)}"
        )
    for name, t in (("i_pre", i_pre), ("f_pre", f_pre)):
        if not isinstance(t, Tensor) or t.shape != q.shape[:3]:
            raise ValueError(f"{name} must have shape {tuple(q.shape[:3])}, got {getattr(t, 'shape', t)}")
        check_tensor(name, t, floating=True)


def _check_state(state: object, bsz: int, heads: int, dk: int, dv: int) -> MLSTMState:
    want = ((bsz, heads, dv, dk), (bsz, heads, dk), (bsz, heads))
    if not isinstance(state, tuple) or len(state) != 3:
        raise ValueError(f"state must be a (C, n, m) tuple of shapes {want}, got {type(state).__name__}")
    for name, t, shape in zip(("C", "n", "m"), state, want):
        check_tensor(f"state {name}", t, floating=True, shape=shape)
    return state


def mlstm_parallel(q: Tensor, k: Tensor, v: Tensor, i_pre: Tensor, f_pre: Tensor) -> Tensor:
    """Stabilised parallel mLSTM: q, k (B,H,T,d_k), v (B,H,T,d_v), gate pre-activations (B,H,T) -> (B,H,T,d_v).

    ``k`` is used as given (scale it by 1/sqrt(d_k) beforehand, as :class:`MLSTMLayer` does).
    """
    _check_cell_inputs(q, k, v, i_pre, f_pre)
    t = q.shape[2]
    b = F.logsigmoid(f_pre).cumsum(dim=-1)  # b_t = sum_{r<=t} log f_r
    log_d = b[..., :, None] - b[..., None, :] + i_pre[..., None, :]  # log D_ts = b_t - b_s + i~_s
    keep = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    log_d = log_d.masked_fill(~keep, float("-inf"))
    m = log_d.amax(dim=-1, keepdim=True)  # m_t (finite: the diagonal is always kept)
    s = (q @ k.transpose(-1, -2)) * torch.exp(log_d - m)  # S_ts
    denom = torch.maximum(s.sum(dim=-1, keepdim=True).abs(), torch.exp(-m))
    return (s @ v) / denom


def mlstm_recurrent(
    q: Tensor, k: Tensor, v: Tensor, i_pre: Tensor, f_pre: Tensor, state: MLSTMState | None = None
) -> tuple[Tensor, MLSTMState]:
    """Stabilised recurrent mLSTM over the sequence; returns h (B,H,T,d_v) and the final (C, n, m) state.

    The empty state is ``C = 0, n = 0, m = -inf`` (so ``m_1 = i~_1``, matching the parallel form).
    """
    _check_cell_inputs(q, k, v, i_pre, f_pre)
    bsz, heads, t, dk = q.shape
    dv = v.shape[-1]
    if state is None:
        c = q.new_zeros(bsz, heads, dv, dk)
        n = q.new_zeros(bsz, heads, dk)
        m = q.new_full((bsz, heads), float("-inf"))
    else:
        c, n, m = _check_state(state, bsz, heads, dk, dv)
    log_f = F.logsigmoid(f_pre)
    outs = []
    for step in range(t):
        i_t, lf_t = i_pre[..., step], log_f[..., step]
        m_new = torch.maximum(lf_t + m, i_t)  # m_t = max(log f_t + m_{t-1}, i~_t)
        f_s = torch.exp(lf_t + m - m_new)[..., None]  # f_t exp(m_{t-1} - m_t)
        i_s = torch.exp(i_t - m_new)[..., None]  # i_t exp(-m_t)
        k_t, v_t, q_t = k[:, :, step], v[:, :, step], q[:, :, step]
        c = f_s[..., None] * c + i_s[..., None] * v_t[..., :, None] * k_t[..., None, :]  # C_t
        n = f_s * n + i_s * k_t  # n_t
        num = (c @ q_t[..., None])[..., 0]  # C_t q_t
        den = torch.maximum((n * q_t).sum(-1, keepdim=True).abs(), torch.exp(-m_new)[..., None])
        outs.append(num / den)
        m = m_new
    return torch.stack(outs, dim=2), (c, n, m)


class MLSTMLayer(nn.Module):
    """mLSTM sequence mixer over (batch, seq, d_model) (xLSTM's matrix-memory cell with output gate).

    Parameters
    ----------
    d_model : residual width; must be divisible by ``n_heads``.
    n_heads : number of heads (each with its own scalar input and forget gate per step).
    bias : biases on the q/k/v and output-gate projections.
    backend : ``"parallel"`` (O(T^2), training) or ``"recurrent"`` (step by step); both give the same output.

    Gate initialisation follows xLSTM: gate weights zero, input-gate bias ~ N(0, 0.1), forget-gate biases spread
    linearly over [3, 6] across heads (long memories from the start).

    Examples
    --------
    >>> import torch
    >>> layer = MLSTMLayer(d_model=8, n_heads=2)
    >>> layer(torch.randn(2, 5, 8)).shape
    torch.Size([2, 5, 8])
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, backend: str = "parallel") -> None:
        super().__init__()
        check_int("d_model", d_model, low=1)
        check_int("n_heads", n_heads, low=1)
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        check_choice("backend", backend, ("parallel", "recurrent"))
        self.d_model, self.n_heads, self.d_head, self.backend = d_model, n_heads, d_model // n_heads, backend
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.gates = nn.Linear(d_model, 2 * n_heads)  # (i~, f~) per head
        self.ogate = nn.Linear(d_model, d_model, bias=bias)
        self.norm = nn.LayerNorm(self.d_head)
        self.out = nn.Linear(d_model, d_model, bias=False)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Projections ~ N(0, 1/fan_in); gates as in xLSTM (see the class docstring)."""
        with torch.no_grad():
            for lin in (self.qkv, self.ogate, self.out):
                lin.weight.normal_(0.0, lin.in_features**-0.5, generator=generator)
                if lin.bias is not None:
                    lin.bias.zero_()
            self.gates.weight.zero_()
            h = self.n_heads
            self.gates.bias[:h].normal_(0.0, 0.1, generator=generator)
            self.gates.bias[h:] = torch.linspace(3.0, 6.0, h) if h > 1 else torch.tensor([4.5])
            self.norm.reset_parameters()

    def _cell_inputs(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        k = k * self.d_head**-0.5  # k_t = W_k x_t / sqrt(d_head)
        i_pre, f_pre = self.gates(x).view(b, t, 2, self.n_heads).permute(2, 0, 3, 1)
        return q, k, v, i_pre, f_pre

    def _output(self, x: Tensor, h: Tensor) -> Tensor:
        b, _, t, _ = h.shape
        h = self.norm(h).transpose(1, 2).reshape(b, t, self.d_model)
        return self.out(torch.sigmoid(self.ogate(x)) * h)  # o_t * norm(h_t), then W_out

    def forward(self, x: Tensor, score_bias: Tensor | None = None) -> Tensor:
        """x: (batch, seq, d_model) -> (batch, seq, d_model); ``score_bias`` is ignored (no scores here)."""
        check_sequence_input(x, self.d_model)
        cell = self._cell_inputs(x)
        h = mlstm_parallel(*cell) if self.backend == "parallel" else mlstm_recurrent(*cell)[0]
        return self._output(x, h)

    def step(self, x: Tensor, state: MLSTMState | None) -> tuple[Tensor, MLSTMState]:
        """Decode one position: x (batch, d_model) -> (batch, d_model) and the new (C, n, m) state."""
        if not isinstance(x, Tensor) or x.ndim != 2 or x.shape[-1] != self.d_model:
            raise ValueError(
                f"x must have shape (batch, d_model={self.d_model}), got {getattr(x, 'shape', x)}"
            )
        check_tensor("x", x, floating=True)
        xs = x[:, None]
        h, state = mlstm_recurrent(*self._cell_inputs(xs), state=state)
        return self._output(xs, h)[:, 0], state
