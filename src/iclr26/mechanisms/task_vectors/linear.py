"""Linear-attention transformer for in-context linear regression, its prompt formats, task vectors and risks.

Tokens are rows here (the paper writes them as columns of Z in R^{2d x d_p}). Layer l maps

    Z_l = Z_{l-1} O_l + (1/n) Attn_l(Z_{l-1}) O_l,
    Attn_l(Z)_j = sum_{i != last} (V_l z_i) * ([z_i; p_i]^T Q_l [z_j; p_j]),

with one-hot position codes p (used only in the scores), V_l = diag(A_l, B_l), Q_l = diag(C_l, 0, D_l) in the
constrained parametrisation and O_l a token-wise Bernoulli dropout mask (identity at evaluation). The output is
the y-half of the last token; training drives it towards -W x_q (the sign convention of the GD literature).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor

__all__ = [
    "FORMATS",
    "ICLBatch",
    "LinearAttentionTransformer",
    "arrow_positions",
    "copies_prompt",
    "linear_icl_data",
    "normalized_risk",
    "prompt_length",
    "rank_share",
    "zero_shot_prompt",
]

FORMATS = ("single", "pair", "triplet")


def _check_format(fmt: str) -> None:
    check_choice("format", fmt, FORMATS)


def prompt_length(fmt: str, n: int) -> int:
    """Number of tokens d_p of an n-shot prompt: n+1 (single), 2n+2 (pair) or 3n+3 (triplet)."""
    _check_format(fmt)
    check_int("n", n, low=0)
    return {"single": n + 1, "pair": 2 * n + 2, "triplet": 3 * n + 3}[fmt]


def arrow_positions(n: int) -> list[int]:
    """Positions of the arrow tokens of an n-shot triplet prompt (one per demo, then the query's)."""
    check_int("n", n, low=0)
    return [3 * i + 1 for i in range(n + 1)]


@dataclass
class ICLBatch:
    """A batch of regression prompts: ``prompts`` (B, d_p, 2d), task ``W`` (B, d, d), demos, query, target."""

    prompts: Tensor
    W: Tensor
    X: Tensor
    Y: Tensor
    xq: Tensor
    yq: Tensor
    fmt: str

    def __post_init__(self) -> None:
        check_choice("fmt", self.fmt, FORMATS)
        check_tensor("X", self.X, ndim=3, floating=True)
        b, n, d = self.X.shape
        check_tensor("prompts", self.prompts, floating=True, shape=(b, prompt_length(self.fmt, n), 2 * d))
        check_tensor("W", self.W, floating=True, shape=(b, d, d))
        check_tensor("Y", self.Y, floating=True, shape=(b, n, d))
        for name in ("xq", "yq"):
            check_tensor(name, getattr(self, name), floating=True, shape=(b, d))


def _build(fmt: str, X: Tensor, Y: Tensor, xq: Tensor) -> Tensor:
    """Prompt tokens (B, d_p, 2d) from demos X, Y (B, n, d) and queries xq (B, d)."""
    b, n, d = X.shape
    z = X.new_zeros(b, prompt_length(fmt, n), 2 * d)
    if fmt == "single":
        z[:, :n, :d], z[:, :n, d:] = X, Y
        z[:, n, :d] = xq
    elif fmt == "pair":
        z[:, 0 : 2 * n : 2, :d] = X
        z[:, 1 : 2 * n : 2, d:] = Y
        z[:, 2 * n, :d] = xq
    else:
        z[:, 0 : 3 * n : 3, :d] = X
        z[:, 2 : 3 * n : 3, d:] = Y
        z[:, 3 * n, :d] = xq
    return z


def linear_icl_data(
    format: str,
    d: int,
    n: int,
    rank: int | None = None,
    seed: int = 0,
    batch: int = 256,
    dtype: torch.dtype = torch.float32,
) -> ICLBatch:
    """Draw `batch` regression prompts y_i = W x_i in the given format.

    rank=None: W has i.i.d. N(0, 1) entries (full rank); otherwise W = U V^T / sqrt(rank) with Gaussian
    U, V in R^{d x rank}. x_i, x_q ~ N(0, I_d).

    >>> b = linear_icl_data("triplet", d=2, n=3, seed=0, batch=5)
    >>> tuple(b.prompts.shape)
    (5, 12, 4)
    """
    _check_format(format)
    check_int("d", d, low=1)
    check_int("n", n, low=0)
    check_int("batch", batch, low=1)
    if rank is not None:
        check_int("rank", rank, low=1)
        if rank > d:
            raise ValueError(f"rank must be <= d = {d}, got {rank}")
    check_int("seed", seed, low=0)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
    gen = torch.Generator().manual_seed(int(seed))
    if rank is None:
        W = torch.randn(batch, d, d, generator=gen, dtype=dtype)
    else:
        u = torch.randn(batch, d, rank, generator=gen, dtype=dtype)
        v = torch.randn(batch, d, rank, generator=gen, dtype=dtype)
        W = u @ v.transpose(1, 2) / rank**0.5
    X = torch.randn(batch, n, d, generator=gen, dtype=dtype)
    xq = torch.randn(batch, d, generator=gen, dtype=dtype)
    Y = X @ W.transpose(1, 2)
    yq = (W @ xq.unsqueeze(-1)).squeeze(-1)
    return ICLBatch(_build(format, X, Y, xq), W, X, Y, xq, yq, format)


def copies_prompt(batch: ICLBatch) -> Tensor:
    """The same prompts with every demo replaced by a copy of the first one (a 1-shot prompt of n slots)."""
    if not isinstance(batch, ICLBatch):
        raise TypeError(f"batch must be an ICLBatch (from linear_icl_data), got {type(batch).__name__}")
    if batch.X.shape[1] < 1:
        raise ValueError("batch must hold n >= 1 demos (its first demo is copied), got n = 0")
    n = batch.X.shape[1]
    X = batch.X[:, :1].expand(-1, n, -1)
    Y = batch.Y[:, :1].expand(-1, n, -1)
    return _build(batch.fmt, X, Y, batch.xq)


def zero_shot_prompt(xq: Tensor) -> Tensor:
    """The 3-token zero-shot triplet prompt [x_q; 0], arrow [0; 0], [0; 0] for queries xq (B, d)."""
    check_tensor("xq", xq, floating=True)
    if xq.ndim != 2 or xq.shape[1] < 1:
        raise ValueError(f"xq must have shape (batch, d >= 1), got {tuple(xq.shape)}")
    z = xq.new_zeros(xq.shape[0], 3, 2 * xq.shape[1])
    z[:, 0, : xq.shape[1]] = xq
    return z


class LinearAttentionTransformer(nn.Module):
    """Stack of single-head linear-attention layers (no softmax, no MLP, no norm) on regression prompts.

    Parameters
    ----------
    n_layers : number of layers L.
    d_model : token width 2d (even).
    n_demos : the n of the prompts it is trained on (sets d_p and the 1/n factor).
    fmt : prompt format 'single', 'pair' or 'triplet'.
    constrained : V = diag(A, B), Q = diag(C, 0, D) (paper) or unconstrained V, Q.
    keep_prob : token-dropout keep probability used in training mode.
    init_scale : std of the initial weights.
    init_seed : seed of the initial weights.
    """

    def __init__(
        self,
        n_layers: int,
        d_model: int,
        n_demos: int = 16,
        fmt: str = "triplet",
        constrained: bool = True,
        keep_prob: float = 1.0,
        init_scale: float = 0.1,
        init_seed: int = 0,
    ) -> None:
        super().__init__()
        check_int("n_layers", n_layers, low=1)
        check_int("d_model", d_model, low=2)
        if d_model % 2:
            raise ValueError(f"d_model must be even (token = [x; y]), got {d_model}")
        check_int("n_demos", n_demos, low=1)
        _check_format(fmt)
        check_bool("constrained", constrained)
        check_float("keep_prob", keep_prob, 0.0, 1.0, low_open=True)
        check_float("init_scale", init_scale, low=0.0)
        check_int("init_seed", init_seed, low=0)
        self.n_layers, self.d_model, self.d, self.n, self.fmt = n_layers, d_model, d_model // 2, n_demos, fmt
        self.constrained, self.keep_prob = constrained, keep_prob
        self.dp = prompt_length(fmt, n_demos)
        gen = torch.Generator().manual_seed(int(init_seed))
        d, dp = self.d, self.dp

        def p(*shape: int) -> nn.Parameter:
            return nn.Parameter(torch.randn(n_layers, *shape, generator=gen) * init_scale)

        if constrained:
            self.A, self.B, self.C, self.D = p(d, d), p(d, d), p(d, d), p(dp, dp)
        else:
            self.V, self.Q = p(2 * d, 2 * d), p(2 * d + dp, 2 * d + dp)

    def set_layer(self, layer: int, **mats: Tensor) -> None:
        """Overwrite layer `layer`'s matrices (A, B, C, D constrained; V, Q unconstrained), e.g. in tests."""
        self._check_layer(layer, self.n_layers - 1)
        names = ("A", "B", "C", "D") if self.constrained else ("V", "Q")
        values = {}
        for name, value in mats.items():
            check_choice("matrix name", name, names)
            param = getattr(self, name)
            value = torch.as_tensor(value, dtype=param.dtype)
            if value.shape != param.shape[1:]:
                raise ValueError(f"{name} must have shape {tuple(param.shape[1:])}, got {tuple(value.shape)}")
            values[name] = value
        with torch.no_grad():
            for name, value in values.items():
                getattr(self, name)[layer] = value

    def _check_layer(self, layer: object, high: int) -> None:
        check_int(f"layer (a block in [0, {high}])", layer, 0, high)

    def value_query(self, layer: int) -> tuple[Tensor, Tensor]:
        """The full V (2d x 2d) and Q ((2d + d_p) square) of a layer."""
        self._check_layer(layer, self.n_layers - 1)
        if not self.constrained:
            return self.V[layer], self.Q[layer]
        d, dp = self.d, self.dp
        V = torch.block_diag(self.A[layer], self.B[layer])
        Q = torch.block_diag(self.C[layer], self.A.new_zeros(d, d), self.D[layer])
        assert Q.shape == (2 * d + dp, 2 * d + dp)
        return V, Q

    def _positions(self, t: int, positions: Tensor | Sequence[int] | None) -> Tensor:
        if positions is None:
            if t != self.dp:
                raise ValueError(
                    f"prompts have {t} tokens but the model's position code has {self.dp}; pass positions="
                )
            positions = range(t)
        idx = torch.as_tensor(list(positions))
        if idx.is_floating_point() or idx.is_complex() or idx.dtype == torch.bool:
            raise ValueError(f"positions must be integer indices, got {idx.tolist()}")
        idx = idx.long()
        if idx.numel() != t or idx.min() < 0 or idx.max() >= self.dp:
            raise ValueError(f"positions must be {t} indices in [0, {self.dp - 1}], got {idx.tolist()}")
        return idx

    def layer(self, layer: int, z: Tensor, pos: Tensor, generator: torch.Generator | None = None) -> Tensor:
        """Apply layer `layer` to token states z (B, T, 2d) with position indices pos (T,)."""
        self._check_layer(layer, self.n_layers - 1)
        if self.constrained:  # same scores as the full form, without building [Z; P]
            x = z[..., : self.d]
            scores = (x @ self.C[layer].T) @ x.transpose(1, 2) + self.D[layer][pos][:, pos].T
            values = torch.cat([z[..., : self.d] @ self.A[layer].T, z[..., self.d :] @ self.B[layer].T], -1)
        else:
            V, Q = self.value_query(layer)
            P = torch.eye(self.dp, dtype=z.dtype)[pos].expand(z.shape[0], -1, -1)
            zp = torch.cat([z, P], dim=-1)
            scores = zp @ Q.T @ zp.transpose(1, 2)  # scores[b, j, i] = zp_i^T Q zp_j
            values = z @ V.T
        scores = scores.clone()
        scores[:, :, -1] = 0.0  # M: no token attends to the last one
        out = z + scores @ values / self.n
        if self.training and self.keep_prob < 1.0:
            keep = torch.full(out.shape[:2], self.keep_prob, dtype=out.dtype)
            mask = torch.bernoulli(keep, generator=generator).unsqueeze(-1)
            out = out * mask
        return out

    def run_with_hooks(
        self,
        prompts: Tensor,
        replace: Mapping[tuple[int, int], Tensor] | None = None,
        positions: Tensor | Sequence[int] | None = None,
        generator: torch.Generator | None = None,
        return_states: bool = False,
    ) -> Tensor | tuple[Tensor, list[Tensor]]:
        """Run the prompts, overwriting the output of layer ``l`` at token ``p`` for each ``(l, p)`` in
        `replace` (same convention as the lab transformer's ``(layer, pos)`` shorthand: 0-indexed block
        outputs). Returns the final token states (B, T, 2d), and the per-layer outputs if `return_states`."""
        check_tensor("prompts", prompts, floating=True)
        if prompts.ndim != 3 or prompts.shape[1] < 1 or prompts.shape[-1] != self.d_model:
            raise ValueError(
                f"prompts must have shape (batch, tokens >= 1, {self.d_model}), got {tuple(prompts.shape)}"
            )
        dtype = self.A.dtype if self.constrained else self.V.dtype
        if prompts.dtype != dtype:
            raise TypeError(f"prompts must have the model's dtype {dtype}, got {prompts.dtype}")
        pos = self._positions(prompts.shape[1], positions)
        items: dict[int, list[tuple[int, Tensor]]] = {}
        b, t = prompts.shape[:2]
        for (lay, p), value in (replace or {}).items():
            self._check_layer(lay, self.n_layers - 1)
            check_int(f"replace position (a token in [0, {t - 1}])", p, 0, t - 1)
            shape = tuple(torch.as_tensor(value).shape)
            if not (
                shape == (self.d_model,)
                or len(shape) == 2
                and shape[0] in (1, b)
                and shape[1] == self.d_model
            ):
                raise ValueError(
                    f"replace value at {(lay, p)} must have shape ({self.d_model},) or ({b}, {self.d_model}), "
                    f"got {shape}"
                )
            items.setdefault(lay, []).append((p, value))
        z, states = prompts, []
        for lay in range(self.n_layers):
            z = self.layer(lay, z, pos, generator)
            if lay in items:
                z = z.clone()
                for p, value in items[lay]:
                    z[:, p] = torch.as_tensor(value, dtype=z.dtype).expand_as(z[:, p])
            states.append(z)
        return (z, states) if return_states else z

    def forward(
        self,
        prompts: Tensor,
        positions: Tensor | Sequence[int] | None = None,
        generator: torch.Generator | None = None,
    ) -> Tensor:
        """The read-out: the y-half of the last token after all layers (B, d); it approximates -W x_q."""
        return self.run_with_hooks(prompts, None, positions, generator)[:, -1, self.d :]

    def readout(self, states: Tensor) -> Tensor:
        """y-half of the last token of final states (B, T, 2d)."""
        return states[:, -1, self.d :]

    def query_positions(self) -> list[int]:
        """Position indices of the n-shot prompt's query triplet (used for the 3-token zero-shot prompt)."""
        if self.fmt != "triplet":
            raise ValueError(
                f"zero-shot / task-vector prompts need the triplet format, model has {self.fmt!r}"
            )
        return [3 * self.n, 3 * self.n + 1, 3 * self.n + 2]


def normalized_risk(out: Tensor, yq: Tensor, eps: float = 1e-12) -> Tensor:
    """Per-prompt risk || out/|out| + y_q/|y_q| ||^2 on normalised vectors (a zero output gives 1)."""
    check_tensor("out", out, floating=True)
    check_tensor("yq", yq, floating=True)
    if out.ndim < 1 or out.shape != yq.shape:
        raise ValueError(
            f"out and yq must have the same shape (..., d), got {tuple(out.shape)} and {tuple(yq.shape)}"
        )
    check_float("eps", eps, low=0.0, low_open=True)
    o = out / out.norm(dim=-1, keepdim=True).clamp_min(eps)
    y = yq / yq.norm(dim=-1, keepdim=True).clamp_min(eps)
    return ((o + y) ** 2).sum(-1)


def rank_share(outputs: Tensor) -> float:
    """Fraction of the (uncentred) energy of the rows of `outputs` (m, d) on their top singular direction."""
    check_tensor("outputs", outputs, floating=True, finite=True)
    if outputs.ndim != 2 or outputs.shape[0] < 2 or outputs.shape[1] < 1:
        raise ValueError(f"outputs must have shape (m >= 2, d >= 1), got {tuple(outputs.shape)}")
    s = torch.linalg.svdvals(outputs.detach().double())
    total = float((s**2).sum())
    return float(s[0] ** 2 / total) if total > 0 else float("nan")
