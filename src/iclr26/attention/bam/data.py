"""Passkey episodes in a Markov-chain filler, the synthetic data of the BAM reproduction.

The filler is a random order-1 Markov chain over ``n_filler`` tokens (rows of the transition matrix drawn from a
Dirichlet), so ordinary next-token loss is meaningful. A passkey episode plants ``[KEY] d1 d2 d3 d4 [/KEY]`` at a
chosen depth of the filler and ends with ``[ASK] d1 d2 d3 d4``; the model must copy the digits. Because every
answer digit is a next-token target, exact match of the argmax at the four answer positions (teacher forced)
equals exact match of greedy decoding.

Example
-------
>>> import torch
>>> data = PasskeyData(seed=0)
>>> batch = data.episodes(2, 32, torch.Generator().manual_seed(0), depths=torch.tensor([0.0, 0.9]))
>>> batch.inputs.shape, batch.answer_pos.shape
(torch.Size([2, 32]), torch.Size([2, 4]))
>>> bool((batch.targets.gather(1, batch.answer_pos) == batch.digits).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_probability

__all__ = ["PasskeyBatch", "PasskeyData"]


@dataclass(frozen=True)
class PasskeyBatch:
    """Inputs and next-token targets (n, T); the answer positions (n, 4) and digits (n, 4); the depths (n,)."""

    inputs: Tensor
    targets: Tensor
    answer_pos: Tensor
    digits: Tensor
    depths: Tensor


class PasskeyData:
    """Generator of filler sequences and passkey episodes (token ids: filler, digits, [KEY], [/KEY], [ASK]).

    Parameters
    ----------
    n_filler : size of the filler alphabet (64).
    n_digits : passkey length (4).
    concentration : Dirichlet concentration of the transition rows (smaller: more predictable filler).
    seed : seed of the transition matrix.
    """

    def __init__(
        self, n_filler: int = 64, n_digits: int = 4, concentration: float = 0.2, seed: int = 0
    ) -> None:
        check_int("n_filler", n_filler, low=2)
        check_int("n_digits", n_digits, low=1)
        check_float("concentration", concentration, low=0.0, low_open=True)
        check_int("seed", seed, low=0)
        self.n_filler, self.n_digits = n_filler, n_digits
        self.digit0 = n_filler
        self.key, self.end_key, self.ask = n_filler + 10, n_filler + 11, n_filler + 12
        self.vocab_size = n_filler + 13
        rng = np.random.default_rng(seed)
        trans = rng.dirichlet(np.full(n_filler, concentration), size=n_filler)
        self.cdf = torch.tensor(np.cumsum(trans, axis=1), dtype=torch.float64)
        self.cdf[:, -1] = 1.0

    @property
    def overhead(self) -> int:
        """Non-filler tokens per episode: the key block and the question with its answer."""
        return 2 * self.n_digits + 3

    def filler(self, n: int, length: int, gen: torch.Generator) -> Tensor:
        """(n, length) Markov-chain samples starting from a uniform state."""
        check_int("n", n, low=0)
        check_int("length", length, low=1)
        out = torch.empty(n, length, dtype=torch.long)
        cur = torch.randint(0, self.n_filler, (n,), generator=gen)
        u = torch.rand(n, length, generator=gen, dtype=torch.float64)
        for t in range(length):
            out[:, t] = cur
            cur = (self.cdf[cur] < u[:, t : t + 1]).sum(-1).clamp_max(self.n_filler - 1)
        return out

    def episodes(
        self, n: int, length: int, gen: torch.Generator, depths: Tensor | None = None
    ) -> PasskeyBatch:
        """``n`` passkey episodes of ``length`` input tokens; key block at ``depths`` in [0, 1] (uniform if None)."""
        check_int("n", n, low=1)
        check_int("length", length)
        n_fill = length + 1 - self.overhead
        if n_fill < 1:
            raise ValueError(f"length must be >= {self.overhead} for a passkey episode, got {length}")
        if depths is None:
            depths = torch.rand(n, generator=gen, dtype=torch.float64)
        depths = torch.as_tensor(depths, dtype=torch.float64)
        if depths.shape != (n,) or not bool(((depths >= 0) & (depths <= 1)).all()):
            raise ValueError(f"depths must be n={n} values in [0, 1], got shape {tuple(depths.shape)}")
        fill = self.filler(n, n_fill, gen)
        digits = self.digit0 + torch.randint(0, 10, (n, self.n_digits), generator=gen)
        seqs = []
        cut = (depths * n_fill).floor().long().clamp(0, n_fill)
        for i in range(n):
            p = int(cut[i])
            key = torch.cat([torch.tensor([self.key]), digits[i], torch.tensor([self.end_key])])
            ask = torch.cat([torch.tensor([self.ask]), digits[i]])
            seqs.append(torch.cat([fill[i, :p], key, fill[i, p:], ask]))
        seq = torch.stack(seqs)
        answer_pos = torch.arange(length - self.n_digits, length).expand(n, -1).clone()
        return PasskeyBatch(seq[:, :-1], seq[:, 1:], answer_pos, digits, depths)

    def train_batch(
        self, batch: int, length: int, gen: torch.Generator, p_passkey: float = 0.5
    ) -> tuple[Tensor, Tensor]:
        """(inputs, targets) of ``batch`` rows, each a passkey episode with probability ``p_passkey``, else filler."""
        check_int("batch", batch, low=1)
        check_probability("p_passkey", p_passkey)
        has_key = torch.rand(batch, generator=gen) < p_passkey
        n_key = int(has_key.sum())
        plain = self.filler(batch - n_key, length + 1, gen)
        inputs = torch.empty(batch, length, dtype=torch.long)
        targets = torch.empty(batch, length, dtype=torch.long)
        inputs[~has_key], targets[~has_key] = plain[:, :-1], plain[:, 1:]
        if n_key:
            ep = self.episodes(n_key, length, gen)
            inputs[has_key], targets[has_key] = ep.inputs, ep.targets
        return inputs, targets
