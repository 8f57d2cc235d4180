"""Reproduction of "RNA sequence-structure co-design with a pretrained RoseTTAFold2NA denoiser" (ICLR 2026; working
title, only the abstract is known): does a pretrained structural prior make a joint sequence + frame diffusion
model co-design more self-consistent RNAs under data scarcity, and does inference-time RL add to it?

Data (all generated here): sequences of length L from a stem-loop grammar, folded by the folding oracle
(ViennaRNA if installed, else the zuker-lite MFE programme of this package), geometry from
``build_coarse_3d`` with 0.2 A jitter. The abundant structure set (loops of 3-5) is the stand-in for RF2NA's
training data; the scarce co-design set comes from a shifted grammar (loops of 6-9).

Per harness seed (one replication; the prior is pretrained once per config and cached, the seed redraws the
co-design sets, the initialisations of the scratch models and all sampling):

- prior: ``TinyFrameTransformer`` trained as a structure predictor (clean sequence -> frames, ``mode="fold"``);
- (A) the prior fine-tuned as the co-design denoiser on ``n_scarce`` examples;
- (B) the same denoiser from scratch on the same ``n_scarce`` examples;
- (C) from scratch on ``n_abundant`` (10x) co-design examples (the data-efficiency reference);
- (D) A plus ``rl_finetune`` of its sequence head with reward = self-consistency TM;
- metrics per method over ``n_eval`` co-designed samples: self-consistency TM (RNA-align d0), RMSD, base-pair F1
  of the generated geometry against the refold, sequence diversity, and the chance TM (a sample's structure
  against the refold of another sample's sequence).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass

import numpy as np
import torch

from iclr26.generative.rna_codesign.claim_check import pretraining_decider, rl_decider
from iclr26.generative.rna_codesign.diffusion import CoDesignDiffusion, rl_finetune, train_codesign
from iclr26.generative.rna_codesign.figures import (
    rl_reward_curve,
    structure_3d,
    tm_distributions,
    tm_vs_examples,
)
from iclr26.generative.rna_codesign.folding import decode, encode, fold, stem_loop_sequences
from iclr26.generative.rna_codesign.geometry import (
    base_pair_f1,
    build_coarse_3d,
    dot_bracket_to_pairs,
    pairs_from_frames,
    pairs_to_dot_bracket,
    tm_score,
)
from iclr26.generative.rna_codesign.metrics import self_consistency, sequence_diversity
from iclr26.generative.rna_codesign.model import TinyFrameTransformer
from iclr26.harness.claims import Claim, Precondition
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.lab.cache import cached_torch

__all__ = ["EXPERIMENT", "METHODS", "RnaCodesignConfig", "make_dataset", "run"]

METHODS = ("a", "b", "c", "d")
LABELS = {
    "a": "A pretrained prior + co-design",
    "b": "B scratch (scarce)",
    "c": "C scratch (10x data)",
    "d": "D = A + RL",
}


@dataclass(frozen=True)
class RnaCodesignConfig:
    """One budget of the RNA co-design reproduction."""

    length: int = 32
    n_pretrain: int = 4000
    n_scarce: int = 300
    n_abundant: int = 3000
    pretrain_loops: tuple[int, int] = (3, 5)
    codesign_loops: tuple[int, int] = (6, 9)
    jitter: float = 0.2
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    pair_dim: int = 16
    equivariant: bool = False
    batch: int = 16
    lr: float = 2e-3
    pretrain_steps: int = 2000
    finetune_steps: int = 200
    scratch_steps: int = 400
    rl_steps: int = 15
    rl_batch: int = 16
    rl_kl: float = 0.05
    rl_lr: float = 3e-3
    sample_steps: int = 16
    n_eval: int = 96
    n_fold_eval: int = 64
    engine: str = "auto"
    data_seed: int = 0


def make_dataset(
    n: int,
    length: int,
    loops: tuple[int, int],
    jitter: float,
    generator: torch.Generator,
    engine: str = "auto",
) -> tuple[dict, list[str]]:
    """`n` grammar sequences, their oracle folds and jittered coarse geometry (tokens, rots, trans float32)."""
    seqs = stem_loop_sequences(n, length, generator, loop_range=loops)
    dbs = fold(seqs, engine)
    frames = [build_coarse_3d(db, jitter, generator) for db in dbs]
    data = {
        "tokens": torch.stack([encode(s) for s in seqs]),
        "rots": torch.stack([f[0] for f in frames]).float(),
        "trans": torch.stack([f[1] for f in frames]).float(),
    }
    return data, dbs


def _new_model(cfg: RnaCodesignConfig, init_seed: int) -> CoDesignDiffusion:
    return CoDesignDiffusion(
        TinyFrameTransformer(
            cfg.d_model,
            cfg.n_layers,
            cfg.n_heads,
            cfg.pair_dim,
            init_seed=init_seed,
            equivariant=cfg.equivariant,
        )
    )


_PRIOR_FIELDS = (
    "length",
    "n_pretrain",
    "pretrain_loops",
    "jitter",
    "d_model",
    "n_layers",
    "n_heads",
    "pair_dim",
    "equivariant",
    "batch",
    "lr",
    "pretrain_steps",
    "engine",
    "data_seed",
)


def pretrained_prior(cfg: RnaCodesignConfig) -> CoDesignDiffusion:
    """The structure-prediction prior of `cfg` (trained once on the abundant structure set, cached)."""
    key = {k: v for k, v in asdict(cfg).items() if k in _PRIOR_FIELDS}

    def build() -> dict:
        gen = torch.Generator().manual_seed(10_000 + cfg.data_seed)
        data, _ = make_dataset(cfg.n_pretrain, cfg.length, cfg.pretrain_loops, cfg.jitter, gen, cfg.engine)
        model = _new_model(cfg, 10_000 + cfg.data_seed)
        losses = train_codesign(
            model,
            data,
            cfg.pretrain_steps,
            cfg.batch,
            cfg.lr,
            mode="fold",
            generator=gen,
            augment=cfg.equivariant,
        )
        return {"state": model.denoiser.state_dict(), "losses": torch.tensor(losses)}

    entry = cached_torch("rna-codesign-prior", key, build)
    model = _new_model(cfg, 0)
    model.denoiser.load_state_dict(entry["state"])
    model.prior_losses = entry["losses"].tolist()
    return model


def _fold_quality(
    model: CoDesignDiffusion, cfg: RnaCodesignConfig, gen: torch.Generator
) -> tuple[float, float]:
    """Structure prediction by the prior on held-out co-design-distribution sequences: bp F1 of its frames vs the
    oracle, and the trivial baseline's F1 (the oracle structure of another sequence of the set)."""
    data, dbs = make_dataset(cfg.n_fold_eval, cfg.length, cfg.codesign_loops, 0.0, gen, cfg.engine)
    smp = model.sample(
        cfg.n_fold_eval, cfg.length, cond={"tokens": data["tokens"]}, steps=cfg.sample_steps, generator=gen
    )
    truth = [dot_bracket_to_pairs(db) for db in dbs]
    f1 = [base_pair_f1(pairs_from_frames(smp.rots[k], smp.trans[k]), truth[k]) for k in range(len(dbs))]
    base = [base_pair_f1(truth[(k + 1) % len(dbs)], truth[k]) for k in range(len(dbs))]
    return float(np.mean(f1)), float(np.mean(base))


def _evaluate(model: CoDesignDiffusion, cfg: RnaCodesignConfig, gen: torch.Generator) -> dict:
    smp = model.sample(cfg.n_eval, cfg.length, steps=cfg.sample_steps, generator=gen)
    sc = self_consistency(smp.tokens, smp.rots, smp.trans, cfg.engine)
    refs = [build_coarse_3d(db)[1] for db in sc["folds"]]
    n = cfg.n_eval
    chance = [tm_score(smp.trans[k].double(), refs[(k + 1) % n]) for k in range(n)]
    tm = sc["tm"]
    return {
        "tm": float(tm.mean()),
        "tm_se": float(tm.std(ddof=1) / np.sqrt(n)),
        "rmsd": float(sc["rmsd"].mean()),
        "bp_f1": float(sc["bp_f1"].mean()),
        "diversity": sequence_diversity(smp.tokens),
        "chance_tm": float(np.mean(chance)),
        "_tm_all": tm.tolist(),
        "_example": {
            "trans": smp.trans[0].tolist(),
            "seq": decode(smp.tokens[0]),
            "generated": pairs_to_dot_bracket(pairs_from_frames(smp.rots[0], smp.trans[0])),
            "refold": sc["folds"][0],
        },
    }


def run(cfg: RnaCodesignConfig, seed: int, device: str) -> Metrics:
    """Pretrain (cached) or load the prior, train A, B, C, fine-tune D by RL, and score every method."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"length": cfg.length, "n_scarce": cfg.n_scarce, "n_abundant": cfg.n_abundant, "tm": {}}
    gen = torch.Generator().manual_seed(1000 * seed + 17)
    prior = pretrained_prior(cfg)
    values["prior_final_loss"] = float(np.mean(prior.prior_losses[-50:]))
    f1, f1_base = _fold_quality(prior, cfg, gen)
    values |= {"prior_fold_f1": f1, "prior_fold_f1_baseline": f1_base, "prior_fold_f1_gain": f1 - f1_base}
    scarce, _ = make_dataset(cfg.n_scarce, cfg.length, cfg.codesign_loops, cfg.jitter, gen, cfg.engine)
    abundant, _ = make_dataset(cfg.n_abundant, cfg.length, cfg.codesign_loops, cfg.jitter, gen, cfg.engine)
    models = {}
    jobs = [
        ("a", prior, scarce, cfg.finetune_steps),
        ("b", None, scarce, cfg.scratch_steps),
        ("c", None, abundant, cfg.scratch_steps),
    ]
    for name, init, data, steps in track(jobs, description=f"rna-codesign seed {seed}"):
        model = copy.deepcopy(init) if init is not None else _new_model(cfg, 100 * seed + ord(name))
        losses = train_codesign(model, data, steps, cfg.batch, cfg.lr, generator=gen, augment=cfg.equivariant)
        values[f"{name}_final_loss"] = float(np.mean(losses[-50:]))
        curves[f"{name}_loss"] = Curve(list(range(1, len(losses) + 1)), losses, "step", "co-design loss")
        models[name] = model

    def reward(smp) -> torch.Tensor:
        return torch.as_tensor(self_consistency(smp.tokens, smp.rots, smp.trans, cfg.engine)["tm"])

    d = copy.deepcopy(models["a"])
    hist = rl_finetune(
        d,
        reward,
        cfg.rl_kl,
        cfg.rl_steps,
        n=cfg.rl_batch,
        length=cfg.length,
        sample_steps=cfg.sample_steps,
        lr=cfg.rl_lr,
        generator=gen,
    )
    models["d"] = d
    if hist["reward"]:
        curves["d_rl_reward"] = Curve(
            list(range(1, len(hist["reward"]) + 1)), hist["reward"], "RL step", "mean TM"
        )
    artifacts["rl_reward"] = hist["reward"]
    for name in METHODS:
        res = _evaluate(models[name], cfg, gen)
        artifacts["tm"][name] = res.pop("_tm_all")
        example = res.pop("_example")
        if name == "a":
            artifacts["example"] = example
        values |= {f"{name}_{k}": v for k, v in res.items()}
        values[f"{name}_tm_gain"] = values[f"{name}_tm"] - values[f"{name}_chance_tm"]
    return Metrics(values=values, curves=curves, artifacts=artifacts)


QUICK = RnaCodesignConfig()
SMOKE = RnaCodesignConfig(
    length=20,
    n_pretrain=200,
    n_scarce=50,
    n_abundant=100,
    pretrain_loops=(3, 4),
    codesign_loops=(4, 6),
    d_model=16,
    n_layers=1,
    n_heads=2,
    pair_dim=8,
    batch=8,
    pretrain_steps=10,
    finetune_steps=5,
    scratch_steps=5,
    rl_steps=2,
    rl_batch=4,
    sample_steps=4,
    n_eval=8,
    n_fold_eval=8,
)
FULL = RnaCodesignConfig(
    length=40,
    n_pretrain=20_000,
    d_model=128,
    n_layers=4,
    n_heads=8,
    pair_dim=32,
    batch=32,
    pretrain_steps=10_000,
    finetune_steps=2000,
    scratch_steps=4000,
    rl_steps=200,
    rl_batch=32,
    sample_steps=50,
    n_eval=256,
    n_fold_eval=256,
)

_LEARNED = (
    Precondition(
        "prior_fold_f1_gain",
        ">",
        0.0,
        "the pretrained prior predicts structures (base-pair F1 vs the oracle) better than the trivial baseline "
        "of another sequence's structure from the same distribution",
    ),
    Precondition(
        "a_tm_gain",
        ">",
        0.0,
        "model A's co-designed structures match the refolds of their own sequences better than the refolds of "
        "other samples' sequences (chance TM computed in the run)",
    ),
)

EXPERIMENT = Experiment(
    slug="rna-codesign",
    configs={"smoke": SMOKE, "quick": QUICK, "full": FULL},
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="pretrained-prior-beats-scratch",
            statement=(
                "under co-design data scarcity (300 examples), initialising the joint sequence + frame diffusion "
                "denoiser from a pretrained structure predictor (A) raises mean self-consistency TM over training "
                "it from scratch on the same data (B) by >= 0.05 with the 95% interval above 0, and A is within "
                "0.03 of scratch training on 10x the data (C)"
            ),
            paper_value="RF2NA-initialised co-design beats from-scratch diffusion/flow co-design baselines in "
            "self-consistency and confidence (no numbers in the abstract)",
            decide=pretraining_decider(),
            scale_gap="tiny IPA-lite denoiser pretrained on 4,000 toy structures instead of RF2NA; coarse "
            "secondary-structure-determined geometry; 3 seeds x 96 samples",
            preconditions=_LEARNED,
        ),
        Claim(
            id="rl-raises-self-consistency",
            statement=(
                "KL-regularised REINFORCE on the sequence head of model A with reward = self-consistency TM (D) "
                "raises mean TM by >= 0.03 (interval above 0) while sequence diversity drops by < 0.1"
            ),
            paper_value="lightweight inference-time RL further improves results (no numbers in the abstract)",
            decide=rl_decider(),
            scale_gap="15 RL steps of 16 chains, sequence head only",
            preconditions=_LEARNED,
        ),
    ],
    figures=[tm_distributions, tm_vs_examples, structure_3d, rl_reward_curve],
    scale_gap=(
        "A 2-layer d=64 toy frame denoiser (non-equivariant variant) pretrained as a structure predictor on 4,000 generated "
        "stem-loop RNAs replaces RF2NA (~1.1 GB weights, PDB RNA and RNA-protein data); geometry is a coarse "
        "3-pseudo-atom model built from secondary structure, refolding uses zuker-lite (or ViennaRNA) instead of "
        "RF2NA/AF3; de novo design only (no complex- or protein-conditioned tasks)."
    ),
)
