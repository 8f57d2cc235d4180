"""Tensor-battery examples for the optim papers and the remaining attention / lab callables."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from tests.conformance.tensor_cases import (
    Example,
    built,
    call_example,
    fields,
    fn,
    forward_example,
    gauss,
    ids,
    normal_array,
    with_grad,
)

EXAMPLES: dict[str, Callable[[], Example]] = {}

#: (callable, argument, mutation) -> why the mutated call is legitimately accepted
ACCEPTS: dict[tuple[str, str, str], str] = {}

V = 6


def _labels(n: int, classes: int) -> np.ndarray:
    return np.arange(n) % classes


def _mlp(d_in: int = 3, d_out: int = 2) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(d_in, 4), torch.nn.Tanh(), torch.nn.Linear(4, d_out)).eval()


# --- attention / lab ----------------------------------------------------------------------------------------------
A = "iclr26.attention"
HA = f"{A}.hilbert_attention"


def _order() -> torch.Tensor:
    return fn(f"{HA}.gilbert_order")(2, 2)


def _verifier_inputs() -> Example:
    return Example(
        fn("iclr26.lab.speculative.check_verifier_inputs"),
        {
            "target_logits": gauss(3, V, seed=1),
            "draft_logits": gauss(2, V, seed=2),
            "draft_ids": ids(2, vocab=V, seed=3),
        },
        agree={"target_logits": 1, "draft_logits": 1, "draft_ids": 0},
        vocab={"draft_ids": V},
    )


EXAMPLES.update(
    {
        "iclr26.lab.speculative.check_verifier_inputs": _verifier_inputs,
        f"{A}.bam.GGDPrior": lambda: forward_example(
            f"{A}.bam.GGDPrior", {"n_heads": 2}, q_pos=torch.arange(4), k_pos=torch.arange(4)
        ),
        f"{A}.bam.legacy_ggd_bias": lambda: call_example(
            f"{A}.bam.legacy_ggd_bias",
            delta=torch.arange(-3.0, 1.0),
            theta_scale=torch.tensor(0.1),
            theta_shape=torch.tensor(1.0),
        ),
        f"{A}.bam.legacy_to_readme": lambda: call_example(
            f"{A}.bam.legacy_to_readme",
            theta_scale=torch.tensor([0.1, 0.2]),
            theta_shape=torch.tensor([1.0, 1.5]),
        ),
        f"{A}.dirmoe.simpson_concentration": lambda: call_example(
            f"{A}.dirmoe.simpson_concentration", simpson=0.5, base=torch.full((4,), 0.25)
        ),
        f"{A}.lla.ridge_coefficients": lambda: call_example(
            f"{A}.lla.ridge_coefficients", scores=gauss(1, 2, 4, 4), lam=1.0
        ),
        f"{HA}.rpb_index": lambda: call_example(
            f"{HA}.rpb_index", {"coords_k": 1}, coords_q=_order(), coords_k=_order(), H=2, W=2
        ),
        f"{HA}.rpb_bias": lambda: call_example(f"{HA}.rpb_bias", rpb=gauss(9, 2), order=_order(), H=2, W=2),
        f"{HA}.masked_reference": lambda: call_example(
            f"{HA}.masked_reference",
            {"q": 1, "k": 3, "v": 2, "mask": 0, "rpb": 1},
            q=gauss(1, 2, 4, 4, seed=1),
            k=gauss(1, 2, 4, 4, seed=2),
            v=gauss(1, 2, 4, 4, seed=3),
            mask=torch.ones(4, 4, dtype=torch.bool),
            order=_order(),
            H=2,
            W=2,
            rpb=gauss(9, 2, seed=4),
        ),
    }
)

# --- attent ----------------------------------------------------------------------------------------------------------
AT = "iclr26.optim.attent"
EXAMPLES.update(
    {
        f"{AT}.causal_lm_score": lambda: Example(
            fn(f"{AT}.causal_lm_score"),
            {"logits": gauss(2, 3, V), "targets": ids(2, 3, vocab=V)},
            agree={"targets": 1},
            vocab={"targets": V},
        ),
        f"{AT}.causal_lm_loss_score": lambda: Example(
            fn(f"{AT}.causal_lm_loss_score"),
            {"logits": gauss(2, 3, V), "targets": ids(2, 3, vocab=V)},
            agree={"targets": 1},
            vocab={"targets": V},
        ),
        f"{AT}.regression_score": lambda: call_example(
            f"{AT}.regression_score",
            {"targets": -1},
            outputs=gauss(4, 2, seed=1),
            targets=gauss(4, 2, seed=2),
        ),
        f"{AT}.regression_loss_score": lambda: call_example(
            f"{AT}.regression_loss_score",
            {"targets": -1},
            outputs=gauss(4, 2, seed=1),
            targets=gauss(4, 2, seed=2),
        ),
        f"{AT}.topk_indices": lambda: call_example(f"{AT}.topk_indices", scores=gauss(6), k=2),
        f"{AT}.gumbel_topk_indices": lambda: call_example(
            f"{AT}.gumbel_topk_indices", scores=gauss(6), k=2, generator=torch.Generator().manual_seed(0)
        ),
        f"{AT}.sequence_property_labels": lambda: call_example(
            f"{AT}.sequence_property_labels", tokens=ids(3, 5, vocab=8)
        ),
        f"{AT}.AttentionClassifier": lambda: Example(
            built(
                lambda: fn(f"{AT}.AttentionClassifier")(
                    n_classes=2, seq_len=4, d_model=8, n_layers=1, n_heads=2, vocab=8
                )
            ),
            {"x": ids(2, 4, vocab=8)},
            agree={"x": 1},
            vocab={"x": 8},
        ),
    }
)

# --- cosmos / hybrid_zo_finetune -------------------------------------------------------------------------------------
HZ = "iclr26.optim.hybrid_zo_finetune"


def _zo_step(path: str, **ctor: Any) -> Example:
    def step(param: Any) -> Any:
        if isinstance(param, torch.Tensor) and param.is_floating_point():
            param.requires_grad_(True)
        if path.endswith("HybridZOFO"):
            optimizer = fn(path)([param], None, **ctor)
        else:
            optimizer = fn(path)([param], **ctor)
        optimizer.step(lambda need_grad: (param.double() ** 2).sum().float())
        return param.detach()

    return Example(step, {"param": gauss(3, 2)}, names={"param": ("params", "zo_params", "parameter")})


def _tiny_classifier() -> torch.nn.Module:
    return built(
        lambda: fn(f"{HZ}.TinyClassifier")(
            vocab_size=8, seq_len=4, d_model=8, n_layers=1, n_heads=2, d_mlp=16, n_classes=3
        )
    )


EXAMPLES.update(
    {
        "iclr26.optim.cosmos.TinyGPT": lambda: Example(
            built(
                lambda: fn("iclr26.optim.cosmos.TinyGPT")(
                    fn("iclr26.lab.tinygpt.TinyGPTConfig")(n_layers=1, d_model=8, n_heads=2, seq_len=8), 8
                )
            ),
            {"idx": ids(2, 5, vocab=8)},
            vocab={"idx": 8},
        ),
        f"{HZ}.TinyClassifier": lambda: Example(
            _tiny_classifier(),
            {"tokens": ids(2, 4, vocab=8)},
            agree={"tokens": 1},
            vocab={"tokens": 8},
        ),
        f"{HZ}.LoRALinear": lambda: Example(
            built(lambda: fn(f"{HZ}.LoRALinear")(torch.nn.Linear(4, 3), r=2)),
            {"x": gauss(2, 4)},
            agree={"x": -1},
        ),
        f"{HZ}.LoRADelta": lambda: forward_example(
            f"{HZ}.LoRADelta", {"shape": (3, 4), "r": 2}, {"weight": 0}, weight=gauss(3, 4)
        ),
        f"{HZ}.accuracy": lambda: Example(
            fn(f"{HZ}.accuracy"),
            {"model": _tiny_classifier(), "x": ids(5, 4, vocab=8), "y": ids(5, vocab=3)},
            agree={"y": 0},
            vocab={"x": 8, "y": 3},
        ),
        f"{HZ}.MeZO": lambda: _zo_step(f"{HZ}.MeZO", lr=0.01),
        f"{HZ}.HybridZOFO": lambda: _zo_step(f"{HZ}.HybridZOFO", lr_zo=0.01, lr_fo=0.01),
        f"{HZ}.perturb_": lambda: Example(
            lambda params: (fn(f"{HZ}.perturb_")([params], seed=0, scale=0.1), params)[1],
            {"params": gauss(3, 2)},
        ),
        f"{HZ}.zo_update_": lambda: Example(
            lambda params: (fn(f"{HZ}.zo_update_")([params], seeds=[0], coeffs=[0.5], lr=0.1), params)[1],
            {"params": gauss(3, 2)},
        ),
    }
)

# --- specgd -----------------------------------------------------------------------------------------------------------
SG = "iclr26.optim.specgd"
EXAMPLES.update(
    {
        f"{SG}.gradient_norm": lambda: call_example(f"{SG}.gradient_norm", d=gauss(4, 3)),
        f"{SG}.population_loss": lambda: call_example(
            f"{SG}.population_loss",
            {"means": 1, "priors": 0},
            w=gauss(3, 4, seed=1),
            means=gauss(3, 4, seed=2),
            priors=torch.tensor([0.5, 0.3, 0.2]),
        ),
        f"{SG}.balanced_metrics": lambda: Example(
            fn(f"{SG}.balanced_metrics"),
            {"outputs": gauss(6, 3), "y": ids(6, vocab=3)},
            agree={"y": 0},
            vocab={"y": 3},
        ),
    }
)

# --- smooth_leaky --------------------------------------------------------------------------------------------------
SL = "iclr26.optim.smooth_leaky"


def _continual() -> torch.nn.Module:
    return fn(f"{SL}.ContinualMLP")([3, 4, 2], fn(f"{SL}.SmoothLeaky"), init_seed=0).eval()


EXAMPLES.update(
    {
        f"{SL}.smooth_leaky": lambda: call_example(f"{SL}.smooth_leaky", x=gauss(2, 4)),
        f"{SL}.smooth_leaky_derivative": lambda: call_example(f"{SL}.smooth_leaky_derivative", x=gauss(2, 4)),
        f"{SL}.SmoothLeaky": lambda: forward_example(f"{SL}.SmoothLeaky", {}, x=gauss(2, 4)),
        f"{SL}.RandomizedSmoothLeaky": lambda: forward_example(
            f"{SL}.RandomizedSmoothLeaky", {}, x=gauss(2, 4)
        ),
        f"{SL}.ContinualMLP": lambda: Example(_continual(), {"x": gauss(5, 3)}, agree={"x": -1}),
        f"{SL}.saturated_fraction": lambda: Example(
            fn(f"{SL}.saturated_fraction"), {"model": _continual(), "probe": gauss(5, 3)}, agree={"probe": -1}
        ),
        f"{SL}.effective_negative_slope": lambda: Example(
            fn(f"{SL}.effective_negative_slope"),
            {"model": _continual(), "probe": gauss(5, 3)},
            agree={"probe": -1},
        ),
        f"{SL}.class_incremental_tasks": lambda: Example(
            fn(f"{SL}.class_incremental_tasks"),
            {
                "x_train": gauss(8, 3, seed=1),
                "y_train": ids(8, vocab=4, seed=2),
                "x_test": gauss(4, 3, seed=3),
                "y_test": ids(4, vocab=4, seed=4),
            },
            agree={"y_train": 0, "x_test": 1},
        ),
        f"{SL}.permuted_tasks": lambda: Example(
            fn(f"{SL}.permuted_tasks"),
            {
                "x_train": gauss(8, 3, seed=1),
                "y_train": ids(8, vocab=4, seed=2),
                "x_test": gauss(4, 3, seed=3),
                "y_test": ids(4, vocab=4, seed=4),
                "n_tasks": 2,
            },
            agree={"y_train": 0, "x_test": 1},
        ),
    }
)

# --- lewc ------------------------------------------------------------------------------------------------------------
LW = "iclr26.optim.lewc"
EXAMPLES.update(
    {
        f"{LW}.nll": lambda: Example(
            fn(f"{LW}.nll"),
            {"logits": gauss(6, 3), "y": ids(6, vocab=3)},
            agree={"y": 0},
            vocab={"y": 3},
        ),
        f"{LW}.calibrate_temperature": lambda: Example(
            fn(f"{LW}.calibrate_temperature"),
            {"logits": gauss(6, 3), "y": ids(6, vocab=3)},
            agree={"y": 0},
            vocab={"y": 3},
        ),
        f"{LW}.predict_logits": lambda: Example(
            fn(f"{LW}.predict_logits"), {"model": _mlp(), "x": gauss(5, 3)}
        ),
        f"{LW}.lewc_fit": lambda: Example(
            fn(f"{LW}.lewc_fit"),
            {"model_a": _mlp(), "model_b": _mlp(), "lam": 0.5, "probe_x": gauss(16, 3)},
        ),
    }
)

# --- fact_nfa ---------------------------------------------------------------------------------------------------------
FN = "iclr26.optim.fact_nfa"


def _kernel_args(path: str, **extra: Any) -> Example:
    return call_example(
        path,
        {"Z": 1, "M": 0},
        X=normal_array(5, 3, seed=1),
        Z=normal_array(4, 3, seed=2),
        M=np.eye(3),
        bandwidth=2.0,
        **extra,
    )


def _fit_alpha(path: str, **extra: Any) -> Example:
    return call_example(
        path,
        {"alpha": 0, "M": 0},
        X=normal_array(5, 3, seed=1),
        alpha=normal_array(5, 2, seed=2),
        M=np.eye(3),
        bandwidth=2.0,
        **extra,
    )


EXAMPLES.update(
    {
        f"{FN}.laplace_kernel": lambda: _kernel_args(f"{FN}.laplace_kernel"),
        f"{FN}.gaussian_kernel": lambda: _kernel_args(f"{FN}.gaussian_kernel"),
        f"{FN}.kernel_matrix": lambda: _kernel_args(f"{FN}.kernel_matrix", kernel="laplace"),
        f"{FN}.kernel_fact_and_agop": lambda: _fit_alpha(f"{FN}.kernel_fact_and_agop"),
        f"{FN}.kernel_input_gradients": lambda: _fit_alpha(f"{FN}.kernel_input_gradients"),
        f"{FN}.solve_kernel_ridge": lambda: call_example(
            f"{FN}.solve_kernel_ridge",
            {"Y": 0},
            K=np.eye(4) + 0.1,
            Y=normal_array(4, 2),
            ridge=1e-3,
        ),
        f"{FN}.update_features": lambda: call_example(
            f"{FN}.update_features",
            {"agop": 0, "M": 0},
            F=normal_array(3, 3, seed=1),
            agop=np.eye(3) * 2,
            M=np.eye(3),
            update="fact",
            nfa_power=0.5,
        ),
        f"{FN}.rfm_iterates": lambda: Example(
            lambda X, Y: list(fn(f"{FN}.rfm_iterates")(X, Y, 1, 5.0, 1e-3, "fact")),
            {"X": normal_array(8, 3, seed=1), "Y": normal_array(8, 1, seed=2)},
            agree={"Y": 0},
        ),
        f"{FN}.psd_power": lambda: call_example(f"{FN}.psd_power", A=np.diag([4.0, 1.0]), power=0.5),
        f"{FN}.feature_agreement": lambda: call_example(
            f"{FN}.feature_agreement", {"B": 0}, A=np.eye(3) + 0.1, B=2 * np.eye(3)
        ),
        f"{FN}.agop_matrix": lambda: Example(
            fn(f"{FN}.agop_matrix"), {"model": _mlp(), "layer": "0", "X": gauss(5, 3)}
        ),
        f"{FN}.fact_matrix": lambda: Example(
            fn(f"{FN}.fact_matrix"),
            {
                "model": _mlp(),
                "layer": "0",
                "X": gauss(5, 3, seed=1),
                "Y": gauss(5, 2, seed=2),
                "loss_fn": torch.nn.functional.mse_loss,
                "weight_decay": 1e-2,
            },
            agree={"Y": 0},
        ),
    }
)

# --- distillation_memorization -------------------------------------------------------------------------------------
DM = "iclr26.optim.distillation_memorization"


def _logreg() -> Any:
    X = normal_array(9, 4, seed=5)
    return fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=50).fit(X, _labels(9, 3))


EXAMPLES.update(
    {
        f"{DM}.distillation_loss": lambda: call_example(
            f"{DM}.distillation_loss",
            {"teacher_logits": -1},
            student_logits=gauss(4, 3, seed=1),
            teacher_logits=gauss(4, 3, seed=2),
            tau=2.0,
        ),
        f"{DM}.soft_targets": lambda: call_example(f"{DM}.soft_targets", logits=normal_array(4, 3), tau=2.0),
        f"{DM}.one_hot": lambda: Example(fn(f"{DM}.one_hot"), {"y": _labels(5, 3), "C": 3}, vocab={"y": 3}),
        f"{DM}.soft_cross_entropy_and_grad": lambda: call_example(
            f"{DM}.soft_cross_entropy_and_grad",
            {"W": 1, "b": 0, "T": 1},
            W=normal_array(3, 4, seed=1),
            b=np.zeros(3),
            X=normal_array(5, 4, seed=2),
            T=np.full((5, 3), 1 / 3),
        ),
        f"{DM}.shuffle_within_class": lambda: Example(
            fn(f"{DM}.shuffle_within_class"),
            {"targets": np.full((6, 3), 1 / 3), "y": _labels(6, 3), "rng": np.random.default_rng(0)},
            agree={"targets": 0},
        ),
        f"{DM}.stratified_split": lambda: call_example(
            f"{DM}.stratified_split", y=_labels(9, 3), n_transfer=3, rng=np.random.default_rng(0)
        ),
        f"{DM}.split_by_fraction": lambda: call_example(
            f"{DM}.split_by_fraction", y=_labels(9, 3), train_frac=0.5, rng=np.random.default_rng(0)
        ),
        f"{DM}.model_logits": lambda: Example(
            fn(f"{DM}.model_logits"), {"model": _logreg(), "X": normal_array(5, 4)}, agree={"X": -1}
        ),
        f"{DM}.evaluate_leakage": lambda: Example(
            fn(f"{DM}.evaluate_leakage"),
            {
                "student": _logreg(),
                "teacher": _logreg(),
                "X_H": normal_array(6, 4, seed=1),
                "y_H": _labels(6, 3),
                "X_fresh": normal_array(5, 4, seed=2),
            },
            agree={"y_H": 0},
        ),
        f"{DM}.fit_on_targets": lambda: Example(
            fn(f"{DM}.fit_on_targets"),
            {
                "student": fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=50),
                "X": normal_array(6, 4),
                "targets": np.full((6, 3), 1 / 3),
                "epochs": 1,
                "lr": 0.1,
            },
            agree={"targets": 0},
        ),
        f"{DM}.distill": lambda: Example(
            fn(f"{DM}.distill"),
            {
                "student": fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=50),
                "X_S": normal_array(6, 4, seed=1),
                "teacher_logits_S": normal_array(6, 3, seed=2),
                "tau": 2.0,
                "epochs": 1,
            },
            agree={"teacher_logits_S": 0},
        ),
        f"{DM}.train_teacher": lambda: Example(
            fn(f"{DM}.train_teacher"),
            {
                "model": fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=50),
                "X": normal_array(9, 4),
                "y": _labels(9, 3),
                "until_acc": 0.1,
            },
            agree={"y": 0},
        ),
    }
)


_SHAPES = {
    (f"{A}.bam.legacy_ggd_bias", "delta", "ndim-"): "every argument broadcasts (documented, as ggd_bias)",
    (f"{A}.bam.legacy_ggd_bias", "delta", "ndim+"): "every argument broadcasts (documented, as ggd_bias)",
    (
        f"{A}.bam.legacy_ggd_bias",
        "theta_scale",
        "ndim+",
    ): "every argument broadcasts (documented, as ggd_bias)",
    (
        f"{A}.bam.legacy_ggd_bias",
        "theta_shape",
        "ndim+",
    ): "every argument broadcasts (documented, as ggd_bias)",
    **{
        (f"{A}.bam.legacy_to_readme", arg, m): "elementwise: any shapes that broadcast together, documented"
        for arg in ("theta_scale", "theta_shape")
        for m in ("ndim-", "ndim+")
    },
    **{
        (f"{HA}.rpb_index", arg, "ndim+"): "coordinates are (..., L, 2): leading axes are kept, documented"
        for arg in ("coords_q", "coords_k")
    },
    **{
        (f"{A}.lla.ridge_coefficients", "scores", m): "scores are (..., Tq, Tk): any leading axes, documented"
        for m in ("ndim-", "ndim+")
    },
    (
        f"{AT}.topk_indices",
        "scores",
        "inf",
    ): "+inf ranks first (the order is defined); only NaN, which cannot be ranked, is refused (documented)",
    **{
        (f"{HZ}.{n}", arg, m): "a zeroth-order step perturbs parameters of any shape"
        for n, arg in (
            ("MeZO", "param"),
            ("HybridZOFO", "param"),
            ("perturb_", "params"),
            ("zo_update_", "params"),
        )
        for m in ("ndim-", "ndim+")
    },
    **{
        (
            f"{HZ}.LoRALinear",
            "x",
            m,
        ): "x is (..., in_features): maps over any leading axes like nn.Linear, documented"
        for m in ("ndim-", "ndim+")
    },
    **{
        (f"{SL}.{n}", "x", m): "an elementwise activation: any shape"
        for n in ("smooth_leaky", "smooth_leaky_derivative", "SmoothLeaky", "RandomizedSmoothLeaky")
        for m in ("ndim-", "ndim+")
    },
    **{
        (
            f"{SG}.gradient_norm",
            "d",
            m,
        ): "the norm of a tensor of any shape (documented: the Frobenius norm of "
        "every entry, the spectral norm of its (rows, -1) reshape)"
        for m in ("ndim-", "ndim+")
    },
    **{
        (path, arg, m): "handed unchanged to the caller's model: its input shape is the model's contract"
        for path, arg in (
            (f"{LW}.predict_logits", "x"),
            (f"{LW}.lewc_fit", "probe_x"),
            (f"{FN}.agop_matrix", "X"),
        )
        for m in ("ndim-", "ndim+")
        if (path, m) != (f"{FN}.agop_matrix", "ndim-")
    },
    (
        f"{HA}.masked_reference",
        "k",
        "inf",
    ): "an infinite key scores -inf where q.k < 0, which masks it as the "
    "documented -inf masking convention does (as bam.bias_attention); a NaN key propagates",
    **{
        (
            f"{FN}.fact_matrix",
            "Y",
            m,
        ): "Y is what loss_fn takes: class ids for a cross-entropy loss_fn, documented"
        for m in ("int", "bool")
    },
}
ACCEPTS.update(_SHAPES)


# --- attention base classes: a minimal subclass exercises the shared forward ------------------------------------
def _router() -> torch.nn.Module:
    class _SoftmaxRouter(fn(f"{A}.dirmoe.Router")):
        """The base class's forward (its input check) around a dense softmax gate."""

        def __init__(self) -> None:
            super().__init__(8, 4)
            self.gate = torch.nn.Linear(8, 4)

        def route(self, h: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
            return torch.softmax(self.gate(h), -1), {}

    return built(_SoftmaxRouter)


def _rank_generalized_mixer() -> torch.nn.Module:
    class _FixedDecayMixer(fn(f"{A}.hdla.RankGeneralizedMixer")):
        """The shell's forward with the simplest transition: a fixed diagonal decay (GLA with f = e^-1/2)."""

        def core_inputs(self, x: torch.Tensor, conv_state: torch.Tensor | None = None) -> tuple[Any, ...]:
            q, k, v, conv_state = self._qkv(x, conv_state)
            k = torch.nn.functional.normalize(self._heads(k), dim=-1)
            terms = fn("iclr26.lab.linear_attention.gla_terms")(k, self._heads(v), torch.full_like(k, -0.5))
            return self._heads(q), terms, conv_state

    return built(lambda: _FixedDecayMixer(d_model=8, n_heads=2, chunk_size=2))


EXAMPLES.update(
    {
        f"{A}.dirmoe.Router": lambda: Example(_router(), {"h": gauss(6, 8)}, agree={"h": -1}),
        f"{A}.hdla.RankGeneralizedMixer": lambda: Example(
            _rank_generalized_mixer(), {"x": gauss(2, 4, 8)}, agree={"x": 2}
        ),
    }
)

# --- attent: the teacher's scores -----------------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{AT}.AtteNTSampler": lambda: Example(
            fn(f"{AT}.AtteNTSampler")(
                _mlp(3, 4),
                (gauss(6, 3), ids(6, vocab=4)),
                fn(f"{AT}.classification_loss_score"),
                fn(f"{AT}.AtteNTCycle")(epochs=4, cycles=1, initial_interval=1),
            ).score,
            {"indices": torch.tensor([0, 2, 5])},
            vocab={"indices": 6},
        ),
    }
)

# --- distillation_memorization: the task record, the student's fit, the phase diagram -------------------------------
DMT = f"{DM}.make_random_memorization_task"


def _fit(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    model = fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=20).fit(X, y)
    return model.coef_, model.intercept_


EXAMPLES.update(
    {
        f"{DM}.MemorizationTask": lambda: Example(
            fn(f"{DM}.MemorizationTask"),
            fields(fn(DMT)(3, 4, 2, seed=0)),
            agree={"y": 0, "mean": 0, "std": 0},
            vocab={"y": 2},
        ),
        f"{DM}.SoftLabelLogisticRegression": lambda: Example(
            functools.wraps(fn(f"{DM}.SoftLabelLogisticRegression").fit)(_fit),
            {"X": normal_array(6, 4), "y": _labels(6, 3)},
            agree={"y": 0},
        ),
        f"{DM}.phase_diagram": lambda: Example(
            fn(f"{DM}.phase_diagram"),
            {
                "make_student": lambda: fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=20),
                "task": fn(DMT)(4, 4, 2, seed=0),
                "teacher": fn(f"{DM}.SoftLabelLogisticRegression")(alpha=1e-2, max_iter=20).fit(
                    fn(DMT)(4, 4, 2, seed=0).X, fn(DMT)(4, 4, 2, seed=0).y
                ),
                "sizes": [4],
                "taus": [1.0],
                "rng": np.random.default_rng(0),
                "X_fresh": normal_array(5, 4),
                "epochs": 2,
            },
            agree={"X_fresh": 1},
        ),
    }
)


# --- fact_nfa: the scikit-learn estimators' fit ----------------------------------------------------------------------
def _rfm_fit(name: str) -> Callable[..., Any]:
    cls = fn(f"{FN}.{name}")

    def fit(X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return cls(iters=1).fit(X, y).M_

    return functools.wraps(cls.fit)(fit)


EXAMPLES.update(
    {
        **{
            f"{FN}.{name}": (
                lambda name=name: Example(
                    _rfm_fit(name), {"X": normal_array(8, 3), "y": normal_array(8, seed=1)}, agree={"y": 0}
                )
            )
            for name in ("FactRFM", "RFM")
        },
        **{
            f"{FN}.{name}": (
                lambda name=name: Example(
                    _rfm_fit(name), {"X": normal_array(8, 3), "y": _labels(8, 2)}, agree={"y": 0}
                )
            )
            for name in ("FactRFMClassifier", "RFMClassifier")
        },
    }
)

# --- hybrid_zo_finetune: the SPSA projections ------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{HZ}.spsa_projections": lambda: Example(
            lambda params: fn(f"{HZ}.spsa_projections")(
                [params], lambda need_grad: (params.double() ** 2).sum(), mu=1e-3, seeds=[0, 1]
            ),
            {"params": gauss(3, 2)},
        ),
    }
)


# --- lewc: the splits record, the path expansion, permutations, BatchNorm statistics, training -----------------------
def _bn_mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Linear(4, 2)
    ).eval()


def _splits() -> dict[str, Any]:
    return {
        "x_train": gauss(6, 3, seed=1),
        "y_train": ids(6, vocab=3, seed=2),
        "x_cal": gauss(4, 3, seed=3),
        "y_cal": ids(4, vocab=3, seed=4),
        "x_test": gauss(5, 3, seed=5),
        "y_test": ids(5, vocab=3, seed=6),
    }


EXAMPLES.update(
    {
        f"{LW}.Splits": lambda: Example(
            fn(f"{LW}.Splits"),
            {**_splits(), "n_classes": 3},
            agree={"y_train": 0, "x_cal": 1, "y_cal": 0, "x_test": 1, "y_test": 0},
            vocab={"y_train": 3, "y_cal": 3, "y_test": 3},
        ),
        f"{LW}.linear_path_expansion": lambda: Example(
            lambda mats_a, mats_b: fn(f"{LW}.linear_path_expansion")([mats_a], [mats_b], 0.3),
            {"mats_a": gauss(3, 2, seed=1), "mats_b": gauss(3, 2, seed=2)},
            agree={"mats_b": 0},
        ),
        f"{LW}.permute_hidden_units": lambda: Example(
            lambda perms: fn(f"{LW}.permute_hidden_units")(_bn_mlp(), [perms]),
            {"perms": np.array([2, 0, 3, 1])},
            vocab={"perms": 4},
        ),
        f"{LW}.reset_batchnorm": lambda: Example(
            lambda batches: fn(f"{LW}.reset_batchnorm")(_bn_mlp(), [batches]).state_dict(),
            {"batches": gauss(5, 3)},
            agree={"batches": 1},
        ),
        f"{LW}.train_mlp": lambda: Example(
            with_grad(fn(f"{LW}.train_mlp")),
            {
                "net": _mlp(3, 3),
                "x": gauss(8, 3),
                "y": ids(8, vocab=3),
                "epochs": 1,
                "seed": 0,
                "batch_size": 4,
            },
            agree={"y": 0, "x": 1},
            vocab={"y": 3},
        ),
    }
)

# --- smooth_leaky: the task record and the desaturation stress test --------------------------------------------------
EXAMPLES.update(
    {
        f"{SL}.Task": lambda: call_example(
            f"{SL}.Task",
            {"y_train": 0, "x_test": 1, "y_test": 0},
            x_train=gauss(8, 3, seed=1),
            y_train=ids(8, vocab=2, seed=2),
            x_test=gauss(4, 3, seed=3),
            y_test=ids(4, vocab=2, seed=4),
        ),
        f"{SL}.desaturation_stress_test": lambda: Example(
            with_grad(fn(f"{SL}.desaturation_stress_test")),
            {
                "model": _continual(),
                "task": fn(f"{SL}.Task")(
                    gauss(8, 3, seed=1), ids(8, vocab=2, seed=2), gauss(4, 3, seed=3), ids(4, vocab=2, seed=4)
                ),
                "probe": gauss(5, 3),
                "gammas": (1.5,),
                "shock_every": 2,
                "batch_size": 4,
                "eval_every": 1,
            },
            agree={"probe": -1},
        ),
    }
)

# --- specgd: the data record and the SVD orthogonalisation -----------------------------------------------------------
EXAMPLES.update(
    {
        f"{SG}.ImbalancedData": lambda: call_example(
            f"{SG}.ImbalancedData",
            {"y_train": 0, "x_test": 1, "y_test": 0, "means": 1},
            x_train=gauss(6, 4, seed=1),
            y_train=torch.tensor([0, 0, 0, 1, 1, 2]),
            x_test=gauss(6, 4, seed=2),
            y_test=torch.tensor([0, 0, 1, 1, 2, 2]),
            priors=torch.tensor([0.5, 0.3, 0.2]),
            means=gauss(3, 4, seed=3),
        ),
        f"{SG}.orthogonalize_svd": lambda: call_example(f"{SG}.orthogonalize_svd", g=gauss(4, 3)),
    }
)

ACCEPTS.update(
    {
        **{
            (f"{A}.dirmoe.Router", "h", m): "a router maps (..., d_model) tokens to (..., n_experts) gates, "
            "documented (Router.forward), as every router subclass"
            for m in ("ndim-", "ndim+")
        },
        **{
            (f"{HZ}.spsa_projections", "params", m): "a zeroth-order probe perturbs parameters of any shape"
            for m in ("ndim-", "ndim+")
        },
        **{
            (f"{FN}.{name}", "y", "float"): "scikit-learn's convention: 1-D labels of any dtype are classes "
            "(integral floats too; check_classification_targets refuses continuous ones)"
            for name in ("FactRFMClassifier", "RFMClassifier")
        },
        (
            f"{DM}.SoftLabelLogisticRegression",
            "y",
            "float",
        ): "scikit-learn's convention: 1-D labels of any dtype are classes (integral floats too; "
        "check_classification_targets refuses continuous ones)",
    }
)
