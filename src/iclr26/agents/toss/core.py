"""TOSS token scoring, selection, selective SFT, TOSS-Pro and the baselines, for any HF-style causal LM.

Paper: "TOSS: Token-level Data Selection for Safe LLM Fine-tuning" (Li et al., ICLR 2026, arXiv 2603.01185).
A model is anything called as ``model(input_ids=..., attention_mask=...)`` returning an object with ``.logits``
of shape [B, T, V] (Hugging Face causal LMs, the lab's tiny LMs). Datasets are lists of
:class:`~iclr26.agents.toss.world.Example`; per-sample tensors cover response positions only.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from iclr26.agents.toss.world import EOS, PAD, Example
from iclr26.checks import check_choice, check_float, check_int, check_tensor

__all__ = [
    "TOSSPro",
    "fine_tune",
    "first_k_masks",
    "generate",
    "masked_sft",
    "random_masks",
    "risk_scores",
    "sample_filter_masks",
    "select",
    "token_losses",
]


def _check_dataset(dataset: Sequence[Example]) -> None:
    if (
        not isinstance(dataset, (list, tuple))
        or not dataset
        or not all(isinstance(e, Example) for e in dataset)
    ):
        raise ValueError(f"dataset must be a non-empty list of Example, got {type(dataset).__name__}")
    for i, e in enumerate(dataset):
        if not e.response:
            raise ValueError(f"dataset[{i}] has an empty response; every sample needs >= 1 response token")


def _vocab(model) -> int | None:
    cfg = getattr(model, "config", None)
    return getattr(cfg, "vocab_size", None)


def _batch(examples: Sequence[Example], masks: Sequence[torch.Tensor] | None = None):
    """Right-padded input ids, attention mask and labels (-100 on prompt, padding and dropped tokens)."""
    longest = max(len(e.ids) for e in examples)
    ids = torch.full((len(examples), longest), PAD, dtype=torch.long)
    att = torch.zeros((len(examples), longest), dtype=torch.long)
    labels = torch.full((len(examples), longest), -100, dtype=torch.long)
    for i, e in enumerate(examples):
        seq = torch.tensor(e.ids, dtype=torch.long)
        ids[i, : len(seq)] = seq
        att[i, : len(seq)] = 1
        resp = torch.tensor(e.response, dtype=torch.long)
        if masks is not None:
            resp = torch.where(masks[i].bool(), resp, torch.full_like(resp, -100))
        labels[i, len(e.prompt) : len(seq)] = resp
    return ids, att, labels


def _token_nll(model, ids: torch.Tensor, att: torch.Tensor) -> torch.Tensor:
    """nll[b, t] = -log p(ids[b, t] | ids[b, <t]) for t >= 1 (column 0 is 0)."""
    logits = model(input_ids=ids, attention_mask=att).logits
    logp = F.log_softmax(
        logits[:, :-1].to(torch.float64 if logits.dtype == torch.float64 else torch.float32), -1
    )
    nll = -logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
    return torch.cat([torch.zeros_like(nll[:, :1]), nll], 1)


@torch.no_grad()
def token_losses(model, dataset: Sequence[Example], batch_size: int = 64) -> list[torch.Tensor]:
    """Per-token NLL ``-log p(y_t | x, y_<t)`` of every response token, one 1-D tensor per sample.

    Batches are right-padded with an attention mask, so the result equals an unbatched pass up to arithmetic.
    """
    _check_dataset(dataset)
    check_int("batch_size", batch_size, low=1)
    was = model.training
    model.eval()
    out: list[torch.Tensor] = []
    for start in range(0, len(dataset), batch_size):
        chunk = dataset[start : start + batch_size]
        ids, att, _ = _batch(chunk)
        nll = _token_nll(model, ids, att)
        for i, e in enumerate(chunk):
            out.append(nll[i, len(e.prompt) : len(e.ids)].detach().clone())
    model.train(was)
    return out


def risk_scores(
    losses_util: Sequence[torch.Tensor], losses_harm: Sequence[torch.Tensor]
) -> list[torch.Tensor]:
    """r_t = loss_util(t) - loss_harm(t): high when the safety-degraded model expects the token far more."""
    if len(losses_util) != len(losses_harm):
        raise ValueError(
            f"losses_util and losses_harm must have the same number of samples, got {len(losses_util)} and "
            f"{len(losses_harm)}"
        )
    out = []
    for i, (u, h) in enumerate(zip(losses_util, losses_harm)):
        check_tensor(f"losses_util[{i}]", u, ndim=1, floating=True)
        check_tensor(f"losses_harm[{i}]", h, ndim=1, floating=True)
        if u.shape != h.shape:
            raise ValueError(
                f"sample {i}: losses_util has shape {tuple(u.shape)}, losses_harm {tuple(h.shape)}"
            )
        out.append(u - h)
    return out


def _check_scores(scores: Sequence[torch.Tensor]) -> None:
    """Per-sample risk scores: 1-D finite float tensors (a NaN would sort silently)."""
    for i, s in enumerate(scores):
        check_tensor(f"scores[{i}]", s, ndim=1, floating=True, finite=True)


def _check_lengths(scores: Sequence[torch.Tensor], dataset: Sequence[Example] | None) -> None:
    if dataset is None:
        return
    if len(scores) != len(dataset):
        raise ValueError(f"scores has {len(scores)} samples but dataset has {len(dataset)}")
    for i, (s, e) in enumerate(zip(scores, dataset)):
        if len(s) != len(e.response):
            raise ValueError(
                f"scores[{i}] has {len(s)} entries but dataset[{i}] has {len(e.response)} response tokens"
            )


def select(
    scores: Sequence[torch.Tensor],
    ratio: float,
    level: str = "global",
    dataset: Sequence[Example] | None = None,
) -> list[torch.Tensor]:
    """Boolean keep-masks: drop the floor(ratio * N) highest-risk response tokens (``level="global"``) or the
    floor(ratio * n_i) highest in each sample (``level="sample"``). Ties break by position (earlier sample, then
    earlier token, is dropped first), so equal scores give a deterministic mask."""
    ratio = check_float("ratio", ratio, 0.0, 1.0, high_open=True)
    level = check_choice("level", level, ("global", "sample"))
    if not scores:
        raise ValueError("scores must be a non-empty list of 1-D tensors")
    _check_scores(scores)
    _check_lengths(scores, dataset)
    masks = [torch.ones(len(s), dtype=torch.bool) for s in scores]
    if level == "sample":
        for s, m in zip(scores, masks):
            k = math.floor(ratio * len(s))
            if k:
                order = np.lexsort((np.arange(len(s)), -s.double().numpy()))
                m[torch.as_tensor(order[:k])] = False
        return masks
    flat = torch.cat([s.double() for s in scores]).numpy()
    k = math.floor(ratio * len(flat))
    if k:
        order = np.lexsort((np.arange(len(flat)), -flat))[:k]
        bounds = np.cumsum([0] + [len(s) for s in scores])
        which = np.searchsorted(bounds, order, side="right") - 1
        for idx, sample in zip(order, which):
            masks[sample][idx - bounds[sample]] = False
    return masks


def sample_filter_masks(scores: Sequence[torch.Tensor], ratio: float) -> list[torch.Tensor]:
    """SEAL-like sample filtering at the same *token* budget: rank samples by mean token risk and drop whole
    samples, highest first, until at least floor(ratio * N) tokens are dropped."""
    ratio = check_float("ratio", ratio, 0.0, 1.0, high_open=True)
    _check_scores(scores)
    budget = math.floor(ratio * sum(len(s) for s in scores))
    means = np.array([float(s.double().mean()) for s in scores])
    masks = [torch.ones(len(s), dtype=torch.bool) for s in scores]
    dropped = 0
    for i in np.lexsort((np.arange(len(means)), -means)):
        if dropped >= budget:
            break
        masks[i][:] = False
        dropped += len(scores[i])
    return masks


def random_masks(dataset: Sequence[Example], ratio: float, seed: int) -> list[torch.Tensor]:
    """Drop exactly floor(ratio * N) response tokens chosen uniformly at random."""
    ratio = check_float("ratio", ratio, 0.0, 1.0, high_open=True)
    rng = np.random.default_rng(seed)
    return select([torch.as_tensor(rng.random(len(e.response))) for e in dataset], ratio)


def first_k_masks(dataset: Sequence[Example], k: int = 5) -> list[torch.Tensor]:
    """Drop the first `k` response tokens of every sample."""
    check_int("k", k, low=0)
    return [torch.arange(len(e.response)) >= k for e in dataset]


def masked_loss(
    model, examples: Sequence[Example], masks: Sequence[torch.Tensor] | None = None
) -> torch.Tensor:
    """Mean NLL over the retained response tokens of a batch (sum / #retained)."""
    ids, att, labels = _batch(examples, masks)
    nll = _token_nll(model, ids, att)
    keep = labels != -100
    return (nll * keep).sum() / keep.sum().clamp(min=1)


@dataclass(frozen=True)
class _TrainCfg:
    steps: int
    batch_size: int
    lr: float


def masked_sft(
    model,
    dataset: Sequence[Example],
    masks: Sequence[torch.Tensor] | None = None,
    steps: int = 150,
    batch_size: int = 32,
    lr: float = 1e-3,
    seed: int = 0,
    copy_model: bool = True,
):
    """Selective SFT: AdamW on the masked token loss (masks None = plain SFT). Returns the trained model
    (a deep copy of `model` unless ``copy_model=False``). Samples with every token dropped are skipped."""
    _check_dataset(dataset)
    check_int("steps", steps, low=0)
    check_int("batch_size", batch_size, low=1)
    check_float("lr", lr, low=0.0)
    if masks is not None:
        if len(masks) != len(dataset):
            raise ValueError(f"masks has {len(masks)} entries but dataset has {len(dataset)}")
        for i, (m, e) in enumerate(zip(masks, dataset)):
            if len(m) != len(e.response):
                raise ValueError(f"masks[{i}] has {len(m)} entries but dataset[{i}] has {len(e.response)}")
    model = copy.deepcopy(model) if copy_model else model
    live = [i for i in range(len(dataset)) if masks is None or bool(masks[i].any())]
    if not live or steps == 0:
        return model
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    gen = np.random.default_rng(seed)
    model.train()
    for _ in range(steps):
        pick = gen.choice(live, size=min(batch_size, len(live)), replace=False)
        loss = masked_loss(
            model, [dataset[i] for i in pick], None if masks is None else [masks[i] for i in pick]
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    model.eval()
    return model


def fine_tune(
    model, dataset: Sequence[Example], steps: int, batch_size: int, lr: float, seed: int, lora: bool = False
):
    """A reference model from `model` (full fine-tuning, or LoRA r=16 on every linear layer via ``peft``)."""
    if lora:
        from peft import LoraConfig, get_peft_model  # optional dependency

        model = get_peft_model(
            copy.deepcopy(model), LoraConfig(r=16, lora_alpha=16, target_modules="all-linear")
        )
        return masked_sft(model, dataset, None, steps, batch_size, lr, seed, copy_model=False)
    return masked_sft(model, dataset, None, steps, batch_size, lr, seed)


def check_same_vocab(a, b) -> None:
    """Raise ValueError when the two reference models disagree on the vocabulary size."""
    va, vb = _vocab(a), _vocab(b)
    if va is not None and vb is not None and va != vb:
        raise ValueError(f"reference models have different vocabularies: {va} and {vb} tokens")


class TOSSPro:
    """TOSS-Pro: `refine_rounds` rounds of (score, select, continue fine-tuning the safety-degraded model on
    the flagged tokens of D with their contexts, masked to the flagged tokens), then a final selection.

    Our reading of the paper's "progressive refinement" (its per-round data construction was not visible).
    """

    def __init__(
        self, refine_rounds: int = 2, steps: int = 50, batch_size: int = 32, lr: float = 1e-3
    ) -> None:
        self.refine_rounds = check_int("refine_rounds", refine_rounds, low=0)
        self.steps = check_int("steps", steps, low=1)
        self.batch_size = check_int("batch_size", batch_size, low=1)
        self.lr = check_float("lr", lr, low=0.0)

    def masks(
        self,
        util_model,
        harm_model,
        dataset: Sequence[Example],
        ratio: float,
        seed: int = 0,
        level: str = "global",
    ) -> list[torch.Tensor]:
        check_same_vocab(util_model, harm_model)
        lu = token_losses(util_model, dataset)
        harm = harm_model
        m = select(risk_scores(lu, token_losses(harm, dataset)), ratio, level)
        for k in range(self.refine_rounds):
            flagged = [~mm for mm in m]
            idx = [i for i, f in enumerate(flagged) if bool(f.any())]
            if not idx:
                break
            harm = masked_sft(
                harm,
                [dataset[i] for i in idx],
                [flagged[i] for i in idx],
                self.steps,
                self.batch_size,
                self.lr,
                seed + 1 + k,
            )
            m = select(risk_scores(lu, token_losses(harm, dataset)), ratio, level)
        return m


@torch.no_grad()
def generate(model, prompts: Sequence[Sequence[int]], max_new: int = 10) -> list[list[int]]:
    """Greedy decoding up to EOS or `max_new` tokens; prompts of equal length are decoded as one batch
    (no padding, so any causal LM works). Returns the generated tokens without EOS."""
    check_int("max_new", max_new, low=1)
    model.eval()
    out: list[list[int] | None] = [None] * len(prompts)
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        groups.setdefault(len(p), []).append(i)
    for _, idx in sorted(groups.items()):
        ids = torch.tensor([list(prompts[i]) for i in idx], dtype=torch.long)
        done = torch.zeros(len(idx), dtype=torch.bool)
        new = []
        for _ in range(max_new):
            nxt = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, EOS), nxt)
            new.append(nxt)
            done |= nxt == EOS
            ids = torch.cat([ids, nxt[:, None]], 1)
            if bool(done.all()):
                break
        gen = torch.stack(new, 1).tolist()
        for j, i in enumerate(idx):
            seq = gen[j]
            out[i] = seq[: seq.index(EOS)] if EOS in seq else seq
    return out  # type: ignore[return-value]
