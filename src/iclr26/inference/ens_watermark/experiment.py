"""Reproduction of "ENS: An Ensemble Framework for Unbiased Language Model Watermarking" (OpenReview iZ7i2y1YxO).

Per harness seed (one secret set and one sampling stream): prompts are fixed-length token windows of the held-out
split of the tiny LM's corpus; the LM samples `new_tokens` tokens per prompt (temperature 1, no top-k) without a
watermark, with ENS_n (DiPmark, n in `n_values`, keys = the first n secrets) and with KGW (delta 2, reference).

- detection: z after every generated token with the matching key set; TPR at z > 2.326 (1% FPR, its empirical
  FPR measured on the unwatermarked texts) at T tokens, median tokens until z > 4, per-key green rate;
- robustness: TPR after substitution / smoothing / span-regeneration attacks by a second, smaller LM;
- quality: per-token NLL of the generated tokens (paired by prompt) and distinct-2;
- the exact V = 4 enumeration of ENS_2 over all 576 permutation pairs.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessor, PreTrainedModel

from iclr26.harness.claims import Claim, Precondition, difference_at_least
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.inference.ens_watermark.attacks import paraphrase_attack, smoothing_attack, substitution_attack
from iclr26.inference.ens_watermark.claim_check import ens_decider, quality_decider, ttd_decider
from iclr26.inference.ens_watermark.detector import ENSDetector
from iclr26.inference.ens_watermark.figures import (
    green_rate_vs_n,
    nll_histogram,
    robustness_curves,
    tpr_vs_tokens,
    z_growth,
)
from iclr26.inference.ens_watermark.processor import ENSLogitsProcessor, KGWLogitsProcessor, make_reweight
from iclr26.lab.tinylm import TinyLMConfig, corpus_splits, load_or_train

__all__ = [
    "EXPERIMENT",
    "LM_LEARNED_RATIO",
    "ENSConfig",
    "exact_unbiasedness_error",
    "lm_nll_over_unigram",
    "run",
]

FPR_Z = 2.326  # z_{0.99}


@dataclass(frozen=True)
class ENSConfig:
    """One budget of the ENS reproduction; ``lm=None`` means an untrained random tiny Llama (smoke)."""

    lm: TinyLMConfig | None = None
    attack_lm: TinyLMConfig | None = None
    eval_lm: TinyLMConfig | None = None  # None: NLL scored by the generating model itself
    random_vocab: int = 256
    n_prompts: int = 150
    prompt_len: int = 16
    new_tokens: int = 100
    batch_size: int = 75
    n_values: tuple[int, ...] = (1, 2, 3)
    bases: tuple[str, ...] = ("dipmark",)
    alpha: float = 0.45
    context_width: int = 1
    gamma_g: float = 0.5
    t_values: tuple[int, ...] = (25, 50, 100)
    detect_z: float = 4.0
    attack_ns: tuple[int, ...] = (1, 3)
    attack_eps: tuple[float, ...] = (0.2,)
    attacks: tuple[str, ...] = ("substitution", "smoothing", "paraphrase")
    kgw_delta: float = 2.0
    single_thread: bool = True


def exact_unbiasedness_error(n_layers: int = 2, alpha: float = 0.45, base: str = "dipmark") -> float:
    """max |mean over all (4!)^n permutation tuples of ENS_n(P) - P| over a few P at V = 4 (float64)."""
    rw = make_reweight(base, alpha)
    perms = torch.tensor(list(itertools.permutations(range(4))))
    worst = 0.0
    for p in ([0.1, 0.2, 0.3, 0.4], [0.7, 0.05, 0.05, 0.2], [0.97, 0.01, 0.01, 0.01]):
        target = torch.tensor(p, dtype=torch.float64)
        dist = target[None]
        for _ in range(n_layers):  # row r * 24 + i: tuple r pushed through permutation i
            dist = rw.reweight(dist.repeat_interleave(len(perms), 0), perms.repeat(len(dist), 1))
        worst = max(worst, float((dist.mean(0) - target).abs().max()))
    return worst


def _secrets(seed: int, n: int) -> list[bytes]:
    """The seed's secret set (derived, never stored in results)."""
    return [hashlib.sha256(f"ens-reproduction/seed={seed}/layer={j}".encode()).digest() for j in range(n)]


def _random_lm(vocab: int, seed: int) -> PreTrainedModel:
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
    )
    return LlamaForCausalLM(cfg).eval()


def _models(
    cfg: ENSConfig, device: torch.device | str = "cpu"
) -> tuple[PreTrainedModel, PreTrainedModel, PreTrainedModel, object]:
    """(model, attack model, eval model or None, the TrainedLM or None), built or trained on the CPU (tiny LMs are
    cached by config) and moved to `device`."""
    if cfg.lm is None:
        return (
            _random_lm(cfg.random_vocab, 0).to(device),
            _random_lm(cfg.random_vocab, 1).to(device),
            None,
            None,
        )
    lm = load_or_train(cfg.lm)
    attack = load_or_train(cfg.attack_lm) if cfg.attack_lm is not None else lm
    if attack.model.config.vocab_size != lm.model.config.vocab_size:
        raise ValueError("attack_lm must share the tokenizer of lm (same corpus and vocab_size)")
    ev = load_or_train(cfg.eval_lm).model.to(device) if cfg.eval_lm is not None else None
    return lm.model.to(device), attack.model.to(device), ev, lm


@torch.no_grad()
def lm_nll_over_unigram(cfg: ENSConfig, lm: object, n_windows: int = 64, width: int = 64) -> float:
    """Held-out next-token loss of the trained LM over the entropy of the held-out tokens' own frequencies (the
    best context-free predictor of the same text); NaN for the untrained random LM. Fixed, evenly spaced windows
    (no random draws)."""
    if lm is None:
        return float("nan")
    ids = lm.tokenizer(corpus_splits(cfg.lm)["test"], return_tensors="np").input_ids[0]
    starts = np.linspace(0, len(ids) - width - 1, n_windows).astype(int)
    x = torch.as_tensor(np.stack([ids[s : s + width + 1] for s in starts])).long().to(lm.model.device)
    logp = torch.log_softmax(lm.model(x).logits[:, :-1].double(), -1)
    nll = float(-logp.gather(-1, x[:, 1:, None]).mean())
    freq = np.bincount(ids).astype(float)
    freq = freq[freq > 0] / freq.sum()
    return nll / float(-(freq * np.log(freq)).sum())


def _prompts(cfg: ENSConfig, lm: object, vocab: int, rng: np.random.Generator) -> torch.Tensor:
    if lm is None:
        return torch.as_tensor(rng.integers(0, vocab, size=(cfg.n_prompts, cfg.prompt_len)))
    ids = lm.tokenizer(corpus_splits(cfg.lm)["test"], return_tensors="np").input_ids[0]
    starts = rng.choice(len(ids) - cfg.prompt_len, size=cfg.n_prompts, replace=False)
    return torch.as_tensor(np.stack([ids[s : s + cfg.prompt_len] for s in starts])).long()


class _CPUSampler(LogitsProcessor):
    """Last processor on a non-CPU device: draws the next token on the CPU, exactly as ``generate`` does on a CPU
    run (``torch.multinomial(softmax(scores))`` from the global CPU generator that ``torch.manual_seed`` seeded),
    and returns scores that put all mass on it, so the device's own sampler can only pick that token. A cuda run
    then samples the same texts as a CPU run whenever its scores agree (up to rounding at a draw's boundary)."""

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        probs = torch.softmax(scores.cpu(), dim=-1)
        nxt = torch.multinomial(probs, num_samples=1).to(scores.device)
        out = torch.full_like(scores, float("-inf"))
        return out.scatter_(-1, nxt, 0.0)


@torch.no_grad()
def _generate(
    model: PreTrainedModel, prompts: torch.Tensor, cfg: ENSConfig, procs: list, seed: int
) -> torch.Tensor:
    torch.manual_seed(seed)
    if prompts.device.type != "cpu":  # a CPU run keeps generate's own sampler (bit-identical results)
        procs = [*procs, _CPUSampler()]
    outs = []
    for b in range(0, len(prompts), cfg.batch_size):
        outs.append(
            model.generate(
                prompts[b : b + cfg.batch_size],
                attention_mask=torch.ones_like(prompts[b : b + cfg.batch_size]),
                logits_processor=procs,
                do_sample=True,
                temperature=1.0,
                top_k=0,
                top_p=1.0,
                max_new_tokens=cfg.new_tokens,
                min_new_tokens=cfg.new_tokens,
                pad_token_id=0,
            )
        )
    return torch.cat(outs)


@torch.no_grad()
def _nll(model: PreTrainedModel, ids: torch.Tensor, start: int, batch: int) -> np.ndarray:
    """Per-text mean NLL (nats/token) of ``ids[:, start:]`` under `model`."""
    out = []
    for b in range(0, len(ids), batch):
        x = ids[b : b + batch]
        logp = torch.log_softmax(model(x).logits[:, start - 1 : -1].double(), -1)
        out.append(-logp.gather(-1, x[:, start:, None])[..., 0].mean(1))
    return torch.cat(out).cpu().numpy()


def _distinct2(ids: torch.Tensor, start: int) -> float:
    rows = ids[:, start:].tolist()
    fracs = [len(set(zip(r, r[1:]))) / max(len(r) - 1, 1) for r in rows]
    return float(np.mean(fracs))


def _z_paths(det: ENSDetector, ids: torch.Tensor, start: int, length: int) -> np.ndarray:
    """(texts, length) z after each scored token; texts with fewer scored tokens repeat their last z."""
    out = np.zeros((len(ids), length))
    for i, row in enumerate(ids):
        z = det.prefix_z(row, start)
        z = z if z.size else np.zeros(1)
        out[i] = np.concatenate([z, np.full(max(length - z.size, 0), z[-1])])[:length]
    return out


def _green_rate(det: ENSDetector, ids: torch.Tensor, start: int) -> float:
    return float(np.mean([det.green_matrix(row, start).mean() for row in ids]))


def run(cfg: ENSConfig, seed: int, device: str) -> Metrics:
    """Generate with and without ENS for one secret set, then detect, attack and score quality.

    The LMs (generation, NLL scoring, smoothing and span-regeneration attacks) run on ``device``; the keyed
    permutations, the detector and the random substitution attack work on CPU token ids (see the README).
    """
    dev = torch.device(device)
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    model, attack_model, eval_model, lm = _models(cfg, dev)
    values["lm_nll_over_unigram"] = lm_nll_over_unigram(cfg, lm)
    vocab = int(model.config.vocab_size)
    rng = np.random.default_rng(seed)
    prompts = _prompts(cfg, lm, vocab, rng).to(dev)
    start, length = cfg.prompt_len, cfg.new_tokens
    secrets = _secrets(seed, max(cfg.n_values))
    wm = dict(context_width=cfg.context_width, vocab_size=vocab)
    jobs: list[tuple[str, list]] = [("plain", [])]
    for base in cfg.bases:
        for n in cfg.n_values:
            jobs.append((f"{base}_n{n}", [ENSLogitsProcessor(secrets[:n], base, cfg.alpha, **wm)]))
    jobs.append(("kgw", [KGWLogitsProcessor(secrets[0], cfg.gamma_g, cfg.kgw_delta, **wm)]))
    texts = {}
    for i, (name, procs) in enumerate(track(jobs, description=f"ens generate seed {seed}")):
        texts[name] = _generate(model, prompts, cfg, procs, 10_000 * seed + i)
    scorer = eval_model if eval_model is not None else model
    nll = {name: _nll(scorer, ids, start, cfg.batch_size) for name, ids in texts.items()}
    for name in texts:
        values[f"nll_{name}"] = float(nll[name].mean())
        values[f"distinct2_{name}"] = _distinct2(texts[name], start)
    cpu_texts = {name: ids.cpu() for name, ids in texts.items()}  # the detector hashes ids in Python
    dets = {n: ENSDetector(secrets[:n], vocab, cfg.gamma_g, cfg.context_width) for n in cfg.n_values}
    t_grid = list(range(5, length + 1, 5))
    for n, det in track(list(dets.items()), description=f"ens detect seed {seed}"):
        z0 = _z_paths(det, cpu_texts["plain"], start, length)
        values[f"fpr_n{n}"] = float((z0[:, -1] > FPR_Z).mean())
        for base in cfg.bases:
            key = f"{base}_n{n}"
            z = _z_paths(det, cpu_texts[key], start, length)
            for t in cfg.t_values:
                values[f"tpr_{key}_t{t}"] = float((z[:, min(t, length) - 1] > FPR_Z).mean())
            hit = z > cfg.detect_z
            ttd = np.where(hit.any(1), hit.argmax(1) + 1, length + 1)
            values[f"ttd_median_{key}"] = float(np.median(ttd))
            values[f"green_rate_{key}"] = _green_rate(det, cpu_texts[key], start)
            values[f"nll_rel_diff_{key}"] = float(np.mean(nll[key] - nll["plain"]) / np.mean(nll["plain"]))
            curves[f"tpr_{key}"] = Curve(
                t_grid, [float((z[:, t - 1] > FPR_Z).mean()) for t in t_grid], "tokens T", "TPR at 1% FPR"
            )
            curves[f"z_{key}"] = Curve(
                t_grid, [float(z[:, t - 1].mean()) for t in t_grid], "tokens T", "mean z"
            )
        if n == 1:
            zk = _z_paths(det, cpu_texts["kgw"], start, length)
            values["tpr_kgw_full"] = float((zk[:, -1] > FPR_Z).mean())
    for n in cfg.attack_ns:
        key = f"{cfg.bases[0]}_n{n}"
        values[f"tpr_{key}_clean"] = float(
            (_z_paths(dets[n], cpu_texts[key], start, length)[:, -1] > FPR_Z).mean()
        )
        for eps in cfg.attack_eps:
            for attack in cfg.attacks:
                s = 100 * seed + int(round(100 * eps))
                if attack == "substitution":
                    ids = substitution_attack(cpu_texts[key], eps, vocab, start, seed=s)
                elif attack == "smoothing":
                    ids = smoothing_attack(attack_model, texts[key], eps, start, seed=s)
                else:
                    ids = paraphrase_attack(attack_model, texts[key], eps, start, seed=s)
                z = _z_paths(dets[n], ids.cpu(), start, length)[:, -1]
                values[f"tpr_{key}_{attack}_eps{eps:g}"] = float((z > FPR_Z).mean())
    base = cfg.bases[0]
    for attack in cfg.attacks:
        for eps in cfg.attack_eps:
            lo_n, hi_n = min(cfg.attack_ns), max(cfg.attack_ns)
            values[f"robust_gain_{attack}_eps{eps:g}"] = (
                values[f"tpr_{base}_n{hi_n}_{attack}_eps{eps:g}"]
                - values[f"tpr_{base}_n{lo_n}_{attack}_eps{eps:g}"]
            )
    n_hi = 3 if 3 in cfg.n_values else max(cfg.n_values)
    for t in (50, 100):
        tt = t if t in cfg.t_values else cfg.t_values[-1]
        values[f"tpr_gain_t{t}"] = values[f"tpr_{base}_n{n_hi}_t{tt}"] - values[f"tpr_{base}_n1_t{tt}"]
    values["ttd_reduction"] = 1.0 - values[f"ttd_median_{base}_n{n_hi}"] / values[f"ttd_median_{base}_n1"]
    values["nll_rel_diff_n3"] = values[f"nll_rel_diff_{base}_n{n_hi}"]
    values["exact_unbiased_err"] = exact_unbiasedness_error(2, cfg.alpha, base)
    artifacts = {
        "n_values": list(cfg.n_values),
        "bases": list(cfg.bases),
        "attack_ns": list(cfg.attack_ns),
        "attack_eps": list(cfg.attack_eps),
        "attacks": list(cfg.attacks),
        "nll_plain": nll["plain"].tolist(),
        f"nll_{base}_n{n_hi}": nll[f"{base}_n{n_hi}"].tolist(),
        "n_hi": n_hi,
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_QUICK_LM = TinyLMConfig(
    d_model=64, n_layers=2, n_heads=2, seq_len=64, batch_size=16, steps=400, lr=1e-2, corpus_chars=400_000
)
_QUICK_ATTACK = TinyLMConfig(
    d_model=32,
    n_layers=2,
    n_heads=2,
    seq_len=64,
    batch_size=16,
    steps=150,
    lr=1e-2,
    corpus_chars=400_000,
    seed=1,
)

#: the tiny LM "learned" its corpus when its held-out loss is at least 10% below that of the best context-free
#: predictor of the same text (the held-out tokens' own frequencies)
LM_LEARNED_RATIO = 0.9
_LM_LEARNED = Precondition(
    "lm_nll_over_unigram",
    "<=",
    LM_LEARNED_RATIO,
    "the LM's held-out next-token loss is at least 10% below that of the best context-free predictor of the "
    "same text (its own token frequencies)",
)

EXPERIMENT = Experiment(
    slug="ens-watermark",
    configs={
        "smoke": ENSConfig(n_prompts=10, new_tokens=40, prompt_len=4, batch_size=10, attack_eps=(0.2,)),
        "quick": ENSConfig(lm=_QUICK_LM, attack_lm=_QUICK_ATTACK),
        "full": ENSConfig(
            lm=TinyLMConfig(),
            attack_lm=_QUICK_ATTACK,
            eval_lm=TinyLMConfig(seed=1),
            n_prompts=300,
            new_tokens=200,
            batch_size=100,
            n_values=(1, 2, 3, 4),
            bases=("dipmark", "gamma"),
            t_values=(25, 50, 100, 200),
            attack_eps=(0.1, 0.2, 0.3),
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    devices=("cpu", "cuda"),
    claims=[
        Claim(
            id="ens-fewer-tokens-same-quality",
            statement=(
                "with DiPmark as the base, ENS with 3 independent keys raises TPR at 1% FPR on the first 50 "
                "generated tokens by >= 10 points over single-key DiPmark and cuts the median tokens needed for "
                "z > 4 by >= 25%, while the mean per-token NLL of its samples stays within 1% of unwatermarked "
                "sampling (interval containing 0) and the V = 4 enumeration of ENS_2 returns P to 1e-12"
            ),
            paper_value="ENS needs far fewer tokens for detection and is more robust to smoothing/paraphrasing "
            "(Llama/Mistral-scale; result tables not retrieved), with unchanged quality in expectation",
            decide=ens_decider(),
            scale_gap="0.23M-parameter tiny Llama (2k BPE vocabulary) instead of 7-8B LLMs; self-scored NLL",
            preconditions=(_LM_LEARNED,),
        ),
        Claim(
            id="ens-tokens-to-detect",
            statement="ENS with 3 keys needs at least 25% fewer generated tokens (median, z > 4) than single-key "
            "DiPmark to detect a text",
            paper_value="far fewer tokens for reliable detection (detection SNR grows roughly like sqrt(n))",
            decide=ttd_decider(),
            scale_gap="tiny LM with high per-token entropy (strong per-token signal)",
            preconditions=(_LM_LEARNED,),
        ),
        Claim(
            id="ens-quality-unchanged",
            statement="the per-token NLL of ENS_3 samples stays within 1% of unwatermarked samples (paired by "
            "prompt, interval containing 0) and the exact V = 4 enumeration of ENS_2 returns P to 1e-12",
            paper_value="unbiased: generation quality unchanged in expectation (Theorem)",
            decide=quality_decider(),
            scale_gap="NLL scored by the generating model itself at quick budget",
            preconditions=(_LM_LEARNED,),
        ),
        Claim(
            id="ens-robust-substitution",
            statement="after random substitution of 20% of tokens, ENS_3 keeps a higher TPR at 1% FPR on 100-token "
            "texts than single-key DiPmark (mean gain > 0)",
            paper_value="(secondary) improved robustness to token-level attacks",
            decide=difference_at_least(
                "tpr_dipmark_n3_substitution_eps0.2", "tpr_dipmark_n1_substitution_eps0.2", margin=0.0
            ),
            scale_gap="token substitution by uniform random tokens; no real paraphraser",
            preconditions=(_LM_LEARNED,),
        ),
    ],
    figures=[tpr_vs_tokens, z_growth, robustness_curves, nll_histogram, green_rate_vs_n],
    scale_gap=(
        "A 0.23M-parameter tiny Llama (2k BPE tokens, trained in about a minute on CPU) replaces Llama-3-8B / "
        "Mistral-7B; span regeneration by a smaller tiny LM stands in for LLM paraphrasing; NLL is scored by the "
        "generating model; 150 prompts x 100 tokens and 3 secret sets per budget."
    ),
)
