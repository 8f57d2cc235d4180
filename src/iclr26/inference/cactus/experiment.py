"""Reproduction of "Cactus: Constrained Acceptance Speculative Sampling" (arXiv 2604.04987, ICLR 2026).

Part 1 (exact, no sampling): real next-token pairs (drafter p, target q) read off the lab's tiny draft/target pair
of character-level Llamas (:func:`iclr26.lab.tinylm.pairs.draft_target_pair`, trained on worded multi-step
arithmetic), plus Dirichlet-mixture pairs over V = 50. For a
sweep of budgets delta and the baselines (TAS, top-k, interpolation) the acceptance probability and the emitted
law r of one drafted position are computed by enumeration, giving KL(r || q) and TV(r, q) exactly. Claim (b)
tunes Cactus's delta on half of the real pairs to TAS's acceptance and compares KL(r || q) on the other half.

Part 2 (end-to-end): SpS, Cactus (delta = 1) and TAS decode held-out problems ("Q: 12+7-5=? A:", worked steps,
"Answer: N") with the lab's KV-cached loop at temperature 1 up to the end of the line; acceptance length tau and
answer accuracy (pass@1) per method. The pair, the prompts, the decoding loop over methods and the grading are
the family template :mod:`iclr26.lab.speculative_bench`; this module holds Cactus's sweeps and metrics.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.inference.cactus.claim_check import divergence_check, frontier_decider
from iclr26.inference.cactus.components import DECODED
from iclr26.inference.cactus.figures import frontier, h_shift, tau_accuracy
from iclr26.inference.cactus.generate import TableLM, speculative_generate
from iclr26.inference.cactus.verifiers import (
    BaseVerifier,
    CactusVerifier,
    InterpVerifier,
    SpSVerifier,
    TopKVerifier,
    TypicalVerifier,
    binary_kl,
    cactus_h,
    one_step_law,
)
from iclr26.lab import sampling
from iclr26.lab.registry import components
from iclr26.lab.sampling import standard_gamma
from iclr26.lab.speculative_bench import Prompt, decode_prompts, heldout_prompts, line_end, load_pair

__all__ = ["CactusConfig", "EXPERIMENT", "run", "sweep_verifiers"]


@dataclass(frozen=True)
class CactusConfig:
    """One budget of the Cactus reproduction."""

    models: str = (
        "tiny"  # "tiny" (the lab's trained char Llama pair) or "table" (random bigram tables, for smoke)
    )
    pair: str = "quick"  # budget of iclr26.lab.tinylm.pairs.draft_target_pair
    n_real_pairs: int = 2000
    n_dirichlet_pairs: int = 2000
    dirichlet_vocab: int = 50
    deltas: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
    small_delta: float = 1e-4
    cactus_delta: float = 1.0
    topks: tuple[int, ...] = (1, 2, 3, 5, 10)
    interp_alphas: tuple[float, ...] = (0.1, 0.3, 0.5, 0.7, 0.9)
    n_prompts: int = 24
    new_tokens: int = 56
    gamma: int = 5
    tas_loose: tuple[float, float] = (0.01, 0.05)  # a permissive TAS point (eps, alpha), reported only


def _kl(r: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    return torch.where(r > 0, r * (r.clamp_min(1e-300).log() - q.clamp_min(1e-300).log()), 0.0).sum(-1)


def _exact(p: torch.Tensor, q: torch.Tensor, ver: BaseVerifier, chunk: int = 256) -> dict[str, float]:
    """Mean acceptance, KL(r||q) and TV(r, q) over pairs by exact enumeration (chunked)."""
    acc, kl, tv = [], [], []
    for i in range(0, q.shape[0], chunk):
        pc, qc = p[i : i + chunk], q[i : i + chunk]
        a, r = one_step_law(pc, qc, ver)
        acc.append(a)
        kl.append(_kl(r, qc))
        tv.append(0.5 * (r - qc).abs().sum(-1))
    return {k: float(torch.cat(v).mean()) for k, v in (("acc", acc), ("kl", kl), ("tv", tv))}


def sweep_verifiers(p: torch.Tensor, q: torch.Tensor, cfg: CactusConfig) -> dict[str, dict[str, float]]:
    """Exact acceptance / KL / TV of every verifier setting on the pairs ``(p, q)`` (rows)."""
    out = {"sps": _exact(p, q, SpSVerifier()), "tas": _exact(p, q, TypicalVerifier())}
    out["tasloose"] = _exact(p, q, TypicalVerifier(*cfg.tas_loose))
    for d in (cfg.small_delta, *cfg.deltas):
        out[f"cactus_{d:g}"] = _exact(p, q, CactusVerifier(d))
        out[f"cactusexact_{d:g}"] = _exact(p, q, CactusVerifier(d, "exact"))
    for k in cfg.topks:
        out[f"topk_{k}"] = _exact(p, q, TopKVerifier(k))
    for a in cfg.interp_alphas:
        out[f"interp_{a:g}"] = _exact(p, q, InterpVerifier(a))
    return out


def _budget_stats(
    p: torch.Tensor, q: torch.Tensor, deltas: tuple[float, ...]
) -> tuple[float, dict[str, float]]:
    """Max exact-solver binary KL excess over (pair, n, delta); p-averaged Taylor KL(h||q)/delta per delta."""
    v = q.shape[-1]
    n = torch.arange(v, device=q.device).expand(q.shape[0], v)
    qq = q.unsqueeze(-2).expand(q.shape[0], v, v)
    qn = q
    excess, ratio = -math.inf, {}
    for d in deltas:
        hn = cactus_h(qq, n, d, "exact").diagonal(dim1=-2, dim2=-1)
        excess = max(excess, float((binary_kl(hn, qn) - d).max()))
        ht = cactus_h(qq, n, d, "taylor").diagonal(dim1=-2, dim2=-1)
        ratio[f"{d:g}"] = float((p * binary_kl(ht, qn)).sum(-1).mean() / d)
    return excess, ratio


def _match_delta(p: torch.Tensor, q: torch.Tensor, target_acc: float) -> float:
    """Bisect log(delta) so that Cactus's mean exact acceptance on (p, q) equals `target_acc`."""
    lo, hi = math.log(1e-8), math.log(1e3)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if _exact(p, q, CactusVerifier(math.exp(mid)))["acc"] < target_acc:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


def _models(cfg: CactusConfig, seed: int, device: torch.device | str = "cpu"):
    """(target, drafter, the DraftTargetPair or None for the table models), built or loaded on the CPU and moved
    to `device`."""
    if cfg.models == "table":
        g = torch.Generator().manual_seed(1234)
        v = 16
        t = standard_gamma(torch.full((v, v), 0.3, dtype=torch.float64), generator=g)
        t = t / t.sum(-1, keepdim=True)
        noise = standard_gamma(torch.full((v, v), 0.3, dtype=torch.float64), generator=g)
        d = 0.6 * t + 0.4 * noise / noise.sum(-1, keepdim=True)
        return TableLM(t).to(device), TableLM(d).to(device), None
    return load_pair(cfg.pair, device)


@torch.no_grad()
def _real_pairs(
    target, drafter, pair, n_pairs: int, rng: np.random.Generator
) -> tuple[torch.Tensor, torch.Tensor, float]:
    """Next-token (p, q) pairs at random positions of held-out worded-arithmetic lines, and the target's
    held-out loss over the loss of the text's own character frequencies (NaN for the table models). The pairs are
    on the models' device."""
    if pair is None:
        v = target.log_table.shape[0]
        ids = torch.as_tensor(rng.integers(0, v, size=n_pairs)).to(target.log_table.device)
        return drafter.log_table[ids].exp(), target.log_table[ids].exp(), float("nan")
    wording = random.Random(int(rng.integers(2**32)))
    problems = pair.heldout(n_pairs // 40 + 20, seed=int(rng.integers(1, 2**31)))
    text = "\n".join(p.text(wording) for p in problems)
    ids = torch.tensor([pair.tokenizer(text).input_ids])
    win = 48
    starts = rng.integers(0, ids.shape[1] - win, size=max(1, n_pairs // win + 1))
    batch = torch.stack([ids[0, s : s + win] for s in starts]).to(target.device)
    logits = target(batch).logits.double()
    q = torch.softmax(logits, -1).reshape(-1, target.config.vocab_size)
    p = torch.softmax(drafter(batch).logits.double(), -1).reshape(-1, target.config.vocab_size)
    q, p = q / q.sum(-1, keepdim=True), p / p.sum(-1, keepdim=True)
    # did the target learn? its next-character loss against the best context-free predictor of the same text
    nll = float(-torch.log_softmax(logits[:, :-1], -1).gather(-1, batch[:, 1:, None]).mean())
    freq = torch.bincount(batch[:, 1:].flatten(), minlength=target.config.vocab_size).double()
    freq = freq[freq > 0] / freq.sum()
    unigram = float(-(freq * freq.log()).sum())
    return p[:n_pairs], q[:n_pairs], nll / unigram


def _dirichlet_pairs(n: int, v: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Peaky LM-like q ~ Dir(0.1) and a correlated drafter p = 0.6 q + 0.4 Dir(0.1)."""

    def dirichlet() -> torch.Tensor:
        return sampling.dirichlet(torch.full((n, v), 0.1, dtype=torch.float64), generator=gen, eps=1e-12)

    q = dirichlet()
    return 0.6 * q + 0.4 * dirichlet(), q


def _prompts(pair, cfg: CactusConfig, seed: int, device: torch.device | str) -> Sequence[Prompt]:
    """Held-out problems of the pair, or random 3-token ungraded prompts for the table models."""
    if pair is None:
        rng = np.random.default_rng(10_000 + seed)
        return [
            Prompt(torch.tensor([rng.integers(0, 16, size=3).tolist()], device=device))
            for _ in range(cfg.n_prompts)
        ]
    return heldout_prompts(pair, cfg.n_prompts, seed=10_000 + seed, device=device)


def _decode(
    target, drafter, pair, cfg: CactusConfig, seed: int, device: torch.device | str = "cpu"
) -> dict[str, float]:
    """tau and pass@1 accuracy of SpS, Cactus and TAS (the registry's :data:`~.components.DECODED` roster, Cactus
    at ``cfg.cactus_delta``) on the same prompts (the models' forwards on `device`; the lab loop verifies and
    samples on the CPU)."""
    eos = None if pair is None else line_end(pair)
    roster = {c.name: c.case for c in components("verifier", paper="cactus")}
    overrides = {"cactus": {"delta": cfg.cactus_delta}}
    verifiers = {name: roster[name](**overrides.get(name, {})).verifier for name in DECODED}
    kw = dict(gamma=cfg.gamma, max_new_tokens=cfg.new_tokens, eos_token_id=eos)
    methods = {
        name: (lambda p, s, ver=ver: speculative_generate(target, drafter, p.ids, ver, seed=s, **kw))
        for name, ver in verifiers.items()
    }
    seeds = np.random.default_rng(20_000 + seed).integers(1, 2**62, size=cfg.n_prompts).tolist()
    prompts = _prompts(pair, cfg, seed, device)
    tallies = decode_prompts(
        prompts, methods, pair=pair, seeds=seeds, description=f"cactus decode seed {seed}"
    )
    return {f"{k}_{name}": v for name, t in tallies.items() for k, v in (("tau", t.tau), ("acc", t.accuracy))}


def run(cfg: CactusConfig, seed: int, device: str) -> Metrics:
    """Exact per-position sweeps on real and Dirichlet pairs, the TAS-matched comparison, and decoding.

    The models, the pairs and every exact sweep run on ``device``; the speculative loop's acceptance draws and the
    random draws stay on the CPU (see the README's Choices).
    """
    dev = torch.device(device)
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"deltas": list(cfg.deltas)}
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    target, drafter, pair = _models(cfg, seed, dev)
    p_real, q_real, values["target_nll_over_unigram"] = _real_pairs(
        target, drafter, pair, cfg.n_real_pairs, rng
    )
    p_dir, q_dir = (x.to(dev) for x in _dirichlet_pairs(cfg.n_dirichlet_pairs, cfg.dirichlet_vocab, gen))
    sweeps = {}
    for name, (p, q) in track(
        [("real", (p_real, q_real)), ("dirichlet", (p_dir, q_dir))],
        description=f"cactus sweep seed {seed}",
    ):
        sweep = sweep_verifiers(p, q, cfg)
        sweeps[name] = sweep
        for key, m in sweep.items():
            for stat, val in m.items():
                values[f"{name}_{key}_{stat}"] = val
    # (a) what the constraint controls, on the real pairs
    excess, ratio = _budget_stats(p_real, q_real, (cfg.small_delta, *cfg.deltas))
    values["a_exact_kl_excess"] = excess
    for d, v in ratio.items():
        values[f"a_taylor_kl_over_delta_{d}"] = v
    klr = [sweeps["real"][f"cactus_{d:g}"]["kl"] for d in sorted((cfg.small_delta, *cfg.deltas))]
    values["a_klr_monotone"] = float(all(b >= a - 1e-12 for a, b in zip(klr, klr[1:])))
    values["a_klr_small_delta"] = sweeps["real"][f"cactus_{cfg.small_delta:g}"]["kl"]
    # (b) Cactus at TAS's acceptance, delta tuned on a held-out half of the real pairs
    perm = torch.as_tensor(rng.permutation(p_real.shape[0])).to(dev)
    tune, ev = perm[: len(perm) // 2], perm[len(perm) // 2 :]
    tas_tune = _exact(p_real[tune], q_real[tune], TypicalVerifier())["acc"]
    d_star = _match_delta(p_real[tune], q_real[tune], tas_tune)
    tas_ev = _exact(p_real[ev], q_real[ev], TypicalVerifier())
    cac_ev = _exact(p_real[ev], q_real[ev], CactusVerifier(d_star))
    values |= {
        "b_delta_matched": d_star,
        "b_tas_acc": tas_ev["acc"],
        "b_cactus_acc": cac_ev["acc"],
        "b_tas_kl": tas_ev["kl"],
        "b_cactus_kl": cac_ev["kl"],
        "b_kl_diff": cac_ev["kl"] - tas_ev["kl"],
        "b_acc_ratio": cac_ev["acc"] / max(tas_ev["acc"], 1e-12),
    }
    # the judged comparison: a permissive TAS that accepts more than SpS (at the default point above TAS
    # accepts no more than SpS, the matched delta is ~0 and Cactus is the lossless sampler: reported only)
    loose = TypicalVerifier(*cfg.tas_loose)
    d_loose = _match_delta(p_real[tune], q_real[tune], _exact(p_real[tune], q_real[tune], loose)["acc"])
    tl_ev = _exact(p_real[ev], q_real[ev], loose)
    cl_ev = _exact(p_real[ev], q_real[ev], CactusVerifier(d_loose))
    values |= {
        "b2_delta_matched": d_loose,
        "b2_tasloose_acc": tl_ev["acc"],
        "b2_cactus_acc": cl_ev["acc"],
        "b2_tasloose_kl": tl_ev["kl"],
        "b2_cactus_kl": cl_ev["kl"],
        "b2_kl_diff": cl_ev["kl"] - tl_ev["kl"],
        "b2_acc_ratio": cl_ev["acc"] / max(tl_ev["acc"], 1e-12),
    }
    # (c) end to end
    dec = _decode(target, drafter, pair, cfg, seed, dev)
    values |= dec
    values["c_tau_gain"] = dec["tau_cactus"] - dec["tau_sps"]
    values["c_acc_drop"] = dec["acc_sps"] - dec["acc_cactus"]
    # distribution of h_n - q_n vs q_n at the Cactus default delta
    # a figure's 300 rows, on the CPU: the drafted tokens come from the CPU generator `gen`
    idx = torch.as_tensor(rng.integers(0, p_real.shape[0], size=min(300, p_real.shape[0])))
    p_fig, q_fig = p_real.cpu()[idx], q_real.cpu()[idx]
    n = torch.multinomial(p_fig, 1, generator=gen)[:, 0]
    qn = q_fig.gather(-1, n[:, None])[:, 0]
    hn = cactus_h(q_fig, n, cfg.cactus_delta).gather(-1, n[:, None])[:, 0]
    artifacts["h_shift"] = {"qn": qn.tolist(), "dh": (hn - qn).tolist(), "delta": cfg.cactus_delta}
    artifacts["sweeps"] = sweeps
    ds = [d for d in cfg.deltas]
    curves["real_cactus_kl_vs_delta"] = Curve(
        ds, [sweeps["real"][f"cactus_{d:g}"]["kl"] for d in ds], "delta", "KL(r||q)"
    )
    curves["real_cactus_acc_vs_delta"] = Curve(
        ds, [sweeps["real"][f"cactus_{d:g}"]["acc"] for d in ds], "delta", "acceptance"
    )
    return Metrics(values=values, curves=curves, artifacts=artifacts)


EXPERIMENT = Experiment(
    slug="cactus",
    configs={
        "smoke": CactusConfig(
            models="table",
            n_real_pairs=100,
            n_dirichlet_pairs=100,
            dirichlet_vocab=20,
            n_prompts=3,
            new_tokens=8,
            deltas=(0.05, 0.25, 1.0),
            topks=(1, 5),
            interp_alphas=(0.5,),
        ),
        "quick": CactusConfig(),
        "full": CactusConfig(
            pair="full",
            n_real_pairs=10_000,
            n_dirichlet_pairs=10_000,
            n_prompts=200,
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    devices=("cpu", "cuda"),
    claims=[
        Claim(
            id="cactus-frontier-beats-tas",
            statement=(
                "(b) at the acceptance rate of a permissive TAS (eps = 0.01, alpha = 0.05, which accepts more "
                "than SpS), Cactus with delta tuned on held-out pairs emits a law closer to the target's (lower "
                "exact KL(r||q)) in every seed; (c) end to end, Cactus (delta = 1) raises the acceptance length "
                "over SpS without losing > 2 points of accuracy"
            ),
            paper_value="higher acceptance length and throughput than SpS at near-unchanged accuracy (up to ~1.9x "
            "speedup, Qwen3/Llama-3/Gemma pairs in vLLM); TAS distorts q without guarantee",
            decide=frontier_decider,
            scale_gap="character-level 4-layer/1-layer Llamas on worded synthetic arithmetic; 3 seeds",
            preconditions=(
                Precondition(
                    "b2_acc_ratio",
                    ">=",
                    0.99,
                    "Cactus's held-out acceptance at the tuned delta is within 1% of the permissive TAS's or "
                    "above it (the brief's matching tolerance), so the KL comparison is at matched acceptance",
                ),
                Precondition(
                    "target_nll_over_unigram",
                    "<=",
                    0.9,
                    "the target's held-out next-character loss is at least 10% below that of the best "
                    "context-free predictor of the same text (its own character frequencies)",
                ),
            ),
        ),
        Claim(
            id="cactus-controlled-divergence",
            statement=(
                "(a) the exact solver never exceeds KL(h||q) <= delta and the emitted KL(r||q) grows with delta "
                "and vanishes as delta -> 0, in every seed"
            ),
            paper_value="Cactus provably controls the divergence from the verifier distribution",
            decide=divergence_check(),
            scale_gap="exact enumeration on real next-token pairs of the tiny models",
            kind="check",
        ),
    ],
    figures=[frontier, tau_accuracy, h_shift],
    scale_gap=(
        "Tiny in-project character-level Llamas (target 12x64, drafter 1x32) on the lab's arithmetic corpus and "
        "Dirichlet-mixture pairs replace Qwen3/Llama-3/Gemma pairs on GSM8K etc. in vLLM; no throughput claim."
    ),
)
