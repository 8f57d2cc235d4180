"""The tiny MoE language model of the reproduction: the shared hookable transformer with a top-k MoE FFN.

Every block is pre-LN: ``h_mid = h + attn(LN_1(h))``, ``h_out = h_mid + MoE(LN_2(h_mid))``, where the MoE is
:class:`iclr26.lab.moe.MoEFFN` with a :class:`~iclr26.lab.moe.TopKSoftmaxRouter` (top-k softmax,
Switch load-balancing loss). It is trained on an offline text corpus (the standard library's docstrings, with a
byte-level BPE tokenizer) with :func:`iclr26.lab.training.train_loop` and cached with
:func:`iclr26.lab.cache.cached_torch`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from iclr26.checks import check_float, check_int
from iclr26.lab.cache import cached_torch
from iclr26.lab.moe import TopKSoftmaxRouter, moe_aux_loss, moe_ffn
from iclr26.lab.training import sequence_loss, train_loop
from iclr26.lab.transformer import Transformer

__all__ = ["TinyMoEConfig", "bigram_loss", "corpus_tokens", "tiny_moe_lm", "train_tiny_moe", "unigram_loss"]


@dataclass(frozen=True)
class TinyMoEConfig:
    """Size and training budget of the tiny MoE LM (the brief: 6 layers, d = 96, 8 experts, top-2)."""

    n_layers: int = 6
    d_model: int = 96
    n_heads: int = 4
    n_experts: int = 8
    k: int = 2
    d_hidden: int = 96
    balance_coef: float = 0.01
    seq_len: int = 64
    vocab_size: int = 512
    corpus_chars: int = 400_000
    steps: int = 300
    batch: int = 32
    lr: float = 3e-3

    def __post_init__(self) -> None:
        for name in (
            "n_layers",
            "d_model",
            "n_heads",
            "k",
            "d_hidden",
            "seq_len",
            "corpus_chars",
            "steps",
            "batch",
        ):
            check_int(name, getattr(self, name), low=1)
        check_int("n_experts", self.n_experts, low=2)
        check_int("vocab_size", self.vocab_size, low=2)
        check_float("balance_coef", self.balance_coef, low=0.0)
        check_float("lr", self.lr, low=0.0, low_open=True)


#: Held-out windows of ``seq_len`` tokens on which the LM and the unigram / bigram floors are scored.
TEST_WINDOWS = 64


def _check_cfg(cfg: object) -> None:
    if not isinstance(cfg, TinyMoEConfig):
        raise TypeError(f"cfg must be a TinyMoEConfig, got {type(cfg).__name__}")


def tiny_moe_lm(cfg: TinyMoEConfig, init_seed: int = 0) -> Transformer:
    """A :class:`Transformer` whose every FFN is a top-k MoE (no biases, learned positions, tied unembedding)."""
    _check_cfg(cfg)
    check_int("init_seed", init_seed, low=0)
    if cfg.k > cfg.n_experts:
        raise ValueError(f"k={cfg.k} must be <= n_experts={cfg.n_experts}")
    ffn = moe_ffn(
        lambda d, e: TopKSoftmaxRouter(d, e, k=cfg.k, balance_coef=cfg.balance_coef),
        n_experts=cfg.n_experts,
        d_hidden=cfg.d_hidden,
    )
    return Transformer(
        vocab_size=cfg.vocab_size,
        seq_len=cfg.seq_len,
        d_model=cfg.d_model,
        n_layers=cfg.n_layers,
        n_heads=cfg.n_heads,
        ffn=ffn,
        bias=False,
        init_seed=init_seed,
    )


def corpus_tokens(cfg: TinyMoEConfig) -> dict[str, torch.Tensor]:
    """Train/test token streams of the stdlib-docstring corpus under a byte-level BPE of ``cfg.vocab_size``."""
    from iclr26.lab.corpora import get_corpus, split_text, train_tokenizer

    def build() -> dict[str, torch.Tensor]:
        parts = split_text(get_corpus("stdlib-docstrings", max_chars=cfg.corpus_chars))
        tok = train_tokenizer(parts["train"], vocab_size=cfg.vocab_size)
        return {name: torch.tensor(tok.encode(parts[name]), dtype=torch.long) for name in ("train", "test")}

    key = {"corpus_chars": cfg.corpus_chars, "vocab_size": cfg.vocab_size}
    return cached_torch("moe_routing_attribution_corpus", key, build)


def _batch(stream: torch.Tensor, n: int, seq_len: int, gen: torch.Generator) -> torch.Tensor:
    starts = torch.randint(0, stream.numel() - seq_len - 1, (n,), generator=gen)
    return torch.stack([stream[s : s + seq_len + 1] for s in starts.tolist()])


def unigram_loss(train: torch.Tensor, targets: torch.Tensor, vocab_size: int) -> float:
    """Cross-entropy (nats) of `targets` under the add-one-smoothed token frequencies of `train`: the loss of
    the best predictor that ignores the context, the floor a trained LM must beat."""
    counts = torch.bincount(train.flatten().cpu(), minlength=vocab_size).double() + 1.0
    logp = counts.log() - counts.sum().log()
    return float(-logp[targets.flatten().cpu()].mean())


def bigram_loss(train: torch.Tensor, inputs: torch.Tensor, targets: torch.Tensor, vocab_size: int) -> float:
    """Cross-entropy (nats) of `targets` given the previous tokens `inputs` under the Witten-Bell interpolated
    bigram of `train` (backing off to the add-one unigram): the loss of the best-known predictor that looks only
    one token back and has no free parameter, the floor an LM that uses its context must beat.

    ``p(y | x) = lam_x c(x, y) / c(x) + (1 - lam_x) p_uni(y)`` with ``lam_x = c(x) / (c(x) + T(x))``, ``T(x)``
    the number of distinct followers of ``x`` (``lam_x = 0`` for an unseen ``x``)."""
    train = train.flatten().cpu()
    x, y = inputs.flatten().cpu(), targets.flatten().cpu()
    if x.shape != y.shape:
        raise ValueError(
            f"inputs and targets must have the same shape, got {tuple(inputs.shape)}, {tuple(targets.shape)}"
        )
    pair = torch.zeros(vocab_size * vocab_size, dtype=torch.float64)
    pair.index_add_(
        0, train[:-1] * vocab_size + train[1:], torch.ones(train.numel() - 1, dtype=torch.float64)
    )
    pair = pair.reshape(vocab_size, vocab_size)
    uni = torch.bincount(train, minlength=vocab_size).double() + 1.0
    uni = uni / uni.sum()
    count, types = pair.sum(1), (pair > 0).sum(1).double()
    lam = torch.where(count > 0, count / (count + types).clamp_min(1.0), torch.zeros_like(count))
    p = lam[x] * pair[x, y] / count[x].clamp_min(1.0) + (1.0 - lam[x]) * uni[y]
    return float(-p.log().mean())


def train_tiny_moe(
    cfg: TinyMoEConfig, seed: int, cache: bool = True, device: str = "cpu"
) -> tuple[Transformer, dict[str, float]]:
    """Train (or load from the cache) the tiny MoE LM for `seed` on `device`; returns the model in eval mode (on
    `device`) and its held-out loss next to the unigram and bigram floors. Weights are initialised and batches drawn on the
    CPU, then moved, so the CPU run does not depend on the device code path."""
    _check_cfg(cfg)
    check_int("seed", seed, low=0)
    data = corpus_tokens(cfg)
    train, test = data["train"], data["test"]

    def build() -> dict:
        model = tiny_moe_lm(cfg, init_seed=seed).to(device)
        model.train()

        def loss_fn(m: Transformer, gen: torch.Generator) -> torch.Tensor:
            chunk = _batch(train, cfg.batch, cfg.seq_len, gen).to(device)
            logits = m(chunk[:, :-1])
            return sequence_loss(logits, chunk[:, 1:]) + moe_aux_loss(m)

        train_loop(model, loss_fn, steps=cfg.steps, lr=cfg.lr, seed=seed, description="train tiny MoE")
        return {"state": {k: v.detach().cpu() for k, v in model.state_dict().items()}}

    key = {**asdict(cfg), "seed": seed}
    if device != "cpu":  # a model trained on another device is a different model; CPU keys are unchanged
        key["device"] = str(device)
    entry = cached_torch("moe_routing_attribution_model", key, build, cache=cache)
    model = tiny_moe_lm(cfg, init_seed=seed)
    model.load_state_dict(entry["state"])
    model.to(device).eval()
    with torch.no_grad():
        chunk = _batch(test, TEST_WINDOWS, cfg.seq_len, torch.Generator().manual_seed(seed + 7))
        test_loss = float(sequence_loss(model(chunk[:, :-1].to(device)), chunk[:, 1:].to(device)))
    return model, {
        "test_loss": test_loss,
        "unigram_loss": unigram_loss(train, chunk[:, 1:], cfg.vocab_size),
        "bigram_loss": bigram_loss(train, chunk[:, :-1], chunk[:, 1:], cfg.vocab_size),
    }
