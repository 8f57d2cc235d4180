"""Group Pruning Policy Optimization (GPPO): a PPO-clipped categorical policy over the group's start layer.

A policy ``pi = softmax(w)`` over candidate starts ``s`` (``w = 0`` at first). For each batch a start is
sampled, its candidate ELM (own adaptor, own copy of layer ``s``) is scored with reward
``R = -CE`` (``G`` iterations) and then trained one step on the LM + distillation loss. Every
``update_freq`` samples the policy takes ``update_iters`` AdamW steps on
``-mean min(r A, clip(r, 1 - eps, 1 + eps) A)`` with ``r = pi(s) / pi_old(s)`` and group-normalised
advantages ``A = (R - mean R) / (std R + 1e-8)``, then clears its buffer. The answer is ``argmax_s w``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn
from transformers import PreTrainedModel

from iclr26.checks import check_float, check_int
from iclr26.inference.equilibrium_lm.fixed_point import check_model_ids, decoder_layers, make_elm
from iclr26.inference.equilibrium_lm.training import ELMTrainer

__all__ = ["GPPOPolicy", "GPPOSearch"]


class GPPOPolicy(nn.Module):
    """The categorical start-layer policy and its PPO-clipped, group-normalised update.

    Parameters
    ----------
    n_arms : int
        Number of candidate starts.
    update_freq, update_iters : int
        Samples per update ``M`` (official 10) and gradient steps per update ``K`` (official 2).
    clip_eps : float
        PPO clipping (official script 0.5).
    lr : float
        AdamW learning rate of the logits (official 2e-4).
    seed : int
        Seed of the sampling.

    Example
    -------
    >>> policy = GPPOPolicy(3, update_freq=4, lr=0.1)
    >>> for _ in range(40):
    ...     arm, logp = policy.sample()
    ...     _ = policy.record(arm, float(arm == 2), logp)
    >>> int(policy.probs().argmax())
    2
    """

    def __init__(
        self,
        n_arms: int,
        update_freq: int = 10,
        update_iters: int = 2,
        clip_eps: float = 0.5,
        lr: float = 2e-4,
        seed: int = 0,
    ) -> None:
        super().__init__()
        for name, value in (("n_arms", n_arms), ("update_freq", update_freq), ("update_iters", update_iters)):
            check_int(name, value, low=1)
        if update_freq < 2:
            raise ValueError(
                f"update_freq must be >= 2 (advantages are normalised within a group), got {update_freq}"
            )
        check_float("clip_eps", clip_eps, 0.0, 1.0, low_open=True, high_open=True)
        check_float("lr", lr, low=0.0, low_open=True)
        check_int("seed", seed, low=0)
        self.logits = nn.Parameter(torch.zeros(n_arms, dtype=torch.float64))
        self.update_freq, self.update_iters, self.clip_eps = update_freq, update_iters, float(clip_eps)
        self.optimizer = torch.optim.AdamW([self.logits], lr=lr, weight_decay=0.0)
        self.generator = torch.Generator().manual_seed(seed)
        self.buffer: list[tuple[int, float, float]] = []
        self.history: list[list[float]] = []

    def probs(self) -> torch.Tensor:
        """Current ``softmax(w)`` (detached)."""
        return torch.softmax(self.logits.detach(), dim=0)

    def sample(self) -> tuple[int, float]:
        """Draw an arm; return it with ``log pi_old(arm)``."""
        p = self.probs()
        arm = int(torch.multinomial(p, 1, generator=self.generator))
        return arm, float(torch.log(p[arm]))

    def record(self, arm: int, reward: float, logp_old: float) -> bool:
        """Store ``(arm, reward, log pi_old)``; run the update when the buffer is full. True if it updated."""
        check_int("arm", arm, 0, self.logits.shape[0] - 1)
        check_float("reward", reward)
        check_float("logp_old", logp_old, high=0.0)
        self.buffer.append((int(arm), float(reward), float(logp_old)))
        if len(self.buffer) < self.update_freq:
            return False
        self.update()
        return True

    def update(self) -> None:
        """``update_iters`` PPO-clipped steps on the buffer, then clear it."""
        arms = torch.tensor([b[0] for b in self.buffer])
        rewards = torch.tensor([b[1] for b in self.buffer], dtype=torch.float64)
        logp_old = torch.tensor([b[2] for b in self.buffer], dtype=torch.float64)
        adv = (rewards - rewards.mean()) / (rewards.std(unbiased=False) + 1e-8)
        for _ in range(self.update_iters):
            ratio = torch.exp(torch.log_softmax(self.logits, dim=0)[arms] - logp_old)
            clipped = torch.clamp(ratio, 1 - self.clip_eps, 1 + self.clip_eps)
            loss = -torch.minimum(ratio * adv, clipped * adv).mean()
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
        self.buffer.clear()
        self.history.append(self.probs().tolist())


class GPPOSearch:
    """Search the start layer of the fixed-point group with GPPO.

    Parameters
    ----------
    model : PreTrainedModel
        The dense (task-tuned) model.
    group_len : int
        ``G``.
    candidates : sequence of int or None
        Candidate starts (default: all ``0..L-G``).
    adaptor_only : bool
        Candidates train only their adaptor (LoRA-free), else adaptor + their copy of layer ``s``.
    module_lr : float
        Learning rate of the candidates' modules.
    **policy_kwargs
        Passed to :class:`GPPOPolicy` (``update_freq``, ``update_iters``, ``clip_eps``, ``lr``, ``seed``).
    """

    def __init__(
        self,
        model: PreTrainedModel,
        group_len: int,
        candidates: Sequence[int] | None = None,
        *,
        adaptor_only: bool = False,
        module_lr: float = 2e-4,
        **policy_kwargs: object,
    ) -> None:
        parent, attr = decoder_layers(model)
        n_layers = len(getattr(parent, attr))
        check_int("group_len", group_len, low=2)
        check_float("module_lr", module_lr, low=0.0, low_open=True)
        if candidates is not None:
            for i, c in enumerate(candidates):
                check_int(f"candidates[{i}]", c, 0, n_layers - group_len)
        starts = list(range(n_layers - group_len + 1)) if candidates is None else [int(c) for c in candidates]
        if not starts or len(set(starts)) != len(starts):
            raise ValueError(f"candidates must be distinct start layers, got {candidates!r}")
        self.model, self.group_len, self.candidates = model, group_len, starts
        self.elms = [make_elm(model, s, group_len, eps_exit=None, seed=i) for i, s in enumerate(starts)]
        self.adaptor_only, self.module_lr = adaptor_only, module_lr
        self.policy = GPPOPolicy(len(starts), **policy_kwargs)
        self.trainers: list[ELMTrainer] = []

    def run(
        self,
        ids: torch.Tensor,
        n_samples: int,
        batch_size: int,
        seq_len: int,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[torch.Tensor, int]:
        """Draw ``n_samples`` batches from the 1-D token stream ``ids``; return ``(probs, best start)``."""
        check_int("n_samples", n_samples, low=1)
        check_int("batch_size", batch_size, low=1)
        check_int("seq_len", seq_len, low=2)
        if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or len(ids) <= seq_len:
            raise ValueError(f"ids must be a 1-D token tensor longer than seq_len={seq_len}")
        check_model_ids(self.model, ids, "ids", ndim=1)
        self.trainers = [
            ELMTrainer(
                elm,
                self.model,
                steps=n_samples,
                lr=self.module_lr,
                adaptor_only=self.adaptor_only,
                lm_schedule="constant",
                seed=i,
            )
            for i, elm in enumerate(self.elms)
        ]
        offsets = torch.arange(seq_len)
        for i in range(n_samples):
            arm, logp = self.policy.sample()
            starts = torch.randint(
                0, len(ids) - seq_len + 1, (batch_size, 1), generator=self.policy.generator
            )
            batch = ids[starts + offsets].to(next(self.elms[arm].parameters()).device)
            with torch.no_grad():
                reward = -float(self.elms[arm](input_ids=batch, labels=batch, use_cache=False).loss)
            self.trainers[arm].step(batch)
            self.policy.record(arm, reward, logp)
            if progress is not None:
                progress(i + 1)
        for trainer in self.trainers:
            trainer.close()
        probs = self.policy.probs()
        return probs, self.candidates[int(torch.argmax(self.policy.logits.detach()))]
