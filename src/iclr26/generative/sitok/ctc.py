"""CTC pieces of SiTok (arXiv 2602.06602): the semantic regulariser's head, greedy decoding and phone error rate.

The head maps each quantised embedding (12.5 Hz) to ``upsample`` frames of log-probabilities over the phone
symbols plus a blank (index ``n_symbols``), L_ctc = CTC(log_probs, transcript) (``torch.nn.functional.ctc_loss``,
mean over the batch of the per-utterance loss divided by its target length). ``upsample`` > 1 lets a transcript
have more symbols (and repeats, which need a blank between them) than there are tokens; the brief leaves the head's
form open (linear or a small transformer): here a linear map, optionally after one hidden layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_int, check_logits, check_tensor

__all__ = ["CTCHead", "ctc_greedy_decode", "edit_distance", "pad_targets", "phone_error_rate"]


def pad_targets(targets: Sequence[Tensor], name: str = "text_tokens") -> tuple[Tensor, Tensor]:
    """A list of 1-D int64 transcripts -> (padded (B, L_max) with 0, lengths (B,)); an empty one is an error.

    ``name`` is the caller's name for ``targets`` in the errors."""
    if targets is None or isinstance(targets, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of 1-D integer tensors, got {targets!r}")
    if not len(targets):
        raise ValueError(f"{name} must hold at least one transcript, got an empty list")
    for i, t in enumerate(targets):
        check_tensor(f"{name}[{i}]", t, ndim=1, floating=False)
        if t.numel() == 0:
            raise ValueError(f"{name}[{i}] is an empty transcript; CTC needs at least one symbol")
    lengths = torch.tensor([t.numel() for t in targets], dtype=torch.long)
    out = torch.zeros(len(targets), int(lengths.max()), dtype=torch.long)
    for i, t in enumerate(targets):
        out[i, : t.numel()] = t.cpu()
    return out, lengths


class CTCHead(nn.Module):
    """Per-token CTC classifier: (B, T, in_dim) -> log-probabilities (B, T * upsample, n_symbols + 1).

    Examples
    --------
    >>> head = CTCHead(in_dim=8, n_symbols=5, upsample=2)
    >>> head(torch.randn(3, 4, 8)).shape
    torch.Size([3, 8, 6])
    """

    def __init__(self, in_dim: int, n_symbols: int, upsample: int = 1, hidden: int = 0) -> None:
        super().__init__()
        self.in_dim = check_int("in_dim", in_dim, low=1)
        self.n_symbols = check_int("n_symbols", n_symbols, low=1)
        self.upsample = check_int("upsample", upsample, low=1)
        hidden = check_int("hidden", hidden, low=0)
        out = upsample * (n_symbols + 1)
        self.net = (
            nn.Linear(in_dim, out)
            if hidden == 0
            else nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, out))
        )

    @property
    def blank(self) -> int:
        return self.n_symbols

    def forward(self, h: Tensor) -> Tensor:
        check_tensor("h", h, ndim=3, floating=True)
        if h.shape[-1] != self.in_dim:
            raise ValueError(f"h must have last dimension in_dim={self.in_dim}, got {tuple(h.shape)}")
        logits = self.net(h).reshape(h.shape[0], h.shape[1] * self.upsample, self.n_symbols + 1)
        return logits.log_softmax(-1)

    def loss(self, h: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        """CTC loss of the head's output on `h` (B, T, in_dim) with `input_lengths` in tokens (B,)."""
        log_probs = self(h)
        return ctc_loss(log_probs, targets, input_lengths * self.upsample, target_lengths, self.blank)


def ctc_loss(
    log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor, blank: int
) -> Tensor:
    """``F.ctc_loss`` on batch-first (B, T, C) log-probabilities (mean reduction, zero_infinity)."""
    if targets.numel() and (int(targets.max()) >= log_probs.shape[-1] or int(targets.min()) < 0):
        raise ValueError(
            f"targets must hold symbols in [0, {log_probs.shape[-1] - 1}), got values in "
            f"[{int(targets.min())}, {int(targets.max())}]"
        )
    if bool((target_lengths < 1).any()):
        raise ValueError("target_lengths must be >= 1 (an empty transcript has no CTC loss)")
    return F.ctc_loss(
        log_probs.transpose(0, 1),
        targets.to(log_probs.device),
        input_lengths.to(log_probs.device),
        target_lengths.to(log_probs.device),
        blank=blank,
        zero_infinity=True,
    )


def ctc_greedy_decode(log_probs: Tensor, lengths: Tensor, blank: int) -> list[list[int]]:
    """Best-path decoding: argmax per frame, merge repeats, drop blanks; `log_probs` (B, T, C), `lengths` (B,)."""
    check_logits("log_probs", log_probs, ndim=3)
    check_tensor("lengths", lengths, floating=False, shape=(log_probs.shape[0],))
    if lengths.numel() and (int(lengths.min()) < 0 or int(lengths.max()) > log_probs.shape[1]):
        raise ValueError(
            f"lengths must lie in [0, {log_probs.shape[1]}] (the frames of log_probs), got values in "
            f"[{int(lengths.min())}, {int(lengths.max())}]"
        )
    best = log_probs.argmax(-1).cpu()
    out = []
    for b in range(best.shape[0]):
        seq = best[b, : int(lengths[b])].tolist()
        out.append([s for i, s in enumerate(seq) if s != blank and (i == 0 or s != seq[i - 1])])
    return out


def edit_distance(ref: Sequence[int], hyp: Sequence[int]) -> int:
    """Levenshtein distance (substitutions, insertions, deletions all cost 1)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]


def phone_error_rate(refs: Sequence[Sequence[int]], hyps: Sequence[Sequence[int]]) -> float:
    """Corpus PER: total edit distance / total reference length (jiwer's WER over phone tokens)."""
    if len(refs) != len(hyps):
        raise ValueError(f"refs and hyps must have the same length, got {len(refs)} and {len(hyps)}")
    total = sum(len(r) for r in refs)
    if total == 0:
        raise ValueError("refs must hold at least one symbol")
    return sum(edit_distance(r, h) for r, h in zip(refs, hyps)) / total
