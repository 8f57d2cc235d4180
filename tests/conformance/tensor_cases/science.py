"""Tensor-battery examples for the science, decision and agents domains (see ``tensor_cases/__init__.py``)."""

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


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


# --- science.fartrack ------------------------------------------------------------------------------------------
FT = "iclr26.science.fartrack"
_V = 2 * 4 + 5  # bins * coord_range + the 5 special tokens


def _boxes(t: int = 5, seed: int = 0) -> np.ndarray:
    r = np.random.default_rng(seed)
    return np.concatenate([r.uniform(0, 10, (t, 2)), r.uniform(2, 6, (t, 2))], axis=1)


def _xywh(b: int = 2, seed: int = 0) -> torch.Tensor:
    return torch.tensor(_boxes(b, seed), dtype=torch.float32)


def _window(b: int = 2) -> torch.Tensor:
    return torch.tensor([[0.0, 0.0, 16.0]] * b)


def _xyxy(b: int = 2, seed: int = 0) -> torch.Tensor:
    lo = torch.rand(b, 2, generator=torch.Generator().manual_seed(seed)) * 0.4
    return torch.cat([lo, lo + 0.3], dim=1)


EXAMPLES.update(
    {
        f"{FT}.ARTracker": lambda: forward_example(
            f"{FT}.ARTracker",
            {"template_size": 8, "search_size": 16, "patch": 8, "dim": 8, "depth": 2, "heads": 2, "bins": 4},
            {"templates": 0},
            templates=gauss(1, 1, 3, 8, 8, seed=1),
            search=gauss(1, 3, 16, 16, seed=2),
        ),
        f"{FT}.adjacent_kl": lambda: call_example(
            f"{FT}.adjacent_kl",
            {"teacher": -1},
            student=gauss(2, 4, _V, seed=1),
            teacher=gauss(2, 4, _V, seed=2),
        ),
        f"{FT}.expected_box": lambda: call_example(f"{FT}.expected_box", logits=gauss(2, 4, _V), bins=4),
        f"{FT}.siou_loss": lambda: call_example(
            f"{FT}.siou_loss", {"gt_xyxy": 0}, pred_xyxy=_xyxy(seed=1), gt_xyxy=_xyxy(seed=2)
        ),
        f"{FT}.self_distill_loss": lambda: Example(
            fn(f"{FT}.self_distill_loss"),
            {
                "exit_logits": [gauss(2, 4, _V, seed=1), gauss(2, 4, _V, seed=2)],
                "target_tokens": ids(2, 4, vocab=8),
                "target_boxes": _xyxy(),
            },
            agree={"target_tokens": 0, "target_boxes": 0},
            vocab={"target_tokens": _V},
        ),
        f"{FT}.quantize": lambda: call_example(f"{FT}.quantize", box_xyxy=_xyxy(), bins=4),
        f"{FT}.dequantize": lambda: Example(
            fn(f"{FT}.dequantize"), {"tokens": ids(2, 4, vocab=8), "bins": 4}, vocab={"tokens": 8}
        ),
        f"{FT}.crop_window": lambda: call_example(f"{FT}.crop_window", box_xywh=_xywh(), factor=2.0),
        f"{FT}.crop": lambda: call_example(
            f"{FT}.crop", {"window": 0}, frames=gauss(2, 3, 16, 16), window=_window(), size=4
        ),
        f"{FT}.box_to_crop": lambda: call_example(
            f"{FT}.box_to_crop", {"window": 0}, box_xywh=_xywh(), window=_window()
        ),
        f"{FT}.crop_to_box": lambda: call_example(
            f"{FT}.crop_to_box", {"window": 0}, box_xyxy=_xyxy(), window=_window()
        ),
        f"{FT}.box_iou": lambda: call_example(f"{FT}.box_iou", {"b": 0}, a=_boxes(seed=1), b=_boxes(seed=2)),
        **{
            f"{FT}.{n}": (
                lambda n=n: call_example(
                    f"{FT}.{n}", {"gt_boxes": 0}, pred_boxes=_boxes(seed=1), gt_boxes=_boxes(seed=2)
                )
            )
            for n in ("ao_sr", "success_auc", "precision")
        },
    }
)

# --- science.fisale ----------------------------------------------------------------------------------------------
FS = "iclr26.science.fisale"
EXAMPLES.update(
    {
        f"{FS}.Fisale": lambda: forward_example(
            f"{FS}.Fisale",
            {
                "dim": 2,
                "channels": {"solid": 0, "fluid": 3, "interface": 4},
                "hidden_dims": (8,),
                "grid_shapes": ((3, 3),),
                "neighbors": (2,),
                "coupling_steps": 1,
                "heads": 2,
            },
            {"fluid": 0, "interface": 0},
            solid=gauss(1, 5, 2, seed=1),
            fluid=gauss(1, 7, 5, seed=2),
            interface=gauss(1, 6, 6, seed=3),
        ),
        f"{FS}.GATLayer": lambda: forward_example(
            f"{FS}.GATLayer",
            {"in_dim": 4, "out_per_head": 2, "heads": 2},
            {"x": -1, "nbr": 1},
            x=gauss(1, 5, 4),
            nbr=torch.tensor([[[1, 2], [2, 3], [3, 4], [4, 0], [0, 1]]]),
        ),
        f"{FS}.GalerkinAttention": lambda: forward_example(
            f"{FS}.GalerkinAttention", {"dim": 8, "heads": 2}, {"x": -1}, x=gauss(2, 5, 8)
        ),
        f"{FS}.GridProjection": lambda: forward_example(
            f"{FS}.GridProjection",
            {"hidden": 8, "M": 4},
            {"e": 1},
            f=gauss(2, 5, 8, seed=1),
            e=gauss(2, 4, 8, seed=2),
        ),
    }
)

# --- science.ig_fwi ----------------------------------------------------------------------------------------------
IG = "iclr26.science.ig_fwi"


def _coords(n: int = 6) -> torch.Tensor:
    return torch.rand(n, 2, generator=torch.Generator().manual_seed(0)) * 2 - 1


EXAMPLES.update(
    {
        f"{IG}.PixelGrid": lambda: forward_example(f"{IG}.PixelGrid", {"nz": 3, "nx": 4}, coords=_coords()),
        f"{IG}.SirenRep": lambda: forward_example(f"{IG}.SirenRep", {"hidden": 8}, coords=_coords()),
        f"{IG}.FourierFeatureRep": lambda: forward_example(
            f"{IG}.FourierFeatureRep", {"n_features": 4, "hidden": 8}, coords=_coords()
        ),
        f"{IG}.MultiResGridRep": lambda: forward_example(
            f"{IG}.MultiResGridRep", {"levels": 2, "base_res": 4}, coords=_coords()
        ),
        f"{IG}.IGRep": lambda: forward_example(
            f"{IG}.IGRep", {"levels": 2, "base_res": 4, "hidden": 8}, coords=_coords()
        ),
        f"{IG}.smoothed_model": lambda: call_example(
            f"{IG}.smoothed_model", v=2000.0 + 100 * gauss(6, 8), sigma=1.0
        ),
        f"{IG}.representation_ntk": lambda: Example(
            fn(f"{IG}.representation_ntk"),
            {"rep": built(lambda: fn(f"{IG}.SirenRep")(hidden=4)), "coords": _coords(4)},
        ),
        f"{IG}.velocity": lambda: Example(
            fn(f"{IG}.velocity"),
            {
                "rep": built(lambda: fn(f"{IG}.PixelGrid")(3, 4)),
                "v0": torch.full((3, 4), 2000.0),
                "cfg": fn(f"{IG}.OptConfig")(),
            },
        ),
    }
)

# --- science.jarf ------------------------------------------------------------------------------------------------
JA = "iclr26.science.jarf"


def _spd(d: int = 3, seed: int = 0) -> np.ndarray:
    a = normal_array(d, d, seed=seed)
    return a @ a.T + np.eye(d)


def _linear_surrogate() -> Any:
    from sklearn.linear_model import LinearRegression

    X = normal_array(12, 3, seed=3)
    return LinearRegression().fit(X, X @ np.array([1.0, -2.0, 0.5]))


EXAMPLES.update(
    {
        f"{JA}.normalize_ejop": lambda: call_example(f"{JA}.normalize_ejop", H=_spd()),
        f"{JA}.preconditioner": lambda: call_example(f"{JA}.preconditioner", H=_spd()),
        f"{JA}.sorted_eigh": lambda: call_example(f"{JA}.sorted_eigh", H=_spd()),
        f"{JA}.subspace_overlap": lambda: call_example(
            f"{JA}.subspace_overlap",
            {"B": 0},
            U=np.linalg.qr(normal_array(4, 2, seed=1))[0],
            B=np.linalg.qr(normal_array(4, 2, seed=2))[0],
        ),
        f"{JA}.fd_jacobians": lambda: call_example(
            f"{JA}.fd_jacobians", f=lambda x: np.tanh(x[:, :2]), X=normal_array(5, 3), h=0.1
        ),
        f"{JA}.surrogate_ejop": lambda: Example(
            fn(f"{JA}.surrogate_ejop"),
            {
                "surrogate": _linear_surrogate(),
                "X_std": normal_array(5, 3),
                "h": 0.1,
                "classification": False,
            },
        ),
        f"{JA}.ejop_from_callable": lambda: call_example(
            f"{JA}.ejop_from_callable", f=lambda x: np.tanh(x[:, :2]), X=normal_array(5, 3)
        ),
    }
)

# --- science.npe_lbf ---------------------------------------------------------------------------------------------
NP = "iclr26.science.npe_lbf"
EXAMPLES.update(
    {
        f"{NP}.BSplineBasis1D": lambda: forward_example(
            f"{NP}.BSplineBasis1D",
            {"n_basis": 6},
            z=torch.rand(5, 1, generator=torch.Generator().manual_seed(0)),
        ),
        f"{NP}.LegendreBasis": lambda: forward_example(
            f"{NP}.LegendreBasis",
            {"degree": 3},
            z=torch.rand(5, 1, generator=torch.Generator().manual_seed(0)),
        ),
        f"{NP}.MLPBasis": lambda: forward_example(
            f"{NP}.MLPBasis",
            {"n_basis": 4, "hidden": 8},
            z=torch.rand(5, 1, generator=torch.Generator().manual_seed(0)),
        ),
        f"{NP}.TensorBSpline2D": lambda: forward_example(
            f"{NP}.TensorBSpline2D",
            {"n_basis": 5},
            z=torch.rand(5, 2, generator=torch.Generator().manual_seed(0)),
        ),
    }
)

# --- science.overtone --------------------------------------------------------------------------------------------
OV = "iclr26.science.overtone"
_CSM = {"base_kernel": (4, 4), "stride_set": [(2, 2), (4, 2)], "groups": 2}
_CKM = {"base_kernel": (4, 4), "trained_patches": (4, 8), "groups": 2}
EXAMPLES.update(
    {
        f"{OV}.CSMEncoder2d": lambda: forward_example(
            f"{OV}.CSMEncoder2d",
            {"in_channels": 2, "hidden_dim": 8, **_CSM},
            {"x": 1},
            x=gauss(1, 2, 8, 8),
            strides=4,
        ),
        f"{OV}.CSMDecoder2d": lambda: forward_example(
            f"{OV}.CSMDecoder2d",
            {"out_channels": 2, "hidden_dim": 8, **_CSM},
            {"x": 1},
            x=gauss(1, 8, 2, 2),
            strides=4,
        ),
        f"{OV}.CKMEncoder2d": lambda: forward_example(
            f"{OV}.CKMEncoder2d",
            {"in_channels": 2, "hidden_dim": 8, **_CKM},
            {"x": 1},
            x=gauss(1, 2, 8, 8),
            patch=4,
        ),
        f"{OV}.CKMDecoder2d": lambda: forward_example(
            f"{OV}.CKMDecoder2d",
            {"out_channels": 2, "hidden_dim": 8, **_CKM},
            {"x": 1},
            x=gauss(1, 8, 2, 2),
            patch=4,
        ),
        f"{OV}.PatchModulatedEmulator": lambda: forward_example(
            f"{OV}.PatchModulatedEmulator",
            {"channels": 1, "hidden_dim": 8, "depth": 1, "heads": 2, **_CSM},
            {"history": 2},
            history=gauss(1, 2, 1, 8, 8),
            patch=4,
        ),
        f"{OV}.rollout": lambda: Example(
            fn(f"{OV}.rollout"),
            {
                "model": built(
                    lambda: fn(f"{OV}.PatchModulatedEmulator")(
                        channels=1, hidden_dim=8, depth=1, heads=2, **_CSM
                    )
                ),
                "history": gauss(1, 2, 1, 16, 16),
                "n_steps": 2,
                "schedule": [4, 8],
            },
            agree={"history": 2},
        ),
    }
)

# --- decision ----------------------------------------------------------------------------------------------------
DL = "iclr26.decision.dual_learner_crl"
IQ = "iclr26.decision.is_ql"
PB = "iclr26.decision.pac_bayes_continual"
VN = "iclr26.decision.virne"
ZS = "iclr26.decision.zero_shot_evolution"
LB = "iclr26.decision.delayed_lipschitz_bandit"
FI = "iclr26.decision.fl_incentives"
L2 = "iclr26.decision.l2fob"


def _adjacency(n: int = 4) -> torch.Tensor:
    a = torch.eye(n) + torch.diag(torch.ones(n - 1), 1) + torch.diag(torch.ones(n - 1), -1)
    return a / a.sum(1, keepdim=True)


def _genotype() -> np.ndarray:
    return np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=bool)


EXAMPLES.update(
    {
        f"{DL}.QNetwork": lambda: forward_example(
            f"{DL}.QNetwork",
            {"obs_shape": (2, 4, 4), "n_actions": 3, "channels": 4, "hidden": 8},
            {"x": 1},
            x=gauss(2, 2, 4, 4),
        ),
        f"{IQ}.SharedHeadQNet": lambda: forward_example(
            f"{IQ}.SharedHeadQNet",
            {"obs_dim": 4, "n_actions": 3, "K": 2, "hidden": (8,)},
            {"obs": -1},
            obs=gauss(5, 4),
        ),
        f"{PB}.BayesLinear": lambda: forward_example(
            f"{PB}.BayesLinear", {"in_features": 4, "out_features": 3}, {"x": -1}, x=gauss(5, 4), sample=False
        ),
        f"{PB}.BayesMLP": lambda: forward_example(
            f"{PB}.BayesMLP", {"sizes": (4, 8, 3)}, {"x": -1}, x=gauss(5, 4), sample=False
        ),
        f"{VN}.GCNPolicy": lambda: forward_example(
            f"{VN}.GCNPolicy",
            {"adjacency": _adjacency(), "hidden": 8, "layers": 1},
            {"nodes": 1, "context": 0},
            nodes=gauss(2, 4, 11, seed=1),
            context=gauss(2, 6, seed=2),
        ),
        f"{VN}.MLPPolicy": lambda: forward_example(
            f"{VN}.MLPPolicy",
            {"n_nodes": 4, "hidden": 8},
            {"nodes": 1, "context": 0},
            nodes=gauss(2, 4, 11, seed=1),
            context=gauss(2, 6, seed=2),
        ),
        f"{ZS}.UniversalController": lambda: forward_example(
            f"{ZS}.UniversalController",
            {"n_masses": 4, "n_springs": 3, "hidden": (8,), "n_cpg": 2},
            {"inputs": -1},
            inputs=torch.rand(3, 6, generator=torch.Generator().manual_seed(0)),
        ),
        f"{ZS}.masked_center": lambda: call_example(
            f"{ZS}.masked_center", irradiance=torch.rand(3, 4, generator=torch.Generator().manual_seed(0))
        ),
        f"{ZS}.canonical_form": lambda: call_example(f"{ZS}.canonical_form", g=_genotype()),
        f"{ZS}.canonical_hash": lambda: call_example(f"{ZS}.canonical_hash", g=_genotype()),
        f"{ZS}.largest_component": lambda: call_example(f"{ZS}.largest_component", g=_genotype()),
        f"{ZS}.shift_to_bottom_center": lambda: call_example(f"{ZS}.shift_to_bottom_center", g=_genotype()),
        f"{ZS}.diversity": lambda: call_example(
            f"{ZS}.diversity", genotypes=np.stack([_genotype(), _genotype().T, np.roll(_genotype(), 1, 0)])
        ),
        f"{LB}.trig1d": lambda: call_example(f"{LB}.trig1d", x=np.linspace(0, 1, 5)[:, None]),
        f"{LB}.tent1d": lambda: call_example(f"{LB}.tent1d", x=np.linspace(0, 1, 5)[:, None]),
        f"{LB}.bimodal2d": lambda: call_example(f"{LB}.bimodal2d", x=_rng().random((5, 2))),
        f"{FI}.clopper_pearson": lambda: call_example(f"{FI}.clopper_pearson", x=np.array([0, 3, 10]), n=10),
        f"{FI}.round_up": lambda: call_example(f"{FI}.round_up", m=np.array([0.2, 1.5, 3.0])),
        f"{FI}.solve_allocation": lambda: call_example(
            f"{FI}.solve_allocation",
            {"c": 0},
            a=np.array([[0.5, 0.1], [0.2, 0.6]]),
            c=np.array([1.0, 2.0]),
            rhs=1.0,
        ),
        f"{FI}.lower_bound": lambda: call_example(
            f"{FI}.lower_bound",
            {"c": 0},
            a=np.array([[0.5, 0.1], [0.2, 0.6]]),
            c=np.array([1.0, 2.0]),
            delta=0.1,
        ),
        f"{L2}.dkw_radius": lambda: call_example(
            f"{L2}.dkw_radius", n=np.array([1, 5, 10]), n_grid=4, T=10, delta=0.1
        ),
        f"{L2}.expected_payment": lambda: call_example(
            f"{L2}.expected_payment",
            grid=np.linspace(0.1, 1.0, 4),
            cdf=lambda b: np.clip(b, 0.0, 1.0),
            price_rule="first",
        ),
    }
)

# --- agents ------------------------------------------------------------------------------------------------------
AE = "iclr26.agents.autoep"
BP = "iclr26.agents.bayesian_persuasion"
FT2 = "iclr26.agents.flythinker"
MA = "iclr26.agents.mass"
SS = "iclr26.agents.ssot"
VC = "iclr26.agents.vcworld"
RU = "iclr26.agents.recall_unlearning_attack"


def _dist(n: int = 5) -> np.ndarray:
    xy = _rng().random((n, 2))
    return np.sqrt(((xy[:, None] - xy[None]) ** 2).sum(-1))


def _tour(n: int = 5, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n)


def _game() -> Any:
    return fn(f"{BP}.prosecutor")()


def _scheme() -> np.ndarray:
    return np.array([[0.6, 0.4], [0.0, 1.0]])


EXAMPLES.update(
    {
        f"{AE}.tour_length": lambda: call_example(
            f"{AE}.tour_length", {"tour": 0}, tour=_tour(), dist=_dist()
        ),
        f"{AE}.two_opt": lambda: call_example(f"{AE}.two_opt", {"tour": 0}, tour=_tour(), dist=_dist()),
        f"{AE}.greedy_tour": lambda: call_example(f"{AE}.greedy_tour", dist=_dist(), start=0),
        f"{AE}.reference_length": lambda: call_example(f"{AE}.reference_length", dist=_dist(), starts=2),
        f"{AE}.edge_distance": lambda: call_example(
            f"{AE}.edge_distance", {"b": 0}, a=_tour(seed=1), b=_tour(seed=2)
        ),
        f"{AE}.order_crossover": lambda: call_example(
            f"{AE}.order_crossover", {"b": 0}, a=_tour(seed=1), b=_tour(seed=2), rng=_rng()
        ),
        f"{AE}.inversion_mutation": lambda: call_example(
            f"{AE}.inversion_mutation", tour=_tour(), rng=_rng()
        ),
        f"{BP}.value": lambda: call_example(f"{BP}.value", game=_game(), pi=_scheme()),
        f"{BP}.naive_value": lambda: call_example(f"{BP}.naive_value", game=_game(), pi=_scheme()),
        f"{BP}.obedience_gap": lambda: call_example(f"{BP}.obedience_gap", game=_game(), pi=_scheme()),
        f"{BP}.posterior_distribution": lambda: call_example(
            f"{BP}.posterior_distribution", game=_game(), pi=_scheme()
        ),
        f"{BP}.straightforward": lambda: call_example(f"{BP}.straightforward", game=_game(), pi=_scheme()),
        f"{BP}.strategy_tv": lambda: call_example(
            f"{BP}.strategy_tv", game=_game(), pi_a=_scheme(), pi_b=np.array([[1.0, 0.0], [0.0, 1.0]])
        ),
        f"{BP}.upper_hull": lambda: call_example(
            f"{BP}.upper_hull", {"y": 0}, x=np.linspace(0, 1, 5), y=normal_array(5)
        ),
        f"{FT2}.norm_match": lambda: call_example(
            f"{FT2}.norm_match", h=gauss(2, 3, 4, seed=1), embedding_weight=gauss(8, 4, seed=2)
        ),
        f"{FT2}.fuse": lambda: call_example(
            f"{FT2}.fuse",
            {"latents": 0},
            embeds=gauss(2, 3, 4, seed=1),
            latents=gauss(2, 2, 4, seed=2),
            lam=0.5,
        ),
        f"{FT2}.greedy": lambda: call_example(f"{FT2}.greedy", logits=gauss(2, 6)),
        f"{FT2}.TopP": lambda: Example(fn(f"{FT2}.TopP")(), {"logits": gauss(2, 6)}),
        f"{FT2}.response_labels": lambda: call_example(
            f"{FT2}.response_labels", input_ids=ids(2, 5), prompt_len=2
        ),
        f"{FT2}.shifted_loss": lambda: Example(
            fn(f"{FT2}.shifted_loss"),
            {"logits": gauss(2, 5, 6), "labels": ids(2, 5, vocab=6)},
            agree={"labels": 1},
            vocab={"labels": 6},
        ),
        f"{MA}.majority_vote": lambda: Example(
            fn(f"{MA}.majority_vote"),
            {"answers": np.array([[0, 1, 1], [2, 2, 0]]), "n_options": 3},
            vocab={"answers": 3},
        ),
        f"{SS}.sum_mod_choices": lambda: call_example(
            f"{SS}.sum_mod_choices", codes=np.array([[1, 2], [3, 4]]), n=3
        ),
        f"{SS}.rolling_hash_choices": lambda: call_example(
            f"{SS}.rolling_hash_choices", codes=np.array([[1, 2], [3, 4]]), probs=[0.5, 0.5]
        ),
        f"{VC}.steady_state": lambda: call_example(
            f"{VC}.steady_state", {"b": 0}, W=normal_array(3, 3) / 4, b=normal_array(3, seed=1), kappa=0.5
        ),
        f"{RU}.add_noise": lambda: call_example(
            f"{RU}.add_noise",
            {"noise": -1},
            x0=gauss(2, 4, seed=1),
            noise=gauss(2, 4, seed=2),
            t=torch.tensor([1, 3]),
            alphas_cumprod=torch.linspace(0.99, 0.1, 5),
        ),
        f"{RU}.DigitsDDPM": lambda: forward_example(
            f"{RU}.DigitsDDPM",
            {"cfg": fn(f"{RU}.tiny.DDPMConfig")(hidden=8, blocks=1, d_cond=4)},
            {"x_t": -1, "cond": 0},
            x_t=gauss(2, 64, seed=1),
            t=torch.tensor([1, 3]),
            cond=gauss(2, 2, 32, seed=2),
        ),
    }
)


# --- wrappers: autograd on, list/dict entries as arguments of their own --------------------------------------------
# --- agents.autoep.features ------------------------------------------------------------------------------------------
def _population() -> np.ndarray:
    return np.stack([_tour(seed=s) for s in range(4)])


# --- agents.flythinker -------------------------------------------------------------------------------------------
def _gpt(d: int, seed: int = 0) -> torch.nn.Module:
    return fn(f"{FT2}.tinygpt.GPT")(8, d, 1, 2, 8, seed=seed)


def _flythinker() -> torch.nn.Module:
    return built(lambda: fn(f"{FT2}.FlyThinker")(_gpt(8), _gpt(4, seed=1)))


def _generate(model: torch.nn.Module, input_ids: torch.Tensor, max_new_tokens: int) -> Any:
    out = fn(f"{FT2}.generate")(model, input_ids, max_new_tokens)
    return out.sequences, out.logits  # not the wall-clock seconds


# --- agents.mass -------------------------------------------------------------------------------------------------
def _item_set() -> Any:
    return fn(f"{MA}.ItemSet")(
        np.arange(3),
        ("a", "b", "c"),
        (("1", "2"), ("1", "2"), ("1", "2")),
        np.array([0, 1, 0]),
        np.array([False, True, False]),
        np.array([False, False, True]),
    )


# --- agents.recall_unlearning_attack -----------------------------------------------------------------------------
def _ddpm() -> torch.nn.Module:
    return built(lambda: fn(f"{RU}.DigitsDDPM")(fn(f"{RU}.tiny.DDPMConfig")(hidden=8, blocks=1, d_cond=4)))


def _recall_attack(z_ref: torch.Tensor, cond: torch.Tensor, uncond: torch.Tensor) -> Any:
    model = _ddpm()
    sampler = fn(f"{RU}.tiny.DigitsSampler")(model)
    attack = fn(f"{RU}.RecallAttack")(
        model, sampler.img2img, lambda x: np.zeros(len(x), bool), num_timesteps=2, iters=1, steps=2
    )
    out = attack(z_ref, cond, uncond, torch.Generator().manual_seed(0))
    return out.latent, out.image, out.success, out.step  # not the wall-clock seconds


def _text_attack(z_ref: torch.Tensor, cond: torch.Tensor) -> Any:
    model = _ddpm()
    sampler = fn(f"{RU}.tiny.DigitsSampler")(model)
    attack = fn(f"{RU}.TextEmbeddingAttack")(
        model, sampler.txt2img, lambda x: np.zeros(len(x), bool), iters=1, steps=2
    )
    out = attack(z_ref, cond, torch.Generator().manual_seed(0))
    return out.latent, out.image, out.success, out.step  # not the wall-clock seconds


def _cond(n: int = 2, seed: int = 0) -> torch.Tensor:
    return gauss(n, 2, 32, seed=seed)


# --- agents.toss: one sample per list ------------------------------------------------------------------------------
TS = "iclr26.agents.toss"


def _risk_scores(losses_util: torch.Tensor, losses_harm: torch.Tensor) -> Any:
    return fn(f"{TS}.risk_scores")([losses_util], [losses_harm])


def _select(scores: torch.Tensor) -> Any:
    return fn(f"{TS}.select")([scores], 0.25)


def _sample_filter_masks(scores: torch.Tensor) -> Any:
    return fn(f"{TS}.sample_filter_masks")([scores], 0.25)


EXAMPLES.update(
    {
        f"{AE}.features": lambda: call_example(
            f"{AE}.features",
            {"fitness": 0, "best": 0},
            population=_population(),
            fitness=np.array([3.0, 1.0, 2.0, 4.0]),
            best=_tour(seed=1),
        ),
        f"{BP}.Game": lambda: call_example(
            f"{BP}.Game",
            {"v_sender": 1, "prior": 0},
            prior=np.array([0.7, 0.3]),
            u_receiver=np.array([[1.0, 0.0], [0.0, 1.0]]),
            v_sender=np.array([[0.0, 0.0], [1.0, 1.0]]),
        ),
        f"{FT2}.FlyThinker": lambda: Example(
            _flythinker(),
            {"input_ids": ids(2, 5), "labels": ids(2, 5, seed=1)},
            agree={"labels": 1},
            vocab={"input_ids": 8, "labels": 8},
        ),
        f"{FT2}.decode": lambda: Example(
            fn(f"{FT2}.decode"),
            {"model": fn(f"{FT2}.SFT")(built(lambda: _gpt(8))), "input_ids": ids(2, 3), "max_new_tokens": 2},
            vocab={"input_ids": 8},
        ),
        f"{FT2}.generate": lambda: Example(
            _generate,
            {"model": _flythinker(), "input_ids": ids(2, 3), "max_new_tokens": 2},
            vocab={"input_ids": 8},
        ),
        f"{MA}.ItemSet": lambda: call_example(
            f"{MA}.ItemSet",
            {"answers": 0, "long": 0, "code": 0},
            ids=np.arange(3),
            questions=("a", "b", "c"),
            options=(("1", "2"), ("1", "2"), ("1", "2")),
            answers=np.array([0, 1, 0]),
            long=np.array([False, True, False]),
            code=np.array([False, False, True]),
        ),
        f"{MA}.ground_truth_tests": lambda: call_example(
            f"{MA}.ground_truth_tests", {"answers": 0}, items=_item_set(), answers=np.array([0, 0, 0])
        ),
        f"{RU}.RecallAttack": lambda: Example(
            with_grad(_recall_attack),
            {"z_ref": gauss(2, 64), "cond": _cond(seed=1), "uncond": _cond(seed=2)},
            agree={"cond": 0, "uncond": 0},
        ),
        f"{RU}.TextEmbeddingAttack": lambda: Example(
            with_grad(_text_attack), {"z_ref": gauss(2, 64), "cond": _cond(seed=1)}, agree={"cond": 0}
        ),
        **{
            f"{RU}.{n}": (
                lambda n=n, arg=arg: Example(
                    with_grad(fn(f"{RU}.{n}")),
                    {"model": _ddpm(), "concept": 3, arg: torch.rand(4, 64), "steps": 1},
                    agree={arg: 1},
                )
            )
            for n, arg in (("ablate_unlearn", "anchor_images"), ("esd_unlearn", "images"))
        },
        f"{RU}.unlearn": lambda: Example(
            with_grad(fn(f"{RU}.unlearn")),
            {
                "method": "esd",
                "model": _ddpm(),
                "concept": 3,
                "images": np.random.default_rng(0).random((6, 64)),
                "labels": np.array([3, 3, 0, 0, 3, 1]),
                "steps": 1,
                "seed": 0,
            },
            agree={"images": 1, "labels": 0},
            vocab={"labels": 10},
        ),
        f"{TS}.risk_scores": lambda: Example(
            _risk_scores,
            {
                "losses_util": torch.rand(4),
                "losses_harm": torch.rand(4, generator=torch.Generator().manual_seed(1)),
            },
            agree={"losses_harm": 0},
        ),
        f"{TS}.select": lambda: Example(_select, {"scores": gauss(4)}),
        f"{TS}.sample_filter_masks": lambda: Example(_sample_filter_masks, {"scores": gauss(4)}),
    }
)


# --- decision: fl_incentives -------------------------------------------------------------------------------------
def _instance() -> Any:
    return fn(f"{FI}.instances.pos_family_instance")(10, 100, 5.0)


def _contribution_game() -> Any:
    return fn(f"{FI}.ContributionGame").from_instance(_instance())


def _game_arrays() -> dict[str, Any]:
    g = _contribution_game()
    return {"a": g.a, "bad": g.bad, "need": g.need, "c": g.c, "value": np.full(2, 50.0), "grid": g.grid}


_PROFILES = np.array([[10, 9], [0, 0], [3, 4]])


# --- decision: virne ------------------------------------------------------------------------------------------------
def _pn() -> Any:
    import networkx as nx

    g = nx.cycle_graph(5)
    nx.set_node_attributes(g, 10.0, "cpu")
    nx.set_edge_attributes(g, 5.0, "bw")
    return fn(f"{VN}.sim.PhysicalNetwork")(g)


def _vn() -> Any:
    return fn(f"{VN}.VirtualNetwork")(
        np.array([1.0, 2.0, 3.0]), np.array([[0, 1], [1, 2]]), np.array([1.0, 2.0])
    )


# --- decision: zero_shot_evolution ----------------------------------------------------------------------------------
def _sim() -> Any:
    return fn(f"{ZS}.MassSpring2D")(fn(f"{ZS}.body.Workspace")(3, 3))


def _bodies() -> np.ndarray:
    g = np.zeros((2, 3, 3), dtype=np.uint8)
    g[0, :, 0] = 1
    g[1, 1, :2] = 1
    g[1, 0, 0] = 1
    return g


def _archive(*bodies: np.ndarray) -> Any:
    archive = fn(f"{ZS}.NoveltyArchive")()
    for b in bodies:
        archive.extend(b)
    return archive


def _controller() -> torch.nn.Module:
    sim = _sim()
    return built(lambda: fn(f"{ZS}.UniversalController")(sim.n_masses, sim.n_springs, hidden=(4,), n_cpg=5))


def _shift_head_rows(weight: torch.Tensor, bias: torch.Tensor, n_heads: int, n_actions: int) -> Any:
    fn(f"{IQ}.shift_head_rows_")(weight, bias, n_heads, n_actions)
    return weight, bias


EXAMPLES.update(
    {
        f"{FI}.ContributionGame": lambda: call_example(
            f"{FI}.ContributionGame", {"bad": 1, "need": 0, "c": 0, "value": 0}, **_game_arrays()
        ),
        f"{FI}.FailureEstimate": lambda: call_example(
            f"{FI}.FailureEstimate", failures=np.array([3, 0]), n_draws=10
        ),
        f"{FI}.Instance": lambda: call_example(
            f"{FI}.Instance",
            {"h_star": 0, "D": 1, "c": 0},
            H=np.array([[0, 0], [1, 0], [1, 1]]),
            h_star=np.array([0, 0]),
            D=np.array([[0.5, 0.5], [0.0, 1.0]]),
            c=np.array([1.0, 2.0]),
            delta=0.1,
            epsilon=0.2,
        ),
        f"{FI}.agent_utility": lambda: call_example(
            f"{FI}.agent_utility",
            {"m": 0, "payments": 0},
            inst=_instance(),
            agent=0,
            m=np.array([10, 9]),
            payments=np.array([5.0, 0.0]),
        ),
        f"{FI}.best_response": lambda: call_example(
            f"{FI}.best_response", {"profiles": 1}, game=_contribution_game(), i=0, profiles=_PROFILES
        ),
        f"{FI}.is_nash": lambda: call_example(
            f"{FI}.is_nash", {"profiles": 1}, game=_contribution_game(), profiles=_PROFILES
        ),
        f"{FI}.integer_optimum": lambda: call_example(
            f"{FI}.integer_optimum",
            {"c": 0},
            a=np.array([[1.0, 0.0], [0.5, 1.0]]),
            c=np.array([1.0, 1.0]),
            rhs=2.0,
        ),
        **{
            f"{FI}.{n}": (
                lambda n=n: call_example(f"{FI}.{n}", {"m": 0}, report=_instance(), m=np.array([10, 9]))
            )
            for n in ("marginal_benefit_payments", "pwyc_payments")
        },
        f"{FI}.perturb_report": lambda: call_example(
            f"{FI}.perturb_report", D_i=np.full(4, 0.25), rng=_rng()
        ),
        f"{FI}.required_contribution": lambda: call_example(
            f"{FI}.required_contribution",
            {"bad": 1, "need": 0, "profiles": 1},
            a=np.array([[0.3, 0.03], [0.0, 0.3]]),
            bad=np.array([[True, False], [False, True]]),
            need=np.array([3.0, 3.0]),
            i=1,
            profiles=np.array([[10, 0], [100, 0]]),
        ),
        f"{FI}.simulate_failures": lambda: call_example(
            f"{FI}.simulate_failures", {"m": 0}, inst=_instance(), m=np.array([10, 10]), n_draws=20, rng=0
        ),
        f"{IQ}.shift_head_rows_": lambda: Example(
            functools.wraps(fn(f"{IQ}.shift_head_rows_"))(_shift_head_rows),
            {"weight": gauss(6, 4), "bias": gauss(6, seed=1), "n_heads": 3, "n_actions": 2},
            agree={"weight": 0, "bias": 0},
        ),
        f"{L2}.Trajectory": lambda: call_example(
            f"{L2}.Trajectory",
            {"rewards": 0, "costs": 0, "queues": 0},
            bids=np.array([0.5, 0.6, 0.7]),
            rewards=np.array([1.0, 0.0, 1.0]),
            costs=np.array([0.4, 0.0, 0.5]),
            stop_round=3,
            queues=np.zeros((3, 2)),
        ),
        f"{PB}.DigitsTask": lambda: Example(
            fn(f"{PB}.DigitsTask"),
            {
                "name": "t",
                "X": torch.rand(5, 4),
                "y": ids(5, vocab=3),
                "X_hold": torch.rand(3, 4),
                "y_hold": ids(3, vocab=3, seed=1),
                "n_classes": 3,
            },
            agree={"y": 0, "X_hold": 1, "y_hold": 0},
            vocab={"y": 3, "y_hold": 3},
        ),
        f"{PB}.LinRegTask": lambda: call_example(
            f"{PB}.LinRegTask", {"support": 0}, w=np.ones(3), support=np.full(3, 0.5), noise_sd=0.1, label="A"
        ),
        f"{VN}.VirtualNetwork": lambda: call_example(
            f"{VN}.VirtualNetwork",
            {"bw": 0},
            cpu=np.array([1.0, 2.0, 3.0]),
            links=np.array([[0, 1], [1, 2]]),
            bw=np.array([1.0, 2.0]),
        ),
        **{
            f"{VN}.{n}": (
                lambda n=n: call_example(
                    f"{VN}.{n}", {"bw": 0}, pn=_pn(), src=0, dst=2, demand=1.0, bw=np.full(5, 5.0)
                )
            )
            for n in ("bfs_path", "k_shortest_path")
        },
        f"{VN}.rank_map": lambda: call_example(
            f"{VN}.rank_map",
            {"v_score": 0, "p_score": 0},
            pn=_pn(),
            vn=_vn(),
            v_score=np.array([0.3, 0.2, 0.1]),
            p_score=np.arange(5.0),
        ),
        f"{ZS}.MassSpring2D": lambda: Example(
            _sim().simulate,
            {"bodies": _bodies(), "controller": None, "lights": torch.tensor([0.5, -0.5]), "steps": 3},
            agree={"lights": 0},
        ),
        f"{ZS}.crossover": lambda: call_example(
            f"{ZS}.crossover", {"g2": 0}, g1=_bodies()[0], g2=_bodies()[1], archive=_archive()
        ),
        f"{ZS}.mutate": lambda: call_example(f"{ZS}.mutate", g=_bodies()[0], rng=_rng(), archive=_archive()),
        f"{ZS}.variation": lambda: call_example(
            f"{ZS}.variation", population=_bodies(), rng=_rng(), archive=_archive(_bodies())
        ),
        f"{ZS}.evaluate": lambda: call_example(
            f"{ZS}.evaluate",
            controller=_controller(),
            sim=_sim(),
            bodies=_bodies(),
            lights=torch.tensor([0.5, -0.5, 1.0]),
            steps=3,
        ),
        f"{ZS}.evolve": lambda: call_example(
            f"{ZS}.evolve",
            mode="zeroshot",
            population=_bodies(),
            controller=_controller(),
            sim=_sim(),
            eval_lights=torch.tensor([0.5, -0.5]),
            generations=1,
            archive=_archive(_bodies()),
            rng=_rng(),
            steps=2,
        ),
        f"{ZS}.pretrain": lambda: Example(
            with_grad(fn(f"{ZS}.pretrain")),
            {
                "controller": _controller(),
                "sim": _sim(),
                "bodies": _bodies(),
                "n_steps": 1,
                "batch_size": 2,
                "rng": _rng(),
                "steps": 2,
            },
        ),
    }
)

# --- science: biobo, fartrack, fisale, ig_fwi, jarf ------------------------------------------------------------------
BB = "iclr26.science.biobo"


def _biobo() -> Any:
    return fn(f"{BB}.BioBO")(
        {"a": normal_array(8, 3), "b": normal_array(8, 2, seed=1)},
        {"p1": {0, 1, 2}, "p2": {3, 4}},
        fit_iters=2,
        n_components=2,
    )


def _pibo(prior: torch.Tensor) -> Any:
    return fn(f"{BB}.PiBO")(lambda c: c.sum(-1), prior, beta=1.0, n=1)(gauss(5, 2))


def _fuse_embeddings(expr: np.ndarray, rna: np.ndarray) -> Any:
    return fn(f"{BB}.fuse_embeddings")({"expr": expr, "rna": rna}, n_components=2)


def _feature_distill_loss(student_hidden: torch.Tensor, teacher_hidden: torch.Tensor) -> Any:
    return fn(f"{FT}.feature_distill_loss")([student_hidden], [teacher_hidden], stride=1)


def _fisale() -> torch.nn.Module:
    return built(
        lambda: fn(f"{FS}.Fisale")(
            dim=2,
            channels={"solid": 0, "fluid": 3, "interface": 4},
            hidden_dims=(8,),
            grid_shapes=((3, 3),),
            neighbors=(2,),
            coupling_steps=1,
            heads=2,
        )
    )


def _latent_grid() -> torch.nn.Module:
    return built(lambda: fn(f"{FS}.LatentALEGrid")(dim=2, hidden=8, grid_shape=(3, 3), neighbors=2))


def _latent_grid_call(coords: torch.Tensor) -> Any:
    """The grid on two domains: `coords` (the first, mutated) and a fixed second one."""
    return _latent_grid()([coords, gauss(1, 7, 2, seed=2)])


def _fisale_rollout(solid: torch.Tensor, fluid: torch.Tensor, interface: torch.Tensor) -> Any:
    return fn(f"{FS}.rollout")(_fisale(), (solid, fluid, interface), 2)


def _fd2d() -> torch.nn.Module:
    src, rec = fn(f"{IG}.models.surface_acquisition")(6, 1)
    wavelet = fn(f"{IG}.models.ricker")(12.0, 30, 0.003, dtype=torch.float64)
    return fn(f"{IG}.AcousticFD2D")(6, 6, 20.0, 0.003, src, rec, wavelet, pml_width=2, v_max=3000.0)


EXAMPLES.update(
    {
        f"{BB}.BioBO": lambda: Example(
            with_grad(_biobo().suggest),
            {"obs_idx": np.array([0, 1, 2, 3]), "y_obs": normal_array(4, seed=2), "batch_size": 2},
            agree={"y_obs": 0},
        ),
        f"{BB}.PiBO": lambda: Example(_pibo, {"prior": torch.rand(5) * 0.5 + 0.25}, agree={"prior": 0}),
        f"{BB}.fuse_embeddings": lambda: Example(
            _fuse_embeddings,
            {"expr": normal_array(6, 3), "rna": normal_array(6, 4, seed=1)},
            agree={"rna": 0},
        ),
        f"{FT}.feature_distill_loss": lambda: Example(
            _feature_distill_loss,
            {"student_hidden": gauss(2, 3, 4, seed=1), "teacher_hidden": gauss(2, 3, 4, seed=2)},
            agree={"teacher_hidden": -1},
        ),
        f"{FS}.IBSimulator": lambda: call_example(
            f"{FS}.IBSimulator",
            {"flow": 0, "stiffness": 0},
            cfg=fn(f"{FS}.data.FSIDataConfig")(n=8, n_fluid=4, n_interface=8),
            nu=torch.full((2,), 0.02, dtype=torch.float64),
            flow=torch.full((2,), 0.2, dtype=torch.float64),
            stiffness=torch.full((2,), 30.0, dtype=torch.float64),
        ),
        f"{FS}.LatentALEGrid": lambda: Example(
            _latent_grid_call, {"coords": gauss(1, 5, 2, seed=1)}, agree={"coords": 0}
        ),
        f"{FS}.rollout": lambda: Example(
            _fisale_rollout,
            {
                "solid": gauss(1, 5, 2, seed=1),
                "fluid": gauss(1, 7, 5, seed=2),
                "interface": gauss(1, 6, 6, seed=3),
            },
            agree={"fluid": 0, "interface": 0},
        ),
        f"{IG}.AcousticFD2D": lambda: Example(
            _fd2d(), {"v": torch.full((6, 6), 2000.0, dtype=torch.float64)}, agree={"v": 1}
        ),
        f"{IG}.fwi_fit": lambda: Example(
            with_grad(fn(f"{IG}.fwi_fit")),
            {
                "rep": built(lambda: fn(f"{IG}.PixelGrid")(6, 6)),
                "op": _fd2d(),
                "d_obs": _fd2d()(torch.full((6, 6), 2100.0, dtype=torch.float64)),
                "v0": torch.full((6, 6), 2000.0, dtype=torch.float64),
                "iters": 1,
            },
            agree={"d_obs": 2, "v0": 1},
        ),
        f"{IG}.wave_ntk_topk": lambda: Example(
            fn(f"{IG}.wave_ntk_topk"),
            {
                "rep": built(lambda: fn(f"{IG}.PixelGrid")(6, 6)),
                "op": _fd2d(),
                "v": torch.full((6, 6), 2000.0, dtype=torch.float64),
                "k": 2,
            },
            agree={"v": 1},
        ),
    }
)


# --- legitimately accepted mutations ------------------------------------------------------------------------------
#: (callable, argument) -> why a leading axis more or fewer is legitimately accepted (the ndim+/ndim- mutations)
_ANY_LEADING: dict[tuple[str, str], str] = {
    **{
        (f"{FT}.{n}", arg): "documented (..., 4): the coordinates map over any leading axes"
        for n, arg in (("quantize", "box_xyxy"), ("dequantize", "tokens"))
    },
    (
        f"{FT2}.norm_match",
        "h",
    ): "normalises each position (last axis): any leading axes, documented per position",
    (f"{IQ}.SharedHeadQNet", "obs"): "documented obs (..., obs_dim) -> (..., K+1, n_actions)",
    (f"{ZS}.masked_center", "irradiance"): "centres each row over the last axis only: any leading axes",
    (f"{FI}.clopper_pearson", "x"): "documented: vectorised over x (an int or an array of any shape)",
    (f"{L2}.dkw_radius", "n"): "documented: n is an int or an array of counts of any shape (vectorised)",
}
ACCEPTS.update({(n, a, m): why for (n, a), why in _ANY_LEADING.items() for m in ("ndim-", "ndim+")})
ACCEPTS.update(
    {
        **{
            (
                f"{FT}.{n}",
                arg,
                "ndim+",
            ): "documented (T, 4) or (S, T, 4): a (1, T, 4) batch is that one sequence"
            for n in ("ao_sr", "success_auc", "precision")
            for arg in ("pred_boxes", "gt_boxes")
        },
        **{
            (
                f"{JA}.normalize_ejop",
                "H",
                m,
            ): "documented: a non-finite trace gives the identity fallback (flagged by the returned bool)"
            for m in ("nan", "inf")
        },
        (
            f"{NP}.MLPBasis",
            "z",
            "inf",
        ): "documented (_check_values): +-inf is a point outside the support, allowed",
        (f"{FI}.clopper_pearson", "x", "float"): "whole-number counts are accepted in any numeric dtype "
        "(x % 1 == 0 is checked)",
        (
            f"{L2}.dkw_radius",
            "n",
            "float",
        ): "n enters the radius as a real number; a float array of counts is "
        "the same counts (negative or NaN counts are refused)",
        (f"{RU}.add_noise", "t", "ndim-"): "documented: one timestep for every row (a 0-d t is one int)",
        (f"{RU}.DigitsDDPM", "t", "ndim-"): "documented: t (batch,) or one int (a 0-d t is one int)",
    }
)

#: callable -> its binary-genotype argument: check_genotype tests the VALUES (only 0 and 1), so a float grid of
#: 0.0/1.0 is the same body and converts exactly to uint8 (2.0 or 0.5 is refused)
_GENOTYPES = {
    f"{ZS}.MassSpring2D": "bodies",
    f"{ZS}.crossover": "g1",
    f"{ZS}.evaluate": "bodies",
    f"{ZS}.evolve": "population",
    f"{ZS}.mutate": "g",
    f"{ZS}.pretrain": "bodies",
    f"{ZS}.variation": "population",
}
ACCEPTS.update(
    {
        **{
            (n, arg, "float"): "a binary grid is checked by value (only 0 and 1): 0.0/1.0 converts exactly"
            for n, arg in (*_GENOTYPES.items(), (f"{ZS}.crossover", "g2"))
        },
        (
            f"{AE}.features",
            "population",
            "float",
        ): "documented: a population that is not integer permutations "
        "is a real-vector population (Euclidean distances)",
        **{
            (f"{FI}.Instance", arg, "float"): "0/1 labels are checked by value (np.isin(., (0, 1))); "
            "0.0/1.0 converts exactly to int8"
            for arg in ("H", "h_star")
        },
        **{
            (f"{FI}.{n}", "m", "float"): "m is real-valued sample counts (the fractional LP allocation too, "
            "checked finite and >= 0): a float array of whole counts is the same allocation"
            for n in ("agent_utility", "marginal_benefit_payments", "pwyc_payments")
        },
        (f"{FI}.simulate_failures", "m", "float"): "integer counts are checked by value (m % 1 == 0): "
        "whole-number floats are the same counts",
        **{
            (f"{FI}.{n}", "profiles", "ndim-"): "one profile (k,) is read as a batch of one (np.atleast_2d, "
            "as best_response_dynamics passes single profiles)"
            for n in ("best_response", "is_nash", "required_contribution")
        },
        **{
            (f"{FI}.{n}", "profiles", "float"): "contributions are real numbers, checked finite and >= 0 "
            "(is_nash checks whole numbers by value): a float profile of whole counts is the same profile"
            for n in ("best_response", "is_nash", "required_contribution")
        },
        **{
            (
                f"{IQ}.shift_head_rows_",
                arg,
                "ndim+",
            ): "documented: any leading axes (e.g. the member axis of a "
            "stacked ensemble) are shifted together"
            for arg in ("weight", "bias")
        },
        **{
            (f"{IQ}.shift_head_rows_", arg, m): "the first entry belongs to head 0, which the window shift "
            "overwrites by design (omega_0 <- omega_1); a non-finite entry of any kept head stays in the output"
            for arg in ("weight", "bias")
            for m in ("nan", "inf")
        },
        (f"{VN}.VirtualNetwork", "links", "ndim+"): "links are read as pairs (reshape(-1, 2)) after an even "
        "size is checked: any array of 2k endpoint indices is those k links",
        (f"{VN}.VirtualNetwork", "links", "float"): "endpoint indices are checked by value (finite, "
        "links % 1 == 0) and convert exactly to int64",
        (
            f"{BB}.BioBO",
            "y_obs",
            "ndim+",
        ): "y_obs is flattened (reshape(-1)) and must match obs_idx in length: "
        "a (1, n) array is the same n observations",
    }
)
