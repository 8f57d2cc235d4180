"""Evaluation models of the SiTok reproduction (arXiv 2602.06602): a small BiLSTM-CTC phone recogniser.

The same class serves twice:

- the clean-mel recogniser (trained once on clean normalised mels, then applied to reconstructed mels: the
  reconstruction PER, the stand-in for the paper's reconstruction WER from a strong ASR model);
- the understanding probe (a fresh 1-layer model trained on the frozen code embeddings of a tokenizer: the probe
  PER, the stand-in for the paper's LLM-ASR on the tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.generative.sitok.ctc import ctc_greedy_decode, ctc_loss, pad_targets

__all__ = ["PhoneRecognizer", "pad_features", "recognize", "train_ctc_model"]


def pad_features(feats: Sequence[Tensor]) -> tuple[Tensor, Tensor]:
    """List of (T_i, D) tensors -> (padded (B, T_max, D), lengths (B,))."""
    lengths = torch.tensor([f.shape[0] for f in feats], dtype=torch.long)
    out = feats[0].new_zeros(len(feats), int(lengths.max()), feats[0].shape[1])
    for i, f in enumerate(feats):
        out[i, : f.shape[0]] = f
    return out, lengths


def _check_feats(feats: Any, in_dim: int | None) -> None:
    """`feats`: a sequence (a list, or a tensor over its first axis) of finite (T_i, in_dim) float tensors."""
    if feats is None or isinstance(feats, (str, bytes)) or not hasattr(feats, "__len__"):
        raise TypeError(f"feats must be a sequence of (T_i, D) float tensors, got {feats!r}")
    for i, f in enumerate(feats):
        check_tensor(f"feats[{i}]", f, ndim=2, floating=True, finite=True, shape=(None, in_dim))


class PhoneRecognizer(nn.Module):
    """(B, T, in_dim) features -> CTC log-probabilities (B, (T // stack) * upsample, n_symbols + 1).

    ``stack`` consecutive frames are concatenated first (rate / stack), one BiLSTM layer of ``hidden`` units per
    direction, then a linear map to ``upsample`` output frames per input step.

    Examples
    --------
    >>> rec = PhoneRecognizer(in_dim=8, n_symbols=5, hidden=16, stack=2)
    >>> rec(torch.randn(3, 10, 8)).shape
    torch.Size([3, 5, 6])
    """

    def __init__(
        self, in_dim: int, n_symbols: int, hidden: int = 128, stack: int = 1, upsample: int = 1
    ) -> None:
        super().__init__()
        self.in_dim = check_int("in_dim", in_dim, low=1)
        self.n_symbols = check_int("n_symbols", n_symbols, low=1)
        self.stack = check_int("stack", stack, low=1)
        self.upsample = check_int("upsample", upsample, low=1)
        hidden = check_int("hidden", hidden, low=1)
        self.proj = nn.Linear(in_dim * stack, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, upsample * (n_symbols + 1))

    @property
    def blank(self) -> int:
        return self.n_symbols

    def output_lengths(self, lengths: Tensor) -> Tensor:
        return (lengths // self.stack) * self.upsample

    def forward(self, x: Tensor) -> Tensor:
        check_tensor("x", x, ndim=3, floating=True)
        if x.shape[-1] != self.in_dim:
            raise ValueError(f"x must have last dimension in_dim={self.in_dim}, got {tuple(x.shape)}")
        b, t, d = x.shape
        t = t // self.stack
        x = x[:, : t * self.stack].reshape(b, t, self.stack * d)
        h, _ = self.lstm(torch.relu(self.proj(x)))
        logits = self.out(h).reshape(b, t * self.upsample, self.n_symbols + 1)
        return logits.log_softmax(-1)


def train_ctc_model(
    model: PhoneRecognizer,
    feats: Sequence[Tensor],
    targets: Sequence[Tensor],
    steps: int,
    batch: int = 16,
    lr: float = 2e-3,
    seed: int = 0,
) -> list[float]:
    """Adam on the CTC loss of random batches of (`feats`[i] (T_i, D), `targets`[i]); returns the losses."""
    steps = check_int("steps", steps, low=0)
    batch = check_int("batch", batch, low=1)
    lr = check_float("lr", lr, low=0.0, low_open=True)
    _check_feats(feats, getattr(model, "in_dim", None))
    if targets is None or isinstance(targets, (str, bytes)) or not hasattr(targets, "__len__"):
        raise TypeError(f"targets must be a sequence of 1-D integer tensors, got {targets!r}")
    if len(feats) != len(targets) or not len(feats):
        raise ValueError(
            f"feats and targets must be non-empty and of equal length, got {len(feats)}, {len(targets)}"
        )
    check_token_ids("targets", pad_targets(targets, "targets")[0], model.n_symbols)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, len(feats), (batch,), generator=gen).tolist()
        x, lengths = pad_features([feats[i] for i in idx])
        y, y_len = pad_targets([targets[i] for i in idx])
        loss = ctc_loss(model(x), y, model.output_lengths(lengths), y_len, model.blank)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


@torch.no_grad()
def recognize(model: PhoneRecognizer, feats: Sequence[Tensor], batch: int = 64) -> list[list[int]]:
    """Greedy CTC transcripts of every (T_i, D) feature sequence."""
    _check_feats(feats, getattr(model, "in_dim", None))
    model.eval()
    out: list[list[int]] = []
    for s in range(0, len(feats), batch):
        x, lengths = pad_features(list(feats[s : s + batch]))
        out += ctc_greedy_decode(model(x), model.output_lengths(lengths), model.blank)
    return out
