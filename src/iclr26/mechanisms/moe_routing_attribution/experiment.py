"""Reproduction of "Routing-Contribution: Understanding Cross-Layer Contributions to MoE Routing in LLMs".

ICLR 2026, OpenReview BqyPLOkxFY. Per harness seed (one independent replication) a tiny MoE LM (shared hookable
transformer, top-2 of 8 experts, Switch balance loss 0.01) is trained on the standard library's docstrings under a
byte-level BPE, then one hooked forward over held-out sequences feeds the decomposition of every MoE layer's router
scores into token / position embedding, attention-output and per-expert MoE-output sub-scores. Metrics:

- influence (variance across experts) of earlier MoE vs earlier attention outputs at receivers l >= 3 (1-based);
- AARV of zeroing the highest-influence expert of a sender MoE layer (picked on the first half of the sequences)
  vs its other experts, at receivers >= 3 layers above the sender (second half);
- Spearman agreement of variance influence with AARV and of the linear attribution with the dense ablation
  estimate (remove the component, recompute the norm); APS / ANS against layer distance; co-firing vs a
  shuffled-token null (secondary).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats as sps
import torch

from iclr26.harness.claims import Claim
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.mechanisms.moe_routing_attribution.attribution import (
    ablation_contributions,
    cofiring,
    decompose,
    influence,
    rank_change,
    trace_routing,
)
from iclr26.mechanisms.moe_routing_attribution.claim_check import LEARNED, routing_contribution_decider
from iclr26.mechanisms.moe_routing_attribution.figures import (
    aarv_bars,
    distance_profile,
    influence_heatmaps,
    stripes,
)
from iclr26.mechanisms.moe_routing_attribution.model import TinyMoEConfig, corpus_tokens, train_tiny_moe

__all__ = ["EXPERIMENT", "RoutingAttributionConfig", "run"]


@dataclass(frozen=True)
class RoutingAttributionConfig:
    """One budget: the tiny MoE LM's size and training, and the analysis."""

    n_layers: int = 6
    d_model: int = 96
    n_heads: int = 4
    n_experts: int = 8
    k: int = 2
    d_hidden: int = 96
    balance_coef: float = 0.01
    seq_len: int = 64
    vocab_size: int = 512
    corpus_chars: int = 400_000
    steps: int = 800
    batch: int = 16
    lr: float = 3e-3
    n_analysis_seqs: int = 96
    min_receiver: int = 2  # 0-based index, i.e. layer 3 counted from 1
    min_distance: int = 3
    n_boot: int = 500
    cache: bool = True

    def model_config(self) -> TinyMoEConfig:
        """The :class:`TinyMoEConfig` part."""
        names = TinyMoEConfig.__dataclass_fields__
        return TinyMoEConfig(**{n: getattr(self, n) for n in names})


def _boot_se(per_token: torch.Tensor, n_seqs: int, n_boot: int, rng: np.random.Generator) -> float:
    """Bootstrap standard error of the mean over whole sequences (tokens of a sequence are correlated)."""
    per_seq = per_token.reshape(n_seqs, -1).mean(-1).cpu().numpy()
    idx = rng.integers(0, n_seqs, size=(n_boot, n_seqs))
    return float(per_seq[idx].mean(-1).std(ddof=1))


def _spearman(x: list[float], y: list[float]) -> float:
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(sps.spearmanr(x, y).statistic)


def run(cfg: RoutingAttributionConfig, seed: int, device: str = "cpu") -> Metrics:
    """One replication: train (or load) the tiny MoE LM for `seed`, decompose its routing, measure the claim."""
    torch.manual_seed(seed)
    mcfg = cfg.model_config()
    model, info = train_tiny_moe(mcfg, seed, cache=cfg.cache, device=device)
    test = corpus_tokens(mcfg)["test"]
    n_seq = min(cfg.n_analysis_seqs, test.numel() // cfg.seq_len)
    n_seq -= n_seq % 2
    if n_seq < 2:
        raise ValueError("the held-out split is too short for two analysis sequences")
    tokens = test[: n_seq * cfg.seq_len].reshape(n_seq, cfg.seq_len).to(device)
    trace = trace_routing(model, tokens, experts=True)
    n_layers, n_exp, k = cfg.n_layers, cfg.n_experts, cfg.k
    rng = np.random.default_rng(seed)
    half = n_seq // 2 * cfg.seq_len  # first half selects experts, second half evaluates

    subs, scores = [], []
    for layer in track(range(n_layers), description="decompose"):
        s = decompose(model, tokens, layer, experts=True, trace=trace)
        for j in range(layer):
            s[f"moe{j}"] = sum(s[f"moe{j}.e{e}"] for e in range(n_exp))
        subs.append(s)
        scores.append(sum(v for name, v in s.items() if "." in name or not name.startswith("moe")))
    var = [{name: influence(v)["var"] for name, v in s.items() if name != "bias"} for s in subs]

    # (a) earlier MoE vs earlier attention influence at receivers >= min_receiver
    receivers = list(range(cfg.min_receiver, n_layers))
    diff = torch.stack(
        [sum(var[l][f"moe{j}"] - var[l][f"attn{j}"] for j in range(l)) for l in receivers]
    ).mean(0)
    values: dict[str, float] = {
        "test_loss": info["test_loss"],
        "unigram_loss": info["unigram_loss"],
        "loss_below_unigram": info["unigram_loss"] - info["test_loss"],
        "bigram_loss": info["bigram_loss"],
        "loss_below_bigram": info["bigram_loss"] - info["test_loss"],
        "influence_diff": float(diff.mean()),
        "influence_diff_se": _boot_se(diff, n_seq, cfg.n_boot, rng),
    }
    for kind in ("moe", "attn"):
        values[f"{kind}_influence"] = float(
            np.mean([float(sum(var[l][f"{kind}{j}"] for j in range(l)).mean()) for l in receivers])
        )

    # (b) long-range causal influence: top expert vs the other experts of the sender layer
    pairs = [(j, l) for j in range(n_layers) for l in range(j + cfg.min_distance, n_layers)]
    top_aarv, rand_aarv, art_top = [], [], {}
    for j in sorted({j for j, _ in pairs}):
        rec = [l for jj, l in pairs if jj == j]
        sel = [np.mean([float(var[l][f"moe{j}.e{e}"][:half].mean()) for l in rec]) for e in range(n_exp)]
        top = int(np.argmax(sel))
        art_top[str(j)] = top
        for l in rec:
            sc = scores[l][half:]
            top_aarv.append(rank_change(sc, subs[l][f"moe{j}.e{top}"][half:], k))
            others = [rank_change(sc, subs[l][f"moe{j}.e{e}"][half:], k) for e in range(n_exp) if e != top]
            rand_aarv.append(torch.stack(others).mean(0))
    if pairs:
        t_a, r_a = torch.stack(top_aarv).mean(0), torch.stack(rand_aarv).mean(0)
        d_a = t_a - r_a
        values |= {
            "aarv_top": float(t_a.mean()),
            "aarv_random": float(r_a.mean()),
            "aarv_diff": float(d_a.mean()),
            "aarv_diff_se": _boot_se(d_a, n_seq - n_seq // 2, cfg.n_boot, rng),
        }
    else:
        values |= {key: float("nan") for key in ("aarv_top", "aarv_random", "aarv_diff", "aarv_diff_se")}

    # reliability: variance influence vs AARV, linear attribution vs dense ablation (layer-level components)
    v_lin, v_aarv, v_dense = [], [], []
    for layer in range(n_layers):
        dense = ablation_contributions(model, trace, layer)
        for name, d in dense.items():
            v_lin.append(float(var[layer][name].mean()))
            v_aarv.append(float(rank_change(scores[layer], subs[layer][name], k).mean()))
            v_dense.append(float(influence(d)["var"].mean()))
    values["spearman_var_aarv"] = _spearman(v_lin, v_aarv)
    values["spearman_linear_dense"] = _spearman(v_lin, v_dense)

    # promoting / inhibiting scores of MoE senders against layer distance
    dist = list(range(1, n_layers))
    aps = [
        np.mean([float(influence(subs[j + d][f"moe{j}"])["aps"].mean()) for j in range(n_layers - d)])
        for d in dist
    ]
    ans = [
        np.mean([float(influence(subs[j + d][f"moe{j}"])["ans"].mean()) for j in range(n_layers - d)])
        for d in dist
    ]

    # co-firing against a shuffled-token null (secondary)
    excess = [
        (lambda c: c["mean_abs"] - c["null_mean_abs"])(cofiring(trace.firing[j], trace.firing[l], 5, seed))
        for j, l in pairs
    ]
    values["cofiring_excess"] = float(np.mean(excess)) if excess else float("nan")

    senders = ["embed", "pos"] + [f"{kind}{j}" for j in range(n_layers) for kind in ("attn", "moe")][:-1]
    mat = [[float(var[l][s].mean()) if s in var[l] else None for l in range(n_layers)] for s in senders]
    experts_mat = {
        f"moe{j}": [
            [float(var[l][f"moe{j}.e{e}"].mean()) if l > j else None for l in range(n_layers)]
            for e in range(n_exp)
        ]
        for j in range(n_layers - 1)
    }
    curves = {
        "aps_vs_distance": Curve(dist, aps, "layer distance (receiver - sender MoE)", "APS"),
        "ans_vs_distance": Curve(dist, ans, "layer distance (receiver - sender MoE)", "ANS"),
    }
    artifacts = {
        "senders": senders,
        "influence": mat,
        "expert_influence": experts_mat,
        "top_experts": art_top,
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_SMOKE = RoutingAttributionConfig(
    n_layers=4,
    d_model=32,
    n_heads=2,
    n_experts=4,
    d_hidden=32,
    vocab_size=300,
    corpus_chars=60_000,
    seq_len=32,
    steps=20,
    batch=8,
    n_analysis_seqs=8,
    n_boot=100,
    min_distance=2,
    min_receiver=1,
)

EXPERIMENT = Experiment(
    slug="moe-routing-attribution",
    configs={
        "smoke": _SMOKE,
        "quick": RoutingAttributionConfig(),
        "full": RoutingAttributionConfig(steps=1500, batch=32, corpus_chars=2_000_000, n_analysis_seqs=320),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="moe-outputs-drive-later-routing",
            statement=(
                "averaged over receiver MoE layers 3 and above, earlier MoE outputs have a larger summed "
                "variance-across-experts influence on routing than earlier attention outputs, and zeroing the "
                "highest-influence expert of a sender MoE layer changes the top-2 ranking of layers >= 3 above "
                "it more than zeroing its other experts"
            ),
            paper_value="qualitative: MoE > attention influence except at the lowest/highest layers; OLMoE "
            "layer-1 expert 9 changes top-K rankings at layers 5/10/15 while other layer-1 experts barely do",
            decide=routing_contribution_decider(),
            preconditions=(LEARNED,),
            scale_gap="6-layer d=96 MoE LM trained briefly on stdlib docstrings instead of OLMoE/DeepSeek/Qwen3/"
            "Mixtral on C4",
        )
    ],
    figures=[influence_heatmaps, distance_profile, stripes, aarv_bars],
    devices=("cpu", "cuda"),
    scale_gap=(
        "A 6-layer, d = 96, 8-expert top-2 MoE LM trained for about 0.8M tokens on the standard library's "
        "docstrings replaces the four pretrained MoE LLMs and C4; the decomposition itself is exact and "
        "model-agnostic for pre-norm blocks with linear routers."
    ),
)
