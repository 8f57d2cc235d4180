"""Joint discrete (masked) + SE(3) (frame) diffusion for RNA sequence-structure co-design, and its RL fine-tuning.

Forward process at time t in [0, 1] (one t per example, shared by both modalities):

- sequence: absorbing-state diffusion, each token masked w.p. ``1 - alpha(t)`` (``iclr26.lab.masked_diffusion``);
- positions (in units of ``FrameSchedule.scale`` A, centred): ``p_t = (1 - t) p_0 + t eps``, eps ~ N(0, I);
- rotations: ``"geodesic"``: ``R_t = R_0 exp(t log(R_0^T R_1))`` with R_1 uniform (FrameFlow), or ``"igso3"``:
  ``R_t = R_0 E``, E ~ IGSO(3)(t * igso3_max).

Loss: MDLM's weighted masked cross-entropy plus ``frame_weight * (|p_hat - p_0|^2 + |log(R_0^T R_hat)|^2)``
plus ``distance_weight`` times the pairwise-distance loss over true distances below ``distance_cutoff`` A.
With ``align=True`` the frame targets are first superimposed (Kabsch, per example) on the prediction, so the
loss ignores the global pose, and the sampler superimposes each prediction on the current state before stepping.
In ``mode="fold"`` the sequence is never masked (the structure-prediction pretraining of the prior).

Sampling (``steps`` steps t_k = 1 - k / steps): a masked-diffusion reverse step with the denoiser's logits, and a
frame step ``p <- p + (t - s) / t (p_hat - p)``, ``R <- R exp((t - s) / t log(R^T R_hat))`` (the flow towards the
prediction); the last step lands on the prediction. Conditioning: fixed tokens / frames overwrite the state at
every step and are never noised.

:func:`rl_finetune`: DDPO-style REINFORCE on the unmasking choices of the sampling chain with a per-batch mean
baseline and a KL penalty to the frozen initial policy on the visited states; only the sequence head trains.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import Tensor

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor, check_token_ids
from iclr26.generative.rna_codesign.folding import MASK_ID
from iclr26.generative.rna_codesign.geometry import (
    check_frames,
    igso3_sample,
    kabsch_batch,
    random_rotations,
    so3_exp,
    so3_log,
)
from iclr26.lab.masked_diffusion import elbo_weight, mask_tokens, reverse_step, subs_log_probs

__all__ = [
    "CoDesignDiffusion",
    "CoDesignSample",
    "FrameSchedule",
    "SequenceSchedule",
    "frame_loss",
    "pair_distance_loss",
    "rl_finetune",
    "train_codesign",
]


@dataclass(frozen=True)
class SequenceSchedule:
    """Masking schedule ``alpha(t)`` ("linear" or "cosine") and the smallest training time."""

    kind: str = "linear"
    t_min: float = 1e-3

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, ("linear", "cosine"))
        check_float("t_min", self.t_min, 0.0, 1.0, high_open=True)


@dataclass(frozen=True)
class FrameSchedule:
    """Frame noise: position scale (A per model unit), rotation noise ("geodesic" or "igso3") and its maximum."""

    scale: float = 10.0
    rotation: str = "geodesic"
    igso3_max: float = 1.5

    def __post_init__(self) -> None:
        check_float("scale", self.scale, low=0.0, low_open=True)
        check_choice("rotation", self.rotation, ("geodesic", "igso3"))
        check_float("igso3_max", self.igso3_max, low=0.0, low_open=True)


@dataclass
class CoDesignSample:
    """Samples: tokens (n, L) in [0, 4), rotations (n, L, 3, 3), positions (n, L, 3) in A; the chain's states
    (``states``: per step ``(t, s, tokens_t, rots_t, trans_t, tokens_s)``) when asked."""

    tokens: Tensor
    rots: Tensor
    trans: Tensor
    states: list = field(default_factory=list)


def frame_loss(rots_hat: Tensor, trans_hat: Tensor, rots: Tensor, trans: Tensor) -> Tensor:
    """Per-example ``mean_i |p_hat_i - p_i|^2 + |log(R_i^T R_hat_i)|^2`` (B,): zero at the truth and invariant to a
    global rigid motion applied to prediction and target together."""
    check_tensor("rots_hat", rots_hat, ndim=4, floating=True, shape=(None, None, 3, 3))
    shape = tuple(rots_hat.shape[:2])
    check_tensor("trans_hat", trans_hat, floating=True, shape=(*shape, 3))
    check_tensor("rots", rots, floating=True, shape=(*shape, 3, 3))
    check_tensor("trans", trans, floating=True, shape=(*shape, 3))
    dp = ((trans_hat - trans) ** 2).sum(-1)
    dr = (so3_log(rots.transpose(-1, -2) @ rots_hat) ** 2).sum(-1)
    return (dp + dr).mean(-1)


def pair_distance_loss(trans_hat: Tensor, trans: Tensor, cutoff: float) -> Tensor:
    """Mean ``(|p_hat_i - p_hat_j| - |p_i - p_j|)^2`` over the pairs i != j whose true distance is below `cutoff`
    (the pairwise-distance auxiliary loss; invariant to rigid motions of either structure)."""
    check_tensor("trans_hat", trans_hat, ndim=3, floating=True, shape=(None, None, 3))
    check_tensor("trans", trans, floating=True, shape=tuple(trans_hat.shape))
    d_hat = torch.cdist(trans_hat, trans_hat)
    d = torch.cdist(trans, trans)
    eye = torch.eye(d.shape[-1], dtype=torch.bool, device=d.device)
    near = (d < cutoff) & ~eye
    return (((d_hat - d) ** 2) * near).sum() / near.sum().clamp_min(1)


class CoDesignDiffusion:
    """Dual discrete + SE(3) diffusion around a :class:`~iclr26.generative.rna_codesign.model.Denoiser`.

    ``loss(batch)`` with ``batch = {"tokens": (B, L) ids in [0, 4), "rots": (B, L, 3, 3), "trans": (B, L, 3) A}``;
    ``sample(n, length, cond=None, steps=20)`` (module docstring).
    """

    def __init__(
        self,
        denoiser: torch.nn.Module,
        seq_schedule: SequenceSchedule | None = None,
        frame_schedule: FrameSchedule | None = None,
        frame_weight: float = 1.0,
        distance_weight: float = 0.0,
        distance_cutoff: float = 15.0,
        align: bool = False,
    ) -> None:
        if not callable(denoiser):
            raise TypeError(f"denoiser must be a callable Denoiser module, got {type(denoiser).__name__}")
        self.denoiser = denoiser
        self.seq_schedule = seq_schedule or SequenceSchedule()
        self.frame_schedule = frame_schedule or FrameSchedule()
        self.frame_weight = check_float("frame_weight", frame_weight, low=0.0)
        self.distance_weight = check_float("distance_weight", distance_weight, low=0.0)
        self.distance_cutoff = check_float("distance_cutoff", distance_cutoff, low=0.0, low_open=True)
        self.align = check_bool("align", align)
        if not isinstance(self.seq_schedule, SequenceSchedule):
            raise TypeError(f"seq_schedule must be a SequenceSchedule, got {type(seq_schedule).__name__}")
        if not isinstance(self.frame_schedule, FrameSchedule):
            raise TypeError(f"frame_schedule must be a FrameSchedule, got {type(frame_schedule).__name__}")

    # ------------------------------------------------------------------ forward process
    def noise_frames(
        self, rots: Tensor, trans: Tensor, t: Tensor, generator: torch.Generator | None = None
    ) -> tuple[Tensor, Tensor]:
        """Noisy frames at per-example times t (B,); positions in model units (divided by the scale)."""
        b, n = trans.shape[:2]
        p0 = trans / self.frame_schedule.scale
        eps = torch.randn(p0.shape, generator=generator, dtype=p0.dtype)
        tt = t.to(p0.dtype)[:, None, None]
        p_t = (1 - tt) * p0 + tt * eps
        if self.frame_schedule.rotation == "geodesic":
            r1 = random_rotations(b * n, generator, dtype=rots.dtype).view(b, n, 3, 3)
            r_t = rots @ so3_exp(tt * so3_log(rots.transpose(-1, -2) @ r1))
        else:
            noise = torch.stack(
                [
                    igso3_sample(
                        n, max(float(ti) * self.frame_schedule.igso3_max, 1e-3), generator, rots.dtype
                    )
                    for ti in t
                ]
            )
            r_t = rots @ noise
        return r_t, p_t

    def loss(
        self,
        batch: dict,
        generator: torch.Generator | None = None,
        mode: str = "codesign",
        return_terms: bool = False,
    ) -> Tensor | tuple[Tensor, dict[str, float]]:
        """Monte-Carlo loss of a batch (module docstring); ``mode`` "codesign" (both noised) or "fold"."""
        check_choice("mode", mode, ("codesign", "fold"))
        tokens, rots, trans = batch["tokens"], batch["rots"], batch["trans"]
        check_token_ids("tokens", tokens, 4)
        if tokens.ndim != 2:
            raise ValueError(f"tokens must have shape (batch, length), got {tuple(tokens.shape)}")
        check_frames(rots, trans, tokens.shape[1])
        b = tokens.shape[0]
        s = self.seq_schedule
        t = s.t_min + (1 - s.t_min) * torch.rand(b, generator=generator, dtype=torch.float64)
        r_t, p_t = self.noise_frames(rots, trans, t, generator)
        if mode == "fold":
            x_t, masked = tokens, torch.zeros_like(tokens, dtype=torch.bool)
        else:
            x_t, masked = mask_tokens(tokens, t, MASK_ID, generator, schedule=s.kind)
        logits, r_hat, p_hat = self.denoiser(x_t, r_t, p_t, t.to(trans.dtype))
        full = torch.cat([logits, torch.zeros_like(logits[..., :1])], -1)
        logp = subs_log_probs(full, x_t, MASK_ID)
        nll = -logp.gather(-1, tokens[..., None]).squeeze(-1)
        nll = torch.where(masked, nll, torch.zeros_like(nll))
        seq = (elbo_weight(t, s.kind).to(nll.dtype)[:, None] * nll).sum() / tokens.numel()
        p0, r0 = trans / self.frame_schedule.scale, rots
        if self.align:  # targets superimposed on the (detached) prediction: the loss ignores the global pose
            q, c = kabsch_batch(p0.to(p_hat.dtype), p_hat.detach())
            p0, r0 = p0 @ q.transpose(-1, -2) + c[:, None, :], q[:, None] @ r0
        fr = frame_loss(r_hat, p_hat, r0, p0).mean()
        total = seq + self.frame_weight * fr
        dist = pair_distance_loss(
            p_hat, trans / self.frame_schedule.scale, self.distance_cutoff / self.frame_schedule.scale
        )
        if self.distance_weight > 0:
            total = total + self.distance_weight * dist
        if return_terms:
            return total, {"seq": seq.item(), "frame": fr.item(), "distance": dist.item()}
        return total

    # ------------------------------------------------------------------ reverse process
    def _cond(self, cond: dict | None, n: int, length: int, dtype) -> tuple:
        if cond is None:
            return None, None, None, None
        tok = cond.get("tokens")
        if tok is not None:
            check_tensor("cond['tokens']", tok, ndim=(1, 2), floating=False)
            check_token_ids("cond['tokens']", tok, 5)
            if tok.shape[-1] != length or (tok.ndim == 2 and tok.shape[0] != n):
                raise ValueError(
                    f"cond['tokens'] must have shape ({length},) or ({n}, {length}), got {tuple(tok.shape)}"
                )
            tok = tok.expand(n, length)
        fmask = cond.get("frame_mask")
        rots, trans = cond.get("rots"), cond.get("trans")
        if fmask is not None:
            check_tensor("cond['frame_mask']", fmask, ndim=1, shape=(length,))
            check_frames(rots[None], trans[None], length)
            rots, trans = rots.to(dtype), trans.to(dtype) / self.frame_schedule.scale
        return tok, fmask, rots, trans

    def sample(
        self,
        n: int,
        length: int,
        cond: dict | None = None,
        steps: int = 20,
        generator: torch.Generator | None = None,
        temperature: float = 1.0,
        keep_states: bool = False,
        dtype: torch.dtype = torch.float32,
    ) -> CoDesignSample:
        """Co-design ``n`` sequences with structures of ``length`` nucleotides by ``steps`` joint reverse steps.

        ``cond`` may fix tokens (``{"tokens": (L,) or (n, L) ids, 4 = free}``) and frames (``{"frame_mask": (L,) bool,
        "rots": (L, 3, 3), "trans": (L, 3) A}``); fixed parts are never noised. With every token fixed the
        sequence is returned unchanged (structure prediction).
        """
        n = check_int("n", n, low=1)
        length = check_int("length", length, low=1)
        steps = check_int("steps", steps, low=1)
        check_float("temperature", temperature, low=0.0, low_open=True)
        tok_c, fmask, rots_c, trans_c = self._cond(cond, n, length, dtype)
        x = torch.full((n, length), MASK_ID, dtype=torch.long)
        p = torch.randn(n, length, 3, generator=generator, dtype=dtype)
        r = random_rotations(n * length, generator, dtype=dtype).view(n, length, 3, 3)
        states = []

        def fix(x: Tensor, r: Tensor, p: Tensor) -> tuple[Tensor, Tensor, Tensor]:
            if tok_c is not None:
                x = torch.where(tok_c != MASK_ID, tok_c, x)
            if fmask is not None:
                r = torch.where(fmask[None, :, None, None], rots_c[None].expand_as(r), r)
                p = torch.where(fmask[None, :, None], trans_c[None].expand_as(p), p)
            return x, r, p

        x, r, p = fix(x, r, p)
        with torch.no_grad():
            for k in range(steps):
                t, s = 1.0 - k / steps, max(1.0 - (k + 1) / steps, 0.0)
                tt = torch.full((n,), t, dtype=dtype)
                logits, r_hat, p_hat = self.denoiser(x, r, p, tt)
                full = torch.cat([logits, torch.zeros_like(logits[..., :1])], -1)
                x_new = reverse_step(full, x, t, s, MASK_ID, generator, self.seq_schedule.kind, temperature)
                if self.align:  # the prediction superimposed on the current state before the step
                    q, c = kabsch_batch(p_hat, p)
                    p_hat, r_hat = p_hat @ q.transpose(-1, -2) + c[:, None, :], q[:, None] @ r_hat
                frac = (t - s) / t
                p_new = p + frac * (p_hat - p)
                r_new = r @ so3_exp(frac * so3_log(r.transpose(-1, -2) @ r_hat))
                x_new, r_new, p_new = fix(x_new, r_new, p_new)
                if keep_states:
                    states.append((t, s, x, r, p, x_new))
                x, r, p = x_new, r_new, p_new
        return CoDesignSample(x, r, p * self.frame_schedule.scale, states)

    def chain_log_prob(self, sample: CoDesignSample, temperature: float = 1.0) -> Tensor:
        """Sum over the chain of ``log p_theta(token)`` at the positions each step unmasked (n,), differentiable in
        the denoiser; the unmasking times do not depend on the parameters and are left out. Needs
        ``keep_states=True``; all steps are evaluated in one batch."""
        if not sample.states:
            raise ValueError("sample has no chain states: draw it with keep_states=True")
        ts, xs, rs, ps, news = zip(*((st[0], st[2], st[3], st[4], st[5]) for st in sample.states))
        k, n = len(ts), xs[0].shape[0]
        x = torch.cat(xs)
        t = torch.cat([torch.full((n,), tv, dtype=ps[0].dtype) for tv in ts])
        logits, _, _ = self.denoiser(x, torch.cat(rs), torch.cat(ps), t)
        logp = torch.log_softmax(logits / temperature, -1)
        new = torch.cat(news)
        chosen = (x == MASK_ID) & (new != MASK_ID)
        lp = logp.gather(-1, new.clamp(max=3)[..., None]).squeeze(-1)
        lp = torch.where(chosen, lp, torch.zeros_like(lp)).sum(-1)
        return lp.view(k, n).sum(0)


def _batches(data: dict, batch_size: int, generator: torch.Generator):
    n = data["tokens"].shape[0]
    while True:
        idx = torch.randperm(n, generator=generator)
        for s in range(0, n - batch_size + 1 if n >= batch_size else 1, batch_size):
            j = idx[s : s + batch_size]
            yield {k: v[j] for k, v in data.items()}


def train_codesign(
    model: CoDesignDiffusion,
    data: dict,
    steps: int,
    batch_size: int = 32,
    lr: float = 2e-3,
    mode: str = "codesign",
    generator: torch.Generator | None = None,
    augment: bool = True,
) -> list[float]:
    """Adam on ``model.loss`` over random batches of `data` (tokens, rots, trans); a random global rotation per
    example when `augment`. Returns the loss per step."""
    steps = check_int("steps", steps, low=0)
    batch_size = check_int("batch_size", batch_size, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    gen = generator or torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(model.denoiser.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda i: min(1.0, (i + 1) / 50) * max(0.1, 1 - i / max(steps, 1))
    )
    it = _batches(data, batch_size, gen)
    losses = []
    for _ in range(steps):
        batch = next(it)
        if augment:
            q = random_rotations(batch["tokens"].shape[0], gen, dtype=batch["trans"].dtype)
            batch = {
                **batch,
                "rots": q[:, None] @ batch["rots"],
                "trans": batch["trans"] @ q.transpose(-1, -2),
            }
        loss = model.loss(batch, gen, mode=mode)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.denoiser.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


def rl_finetune(
    model: CoDesignDiffusion,
    reward_fn: Callable[[CoDesignSample], Tensor],
    kl_coef: float = 0.1,
    steps: int = 50,
    *,
    n: int = 16,
    length: int = 32,
    sample_steps: int = 20,
    lr: float = 1e-3,
    generator: torch.Generator | None = None,
) -> dict[str, list[float]]:
    """Inference-time RL on the sequence head (module docstring); ``reward_fn(sample) -> (n,)`` rewards.

    Each step draws `n` chains, computes ``A = r - mean(r)``, and descends
    ``-mean(A * log pi(chain)) + kl_coef * KL(pi || pi_ref)`` (KL per unmasked decision, on the visited states).
    ``kl_coef = 0`` is plain REINFORCE; ``steps = 0`` leaves the model unchanged. Returns the mean reward and KL
    per step.
    """
    check_float("kl_coef", kl_coef, low=0.0)
    steps = check_int("steps", steps, low=0)
    n = check_int("n", n, low=2)
    check_float("lr", lr, low=0.0, low_open=True)
    if not callable(reward_fn):
        raise TypeError(f"reward_fn must be callable as reward_fn(sample) -> (n,) tensor, got {reward_fn!r}")
    gen = generator or torch.Generator().manual_seed(0)
    head = model.denoiser.seq_head
    ref = copy.deepcopy(head)
    for prm in ref.parameters():
        prm.requires_grad_(False)
    opt = torch.optim.Adam(head.parameters(), lr=lr)
    hist: dict[str, list[float]] = {"reward": [], "kl": []}
    for _ in range(steps):
        smp = model.sample(n, length, steps=sample_steps, generator=gen, keep_states=True)
        reward = torch.as_tensor(reward_fn(smp), dtype=torch.float64)
        if reward.shape != (n,):
            raise ValueError(f"reward_fn must return shape ({n},), got {tuple(reward.shape)}")
        adv = (reward - reward.mean()).float()
        lp, kl = _head_terms(model, smp, ref)
        loss = -(adv * lp).mean() + kl_coef * kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist["reward"].append(float(reward.mean()))
        hist["kl"].append(kl.item())
    return hist


def _head_terms(model: CoDesignDiffusion, smp: CoDesignSample, ref: torch.nn.Module) -> tuple[Tensor, Tensor]:
    """Chain log-probability (n,) under the trainable sequence head and the mean KL(pi || pi_ref) over the masked
    positions of the visited states; the trunk runs once, without gradients (only the head trains), so this
    equals :meth:`CoDesignDiffusion.chain_log_prob` at a fraction of its cost."""
    head = model.denoiser.seq_head
    feats = {}
    handle = head.register_forward_hook(lambda _m, inp, _out: feats.__setitem__("h", inp[0]))
    n = smp.tokens.shape[0]
    x = torch.cat([st[2] for st in smp.states])
    new = torch.cat([st[5] for st in smp.states])
    t = torch.cat([torch.full((n,), st[0], dtype=smp.states[0][4].dtype) for st in smp.states])
    try:
        with torch.no_grad():
            model.denoiser(
                x, torch.cat([st[3] for st in smp.states]), torch.cat([st[4] for st in smp.states]), t
            )
    finally:
        handle.remove()
    h = feats["h"]
    logp = torch.log_softmax(head(h), -1)
    logq = torch.log_softmax(ref(h), -1)
    masked = x == MASK_ID
    chosen = masked & (new != MASK_ID)
    lp = torch.where(chosen, logp.gather(-1, new.clamp(max=3)[..., None]).squeeze(-1), torch.zeros(()))
    kl = (logp.exp() * (logp - logq)).sum(-1)
    return lp.sum(-1).view(len(smp.states), n).sum(0), (kl * masked).sum() / masked.sum().clamp_min(1)
