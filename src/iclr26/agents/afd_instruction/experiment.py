"""Reproduction of "AFD-Instruction" (ICLR 2026, arXiv 2602.04916) in a synthetic antibody world, offline.

One harness seed: a fresh :class:`~iclr26.agents.afd_instruction.synth.AntibodyWorld` (templates and
antibodies), an antibody-disjoint train/test split, about 7 instructions per training antibody (4
classification tasks + a templated description: understanding 71%; 2 design phrasings: 29%). The
"general-purpose LM" is a character-level tiny GPT (:class:`iclr26.lab.tinygpt.TinyGPT`) pretrained on Python
standard-library docstrings once per budget (cached); per seed it is instruction-tuned (answer-only loss,
``plain`` template) and compared with: the same untuned LM with 2-shot prompts of the task (label ranking by
log-likelihood, the same rule as the tuned model), k-mer (k = 3) logistic regression, nearest-neighbour
retrieval, the training majority class; for design (light chain + function text -> CDR-H3, greedy), with the
nearest-neighbour copy of a same-function training antibody's CDR-H3. Claim rule: ``claim_check.py``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

import numpy as np
import torch

from iclr26.agents.afd_instruction.baselines import (
    KmerLogisticRegression,
    few_shot_prompt,
    kmer_features,
    nearest_neighbours,
    nn_copy_design,
)
from iclr26.agents.afd_instruction.claim_check import tuning_helps
from iclr26.agents.afd_instruction.figures import design_bars, task_accuracy_bars
from iclr26.agents.afd_instruction.finetune import greedy_generate, instruction_tune, rank_labels
from iclr26.agents.afd_instruction.metrics import exact_match, srr_summary
from iclr26.agents.afd_instruction.synth import LABELS, TASKS, AntibodyWorld, design_satisfies
from iclr26.agents.afd_instruction.templates import (
    chat_parts,
    describe_answer,
    design_record,
    instructions_for,
    understanding_record,
)
from iclr26.agents.afd_instruction.tokenizer import CharTokenizer
from iclr26.checks import check_float, check_int
from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import task
from iclr26.lab.cache import cached_torch
from iclr26.lab.corpora import get_corpus, split_text
from iclr26.lab.tinygpt import CharData, TinyGPT, TinyGPTConfig, TrainConfig, train

__all__ = ["EXPERIMENT", "AFDConfig", "general_lm", "run"]

SALT = 2602_04916


@dataclass(frozen=True)
class AFDConfig:
    """One budget of the AFD-Instruction reproduction."""

    n_antibodies: int = 1500
    test_frac: float = 0.2
    n_layers: int = 2
    d_model: int = 64
    n_heads: int = 4
    seq_len: int = 352
    pre_chars: int = 300_000
    pre_steps: int = 150
    pre_batch: int = 16
    pre_lr: float = 3e-3
    steps: int = 1000
    batch: int = 32
    lr: float = 3e-3
    shots: int = 2
    n_eval: int = 200
    n_design: int = 200
    n_boot: int = 1000

    def __post_init__(self) -> None:
        for k, v in asdict(self).items():
            if isinstance(v, int):  # every int field is a count or a size
                check_int(k, v, low=1)
        check_float("test_frac", self.test_frac, 0.0, 1.0, low_open=True, high_open=True)


def _model(cfg: AFDConfig, vocab: int) -> TinyGPT:
    shape = TinyGPTConfig(
        n_layers=cfg.n_layers, d_model=cfg.d_model, n_heads=cfg.n_heads, seq_len=cfg.seq_len
    )
    return TinyGPT(shape, vocab, init_seed=0)


def general_lm(cfg: AFDConfig) -> TinyGPT:
    """The untuned "general-purpose" LM of `cfg`: the tiny GPT after ``pre_steps`` steps on stdlib docstrings,
    cached by the pretraining fields (lab cache, namespace ``afd_instruction``)."""
    tok = CharTokenizer()
    fields = {
        k: getattr(cfg, k)
        for k in (
            "n_layers",
            "d_model",
            "n_heads",
            "seq_len",
            "pre_chars",
            "pre_steps",
            "pre_batch",
            "pre_lr",
        )
    }

    def build() -> dict:
        torch.manual_seed(SALT)
        parts = split_text(get_corpus("stdlib-docstrings", max_chars=cfg.pre_chars), seed=0)
        data = CharData(
            train=torch.tensor(tok.encode(parts["train"])),
            val=torch.tensor(tok.encode(parts["val"])),
            vocab=tok.vocab,
        )
        model = _model(cfg, tok.vocab_size)
        train(
            model,
            lambda m: torch.optim.AdamW(m.parameters(), lr=cfg.pre_lr, weight_decay=0.01),
            TrainConfig(
                steps=cfg.pre_steps, batch_size=cfg.pre_batch, eval_every=cfg.pre_steps, eval_batches=2
            ),
            seed=SALT,
            data=data,
        )
        return model.state_dict()

    model = _model(cfg, tok.vocab_size)
    model.load_state_dict(cached_torch("afd_instruction", {**fields, "vocab": tok.vocab_size}, build))
    return model.eval()


def _boot_var(pairs: list[tuple[np.ndarray, np.ndarray]], rng: np.random.Generator, n_boot: int) -> float:
    """Variance of mean_task(mean(a) - mean(b)) over item resamples drawn within each task."""
    stats = np.zeros(n_boot)
    for a, b in pairs:
        idx = rng.integers(0, len(a), size=(n_boot, len(a)))
        stats += (a[idx] - b[idx]).mean(1)
    return float(np.var(stats / len(pairs)))


def run(cfg: AFDConfig, seed: int, device: str) -> Metrics:
    """One replication; see the module docstring."""
    torch.manual_seed(seed)
    rng_data, rng_shots, rng_boot = (
        np.random.default_rng(s) for s in np.random.SeedSequence([seed, SALT]).spawn(3)
    )
    world = AntibodyWorld(seed)
    antibodies = world.sample(cfg.n_antibodies, rng_data)
    n_test = max(int(round(cfg.test_frac * cfg.n_antibodies)), 1)
    train_ab, test_ab = antibodies[n_test:], antibodies[:n_test]
    records = instructions_for(train_ab, rng_data)
    tok = CharTokenizer()
    base = general_lm(cfg)
    values: dict[str, float] = {}
    with task("afd-instruction", total=4) as bar:
        tuned_out = instruction_tune(
            base,
            tok,
            records,
            loss="answer",
            template="plain",
            steps=cfg.steps,
            batch_size=cfg.batch,
            lr=cfg.lr,
            warmup_steps=max(cfg.steps // 20, 1),
            seed=int(rng_data.integers(2**31)),
        )
        tuned = tuned_out.model
        bar.advance()

        eval_ab = test_ab[: cfg.n_eval]
        feats_train, feats_eval = kmer_features(train_ab), kmer_features(eval_ab)
        nn_idx = nearest_neighbours(feats_train, feats_eval)
        by_task = {t: [understanding_record(a, t) for a in train_ab] for t in TASKS}
        correct: dict[str, dict[str, np.ndarray]] = {
            m: {} for m in ("tuned", "fewshot", "kmer", "nn", "majority")
        }
        for t in TASKS:
            labels = list(LABELS[t])
            gold = [a.labels[t] for a in eval_ab]
            queries = [understanding_record(a, t) for a in eval_ab]
            prompts = [chat_parts(q, "plain")[0] for q in queries]
            shots = [
                [by_task[t][int(i)] for i in rng_shots.choice(len(train_ab), cfg.shots, replace=False)]
                for _ in eval_ab
            ]
            few_prompts = [few_shot_prompt(s, q, "plain") for s, q in zip(shots, queries)]
            preds = {
                "tuned": [labels[i] for i in rank_labels(tuned, tok, prompts, labels)],
                "fewshot": [labels[i] for i in rank_labels(base, tok, few_prompts, labels, batch_size=32)],
                "kmer": KmerLogisticRegression()
                .fit(train_ab, [a.labels[t] for a in train_ab])
                .predict(eval_ab),
                "nn": [train_ab[int(j)].labels[t] for j in nn_idx],
            }
            major = Counter(a.labels[t] for a in train_ab).most_common(1)[0][0]
            preds["majority"] = [major] * len(eval_ab)
            for m, p in preds.items():
                correct[m][t] = np.array([x == y for x, y in zip(p, gold)], dtype=float)
                values[f"acc_{m}_{t}"] = float(correct[m][t].mean())
        for m in correct:
            values[f"{m}_acc"] = float(np.mean([values[f"acc_{m}_{t}"] for t in TASKS]))
        values["chance_acc"] = float(np.mean([1 / len(LABELS[t]) for t in TASKS]))
        values["var_delta_fewshot"] = _boot_var(
            [(correct["tuned"][t], correct["fewshot"][t]) for t in TASKS], rng_boot, cfg.n_boot
        )
        values["var_gap_kmer"] = _boot_var(
            [(correct["tuned"][t], correct["kmer"][t]) for t in TASKS], rng_boot, cfg.n_boot
        )
        values["tuned_gain_over_majority"] = values["tuned_acc"] - values["majority_acc"]
        values["kmer_gain_over_majority"] = values["kmer_acc"] - values["majority_acc"]
        bar.advance()

        design_ab = test_ab[: cfg.n_design]
        d_prompts = [chat_parts(design_record(a), "plain")[0] for a in design_ab]
        designs = {
            "tuned": greedy_generate(tuned, tok, d_prompts, max_new_tokens=12),
            "nn": nn_copy_design(
                train_ab, [(a.light, a.labels["target"], a.labels["neutralizing"]) for a in design_ab]
            ),
        }
        sat = {}
        for m, seqs in designs.items():
            sat[m] = np.array(
                [
                    design_satisfies(s, a.light, a.labels["target"], a.labels["neutralizing"])
                    for s, a in zip(seqs, design_ab)
                ],
                dtype=float,
            )
            values[f"{m}_design_sat"] = float(sat[m].mean())
            summary = srr_summary([a.h3 for a in design_ab], seqs)
            for k in ("srr_left", "srr_right", "srr_best", "exact_match"):
                values[f"{m}_design_{k}"] = summary[k]
        values["var_design_gain"] = _boot_var([(sat["tuned"], sat["nn"])], rng_boot, cfg.n_boot)
        bar.advance()

        desc_prompts = [chat_parts(understanding_record(a, "describe"), "plain")[0] for a in eval_ab]
        desc = greedy_generate(tuned, tok, desc_prompts, max_new_tokens=32)
        values["tuned_describe_exact_match"] = exact_match(desc, [describe_answer(a) for a in eval_ab])
        bar.advance()

    losses = tuned_out.losses
    values["train_loss_first"], values["train_loss_final"] = float(losses[0]), float(np.mean(losses[-20:]))
    values["n_train_records"] = float(len(records))
    stride = max(len(losses) // 100, 1)
    curves = {
        "train_loss": Curve(
            list(range(1, len(losses) + 1, stride)), losses[::stride], "tuning step", "answer-token loss"
        )
    }
    artifacts = {
        "design_examples": [
            {"request": p, "reference": a.h3, "tuned": t, "nn": n}
            for p, a, t, n in list(zip(d_prompts, design_ab, designs["tuned"], designs["nn"]))[:5]
        ]
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


LEARNED = Precondition(
    "tuned_gain_over_majority",
    ">=",
    0.05,
    "the tuned LM beats the training majority class (a trivial baseline computed in the run) by 5 points",
)
REFERENCE_LEARNED = Precondition(
    "kmer_gain_over_majority",
    ">=",
    0.05,
    "the k-mer logistic-regression reference beats the majority class by 5 points",
)

EXPERIMENT = Experiment(
    slug="afd-instruction",
    configs={
        "smoke": AFDConfig(
            n_antibodies=120,
            d_model=32,
            n_heads=2,
            pre_chars=60_000,
            pre_steps=10,
            pre_batch=4,
            steps=20,
            batch=8,
            n_eval=20,
            n_design=20,
            n_boot=200,
        ),
        "quick": AFDConfig(),
        "full": AFDConfig(
            n_antibodies=3000, d_model=128, pre_steps=300, pre_batch=32, steps=600, n_eval=600, n_design=600
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="instruction-tuning-helps",
            statement=(
                "Instruction tuning raises mean classification accuracy over the few-shot untuned LM by >= 20 "
                "points (interval above +10), reaching within 5 points of a k-mer logistic-regression "
                "reference, and its designs satisfy the functional rule more often than a nearest-neighbour copy"
            ),
            paper_value=(
                "about +20 points mean accuracy over five classification tasks versus the untuned LLMs "
                "(Llama-3-8B / Qwen2.5-7B + LoRA on ~430K AFD instructions; papernotes summary)"
            ),
            decide=tuning_helps,
            scale_gap=(
                "2-layer character-level tiny GPT pretrained on stdlib docstrings, synthetic antibodies with rule "
                "labels (4 tasks), a few hundred tuning steps"
            ),
            preconditions=(LEARNED, REFERENCE_LEARNED),
        )
    ],
    figures=[task_accuracy_bars, design_bars],
    scale_gap=(
        "A tiny character-level GPT in a synthetic antibody world with exact motif rules, instead of 7-8B LLMs "
        "with LoRA on the real AFD-Instruction dataset; no Delta-G, no real biology."
    ),
)
