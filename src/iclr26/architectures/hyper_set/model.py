"""Hyper-SET: one energy-descent block iterated with shared weights (arXiv 2502.11646).

The block holds one matrix ``W`` (d x d, rows split into H heads of width p = d/H) and one matrix ``W_f``
(D x d). With ``u_i^h = RMSNorm(W_h x_i)`` the attention energy is
``E_attn = sqrt(p) sum_h sum_i logsumexp_j(<u_i^h, u_j^h> / sqrt(p))`` and the feedforward energy is
``E_ff = -1/2 sum_i ||ReLU(RMSNorm(W_f x_i))||^2``. Dropping the normalisation Jacobian, their gradients are the
symmetric bi-softmax attention ``concat_h((softmax_row(A) + softmax_col(A)) V^h) W`` and ``-W_f^T ReLU(W_f x)``,
and one iteration is ``x <- x - alpha * Attn(x)`` then ``x <- x + beta * W_f^T sigma(RMSNorm(W_f x))`` with
per-token, per-channel step sizes from :class:`StepSizeNet`.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor, check_token_ids

__all__ = [
    "ATTENTIONS",
    "FF_ACTS",
    "DepthwiseLoRA",
    "HyperSET",
    "HyperSETBlock",
    "StepSizeNet",
    "average_angle",
    "effective_rank",
    "sinusoidal_embedding",
    "sinusoidal_positions",
]

ATTENTIONS = ("bisoftmax", "sigmoid", "linear")
FF_ACTS = ("relu", "gelu")


def check_heads(d_model: int, n_heads: int) -> None:
    """Raise ValueError unless both are positive ints and ``n_heads`` divides ``d_model``."""
    check_int("d_model", d_model, low=1, type_error=True)
    check_int("n_heads", n_heads, low=1, type_error=True)
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")


def _check_tokens(x: Tensor, d_model: int, name: str = "x") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() != 3:
        raise ValueError(f"{name} must be 3-D (batch, tokens, d_model), got shape {tuple(x.shape)}")
    if x.shape[-1] != d_model:
        raise ValueError(f"{name} last dimension must be d_model={d_model}, got {x.shape[-1]}")
    check_tensor(name, x, floating=True)


def _check_delta(name: str, delta: Tensor | None, shape: tuple[int, int]) -> None:
    if delta is not None:
        check_tensor(name, delta, floating=True, shape=shape)


def sinusoidal_embedding(t: Tensor, dim: int) -> Tensor:
    """Sinusoidal features of (iteration) indices `t`: shape ``t.shape + (dim,)``, half sin, half cos."""
    half = dim // 2
    scale = math.log(10000.0) / max(half - 1, 1)
    freqs = torch.exp(torch.arange(half, dtype=torch.float32, device=t.device) * -scale)
    arg = t.float()[..., None] * freqs
    emb = torch.cat([arg.sin(), arg.cos()], dim=-1)
    return F.pad(emb, (0, dim - 2 * half))


def sinusoidal_positions(n_tokens: int, dim: int) -> Tensor:
    """Fixed 1-D sinusoidal positional table of shape (n_tokens, dim) (interleaved sin/cos)."""
    pos = torch.arange(n_tokens, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(n_tokens, dim)
    table[:, 0::2] = torch.sin(pos * div)
    table[:, 1::2] = torch.cos(pos * div)[:, : dim // 2]
    return table


def _feature_map(w: Tensor) -> tuple[Tensor, Tensor]:
    """phi(w) = ELU(w) + 1 and its derivative (the linear-attention feature map)."""
    return F.elu(w) + 1.0, torch.where(w > 0, torch.ones_like(w), torch.exp(w))


def effective_rank(u: Tensor) -> Tensor:
    """exp(entropy of normalised singular values) of ``u`` (..., N, p), per leading index."""
    check_tensor("u", u, floating=True, finite=True)
    if u.dim() < 2:
        raise ValueError(f"u must be (..., N, p) with at least 2 dimensions, got shape {tuple(u.shape)}")
    s = torch.linalg.svdvals(u)
    q = s / s.sum(-1, keepdim=True).clamp_min(1e-30)
    return torch.exp(-(q * q.clamp_min(1e-30).log()).sum(-1))


def average_angle(u: Tensor) -> Tensor:
    """Mean pairwise angle in degrees between the N rows of ``u`` (..., N, p), diagonal excluded."""
    check_tensor("u", u, floating=True)
    if u.dim() < 2 or u.shape[-2] < 2:
        raise ValueError(
            f"u must be (..., N >= 2, p): angles need at least two rows, got shape {tuple(u.shape)}"
        )
    n = u.shape[-2]
    v = F.normalize(u, dim=-1)
    cos = (v @ v.transpose(-1, -2)).clamp(-1.0, 1.0)
    ang = torch.acos(cos)
    off = ~torch.eye(n, dtype=torch.bool, device=u.device)
    return torch.rad2deg(ang[..., off].mean(-1))


class HyperSETBlock(nn.Module):
    """One Hyper-SET iteration: attention descent step then feedforward step, with shared ``W`` and ``W_f``.

    Parameters
    ----------
    d_model : token width d.
    n_heads : number of subspaces H (d must be divisible by H).
    ff_dim : width D of ``W_f`` (default d).
    attention : ``"bisoftmax"`` (paper default), ``"sigmoid"`` or ``"linear"`` (ELU+1 feature map); each is the
        gradient of its own energy (see :meth:`energy_attn`).
    ff_act : ``"relu"`` (exact gradient of E_ff) or ``"gelu"`` (the image-classification code's choice).
    use_rmsnorm : RMSNorm on the per-head projections and on ``W_f x`` (False gives the exact-gradient form).
    shared_qkv_norm : one RMSNorm for the query, key and value roles (Sudoku code) instead of three (IC code).
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        ff_dim: int | None = None,
        attention: str = "bisoftmax",
        ff_act: str = "gelu",
        use_rmsnorm: bool = True,
        shared_qkv_norm: bool = False,
    ) -> None:
        super().__init__()
        check_heads(d_model, n_heads)
        ff_dim = d_model if ff_dim is None else check_int("ff_dim", ff_dim, low=1, type_error=True)
        self.attention = check_choice("attention", attention, ATTENTIONS)
        self.ff_act = check_choice("ff_act", ff_act, FF_ACTS)
        self.d_model, self.n_heads, self.head_dim, self.ff_dim = d_model, n_heads, d_model // n_heads, ff_dim
        self.use_rmsnorm = check_bool("use_rmsnorm", use_rmsnorm)
        check_bool("shared_qkv_norm", shared_qkv_norm)
        self.W = nn.Parameter(torch.empty(d_model, d_model))
        self.W_f = nn.Parameter(torch.empty(ff_dim, d_model))
        nn.init.kaiming_uniform_(self.W, a=math.sqrt(5))
        nn.init.kaiming_uniform_(self.W_f, a=math.sqrt(5))
        p = self.head_dim
        if self.use_rmsnorm:
            n_norms = 1 if shared_qkv_norm else 3
            self.qkv_norms = nn.ModuleList([nn.RMSNorm(p) for _ in range(n_norms)])
            self.ff_norm: nn.Module = nn.RMSNorm(ff_dim)
        else:
            self.qkv_norms = nn.ModuleList([nn.Identity()])
            self.ff_norm = nn.Identity()

    # ------------------------------------------------------------------ pieces
    def _heads(self, x: Tensor, W: Tensor) -> Tensor:
        b, n, _ = x.shape
        return F.linear(x, W).view(b, n, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, N, p)

    def _norm(self, role: int, w: Tensor) -> Tensor:
        return self.qkv_norms[min(role, len(self.qkv_norms) - 1)](w)

    def scores(self, x: Tensor, delta_w: Tensor | None = None) -> Tensor:
        """Bi-softmax score matrices ``S^h = softmax_row(A^h) + softmax_col(A^h)``, shape (B, H, N, N)."""
        _check_tokens(x, self.d_model)
        _check_delta("delta_w", delta_w, (self.d_model, self.d_model))
        w = self._heads(x, self.W if delta_w is None else self.W + delta_w)
        a = self._norm(0, w) @ self._norm(1, w).transpose(-1, -2) / math.sqrt(self.head_dim)
        return F.softmax(a, dim=-1) + F.softmax(a, dim=-2)

    def attn_update(self, x: Tensor, delta_w: Tensor | None = None) -> Tensor:
        """The attention direction ``Attn(x)`` (the gradient of E_attn without the norm Jacobian)."""
        _check_tokens(x, self.d_model)
        _check_delta("delta_w", delta_w, (self.d_model, self.d_model))
        W = self.W if delta_w is None else self.W + delta_w
        w = self._heads(x, W)
        b, h, n, p = w.shape
        q, k, v = self._norm(0, w), self._norm(1, w), self._norm(2, w)
        if self.attention == "bisoftmax":
            a = q @ k.transpose(-1, -2) / math.sqrt(p)
            y = (F.softmax(a, dim=-1) + F.softmax(a, dim=-2)) @ v
        elif self.attention == "sigmoid":
            s = torch.sigmoid(q @ k.transpose(-1, -2) / math.sqrt(p))
            y = (s * (1.0 - s)) @ v
        else:  # linear attention: O(N p^2)
            phi_k, _ = _feature_map(k)
            phi_q, dphi_q = _feature_map(q)
            phi_v, _ = _feature_map(v)
            kv = phi_k.transpose(-1, -2) @ phi_v / math.sqrt(p)  # (B, H, p, p)
            y = (phi_q @ kv) * dphi_q
        return y.transpose(1, 2).reshape(b, n, h * p) @ W  # tied output projection W^T

    def ff_update(self, x: Tensor, delta_wf: Tensor | None = None) -> Tensor:
        """The feedforward direction ``W_f^T sigma(RMSNorm(W_f x))`` (minus the gradient of E_ff for ReLU)."""
        _check_tokens(x, self.d_model)
        _check_delta("delta_wf", delta_wf, (self.ff_dim, self.d_model))
        Wf = self.W_f if delta_wf is None else self.W_f + delta_wf
        hdn = self.ff_norm(F.linear(x, Wf))
        act = F.relu(hdn) if self.ff_act == "relu" else F.gelu(hdn)
        return act @ Wf

    def forward(
        self,
        x: Tensor,
        alpha: Tensor | float,
        beta: Tensor | float,
        delta_w: Tensor | None = None,
        delta_wf: Tensor | None = None,
    ) -> Tensor:
        """One iteration: ``x - alpha * Attn(x)``, then ``+ beta * FF(.)``; alpha, beta (B, N, d) or scalars."""
        _check_tokens(x, self.d_model)
        for name, s in (("alpha", alpha), ("beta", beta)):
            if not isinstance(s, Tensor):
                check_float(f"{name} (a step size)", s)
            elif s.dim() > 0 and tuple(s.shape) != tuple(x.shape):
                raise ValueError(f"{name} must have the shape of x {tuple(x.shape)}, got {tuple(s.shape)}")
        x = x - alpha * self.attn_update(x, delta_w)
        return x + beta * self.ff_update(x, delta_wf)

    # ---------------------------------------------------------------- energies
    def _energy_heads(self, x: Tensor) -> Tensor:
        w = self._heads(x, self.W)
        return F.rms_norm(w, (self.head_dim,)) if self.use_rmsnorm else w

    def energy_attn(self, x: Tensor) -> Tensor:
        """Attention energy per sample, shape (B,); parameter-free RMS normalisation when ``use_rmsnorm``.

        bisoftmax: ``sqrt(p) sum lse_j(<u_i,u_j>/sqrt(p))``; sigmoid: ``sqrt(p)/2 sum_ij sigmoid(a_ij)``;
        linear: ``sqrt(p)/4 sum_ij (phi(u_i).phi(u_j)/sqrt(p))^2``.
        """
        _check_tokens(x, self.d_model)
        u = self._energy_heads(x)
        rp = math.sqrt(self.head_dim)
        if self.attention == "linear":
            phi, _ = _feature_map(u)
            a = phi @ phi.transpose(-1, -2) / rp
            e = rp / 4.0 * a.pow(2).sum(-1)
        else:
            a = u @ u.transpose(-1, -2) / rp
            e = (
                rp * torch.logsumexp(a, -1)
                if self.attention == "bisoftmax"
                else rp / 2 * torch.sigmoid(a).sum(-1)
            )
        return e.flatten(1).sum(1)

    def energy_ff(self, x: Tensor) -> Tensor:
        """Feedforward energy ``-1/2 sum_i ||ReLU(norm(W_f x_i))||^2`` per sample, shape (B,)."""
        _check_tokens(x, self.d_model)
        hdn = F.linear(x, self.W_f)
        if self.use_rmsnorm:
            hdn = F.rms_norm(hdn, (self.ff_dim,))
        return -0.5 * F.relu(hdn).pow(2).flatten(1).sum(1)

    def energy(self, x: Tensor) -> Tensor:
        """Total energy ``E_attn + E_ff`` per sample, shape (B,)."""
        return self.energy_attn(x) + self.energy_ff(x)

    def stats(self, x: Tensor) -> dict[str, Tensor]:
        """Energy terms, effective rank and mean angle (degrees) of the head projections, each (B,)."""
        _check_tokens(x, self.d_model)
        u = self._energy_heads(x)
        ea, ef = self.energy_attn(x), self.energy_ff(x)
        return {
            "energy": ea + ef,
            "energy_attn": ea,
            "energy_ff": ef,
            "effective_rank": effective_rank(u).mean(1),
            "mean_angle": average_angle(u).mean(1),
        }


class StepSizeNet(nn.Module):
    """Per-iteration step sizes ``(alpha_t, beta_t) = chunk(Linear(GELU(c_t + Z)), 2)``.

    ``c_t = MLP_1(sinusoidal(t))``. ``variant="image"`` (IC code): MLP_1 = Linear-RMSNorm-GELU-RMSNorm-Linear-RMSNorm
    and Z = RMSNorm of the conditioning tokens. ``variant="sudoku"``: MLP_1 =
    Linear-GELU-Linear, no norms, Z = the raw conditioning tokens. Every linear is zero-initialised, so alpha = beta
    = 0 at initialisation.
    """

    def __init__(self, d_model: int, time_emb: int = 512, variant: str = "image") -> None:
        super().__init__()
        check_int("d_model", d_model, low=1, type_error=True)
        check_int("time_emb", time_emb, low=2, type_error=True)
        self.variant = check_choice("variant", variant, ("image", "sudoku"))
        self.d_model, self.time_emb = d_model, time_emb
        d = d_model
        if variant == "image":
            self.time_mlp = nn.Sequential(
                nn.Linear(time_emb, d),
                nn.RMSNorm(d),
                nn.GELU(),
                nn.RMSNorm(d),
                nn.Linear(d, d),
                nn.RMSNorm(d),
            )
            self.in_norm: nn.Module = nn.RMSNorm(d)
        else:
            self.time_mlp = nn.Sequential(nn.Linear(time_emb, d), nn.GELU(), nn.Linear(d, d))
            self.in_norm = nn.Identity()
        self.out = nn.Sequential(nn.GELU(), nn.Linear(d, 2 * d))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.weight)
                nn.init.zeros_(m.bias)

    def time_codes(self, n_iter: int) -> Tensor:
        """``c_t`` for t = 1..n_iter, shape (n_iter, d)."""
        check_int("n_iter", n_iter, low=1, type_error=True)
        t = torch.arange(1, n_iter + 1, device=self.out[-1].weight.device)
        return self.time_mlp(sinusoidal_embedding(t, self.time_emb).to(self.out[-1].weight.dtype))

    def forward(self, c_t: Tensor, z: Tensor) -> tuple[Tensor, Tensor]:
        """Step sizes from the time code ``c_t`` (d,) and conditioning tokens ``z`` (B, N, d)."""
        _check_tokens(z, self.d_model, "z")
        check_tensor("c_t", c_t, floating=True, shape=(self.d_model,))
        return self.out(c_t + self.in_norm(z)).chunk(2, dim=-1)


class DepthwiseLoRA(nn.Module):
    """Per-iteration low-rank deltas ``dW_t = (alpha/r) B_t A_t`` for ``W`` (d x d) and ``W_f`` (D x d).

    ``B_t`` starts at zero so the deltas vanish at initialisation. Iterations beyond the trained ``n_iter``
    reuse the last delta (test-time extrapolation).
    """

    def __init__(self, d_model: int, ff_dim: int, n_iter: int, rank: int = 4, alpha: float = 8.0) -> None:
        super().__init__()
        for name, v in (("d_model", d_model), ("ff_dim", ff_dim), ("n_iter", n_iter), ("rank", rank)):
            check_int(name, v, low=1, type_error=True)
        self.scale = check_float("alpha (LoRA scale)", alpha) / rank
        self.n_iter = n_iter
        self.A = nn.Parameter(torch.randn(n_iter, rank, d_model) / math.sqrt(d_model))
        self.B = nn.Parameter(torch.zeros(n_iter, d_model, rank))
        self.A_f = nn.Parameter(torch.randn(n_iter, rank, d_model) / math.sqrt(d_model))
        self.B_f = nn.Parameter(torch.zeros(n_iter, ff_dim, rank))

    def forward(self, t: int) -> tuple[Tensor, Tensor]:
        """Deltas for iteration index ``t`` (0-based): (d x d, D x d)."""
        i = min(check_int("t", t, low=0, type_error=True), self.n_iter - 1)
        return self.scale * self.B[i] @ self.A[i], self.scale * self.B_f[i] @ self.A_f[i]


class HyperSET(nn.Module):
    """Embedding -> ``n_iter`` applications of one :class:`HyperSETBlock` -> head.

    ``task="image"``: input patches (B, n_tokens, in_features) -> LayerNorm-Linear-LayerNorm, a CLS token, fixed
    sinusoidal positions; output class logits (B, n_classes) from LayerNorm-Linear on the CLS token.
    ``task="sudoku"``: input cell ids (B, n_tokens) in [0, vocab_size) -> token + learnable positional embedding;
    output per-cell logits (B, n_tokens, n_classes) from RMSNorm and a bias-free linear head.

    ``forward(x, n_iter=None, return_trajectory=False)``: ``n_iter`` overrides the number of iterations (no new
    parameters); with ``return_trajectory`` also a dict of (B, T) tensors measured after every iteration: total,
    attention and feedforward energy, effective rank and mean angle of the per-head normalised projections.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        n_iter: int,
        n_classes: int,
        n_tokens: int,
        *,
        task: str = "image",
        in_features: int | None = None,
        vocab_size: int | None = None,
        ff_mult: int = 1,
        attention: str = "bisoftmax",
        ff_act: str | None = None,
        use_rmsnorm: bool = True,
        shared_qkv_norm: bool | None = None,
        time_emb: int = 512,
        input_cond: bool | None = None,
        positions: bool = True,
        lora_rank: int = 0,
    ) -> None:
        super().__init__()
        self.task = check_choice("task", task, ("image", "sudoku"))
        check_int("lora_rank", lora_rank, low=0, type_error=True)
        check_bool("positions", positions)
        for name, v in (
            ("n_iter", n_iter),
            ("n_classes", n_classes),
            ("n_tokens", n_tokens),
            ("ff_mult", ff_mult),
        ):
            check_int(name, v, low=1, type_error=True)
        image = task == "image"
        self.d_model, self.n_iter, self.n_tokens = d_model, n_iter, n_tokens
        self.block = HyperSETBlock(
            d_model,
            n_heads,
            ff_dim=ff_mult * d_model,
            attention=attention,
            ff_act=ff_act or ("gelu" if image else "relu"),
            use_rmsnorm=use_rmsnorm,
            shared_qkv_norm=(not image) if shared_qkv_norm is None else shared_qkv_norm,
        )
        self.steps = StepSizeNet(d_model, time_emb, variant=task)
        self.input_cond = (not image) if input_cond is None else check_bool("input_cond", input_cond)
        self.lora = (
            DepthwiseLoRA(d_model, ff_mult * d_model, n_iter, rank=lora_rank) if lora_rank > 0 else None
        )
        self.stem = TokenStem(d_model, n_tokens, task, in_features, vocab_size, positions)
        self.head = TokenHead(d_model, n_classes, task)

    def forward(
        self, x: Tensor, n_iter: int | None = None, return_trajectory: bool = False
    ) -> Tensor | tuple[Tensor, dict[str, Tensor]]:
        """Logits (and the per-iteration trajectory when asked)."""
        n_iter = self.n_iter if n_iter is None else check_int("n_iter", n_iter, low=1, type_error=True)
        check_bool("return_trajectory", return_trajectory)
        h = self.stem(x)
        h0 = h
        codes = self.steps.time_codes(n_iter)
        traj: dict[str, list[Tensor]] = {}
        for t in range(n_iter):
            alpha, beta = self.steps(codes[t], h0 if self.input_cond else h)
            dw, dwf = self.lora(t) if self.lora is not None else (None, None)
            h = self.block(h, alpha, beta, dw, dwf)
            if return_trajectory:
                with torch.no_grad():
                    for k, v in self.block.stats(h).items():
                        traj.setdefault(k, []).append(v)
        logits = self.head(h)
        if not return_trajectory:
            return logits
        return logits, {k: torch.stack(v, 1) for k, v in traj.items()}


class TokenStem(nn.Module):
    """Input embedding shared by Hyper-SET and the baselines (image patches or Sudoku cells)."""

    def __init__(
        self,
        d_model: int,
        n_tokens: int,
        task: str,
        in_features: int | None = None,
        vocab_size: int | None = None,
        positions: bool = True,
    ) -> None:
        super().__init__()
        self.task = check_choice("task", task, ("image", "sudoku"))
        check_int("d_model", d_model, low=1, type_error=True)
        check_int("n_tokens", n_tokens, low=1, type_error=True)
        check_bool("positions", positions)
        self.d_model, self.n_tokens = d_model, n_tokens
        if task == "image":
            if in_features is None:
                raise ValueError("in_features is required for task='image' (pixels per patch)")
            self.in_features = check_int("in_features", in_features, low=1, type_error=True)
            self.embed: nn.Module = nn.Sequential(
                nn.LayerNorm(in_features), nn.Linear(in_features, d_model), nn.LayerNorm(d_model)
            )
            self.cls = nn.Parameter(torch.randn(1, 1, d_model))
            pos = (
                sinusoidal_positions(n_tokens + 1, d_model)
                if positions
                else torch.zeros(n_tokens + 1, d_model)
            )
            self.register_buffer("pos", pos[None], persistent=False)
        else:
            if vocab_size is None:
                raise ValueError("vocab_size is required for task='sudoku'")
            self.vocab_size = check_int("vocab_size", vocab_size, low=1, type_error=True)
            self.embed = nn.Embedding(vocab_size, d_model)
            nn.init.normal_(self.embed.weight, std=0.02)
            self.pos = nn.Parameter(torch.randn(1, n_tokens, d_model) * 0.02) if positions else None

    def forward(self, x: Tensor) -> Tensor:
        """(B, N, in_features) float patches or (B, N) integer cells -> (B, N(+1), d)."""
        if not isinstance(x, Tensor):
            raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if self.task == "image":
            if x.dim() != 3 or x.shape[1] != self.n_tokens or x.shape[2] != self.in_features:
                raise ValueError(
                    f"x must have shape (batch, {self.n_tokens}, {self.in_features}) for the image task, "
                    f"got {tuple(x.shape)}"
                )
            check_tensor("x", x, floating=True, finite=True)
            h = self.embed(x)
            return torch.cat([self.cls.expand(h.shape[0], -1, -1), h], 1) + self.pos
        if x.dim() != 2 or x.shape[1] != self.n_tokens or x.dtype.is_floating_point:
            raise ValueError(
                f"x must be an integer tensor of shape (batch, {self.n_tokens}), got {tuple(x.shape)}"
            )
        check_token_ids("x (Sudoku cells)", x, self.vocab_size)
        h = self.embed(x)
        return h if self.pos is None else h + self.pos


class TokenHead(nn.Module):
    """Output head: CLS -> LayerNorm -> Linear (image) or RMSNorm -> bias-free Linear per token (sudoku)."""

    def __init__(self, d_model: int, n_classes: int, task: str) -> None:
        super().__init__()
        self.task = check_choice("task", task, ("image", "sudoku"))
        check_int("d_model", d_model, low=1, type_error=True)
        check_int("n_classes", n_classes, low=1, type_error=True)
        if task == "image":
            self.net = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, n_classes))
        else:
            self.net = nn.Sequential(nn.RMSNorm(d_model), nn.Linear(d_model, n_classes, bias=False))

    def forward(self, h: Tensor) -> Tensor:
        """(B, N, d) -> (B, n_classes) or (B, N, n_classes)."""
        return self.net(h[:, 0] if self.task == "image" else h)
