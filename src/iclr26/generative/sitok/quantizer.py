"""Single-codebook EMA vector quantiser of SiTok (arXiv 2602.06602), plus the bitrate and codebook-usage helpers.

For latents z (..., dim) and codebook e (K, dim):

- assignment: k(z) = argmin_k ||z - e_k||^2, q = e_{k(z)};
- straight-through estimator: q_st = z + sg(q - z) (forward value q, gradient identity on z);
- commitment loss: beta * mean ||z - sg(q)||^2;
- EMA codebook update (training mode only), with n_k the number of vectors assigned to k and s_k their sum:
  N_k <- d N_k + (1 - d) n_k, S_k <- d S_k + (1 - d) s_k, optional Laplace smoothing
  N~_k = (N_k + eps) / (sum N + K eps) * sum N, and e_k <- S_k / N~_k for every code with N~_k > 0 (a code whose
  statistics are all zero is left as it is). N starts at 1 and S at e, so e_k is a running weighted mean of its
  vectors with the initial code as one prior vector.
- optional data initialisation (``data_init``, as vector-quantize-pytorch's k-means init in spirit): on the first
  training batch every code is set to a randomly chosen vector of that batch, so no code starts far from the data;
- optional dead-code restart (the brief's addition; the paper does not mention one): after the update, codes whose
  EMA count N_k is below ``threshold_ema_dead_code`` are replaced by random vectors of the current batch.

The interface follows vector-quantize-pytorch: ``forward(x) -> (quantized, indices, commit_loss)``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor, check_token_ids

__all__ = ["EMAVectorQuantizer", "bitrate_bps", "codebook_perplexity"]


def bitrate_bps(codebook_size: int, tokens_per_second: float, n_codebooks: int = 1) -> float:
    """Bits per second of `n_codebooks` codebooks of `codebook_size` entries at `tokens_per_second`:
    ``n_codebooks * log2(codebook_size) * tokens_per_second`` (SiTok: 65,536 at 12.5 Hz -> 200 bps)."""
    codebook_size = check_int("codebook_size", codebook_size, low=2)
    rate = check_float("tokens_per_second", tokens_per_second, low=0.0, low_open=True)
    n_codebooks = check_int("n_codebooks", n_codebooks, low=1)
    return n_codebooks * math.log2(codebook_size) * rate


def codebook_perplexity(indices: Tensor, codebook_size: int) -> float:
    """exp(entropy) of the empirical code distribution of `indices` (1 = one code used, K = uniform usage)."""
    check_token_ids("indices", indices, codebook_size)
    if indices.numel() == 0:
        raise ValueError("indices must hold at least one code, got an empty tensor")
    p = torch.bincount(indices.flatten(), minlength=codebook_size).double()
    p = p / p.sum()
    h = -(p[p > 0] * p[p > 0].log()).sum()
    return float(h.exp())


class EMAVectorQuantizer(nn.Module):
    """Vector quantiser with an EMA-updated codebook and a straight-through gradient.

    Parameters
    ----------
    codebook_size : K entries (SiTok: 65,536).
    dim : code dimension (SiTok: 32).
    decay : EMA decay d in [0, 1) (SiTok: ~0.99; 0 sets each used code to the mean of its vectors).
    commitment : beta of the commitment loss beta * ||z - sg(q)||^2.
    eps : Laplace smoothing of the EMA counts (0 switches it off).
    threshold_ema_dead_code : restart codes whose EMA count falls below this (0: no restarts).
    data_init : set the codebook to random vectors of the first training batch.

    Examples
    --------
    >>> vq = EMAVectorQuantizer(codebook_size=16, dim=4)
    >>> q, idx, loss = vq(torch.randn(2, 5, 4))
    >>> q.shape, idx.shape, loss.ndim
    (torch.Size([2, 5, 4]), torch.Size([2, 5]), 0)
    """

    def __init__(
        self,
        codebook_size: int,
        dim: int,
        decay: float = 0.99,
        commitment: float = 0.25,
        eps: float = 1e-5,
        threshold_ema_dead_code: float = 0.0,
        data_init: bool = False,
    ) -> None:
        super().__init__()
        self.codebook_size = check_int("codebook_size", codebook_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        self.decay = check_float("decay", decay, 0.0, 1.0, high_open=True)
        self.commitment = check_float("commitment", commitment, low=0.0)
        self.eps = check_float("eps", eps, low=0.0)
        self.threshold_ema_dead_code = check_float(
            "threshold_ema_dead_code", threshold_ema_dead_code, low=0.0
        )
        self.data_init = check_bool("data_init", data_init)
        embed = torch.randn(codebook_size, dim)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.ones(codebook_size))
        self.register_buffer("embed_avg", embed.clone())
        self.register_buffer("initted", torch.tensor(not data_init))

    @torch.no_grad()
    def init_from(self, x: Tensor) -> None:
        """Set every code to a random vector of `x` (n, dim) (with replacement when n < K)."""
        x = x.reshape(-1, self.dim).to(self.embed.dtype)
        pick = torch.randint(0, x.shape[0], (self.codebook_size,), device=x.device)
        self.embed.copy_(x[pick])
        self.embed_avg.copy_(x[pick])
        self.cluster_size.fill_(1.0)
        self.initted.fill_(True)

    def _check(self, x: Tensor) -> None:
        check_tensor("x", x, floating=True, finite=True)
        if x.ndim < 1 or x.shape[-1] != self.dim:
            raise ValueError(f"x must have last dimension dim={self.dim}, got shape {tuple(x.shape)}")

    def assign(self, x: Tensor) -> Tensor:
        """Nearest-code indices of `x` (..., dim) -> (...)."""
        self._check(x)
        flat = x.reshape(-1, self.dim)
        e = self.embed.to(flat.dtype)
        d = flat.pow(2).sum(-1, keepdim=True) - 2 * flat @ e.T + e.pow(2).sum(-1)[None]
        return d.argmin(-1).reshape(x.shape[:-1])

    def get_codes_from_indices(self, indices: Tensor) -> Tensor:
        """Code vectors of `indices` (...) -> (..., dim); indices outside [0, K) are an error."""
        check_token_ids("indices", indices, self.codebook_size)
        return self.embed[indices]

    @torch.no_grad()
    def ema_update(self, x: Tensor, indices: Tensor) -> None:
        """One EMA step of the codebook statistics from vectors `x` (n, dim) assigned to `indices` (n,)."""
        x = x.reshape(-1, self.dim).to(self.embed.dtype)
        indices = indices.reshape(-1)
        onehot = torch.zeros(x.shape[0], self.codebook_size, dtype=x.dtype, device=x.device)
        onehot.scatter_(1, indices[:, None], 1.0)
        d = self.decay
        self.cluster_size.mul_(d).add_(onehot.sum(0), alpha=1 - d)
        self.embed_avg.mul_(d).add_(onehot.T @ x, alpha=1 - d)
        size = self.cluster_size
        if self.eps > 0:
            total = size.sum()
            size = (size + self.eps) / (total + self.codebook_size * self.eps) * total
        used = size > 0
        self.embed[used] = self.embed_avg[used] / size[used, None]
        if self.threshold_ema_dead_code > 0:
            dead = self.cluster_size < self.threshold_ema_dead_code
            n_dead = int(dead.sum())
            if n_dead:
                pick = torch.randint(0, x.shape[0], (n_dead,), device=x.device)
                self.embed[dead] = x[pick]
                self.embed_avg[dead] = x[pick]
                self.cluster_size[dead] = 1.0

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Quantise `x` (..., dim): (straight-through quantised x, indices (...), commitment loss scalar).

        In training mode the codebook is updated by EMA from this batch (after the assignment)."""
        if self.training and x.numel() and not bool(self.initted):
            self.init_from(x.detach())
        indices = self.assign(x)
        q = self.embed[indices].to(x.dtype)
        commit = self.commitment * (x - q.detach()).pow(2).mean() if x.numel() else x.sum() * 0
        if self.training and x.numel():
            self.ema_update(x.detach(), indices)
        q_st = x + (q - x).detach()
        return q_st, indices, commit
