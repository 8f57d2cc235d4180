"""Property-based battery (hypothesis) over every public callable of every paper.

Every name in a paper package's ``__all__`` (the objects the domain packages re-export, see
tests/test_domain_exports.py) that is a class or function is inspected: each parameter whose default is an int, a
float or a bool (a config dataclass's fields likewise) is changed, ONE at a time and with every other argument at
its default (or at the small valid example of ``EXAMPLES``), to a bad value drawn by hypothesis: NaN, +/-inf, a
string, None, a bool for an int/float parameter, a float for an int parameter, and a negative number for a
positive size/count/rate/step parameter. The call must raise a ValueError or TypeError whose message names the
parameter; an obscure error from deep inside torch/NumPy, or a silent result, is a failure. Inside the range the
default call (or the example) must succeed.

Four explicit tables, each entry with its reason (never a blanket skip):

- ``FIT``: the data a scikit-learn estimator is fitted on after construction (its entry point is fit);
- ``EXAMPLES``: base keyword arguments for a callable with required arguments, or a smaller valid example for
  one whose default call is slow (construct, don't train);
- ``ACCEPTS``: a value a parameter legitimately accepts (inf disabling a limit, ...), taken out of its bad values
  and required to succeed instead;
- ``PENDING``: a callable (or one of its parameters) whose validation is still to come, with the reason.

Callables without scalar arguments, and callables with required arguments that have no example, are skipped
automatically. Examples are drawn deterministically (``derandomize``, no database), so a failure reproduces on
every run. The tensor and array arguments are mutated by test_properties_tensors.py.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import signal
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iclr26.catalog import DOMAINS

FAST = settings(
    max_examples=16,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

#: a parameter whose name says it is a size, a count, a rate or a step: a negative value is out of range when the
#: default is positive
SIZE = re.compile(
    r"(^n_|^num_|^n$|size|steps?$|^lr|_lr$|^dim$|^dim_|_dim$|width|depth|heads|batch|seed|layers|epochs|iters?$"
    r"|rounds|hidden|channels|capacity|samples|every|features|basis|estimators|tokens|_len$|frames|traj|^max_)"
)

#: callable -> (base keyword arguments, why): the small valid example the battery starts from
EXAMPLES: dict[str, tuple[dict[str, Any], str]] = {
    "iclr26.inference.uniroute.make_multidomain_pool": (
        {"n_prompts": 400, "n_llms": 6, "n_domains": 4, "mlp_max_iter": 5},
        "the default pool trains 60 MLPs on 8000 prompts (seconds); a small pool is the same code path",
    ),
    "iclr26.architectures.fact_forecast.FACTAttn": (
        {"seq_len": 16, "pred_len": 4, "n_vars": 3},
        "FACT's required shape arguments arrive through **kwargs",
    ),
}

#: callables whose required arguments are all sizes/scalars: a small valid example (8 for an int, 0.5 for a float)
SMALL: dict[str, dict[str, Any]] = {
    "iclr26.attention.bam.GGDPrior": {"n_heads": 8},
    "iclr26.attention.bam.PEAttention": {"d_model": 8, "n_heads": 8},
    "iclr26.attention.bam.sinusoidal_table": {"seq": 8, "d_model": 8},
    "iclr26.attention.dirmoe.DirichletRouter": {"d_model": 8, "n_experts": 8, "k_target": 0.5},
    "iclr26.attention.dirmoe.ExpertBank": {"d_model": 8, "d_hidden": 8, "n_experts": 8},
    "iclr26.attention.dirmoe.NoisyTopKRouter": {"d_model": 8, "n_experts": 8},
    "iclr26.attention.dirmoe.ReLURouter": {"d_model": 8, "n_experts": 8},
    "iclr26.attention.dirmoe.TopKSoftmaxRouter": {"d_model": 8, "n_experts": 8},
    "iclr26.attention.hilbert_attention.HilbertWindowAttention": {
        "dim": 8,
        "heads": 8,
        "H": 8,
        "W": 8,
        "window_tokens": 8,
    },
    "iclr26.attention.hilbert_attention.SwinWindowAttention": {
        "dim": 8,
        "heads": 8,
        "H": 8,
        "W": 8,
        "window": 8,
    },
    "iclr26.attention.lla.GatedDeltaNetMixer": {"d_model": 8},
    "iclr26.attention.lla.LinearAttentionMixer": {"d_model": 8},
    "iclr26.attention.lla.LocalLinearAttention": {"d_model": 8},
    "iclr26.architectures.aside.IsoclinicRotation": {"d": 8},
    "iclr26.architectures.aside.isoclinic_rotation_matrix": {"d": 8},
    "iclr26.architectures.fact_forecast.FACT": {"seq_len": 8, "pred_len": 8, "n_vars": 8},
    "iclr26.architectures.fact_forecast.AttnBlock": {"d_model": 8, "d_ff": 8},
    "iclr26.architectures.fact_forecast.DConvBlock2d": {"d_model": 8, "d_ff": 8},
    "iclr26.architectures.fact_forecast.DLinear": {"seq_len": 8, "pred_len": 8, "n_vars": 8},
    "iclr26.architectures.fact_forecast.ITransformer": {"seq_len": 8, "pred_len": 8, "n_vars": 8},
    "iclr26.architectures.fact_forecast.InceptionDW": {"channels": 8},
    "iclr26.architectures.fact_forecast.PatchTST": {"seq_len": 8, "pred_len": 8, "n_vars": 8},
    "iclr26.architectures.fact_forecast.TSMixerLite": {"seq_len": 8, "pred_len": 8, "n_vars": 8},
    "iclr26.architectures.fact_forecast.make_grid_diffusion": {"S": 8, "T": 8},
    "iclr26.architectures.fact_forecast.ordering": {"n_vars": 8},
    "iclr26.architectures.hyper_set.DepthwiseLoRA": {"d_model": 8, "ff_dim": 8, "n_iter": 8},
    "iclr26.architectures.hyper_set.HyperSETBlock": {"d_model": 8, "n_heads": 8},
    "iclr26.architectures.hyper_set.StepSizeNet": {"d_model": 8},
    "iclr26.architectures.hyper_set.digit_patches": {"seed": 8},
    "iclr26.architectures.mamba_theory.AttentionClassifier": {"d": 8},
    "iclr26.architectures.mamba_theory.SelectiveSSMClassifier": {"d": 8},
    "iclr26.architectures.phat.PHAT": {"seq_len": 8, "pred_len": 8, "n_vars": 8},
    "iclr26.architectures.phat.DyT": {"dim": 8},
    "iclr26.architectures.phat.PHATBlock": {"d_model": 8, "n_heads": 8},
    "iclr26.architectures.phat.PNAttention": {"d_model": 8},
    "iclr26.architectures.phat.RevIN": {"n_vars": 8},
    "iclr26.architectures.phat.SwiGLU": {"d_model": 8},
    "iclr26.architectures.phat.periodic_distance": {"P": 8},
    "iclr26.architectures.phat.periodic_modulation_index": {"P": 8},
    "iclr26.architectures.t1_imputation.SAITSLike": {"n_vars": 8, "seq_len": 8},
    "iclr26.optim.attent.AtteNTCycle": {"epochs": 8},
    "iclr26.optim.attent.default_step_ratio": {"total": 8},
    "iclr26.optim.attent.digits_patches": {"seed": 8},
    "iclr26.optim.attent.sequence_property_data": {"n_train": 8, "n_test": 8, "seed": 8},
    "iclr26.optim.distillation_memorization.make_mlp": {"d": 8, "hidden": 8, "C": 8},
    "iclr26.optim.hybrid_zo_finetune.FinetuneSpec": {"steps": 8, "batch": 8, "eval_every": 8},
    "iclr26.optim.hybrid_zo_finetune.ReshuffleLoader": {"n": 8, "batch_size": 8},
    "iclr26.optim.hybrid_zo_finetune.step_seed": {"seed": 8, "step": 8},
    "iclr26.optim.hybrid_zo_finetune.task_a": {"n": 8, "seed": 8},
    "iclr26.optim.hybrid_zo_finetune.task_b": {"n": 8, "seed": 8},
    "iclr26.optim.lewc.gmm_task": {"seed": 8},
    "iclr26.optim.lewc.make_mlp": {"d_in": 8, "n_classes": 8, "width_multiplier": 8},
    "iclr26.optim.poisson_midpoint.underdamped_matrices": {"delta": 0.5},
    "iclr26.inference.equilibrium_lm.GPPOPolicy": {"n_arms": 8},
    "iclr26.inference.hyperprune.HyperNetwork": {"m": 8, "n_patterns": 8, "n_comps": 8},
    "iclr26.inference.meancache.shifted_sigmas": {"n_steps": 8},
    "iclr26.mechanisms.dale_signed_weights.make_texture_digits": {"n": 8, "seed": 8},
    "iclr26.mechanisms.function_induction.contrast_pairs": {"n": 8, "shots": 8},
    "iclr26.mechanisms.function_induction.induction_prompts": {"n": 8, "half": 8},
    "iclr26.mechanisms.function_induction.naive_prompts": {"query": 8, "n": 8, "shots": 8},
    "iclr26.mechanisms.ic_ssl.GDSoftmaxLayer": {"k": 8},
    "iclr26.mechanisms.ic_ssl.ICSSLTransformer": {"d": 8, "n_classes": 8},
    "iclr26.mechanisms.ic_ssl.PlainICLTransformer": {"d": 8, "n_classes": 8},
    "iclr26.mechanisms.ic_ssl.PowerIterLayer": {"k": 8},
    "iclr26.mechanisms.icl_causal_structure.DisentangledRPETransformer": {"d": 8, "L": 8, "H": 8},
    "iclr26.mechanisms.icl_causal_structure.StandardRPETransformer": {"d": 8, "L": 8, "H": 8},
    "iclr26.mechanisms.icl_causal_structure.sample_task": {"d": 8},
    "iclr26.mechanisms.task_vectors.LinearAttentionTransformer": {"n_layers": 8, "d_model": 8},
    "iclr26.mechanisms.task_vectors.make_gpt": {"n": 8, "d_model": 8, "n_layers": 8},
    "iclr26.mechanisms.task_vectors.map_pool": {"seed": 8},
    "iclr26.agents.autoep.ScheduleController": {"generations": 8},
    "iclr26.agents.bayesian_persuasion.normalized_gain": {"v": 0.5, "v0": 0.5, "v_star": 0.5},
    "iclr26.agents.flythinker.GPT": {"vocab": 8, "d": 8, "n_layer": 8, "n_head": 8, "max_len": 8},
    "iclr26.agents.mass.SimulatedLLM": {"world_seed": 8},
    "iclr26.agents.mass.arithmetic_items": {"n": 8},
    "iclr26.agents.vcworld.Evidence": {"cell_line": 8, "drug": 8, "gene": 8},
    "iclr26.agents.vcworld.KnowledgeGraph": {"n_genes": 8, "n_drugs": 8},
    "iclr26.agents.vcworld.VirtualCell": {"n_genes": 8, "n_drugs": 8, "n_cell_lines": 8},
    "iclr26.generative.creatidesign.ProceduralDesignDataset": {"n": 8, "seed": 8},
    "iclr26.generative.dado.AutoregressiveSearchDistribution": {"n_vars": 8, "n_states": 8},
    "iclr26.generative.rna_codesign.igso3_sample": {"n": 8, "eps": 0.5},
    "iclr26.generative.sitok.CTCHead": {"in_dim": 8, "n_symbols": 8},
    "iclr26.generative.sitok.CausalEncoder": {
        "in_dim": 8,
        "d_model": 8,
        "n_layers": 8,
        "n_heads": 8,
        "max_len": 8,
    },
    "iclr26.generative.sitok.EMAVectorQuantizer": {"codebook_size": 8, "dim": 8},
    "iclr26.generative.sitok.PhoneRecognizer": {"in_dim": 8, "n_symbols": 8},
    "iclr26.generative.sitok.RectifiedFlowDecoder": {"feat_dim": 8, "cond_dim": 8},
    "iclr26.generative.sitok.bitrate_bps": {"codebook_size": 8, "tokens_per_second": 0.5},
    "iclr26.generative.sitok.espeak_corpus": {"n_utts": 8},
    "iclr26.generative.smc_discrete_diffusion.AmortisedProposal": {"vocab_size": 8, "seq_len": 8},
    "iclr26.generative.smc_discrete_diffusion.MaskedDiffusionTransformer": {"n_tokens": 8, "seq_len": 8},
    "iclr26.generative.smc_discrete_diffusion.tempering_schedule": {"steps": 8},
    "iclr26.decision.delayed_lipschitz_bandit.BLiN": {"dim": 8, "horizon": 8},
    "iclr26.decision.delayed_lipschitz_bandit.DLPP": {"dim": 8, "horizon": 8},
    "iclr26.decision.delayed_lipschitz_bandit.GridDelayedUCB1": {"dim": 8, "horizon": 8},
    "iclr26.decision.dual_learner_crl.wilson_interval": {"successes": 8, "n": 8},
    "iclr26.decision.is_ql.SharedHeadQNet": {"obs_dim": 8, "n_actions": 8, "K": 8},
    "iclr26.decision.pac_bayes_continual.BayesLinear": {"in_features": 8, "out_features": 8},
    "iclr26.decision.pac_bayes_continual.GaussianGibbsLinReg": {"d": 8},
    "iclr26.decision.pac_bayes_continual.SGLDGibbs": {"d": 8},
    "iclr26.decision.pac_bayes_continual.digits_pool": {"seed": 8},
    "iclr26.decision.pac_bayes_continual.lambda_grid": {"m": 8},
    "iclr26.decision.pac_bayes_continual.mc_correction": {"n_terms": 8},
    "iclr26.decision.pac_bayes_continual.permuted_digits": {"n_tasks": 8, "seed": 8},
    "iclr26.decision.pac_bayes_continual.split_digits": {"n_tasks": 8, "seed": 8},
    "iclr26.decision.virne.MLPPolicy": {"n_nodes": 8},
    "iclr26.decision.zero_shot_evolution.UniversalController": {"n_masses": 8, "n_springs": 8},
    "iclr26.decision.zero_shot_evolution.cosine_warm_restarts_lr": {"step": 8, "base_lr": 0.5},
    "iclr26.science.biobo.RandomSelector": {"n_genes": 8},
    "iclr26.science.biobo.make_perturbation_landscape": {"seed": 8},
    "iclr26.science.fartrack.InterFrameSparsifier": {"ratio": 0.5},
    "iclr26.science.fartrack.command_tokens": {"batch": 8, "bins": 8},
    "iclr26.science.fartrack.vocab_size": {"bins": 8},
    "iclr26.science.fisale.GATLayer": {"in_dim": 8, "out_per_head": 8, "heads": 8},
    "iclr26.science.fisale.GalerkinAttention": {"dim": 8},
    "iclr26.science.fisale.PCMBlock": {"hidden": 8, "M": 8},
}
EXAMPLES.update(
    {name: (kw, "small valid values for the required size arguments") for name, kw in SMALL.items()}
)


def _xy(classification: bool) -> Callable[[], tuple[Any, ...]]:
    def data() -> tuple[Any, ...]:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3))
        return X, (X[:, 0] > 0).astype(int) if classification else X @ np.array([1.0, -0.5, 0.25])

    return data


def _router_data() -> tuple[Any, ...]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    return X, (rng.random((40, 3)) < 0.3).astype(float), np.array([1.0, 2.0, 4.0])


_SKLEARN = "a scikit-learn estimator validates its hyper-parameters in fit (check_estimator forbids raising in __init__)"
#: callable -> (the arguments of .fit after construction, why): the entry point of a scikit-learn estimator is fit
FIT: dict[str, tuple[Callable[[], tuple[Any, ...]], str]] = {
    **{
        f"iclr26.optim.fact_nfa.{n}": (_xy(n.endswith("Classifier")), _SKLEARN)
        for n in ("RFM", "FactRFM", "RFMClassifier", "FactRFMClassifier")
    },
    **{
        f"iclr26.science.jarf.{n}": (_xy(n.endswith("Classifier")), _SKLEARN)
        for n in ("EJOPTransformer", "JARFClassifier", "JARFRegressor")
    },
    **{
        f"iclr26.science.jarf.{n}": (_xy(n.endswith("Classifier")), _SKLEARN)
        for n in ("RotationForestClassifier", "RotationForestRegressor")
    },
    "iclr26.optim.distillation_memorization.SoftLabelLogisticRegression": (_xy(True), _SKLEARN),
    "iclr26.inference.uniroute.KNNRouter": (lambda: _router_data()[:1], _SKLEARN),
    "iclr26.inference.uniroute.UniRouter": (lambda: (_router_data()[0], None, _router_data()[0]), _SKLEARN),
    "iclr26.inference.uniroute.ClairvoyantRouter": (_router_data, _SKLEARN),
}
EXAMPLES.update(
    {
        f"iclr26.science.jarf.{n}": (
            {"n_estimators": 4, "n_gradient_samples": 20},
            "four trees keep the fit fast",
        )
        for n in ("EJOPTransformer", "JARFClassifier", "JARFRegressor")
    }
)
EXAMPLES.update(
    {
        f"iclr26.science.jarf.{n}": ({"n_estimators": 4}, "four trees keep the fit fast")
        for n in ("RotationForestClassifier", "RotationForestRegressor")
    }
)
EXAMPLES["iclr26.inference.uniroute.UniRouter"] = ({"n_clusters": 4}, "40 training prompts hold 4 clusters")
EXAMPLES["iclr26.inference.uniroute.ClairvoyantRouter"] = (
    {"max_iter": 20},
    "20 epochs on 40 prompts keep it fast",
)

#: (callable, parameter) -> (values it legitimately accepts, why)
ACCEPTS: dict[tuple[str, str], tuple[tuple[Any, ...], str]] = {
    ("iclr26.optim.cosmos.TrainConfig", "grad_clip"): (
        (None,),
        "grad_clip=None turns gradient clipping off (typed float | None in lab.tinygpt.TrainConfig)",
    ),
    ("iclr26.attention.swax.swax_mixer_factory", "rope_theta"): (
        (None,),
        "rope_theta=None disables RoPE in the SWA layers, documented",
    ),
    ("iclr26.inference.fly.FlyVerifier", "window"): (
        (None,),
        "window=None turns the lookahead window off, documented",
    ),
    ("iclr26.generative.and_or_template.AndOrTemplate", "random_state"): (
        (None,),
        "scikit-learn convention: random_state=None draws fresh entropy",
    ),
    ("iclr26.inference.hyperprune.BlockRecord", "outlier_kept"): (
        (float("nan"),),
        "NaN (the default) marks a block whose outlier retention was not measured",
    ),
    **{
        (f"iclr26.science.jarf.{n}", "max_features"): (
            (None,),
            "None: every feature at each split, scikit-learn's decision-tree convention",
        )
        for n in ("RotationForestClassifier", "RotationForestRegressor")
    },
    ("iclr26.agents.bayesian_persuasion.Receiver", "lam"): (
        (float("inf"),),
        "lam=inf (the default) is the best-responding receiver, documented",
    ),
    **{
        (f"iclr26.science.jarf.{n}", "n_gradient_samples"): (
            (None,),
            "None uses every training point, documented",
        )
        for n in ("EJOPTransformer", "JARFClassifier", "JARFRegressor")
    },
}

#: callable, or (callable, parameter) -> why its validation is still to come
PENDING: dict[str | tuple[str, str], str] = {}


# --- enumeration ---------------------------------------------------------------------------------------------
def _papers() -> list[str]:
    names = []
    for domain in DOMAINS:
        package = importlib.import_module(f"iclr26.{domain}")
        names += [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__) if m.ispkg]
    return names


def _public() -> dict[str, Callable[..., Any]]:
    out = {}
    for paper_name in _papers():
        paper = importlib.import_module(paper_name)
        for name in getattr(paper, "__all__", []):
            obj = getattr(paper, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and not issubclass_safe(obj, BaseException):
                out[f"{paper_name}.{name}"] = obj
    return out


def issubclass_safe(obj: Any, cls: type) -> bool:
    return inspect.isclass(obj) and issubclass(obj, cls)


def _scalars(obj: Callable[..., Any]) -> list[inspect.Parameter] | None:
    """The parameters with an int/float/bool default, or None when the callable cannot be called bare."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if any(p.default is p.empty for p in params):
        return None
    return [p for p in params if type(p.default) in (int, float, bool)]


PUBLIC = _public()
CALLABLES: dict[str, tuple[Callable[..., Any], list[inspect.Parameter]]] = {}
for _name, _obj in PUBLIC.items():
    if _name in EXAMPLES:
        _params = [
            p
            for p in inspect.signature(_obj).parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and type(p.default) in (int, float, bool)
        ]
    else:
        _params = _scalars(_obj)
    if _params:
        CALLABLES[_name] = (_obj, _params)

CASES = [(name, p.name, p.default) for name, (_, params) in CALLABLES.items() for p in params]


def bad_values(name: str, default: Any) -> list[Any]:
    """The bad values for a parameter called `name` whose default is `default`."""
    values: list[Any] = [float("nan"), float("inf"), float("-inf"), "x", None]
    if type(default) is not bool:
        values += [True, False]
    if type(default) is int:
        values.append(2.5)
    if type(default) is not bool and default > 0 and SIZE.search(name):
        values.append(-3 if type(default) is int else -0.5)
    return values


def _pending(name: str, param: str | None = None) -> None:
    reason = PENDING.get(name) or (param is not None and PENDING.get((name, param)))
    if reason:
        pytest.skip(f"PENDING: {reason}")


class _Timeout(Exception):
    pass


def _call(name: str, **change: Any) -> Any:
    """Call `name` at its base arguments with `change`; a call over 10 s is a failure (construct, don't train)."""

    def alarm(*_: Any) -> None:
        raise _Timeout(f"{name}({change}) ran over 10 s")

    obj = CALLABLES[name][0]
    base = EXAMPLES.get(name, ({}, ""))[0]
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, 10.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = obj(**{**base, **change})
            if name in FIT:
                out = out.fit(*FIT[name][0]())
            return out
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _refused(name: str, param: str, value: Any) -> None:
    accepted = ACCEPTS.get((name, param), ((), ""))[0]
    if any(type(v) is type(value) and (v == value or v != v and value != value) for v in accepted):
        return
    try:
        _call(name, **{param: value})
    except (ValueError, TypeError) as error:
        message = str(error)
        assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(param)}(?![A-Za-z0-9_])", message), (
            f"{name}({param}={value!r}) raised {type(error).__name__} whose message does not name {param!r}: "
            f"{message!r}"
        )
    except _Timeout:
        raise
    except Exception as error:  # noqa: BLE001 - the failure this battery exists to catch
        pytest.fail(
            f"{name}({param}={value!r}) raised an obscure {type(error).__name__} instead of a ValueError/TypeError "
            f"naming {param!r}: {error}"
        )
    else:
        pytest.fail(f"{name}({param}={value!r}) was accepted silently; it must raise a ValueError/TypeError")


# --- the battery ---------------------------------------------------------------------------------------------
def test_the_battery_covers_every_paper():
    papers = {name.rsplit(".", 1)[0] for name in PUBLIC}
    assert len(papers) >= 70 and len(CASES) >= 500, (len(papers), len(CASES))


def test_the_tables_name_real_callables_and_parameters():
    for key in (*EXAMPLES, *FIT, *PENDING, *ACCEPTS):
        name, param = key if isinstance(key, tuple) else (key, None)
        assert name in PUBLIC, f"{name} is not a public callable of a paper"
        if param is not None:
            assert param in inspect.signature(PUBLIC[name]).parameters, f"{name} has no parameter {param!r}"
    tables = (EXAMPLES, FIT, ACCEPTS)
    for reason in (*PENDING.values(), *(r for table in tables for _, r in table.values())):
        assert isinstance(reason, str) and len(reason) > 10, "every table entry gives its reason"


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_the_default_call_succeeds(name):
    _pending(name)
    _call(name)
    for (owner, param), (values, _) in ACCEPTS.items():
        if owner == name:
            for value in values:
                _call(name, **{param: value})


@pytest.mark.parametrize(("name", "param", "default"), CASES, ids=[f"{n}:{p}" for n, p, _ in CASES])
def test_a_bad_value_is_refused_by_name(name, param, default):
    _pending(name, param)

    @FAST
    @given(value=st.sampled_from(bad_values(param, default)))
    def check(value):
        _refused(name, param, value)

    check()


SIZE_CASES = [c for c in CASES if type(c[2]) is not bool and c[2] > 0 and SIZE.search(c[1])]


@pytest.mark.parametrize(("name", "param", "default"), SIZE_CASES, ids=[f"{n}:{p}" for n, p, _ in SIZE_CASES])
def test_a_negative_size_is_refused_by_name(name, param, default):
    _pending(name, param)
    negative = (
        st.integers(-(10**6), -1)
        if type(default) is int
        else st.floats(-1e6, -1e-6, allow_nan=False, allow_infinity=False)
    )

    @settings(FAST, max_examples=4)
    @given(value=negative)
    def check(value):
        _refused(name, param, value)

    check()
