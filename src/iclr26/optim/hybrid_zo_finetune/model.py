"""The tiny sequence classifier: the lab :class:`~iclr26.lab.transformer.Transformer` (bidirectional) as the
backbone, mean-pooled final residual stream, a linear head."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from iclr26.checks import check_int, check_tensor
from iclr26.lab.transformer import Transformer

__all__ = ["TinyClassifier"]


class TinyClassifier(nn.Module):
    """Token ids (batch, seq) -> class logits (batch, n_classes).

    Defaults give the brief's model: 2 layers, d_model 64, 4 heads, vocabulary 32, length 16, FFN width 128
    (about 70k parameters). Initial weights come from a private generator seeded with `init_seed`.
    """

    def __init__(
        self,
        vocab_size: int = 32,
        seq_len: int = 16,
        d_model: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        d_mlp: int = 128,
        n_classes: int = 8,
        init_seed: int = 0,
    ) -> None:
        super().__init__()
        check_int("n_classes", n_classes, low=2)
        check_int("init_seed", init_seed, low=0)
        check_int("d_mlp", d_mlp, low=1)
        self.backbone = Transformer(
            vocab_size, seq_len, d_model, n_layers, n_heads, d_mlp=d_mlp, causal=False, init_seed=init_seed
        )
        self.head = nn.Linear(d_model, n_classes)
        gen = torch.Generator().manual_seed(init_seed + 1)
        with torch.no_grad():
            self.head.weight.normal_(0.0, d_model**-0.5, generator=gen)
            self.head.bias.zero_()

    def features(self, tokens: Tensor, validate: bool = True) -> Tensor:
        """Mean over positions of the final (normalised) residual stream, (batch, d_model)."""
        bb = self.backbone
        check_tensor("tokens", tokens)
        if tokens.ndim == 2 and tokens.shape[1] > bb.seq_len:
            raise ValueError(f"tokens holds {tokens.shape[1]} positions, more than seq_len={bb.seq_len}")
        x = bb.embed(tokens, validate)
        pos = bb.positions.embed(x.shape[1], x.device)
        if pos is not None:
            x = x + pos
        bias = bb.positions.score_bias(x.shape[1], x.device)
        for block in bb.blocks:
            x = block(x, bias)
        if bb.ln_final is not None:
            x = bb.ln_final(x)
        return x.mean(dim=1)

    def forward(self, tokens: Tensor, validate: bool = True) -> Tensor:
        """Class logits."""
        return self.head(self.features(tokens, validate))
