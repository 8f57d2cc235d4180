"""The ARTrack-style one-stream tracker of FARTrack ("Fast Autoregressive Visual Tracking with High Performance",
ICLR 2026, arXiv 2602.03214), with a coordinate head after several blocks (the self-distillation exits).

Tokens: L templates (each ``(template_size / patch)^2`` patches) ; the search crop ``(search_size / patch)^2``
patches ; 4 command tokens (x0, y0, x1, y1). Template i gets the learned identity embedding ``identity[i]``, the
search region ``identity[-1]``; command tokens are word embeddings E[cmd] plus a learned position embedding. One
ViT stream runs over the concatenation; after each exit block the 4 command outputs go through the shared final
LayerNorm and the tied output layer

    logits = LN(h) E^T + b          (E: the shared word-embedding table, V = bins * range + 5)

and the box is the argmax over the coordinate bins of each token, predicted in parallel.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor
from iclr26.science.fartrack.boxes import command_tokens, vocab_size

__all__ = ["ARTracker", "Attention", "Block"]


def sincos_2d(grid: int, dim: int) -> torch.Tensor:
    """(grid * grid, dim) 2-D sine-cosine position table on [0, 1]^2 (so template and search grids align)."""
    q = dim // 4
    omega = 1.0 / 10000 ** (torch.arange(q, dtype=torch.float32) / max(q, 1))
    c = (torch.arange(grid, dtype=torch.float32) + 0.5) / grid * 16
    yy, xx = torch.meshgrid(c, c, indexing="ij")
    parts = [f(a.reshape(-1, 1) * omega) for a in (xx, yy) for f in (torch.sin, torch.cos)]
    out = torch.cat(parts, dim=1)
    return torch.cat([out, torch.zeros(grid * grid, dim - out.shape[1])], dim=1)


def _conv_stem(dim: int, patch: int) -> nn.Sequential:
    """Overlapping 3x3 stride-2 convolutions down to the patch grid, then a 1x1 projection (Xiao et al. 2021, "Early
    convolutions help transformers see better"); ``patch`` must be a power of two."""
    layers: list[nn.Module] = []
    c, p = 3, patch
    if p & (p - 1):
        raise ValueError(f"the conv stem needs a power-of-two patch, got {patch}")
    while p > 1:
        layers += [nn.Conv2d(c, dim // 2, 3, stride=2, padding=1), nn.GELU()]
        c, p = dim // 2, p // 2
    layers.append(nn.Conv2d(c, dim, 1))
    return nn.Sequential(*layers)


class Attention(nn.Module):
    """Multi-head self-attention that returns its probabilities; ``key_padding_mask`` (B, N) True = ignored key
    (its attention weight is exactly 0)."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(
        self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) * self.scale  # (B, heads, N, N)
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        attn = scores.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(out), attn


class Block(nn.Module):
    """Pre-norm ViT block (attention, GELU MLP with ratio 4)."""

    def __init__(self, dim: int, heads: int, mlp_ratio: float = 4.0) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(
        self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        a, attn = self.attn(self.norm1(x), key_padding_mask)
        x = x + a
        return x + self.mlp(self.norm2(x)), attn


class ARTracker(nn.Module):
    """Coordinate-as-token one-stream ViT tracker with exits for task-specific self-distillation.

    Parameters
    ----------
    template_size, search_size : crop sides in pixels (divisible by ``patch``).
    patch : patch size; dim, heads : width and heads; depth : blocks; mlp_ratio : MLP width ratio.
    exits : 1-based block counts after which the shared head predicts (the last one must be ``depth``);
        default ``(2, ..., depth)``.
    bins, coord_range : the coordinate vocabulary (V = bins * range + 5).
    max_templates : size of the identity table minus one (templates + search).

    Example
    -------
    >>> import torch
    >>> m = ARTracker()
    >>> logits = m(torch.randn(2, 1, 3, 24, 24), torch.randn(2, 3, 48, 48))
    >>> len(logits), tuple(logits[-1].shape)
    (5, (2, 4, 69))
    >>> m.truncate(3)(torch.randn(2, 1, 3, 24, 24), torch.randn(2, 3, 48, 48))[-1].shape
    torch.Size([2, 4, 69])
    """

    def __init__(
        self,
        template_size: int = 24,
        search_size: int = 48,
        patch: int = 8,
        dim: int = 48,
        depth: int = 6,
        heads: int = 3,
        mlp_ratio: float = 4.0,
        exits: tuple[int, ...] | None = None,
        bins: int = 32,
        coord_range: int = 2,
        max_templates: int = 5,
        stem: str = "patch",
    ) -> None:
        super().__init__()
        patch = check_int("patch", patch, low=1)
        for name, size in (("template_size", template_size), ("search_size", search_size)):
            check_int(name, size, low=1)
            if size % patch:
                raise ValueError(f"{name} must be divisible by patch ({patch}), got {size}")
        check_int("dim", dim, low=1)
        check_float("mlp_ratio", mlp_ratio, low=0.0, low_open=True)
        heads = check_int("heads", heads, low=1)
        if dim % heads:
            raise ValueError(f"dim must be divisible by heads ({heads}), got {dim}")
        depth = check_int("depth", depth, low=1)
        exits = tuple(range(min(2, depth), depth + 1)) if exits is None else tuple(int(e) for e in exits)
        if not exits or exits != tuple(sorted(set(exits))) or exits[0] < 1 or exits[-1] != depth:
            raise ValueError(
                f"exits must be increasing block counts in [1, {depth}] ending at depth, got {exits}"
            )
        self.config = dict(
            template_size=template_size,
            search_size=search_size,
            patch=patch,
            dim=dim,
            depth=depth,
            heads=heads,
            mlp_ratio=mlp_ratio,
            exits=exits,
            bins=check_int("bins", bins, low=2),
            coord_range=check_int("coord_range", coord_range, low=1),
            max_templates=check_int("max_templates", max_templates, low=1),
            stem=stem,
        )
        self.template_size, self.search_size, self.patch = template_size, search_size, patch
        self.depth, self.exits, self.bins, self.coord_range = depth, exits, bins, coord_range
        self.max_templates = max_templates
        self.n_z = (template_size // patch) ** 2
        self.n_x = (search_size // patch) ** 2
        self.vocab = vocab_size(bins, coord_range)
        self.stem = check_choice("stem", stem, ("patch", "conv"))
        self.patch_embed = (
            _conv_stem(dim, patch) if stem == "conv" else nn.Conv2d(3, dim, patch, stride=patch)
        )
        self.pos_z = nn.Parameter(torch.zeros(1, self.n_z, dim))
        self.pos_x = nn.Parameter(torch.zeros(1, self.n_x, dim))
        self.identity = nn.Parameter(torch.zeros(max_templates + 1, dim))
        self.word_embeddings = nn.Embedding(self.vocab, dim)
        self.command_pos = nn.Parameter(torch.zeros(1, 4, dim))
        self.blocks = nn.ModuleList(Block(dim, heads, mlp_ratio) for _ in range(depth))
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.output_bias = nn.Parameter(torch.zeros(self.vocab))
        self._attn: list[torch.Tensor] = []
        self._init()

    def _init(self) -> None:
        with torch.no_grad():  # 2-D sin-cos start (as MAE's, whose weights the official model interpolates)
            self.pos_z.copy_(sincos_2d(self.template_size // self.patch, self.pos_z.shape[-1])[None])
            self.pos_x.copy_(sincos_2d(self.search_size // self.patch, self.pos_x.shape[-1])[None])
        for p in (self.identity, self.command_pos):
            nn.init.trunc_normal_(p, std=0.02)
        nn.init.kaiming_normal_(self.word_embeddings.weight)  # as the official code
        for m in self.blocks.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    # ---------------------------------------------------------------------------------------------- tokens
    def embed(
        self, templates: torch.Tensor, search: torch.Tensor, commands: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The token sequence (B, L n_z + n_x + 4, dim) before the first block."""
        if isinstance(templates, (list, tuple)):
            templates = torch.stack(list(templates), dim=1)
        check_tensor("templates", templates, ndim=5, floating=True)
        check_tensor("search", search, ndim=4, floating=True)
        B, L = templates.shape[:2]
        ts, ss = self.template_size, self.search_size
        if tuple(templates.shape[2:]) != (3, ts, ts):
            raise ValueError(f"templates must have shape (B, L, 3, {ts}, {ts}), got {tuple(templates.shape)}")
        if tuple(search.shape) != (B, 3, ss, ss):
            raise ValueError(
                f"search must have shape ({B}, 3, {ss}, {ss}) (B from templates), got {tuple(search.shape)}"
            )
        if not 1 <= L <= self.max_templates:
            raise ValueError(f"the number of templates must be in [1, {self.max_templates}], got {L}")
        if commands is None:
            commands = command_tokens(B, self.bins, self.coord_range, search.device)
        check_tensor("commands", commands, shape=(B, 4), floating=False)
        z = self.patch_embed(templates.flatten(0, 1)).flatten(2).transpose(1, 2)  # (B L, n_z, D)
        z = z.reshape(B, L, self.n_z, -1) + self.pos_z[:, None] + self.identity[:L, None, :]
        x = self.patch_embed(search).flatten(2).transpose(1, 2) + self.pos_x + self.identity[-1]
        c = self.word_embeddings(commands) + self.command_pos
        return torch.cat([z.flatten(1, 2), x, c], dim=1)

    def head(self, h: torch.Tensor) -> torch.Tensor:
        """Tied output layer on the 4 command outputs: LN(h) E^T + b, (B, 4, V)."""
        return self.norm(h[:, -4:]) @ self.word_embeddings.weight.T + self.output_bias

    # ---------------------------------------------------------------------------------------------- forward
    def forward(
        self,
        templates: torch.Tensor,
        search: torch.Tensor,
        commands: torch.Tensor | None = None,
        key_padding_mask: torch.Tensor | None = None,
        drop: bool = False,
        return_hidden: bool = False,
    ) -> list[torch.Tensor]:
        """Logits (B, 4, V) after every exit block, shallow to deep.

        ``key_padding_mask`` (B, L n_z) over the template tokens, True = pruned: masked in attention, or, with
        ``drop=True``, removed from the sequence (every row must prune the same number of tokens). With
        ``return_hidden`` the hidden states after every block are returned instead (for feature distillation).
        """
        tokens = self.embed(templates, search, commands)
        B, N, _ = tokens.shape
        n_templ = N - self.n_x - 4
        mask = None
        if key_padding_mask is not None:
            check_tensor("key_padding_mask", key_padding_mask, shape=(B, n_templ))
            if key_padding_mask.dtype != torch.bool:
                raise TypeError(f"key_padding_mask must be a bool tensor, got {key_padding_mask.dtype}")
            if drop:
                counts = key_padding_mask.sum(1)
                if bool((counts != counts[0]).any()):
                    raise ValueError("drop=True needs the same number of pruned tokens in every row")
                keep = (~key_padding_mask).nonzero()[:, 1].reshape(B, -1)
                kept = torch.gather(tokens[:, :n_templ], 1, keep[..., None].expand(-1, -1, tokens.shape[-1]))
                tokens = torch.cat([kept, tokens[:, n_templ:]], dim=1)
            else:
                pad = torch.zeros(B, N - n_templ, dtype=torch.bool, device=tokens.device)
                mask = torch.cat([key_padding_mask, pad], dim=1)
        out, hidden, self._attn = [], [], []
        h = tokens
        for i, blk in enumerate(self.blocks, start=1):
            h, attn = blk(h, mask)
            self._attn.append(attn.detach())
            hidden.append(h)
            if i in self.exits:
                out.append(self.head(h))
        return hidden if return_hidden else out

    def attention_maps(self) -> torch.Tensor:
        """Attention probabilities of the last forward: (depth, B, heads, N, N) (detached)."""
        if not self._attn:
            raise RuntimeError("attention_maps() needs a forward pass first")
        return torch.stack(self._attn)

    def truncate(self, depth: int) -> ARTracker:
        """A copy holding the first ``depth`` blocks and the shared head (the Nano/Pico models of one run)."""
        depth = check_int("depth", depth, low=1, high=self.depth)
        cfg = dict(self.config, depth=depth, exits=tuple(e for e in self.exits if e < depth) + (depth,))
        ref = self.output_bias
        small = ARTracker(**cfg).to(dtype=ref.dtype, device=ref.device)
        state = {
            k: v
            for k, v in self.state_dict().items()
            if not k.startswith("blocks.") or int(k.split(".")[1]) < depth
        }
        small.load_state_dict(copy.deepcopy(state))
        return small.train(self.training)
