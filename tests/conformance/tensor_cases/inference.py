"""Tensor-battery examples for the inference and architectures domains (see ``tensor_cases/__init__.py``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from tests.conformance.tensor_cases import (
    Example,
    built,
    call_example,
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


def _tiny_lm(arch: str = "gpt2", vocab: int = 16, n_layers: int = 2) -> torch.nn.Module:
    from iclr26.lab.tinylm import SMOKE_CONFIG, build_model

    torch.manual_seed(0)
    return build_model(
        replace(SMOKE_CONFIG, arch=arch, n_layers=n_layers, d_model=16), vocab_size=vocab
    ).eval()


# --- architectures.t1_imputation -------------------------------------------------------------------------------
T1 = "iclr26.architectures.t1_imputation"


def _series_mask(b: int = 2, t: int = 8, m: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    mask = (torch.rand(b, t, m, generator=torch.Generator().manual_seed(5)) > 0.3).float()
    mask[0, 0, 0] = 1.0  # the entry the nan/inf mutations poke is observed
    return gauss(b, t, m), mask


def _np_series_mask(n: int = 2, t: int = 6, m: int = 3) -> tuple[np.ndarray, np.ndarray]:
    x, mask = _series_mask(n, t, m)
    return x.double().numpy(), mask.double().numpy()


def _t1_config() -> Any:
    return fn(f"{T1}.T1Config")(n_heads=4, n_blocks=(1,), kernel_large=(3,), kernel_small=1)


EXAMPLES.update(
    {
        f"{T1}.DepthwiseMix": lambda: forward_example(
            f"{T1}.DepthwiseMix",
            {"channels": 4, "kernel_large": 3, "kernel_small": 1},
            {"z": 1},
            z=gauss(2, 4, 6),
        ),
        f"{T1}.CHeadAttention": lambda: forward_example(
            f"{T1}.CHeadAttention",
            {"channels": 4, "kernel_large": 3, "kernel_small": 1},
            {"z": 2},
            z=gauss(2, 3, 4, 6),
        ),
        f"{T1}.T1Block": lambda: forward_example(
            f"{T1}.T1Block",
            {"channels": 4, "length": 6, "kernel_large": 3, "kernel_small": 1},
            {"z": 2},
            z=gauss(2, 3, 4, 6),
        ),
        f"{T1}.DownSample": lambda: forward_example(
            f"{T1}.DownSample", {"channels": 4, "factor": 2}, {"z": 2}, z=gauss(2, 3, 4, 6)
        ),
        f"{T1}.PixelShuffle1D": lambda: forward_example(f"{T1}.PixelShuffle1D", {"r": 2}, x=gauss(2, 4, 3)),
        f"{T1}.ReconHead": lambda: forward_example(
            f"{T1}.ReconHead", {"channels": 4, "length_in": 3, "length_out": 6}, {"z": 2}, z=gauss(2, 3, 4, 3)
        ),
        f"{T1}.T1Imputer": lambda: Example(
            built(lambda: fn(f"{T1}.T1Imputer")(3, 8, _t1_config(), init_seed=0)),
            dict(zip(("x", "mask"), _series_mask())),
            agree={"x": 2, "mask": 2},
        ),
        f"{T1}.SAITSLike": lambda: Example(
            built(lambda: fn(f"{T1}.SAITSLike")(3, 8, d_model=8, n_layers=1, n_heads=2)),
            dict(zip(("x", "mask"), _series_mask())),
            agree={"x": 2, "mask": 2},
        ),
        f"{T1}.masked_mse": lambda: call_example(
            f"{T1}.masked_mse",
            {"target": 1, "weight": 1},
            pred=gauss(2, 4, seed=1),
            target=gauss(2, 4, seed=2),
            weight=torch.ones(2, 4),
        ),
        f"{T1}.masked_normalize": lambda: call_example(
            f"{T1}.masked_normalize", {"mask": 2}, **dict(zip(("x", "mask"), _series_mask()))
        ),
        f"{T1}.front_pad": lambda: call_example(f"{T1}.front_pad", x=gauss(2, 3, 5), kernel=2, stride=2),
        **{
            f"{T1}.{n}": (
                lambda n=n: call_example(
                    f"{T1}.{n}", {"mask": 2}, **dict(zip(("x", "mask"), _np_series_mask()))
                )
            )
            for n in ("linear_interpolation", "locf")
        },
        f"{T1}.knn_impute": lambda: call_example(
            f"{T1}.knn_impute",
            {"mask": 2, "reference": 1},
            **dict(zip(("x", "mask"), _np_series_mask())),
            reference=normal_array(10, 3),
            n_neighbors=2,
        ),
        f"{T1}.chronological_split": lambda: call_example(
            f"{T1}.chronological_split", series=normal_array(20, 3)
        ),
        f"{T1}.sliding_windows": lambda: call_example(
            f"{T1}.sliding_windows", series=normal_array(10, 3), seq_len=4
        ),
    }
)

# --- architectures.fact_forecast -----------------------------------------------------------------------------
FF = "iclr26.architectures.fact_forecast"
EXAMPLES.update(
    {
        f"{FF}.DConvBlock2d": lambda: forward_example(
            f"{FF}.DConvBlock2d", {"d_model": 4, "d_ff": 8}, {"h": 1}, h=gauss(2, 4, 5)
        ),
        f"{FF}.FrequencyBranch": lambda: forward_example(
            f"{FF}.FrequencyBranch",
            {
                "d_model": 8,
                "amp_blocks": [fn(f"{FF}.DConvBlock2d")(5, 8)],
                "phase_blocks": [fn(f"{FF}.DConvBlock2d")(5, 8)],
            },
            {"h": 1},
            h=gauss(2, 8, 4),
        ),
        f"{FF}.FACTAttn": lambda: forward_example(
            f"{FF}.FACTAttn",
            {"seq_len": 16, "pred_len": 4, "n_vars": 4, "d_model": 8, "d_ff": 8, "n_heads": 2},
            {"x": 2},
            x=gauss(2, 16, 4),
        ),
        f"{FF}.unpad_from_grid": lambda: call_example(f"{FF}.unpad_from_grid", g=gauss(2, 4, 3, 3), n_vars=5),
        f"{FF}.prepare": lambda: call_example(
            f"{FF}.prepare", data=normal_array(60, 3), seq_len=4, pred_len=2
        ),
    }
)

# --- architectures.hyper_set, mamba_theory, phat --------------------------------------------------------------
HS = "iclr26.architectures.hyper_set"
_IMAGE = {"d_model": 8, "n_heads": 2, "n_classes": 3, "n_tokens": 4, "task": "image", "in_features": 6}
EXAMPLES.update(
    {
        f"{HS}.HyperSET": lambda: forward_example(
            f"{HS}.HyperSET", _IMAGE | {"n_iter": 2, "time_emb": 8}, {"x": -1}, x=gauss(2, 4, 6)
        ),
        f"{HS}.CRATE": lambda: forward_example(
            f"{HS}.CRATE", _IMAGE | {"n_layers": 1}, {"x": -1}, x=gauss(2, 4, 6)
        ),
        f"{HS}.VanillaTransformer": lambda: forward_example(
            f"{HS}.VanillaTransformer", _IMAGE | {"n_layers": 1}, {"x": -1}, x=gauss(2, 4, 6)
        ),
        f"{HS}.EnergyTransformer": lambda: forward_example(
            f"{HS}.EnergyTransformer", _IMAGE | {"n_iter": 1}, {"x": -1}, x=gauss(2, 4, 6)
        ),
    }
)

MT = "iclr26.architectures.mamba_theory"
PH = "iclr26.architectures.phat"
EXAMPLES.update(
    {
        f"{MT}.locality_labels": lambda: call_example(
            f"{MT}.locality_labels", pattern_ids=ids(3, 5, vocab=4)
        ),
        f"{PH}.unfold": lambda: call_example(f"{PH}.unfold", Z=gauss(2, 4, 2, 3), length=7),
        f"{PH}.naive_pna": lambda: Example(
            fn(f"{PH}.naive_pna"),
            {"attn": built(lambda: fn(f"{PH}.PNAttention")(d_model=8, n_heads=2)), "z": gauss(2, 3, 4, 8)},
            agree={"z": -1},
        ),
    }
)

# --- inference.uniroute -------------------------------------------------------------------------------------
UR = "iclr26.inference.uniroute"


def _errors(n: int = 6, m: int = 3, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random((n, m)) > 0.5).astype(float)


EXAMPLES.update(
    {
        f"{UR}.normalize_costs": lambda: call_example(
            f"{UR}.normalize_costs", costs=np.array([2.0, 4.0, 10.0])
        ),
        f"{UR}.lambda_grid": lambda: call_example(f"{UR}.lambda_grid", costs=np.array([1.0, 2.0, 5.0]), n=4),
        f"{UR}.route_scores": lambda: call_example(
            f"{UR}.route_scores",
            {"costs": 0},
            gamma=np.random.default_rng(0).random((4, 3)),
            costs=np.array([0.0, 0.5, 1.0]),
            lam=0.5,
        ),
        f"{UR}.audc": lambda: call_example(
            f"{UR}.audc", {"accuracy": 0}, cost=np.array([0.0, 0.5, 1.0]), accuracy=np.array([0.5, 0.7, 0.9])
        ),
        f"{UR}.quality_neutral_cost": lambda: call_example(
            f"{UR}.quality_neutral_cost",
            {"accuracy": 0},
            cost=np.array([0.0, 0.5, 1.0]),
            accuracy=np.array([0.5, 0.7, 0.9]),
            target=0.6,
        ),
        f"{UR}.curve_from_routes": lambda: call_example(
            f"{UR}.curve_from_routes",
            {"routes": 1, "costs": 0, "lams": 0},
            routes=np.array([[0, 1, 2, 0, 1, 2], [0, 0, 0, 0, 0, 0]]),
            test_errors=_errors(),
            costs=np.array([1.0, 2.0, 3.0]),
            lams=np.array([0.0, 1.0]),
        ),
        f"{UR}.lower_hull": lambda: call_example(
            f"{UR}.lower_hull",
            {"errors": 0},
            costs=np.array([1.0, 2.0, 3.0, 4.0]),
            errors=np.array([0.5, 0.45, 0.2, 0.3]),
        ),
        f"{UR}.best_single_llm": lambda: call_example(f"{UR}.best_single_llm", val_errors=_errors()),
        f"{UR}.random_mixture_curve": lambda: call_example(
            f"{UR}.random_mixture_curve",
            {"costs": 0, "val_errors": 1},
            test_errors=_errors(),
            costs=np.array([1.0, 2.0, 3.0]),
            val_errors=_errors(seed=1),
            n_points=3,
        ),
        f"{UR}.cluster_errors": lambda: call_example(
            f"{UR}.cluster_errors",
            {"assign": 0},
            val_errors=_errors(),
            assign=np.array([0, 0, 1, 1, 2, 2]),
            n_clusters=3,
        ),
        f"{UR}.soft_assign": lambda: call_example(
            f"{UR}.soft_assign", {"theta": 1}, theta=normal_array(2, 4, seed=1), X=normal_array(5, 3, seed=2)
        ),
        f"{UR}.cluster_map_loss": lambda: call_example(
            f"{UR}.cluster_map_loss",
            {"theta": 1, "errors": 0, "psi": 1},
            theta=normal_array(2, 4, seed=1),
            X=normal_array(6, 3, seed=2),
            errors=_errors(),
            psi=np.random.default_rng(3).random((3, 2)),
        ),
        f"{UR}.fit_cluster_map": lambda: call_example(
            f"{UR}.fit_cluster_map",
            {"theta0": 1, "errors": 0, "psi": 1},
            X=normal_array(6, 3, seed=2),
            errors=_errors(),
            psi=np.random.default_rng(3).random((3, 2)),
            theta0=normal_array(2, 4, seed=1),
            max_iter=3,
        ),
        f"{UR}.RoutingData": lambda: call_example(
            f"{UR}.RoutingData",
            {"embeddings": 0, "costs": 0},
            embeddings=normal_array(6, 2),
            errors=_errors(),
            costs=np.array([1.0, 2.0, 3.0]),
            llm_names=["a", "b", "c"],
        ),
    }
)


# --- inference.hyperprune -----------------------------------------------------------------------------------
HP = "iclr26.inference.hyperprune"


def _gram(d: int = 8, seed: int = 3) -> torch.Tensor:
    x = gauss(16, d, seed=seed)
    return x.T @ x / 16


EXAMPLES.update(
    {
        f"{HP}.nm_mask_from_scores": lambda: call_example(
            f"{HP}.nm_mask_from_scores", scores=gauss(3, 8).abs(), n=2, m=4
        ),
        f"{HP}.pattern_logits_from_scores": lambda: call_example(
            f"{HP}.pattern_logits_from_scores", scores=gauss(3, 8).abs(), n=2, m=4
        ),
        f"{HP}.is_nm_sparse": lambda: call_example(f"{HP}.is_nm_sparse", weight=gauss(3, 8), n=2, m=4),
        f"{HP}.apply_nm_mask": lambda: call_example(
            f"{HP}.apply_nm_mask",
            {"mask": 1},
            weight=gauss(3, 8),
            mask=fn(f"{HP}.nm_mask_from_scores")(gauss(3, 8, seed=1).abs(), 2, 4),
        ),
        f"{HP}.gumbel_pattern_mask": lambda: call_example(
            f"{HP}.gumbel_pattern_mask",
            {"patterns": 0},
            logits=gauss(5, 6),
            patterns=fn(f"{HP}.nm_patterns")(2, 4),
            tau=0.5,
            noise=torch.zeros(5, 6),
        ),
        f"{HP}.wanda_scores": lambda: call_example(
            f"{HP}.wanda_scores", {"gram": 0}, weight=gauss(3, 8), gram=_gram()
        ),
        f"{HP}.group_features": lambda: call_example(
            f"{HP}.group_features", {"gram": 0}, weight=gauss(3, 8), gram=_gram(), n=2, m=4
        ),
        f"{HP}.reconstruction_error": lambda: call_example(
            f"{HP}.reconstruction_error",
            {"keep": 1, "gram": 0},
            weight=gauss(3, 8),
            keep=fn(f"{HP}.nm_mask_from_scores")(gauss(3, 8, seed=1).abs(), 2, 4).float(),
            gram=_gram(),
        ),
        f"{HP}.outlier_retention": lambda: call_example(
            f"{HP}.outlier_retention",
            {"keep": 1, "gram": 0},
            weight=gauss(3, 8),
            keep=fn(f"{HP}.nm_mask_from_scores")(gauss(3, 8, seed=1).abs(), 2, 4).float(),
            gram=_gram(),
        ),
        f"{HP}.sparsegpt_matrix": lambda: call_example(
            f"{HP}.sparsegpt_matrix",
            {"gram": 0},
            weight=gauss(3, 8),
            gram=_gram() + torch.eye(8),
            blocksize=4,
        ),
        f"{HP}.HyperNetwork": lambda: Example(
            built(lambda: fn(f"{HP}.HyperNetwork")(m=4, n_patterns=6, n_comps=2, hidden=8, emb_dim=4)),
            {
                "feats": gauss(5, 12, seed=1),
                "prior": gauss(5, 6, seed=2),
                "e_layer": gauss(4, seed=3),
                "comp": 1,
            },
            agree={"feats": -1, "prior": 0, "e_layer": 0},
        ),
        f"{HP}.wanda_prune": lambda: Example(
            fn(f"{HP}.wanda_prune"),
            {"model": _tiny_lm(), "calib_ids": ids(2, 6, vocab=16)},
            vocab={"calib_ids": 16},
        ),
        f"{HP}.sparsegpt_prune": lambda: Example(
            fn(f"{HP}.sparsegpt_prune"),
            {"model": _tiny_lm(), "calib_ids": ids(2, 6, vocab=16), "blocksize": 4},
            vocab={"calib_ids": 16},
        ),
    }
)


# --- inference.meancache ------------------------------------------------------------------------------------
MC = "iclr26.inference.meancache"


def _velocity(z: torch.Tensor, sigma: float, cond: Any) -> torch.Tensor:
    return -z * (1.0 + sigma)


_SIGMAS = [1.0, 0.75, 0.5, 0.25, 0.0]
EXAMPLES.update(
    {
        f"{MC}.euler_sample": lambda: call_example(
            f"{MC}.euler_sample", velocity_fn=_velocity, sigmas=_SIGMAS, z_init=gauss(3, 2)
        ),
        f"{MC}.teacache_sample": lambda: call_example(
            f"{MC}.teacache_sample", velocity_fn=_velocity, sigmas=_SIGMAS, z_init=gauss(3, 2)
        ),
        f"{MC}.taylorseer_sample": lambda: call_example(
            f"{MC}.taylorseer_sample",
            velocity_fn=_velocity,
            sigmas=_SIGMAS,
            schedule=[True, True, False, True],
            z_init=gauss(3, 2),
        ),
        f"{MC}.tune_teacache": lambda: call_example(
            f"{MC}.tune_teacache",
            velocity_fn=_velocity,
            sigmas=_SIGMAS,
            z_init=gauss(3, 2),
            cond=None,
            budget=3,
            iters=3,
        ),
        f"{MC}.estimate_edge_costs": lambda: call_example(
            f"{MC}.estimate_edge_costs",
            velocity_fn=_velocity,
            sigmas=_SIGMAS,
            calib_inputs=gauss(3, 2),
            K_values=[1, 2],
        ),
    }
)

# --- inference.klas -----------------------------------------------------------------------------------------
KL = "iclr26.inference.klas"


def _anchor(name: str = "TinyMixer", depth: int = 2) -> torch.nn.Module:
    return built(lambda: fn(f"{KL}.{name}")(width=4, depth=depth))


def _train_anchor(model: Any, x: Any, y: Any, epochs: Any, seed: Any, batch: Any) -> Any:
    """train_anchor with gradients on (the battery runs every call under no_grad)."""
    with torch.enable_grad():
        return fn(f"{KL}.train_anchor")(model, x, y, epochs, seed, batch=batch)


EXAMPLES.update(
    {
        f"{KL}.count_flops": lambda: call_example(
            f"{KL}.count_flops", module=_anchor(), example=gauss(2, 64)
        ),
        f"{KL}.candidate_flops": lambda: call_example(
            f"{KL}.candidate_flops", anchor_a=_anchor(), anchor_b=_anchor("TinyCNN"), example=gauss(2, 64)
        ),
        f"{KL}.kl_similarity_matrix": lambda: call_example(
            f"{KL}.kl_similarity_matrix",
            anchor_a=_anchor(),
            anchor_b=_anchor("TinyCNN"),
            calib_loader=gauss(6, 64),
        ),
        f"{KL}.cka_similarity_matrix": lambda: call_example(
            f"{KL}.cka_similarity_matrix",
            anchor_a=_anchor(),
            anchor_b=_anchor("TinyCNN"),
            calib_loader=gauss(6, 64),
        ),
        f"{KL}.StitchedNet": lambda: Example(
            built(
                lambda: fn(f"{KL}.StitchedNet")(_anchor(), _anchor("TinyCNN"), 1, 1, torch.nn.Linear(4, 4))
            ),
            {"x": gauss(2, 64)},
            agree={"x": 1},
        ),
        f"{KL}.train_anchor": lambda: Example(
            _train_anchor,
            {
                "model": _anchor(depth=1),
                "x": gauss(8, 64),
                "y": ids(8, vocab=10),
                "epochs": 1,
                "seed": 0,
                "batch": 8,
            },
            agree={"y": 0},
            vocab={"y": 10},
        ),
    }
)

# --- inference.dparallel ------------------------------------------------------------------------------------
DP = "iclr26.inference.dparallel"
V = 5


def _mdlm() -> torch.nn.Module:
    from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer

    return MaskedDiffusionTransformer(
        n_tokens=V, seq_len=8, d_model=8, n_layers=1, n_heads=2, init_seed=0
    ).eval()


def _bert() -> torch.nn.Module:
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(
        vocab_size=V + 1,
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=16,
    )
    return BertForMaskedLM(cfg)


EXAMPLES.update(
    {
        f"{DP}.decode": lambda: Example(
            fn(f"{DP}.decode"),
            {"model": _mdlm(), "prompt_ids": ids(2, 4, vocab=V), "gen_len": 4, "block_size": 2},
            vocab={"prompt_ids": V},
        ),
        f"{DP}.generate": lambda: Example(
            fn(f"{DP}.generate"),
            {"model": _mdlm(), "prompt_ids": ids(2, 4, vocab=V), "gen_len": 4, "block_size": 2},
            vocab={"prompt_ids": V},
        ),
        f"{DP}.self_distill_dataset": lambda: Example(
            fn(f"{DP}.self_distill_dataset"),
            {"teacher": _mdlm(), "prompts": ids(2, 4, vocab=V), "gen_len": 4, "block_size": 2},
            vocab={"prompts": V},
        ),
        f"{DP}.CertaintyForcingTrainer": lambda: Example(
            fn(f"{DP}.CertaintyForcingTrainer")(_mdlm(), block_size=2, lr=1e-3).loss,
            {"input_ids": ids(2, 8, vocab=V), "prompt_len": 4, "generator": torch.Generator().manual_seed(0)},
            vocab={"input_ids": V},
        ),
        f"{DP}.HFMaskedDiffusionAdapter": lambda: Example(
            built(lambda: fn(f"{DP}.HFMaskedDiffusionAdapter")(_bert(), mask_id=V)),
            {"ids": ids(2, 6, vocab=V)},
            vocab={"ids": V + 1},
        ),
    }
)

# --- inference.ens_watermark, fly ---------------------------------------------------------------------------
EW = "iclr26.inference.ens_watermark"
FL = "iclr26.inference.fly"
EXAMPLES.update(
    {
        f"{EW}.regenerate_tokens": lambda: Example(
            fn(f"{EW}.regenerate_tokens"),
            {
                "model": _tiny_lm(),
                "ids": ids(2, 6, vocab=16),
                "mask": torch.tensor([[False, False, True, False, True, False]] * 2),
                "generator": torch.Generator().manual_seed(0),
            },
            agree={"mask": 1},
            vocab={"ids": 16},
        ),
        f"{EW}.smoothing_attack": lambda: Example(
            fn(f"{EW}.smoothing_attack"),
            {"model": _tiny_lm(), "ids": ids(2, 6, vocab=16), "eps": 0.5, "start": 2},
            vocab={"ids": 16},
        ),
        f"{EW}.paraphrase_attack": lambda: Example(
            fn(f"{EW}.paraphrase_attack"),
            {"model": _tiny_lm(), "ids": ids(2, 8, vocab=16), "eps": 0.5, "start": 2, "span": 2},
            vocab={"ids": 16},
        ),
        f"{FL}.generate": lambda: Example(
            fn(f"{FL}.generate"),
            {
                "target": fn("iclr26.inference.cactus.TableLM")(
                    torch.softmax(gauss(6, 6, seed=1), -1).double()
                ),
                "drafter": fn("iclr26.inference.cactus.TableLM")(
                    torch.softmax(gauss(6, 6, seed=2), -1).double()
                ),
                "input_ids": ids(1, 3, vocab=6),
                "max_new_tokens": 4,
                "k": 2,
            },
            vocab={"input_ids": 6},
        ),
    }
)

# --- inference.equilibrium_lm -------------------------------------------------------------------------------
EL = "iclr26.inference.equilibrium_lm"


def _elm() -> torch.nn.Module:
    return fn(f"{EL}.make_elm")(_tiny_lm("llama", n_layers=3), start=0, group_len=2, eps_exit=None).eval()


EXAMPLES.update(
    {
        f"{EL}.group_activations": lambda: Example(
            fn(f"{EL}.group_activations"),
            {"model": _tiny_lm("llama", n_layers=3), "batch": ids(2, 5, vocab=16)},
            vocab={"batch": 16},
        ),
        f"{EL}.block_influence": lambda: Example(
            fn(f"{EL}.block_influence"),
            {"model": _tiny_lm("llama", n_layers=3), "batch": ids(2, 5, vocab=16), "group_len": 2},
            vocab={"batch": 16},
        ),
        f"{EL}.cached_decode_loss": lambda: Example(
            fn(f"{EL}.cached_decode_loss"),
            {"model": _tiny_lm("llama"), "windows": ids(2, 5, vocab=16)},
            vocab={"windows": 16},
        ),
        f"{EL}.one_step_reference_decode": lambda: Example(
            fn(f"{EL}.one_step_reference_decode"),
            {"model": _elm(), "input_ids": ids(1, 3, vocab=16), "max_new_tokens": 2},
            vocab={"input_ids": 16},
        ),
        f"{EL}.linear_replacement": lambda: Example(
            fn(f"{EL}.linear_replacement"),
            {
                "model": _tiny_lm("llama", n_layers=3),
                "start": 0,
                "group_len": 2,
                "calibration": ids(4, 6, vocab=16),
            },
            vocab={"calibration": 16},
        ),
        f"{EL}.LinearGroup": lambda: Example(
            built(lambda: fn(f"{EL}.LinearGroup")(gauss(16, 16, seed=1) / 4, gauss(16, seed=2))),
            {"hidden_states": gauss(2, 3, 16)},
            agree={"hidden_states": -1},
        ),
    }
)

ACCEPTS.update(
    {
        **{
            (
                f"{HP}.is_nm_sparse",
                "weight",
                m,
            ): "a structure test that counts non-zeros: the zeros of any dtype "
            "are zeros (is_nm_sparse(mask) checks a bool keep mask) and NaN or inf are non-zero entries"
            for m in ("int", "complex", "bool", "nan", "inf")
        },
        **{
            (
                f"{HP}.{n}",
                "keep",
                m,
            ): "documented: a 0/1 keep mask of any real dtype (nm_mask_from_scores gives "
            "bool) or soft keep probabilities, cast to the weight's dtype"
            for n in ("reconstruction_error", "outlier_retention")
            for m in ("int", "bool")
        },
        **{
            (f"{HP}.gumbel_pattern_mask", "patterns", m): "documented: the 0/1 pattern table of nm_patterns, "
            "of any real dtype, is cast to the logits' dtype"
            for m in ("int", "bool")
        },
    }
)

ACCEPTS.update(
    {
        **{
            (
                name,
                arg,
                m,
            ): "a pure layout operation (a gather, a reshape or a pad by copies): every dtype is "
            "carried through unchanged"
            for name, arg in (
                (f"{FF}.unpad_from_grid", "g"),
                (f"{T1}.PixelShuffle1D", "x"),
                (f"{T1}.front_pad", "x"),
            )
            for m in ("int", "complex", "bool")
        },
        **{
            (
                f"{T1}.front_pad",
                "x",
                m,
            ): "documented (..., T): pads the last (time) axis, any leading axes are carried through"
            for m in ("ndim-", "ndim+")
        },
        **{
            (
                name,
                arg,
                m,
            ): "documented binary mask (1 = observed/counted, 0 = not): a bool or integer 0/1 mask "
            "is the same mask (values other than 0/1 are refused)"
            for name, arg in (
                (f"{T1}.T1Imputer", "mask"),
                (f"{T1}.SAITSLike", "mask"),
                (f"{T1}.masked_normalize", "mask"),
                (f"{T1}.masked_mse", "weight"),
            )
            for m in ("int", "bool")
        },
    }
)

ACCEPTS.update(
    {
        **{
            (name, arg, m): "the samplers are shape-agnostic: z may have any shape the velocity field takes "
            "(the velocity must return z's shape, which is checked at every call)"
            for name, arg in (
                (f"{MC}.euler_sample", "z_init"),
                (f"{MC}.teacache_sample", "z_init"),
                (f"{MC}.taylorseer_sample", "z_init"),
                (f"{MC}.tune_teacache", "z_init"),
                (f"{MC}.estimate_edge_costs", "calib_inputs"),
            )
            for m in ("ndim-", "ndim+")
        },
        **{
            (name, "example", m): "a FLOP count depends on the input's shape only, never on its values"
            for name in (f"{KL}.count_flops", f"{KL}.candidate_flops")
            for m in ("nan", "inf")
        },
        **{
            (
                f"{EL}.LinearGroup",
                "hidden_states",
                m,
            ): "documented (..., d): a position-wise affine map over any leading axes, as nn.Linear"
            for m in ("ndim-", "ndim+")
        },
    }
)


# --- architectures: fit/impute estimators, datasets, sudoku counting ---------------------------------------------
def _deep_imputer() -> Any:
    """A DeepImputer whose network is a tiny SAITSLike (the base class leaves ``build`` to its subclasses)."""

    class _Tiny(fn(f"{T1}.DeepImputer")):
        def build(self, n_vars: int, seq_len: int) -> torch.nn.Module:
            return fn(f"{T1}.SAITSLike")(n_vars, seq_len, d_model=8, n_layers=1, n_heads=2)

    return _Tiny(steps=1, batch_size=2)


def _fit_example(imputer: Any) -> Example:
    x, mask = _np_series_mask()
    return Example(with_grad(imputer.fit), {"X": x, "mask": mask}, agree={"mask": 2})


_SUDOKU = np.array(
    [int(c) for c in "534678912672195348198342567859761423426853791713924856961537284287419635345286179"]
)


def _puzzle() -> np.ndarray:
    grid = _SUDOKU.copy()
    grid[[0, 10, 40, 80]] = 0
    return grid


EXAMPLES.update(
    {
        f"{T1}.DeepImputer": lambda: _fit_example(_deep_imputer()),
        f"{T1}.SAITS": lambda: _fit_example(
            fn(f"{T1}.SAITS")(d_model=8, n_layers=1, n_heads=2, steps=1, batch_size=2)
        ),
        f"{T1}.T1": lambda: _fit_example(fn(f"{T1}.T1")(_t1_config(), steps=1, batch_size=2)),
        f"{T1}.iterative_impute": lambda: call_example(
            f"{T1}.iterative_impute",
            {"mask": 2, "reference": 1},
            **dict(zip(("x", "mask"), _np_series_mask())),
            reference=normal_array(10, 3),
        ),
        f"{FF}.ForecastData": lambda: call_example(
            f"{FF}.ForecastData",
            {"marks": 0},
            series=gauss(20, 3),
            marks=gauss(20, 2, seed=1),
            seq_len=4,
            pred_len=2,
            train_end=14,
            val_end=16,
        ),
        f"{MT}.SequenceData": lambda: Example(
            fn(f"{MT}.SequenceData"),
            {
                "X": gauss(3, 5, 4),
                "y": torch.tensor([1.0, -1.0, 1.0]),
                "patterns": torch.eye(4)[:3],
                "pattern_ids": ids(3, 5, vocab=3),
            },
            agree={"y": 0, "patterns": 1, "pattern_ids": 1},
            vocab={"pattern_ids": 3},
        ),
        f"{HS}.count_solutions": lambda: call_example(f"{HS}.count_solutions", grid=_puzzle()),
        f"{HS}.is_solution": lambda: call_example(f"{HS}.is_solution", solution=_SUDOKU.copy(), puzzle=None),
    }
)


# --- inference: equilibrium_lm trainers and block, hyperprune drivers ------------------------------------------
def _elm_trainer() -> Any:
    dense = _tiny_lm("llama", n_layers=3)
    return fn(f"{EL}.ELMTrainer")(fn(f"{EL}.make_elm")(dense, 0, 2), dense, steps=2, lr=1e-3)


def _distill_trainer() -> Any:
    import copy

    teacher = _tiny_lm("llama", n_layers=2)
    student = copy.deepcopy(teacher)
    layer = student.model.layers[-1]
    return fn(f"{EL}.DistillTrainer")(
        student, teacher, layer, layer, teacher.model.layers[-1], steps=2, lr=1e-3
    )


def _keep_all(index: int, block: Any, linears: Any, grams: Any) -> None:
    return None


EXAMPLES.update(
    {
        f"{EL}.FixedPointBlock": lambda: Example(
            built(lambda: fn(f"{EL}.FixedPointBlock")(torch.nn.Linear(4, 4), 4, max_iter=2)),
            {"x": gauss(1, 2, 4)},
            agree={"x": -1},
        ),
        f"{EL}.ELMTrainer": lambda: Example(
            with_grad(_elm_trainer().step), {"batch": ids(2, 5, vocab=16)}, vocab={"batch": 16}
        ),
        f"{EL}.DistillTrainer": lambda: Example(
            with_grad(_distill_trainer().step), {"batch": ids(2, 5, vocab=16)}, vocab={"batch": 16}
        ),
        f"{HP}.set_weight": lambda: Example(
            fn(f"{HP}.set_weight"),
            {"module": built(lambda: torch.nn.Linear(8, 3)), "weight": gauss(3, 8)},
            agree={"weight": 1},
        ),
        f"{HP}.run_sequential": lambda: Example(
            fn(f"{HP}.run_sequential"),
            {"model": _tiny_lm(), "calib_ids": ids(2, 6, vocab=16), "fn": _keep_all},
            vocab={"calib_ids": 16},
        ),
        f"{HP}.maskllm_lite_prune": lambda: Example(
            with_grad(fn(f"{HP}.maskllm_lite_prune")),
            {"model": _tiny_lm(), "calib_ids": ids(2, 6, vocab=16), "steps": 1, "batch_size": 2},
            vocab={"calib_ids": 16},
        ),
    }
)

ACCEPTS.update(
    {
        (
            f"{HS}.count_solutions",
            "grid",
            "ndim+",
        ): "documented: 81 cells in any layout (a flat 81 or a 9x9 grid "
        "is ravelled); a grid of another size is refused",
        (
            f"{HS}.count_solutions",
            "grid",
            "float",
        ): "cells are numbers 0..9: a float grid of whole numbers is the "
        "same grid (a non-integral or out-of-range cell is refused)",
        (
            f"{HS}.is_solution",
            "solution",
            "ndim+",
        ): "documented: 81 cells in any layout (a 9x9 grid is ravelled)",
        (f"{HS}.is_solution", "solution", "float"): "a float grid of whole numbers 1..9 is the same grid (a "
        "non-integral cell makes it no solution)",
    }
)
