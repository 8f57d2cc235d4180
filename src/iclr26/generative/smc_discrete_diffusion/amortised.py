"""Amortised proposal: a small trainable head on the frozen denoiser, fitted by the log-variance loss.

``q_psi`` adds ``delta_psi(x_t, t, log p_theta(. | x_t))`` to the denoiser's logits and keeps the base reverse
kernel's unmasking probability per position, so only which token a position becomes is learned. The last layer
starts at ``init_scale`` times a random matrix (0 gives ``q_psi = p_theta`` exactly). Training minimises

    L(psi, b) = E_tau [(log w(tau) - b)^2],   log w(tau) = r(x_0) / alpha + sum_k [log p_theta - log q_psi](step k),

over trajectories drawn from ``q_psi`` with the sampling path detached, ``b`` a learned scalar. At the optimum
``log w`` is constant, i.e. ``q_psi`` is the tilted path measure.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.harness.progress import track
from iclr26.lab.masked_diffusion import reverse_transition

from .smc import call_reward, model_device, sample_categorical

__all__ = ["AmortisedProposal", "train_log_variance"]


class AmortisedProposal(nn.Module):
    """``q_psi(x_s | x_t)``: base logits plus an MLP correction of the token distribution at masked positions.

    Parameters
    ----------
    vocab_size : V of the denoiser (clean tokens + mask).
    seq_len : L.
    hidden : MLP width.
    init_scale : scale of the last layer's initial weights (0: ``q_psi == p_theta``).
    init_seed : seed of the initial weights.
    """

    def __init__(
        self, vocab_size: int, seq_len: int, hidden: int = 128, init_scale: float = 0.0, init_seed: int = 0
    ) -> None:
        super().__init__()
        check_int("vocab_size", vocab_size, low=2)
        check_int("seq_len", seq_len, low=1)
        check_int("hidden", hidden, low=1)
        init_scale = check_float("init_scale", init_scale, low=0.0)
        init_seed = check_int("init_seed", init_seed, low=0)
        self.vocab_size, self.seq_len = vocab_size, seq_len
        d_in = 2 * seq_len * vocab_size + 1
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden),
            nn.GELU(),
            nn.Linear(hidden, hidden),
            nn.GELU(),
            nn.Linear(hidden, seq_len * vocab_size),
        )
        gen = torch.Generator().manual_seed(init_seed)
        with torch.no_grad():
            for layer in self.net:
                if isinstance(layer, nn.Linear):
                    layer.weight.normal_(0.0, layer.in_features**-0.5, generator=gen)
                    layer.bias.zero_()
            self.net[-1].weight.mul_(init_scale)

    def forward(self, logits: Tensor, x_t: Tensor, t: float) -> Tensor:
        """Corrected logits (B, L, V) from the base logits, the state and the time."""
        check_tensor("logits", logits, floating=True)
        check_token_ids("x_t", check_tensor("x_t", x_t), self.vocab_size)
        if logits.shape[1:] != (self.seq_len, self.vocab_size) or x_t.shape != logits.shape[:2]:
            raise ValueError(
                f"logits must have shape (batch, {self.seq_len}, {self.vocab_size}) and x_t (batch, "
                f"{self.seq_len}), got {tuple(logits.shape)} and {tuple(x_t.shape)}"
            )
        logp = F.log_softmax(logits.float(), -1).clamp(min=-30.0)
        onehot = F.one_hot(x_t, self.vocab_size).float()
        time = torch.full((x_t.shape[0], 1), float(t), device=x_t.device)
        delta = self.net(torch.cat([onehot.flatten(1), logp.flatten(1), time], -1))
        return logits.float() + delta.view(-1, self.seq_len, self.vocab_size)

    def transition(
        self, logits: Tensor, x_t: Tensor, t: float, s: float, mask_id: int, schedule: str = "linear"
    ) -> Tensor:
        """log q_psi(x_s | x_t) per position (B, L, V) (base unmasking probability, corrected tokens)."""
        return reverse_transition(self(logits, x_t, t).double(), x_t, t, s, mask_id, schedule)


def train_log_variance(
    proposal: AmortisedProposal,
    model: Callable[[Tensor], Tensor],
    reward_fn: Callable[[Tensor], Tensor],
    *,
    alpha: float,
    steps: int,
    iters: int = 500,
    batch: int = 64,
    lr: float = 1e-3,
    seed: int = 0,
    schedule: str = "linear",
    description: str = "amortised proposal",
) -> dict[str, list[float] | float]:
    """Fit ``proposal`` (in place) by the log-variance loss on its own detached trajectories.

    Returns ``{"loss": per-iteration losses, "log_w_var": per-iteration Var(log w), "b": final baseline}``.
    """
    check_float("alpha", alpha, low=0.0, low_open=True, finite=False)
    check_int("steps", steps, low=1)
    check_int("iters", iters, low=1)
    check_int("batch", batch, low=2)
    mask_id, length = int(model.mask_id), proposal.seq_len
    dev = model_device(
        proposal
    )  # the proposal and the denoiser share a device; draws come from a CPU generator
    gen = torch.Generator().manual_seed(int(seed))
    b = nn.Parameter(torch.zeros((), dtype=torch.float64, device=dev))
    opt = torch.optim.Adam([*proposal.parameters(), b], lr=lr)
    losses, variances = [], []
    grid = [(1.0 - k / steps, max(1.0 - (k + 1) / steps, 0.0)) for k in range(steps)]
    for _ in track(range(iters), description=description):
        xs, logits_all = [], []
        x = torch.full((batch, length), mask_id, dtype=torch.long, device=dev)
        with torch.no_grad():
            for t, s in grid:
                logits = model(x)
                logq = proposal.transition(logits, x, t, s, mask_id, schedule)
                xs.append(x)
                logits_all.append(logits)
                x = sample_categorical(logq, gen)
            reward = call_reward(reward_fn, F.one_hot(x, proposal.vocab_size).float()).double()
        nxt = xs[1:] + [x]
        log_ratio = torch.zeros(batch, dtype=torch.float64, device=dev)
        for (t, s), x_t, x_s, logits in zip(grid, xs, nxt, logits_all):
            logq = proposal.transition(logits, x_t, t, s, mask_id, schedule)
            logp = reverse_transition(logits.double(), x_t, t, s, mask_id, schedule)
            idx = x_s[..., None]
            log_ratio = log_ratio + (logp.gather(-1, idx) - logq.gather(-1, idx)).squeeze(-1).sum(-1)
        log_w = reward / alpha + log_ratio
        loss = ((log_w - b) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(proposal.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
        variances.append(float(log_w.detach().var()))
        if not math.isfinite(losses[-1]):
            break
    return {"loss": losses, "log_w_var": variances, "b": float(b.detach())}
