"""A tiny multi-conditional MM-DiT (single-stream joint attention) trained with rectified flow.

All conditions share one token sequence ``[prompt | layout | subjects | noisy image]`` (the layout of
:func:`~iclr26.generative.creatidesign.masks.build_multimodal_attention_mask`):

* prompt tokens: word embeddings plus a learned position;
* layout tokens: one per element, an MLP of [mean word embedding of the description, Fourier embedding of the
  box corners (x0, y0, x1, y1)] (GLIGEN-style, as the official ``ObjectLayoutEncoder``);
* subject tokens: the sprite patchified by the same patch embedding as the noisy image, carrying the position
  embedding of the image cells its region covers (the official code reuses ``x_embedder`` for subjects);
* image tokens: patch embedding plus a learned 2-D position.

Blocks are adaLN-modulated by the timestep (DiT), attention is ``scaled_dot_product_attention`` with the boolean
multimodal mask (``use_mask=True``) or global attention over the real tokens (``use_mask=False``); padding
tokens of a batch attend only to themselves and are read by no one. The head predicts the velocity
``x1 - x0`` of the rectified flow ``x_t = (1 - t) x0 + t x1`` (x0 noise, x1 data) on the image tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_int, check_tensor, check_token_ids
from iclr26.generative.creatidesign.masks import MaskRules, build_multimodal_attention_mask
from iclr26.lab.vision import Box, as_box

__all__ = ["MultiConditionDiT", "fourier_box_embedding", "rectified_flow_loss", "sample_euler"]


def fourier_box_embedding(boxes: torch.Tensor, n_freqs: int = 8) -> torch.Tensor:
    """``(..., 4)`` corner coordinates -> ``(..., 8 * n_freqs)``: sin and cos of ``100 ** (f / n_freqs) * x``
    for each frequency f and coordinate (the official GLIGEN-style box embedding)."""
    check_tensor("boxes", boxes, floating=True)
    if boxes.ndim < 1 or boxes.shape[-1] != 4:
        raise ValueError(
            f"boxes must have a last dimension of 4 corner coordinates, got {tuple(boxes.shape)}"
        )
    freqs = 100.0 ** (torch.arange(n_freqs, dtype=boxes.dtype, device=boxes.device) / n_freqs)
    emb = boxes[..., None] * freqs  # (..., 4, F)
    return torch.cat([emb.sin(), emb.cos()], dim=-1).flatten(-2)


def _timestep(t: torch.Tensor, dim: int) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(10_000.0) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    arg = 1000.0 * t.float()[:, None] * freqs[None]
    return torch.cat([arg.cos(), arg.sin()], dim=-1)


class _Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
        self.ada = nn.Linear(d, 6 * d)
        nn.init.zeros_(self.ada.weight)
        nn.init.zeros_(self.ada.bias)

    def forward(self, x: torch.Tensor, c: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        sh1, sc1, g1, sh2, sc2, g2 = self.ada(F.silu(c))[:, None].chunk(6, dim=-1)
        h = self.norm1(x) * (1 + sc1) + sh1
        q, k, v = self.qkv(h).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None])
        x = x + g1 * self.proj(a.transpose(1, 2).reshape(b, s, d))
        h = self.norm2(x) * (1 + sc2) + sh2
        return x + g2 * self.mlp(h)


Layout = Sequence[tuple[torch.Tensor, Box | Sequence[float]]]
Subjects = Sequence[tuple[torch.Tensor, Box | Sequence[float]]]


class MultiConditionDiT(nn.Module):
    """Tiny MM-DiT: ``forward(noisy_latent, t, prompt_ids, layout, subjects) -> velocity``.

    Parameters
    ----------
    image_size : side of the square RGB image; patch : patch side (image tokens = (image_size / patch)^2).
    dim, depth, heads : width, blocks, attention heads.
    vocab : word vocabulary size (prompt and layout descriptions); n_prompt : prompt length.
    max_layout, max_subjects : padded numbers of layout elements and subjects per sample.
    use_mask : the multimodal attention mask (True) or global attention over the real tokens (False).
    rules : the :class:`~iclr26.generative.creatidesign.masks.MaskRules` of the mask.

    ``layout`` and ``subjects`` are per-sample lists: ``layout[b] = [(desc_ids, box), ...]`` (desc_ids a 1-D
    LongTensor, box normalised l, t, w, h) and ``subjects[b] = [(image (3, h, w) in [-1, 1], region), ...]``;
    a subject image must be exactly its region's size in pixels.
    """

    def __init__(
        self,
        image_size: int = 32,
        patch: int = 4,
        dim: int = 64,
        depth: int = 3,
        heads: int = 4,
        vocab: int = 16,
        n_prompt: int = 2,
        max_layout: int = 3,
        max_subjects: int = 2,
        use_mask: bool = True,
        rules: MaskRules | None = None,
    ) -> None:
        super().__init__()
        self.image_size = check_int("image_size", image_size, 4)
        self.patch = check_int("patch", patch, 1)
        if image_size % patch:
            raise ValueError(f"image_size must be a multiple of patch={patch}, got {image_size}")
        self.dim = check_int("dim", dim, 8)
        self.heads = check_int("heads", heads, 1)
        if dim % heads:
            raise ValueError(f"dim must be a multiple of heads={heads}, got {dim}")
        check_int("depth", depth, 1)
        self.vocab = check_int("vocab", vocab, 1)
        self.n_prompt = check_int("n_prompt", n_prompt, 1)
        self.max_layout = check_int("max_layout", max_layout, 0)
        self.max_subjects = check_int("max_subjects", max_subjects, 0)
        self.use_mask = check_bool("use_mask", use_mask)
        self.rules = MaskRules() if rules is None else rules
        self.grid = image_size // patch
        self._masks: dict = {}  # per-sample masks by (boxes, regions, tokens, use_mask); pure cache
        self.n_img = self.grid * self.grid
        pd = 3 * patch * patch
        self.x_embed = nn.Linear(pd, dim)
        self.pos = nn.Parameter(torch.randn(self.n_img, dim) * 0.02)
        self.words = nn.Embedding(vocab, dim)
        self.prompt_pos = nn.Parameter(torch.randn(n_prompt, dim) * 0.02)
        self.layout_mlp = nn.Sequential(nn.Linear(dim + 64, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.type_emb = nn.Parameter(torch.randn(4, dim) * 0.02)  # prompt, layout, subject, image
        self.t_mlp = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList(_Block(dim, heads) for _ in range(depth))
        self.norm_out = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.ada_out = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, pd)
        for layer in (self.ada_out, self.out):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    # ------------------------------------------------------------------ tokens and mask
    def _patchify(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        p = self.patch
        return (
            x.view(b, c, h // p, p, w // p, p)
            .permute(0, 2, 4, 1, 3, 5)
            .reshape(b, (h // p) * (w // p), c * p * p)
        )

    def _unpatchify(self, tok: torch.Tensor) -> torch.Tensor:
        b = tok.shape[0]
        g, p = self.grid, self.patch
        return tok.view(b, g, g, 3, p, p).permute(0, 3, 1, 4, 2, 5).reshape(b, 3, g * p, g * p)

    def _check_sample(self, b: int, layout: Layout, subjects: Subjects) -> tuple[list, list]:
        if len(layout) > self.max_layout:
            raise ValueError(
                f"layout[{b}] has {len(layout)} elements, more than max_layout={self.max_layout}"
            )
        if len(subjects) > self.max_subjects:
            raise ValueError(
                f"subjects[{b}] has {len(subjects)} subjects, more than max_subjects={self.max_subjects}"
            )
        lay, sub = [], []
        for k, (ids, box) in enumerate(layout):
            ids = check_tensor(f"layout[{b}][{k}] desc_ids", ids, ndim=1)
            if ids.numel() == 0 or int(ids.min()) < 0 or int(ids.max()) >= self.vocab:
                raise ValueError(
                    f"layout[{b}][{k}] desc_ids must be non-empty ids in [0, {self.vocab}), got {ids.tolist()}"
                )
            lay.append((ids, as_box(box, f"layout[{b}][{k}] box")))
        for j, (img, region) in enumerate(subjects):
            r = as_box(region, f"subjects[{b}][{j}] region")
            x0, y0, x1, y1 = r.to_pixels(self.image_size)
            if not isinstance(img, torch.Tensor) or img.shape != (3, y1 - y0, x1 - x0):
                shape = tuple(img.shape) if isinstance(img, torch.Tensor) else type(img).__name__
                raise ValueError(
                    f"subjects[{b}][{j}] image must be (3, {y1 - y0}, {x1 - x0}) to fill its region "
                    f"{r.as_tuple()} on the {self.image_size}-pixel canvas, got {shape}"
                )
            if (y1 - y0) % self.patch or (x1 - x0) % self.patch or x0 % self.patch or y0 % self.patch:
                raise ValueError(
                    f"subjects[{b}][{j}] region {r.as_tuple()} must lie on the {self.patch}-pixel patch grid"
                )
            sub.append((img, r, (x0 // self.patch, y0 // self.patch, x1 // self.patch, y1 // self.patch)))
        return lay, sub

    def _padded_mask(self, lay, sub, st, n_cond, total, rules, eye) -> torch.Tensor:
        """The mask of one sample placed into the padded sequence (padding slots attend only to themselves)."""
        P, L = self.n_prompt, self.max_layout
        real = build_multimodal_attention_mask(
            P,
            [box for _, box in lay],
            [r for _, r, _ in sub],
            (self.grid, self.grid),
            rules,
            layout_tokens=1,
            subject_tokens=st,
        )
        idx = [*range(P), *range(P, P + len(lay))]
        for j in range(len(sub)):
            idx += range(P + L + j * st, P + L + (j + 1) * st)
        idx += range(n_cond, total)
        idx_t = torch.tensor(idx)
        m = eye.clone()
        m[idx_t[:, None], idx_t[None, :]] = real
        for j, (*_, (cx0, cy0, cx1, cy1)) in enumerate(sub):  # a smaller subject's unused slots
            lo, hi = P + L + j * st + (cx1 - cx0) * (cy1 - cy0), P + L + (j + 1) * st
            m[lo:hi] = False
            m[:, lo:hi] = False
            m[lo:hi, lo:hi] = eye[lo:hi, lo:hi]
        return m

    def _sequence(
        self, prompt_ids: torch.Tensor, layout: Sequence[Layout], subjects: Sequence[Subjects]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Condition tokens ``(B, S_c, d)`` and the ``(B, S, S)`` boolean mask of the padded sequence
        ``[prompt | max_layout slots | max_subjects x st slots | image]`` (st: the largest subject's tokens)."""
        bsz = prompt_ids.shape[0]
        dev = self.pos.device
        samples = [self._check_sample(b, layout[b], subjects[b]) for b in range(bsz)]
        st = max([1] + [(c[2] - c[0]) * (c[3] - c[1]) for _, sub in samples for *_, c in sub])
        P, L = self.n_prompt, self.max_layout
        n_cond = P + L + self.max_subjects * st
        total = n_cond + self.n_img
        prompt = self.words(prompt_ids.to(dev)) + self.prompt_pos + self.type_emb[0]
        rules = self.rules if self.use_mask else MaskRules.full()
        eye = torch.eye(total, dtype=torch.bool)
        conds, masks = [], []
        for lay, sub in samples:
            slots = torch.zeros(n_cond - P, self.dim, device=dev)
            if lay:
                words = torch.stack([self.words(ids.to(dev)).mean(0) for ids, _ in lay])
                corners = torch.tensor([[b.left, b.top, b.right, b.bottom] for _, b in lay], device=dev)
                feats = self.layout_mlp(torch.cat([words, fourier_box_embedding(corners)], -1))
                slots = torch.cat([feats + self.type_emb[1], slots[len(lay) :]])
            pieces = [slots[:L]]
            for img, _, (cx0, cy0, cx1, cy1) in sub:
                cells = torch.tensor(
                    [r * self.grid + c for r in range(cy0, cy1) for c in range(cx0, cx1)], device=dev
                )
                emb = self.x_embed(self._patchify(img[None].to(dev))[0]) + self.pos[cells] + self.type_emb[2]
                pieces += [emb, torch.zeros(st - emb.shape[0], self.dim, device=dev)]
            pieces.append(torch.zeros((self.max_subjects - len(sub)) * st, self.dim, device=dev))
            conds.append(torch.cat(pieces))
            key = (tuple(box for _, box in lay), tuple((r, c) for _, r, c in sub), st, self.use_mask)
            m = self._masks.get(key)
            if m is None:
                m = self._padded_mask(lay, sub, st, n_cond, total, rules, eye)
                if len(self._masks) < 100_000:
                    self._masks[key] = m
            masks.append(m)
        return torch.cat([prompt, torch.stack(conds)], 1), torch.stack(masks).to(dev)

    # ------------------------------------------------------------------ forward
    def forward(
        self,
        noisy_latent: torch.Tensor,
        t: torch.Tensor,
        prompt_ids: torch.Tensor,
        layout: Sequence[Layout] | None = None,
        subjects: Sequence[Subjects] | None = None,
    ) -> torch.Tensor:
        """Velocity ``(B, 3, H, W)`` at ``noisy_latent`` and time ``t`` (shape ``(B,)`` in [0, 1])."""
        x = check_tensor("noisy_latent", noisy_latent, ndim=4, floating=True)
        if x.shape[1:] != (3, self.image_size, self.image_size):
            raise ValueError(
                f"noisy_latent must be (B, 3, {self.image_size}, {self.image_size}), got {tuple(x.shape)}"
            )
        bsz = x.shape[0]
        t = check_tensor("t", t, ndim=1, floating=True)
        if t.shape[0] != bsz:
            raise ValueError(f"t must have shape ({bsz},) (the batch of noisy_latent), got {tuple(t.shape)}")
        prompt_ids = check_token_ids("prompt_ids", check_tensor("prompt_ids", prompt_ids, ndim=2), self.vocab)
        if prompt_ids.shape != (bsz, self.n_prompt):
            raise ValueError(f"prompt_ids must be ({bsz}, {self.n_prompt}), got {tuple(prompt_ids.shape)}")
        layout = [[] for _ in range(bsz)] if layout is None else list(layout)
        subjects = [[] for _ in range(bsz)] if subjects is None else list(subjects)
        if len(layout) != bsz or len(subjects) != bsz:
            raise ValueError(
                f"layout and subjects must be per-sample lists of length {bsz}, got {len(layout)} and {len(subjects)}"
            )
        cond, mask = self._sequence(prompt_ids, layout, subjects)
        img = self.x_embed(self._patchify(x)) + self.pos + self.type_emb[3]
        h = torch.cat([cond, img], 1)
        c = self.t_mlp(_timestep(t, self.dim))
        for blk in self.blocks:
            h = blk(h, c, mask)
        sh, sc = self.ada_out(F.silu(c))[:, None].chunk(2, dim=-1)
        out = self.out(self.norm_out(h[:, -self.n_img :]) * (1 + sc) + sh)
        return self._unpatchify(out)


def rectified_flow_loss(
    model: MultiConditionDiT,
    x1: torch.Tensor,
    prompt_ids: torch.Tensor,
    layout: Sequence[Layout],
    subjects: Sequence[Subjects],
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Mean squared error of the predicted velocity against ``x1 - x0`` at ``x_t = (1 - t) x0 + t x1``,
    t ~ U(0, 1), x0 ~ N(0, I) (drawn on the CPU `generator`)."""
    size = model.image_size
    check_tensor("x1", x1, ndim=4, floating=True, shape=(len(layout), 3, size, size))
    x0 = torch.randn(x1.shape, generator=generator).to(x1.device)
    t = torch.rand(x1.shape[0], generator=generator).to(x1.device)
    xt = (1 - t)[:, None, None, None] * x0 + t[:, None, None, None] * x1
    return F.mse_loss(model(xt, t, prompt_ids, layout, subjects), x1 - x0)


@torch.no_grad()
def sample_euler(
    model: MultiConditionDiT,
    prompt_ids: torch.Tensor,
    layout: Sequence[Layout],
    subjects: Sequence[Subjects],
    steps: int = 10,
    generator: torch.Generator | None = None,
    noise: torch.Tensor | None = None,
) -> torch.Tensor:
    """Images ``(B, 3, H, W)`` by `steps` Euler steps of the learned flow from t = 0 (noise) to t = 1."""
    steps = check_int("steps", steps, 1)
    bsz = check_tensor("prompt_ids", prompt_ids, ndim=2).shape[0]
    if len(layout) != bsz or len(subjects) != bsz:
        raise ValueError(
            f"prompt_ids has {bsz} rows but layout and subjects hold {len(layout)} and {len(subjects)} samples"
        )
    shape = (bsz, 3, model.image_size, model.image_size)
    if noise is not None:
        check_tensor("noise", noise, floating=True, shape=shape)
    x = torch.randn(shape, generator=generator) if noise is None else noise.clone()
    x = x.to(model.pos.device)
    for i in range(steps):
        t = torch.full((bsz,), i / steps, device=x.device)
        x = x + model(x, t, prompt_ids, layout, subjects) / steps
    return x
