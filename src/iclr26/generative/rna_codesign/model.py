"""Denoisers of the joint sequence + frame diffusion: the protocol, a tiny IPA-lite transformer, the RF2NA stub.

A denoiser maps noisy tokens ``(B, L)`` (ids in [0, 5), 4 = [MASK]), noisy frames (rotations ``(B, L, 3, 3)``,
positions ``(B, L, 3)`` in units of the frame schedule's scale) and times ``(B,)`` to nucleotide logits
``(B, L, 4)`` and a prediction of the clean frames.

:class:`TinyFrameTransformer` is SE(3)-equivariant by construction: every geometric input is invariant (pairwise
distances, the partner direction in each local frame, relative rotations ``R_i^T R_j``), rotations are updated
in the local frame (``R_hat = R exp(omega)``), positions by the local offset ``R_i delta_i`` plus a weighted sum of
difference vectors ``sum_j w_ij (p_j - p_i)``. Its "pair track" embeds the token pair ``(s_i, s_j)``, the sequence
offset and the geometry and runs one 3x3 convolution over the pair map (stems are anti-diagonals there); the
pair features bias the attention of a small transformer over the nucleotides.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_int, check_tensor, check_token_ids
from iclr26.generative.rna_codesign.geometry import so3_exp

__all__ = ["Denoiser", "RF2NAAdapter", "TinyFrameTransformer"]

N_TOKENS = 5  # A C G U [MASK]


@runtime_checkable
class Denoiser(Protocol):
    """``forward(tokens, rots, trans, t) -> (logits (B, L, 4), rots_hat (B, L, 3, 3), trans_hat (B, L, 3))``."""

    def __call__(
        self, tokens: Tensor, rots: Tensor, trans: Tensor, t: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]: ...


def _time_features(t: Tensor, dim: int) -> Tensor:
    freqs = torch.exp(torch.linspace(0, math.log(100.0), dim // 2, dtype=t.dtype, device=t.device))
    ang = t[:, None] * freqs[None, :] * math.pi
    return torch.cat([ang.sin(), ang.cos()], -1)


class _Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, h: Tensor, bias: Tensor) -> Tensor:
        b, n, d = h.shape
        q, k, v = self.qkv(self.ln1(h)).view(b, n, 3, self.heads, d // self.heads).unbind(2)
        att = torch.einsum("bihc,bjhc->bhij", q, k) / math.sqrt(d // self.heads) + bias
        h = h + self.out(torch.einsum("bhij,bjhc->bihc", att.softmax(-1), v).reshape(b, n, d))
        return h + self.mlp(self.ln2(h))


class TinyFrameTransformer(nn.Module):
    """A small SE(3)-equivariant co-design denoiser (module docstring); the stand-in for RF2NA trained here.

    Parameters: ``d_model`` node width, ``n_layers`` attention blocks, ``n_heads`` heads, ``pair_dim`` pair-track
    width, ``max_offset`` clip of the relative sequence position, ``init_seed`` the weights' seed.
    ``equivariant=False`` gives the non-equivariant variant: the absolute pose (p_i, R_i) is a node input and the
    updates act in the global frame (``R_hat = exp(omega) R``, ``p_hat = p + delta + msg``), so it can regress
    structures in the canonical orientation of the training data (train it without rotation augmentation).
    """

    def __init__(
        self,
        d_model: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        pair_dim: int = 32,
        max_offset: int = 32,
        n_rbf: int = 16,
        init_seed: int = 0,
        equivariant: bool = True,
    ) -> None:
        super().__init__()
        self.equivariant = check_bool("equivariant", equivariant)
        d_model = check_int("d_model", d_model, low=8)
        n_heads = check_int("n_heads", n_heads, low=1)
        if d_model % n_heads:
            raise ValueError(f"d_model must be divisible by n_heads={n_heads}, got {d_model}")
        check_int("n_layers", n_layers, low=1)
        check_int("pair_dim", pair_dim, low=4)
        self.max_offset = check_int("max_offset", max_offset, low=1)
        self.n_rbf = check_int("n_rbf", n_rbf, low=2)
        check_int("init_seed", init_seed, low=0)
        gen_state = torch.random.get_rng_state()
        torch.manual_seed(init_seed)
        c = pair_dim
        self.tok = nn.Embedding(N_TOKENS, d_model)
        self.time = nn.Linear(16, d_model)
        self.abs_in = None if equivariant else nn.Linear(12, d_model)
        self.pair_tok = nn.Embedding(N_TOKENS * N_TOKENS, c)
        self.pair_off = nn.Embedding(2 * max_offset + 1, c)
        self.pair_geo = nn.Linear(n_rbf + 2 + 9, c)
        self.pair_time = nn.Linear(16, c)
        self.pair_conv = nn.Conv2d(c, c, 3, padding=1)
        self.pair_mlp = nn.Sequential(nn.LayerNorm(c), nn.Linear(c, c), nn.GELU(), nn.Linear(c, c))
        self.to_bias = nn.Linear(c, n_heads * n_layers)
        self.blocks = nn.ModuleList(_Block(d_model, n_heads) for _ in range(n_layers))
        self.ln = nn.LayerNorm(d_model)
        self.seq_head = nn.Linear(d_model, 4)
        self.frame_head = nn.Linear(d_model, 6)
        self.msg_i, self.msg_j = nn.Linear(d_model, c), nn.Linear(d_model, c)
        self.msg_out = nn.Sequential(nn.GELU(), nn.Linear(c, 1))
        nn.init.zeros_(self.frame_head.weight)
        nn.init.zeros_(self.frame_head.bias)
        torch.random.set_rng_state(gen_state)
        self.n_heads, self.n_layers = n_heads, n_layers

    def pair_features(self, tokens: Tensor, rots: Tensor, trans: Tensor, t_feat: Tensor) -> Tensor:
        """Pair track (B, L, L, pair_dim): token pair, offset, invariant geometry and time, then conv + MLP."""
        b, n = tokens.shape
        idx = torch.arange(n, device=tokens.device)
        off = (idx[None, :] - idx[:, None]).clamp(-self.max_offset, self.max_offset) + self.max_offset
        z = self.pair_tok(tokens[:, :, None] * N_TOKENS + tokens[:, None, :]) + self.pair_off(off)[None]
        diff = trans[:, None, :, :] - trans[:, :, None, :]  # p_j - p_i
        dist = diff.norm(dim=-1)
        centres = torch.linspace(0.0, 2.5, self.n_rbf, dtype=trans.dtype, device=trans.device)
        rbf = torch.exp(-(((dist[..., None] - centres) / 0.2) ** 2))
        unit = diff / (dist[..., None] + 1e-6)
        e1 = rots[..., :, 0]
        cos_i = (e1[:, :, None, :] * unit).sum(-1)
        cos_j = -(e1[:, None, :, :] * unit).sum(-1)
        rel = torch.einsum("biac,bjad->bijcd", rots, rots).reshape(b, n, n, 9)
        geo = torch.cat([rbf, cos_i[..., None], cos_j[..., None], rel], -1)
        z = z + self.pair_geo(geo) + self.pair_time(t_feat)[:, None, None, :]
        z = z + self.pair_conv(z.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
        return z + self.pair_mlp(z)

    def forward(
        self, tokens: Tensor, rots: Tensor, trans: Tensor, t: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Logits (B, L, 4) and predicted clean frames (rotations, positions) from the noisy state at times t."""
        check_token_ids("tokens", check_tensor("tokens", tokens, ndim=2), N_TOKENS)
        b, n = tokens.shape
        check_tensor("rots", rots, floating=True, shape=(b, n, 3, 3))
        check_tensor("trans", trans, floating=True, shape=(b, n, 3))
        check_tensor("t", t, floating=True, shape=(b,))
        t_feat = _time_features(t.to(trans.dtype), 16)
        z = self.pair_features(tokens, rots, trans, t_feat)
        bias = self.to_bias(z).permute(0, 3, 1, 2)  # (B, heads * layers, L, L)
        h = self.tok(tokens) + self.time(t_feat)[:, None, :]
        if self.abs_in is not None:  # absolute pose as node input: not equivariant
            h = h + self.abs_in(torch.cat([trans, rots.flatten(-2)], -1))
        for k, block in enumerate(self.blocks):
            h = block(h, bias[:, k * self.n_heads : (k + 1) * self.n_heads])
        h = self.ln(h)
        logits = self.seq_head(h)
        fr = self.frame_head(h)
        omega, delta = fr[..., :3], fr[..., 3:]
        w = self.msg_out(self.msg_i(h)[:, :, None, :] + self.msg_j(h)[:, None, :, :] + z).squeeze(-1)
        diff = trans[:, None, :, :] - trans[:, :, None, :]
        msg = (w[..., None] * diff).mean(2)
        if self.equivariant:  # updates in the local frames
            rots_hat = rots @ so3_exp(omega)
            trans_hat = trans + torch.einsum("bnij,bnj->bni", rots, delta) + msg
        else:  # updates in the global frame
            rots_hat = so3_exp(omega) @ rots
            trans_hat = trans + delta + msg
        return logits, rots_hat, trans_hat


class RF2NAAdapter(nn.Module):
    """Placeholder for RoseTTAFold2NA as the co-design denoiser (the paper's model); not runnable offline.

    Expected mapping (single-sequence mode, no MSA): tokens -> RF2NA's 1D track (RNA alphabet, [MASK] as its
    unknown token), noisy frames -> the template / structure track (backbone frames of C4', C1', N1/N9), t as an
    extra 1D feature; outputs the sequence logits of its masked-token head and the frames of its final structure
    module. Constructing it raises unless the ``rf2na`` package and a weights file are present.
    """

    def __init__(self, weights_path: str | None = None) -> None:
        super().__init__()
        try:
            import rf2na  # noqa: F401  (never installed in this project)
        except ImportError as exc:
            raise RuntimeError(
                "RF2NAAdapter needs RoseTTAFold2NA (package 'rf2na', github.com/uw-ipd/RoseTTAFold2NA) and its "
                f"weights (~1.1 GB; weights_path={weights_path!r}); neither is available offline. Use "
                "TinyFrameTransformer instead."
            ) from exc
        raise NotImplementedError("RF2NAAdapter's input mapping is documented but not implemented")

    def forward(self, tokens: Tensor, rots: Tensor, trans: Tensor, t: Tensor):  # pragma: no cover
        raise NotImplementedError
