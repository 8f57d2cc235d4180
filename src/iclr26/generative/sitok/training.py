"""Training loop of the SiTok tokenizer variants (arXiv 2602.06602): Adam, warm-up + cosine, clipped gradients.

Batches are random utterances of the corpus (drawn from a generator seeded by ``seed``, so every variant of one
seed sees the same batches), padded to the longest one with the normalisation mean (masked out of every loss;
the encoder is causal, so padding after an utterance never reaches its codes).
"""

from __future__ import annotations

import torch
from torch import nn

from iclr26.checks import check_float, check_int
from iclr26.generative.sitok.tokenizer import SiTokenizer
from iclr26.lab.tinygpt import cosine_warmup

__all__ = ["pad_mels", "train_tokenizer"]


def pad_mels(mels: list[torch.Tensor], fill: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(n_mels, F_i) log-mels -> (B, n_mels, F_max) padded with the per-bin `fill`, and lengths (B,)."""
    lengths = torch.tensor([m.shape[1] for m in mels], dtype=torch.long)
    out = fill[None, :, None].repeat(len(mels), 1, int(lengths.max())).clone()
    for i, m in enumerate(mels):
        out[i, :, : m.shape[1]] = m
    return out, lengths


def train_tokenizer(
    tok: SiTokenizer,
    corpus: dict,
    steps: int,
    batch: int = 16,
    lr: float = 2e-3,
    seed: int = 0,
    frozen_codes: bool = False,
    log_points: int = 20,
) -> dict[str, list[float]]:
    """Train `tok` on ``corpus["mel"]`` / ``corpus["phones"]`` for `steps` steps; returns logged losses.

    ``frozen_codes=True`` trains only the decoder (encoder, projections and codebook fixed: the two-stage
    baseline's second stage).
    """
    steps = check_int("steps", steps, low=1)
    batch = check_int("batch", batch, low=1)
    lr = check_float("lr", lr, low=0.0, low_open=True)
    params = list(tok.decoder.parameters()) if frozen_codes else list(tok.parameters())
    if frozen_codes:
        for p in tok.parameters():
            p.requires_grad_(False)
        for p in params:
            p.requires_grad_(True)
    opt = torch.optim.Adam(params, lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_warmup(s, steps, 0.05, 0.1))
    gen = torch.Generator().manual_seed(seed)
    noise_gen = torch.Generator().manual_seed(seed + 1)
    every = max(1, steps // log_points)
    hist: dict[str, list[float]] = {"step": [], "loss_diff": [], "loss_ctc": [], "perplexity": []}
    acc = {k: 0.0 for k in ("loss_diff", "loss_ctc", "perplexity")}
    n_acc = 0
    n = len(corpus["mel"])
    for step in range(1, steps + 1):
        tok.train()
        if frozen_codes:
            tok.vq.eval()
        idx = torch.randint(0, n, (batch,), generator=gen).tolist()
        mel, lengths = pad_mels([corpus["mel"][i] for i in idx], tok.mel_mean)
        out = tok(mel, [corpus["phones"][i] for i in idx], lengths, generator=noise_gen)
        opt.zero_grad(set_to_none=True)
        out["loss"].backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        for k in acc:
            acc[k] += float(out[k].detach())
        n_acc += 1
        if step % every == 0 or step == steps:
            hist["step"].append(step)
            for k in acc:
                hist[k].append(acc[k] / n_acc)
                acc[k] = 0.0
            n_acc = 0
    tok.eval()
    return hist
