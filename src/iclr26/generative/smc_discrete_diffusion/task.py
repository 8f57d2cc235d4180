"""The synthetic task: a random second-order Markov chain, a motif-count reward, the exact tilted target.

Strings of length L over V tokens come from ``p(x_1) p(x_2 | x_1) prod_i p(x_i | x_{i-2}, x_{i-1})`` with
Dirichlet-drawn tables, so ``p_data`` is enumerable for every one of the ``V^L`` strings. The reward counts the
occurrences of a fixed 3-mer; on one-hot inputs it is the multilinear polynomial
``sum_i onehot[i, a] onehot[i + 1, b] onehot[i + 2, c]``, hence differentiable. The tilted target
``pi*(x) ∝ p_data(x) exp(r(x) / alpha)`` is known exactly. A tiny MDLM is trained on samples and cached on disk
per config hash.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.cache import cached_torch
from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer, train_mdlm

from .exact import all_sequences

__all__ = [
    "MarkovChain",
    "MotifReward",
    "TaskConfig",
    "make_chain",
    "reward_histogram",
    "tilted_histogram",
    "trained_denoiser",
]


@dataclass(frozen=True)
class TaskConfig:
    """The data and the base model (everything the cached model depends on)."""

    n_tokens: int = 4
    seq_len: int = 8
    concentration: float = 0.5
    data_seed: int = 0
    n_train: int = 200_000
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    train_steps: int = 3000
    batch: int = 256
    lr: float = 3e-3

    def __post_init__(self) -> None:
        for name in (
            "n_tokens",
            "seq_len",
            "n_train",
            "d_model",
            "n_layers",
            "n_heads",
            "train_steps",
            "batch",
        ):
            check_int(name, getattr(self, name), low=1)
        check_int("data_seed", self.data_seed, low=0)
        check_float("concentration", self.concentration, low=0.0, low_open=True)
        check_float("lr", self.lr, low=0.0, low_open=True)


@dataclass
class MarkovChain:
    """Initial, first- and second-order transition tables (float64 probabilities)."""

    p1: Tensor  # (V,)
    p2: Tensor  # (V, V)
    p3: Tensor  # (V, V, V)

    def __post_init__(self) -> None:
        check_tensor("p1", self.p1, ndim=1, floating=True)
        v = self.p1.shape[0]
        check_tensor("p2", self.p2, floating=True, shape=(v, v))
        check_tensor("p3", self.p3, floating=True, shape=(v, v, v))

    @property
    def n_tokens(self) -> int:
        return int(self.p1.shape[0])

    def log_prob(self, x: Tensor) -> Tensor:
        """log p(x) of token strings (B, L)."""
        lp = self.p1.log()[x[:, 0]]
        if x.shape[1] > 1:
            lp = lp + self.p2.log()[x[:, 0], x[:, 1]]
        for i in range(2, x.shape[1]):
            lp = lp + self.p3.log()[x[:, i - 2], x[:, i - 1], x[:, i]]
        return lp

    def sample(self, n: int, length: int, generator: torch.Generator | None = None) -> Tensor:
        """``n`` strings of ``length`` (n, L)."""
        x = torch.empty(n, length, dtype=torch.long)
        x[:, 0] = torch.multinomial(self.p1.expand(n, -1), 1, generator=generator)[:, 0]
        if length > 1:
            x[:, 1] = torch.multinomial(self.p2[x[:, 0]], 1, generator=generator)[:, 0]
        for i in range(2, length):
            x[:, i] = torch.multinomial(self.p3[x[:, i - 2], x[:, i - 1]], 1, generator=generator)[:, 0]
        return x


def make_chain(n_tokens: int, concentration: float, seed: int) -> MarkovChain:
    """A random second-order chain with Dirichlet(``concentration``) rows."""
    rng = np.random.default_rng(int(seed))

    def rows(*shape: int) -> Tensor:
        g = torch.from_numpy(rng.dirichlet(np.full(n_tokens, float(concentration)), size=shape)).clamp_min(
            1e-6
        )
        return g / g.sum(-1, keepdim=True)

    return MarkovChain(rows(), rows(n_tokens), rows(n_tokens, n_tokens))


class MotifReward:
    """Number of occurrences of ``motif`` (a tuple of token ids) on one-hot inputs (B, L, V) -> (B,)."""

    def __init__(self, motif: tuple[int, ...]) -> None:
        if len(motif) < 1:
            raise ValueError("motif must hold at least one token")
        self.motif = tuple(int(m) for m in motif)

    def __call__(self, onehot: Tensor) -> Tensor:
        check_tensor("onehot", onehot, floating=True)
        if onehot.ndim != 3:
            raise ValueError(f"onehot must have shape (batch, length, vocab), got {tuple(onehot.shape)}")
        k, length = len(self.motif), onehot.shape[1]
        if length < k:
            return onehot.sum((1, 2)) * 0.0
        term = onehot[:, : length - k + 1, self.motif[0]]
        for j in range(1, k):
            term = term * onehot[:, j : length - k + 1 + j, self.motif[j]]
        return term.sum(-1)

    def on_ids(self, x: Tensor) -> Tensor:
        """The count on token ids (B, L)."""
        k = len(self.motif)
        hit = torch.ones(x.shape[0], x.shape[1] - k + 1, dtype=torch.bool, device=x.device)
        for j, m in enumerate(self.motif):
            hit &= x[:, j : x.shape[1] - k + 1 + j] == m
        return hit.sum(-1)


def choose_motif(chain: MarkovChain, length: int, target: float = 0.5) -> tuple[int, int, int]:
    """The 3-mer whose expected count under ``p_data`` is closest to ``target`` (a moderately rare motif)."""
    seqs = all_sequences(chain.n_tokens, length)
    p = chain.log_prob(seqs).exp()
    best, best_gap = (0, 1, 2), float("inf")
    for motif in all_sequences(chain.n_tokens, 3).tolist():
        mean = float((p * MotifReward(tuple(motif)).on_ids(seqs).double()).sum())
        if abs(mean - target) < best_gap:
            best, best_gap = tuple(motif), abs(mean - target)
    return best  # type: ignore[return-value]


def reward_histogram(counts: Tensor, n_bins: int, weights: Tensor | None = None) -> Tensor:
    """Histogram (probabilities) of integer rewards over ``0..n_bins-1`` (optionally weighted)."""
    w = torch.ones(counts.shape[0], dtype=torch.float64) if weights is None else weights.double()
    hist = torch.zeros(n_bins, dtype=torch.float64).index_add_(0, counts.long().clamp(0, n_bins - 1), w)
    return hist / hist.sum()


def tilted_histogram(log_p: Tensor, counts: Tensor, alpha: float, n_bins: int) -> tuple[Tensor, float]:
    """Reward histogram and mean of ``pi* ∝ p exp(r / alpha)`` over enumerated strings."""
    log_pi = log_p + counts.double() / alpha
    w = torch.softmax(log_pi, 0)
    return reward_histogram(counts, n_bins, w), float((w * counts.double()).sum())


def trained_denoiser(cfg: TaskConfig, use_cache: bool = True) -> MaskedDiffusionTransformer:
    """The MDLM denoiser for ``cfg``: loaded from the cache, or trained with the lab's NELBO trainer and cached."""
    model = MaskedDiffusionTransformer(
        cfg.n_tokens, cfg.seq_len, cfg.d_model, cfg.n_layers, cfg.n_heads, init_seed=cfg.data_seed
    )

    def train() -> dict[str, Tensor]:
        chain = make_chain(cfg.n_tokens, cfg.concentration, cfg.data_seed)
        data = chain.sample(cfg.n_train, cfg.seq_len, torch.Generator().manual_seed(cfg.data_seed + 1))

        def batch_fn(gen: torch.Generator) -> tuple[Tensor, None]:
            idx = torch.randint(0, data.shape[0], (cfg.batch,), generator=gen)
            return data[idx], None

        train_mdlm(
            model,
            batch_fn,
            steps=cfg.train_steps,
            lr=cfg.lr,
            seed=cfg.data_seed,
            description="train MDLM (L=8)",
        )
        return model.state_dict()

    model.load_state_dict(cached_torch("smc_discrete_diffusion", cfg, train, cache=use_cache))
    return model.eval()
