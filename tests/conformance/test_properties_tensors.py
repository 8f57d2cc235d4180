"""Deterministic battery over the public callables whose inputs are tensors or arrays.

COVERAGE (recomputed by ``test_the_coverage_count_is_current``): 703 of 744 public tensor-taking callables covered.

test_properties_public.py mutates the SCALAR parameters of every public callable; this battery does the same for
the tensor/array ones. ``TENSOR_EXAMPLES`` maps a public dotted name to a factory of a small valid call (an
``Example``: for an nn.Module its forward inputs on a freshly built module, for an optimizer a step, for a
function its arguments). Each tensor/array argument of the example is then changed, ONE at a time, by each
mutation that applies to it:

- ``ndim-`` / ``ndim+``: one leading axis dropped / added;
- ``size``: a dimension that must agree with another argument or with the module's width (``Example.agree``)
  made one longer;
- ``int`` / ``complex`` / ``bool``: an integer, complex or bool tensor where floats are expected (NumPy arrays:
  complex only, an integer or bool array converts exactly); ``float``: a float tensor/array where integer ids are
  expected; ``oov``: an id equal to the vocabulary size (``Example.vocab``);
- ``str`` / ``None``: not a tensor at all (None only where the argument is required);
- ``nan`` / ``inf``: the first entry made NaN / +inf.

Required outcome for every mutation but nan/inf: a ValueError or TypeError whose message names the argument (its
name in the signature, or the documented name of ``Example.names``); an error from deep inside torch/NumPy, or a
silent result, is a failure. For nan/inf: such an error, or a non-finite entry in the output; a FINITE output
computed from a non-finite input hides the problem and is a failure. The valid example must run and give the
same output twice.

Tables, each entry with its reason (never a blanket skip): ``NO_EXAMPLE`` holds the public tensor-taking
callables without an example (result records, protocols, ...; every other one must have one); ``ACCEPTS`` holds (callable, argument, mutation)
triples that are legitimately accepted (documented broadcasting, a leading batch axis a layer maps over, ...);
such a mutated call must then succeed. ``PENDING`` holds the failures whose fix is still to come, each with the
exact failure seen.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import random
import re
import signal
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from tests.conformance.tensor_cases import (
    Example,
    built,
    call_example,
    case_tables,
    fn,
    forward_example,
    gauss,
    ids,
    probs,
)
from tests.conformance.test_properties_public import PUBLIC

torch.set_num_threads(1)


TENSOR_EXAMPLES: dict[str, Callable[[], Example]] = {}

#: (callable, argument, mutation) -> why the mutated call is legitimately accepted
ACCEPTS: dict[tuple[str, str, str], str] = {}

#: (callable, argument, mutation) -> the failure seen and why it is still open
PENDING: dict[tuple[str, str, str], str] = {}

#: public tensor-taking callable -> why it has no example (every other one must have one; see
#: ``test_every_tensor_callable_has_an_example_or_a_reason``)
NO_EXAMPLE: dict[str, str] = {
    **{
        f"iclr26.{name}": "a result record the library builds and returns (its producer is covered), not built "
        "from user tensors"
        for name in (
            "agents.bayesian_persuasion.Envelope",
            "agents.bayesian_persuasion.TrainedSender",
            "agents.flythinker.FlyThinkerOutput",
            "agents.flythinker.GenerationOutput",
            "agents.recall_unlearning_attack.AttackResult",
            "agents.ssot.PIFResult",
            "decision.fl_incentives.Allocation",
            "decision.fl_incentives.DynamicsResult",
            "decision.fl_incentives.MisreportSearch",
            "decision.fl_incentives.Plan",
            "decision.l2fob.FluidSolution",
            "decision.zero_shot_evolution.SimResult",
            "generative.and_or_template.Branch",
            "generative.c3b.C3BReport",
            "generative.dado.History",
            "generative.rna_codesign.CoDesignSample",
            "generative.smc_discrete_diffusion.SMCResult",
            "inference.dparallel.DecodeResult",
            "inference.dparallel.DistillDataset",
            "inference.uniroute.DeferralCurve",
            "science.biobo.PerturbationLandscape",
            "lab.flex.BlockPlan",
            "lab.flex.BlockSparseResult",
        )
    },
    **{
        f"iclr26.{name}": "a typing Protocol: no code of its own, its implementations are covered"
        for name in ("generative.rna_codesign.Denoiser", "inference.dparallel.MaskedDiffusionLM")
    },
    **{
        f"iclr26.{name}": "takes no tensor in practice (callables, an environment, a config or a state dict); the "
        "annotation that made it tensor-taking is a callable's signature"
        for name in (
            "architectures.aside.sft",
            "decision.dual_learner_crl.meta_accuracy",
            "generative.rna_codesign.rl_finetune",
            "generative.smc_discrete_diffusion.train_log_variance",
            "generative.smc_discrete_diffusion.train_mdlm",
            "lab.flex.additive_bias",
            "mechanisms.dale_signed_weights.feature_viz",
            "optim.poisson_midpoint.TargetLaw1D",
            "science.npe_lbf.Task",
            "science.npe_lbf.npe_train",
        )
    },
    **{
        f"iclr26.{name}": "a full training run whose tensors come inside tuples or a dict (the battery mutates "
        "top-level tensors); its data checks are covered through the components it calls"
        for name in ("optim.attent.train_learner", "optim.hybrid_zo_finetune.finetune")
    },
    "iclr26.generative.rna_codesign.RF2NAAdapter": "its constructor always raises: the RF2NA model is not "
    "available offline",
    "iclr26.mechanisms.function_induction.TransformerLensAdapter": "needs transformer_lens (not installed); it "
    "passes tokens straight to that model",
    "iclr26.lab.flex.causal": "a mask mod the attention kernels evaluate on their own index tensors (FlexAttention "
    "traces it on 0-d indices), never on user input",
    "iclr26.lab.transformer.HookPoint": "the identity marking an activation inside every block's forward: it "
    "carries the model's own activations, any shape and dtype by design, on the hot path",
}


# --- lab.flex -------------------------------------------------------------------------------------------------
def _qkv(b: int = 1, h: int = 2, t: int = 4, d: int = 8) -> dict[str, torch.Tensor]:
    return {"q": gauss(b, h, t, d, seed=1), "k": gauss(b, h, t, d, seed=2), "v": gauss(b, h, t, d, seed=3)}


_QKV_AGREE = {"q": 1, "k": 3, "v": 2}
F = "iclr26.lab.flex"
TENSOR_EXAMPLES.update(
    {
        f"{F}.attention": lambda: call_example(
            f"{F}.attention", _QKV_AGREE | {"bias": 3}, **_qkv(), bias=gauss(1, 2, 4, 4)
        ),
        f"{F}.alibi_bias": lambda: call_example(
            f"{F}.alibi_bias", slopes=torch.tensor([0.5, 0.25]), tq=4, tk=4
        ),
        f"{F}.alibi": lambda: call_example(f"{F}.alibi", slopes=torch.tensor([0.5, 0.25])),
        f"{F}.log_n_scaling": lambda: call_example(f"{F}.log_n_scaling", s=torch.tensor([0.5, 0.25])),
        f"{F}.block_sparse_attention": lambda: call_example(
            f"{F}.block_sparse_attention",
            _QKV_AGREE | {"mask": 0},
            **_qkv(),
            mask=torch.ones(4, 4, dtype=torch.bool).tril(),
            block_size=2,
        ),
        f"{F}.masked_softmax": lambda: call_example(
            f"{F}.masked_softmax",
            {"keep": 1},
            scores=gauss(2, 4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), float("-inf")),
            keep=torch.ones(4, 4, dtype=torch.bool).tril(),
        ),
        f"{F}.block_plan": lambda: call_example(
            f"{F}.block_plan", mask=torch.ones(8, 8, dtype=torch.bool).tril(), block_size=4
        ),
        f"{F}.block_stats": lambda: call_example(
            f"{F}.block_stats", mask=torch.ones(8, 8, dtype=torch.bool).tril(), block_size=4
        ),
        f"{F}.from_dense": lambda: call_example(
            f"{F}.from_dense", mask=torch.ones(4, 4, dtype=torch.bool).tril()
        ),
    }
)


# --- lab.linear_attention -----------------------------------------------------------------------------------
def _rank_generalized(path: str) -> Example:
    b, t, h, d = 1, 4, 2, 4
    args = {
        "q": gauss(b, t, h, d, seed=1),
        "k": gauss(b, t, h, d, seed=2) / 2,
        "v": gauss(b, t, h, d, seed=3),
        "a": gauss(b, t, h, d, seed=4) / 4,
        "b": gauss(b, t, h, d, seed=5) / 4,
        "log_f": -torch.rand(b, t, h, d, generator=torch.Generator().manual_seed(6)),
    }
    return Example(
        fn(path), args | {"r_ab": 1, "r_kv": 1}, agree={"k": 1, "v": 1, "a": 1, "b": 1, "log_f": 3}
    )


LA = "iclr26.lab.linear_attention"
TENSOR_EXAMPLES.update(
    {
        f"{LA}.rank_generalized_chunk": lambda: _rank_generalized(f"{LA}.rank_generalized_chunk"),
        f"{LA}.rank_generalized_recurrence": lambda: _rank_generalized(f"{LA}.rank_generalized_recurrence"),
        f"{LA}.gla_terms": lambda: call_example(
            f"{LA}.gla_terms",
            {"v": 1, "log_f": 3},
            k=gauss(1, 4, 2, 4),
            v=gauss(1, 4, 2, 4),
            log_f=-torch.rand(1, 4, 2, 4),
        ),
        f"{LA}.delta_rule_terms": lambda: call_example(
            f"{LA}.delta_rule_terms",
            {"v": 1, "beta": 1},
            k_hat=torch.nn.functional.normalize(gauss(1, 4, 2, 4), dim=-1),
            v=gauss(1, 4, 2, 4),
            beta=torch.rand(1, 4, 2),
        ),
        f"{LA}.delta_product_terms": lambda: call_example(
            f"{LA}.delta_product_terms",
            {"k2": 1, "v1": 1, "v2": 1, "beta1": 1, "beta2": 1},
            k1=torch.nn.functional.normalize(gauss(1, 4, 2, 4, seed=1), dim=-1),
            k2=torch.nn.functional.normalize(gauss(1, 4, 2, 4, seed=2), dim=-1),
            v1=gauss(1, 4, 2, 4, seed=3),
            v2=gauss(1, 4, 2, 4, seed=4),
            beta1=torch.rand(1, 4, 2),
            beta2=torch.rand(1, 4, 2),
        ),
    }
)

# --- lab.transformer -------------------------------------------------------------------------------------------
T = "iclr26.lab.transformer"


def _spec() -> Any:
    return fn(f"{T}.BlockSpec")(layer=0, d_model=8, n_heads=2, d_head=4, d_mlp=16, causal=True)


TENSOR_EXAMPLES.update(
    {
        f"{T}.MLP": lambda: forward_example(
            f"{T}.MLP", {"d_model": 8, "d_mlp": 16}, {"x": -1}, x=gauss(2, 3, 8)
        ),
        f"{T}.SwiGLU": lambda: forward_example(
            f"{T}.SwiGLU", {"d_model": 8, "d_mlp": 16}, {"x": -1}, x=gauss(2, 3, 8)
        ),
        f"{T}.MultiHeadAttention": lambda: forward_example(
            f"{T}.MultiHeadAttention",
            {"d_model": 8, "n_heads": 2, "d_head": 4},
            {"x": 2, "score_bias": 2},
            x=gauss(2, 3, 8),
            score_bias=gauss(2, 3, 3),
        ),
        f"{T}.Block": lambda: Example(
            built(lambda: fn(f"{T}.Block")(_spec())), {"x": gauss(2, 3, 8)}, agree={"x": 2}
        ),
        f"{T}.Transformer": lambda: Example(
            built(lambda: fn(f"{T}.Transformer")(vocab_size=8, seq_len=8, d_model=8, n_layers=1, n_heads=2)),
            {"tokens": ids(2, 5)},
            vocab={"tokens": 8},
        ),
        f"{T}.AttnOnlyTransformer": lambda: Example(
            built(
                lambda: fn(f"{T}.AttnOnlyTransformer")(
                    n_layers=1, n_heads=2, d_model=8, vocab_size=8, seq_len=8
                )
            ),
            {"tokens": ids(2, 5)},
            vocab={"tokens": 8},
        ),
        f"{T}.check_sequence_input": lambda: call_example(
            f"{T}.check_sequence_input", {"x": 2}, x=gauss(2, 3, 8), d_model=8
        ),
    }
)


# --- lab.speculative and the speculative-sampling papers ---------------------------------------------------------
V = 6


def _table_lm(seed: int) -> torch.nn.Module:
    return fn("iclr26.inference.cactus.TableLM")(probs(V, V, seed=seed).double())


def _verifier_call(verifier: Any, gamma: int = 2) -> Example:
    args = {
        "target_logits": gauss(gamma + 1, V, seed=1),
        "draft_logits": gauss(gamma, V, seed=2),
        "draft_ids": ids(gamma, vocab=V, seed=3),
        "generator": torch.Generator().manual_seed(0),
    }
    return Example(
        verifier,
        args,
        agree={"target_logits": 1, "draft_logits": 1, "draft_ids": 0},
        vocab={"draft_ids": V},
    )


S = "iclr26.lab.speculative"
C = "iclr26.inference.cactus"
TENSOR_EXAMPLES.update(
    {
        f"{S}.speculative_decode": lambda: Example(
            fn(f"{S}.speculative_decode"),
            {
                "target": _table_lm(1),
                "drafter": _table_lm(2),
                "input_ids": ids(1, 3, vocab=V),
                "verifier": fn(f"{S}.ExactMatchVerifier")(),
                "gamma": 2,
                "max_new_tokens": 4,
            },
            vocab={"input_ids": V},
        ),
        f"{S}.ExactMatchVerifier": lambda: _verifier_call(fn(f"{S}.ExactMatchVerifier")()),
        f"{S}.SamplingVerifier": lambda: _verifier_call(fn(f"{S}.SamplingVerifier")()),
        f"{C}.LoopVerifier": lambda: _verifier_call(fn(f"{C}.LoopVerifier")(fn(f"{C}.CactusVerifier")())),
        f"{C}.TableLM": lambda: Example(_table_lm(1), {"ids": ids(1, 3, vocab=V)}, vocab={"ids": V}),
        f"{C}.speculative_generate": lambda: Example(
            fn(f"{C}.speculative_generate"),
            {
                "target": _table_lm(1),
                "drafter": _table_lm(2),
                "input_ids": ids(1, 3, vocab=V),
                "verifier": fn(f"{C}.CactusVerifier")(),
                "gamma": 2,
                "max_new_tokens": 4,
            },
            vocab={"input_ids": V},
        ),
        **{
            f"{C}.{n}": (
                lambda n=n: call_example(
                    f"{C}.{n}",
                    {"q": 0},
                    p=probs(V, seed=1),
                    q=probs(V, seed=2),
                    verifier=fn(f"{C}.CactusVerifier")(),
                )
            )
            for n in (
                "acceptance_probability",
                "enumerate_rule",
                "one_step_law",
                "one_step_output_distribution",
            )
        },
        f"{C}.binary_kl": lambda: call_example(f"{C}.binary_kl", {"b": 0}, a=torch.rand(4), b=torch.rand(4)),
        f"{C}.cactus_h": lambda: call_example(
            f"{C}.cactus_h", {"n": 0}, q=probs(4, V), n=ids(4, vocab=V), delta=1.0
        ),
    }
)

FL = "iclr26.inference.fly"
TENSOR_EXAMPLES.update(
    {
        f"{FL}.FlyVerifier": lambda: _verifier_call(fn(f"{FL}.FlyVerifier")()),
        f"{FL}.top_k_entropy": lambda: call_example(f"{FL}.top_k_entropy", logits=gauss(3, V)),
        f"{FL}.verify": lambda: call_example(
            f"{FL}.verify", {"draft_ids": 1}, target_logits=gauss(1, 2, V), draft_ids=ids(1, 2, vocab=V)
        ),
        f"{FL}.ngram_propose": lambda: call_example(
            f"{FL}.ngram_propose", context_ids=torch.tensor([1, 2, 3, 1, 2])
        ),
        f"{FL}.NgramDrafter": lambda: Example(
            fn(f"{FL}.NgramDrafter")(_table_lm(1)),
            {"input_ids": ids(1, 5, vocab=V)},
            vocab={"input_ids": V},
        ),
    }
)

# --- ens_watermark ---------------------------------------------------------------------------------------------
EW = "iclr26.inference.ens_watermark"
TENSOR_EXAMPLES.update(
    {
        f"{EW}.ENSLogitsProcessor": lambda: Example(
            fn(f"{EW}.ENSLogitsProcessor")([b"k1", b"k2"]),
            {"input_ids": ids(2, 3, vocab=8), "scores": gauss(2, 8)},
            agree={"input_ids": 0, "scores": 0},
            vocab={"input_ids": 8},
        ),
        f"{EW}.KGWLogitsProcessor": lambda: Example(
            fn(f"{EW}.KGWLogitsProcessor")(b"k1"),
            {"input_ids": ids(2, 3, vocab=8), "scores": gauss(2, 8)},
            agree={"input_ids": 0, "scores": 0},
            vocab={"input_ids": 8},
        ),
        f"{EW}.ENSDetector": lambda: Example(
            fn(f"{EW}.ENSDetector")([b"k1", b"k2"], vocab_size=8).score,
            {"ids": ids(12, vocab=8)},
            vocab={"ids": 8},
        ),
        f"{EW}.dipmark_cdf": lambda: call_example(
            f"{EW}.dipmark_cdf", cdf=torch.linspace(0.1, 1.0, 8), alpha=0.45
        ),
        f"{EW}.ens_distribution": lambda: call_example(
            f"{EW}.ens_distribution",
            {"probs": -1},
            probs=probs(8),
            perms=[torch.randperm(8, generator=torch.Generator().manual_seed(1))],
            reweight=fn(f"{EW}.DiPmarkReweight")(),
        ),
        f"{EW}.substitution_attack": lambda: call_example(
            f"{EW}.substitution_attack", ids=ids(2, 6, vocab=8), eps=0.3, vocab_size=8, start=1
        ),
    }
)


# --- attention papers: every mixer layer on (batch, seq, d_model) ------------------------------------------------
def _mixer(path: str, ctor: dict[str, Any], d: int = 8, t: int = 4) -> Example:
    return forward_example(path, ctor, {"x": 2}, x=gauss(2, t, d))


def _image_mixer(path: str, ctor: dict[str, Any]) -> Example:
    return forward_example(path, {"dim": 8, "heads": 2, "H": 4, "W": 4} | ctor, {"x": 3}, x=gauss(2, 4, 4, 8))


A = "iclr26.attention"
TENSOR_EXAMPLES.update(
    {
        **{
            f"{A}.hdla.{n}": (lambda n=n: _mixer(f"{A}.hdla.{n}", {"d_model": 8, "chunk_size": 2}))
            for n in (
                "DeltaNetMixer",
                "DeltaProductMixer",
                "GLAMixer",
                "GatedDeltaNetMixer",
                "HDLAAttention",
            )
        },
        **{
            f"{A}.lla.{n}": (lambda n=n: _mixer(f"{A}.lla.{n}", {"d_model": 8, "n_heads": 2}))
            for n in ("GatedDeltaNetMixer", "LinearAttentionMixer", "LocalLinearAttention")
        },
        f"{A}.swax.MLSTMLayer": lambda: _mixer(f"{A}.swax.MLSTMLayer", {"d_model": 8, "n_heads": 2}),
        f"{A}.swax.SlidingWindowAttention": lambda: _mixer(
            f"{A}.swax.SlidingWindowAttention", {"d_model": 8, "n_heads": 2, "window": 2}
        ),
        f"{A}.swax.SWAXModel": lambda: Example(
            built(lambda: fn(f"{A}.swax.SWAXModel")(n_layers=2, d_model=8, heads=2, vocab_size=8, window=2)),
            {"tokens": ids(2, 4)},
            vocab={"tokens": 8},
        ),
        f"{A}.bam.PEAttention": lambda: _mixer(f"{A}.bam.PEAttention", {"d_model": 8, "n_heads": 2}),
        f"{A}.hilbert_attention.GlobalAttention": lambda: _image_mixer(
            f"{A}.hilbert_attention.GlobalAttention", {}
        ),
        f"{A}.hilbert_attention.HilbertSlideAttention": lambda: _image_mixer(
            f"{A}.hilbert_attention.HilbertSlideAttention", {"kernel_tokens": 5}
        ),
        f"{A}.hilbert_attention.HilbertWindowAttention": lambda: _image_mixer(
            f"{A}.hilbert_attention.HilbertWindowAttention", {"window_tokens": 4}
        ),
        f"{A}.hilbert_attention.NeighborhoodAttention2d": lambda: _image_mixer(
            f"{A}.hilbert_attention.NeighborhoodAttention2d", {"kernel": 3}
        ),
        f"{A}.hilbert_attention.SwinWindowAttention": lambda: _image_mixer(
            f"{A}.hilbert_attention.SwinWindowAttention", {"window": 2}
        ),
    }
)


# --- attention papers: functions --------------------------------------------------------------------------------
def _qkv3(b: int = 1, h: int = 2, t: int = 4, d: int = 4) -> dict[str, torch.Tensor]:
    return _qkv(b, h, t, d)


HA = f"{A}.hilbert_attention"
TENSOR_EXAMPLES.update(
    {
        f"{A}.lla.linear_attention": lambda: call_example(f"{A}.lla.linear_attention", _QKV_AGREE, **_qkv3()),
        f"{A}.lla.lla": lambda: call_example(f"{A}.lla.lla", _QKV_AGREE, **_qkv3(), lam=1.0),
        f"{A}.lla.local_linear_attention": lambda: call_example(
            f"{A}.lla.local_linear_attention", _QKV_AGREE, **_qkv3(), lam=1.0
        ),
        f"{A}.lla.nadaraya_watson": lambda: call_example(f"{A}.lla.nadaraya_watson", _QKV_AGREE, **_qkv3()),
        f"{A}.lla.global_ridge": lambda: call_example(
            f"{A}.lla.global_ridge", _QKV_AGREE, **_qkv3(), lam=1.0
        ),
        f"{A}.lla.kernel_scores": lambda: call_example(
            f"{A}.lla.kernel_scores", {"k": 3}, q=_qkv3()["q"], k=_qkv3()["k"]
        ),
        f"{A}.lla.lla_weights": lambda: call_example(
            f"{A}.lla.lla_weights", {"k": 3}, q=_qkv3()["q"], k=_qkv3()["k"], lam=1.0
        ),
        f"{A}.swax.mlstm_parallel": lambda: call_example(
            f"{A}.swax.mlstm_parallel",
            {"k": 3, "v": 2, "i_pre": 2, "f_pre": 2},
            **_qkv3(),
            i_pre=gauss(1, 2, 4, seed=7),
            f_pre=gauss(1, 2, 4, seed=8),
        ),
        f"{A}.swax.mlstm_recurrent": lambda: call_example(
            f"{A}.swax.mlstm_recurrent",
            {"k": 3, "v": 2, "i_pre": 2, "f_pre": 2},
            **_qkv3(),
            i_pre=gauss(1, 2, 4, seed=7),
            f_pre=gauss(1, 2, 4, seed=8),
        ),
        f"{A}.swax.apply_rope": lambda: call_example(
            f"{A}.swax.apply_rope", {"positions": 0}, x=gauss(1, 2, 4, 4), positions=torch.arange(4)
        ),
        f"{A}.bam.bias_attention": lambda: call_example(
            f"{A}.bam.bias_attention", _QKV_AGREE | {"bias": 3}, **_qkv3(), bias=gauss(1, 2, 4, 4)
        ),
        f"{A}.bam.alibi_score_bias": lambda: call_example(
            f"{A}.bam.alibi_score_bias",
            slopes=torch.tensor([0.5, 0.25]),
            q_pos=torch.arange(4),
            k_pos=torch.arange(4),
        ),
        f"{A}.bam.ggd_bias": lambda: call_example(
            f"{A}.bam.ggd_bias",
            delta=torch.arange(-3.0, 1.0),
            theta_alpha=torch.tensor(0.1),
            beta=torch.tensor(1.0),
        ),
        f"{A}.bam.apply_rope": lambda: call_example(
            f"{A}.bam.apply_rope",
            {"cos": 0, "sin": 0},
            x=gauss(1, 2, 4, 4),
            cos=torch.ones(4, 4),
            sin=torch.zeros(4, 4),
        ),
        f"{A}.bam.rope_cos_sin": lambda: call_example(
            f"{A}.bam.rope_cos_sin", positions=torch.arange(4), d_head=4
        ),
        f"{A}.bam.ssmax_mod": lambda: call_example(f"{A}.bam.ssmax_mod", scale=torch.tensor([0.5, 0.5])),
        f"{A}.hdla.hdla_decay_terms": lambda: call_example(
            f"{A}.hdla.hdla_decay_terms",
            {"f": 3, "beta": 1},
            k_hat=torch.nn.functional.normalize(gauss(1, 4, 2, 4), dim=-1),
            f=torch.rand(1, 4, 2, 4) * 0.5 + 0.5,
            beta=torch.rand(1, 4, 2),
        ),
        f"{A}.hdla.transition_matrices": lambda: call_example(
            f"{A}.hdla.transition_matrices",
            {"a": 3, "b": 1},
            log_f=-torch.rand(1, 4, 2, 4),
            a=gauss(1, 4, 2, 4) / 4,
            b=gauss(1, 4, 2, 4, seed=1) / 4,
            r_ab=1,
        ),
        f"{A}.hdla.rank_generalized_chunk": lambda: _rank_generalized(f"{A}.hdla.rank_generalized_chunk"),
        f"{A}.hdla.rank_generalized_recurrence": lambda: _rank_generalized(
            f"{A}.hdla.rank_generalized_recurrence"
        ),
        f"{HA}.hilbert_slide_attention": lambda: call_example(
            f"{HA}.hilbert_slide_attention", x=gauss(1, 2, 16, 4), H=4, W=4, kernel_tokens=5
        ),
        f"{HA}.hilbert_window_attention": lambda: call_example(
            f"{HA}.hilbert_window_attention", x=gauss(1, 2, 16, 4), H=4, W=4, window_tokens=4
        ),
        f"{HA}.neighborhood_attention_2d": lambda: call_example(
            f"{HA}.neighborhood_attention_2d", x=gauss(1, 2, 16, 4), H=4, W=4, kernel=3
        ),
        f"{HA}.swin_window_attention": lambda: call_example(
            f"{HA}.swin_window_attention", x=gauss(1, 2, 16, 4), H=4, W=4, window=2
        ),
        f"{HA}.to_curve": lambda: call_example(f"{HA}.to_curve", x=gauss(1, 4, 4, 8)),
        f"{HA}.from_curve": lambda: call_example(f"{HA}.from_curve", x_seq=gauss(1, 16, 8), H=4, W=4),
        f"{HA}.block_sparsity": lambda: call_example(
            f"{HA}.block_sparsity", mask=torch.ones(8, 8, dtype=torch.bool).tril(), block=4
        ),
        f"{HA}.block_stats": lambda: call_example(
            f"{HA}.block_stats", mask=torch.ones(8, 8, dtype=torch.bool).tril(), block=4
        ),
        f"{HA}.BlockSparseAttention": lambda: Example(
            fn(f"{HA}.BlockSparseAttention")(torch.ones(8, 8, dtype=torch.bool).tril(), block=4),
            _qkv(1, 2, 8, 4),
            agree=_QKV_AGREE,
        ),
        f"{HA}.local_mask": lambda: call_example(
            f"{HA}.local_mask", order=fn(f"{HA}.gilbert_order")(4, 4), kind="window", size=4
        ),
        f"{HA}.curve_index": lambda: call_example(
            f"{HA}.curve_index", order=fn(f"{HA}.gilbert_order")(4, 4), H=4, W=4
        ),
    }
)

# --- dirmoe ------------------------------------------------------------------------------------------------------
DM = f"{A}.dirmoe"
TENSOR_EXAMPLES.update(
    {
        f"{DM}.DirichletRouter": lambda: forward_example(
            f"{DM}.DirichletRouter", {"d_model": 8, "n_experts": 4, "k_target": 0.5}, {"h": -1}, h=gauss(6, 8)
        ),
        **{
            f"{DM}.{n}": (
                lambda n=n: forward_example(
                    f"{DM}.{n}", {"d_model": 8, "n_experts": 4}, {"h": -1}, h=gauss(6, 8)
                )
            )
            for n in ("NoisyTopKRouter", "ReLURouter", "TopKSoftmaxRouter", "SoftMoE")
        },
        f"{DM}.MoEFFN": lambda: Example(
            built(lambda: fn(f"{DM}.MoEFFN")(8, 16, 4, fn(f"{DM}.TopKSoftmaxRouter")(8, 4))),
            {"x": gauss(2, 3, 8)},
            agree={"x": -1},
        ),
        f"{DM}.bernoulli_kl": lambda: call_example(
            f"{DM}.bernoulli_kl", pi=torch.rand(6, 4) * 0.8 + 0.1, pi0=0.5
        ),
        f"{DM}.combine_gates": lambda: call_example(
            f"{DM}.combine_gates", {"theta": -1}, z=torch.rand(6, 4), theta=probs(6, 4)
        ),
        f"{DM}.dirichlet_kl": lambda: call_example(
            f"{DM}.dirichlet_kl", alpha=torch.rand(6, 4) + 0.5, alpha0=1.0
        ),
        f"{DM}.expected_active": lambda: call_example(f"{DM}.expected_active", pi=torch.rand(6, 4)),
        f"{DM}.expected_simpson": lambda: call_example(
            f"{DM}.expected_simpson", alpha=torch.rand(6, 4) + 0.5
        ),
        f"{DM}.inference_gates": lambda: call_example(
            f"{DM}.inference_gates", {"alpha": -1}, pi=torch.rand(6, 4), alpha=torch.rand(6, 4) + 0.5
        ),
        f"{DM}.inference_selection": lambda: call_example(f"{DM}.inference_selection", pi=torch.rand(6, 4)),
        f"{DM}.relaxed_selection": lambda: call_example(
            f"{DM}.relaxed_selection", logits=gauss(6, 4), tau=0.5
        ),
        f"{DM}.sparsity_penalty": lambda: call_example(
            f"{DM}.sparsity_penalty", pi=torch.rand(6, 4), k_target=0.5
        ),
        f"{DM}.spike_slab_concentrations": lambda: call_example(
            f"{DM}.spike_slab_concentrations", z=torch.rand(6, 4), high=2.0, low=0.5, scale=1.0
        ),
        f"{DM}.switch_balance_loss": lambda: Example(
            fn(f"{DM}.switch_balance_loss"),
            {"probs": probs(6, 4), "indices": ids(6, 2, vocab=4), "n_experts": 4},
            agree={"indices": 0},
            vocab={"indices": 4},
        ),
    }
)


# --- decoding rules: dparallel, soft_thinking, klas --------------------------------------------------------------
DP = "iclr26.inference.dparallel"
ST = "iclr26.mechanisms.soft_thinking"
KL = "iclr26.inference.klas"
TENSOR_EXAMPLES.update(
    {
        f"{DP}.predictive_entropy": lambda: call_example(f"{DP}.predictive_entropy", logits=gauss(2, 4, V)),
        f"{DP}.tempered_entropy": lambda: call_example(f"{DP}.tempered_entropy", logits=gauss(2, 4, V)),
        f"{DP}.certainty_forcing_loss": lambda: Example(
            fn(f"{DP}.certainty_forcing_loss"),
            {
                "logits": gauss(2, 4, V),
                "labels": ids(2, 4, vocab=V),
                "mask": torch.ones(2, 4, dtype=torch.bool),
            },
            agree={"labels": 1, "mask": 1},
            vocab={"labels": V},
        ),
        f"{DP}.semi_ar_masks": lambda: Example(
            fn(f"{DP}.semi_ar_masks"),
            {"input_ids": ids(2, 8, vocab=V), "prompt_len": 2, "block_size": 2, "mask_id": V},
            vocab={"input_ids": V + 1},
        ),
        f"{ST}.js_divergence": lambda: call_example(
            f"{ST}.js_divergence", {"q": -1}, p=probs(3, V, seed=1), q=probs(3, V, seed=2)
        ),
        f"{ST}.soft_weights": lambda: call_example(f"{ST}.soft_weights", logits=gauss(3, V), k=3),
        f"{ST}.dirichlet_weights": lambda: call_example(
            f"{ST}.dirichlet_weights", p=probs(3, V), generator=torch.Generator().manual_seed(0)
        ),
        f"{ST}.gumbel_weights": lambda: call_example(
            f"{ST}.gumbel_weights", p=probs(3, V), generator=torch.Generator().manual_seed(0)
        ),
        f"{ST}.mix_embeddings": lambda: Example(
            fn(f"{ST}.mix_embeddings"),
            {"embedding": gauss(V, 8), "ids": ids(3, 2, vocab=V), "weights": probs(3, 2)},
            agree={"weights": -1},
            vocab={"ids": V},
        ),
        f"{KL}.linear_cka": lambda: call_example(
            f"{KL}.linear_cka", {"Y": 0}, X=gauss(10, 4, seed=1), Y=gauss(10, 3, seed=2)
        ),
        f"{KL}.fit_stitch_ls": lambda: call_example(
            f"{KL}.fit_stitch_ls", {"H_b": 0}, H_a=gauss(10, 4, seed=1), H_b=gauss(10, 3, seed=2)
        ),
        f"{KL}.TinyCNN": lambda: forward_example(
            f"{KL}.TinyCNN", {"width": 4, "depth": 1}, {"x": 1}, x=gauss(2, 64)
        ),
        f"{KL}.TinyMixer": lambda: forward_example(
            f"{KL}.TinyMixer", {"width": 4, "depth": 1}, {"x": 1}, x=gauss(2, 64)
        ),
        f"{KL}.select_stitches": lambda: call_example(
            f"{KL}.select_stitches",
            {"flops": 0},
            kl=np.random.default_rng(0).random((3, 3)),
            flops=np.arange(9.0).reshape(3, 3) + 1,
            n_bins=2,
        ),
    }
)

# --- science / decision / mechanisms: estimators and metrics on arrays ----------------------------------------------
BB = "iclr26.science.biobo"
FS = "iclr26.science.fisale"
OV = "iclr26.science.overtone"
DL = "iclr26.decision.dual_learner_crl"
IR = "iclr26.mechanisms.icl_info_removal"
PB = "iclr26.decision.pac_bayes_continual"
VN = "iclr26.decision.virne"
TENSOR_EXAMPLES.update(
    {
        f"{BB}.expected_improvement": lambda: call_example(
            f"{BB}.expected_improvement", {"var": 0}, mean=gauss(5), var=torch.rand(5) + 0.1, best_f=0.0
        ),
        f"{BB}.upper_confidence_bound": lambda: call_example(
            f"{BB}.upper_confidence_bound", {"var": 0}, mean=gauss(5), var=torch.rand(5) + 0.1
        ),
        f"{BB}.thompson_sample": lambda: call_example(
            f"{BB}.thompson_sample",
            {"cov": 0},
            mean=gauss(4),
            cov=torch.eye(4),
            generator=torch.Generator().manual_seed(0),
        ),
        f"{BB}.matern52": lambda: call_example(
            f"{BB}.matern52",
            {"x2": 1, "lengthscale": 0},
            x1=gauss(4, 3, seed=1),
            x2=gauss(5, 3, seed=2),
            lengthscale=torch.ones(3),
            outputscale=torch.tensor(1.0),
        ),
        f"{BB}.top_b": lambda: call_example(f"{BB}.top_b", scores=gauss(6), b=2),
        f"{BB}.benjamini_hochberg": lambda: call_example(
            f"{BB}.benjamini_hochberg", p=np.linspace(0.01, 0.5, 6)
        ),
        f"{FS}.enclosed_area": lambda: call_example(
            f"{FS}.enclosed_area",
            ring=torch.stack(
                [torch.cos(torch.linspace(0, 6.0, 12)), torch.sin(torch.linspace(0, 6.0, 12))], -1
            ),
        ),
        f"{FS}.knn_graph": lambda: call_example(f"{FS}.knn_graph", x=gauss(1, 10, 2), k=3),
        f"{FS}.peskin_delta": lambda: call_example(f"{FS}.peskin_delta", r=torch.linspace(-2, 2, 9)),
        f"{FS}.per_channel_relative_l1": lambda: call_example(
            f"{FS}.per_channel_relative_l1",
            {"target": -1},
            pred=gauss(1, 4, 3, seed=1),
            target=gauss(1, 4, 3, seed=2),
        ),
        f"{FS}.relative_l2": lambda: call_example(
            f"{FS}.relative_l2", {"target": -1}, pred=gauss(1, 4, 3, seed=1), target=gauss(1, 4, 3, seed=2)
        ),
        f"{FS}.spectral_divergence": lambda: call_example(
            f"{FS}.spectral_divergence", {"v": -1}, u=gauss(8, 8, seed=1), v=gauss(8, 8, seed=2)
        ),
        f"{OV}.vrmse": lambda: call_example(
            f"{OV}.vrmse", {"true": -1}, pred=gauss(2, 3, 8, 8, seed=1), true=gauss(2, 3, 8, 8, seed=2)
        ),
        f"{OV}.residual_spectrum": lambda: call_example(f"{OV}.residual_spectrum", err=gauss(2, 8, 8)),
        f"{OV}.pi_resize": lambda: call_example(f"{OV}.pi_resize", weight=gauss(4, 4), new_shape=(6, 6)),
        f"{DL}.kl_regularizer": lambda: call_example(
            f"{DL}.kl_regularizer",
            {"meta_logits": -1},
            q_values=gauss(5, 4, seed=1),
            meta_logits=gauss(5, 4, seed=2),
        ),
        f"{DL}.catastrophic_forgetting": lambda: call_example(
            f"{DL}.catastrophic_forgetting",
            {"pi_old": 0, "pi_new": 1},
            mu_old=np.full(5, 0.2),
            pi_old=np.full((5, 4), 0.25),
            pi_new=np.random.default_rng(0).dirichlet(np.ones(4), 5),
        ),
        f"{DL}.forward_transfer": lambda: call_example(
            f"{DL}.forward_transfer",
            {"auc_reset": 0},
            auc_method=np.array([0.5, 0.7]),
            auc_reset=np.array([0.4, 0.6]),
        ),
        f"{IR}.selectivity": lambda: Example(
            fn(f"{IR}.selectivity"),
            {
                "probs": probs(4, V),
                "label_sets": torch.tensor([[0, 1], [2, 3]]),
                "tasks": torch.tensor([0, 1, 0, 1]),
            },
            agree={"tasks": 0},
            vocab={"tasks": 2},
        ),
        f"{IR}.off_subspace_ratio": lambda: call_example(
            f"{IR}.off_subspace_ratio",
            {"U": 0, "h_mean": 0},
            hidden=gauss(5, 8),
            U=torch.linalg.qr(gauss(8, 2))[0],
            h_mean=torch.zeros(8),
        ),
        f"{IR}.pca_filter": lambda: call_example(
            f"{IR}.pca_filter", {"h_mean": 0}, hidden=gauss(10, 8), r=2, h_mean=torch.zeros(8)
        ),
        f"{IR}.alignment": lambda: call_example(
            f"{IR}.alignment",
            {"filtered_zero": 1, "fewshot_mean": 0, "h_mean": 0},
            fewshot=gauss(5, 8, seed=1),
            filtered_zero=gauss(5, 8, seed=2),
            fewshot_mean=gauss(8, seed=3),
            h_mean=torch.zeros(8),
        ),
        f"{PB}.kl_full_gauss": lambda: call_example(
            f"{PB}.kl_full_gauss",
            {"cov_q": 0, "mu_p": 0, "cov_p": 0},
            mu_q=np.zeros(3),
            cov_q=np.eye(3),
            mu_p=np.ones(3),
            cov_p=2 * np.eye(3),
        ),
        f"{PB}.catoni_bound": lambda: call_example(
            f"{PB}.catoni_bound",
            {"kls": 0},
            emp_risks=np.array([0.2, 0.3]),
            kls=np.array([1.0, 2.0]),
            m=100,
            delta=0.05,
            K=1.0,
            lam=1.0,
        ),
        f"{PB}.cumulative_bound": lambda: call_example(
            f"{PB}.cumulative_bound",
            {"kls": 0},
            emp_risks=np.array([0.2, 0.3]),
            kls=np.array([1.0, 2.0]),
            m=100,
            delta=0.05,
        ),
        f"{PB}.running_bound": lambda: call_example(
            f"{PB}.running_bound",
            {"kls": 0},
            emp_risks=np.array([0.2, 0.3]),
            kls=np.array([1.0, 2.0]),
            m=100,
            delta=0.05,
        ),
        f"{VN}.nrm_scores": lambda: call_example(
            f"{VN}.nrm_scores",
            {"adj_bw_sum": 0},
            cpu=np.array([1.0, 2.0, 3.0]),
            adj_bw_sum=np.array([2.0, 1.0, 1.0]),
        ),
        f"{VN}.grc_scores": lambda: call_example(
            f"{VN}.grc_scores",
            {"bw": 0},
            cpu=np.array([1.0, 2.0, 3.0]),
            edges=np.array([[0, 1], [1, 2]]),
            bw=np.array([1.0, 2.0]),
        ),
    }
)


# --- optimizers: the parameters handed to the constructor --------------------------------------------------------
def _optimizer(path: str, shape: tuple[int, ...] = (4, 4), **ctor: Any) -> Example:
    def step(param: Any) -> Any:
        if isinstance(param, torch.Tensor) and (param.is_floating_point() or param.is_complex()):
            param.requires_grad_(True)
        optimizer = fn(path)([param], **ctor)
        if isinstance(param, torch.Tensor) and param.requires_grad:
            param.grad = torch.ones_like(param) / 10
        optimizer.step()
        return param.detach()

    return Example(step, {"param": gauss(*shape)}, names={"param": ("params", "parameter", "parameters")})


OP = "iclr26.optim"
TENSOR_EXAMPLES.update(
    {
        f"{OP}.specgd.SpectralGD": lambda: _optimizer(f"{OP}.specgd.SpectralGD"),
        f"{OP}.specgd.NormalizedGD": lambda: _optimizer(f"{OP}.specgd.NormalizedGD"),
        f"{OP}.cosmos.COSMOS": lambda: _optimizer(f"{OP}.cosmos.COSMOS", rank=2),
        f"{OP}.racs_alice.RACS": lambda: _optimizer(f"{OP}.racs_alice.RACS"),
        f"{OP}.racs_alice.Alice": lambda: _optimizer(f"{OP}.racs_alice.Alice", rank=2, leading_basis=1),
        f"{OP}.specgd.orthogonalize_ns": lambda: call_example(f"{OP}.specgd.orthogonalize_ns", g=gauss(4, 3)),
        f"{OP}.cosmos.newton_schulz5": lambda: call_example(f"{OP}.cosmos.newton_schulz5", g=gauss(4, 3)),
        f"{OP}.specgd.linear_dynamics_closed_form": lambda: call_example(
            f"{OP}.specgd.linear_dynamics_closed_form",
            priors=torch.tensor([0.5, 0.3, 0.2]),
            a=1.0,
            lr=0.1,
            steps=3,
        ),
        f"{OP}.attent.classification_score": lambda: Example(
            fn(f"{OP}.attent.classification_score"),
            {"logits": gauss(5, 3), "targets": ids(5, vocab=3)},
            agree={"targets": 0},
            vocab={"targets": 3},
        ),
        f"{OP}.attent.classification_loss_score": lambda: Example(
            fn(f"{OP}.attent.classification_loss_score"),
            {"logits": gauss(5, 3), "targets": ids(5, vocab=3)},
            agree={"targets": 0},
            vocab={"targets": 3},
        ),
    }
)

# --- architectures ------------------------------------------------------------------------------------------------
AR = "iclr26.architectures"
TENSOR_EXAMPLES.update(
    {
        f"{AR}.phat.DyT": lambda: forward_example(f"{AR}.phat.DyT", {"dim": 8}, {"x": -1}, x=gauss(2, 3, 8)),
        f"{AR}.phat.SwiGLU": lambda: forward_example(
            f"{AR}.phat.SwiGLU", {"d_model": 8}, {"x": -1}, x=gauss(2, 3, 8)
        ),
        f"{AR}.phat.PNAttention": lambda: forward_example(
            f"{AR}.phat.PNAttention", {"d_model": 8, "n_heads": 2}, {"z": -1}, z=gauss(2, 3, 4, 8)
        ),
        f"{AR}.phat.PHATBlock": lambda: forward_example(
            f"{AR}.phat.PHATBlock", {"d_model": 8, "n_heads": 2}, {"z": -1}, z=gauss(2, 3, 4, 8)
        ),
        f"{AR}.phat.PHAT": lambda: forward_example(
            f"{AR}.phat.PHAT",
            {"seq_len": 16, "pred_len": 4, "n_vars": 2, "d_model": 8, "n_heads": 2},
            {"x": 2},
            x=gauss(2, 16, 2),
        ),
        f"{AR}.phat.stick_softplus": lambda: call_example(f"{AR}.phat.stick_softplus", x=gauss(2, 4)),
        f"{AR}.phat.detect_periods": lambda: call_example(f"{AR}.phat.detect_periods", x=gauss(2, 16, 2)),
        f"{AR}.phat.fold": lambda: call_example(f"{AR}.phat.fold", z=gauss(2, 8, 4), P=4),
        f"{AR}.fact_forecast.DLinear": lambda: forward_example(
            f"{AR}.fact_forecast.DLinear",
            {"seq_len": 16, "pred_len": 4, "n_vars": 2, "kernel": 5},
            {"x": 2},
            x=gauss(2, 16, 2),
        ),
        f"{AR}.fact_forecast.TSMixerLite": lambda: forward_example(
            f"{AR}.fact_forecast.TSMixerLite",
            {"seq_len": 16, "pred_len": 4, "n_vars": 2, "d_ff": 8},
            {"x": 2},
            x=gauss(2, 16, 2),
        ),
        f"{AR}.fact_forecast.ITransformer": lambda: forward_example(
            f"{AR}.fact_forecast.ITransformer",
            {"seq_len": 16, "pred_len": 4, "n_vars": 2, "d_model": 8, "d_ff": 8, "n_layers": 1, "n_heads": 2},
            {"x": 2},
            x=gauss(2, 16, 2),
        ),
        f"{AR}.fact_forecast.PatchTST": lambda: forward_example(
            f"{AR}.fact_forecast.PatchTST",
            {
                "seq_len": 16,
                "pred_len": 4,
                "n_vars": 2,
                "patch_len": 4,
                "stride": 4,
                "d_model": 8,
                "d_ff": 8,
                "n_layers": 1,
                "n_heads": 2,
            },
            {"x": 2},
            x=gauss(2, 16, 2),
        ),
        f"{AR}.fact_forecast.FACT": lambda: forward_example(
            f"{AR}.fact_forecast.FACT",
            {"seq_len": 16, "pred_len": 4, "n_vars": 4, "d_model": 8, "d_ff": 8},
            {"x": 2},
            x=gauss(2, 16, 4),
        ),
        f"{AR}.fact_forecast.AttnBlock": lambda: forward_example(
            f"{AR}.fact_forecast.AttnBlock",
            {"d_model": 8, "d_ff": 8, "n_heads": 2},
            {"h": 1},
            h=gauss(2, 8, 3),
        ),
        f"{AR}.fact_forecast.InceptionDW": lambda: forward_example(
            f"{AR}.fact_forecast.InceptionDW", {"channels": 4}, {"z": 1}, z=gauss(2, 4, 4, 4)
        ),
        f"{AR}.fact_forecast.pad_to_grid": lambda: call_example(
            f"{AR}.fact_forecast.pad_to_grid", h=gauss(2, 5, 8)
        ),
        f"{AR}.mamba_theory.AttentionClassifier": lambda: forward_example(
            f"{AR}.mamba_theory.AttentionClassifier", {"d": 4, "m": 4}, {"X": -1}, X=gauss(3, 5, 4)
        ),
        f"{AR}.mamba_theory.SelectiveSSMClassifier": lambda: forward_example(
            f"{AR}.mamba_theory.SelectiveSSMClassifier", {"d": 4, "m": 4}, {"X": -1}, X=gauss(3, 5, 4)
        ),
        f"{AR}.mamba_theory.majority_labels": lambda: call_example(
            f"{AR}.mamba_theory.majority_labels", pattern_ids=ids(3, 5, vocab=4)
        ),
        f"{AR}.hyper_set.average_angle": lambda: call_example(
            f"{AR}.hyper_set.average_angle", u=gauss(2, 5, 8)
        ),
        f"{AR}.hyper_set.effective_rank": lambda: call_example(
            f"{AR}.hyper_set.effective_rank", u=gauss(2, 5, 8)
        ),
        f"{AR}.hyper_set.StepSizeNet": lambda: forward_example(
            f"{AR}.hyper_set.StepSizeNet",
            {"d_model": 8, "time_emb": 8},
            {"z": -1},
            c_t=gauss(8, seed=1),
            z=gauss(2, 5, 8, seed=2),
        ),
        f"{AR}.hyper_set.HyperSETBlock": lambda: forward_example(
            f"{AR}.hyper_set.HyperSETBlock",
            {"d_model": 8, "n_heads": 2},
            {"x": -1},
            x=gauss(2, 5, 8),
            alpha=0.5,
            beta=0.5,
        ),
        f"{AR}.aside.VanillaEmbedding": lambda: Example(
            built(lambda: fn(f"{AR}.aside.VanillaEmbedding")(torch.nn.Embedding(8, 8))),
            {"input_ids": ids(2, 4), "segment_ids": torch.zeros(2, 4, dtype=torch.long)},
            agree={"segment_ids": 1},
            vocab={"input_ids": 8},
        ),
        f"{AR}.aside.ASIDEEmbedding": lambda: Example(
            built(lambda: fn(f"{AR}.aside.ASIDEEmbedding")(torch.nn.Embedding(8, 8))),
            {"input_ids": ids(2, 4), "segment_ids": torch.zeros(2, 4, dtype=torch.long)},
            agree={"segment_ids": 1},
            vocab={"input_ids": 8},
        ),
        f"{AR}.aside.ISEEmbedding": lambda: Example(
            built(lambda: fn(f"{AR}.aside.ISEEmbedding")(torch.nn.Embedding(8, 8))),
            {"input_ids": ids(2, 4), "segment_ids": torch.zeros(2, 4, dtype=torch.long)},
            agree={"segment_ids": 1},
            vocab={"input_ids": 8},
        ),
        f"{AR}.aside.check_segment_ids": lambda: call_example(
            f"{AR}.aside.check_segment_ids", segment_ids=torch.zeros(2, 4, dtype=torch.long), shape=(2, 4)
        ),
    }
)


#: (callable, argument) -> why a leading axis more or fewer is legitimately accepted (the ndim+/ndim- mutations)
_ANY_LEADING: dict[tuple[str, str], str] = {
    **{
        (name, "x"): "a position-wise layer maps over any leading axes, as nn.Linear does"
        for name in (
            "iclr26.lab.transformer.MLP",
            "iclr26.lab.transformer.SwiGLU",
            "iclr26.architectures.phat.DyT",
            "iclr26.architectures.phat.SwiGLU",
        )
    },
    **{
        (name, arg): "elementwise, documented: any shape"
        for name, arg in (
            ("iclr26.architectures.phat.stick_softplus", "x"),
            ("iclr26.inference.cactus.binary_kl", "a"),
            ("iclr26.inference.cactus.binary_kl", "b"),
            ("iclr26.inference.ens_watermark.dipmark_cdf", "cdf"),
            ("iclr26.science.fisale.peskin_delta", "r"),
            ("iclr26.attention.dirmoe.bernoulli_kl", "pi"),
            ("iclr26.attention.dirmoe.spike_slab_concentrations", "z"),
        )
    },
    **{("iclr26.attention.bam.ggd_bias", arg): "every argument broadcasts, documented" for arg in ("delta",)},
    **{
        (name, arg): "reduces over the last axis only, documented (..., V): leading axes are batch axes"
        for name, arg in (
            ("iclr26.inference.dparallel.predictive_entropy", "logits"),
            ("iclr26.inference.dparallel.tempered_entropy", "logits"),
            ("iclr26.inference.fly.top_k_entropy", "logits"),
            ("iclr26.mechanisms.soft_thinking.soft_weights", "logits"),
            ("iclr26.mechanisms.soft_thinking.dirichlet_weights", "p"),
            ("iclr26.mechanisms.soft_thinking.gumbel_weights", "p"),
            ("iclr26.attention.dirmoe.dirichlet_kl", "alpha"),
            ("iclr26.attention.dirmoe.expected_active", "pi"),
            ("iclr26.attention.dirmoe.expected_simpson", "alpha"),
            ("iclr26.attention.dirmoe.inference_selection", "pi"),
            ("iclr26.attention.dirmoe.relaxed_selection", "logits"),
            ("iclr26.attention.dirmoe.sparsity_penalty", "pi"),
        )
    },
    **{
        (name, arg): "documented (..., T, d): leading axes are batch/head axes"
        for name, arg in (
            ("iclr26.attention.swax.apply_rope", "x"),
            ("iclr26.attention.bam.apply_rope", "x"),
            ("iclr26.attention.lla.kernel_scores", "q"),
            ("iclr26.attention.lla.kernel_scores", "k"),
        )
    },
    ("iclr26.attention.bam.apply_rope", "cos"): "the (T, d_head) table broadcasts against x, documented",
    ("iclr26.attention.bam.apply_rope", "sin"): "the (T, d_head) table broadcasts against x, documented",
    ("iclr26.optim.specgd.NormalizedGD", "param"): "normalised GD updates parameters of any shape",
    ("iclr26.lab.flex.masked_softmax", "scores"): "a softmax over the last axis maps over any leading axes",
    ("iclr26.lab.flex.masked_softmax", "keep"): "keep broadcasts to the scores' shape, documented",
}
#: the one non-finite input that comes out finite through torch's own kernel
_SDPA_ROW = (
    "an infinite entry scores -inf against keys of the other sign, and torch's SDPA kernel gives zeros for a row "
    "whose every score is -inf (as for a masked row); a NaN propagates, and the explicit executors keep it"
)
ACCEPTS.update(
    {(name, arg, m): reason for (name, arg), reason in _ANY_LEADING.items() for m in ("ndim-", "ndim+")}
)
ACCEPTS.update(
    {
        **{
            (
                f"iclr26.attention.dirmoe.{n}",
                "h",
                m,
            ): "a router maps (..., d_model) tokens to (..., n_experts) gates, "
            "documented (Router.forward): MoEFFN routes (B, T, d_model), a single token is (d_model,)"
            for n in ("DirichletRouter", "NoisyTopKRouter", "ReLURouter", "SoftMoE", "TopKSoftmaxRouter")
            for m in ("ndim-", "ndim+")
        },
        **{
            (
                f"iclr26.architectures.hyper_set.{n}",
                "u",
                m,
            ): "documented (..., N, p): one value per leading index"
            for n in ("average_angle", "effective_rank")
            for m in ("ndim-", "ndim+")
        },
        **{
            (
                "iclr26.science.overtone.residual_spectrum",
                "err",
                m,
            ): "documented (..., H, W): the spectra average over the leading axes"
            for m in ("ndim-", "ndim+")
        },
        (
            "iclr26.science.overtone.pi_resize",
            "weight",
            "ndim+",
        ): "documented (..., h, w): kernels are resized over any leading axes",
        (
            "iclr26.mechanisms.icl_info_removal.selectivity",
            "tasks",
            "ndim-",
        ): "a 0-d tasks is one task for every row, like the documented int",
        (
            "iclr26.science.biobo.matern52",
            "lengthscale",
            "ndim-",
        ): "documented: 1 or d lengthscales; a single one is shared by every dimension",
        (
            "iclr26.inference.ens_watermark.ENSDetector",
            "ids",
            "ndim+",
        ): "documented: a (1, T) batch of one text is scored as that text",
        (
            "iclr26.inference.ens_watermark.ens_distribution",
            "probs",
            "ndim+",
        ): "documented (DiPmarkReweight.reweight): probs (V,) or (batch, V)",
        ("iclr26.inference.fly.ngram_propose", "context_ids", "ndim+"): "documented: 1-D (or (1, n))",
        **{
            (
                "iclr26.attention.dirmoe.switch_balance_loss",
                arg,
                "ndim+",
            ): "documented (..., E) and (..., k): "
            "only the token counts must agree (MoE layers pass (B, T, E) probs with (B * T, k) indices)"
            for arg in ("probs", "indices")
        },
        (
            "iclr26.science.fisale.enclosed_area",
            "ring",
            "ndim+",
        ): "documented (..., N, 2): one area per leading index",
    }
)
ACCEPTS.update(
    {
        (
            name,
            arg,
            m,
        ): "a pure layout operation (a gather or a zero pad): every dtype is carried through unchanged"
        for name, arg in (
            ("iclr26.attention.hilbert_attention.to_curve", "x"),
            ("iclr26.attention.hilbert_attention.from_curve", "x_seq"),
            ("iclr26.architectures.fact_forecast.pad_to_grid", "h"),
        )
        for m in ("int", "complex", "bool")
    }
)
ACCEPTS.update(
    {
        ("iclr26.lab.flex.attention", "bias", "ndim-"): "bias broadcasts to (B, H, Tq, Tk), documented",
        (
            "iclr26.architectures.phat.DyT",
            "x",
            "inf",
        ): "tanh saturates: DyT(+inf) = weight + bias is the exact limit",
        (
            "iclr26.science.fisale.peskin_delta",
            "r",
            "inf",
        ): "the kernel has compact support: delta(+inf) = 0 exactly",
        (
            "iclr26.attention.swax.mlstm_parallel",
            "f_pre",
            "inf",
        ): "a +inf forget pre-activation is the exact limit sigmoid = 1 (log-gate 0): the memory is kept",
        (
            "iclr26.attention.swax.mlstm_recurrent",
            "f_pre",
            "inf",
        ): "a +inf forget pre-activation is the exact limit sigmoid = 1 (log-gate 0): the memory is kept",
        ("iclr26.inference.klas.select_stitches", "kl", "nan"): "documented: NaN scores are never chosen "
        "(snnet_scores marks candidates outside its window with NaN)",
        (
            "iclr26.inference.klas.select_stitches",
            "kl",
            "inf",
        ): "a non-finite score is never chosen, like NaN (documented)",
        (
            "iclr26.lab.transformer.MultiHeadAttention",
            "score_bias",
            "ndim+",
        ): "a leading batch axis broadcasts (per-example biases), documented",
        ("iclr26.lab.flex.log_n_scaling", "s", "ndim-"): "a single s for every head, documented",
        (
            "iclr26.lab.flex.alibi",
            "slopes",
            "ndim-",
        ): "a single slope is one head's; the head count is checked at use, documented",
        (
            "iclr26.lab.flex.alibi_bias",
            "slopes",
            "ndim-",
        ): "a single slope gives a one-head (1, 1, tq, tk) bias",
        (
            "iclr26.optim.cosmos.COSMOS",
            "param",
            "ndim-",
        ): "a parameter that is not a matrix takes the AdamW branch, documented",
        (
            "iclr26.optim.cosmos.COSMOS",
            "param",
            "ndim+",
        ): "a parameter that is not a matrix takes the AdamW branch, documented",
        (
            "iclr26.lab.transformer.check_sequence_input",
            "x",
            "nan",
        ): "a shape check: values are the layer's concern",
        (
            "iclr26.lab.transformer.check_sequence_input",
            "x",
            "inf",
        ): "a shape check: values are the layer's concern",
        ("iclr26.attention.bam.ggd_bias", "theta_alpha", "ndim+"): "every argument broadcasts, documented",
        ("iclr26.attention.bam.ggd_bias", "beta", "ndim+"): "every argument broadcasts, documented",
        (
            "iclr26.attention.bam.bias_attention",
            "bias",
            "ndim-",
        ): "bias broadcasts to (B, H, Tq, Tk), documented",
        (
            "iclr26.attention.bam.bias_attention",
            "k",
            "inf",
        ): _SDPA_ROW,
        ("iclr26.lab.flex.block_sparse_attention", "q", "inf"): _SDPA_ROW,
        (
            "iclr26.attention.bam.ssmax_mod",
            "scale",
            "ndim-",
        ): "one value for every head (0-D) or one per head, documented",
        (
            "iclr26.inference.dparallel.semi_ar_masks",
            "input_ids",
            "oov",
        ): "takes no vocabulary size: any id >= 0 but mask_id is a token (negative ids are refused)",
    }
)


_EXAMPLES, _ACCEPTS = case_tables()
_TWICE = set(_EXAMPLES) & set(TENSOR_EXAMPLES)
assert not _TWICE, f"examples defined both here and in tensor_cases/: {sorted(_TWICE)}"
TENSOR_EXAMPLES.update(_EXAMPLES)
ACCEPTS.update(_ACCEPTS)


# --- the battery --------------------------------------------------------------------------------------------
class _Timeout(Exception):
    pass


def _seeded_run(example: Example, args: dict[str, Any] | None = None) -> Any:
    def alarm(*_: Any) -> None:
        raise _Timeout("the call ran over 5 s")

    torch.manual_seed(0)
    np.random.seed(0)  # noqa: NPY002 - components that draw from the legacy global state
    random.seed(0)
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, 5.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.no_grad():
                return example.run(args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def make(name: str) -> Example:
    """A fresh example (the factory runs under fixed seeds, so its random tensors are the same every time)."""
    torch.manual_seed(0)
    np.random.seed(0)  # noqa: NPY002 - components that draw from the legacy global state
    random.seed(0)
    return TENSOR_EXAMPLES[name]()


def _kind(value: Any) -> str | None:
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            return "float"
        if value.dtype == torch.bool:
            return "bool"
        return None if value.is_complex() else "int"
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            return "np-float"
        if value.dtype.kind in "iu":
            return "np-int"
        if value.dtype.kind == "b":
            return "np-bool"
    return None


def _grow(x: Any, dim: int) -> Any:
    if isinstance(x, torch.Tensor):
        return torch.cat([x, x.narrow(dim, 0, 1)], dim=dim)
    return np.concatenate([x, np.take(x, [0], axis=dim)], axis=dim)


def _poke(x: Any, value: float) -> Any:
    y = x.clone() if isinstance(x, torch.Tensor) else x.copy()
    y[(0,) * y.ndim] = value
    return y


def _optional(example: Example, arg: str) -> bool:
    """Whether `arg` defaults to None (None is then a documented value, not a mutation)."""
    call = example.call.forward if isinstance(example.call, torch.nn.Module) else example.call
    try:
        parameter = inspect.signature(call).parameters.get(arg)
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.default is None


def mutations(example: Example, arg: str) -> dict[str, Callable[[Any], Any]]:
    """The mutations that apply to argument `arg` of `example`, each a function of the valid value."""
    x = example.args[arg]
    kind = _kind(x)
    out: dict[str, Callable[[Any], Any]] = {}
    if kind is None:
        return out
    if x.ndim >= 1:
        out["ndim-"] = lambda v: v[0]
    out["ndim+"] = lambda v: v[None]
    if arg in example.agree:
        out["size"] = lambda v: _grow(v, example.agree[arg])
    if kind == "float":
        out["int"] = lambda v: v.round().long()
        out["complex"] = lambda v: v.to(torch.complex64)
        out["bool"] = lambda v: v > 0
    elif kind == "np-float":
        out["complex"] = lambda v: v.astype(np.complex128)
    elif kind in ("int", "np-int"):
        out["float"] = lambda v: v.float() if isinstance(v, torch.Tensor) else v.astype(np.float64)
        if arg in example.vocab:
            out["oov"] = lambda v: _poke(v, example.vocab[arg])
    out["str"] = lambda v: "x"
    if not _optional(example, arg):
        out["None"] = lambda v: None
    if kind in ("float", "np-float"):
        out["nan"] = lambda v: _poke(v, float("nan"))
        out["inf"] = lambda v: _poke(v, float("inf"))
    return out


def _flatten(value: Any, depth: int = 0) -> list[Any]:
    """The numbers, tensors and arrays inside an output, in a fixed order."""
    if depth > 4:
        return []
    if isinstance(value, (torch.Tensor, np.ndarray, float, int, np.floating, np.integer)):
        return [value]
    if isinstance(value, dict):
        return [x for k in value for x in _flatten(value[k], depth + 1)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v, depth + 1)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f.name for f in dataclasses.fields(value) if "time" not in f.name]  # wall-clock times vary
        return [x for n in fields for x in _flatten(getattr(value, n), depth + 1)]
    if isinstance(value, torch.nn.Module):
        return [p.detach() for p in value.parameters()]
    return []


def _finite(value: Any) -> bool:
    """Whether every float entry of an output is finite (an output without floats counts as finite)."""
    for x in _flatten(value):
        if isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex()):
            if x.numel() and not bool(torch.isfinite(x).all()):
                return False
        elif isinstance(x, np.ndarray) and x.dtype.kind in "fc":
            if x.size and not bool(np.isfinite(x).all()):
                return False
        elif isinstance(x, (float, np.floating)) and not math.isfinite(float(x)):
            return False
    return True


def _same(a: Any, b: Any) -> bool:
    fa, fb = _flatten(a), _flatten(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if isinstance(x, torch.Tensor):
            if not (
                isinstance(y, torch.Tensor)
                and x.shape == y.shape
                and torch.equal(x.nan_to_num(), y.nan_to_num())
            ):
                return False
        elif isinstance(x, np.ndarray):
            if not (
                isinstance(y, np.ndarray) and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
            ):
                return False
        elif not (x == y or x != x and y != y):
            return False
    return True


def _names(example: Example, arg: str) -> tuple[str, ...]:
    return (arg, *example.names.get(arg, ()))


def _names_it(message: str, names: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) for n in names)


def outcome(name: str, arg: str, mutation: str) -> str | None:
    """None when the mutated call behaves as required, else the failure in words."""
    example = make(name)
    value = mutations(example, arg)[mutation](example.args[arg])
    args = {**example.args, arg: value}
    try:
        out = _seeded_run(example, args)
    except (ValueError, TypeError) as error:
        if _names_it(str(error), _names(example, arg)):
            return None
        return f"{type(error).__name__} not naming {arg!r}: {str(error)[:160]}"
    except _Timeout:
        return "ran over 5 s"
    except Exception as error:  # noqa: BLE001 - the failure this battery exists to catch
        return f"obscure {type(error).__name__}: {str(error)[:160]}"
    if mutation in ("nan", "inf"):
        return None if not _finite(out) else "finite output from a non-finite input"
    return "accepted silently"


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for name in sorted(TENSOR_EXAMPLES):
        try:
            example = make(name)
        except Exception:  # noqa: BLE001 - test_the_valid_example_runs_and_is_deterministic reports it
            continue
        for arg in example.args:
            cases += [(name, arg, m) for m in mutations(example, arg)]
    return cases


# --- coverage ------------------------------------------------------------------------------------------------
TENSORISH = re.compile(r"Tensor|ndarray|ArrayLike")
LAB = ("iclr26.lab.flex", "iclr26.lab.linear_attention", "iclr26.lab.transformer", "iclr26.lab.speculative")


def _required_tensors(fn: Any) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return any(
        p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        and (TENSORISH.search(str(p.annotation)) or p.name == "ids")
        for p in sig.parameters.values()
    )


def takes_tensors(obj: Any) -> bool:
    """A function with a required tensor/array parameter, or a class whose constructor or forward/step/score/
    __call__ has one."""
    if inspect.isfunction(obj):
        return _required_tensors(obj)
    if not inspect.isclass(obj):
        return False
    if issubclass(obj, torch.optim.Optimizer):
        return True
    methods = [getattr(obj, m, None) for m in ("__init__", "forward", "step", "score", "__call__", "fit")]
    return any(
        inspect.isfunction(f) and f.__module__.startswith("iclr26") and _required_tensors(f) for f in methods
    )


def universe() -> dict[str, Any]:
    out = dict(PUBLIC)
    for module_name in LAB:
        module = importlib.import_module(module_name)
        for n in module.__all__:
            obj = getattr(module, n)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                out[f"{module_name}.{n}"] = obj
    return {n: o for n, o in out.items() if takes_tensors(o)}


def coverage() -> str:
    everything = universe()
    covered = sum(name in everything for name in TENSOR_EXAMPLES)
    return f"{covered} of {len(everything)} public tensor-taking callables covered"


CASES = _cases()


def test_the_coverage_count_is_current():
    everything = universe()
    assert len(TENSOR_EXAMPLES) >= 150, len(TENSOR_EXAMPLES)
    outside = [n for n in TENSOR_EXAMPLES if n not in everything]
    assert not outside, f"not public tensor-taking callables: {outside}"
    assert coverage() in __doc__, f"update the docstring's COVERAGE line to: {coverage()}"


def test_every_tensor_callable_has_an_example_or_a_reason():
    everything = universe()
    missing = sorted(n for n in everything if n not in TENSOR_EXAMPLES and n not in NO_EXAMPLE)
    assert not missing, (
        f"give these an example in tests/conformance/tensor_cases/ (or a reason in NO_EXAMPLE): {missing}"
    )
    assert not set(TENSOR_EXAMPLES) & set(NO_EXAMPLE), "an entry of NO_EXAMPLE has an example"
    stale = sorted(n for n in NO_EXAMPLE if n not in everything)
    assert not stale, f"NO_EXAMPLE names what is not a public tensor-taking callable: {stale}"


def test_the_tables_name_real_cases():
    known = set(CASES)
    for table in (ACCEPTS, PENDING):
        for key, reason in table.items():
            assert key in known, f"{key} is not a case of the battery"
            assert isinstance(reason, str) and len(reason) > 10, f"{key}: give the reason"
    assert not set(ACCEPTS) & set(PENDING)


@pytest.mark.parametrize("name", sorted(TENSOR_EXAMPLES))
def test_the_valid_example_runs_and_is_deterministic(name):
    first = _seeded_run(make(name))
    second = _seeded_run(make(name))
    assert _same(first, second), f"{name}: two runs of the same example differ"


@pytest.mark.parametrize(("name", "arg", "mutation"), CASES, ids=[f"{n}:{a}:{m}" for n, a, m in CASES])
def test_a_bad_tensor_is_refused_by_name(name, arg, mutation):
    key = (name, arg, mutation)
    if key in PENDING:
        pytest.skip(f"PENDING: {PENDING[key]}")
    if key in ACCEPTS:
        example = make(name)
        value = mutations(example, arg)[mutation](example.args[arg])
        _seeded_run(example, {**example.args, arg: value})
        return
    failure = outcome(name, arg, mutation)
    assert failure is None, f"{name}({arg}: {mutation}): {failure}"
