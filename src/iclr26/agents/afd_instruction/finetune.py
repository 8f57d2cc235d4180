"""Instruction tuning, answer scoring and greedy decoding for any causal LM (Hugging Face or the in-repo tiny GPT).

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916). The released trainer (``finetune/``) renders each record
with the ChatML template and trains TRL's ``SFTTrainer`` on the whole text: no prompt masking, so the loss is

    L = - sum_{t >= 1} log p(x_t | x_<t) / #tokens                  (``loss="full"``, the released default)

with LoRA r = 16, alpha = 16, rsLoRA, dropout 0 on every projection, AdamW lr 2e-4 linear with 5 warm-up steps,
weight decay 0.01, 3 epochs, batch 8. ``loss="answer"`` keeps only the answer tokens (the common alternative).
A model is either a Hugging Face causal LM (``model(input_ids, attention_mask).logits``) or
:class:`iclr26.lab.tinygpt.TinyGPT` (``model(ids)``); a tokenizer is a Hugging Face tokenizer or
:class:`~iclr26.agents.afd_instruction.tokenizer.CharTokenizer`. Batches are right-padded: with causal attention
the padding never changes the real positions, which the oracle tests check against unpadded one-at-a-time runs.

Example
-------
>>> from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig
>>> from iclr26.agents.afd_instruction import AntibodyWorld, CharTokenizer, instructions_for
>>> import numpy as np
>>> tok = CharTokenizer()
>>> model = TinyGPT(TinyGPTConfig(n_layers=1, d_model=32, n_heads=2, seq_len=160), tok.vocab_size)
>>> recs = instructions_for(AntibodyWorld(0).sample(4), np.random.default_rng(0))
>>> out = instruction_tune(model, tok, recs, template="plain", steps=3, batch_size=4, lr=1e-3)
>>> len(out.losses)
3
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F

from iclr26.agents.afd_instruction.schema import Record
from iclr26.agents.afd_instruction.templates import chat_parts
from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.tinygpt import TinyGPT

__all__ = [
    "LORA_DEFAULTS",
    "TuneResult",
    "answer_logprobs",
    "answer_logprobs_reference",
    "encode",
    "greedy_generate",
    "greedy_generate_reference",
    "instruction_tune",
    "lm_logits",
    "rank_labels",
    "sft_loss",
]

LORA_DEFAULTS: dict[str, Any] = {"r": 16, "lora_alpha": 16, "lora_dropout": 0.0, "use_rslora": True}
HF_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
TINY_TARGETS = ("q", "k", "v", "o", "fc", "proj")


def encode(tokenizer: Any, text: str) -> list[int]:
    """Token ids of `text` without special tokens (a ``CharTokenizer`` or a Hugging Face tokenizer)."""
    if hasattr(tokenizer, "vocab") and hasattr(tokenizer, "decode") and not callable(tokenizer):
        return tokenizer.encode(text)
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _decode(tokenizer: Any, ids: Sequence[int]) -> str:
    return tokenizer.decode(list(ids))


def _pad_id(tokenizer: Any) -> int:
    pid = getattr(tokenizer, "pad_token_id", None)
    if pid is None:
        pid = getattr(tokenizer, "eos_token_id", None)
    return int(pid or 0)


def _max_len(model: Any) -> int | None:
    if isinstance(model, TinyGPT):
        return model.cfg.seq_len
    n = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    return int(n) if n else None


def lm_logits(model: Any, ids: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """``(batch, seq, vocab)`` logits of a tiny GPT or a Hugging Face causal LM."""
    if isinstance(model, TinyGPT):
        return model(ids)
    return model(input_ids=ids, attention_mask=mask).logits


def _device(model: Any) -> torch.device:
    return next(model.parameters()).device


def _pad(seqs: Sequence[Sequence[int]], pad: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    n = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), n), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(list(s), dtype=torch.long)
        mask[i, : len(s)] = 1
    return ids.to(device), mask.to(device)


def _check_records(records: Sequence[Record]) -> None:
    if not isinstance(records, Sequence) or isinstance(records, (str, bytes)) or not records:
        raise ValueError(f"records must be a non-empty sequence of Record, got {type(records).__name__}")
    for r in records:
        if not isinstance(r, Record):
            raise TypeError(f"records must hold Record objects, got {type(r).__name__}")


def _encode_records(
    tokenizer: Any, records: Sequence[Record], template: str, loss: str, limit: int
) -> list[tuple[list[int], int]]:
    """(token ids cut to `limit`, index of the first target token) per record."""
    out = []
    for r in records:
        p, a = chat_parts(r, template)
        pi, ai = encode(tokenizer, p), encode(tokenizer, a)
        ids = (pi + ai)[:limit]
        out.append((ids, 1 if loss == "full" else min(len(pi), len(ids))))
    return out


def _batch_loss(model: Any, batch: Sequence[tuple[list[int], int]], pad: int) -> torch.Tensor:
    """Mean next-token cross-entropy over the target tokens of a right-padded batch."""
    ids, mask = _pad([b[0] for b in batch], pad, _device(model))
    target = ids[:, 1:].clone()
    keep = mask[:, 1:].bool()
    for row, (_, first) in enumerate(batch):
        keep[row, : max(first - 1, 0)] = False  # target index j predicts token j + 1
    target[~keep] = -100
    logits = lm_logits(model, ids, mask)[:, :-1]
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))  # half precision -> float32
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))


def sft_loss(
    model: Any, tokenizer: Any, records: Sequence[Record], loss: str = "full", template: str = "chatml"
) -> torch.Tensor:
    """The differentiable training loss of :func:`instruction_tune` on one batch made of `records`."""
    _check_records(records)
    check_choice("loss", loss, ("full", "answer"))
    limit = _max_len(model) or 10**9
    return _batch_loss(model, _encode_records(tokenizer, records, template, loss, limit), _pad_id(tokenizer))


@dataclass
class TuneResult:
    """The tuned model and the training loss of every step."""

    model: Any
    losses: list[float] = field(default_factory=list)


def _apply_lora(model: Any, lora: bool | Mapping[str, Any]) -> Any:
    try:
        import peft
    except ImportError as exc:
        raise ImportError(
            "lora needs the 'peft' package; install it or pass lora=None for full tuning"
        ) from exc
    opts = {**LORA_DEFAULTS, **(dict(lora) if isinstance(lora, Mapping) else {})}
    opts.setdefault("target_modules", list(TINY_TARGETS if isinstance(model, TinyGPT) else HF_TARGETS))
    return peft.get_peft_model(model, peft.LoraConfig(**opts))


def instruction_tune(
    model: Any,
    tokenizer: Any,
    records: Sequence[Record],
    *,
    lora: bool | Mapping[str, Any] | None = None,
    loss: str = "full",
    template: str = "chatml",
    steps: int | None = None,
    epochs: int = 3,
    batch_size: int = 8,
    lr: float = 2e-4,
    weight_decay: float = 0.01,
    warmup_steps: int = 5,
    max_length: int = 2048,
    grad_clip: float | None = 1.0,
    seed: int = 0,
    copy_model: bool = True,
) -> TuneResult:
    """Supervised instruction tuning on rendered records (defaults = the released config, full-precision AdamW).

    Parameters
    ----------
    model, tokenizer : a causal LM and its tokenizer (see the module docstring).
    records : the instructions; each is rendered with :func:`~iclr26.agents.afd_instruction.templates.chat_parts`.
    lora : None (every weight trains), True (LoRA with :data:`LORA_DEFAULTS` on the attention and MLP
        projections) or a dict of ``peft.LoraConfig`` overrides; needs ``peft``.
    loss : ``"full"`` (the whole text, as the released SFT) or ``"answer"`` (answer tokens only).
    steps : optimizer steps; None means ``ceil(epochs * len(records) / batch_size)``.
    lr, weight_decay, warmup_steps : AdamW with linear warm-up then linear decay to 0.
    max_length : texts are cut to this many tokens (and to the model's context).
    copy_model : tune a deep copy and leave `model` untouched.
    """
    _check_records(records)
    check_choice("loss", loss, ("full", "answer"))
    epochs = check_int("epochs", epochs, low=1)
    batch_size = check_int("batch_size", batch_size, low=1)
    steps = (
        math.ceil(epochs * len(records) / batch_size) if steps is None else check_int("steps", steps, low=0)
    )
    lr = check_float("lr", lr, low=0.0, low_open=True)
    weight_decay = check_float("weight_decay", weight_decay, low=0.0)
    warmup_steps = check_int("warmup_steps", warmup_steps, low=0)
    max_length = check_int("max_length", max_length, low=2)
    if grad_clip is not None:
        grad_clip = check_float("grad_clip", grad_clip, low=0.0, low_open=True)
    limit = min(max_length, _max_len(model) or max_length)
    model = copy.deepcopy(model) if copy_model else model
    if lora is not None and lora is not False:
        model = _apply_lora(model, lora)
    enc = _encode_records(tokenizer, records, template, loss, limit)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        return max(0.0, (steps - step) / max(1, steps - warmup_steps))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    gen = torch.Generator().manual_seed(int(seed))
    order = torch.empty(0, dtype=torch.long)
    pad = _pad_id(tokenizer)
    losses = []
    model.train()
    for _ in range(steps):
        while len(order) < batch_size:
            order = torch.cat([order, torch.randperm(len(enc), generator=gen)])
        idx, order = order[:batch_size], order[batch_size:]
        loss_t = _batch_loss(model, [enc[int(i)] for i in idx], pad)
        opt.zero_grad(set_to_none=True)
        loss_t.backward()
        if grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(params, grad_clip)
        opt.step()
        sched.step()
        losses.append(float(loss_t.detach()))
    model.eval()
    return TuneResult(model, losses)


def _check_pairs(prompts: Sequence[str], answers: Sequence[str]) -> None:
    if len(prompts) != len(answers):
        raise ValueError(
            f"prompts and answers must have the same length, got {len(prompts)} and {len(answers)}"
        )
    if not prompts:
        raise ValueError("prompts must be non-empty")


@torch.no_grad()
def answer_logprobs(
    model: Any, tokenizer: Any, prompts: Sequence[str], answers: Sequence[str], batch_size: int = 64
) -> torch.Tensor:
    """``sum_t log p(answer_t | prompt, answer_<t)`` for each pair, batched and right-padded; shape ``(n,)``."""
    _check_pairs(prompts, answers)
    batch_size = check_int("batch_size", batch_size, low=1)
    pad, device = _pad_id(tokenizer), _device(model)
    enc = [(encode(tokenizer, p), encode(tokenizer, a)) for p, a in zip(prompts, answers)]
    for i, (p, a) in enumerate(enc):
        if not p or not a:
            raise ValueError(f"pair {i}: prompt and answer must encode to at least one token each")
    out = torch.empty(len(enc), dtype=torch.float64)
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]) + len(enc[i][1]))
    for s in range(0, len(order), batch_size):
        rows = order[s : s + batch_size]
        ids, mask = _pad([enc[i][0] + enc[i][1] for i in rows], pad, device)
        logp = torch.log_softmax(lm_logits(model, ids, mask).double(), -1)
        for j, i in enumerate(rows):
            lp, la = len(enc[i][0]), len(enc[i][1])
            pos = torch.arange(lp - 1, lp + la - 1, device=device)
            out[i] = logp[j, pos, ids[j, pos + 1]].sum().cpu()
    return out


@torch.no_grad()
def answer_logprobs_reference(
    model: Any, tokenizer: Any, prompts: Sequence[str], answers: Sequence[str]
) -> torch.Tensor:
    """The oracle of :func:`answer_logprobs`: one unpadded forward per answer token."""
    _check_pairs(prompts, answers)
    out = []
    device = _device(model)
    for p, a in zip(prompts, answers):
        pi, ai = encode(tokenizer, p), encode(tokenizer, a)
        total = 0.0
        for t in range(len(ai)):
            ctx = torch.tensor([pi + ai[:t]], device=device)
            total += float(torch.log_softmax(lm_logits(model, ctx)[0, -1].double(), -1)[ai[t]])
        out.append(total)
    return torch.tensor(out, dtype=torch.float64)


def rank_labels(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    labels: Sequence[str],
    suffix: str = "\n",
    batch_size: int = 64,
) -> list[int]:
    """Index of the label with the highest ``log p(label + suffix | prompt)`` for each prompt (ties: first)."""
    if not labels:
        raise ValueError("labels must be non-empty")
    ps = [p for p in prompts for _ in labels]
    ans = [lab + suffix for _ in prompts for lab in labels]
    lp = answer_logprobs(model, tokenizer, ps, ans, batch_size).view(len(prompts), len(labels))
    return [int(i) for i in lp.argmax(1)]


@torch.no_grad()
def greedy_generate(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    max_new_tokens: int = 16,
    stop: str = "\n",
    batch_size: int = 128,
) -> list[str]:
    """Greedy continuations (up to `stop`, excluded, or `max_new_tokens`), batched with right padding: each
    step reads the logits at every row's own last position."""
    if not prompts:
        raise ValueError("prompts must be non-empty")
    max_new_tokens = check_int("max_new_tokens", max_new_tokens, low=1)
    batch_size = check_int("batch_size", batch_size, low=1)
    stop_ids = encode(tokenizer, stop) if stop else []
    stop_id = stop_ids[0] if len(stop_ids) == 1 else None
    limit = _max_len(model)
    pad, device = _pad_id(tokenizer), _device(model)
    enc = [encode(tokenizer, p) for p in prompts]
    out: list[list[int]] = [[] for _ in enc]
    order = sorted(range(len(enc)), key=lambda i: len(enc[i]))
    for s in range(0, len(order), batch_size):
        rows = order[s : s + batch_size]
        live = list(rows)
        for _ in range(max_new_tokens):
            live = [i for i in live if limit is None or len(enc[i]) + len(out[i]) < limit]
            if not live:
                break
            seqs = [enc[i] + out[i] for i in live]
            ids, mask = _pad(seqs, pad, device)
            logits = lm_logits(model, ids, mask)
            last = torch.tensor([len(x) - 1 for x in seqs], device=device)
            nxt = logits[torch.arange(len(live), device=device), last].argmax(-1).tolist()
            keep = []
            for i, t in zip(live, nxt):
                if t == stop_id:
                    continue
                out[i].append(int(t))
                keep.append(i)
            live = keep
    return [_decode(tokenizer, o) for o in out]


@torch.no_grad()
def greedy_generate_reference(
    model: Any, tokenizer: Any, prompts: Sequence[str], max_new_tokens: int = 16, stop: str = "\n"
) -> list[str]:
    """The oracle of :func:`greedy_generate`: one prompt at a time, unpadded."""
    stop_ids = encode(tokenizer, stop) if stop else []
    stop_id = stop_ids[0] if len(stop_ids) == 1 else None
    limit = _max_len(model)
    res = []
    for p in prompts:
        ids = encode(tokenizer, p)
        new: list[int] = []
        for _ in range(max_new_tokens):
            if limit is not None and len(ids) + len(new) >= limit:
                break
            t = int(lm_logits(model, torch.tensor([ids + new], device=_device(model)))[0, -1].argmax())
            if t == stop_id:
                break
            new.append(t)
        res.append(_decode(tokenizer, new))
    return res
