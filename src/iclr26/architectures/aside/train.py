"""The tiny experiment stack: a Hugging Face tiny LM with the role-embedding swap, stage-1 pretraining (cached),
stage-2 SFT, greedy evaluation on the synthetic language, and the per-layer role probe."""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr26.architectures.aside.hf import wrap_hf_causal_lm
from iclr26.architectures.aside.language import EOS, PAD, Language, collate
from iclr26.checks import check_choice, check_float, check_int
from iclr26.harness.progress import task
from iclr26.lab.cache import cached_torch
from iclr26.lab.tinygpt import cosine_warmup
from iclr26.lab.tinylm import TinyLMConfig, build_model

__all__ = ["TinyGPT", "TinyGPTSpec", "generate_responses", "pretrain_stage1", "role_probe", "sft"]

STAGE1_VERSION = 2


@dataclass(frozen=True)
class TinyGPTSpec:
    """Shape of the tiny LM (``arch="llama"``: RoPE; ``"gpt2"``: learned positions)."""

    arch: str = "llama"
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4

    def __post_init__(self) -> None:
        check_choice("arch", self.arch, ("llama", "gpt2"))
        check_int("d_model", self.d_model, low=2)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even for the isoclinic rotation, got {self.d_model}")
        check_int("n_layers", self.n_layers, low=1)
        check_int("n_heads", self.n_heads, low=1)


def TinyGPT(spec: TinyGPTSpec, vocab_size: int, method: str | None = None, seed: int = 0) -> nn.Module:  # noqa: N802
    """The lab's tiny Hugging Face causal LM for ``spec``; wrapped with ``method`` ("vanilla"/"ise"/"aside")
    unless ``method`` is None (the role-free stage-1 model). Tied input/output embeddings, dropout off."""
    cfg = TinyLMConfig(
        arch=spec.arch, d_model=spec.d_model, n_layers=spec.n_layers, n_heads=spec.n_heads, seed=seed
    )
    model = build_model(cfg, vocab_size)
    return model if method is None else wrap_hf_causal_lm(model, method, ise_seed=seed)


def _lm_loss(logits: torch.Tensor, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy on the positions ``mask`` marks (targets ``ids[:, 1:]``)."""
    target = ids[:, 1:].masked_fill(~mask[:, 1:], -100)
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), target.flatten(), ignore_index=-100)


def _train(model, forward, batches, steps: int, lr: float, label: str) -> list[float]:
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "segment" not in n]
    other = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and "segment" not in n)]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": other, "weight_decay": 0.0}], lr=lr
    )
    losses = []
    model.train()
    with task(label, total=steps) as bar:
        for step in range(steps):
            for g in opt.param_groups:
                g["lr"] = lr * cosine_warmup(step, steps, 0.05)
            ids, roles, mask = batches(step)
            loss = _lm_loss(forward(ids, roles), ids, mask)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            bar.advance()
    model.eval()
    return losses


@dataclass(frozen=True)
class _Stage1Key:
    spec: TinyGPTSpec
    n_words: int
    n_witness: int
    lengths: tuple[int, int]
    steps: int
    batch: int
    lr: float
    seed: int


def pretrain_stage1(
    spec: TinyGPTSpec,
    lang: Language,
    steps: int,
    batch: int = 32,
    lr: float = 3e-3,
    seed: int = 0,
    cache: bool = True,
) -> dict[str, torch.Tensor]:
    """Role-free "pretraining" on stage-1 streams (loss on every token after BOS); returns the state dict.

    Cached under ``<cache>/aside-stage1/<key>.pt`` (:func:`iclr26.lab.cache.cached_torch`), keyed by the arguments.
    """
    check_int("steps", steps, low=1)
    check_int("batch", batch, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    key = _Stage1Key(
        spec, lang.n_words, lang.n_witness, (lang.min_len, lang.max_len), steps, batch, float(lr), int(seed)
    )

    def build() -> dict[str, torch.Tensor]:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = TinyGPT(spec, lang.vocab_size, seed=seed)
            rng = np.random.default_rng([seed, 1])

            def batches(_: int):
                ids, roles, _mask = collate([lang.stage1_example(rng) for _ in range(batch)])
                return ids, roles, ids != PAD

            _train(model, lambda ids, roles: model(input_ids=ids).logits, batches, steps, lr, "aside stage 1")
        return {k: v.detach().clone() for k, v in model.state_dict().items()}

    return cached_torch("aside-stage1", key, build, cache=cache, version=STAGE1_VERSION)


def sft(
    state: dict[str, torch.Tensor],
    spec: TinyGPTSpec,
    lang: Language,
    method: str,
    steps: int,
    batch: int = 32,
    lr: float = 1e-3,
    seed: int = 0,
    probe_p: float = 0.3,
) -> tuple[nn.Module, list[float]]:
    """Stage-2 SFT of a copy of the stage-1 weights with the role embedding ``method``; loss on the response."""
    check_int("steps", steps, low=1)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = TinyGPT(spec, lang.vocab_size, seed=seed)
        model.load_state_dict(copy.deepcopy(state))
        model = wrap_hf_causal_lm(model, method, ise_seed=seed)
        rng = np.random.default_rng([seed, 2])

        def batches(_: int):
            return collate([lang.sft_example(rng, probe_p) for _ in range(batch)])

        losses = _train(
            model,
            lambda ids, roles: model(input_ids=ids, segment_ids=roles).logits,
            batches,
            steps,
            lr,
            f"aside SFT {method}",
        )
    return model, losses


@torch.no_grad()
def generate_responses(
    model: nn.Module,
    lang: Language,
    pairs: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
    max_new: int = 12,
) -> list[tuple[int, ...]]:
    """Greedy responses (up to EOS) of a wrapped model to (instruction, data) prompts, batched by prompt length."""
    encoded = [lang.encode(i, d) for i, d in pairs]
    groups: dict[int, list[int]] = defaultdict(list)
    for k, (ids, _, _) in enumerate(encoded):
        groups[len(ids)].append(k)
    out: list[tuple[int, ...]] = [()] * len(pairs)
    for n, idx in groups.items():
        ids = torch.tensor([encoded[k][0] for k in idx])
        roles = torch.tensor([encoded[k][1] for k in idx])
        seq = model.generate(ids, roles, max_new_tokens=max_new, eos_token_id=EOS)[:, n:].tolist()
        for k, s in zip(idx, seq):
            out[k] = tuple(s[: s.index(EOS)] if EOS in s else s)
    return out


@torch.no_grad()
def role_probe(model: nn.Module, lang: Language, items: Sequence, seed: int = 0) -> list[float]:
    """Per-layer linear-probe accuracy for the role of the probe tokens ``SAY w``.

    The same two tokens sit in the instruction (role 0) of one prompt and in the data (role 1) of another; a
    logistic regression on half of the items' hidden states (input embeddings = layer 0, then each block) is
    scored on the other half. 0.5 is chance.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    feats: list[list[np.ndarray]] = []
    labels: list[int] = []
    owner: list[int] = []
    for k, item in enumerate(items):
        for place, label in (("instruction", 0), ("data_end", 1)):
            inst, data = lang.with_probe(item, place)
            ids, roles, _ = lang.encode(inst, data)
            out = model(
                input_ids=torch.tensor([ids]), segment_ids=torch.tensor([roles]), output_hidden_states=True
            )
            w = ids.index(item.witness)  # the witness occurs nowhere else; SAY precedes it
            for p in (w - 1, w):
                feats.append([h[0, p].float().numpy() for h in out.hidden_states])
                labels.append(label)
                owner.append(k)
    y, own = np.array(labels), np.array(owner)
    perm = np.random.default_rng(seed).permutation(len(items))
    train_items = set(perm[: len(items) // 2].tolist())
    tr = np.array([o in train_items for o in own])
    accs = []
    for layer in range(len(feats[0])):
        x = np.stack([f[layer] for f in feats])
        clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(x[tr], y[tr])
        accs.append(float(clf.score(x[~tr], y[~tr])))
    return accs
