"""Tensor-battery examples of the generative domain (``iclr26.generative.*``): layers, losses, samplers, metrics."""

from __future__ import annotations

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

G = "iclr26.generative"


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --- smc_discrete_diffusion (and the lab's masked diffusion it re-exports) --------------------------------------
SMC = f"{G}.smc_discrete_diffusion"
N_TOK, SEQ = 3, 3  # three clean tokens plus the mask id 3; length 3


def _mdlm() -> torch.nn.Module:
    return built(
        lambda: fn(f"{SMC}.MaskedDiffusionTransformer")(
            N_TOK, SEQ, d_model=8, n_layers=1, n_heads=2, init_seed=0
        )
    )


def _linear_reward(onehot: torch.Tensor) -> torch.Tensor:
    return (onehot[..., :N_TOK] * torch.tensor([0.5, -0.3, 0.2])).sum((-1, -2))


def _partly_masked(b: int = 2) -> torch.Tensor:
    x = ids(b, SEQ, vocab=N_TOK)
    x[:, 0] = N_TOK  # the first position still masked
    return x


EXAMPLES.update(
    {
        f"{SMC}.MaskedDiffusionTransformer": lambda: Example(
            _mdlm(), {"tokens": ids(2, SEQ, vocab=N_TOK + 1)}, vocab={"tokens": N_TOK + 1}
        ),
        f"{SMC}.MaskedDiffusionLM": lambda: Example(
            _mdlm(), {"tokens": ids(2, SEQ, vocab=N_TOK + 1)}, vocab={"tokens": N_TOK + 1}
        ),
        f"{SMC}.mdlm_loss": lambda: Example(
            fn(f"{SMC}.mdlm_loss"),
            {"model": _mdlm(), "x0": ids(4, SEQ, vocab=N_TOK), "generator": _gen(1)},
            vocab={"x0": N_TOK},
        ),
        f"{SMC}.ancestral_sample": lambda: Example(
            fn(f"{SMC}.ancestral_sample"),
            {
                "model": _mdlm(),
                "prompt": ids(2, 1, vocab=N_TOK),
                "gen_len": 2,
                "steps": 2,
                "generator": _gen(3),
            },
            vocab={"prompt": N_TOK},
        ),
        f"{SMC}.tilted_transition": lambda: Example(
            fn(f"{SMC}.tilted_transition"),
            {
                "base_logq": fn(f"{SMC}.reverse_transition")(
                    gauss(2, SEQ, N_TOK + 1).double(), _partly_masked(), 1.0, 0.5, N_TOK
                ),
                "guidance": gauss(2, SEQ, N_TOK + 1, seed=1).double(),
                "x_t": _partly_masked(),
                "mask_id": N_TOK,
            },
            agree={"guidance": 1, "x_t": 1},
            vocab={"x_t": N_TOK + 1},
        ),
        **{
            f"{SMC}.{name}": (
                lambda name=name, extra=extra: Example(
                    fn(f"{SMC}.{name}"),
                    {
                        "logits": gauss(2, SEQ, N_TOK + 1),
                        "x_t": _partly_masked(),
                        "t": 1.0,
                        "s": 0.5,
                        "mask_id": N_TOK,
                        **extra(),
                    },
                    agree={"logits": 1, "x_t": 1},
                    vocab={"x_t": N_TOK + 1},
                )
            )
            for name, extra in (
                ("reverse_transition", dict),
                ("reverse_step", lambda: {"generator": _gen(6)}),
            )
        },
        f"{SMC}.ess_from_log_weights": lambda: call_example(f"{SMC}.ess_from_log_weights", log_w=gauss(2, 5)),
        f"{SMC}.logmeanexp": lambda: call_example(f"{SMC}.logmeanexp", x=gauss(2, 5)),
        f"{SMC}.resample_indices": lambda: call_example(
            f"{SMC}.resample_indices", log_w=gauss(2, 5), generator=_gen(4)
        ),
        f"{SMC}.lookahead_twist": lambda: Example(
            fn(f"{SMC}.lookahead_twist"),
            {
                "model": _mdlm(),
                "x_t": _partly_masked(),
                "reward_fn": _linear_reward,
                "scale": 1.0,
                "generator": _gen(5),
            },
            vocab={"x_t": N_TOK + 1},
        ),
        f"{SMC}.smc_sample": lambda: Example(
            fn(f"{SMC}.smc_sample"),
            {
                "model": _mdlm(),
                "reward_fn": _linear_reward,
                "num_particles": 4,
                "steps": 2,
                "lambdas": torch.tensor([0.5, 0.75, 1.0], dtype=torch.float64),
                "generator": _gen(6),
            },
        ),
        f"{SMC}.base_smc": lambda: Example(
            fn(f"{SMC}.base_smc"),
            {
                "model": _mdlm(),
                "reward_fn": _linear_reward,
                "num_particles": 4,
                "steps": 2,
                "lambdas": torch.tensor([0.5, 0.75, 1.0], dtype=torch.float64),
                "generator": _gen(6),
            },
        ),
        f"{SMC}.guidance_only": lambda: Example(
            fn(f"{SMC}.guidance_only"),
            {
                "model": _mdlm(),
                "reward_fn": _linear_reward,
                "num_samples": 3,
                "steps": 2,
                "lambdas": torch.tensor([0.5, 0.75, 1.0], dtype=torch.float64),
                "generator": _gen(7),
            },
        ),
        f"{SMC}.ancestral": lambda: Example(
            fn(f"{SMC}.ancestral"), {"model": _mdlm(), "num_samples": 3, "steps": 2, "generator": _gen(8)}
        ),
        f"{SMC}.best_of_n": lambda: Example(
            fn(f"{SMC}.best_of_n"),
            {"model": _mdlm(), "reward_fn": _linear_reward, "n": 3, "steps": 2, "generator": _gen(9)},
        ),
        f"{SMC}.AmortisedProposal": lambda: Example(
            built(lambda: fn(f"{SMC}.AmortisedProposal")(N_TOK + 1, SEQ, hidden=8, init_scale=0.1)),
            {"logits": gauss(2, SEQ, N_TOK + 1), "x_t": _partly_masked(), "t": 0.5},
            agree={"logits": 1, "x_t": 1},
            vocab={"x_t": N_TOK + 1},
        ),
        f"{SMC}.MotifReward": lambda: Example(
            fn(f"{SMC}.MotifReward")((0, 1)),
            {"onehot": torch.nn.functional.one_hot(ids(2, 4, vocab=N_TOK), N_TOK + 1).float()},
        ),
        f"{SMC}.MarkovChain": lambda: Example(
            fn(f"{SMC}.MarkovChain"),
            {
                "p1": torch.full((2,), 0.5, dtype=torch.float64),
                "p2": torch.full((2, 2), 0.5, dtype=torch.float64),
                "p3": torch.full((2, 2, 2), 0.5, dtype=torch.float64),
            },
            agree={"p2": 0, "p3": 0},
        ),
        f"{SMC}.token_reward": lambda: Example(
            fn(f"{SMC}.token_reward")(lambda x: (x == 0).sum(-1)),
            {"onehot": torch.nn.functional.one_hot(ids(2, 4, vocab=N_TOK), N_TOK + 1).float()},
        ),
        f"{SMC}.enumerate_sampler": lambda: Example(
            fn(f"{SMC}.enumerate_sampler"), {"model": _mdlm(), "seq_len": SEQ, "steps": 2}
        ),
    }
)

# --- rna_codesign ------------------------------------------------------------------------------------------------
RNA = f"{G}.rna_codesign"


def _rots(*lead: int, seed: int = 0) -> torch.Tensor:
    n = int(np.prod(lead))
    return fn(f"{RNA}.random_rotations")(n, _gen(seed)).reshape(*lead, 3, 3)


def _helix(n: int = 8, seed: int = 0) -> torch.Tensor:
    k = torch.arange(n, dtype=torch.float32)
    return torch.stack([3 * torch.cos(k), 3 * torch.sin(k), 1.5 * k], -1) + 0.1 * gauss(n, 3, seed=seed)


EXAMPLES.update(
    {
        f"{RNA}.so3_exp": lambda: call_example(f"{RNA}.so3_exp", w=gauss(4, 3)),
        f"{RNA}.so3_log": lambda: call_example(f"{RNA}.so3_log", r=_rots(4)),
        f"{RNA}.check_rotations": lambda: Example(fn(f"{RNA}.check_rotations"), {"name": "r", "r": _rots(4)}),
        f"{RNA}.atoms_from_frames": lambda: call_example(
            f"{RNA}.atoms_from_frames", {"trans": 0}, rots=_rots(5), trans=gauss(5, 3)
        ),
        f"{RNA}.frames_from_atoms": lambda: call_example(f"{RNA}.frames_from_atoms", atoms=gauss(5, 3, 3)),
        f"{RNA}.frame_loss": lambda: call_example(
            f"{RNA}.frame_loss",
            {"trans_hat": 1, "rots": 1, "trans": 1},
            rots_hat=_rots(2, 4, seed=1),
            trans_hat=gauss(2, 4, 3, seed=1),
            rots=_rots(2, 4, seed=2),
            trans=gauss(2, 4, 3, seed=2),
        ),
        f"{RNA}.pair_distance_loss": lambda: call_example(
            f"{RNA}.pair_distance_loss",
            {"trans": 1},
            trans_hat=gauss(2, 5, 3, seed=1),
            trans=gauss(2, 5, 3, seed=2),
            cutoff=3.0,
        ),
        f"{RNA}.kabsch": lambda: call_example(f"{RNA}.kabsch", {"y": 0}, x=_helix(seed=1), y=_helix(seed=2)),
        f"{RNA}.kabsch_batch": lambda: call_example(
            f"{RNA}.kabsch_batch",
            {"y": 1},
            x=torch.stack([_helix(seed=1), _helix(seed=3)]),
            y=torch.stack([_helix(seed=2), _helix(seed=4)]),
        ),
        f"{RNA}.rmsd": lambda: call_example(f"{RNA}.rmsd", {"y": 0}, x=_helix(seed=1), y=_helix(seed=2)),
        f"{RNA}.tm_score": lambda: call_example(
            f"{RNA}.tm_score", {"y": 0}, x=_helix(seed=1), y=_helix(seed=2)
        ),
        f"{RNA}.pairs_from_frames": lambda: call_example(
            f"{RNA}.pairs_from_frames", {"trans": 0}, rots=_rots(8), trans=_helix()
        ),
        f"{RNA}.igso3_angle_density": lambda: call_example(
            f"{RNA}.igso3_angle_density", omega=np.linspace(0.1, 3.0, 5), eps=0.5, terms=20
        ),
        f"{RNA}.decode": lambda: Example(fn(f"{RNA}.decode"), {"ids": ids(6, vocab=4)}, vocab={"ids": 4}),
        f"{RNA}.sequence_diversity": lambda: call_example(
            f"{RNA}.sequence_diversity", tokens=ids(3, 6, vocab=4)
        ),
        f"{RNA}.TinyFrameTransformer": lambda: Example(
            built(
                lambda: fn(f"{RNA}.TinyFrameTransformer")(
                    d_model=8, n_layers=1, n_heads=2, pair_dim=4, n_rbf=4
                )
            ),
            {"tokens": ids(2, 4, vocab=5), "rots": _rots(2, 4), "trans": gauss(2, 4, 3), "t": torch.rand(2)},
            agree={"rots": 1, "trans": 1, "t": 0},
            vocab={"tokens": 5},
        ),
    }
)

# --- sitok ---------------------------------------------------------------------------------------------------
ST = f"{G}.sitok"
EXAMPLES.update(
    {
        f"{ST}.CTCHead": lambda: forward_example(
            f"{ST}.CTCHead", {"in_dim": 8, "n_symbols": 5}, {"h": -1}, h=gauss(2, 4, 8)
        ),
        f"{ST}.CausalEncoder": lambda: forward_example(
            f"{ST}.CausalEncoder",
            {"in_dim": 8, "d_model": 8, "n_layers": 1, "n_heads": 2, "max_len": 16},
            {"x": -1},
            x=gauss(2, 4, 8),
        ),
        f"{ST}.EMAVectorQuantizer": lambda: forward_example(
            f"{ST}.EMAVectorQuantizer", {"codebook_size": 6, "dim": 4}, {"x": -1}, x=gauss(2, 5, 4)
        ),
        f"{ST}.PhoneRecognizer": lambda: forward_example(
            f"{ST}.PhoneRecognizer", {"in_dim": 8, "n_symbols": 5, "hidden": 8}, {"x": -1}, x=gauss(2, 4, 8)
        ),
        f"{ST}.RectifiedFlowDecoder": lambda: forward_example(
            f"{ST}.RectifiedFlowDecoder",
            {"feat_dim": 6, "cond_dim": 4, "d_model": 8, "n_layers": 1, "n_heads": 2, "max_len": 16},
            {"x": -1, "tau": 0, "cond": -1},
            x=gauss(2, 5, 6),
            tau=torch.rand(2),
            cond=gauss(2, 5, 4, seed=1),
        ),
        f"{ST}.codebook_perplexity": lambda: Example(
            fn(f"{ST}.codebook_perplexity"),
            {"indices": ids(20, vocab=6), "codebook_size": 6},
            vocab={"indices": 6},
        ),
        f"{ST}.ctc_greedy_decode": lambda: call_example(
            f"{ST}.ctc_greedy_decode",
            {"lengths": 0},
            log_probs=torch.log_softmax(gauss(2, 6, 5), -1),
            lengths=torch.tensor([6, 4]),
            blank=4,
        ),
        f"{ST}.euler_sample": lambda: call_example(
            f"{ST}.euler_sample", velocity=lambda x, tau: -x, noise=gauss(2, 5, 3), steps=3
        ),
        f"{ST}.flow_matching_loss": lambda: call_example(
            f"{ST}.flow_matching_loss",
            {"noise": -1, "tau": 0},
            velocity=lambda x, tau: -x,
            x1=gauss(2, 5, 3, seed=1),
            noise=gauss(2, 5, 3, seed=2),
            tau=torch.rand(2),
        ),
        f"{ST}.frechet_distance": lambda: call_example(
            f"{ST}.frechet_distance", {"b": 1}, a=normal_array(20, 3, seed=1), b=normal_array(20, 3, seed=2)
        ),
        f"{ST}.log_mel": lambda: call_example(f"{ST}.log_mel", wave=gauss(1600)),
    }
)

# --- rg_vfm --------------------------------------------------------------------------------------------------
RG = f"{G}.rg_vfm"


def _sphere() -> Any:
    return fn(f"{RG}.Sphere")(2)


def _on_sphere(n: int = 4, seed: int = 0) -> torch.Tensor:
    return _sphere().random_base(n, _gen(seed))


def _tangent(x: torch.Tensor, seed: int) -> torch.Tensor:
    return _sphere().proju(x, 0.3 * gauss(*x.shape, seed=seed))


def _loss_example(name: str, model: Callable[[], Any], **ctor: Any) -> Example:
    return Example(
        fn(f"{RG}.{name}")(**ctor),
        {"model": model(), "x0": _on_sphere(seed=1), "x1": _on_sphere(seed=2), "t": torch.rand(4) * 0.9},
        agree={"x0": 1, "x1": 1, "t": 0},
    )


def _endpoint() -> torch.nn.Module:
    return built(lambda: fn(f"{RG}.EndpointMLP")(_sphere(), hidden=8, depth=2, time_dim=4))


def _velocity() -> torch.nn.Module:
    return built(lambda: fn(f"{RG}.VelocityMLP")(_sphere(), hidden=8, depth=2, time_dim=4))


EXAMPLES.update(
    {
        f"{RG}.EndpointMLP": lambda: Example(
            _endpoint(), {"x": _on_sphere(), "t": torch.rand(4)}, agree={"x": 1, "t": 0}
        ),
        f"{RG}.VelocityMLP": lambda: Example(
            _velocity(), {"x": _on_sphere(), "t": torch.rand(4)}, agree={"x": 1, "t": 0}
        ),
        f"{RG}.RGVFMLoss": lambda: _loss_example("RGVFMLoss", _endpoint, manifold=_sphere()),
        f"{RG}.RFMLoss": lambda: _loss_example("RFMLoss", _velocity, manifold=_sphere()),
        f"{RG}.CFMLoss": lambda: _loss_example("CFMLoss", _velocity),
        f"{RG}.jacobi_endpoint_norm": lambda: Example(
            fn(f"{RG}.jacobi_endpoint_norm"),
            {
                "manifold": _sphere(),
                "x": _on_sphere(),
                "a": _tangent(_on_sphere(), 1),
                "b": _tangent(_on_sphere(), 2),
            },
            agree={"x": 1, "a": 1, "b": 1},
        ),
        f"{RG}.jacobi_gap": lambda: Example(
            fn(f"{RG}.jacobi_gap"),
            {
                "manifold": _sphere(),
                "x_t": _on_sphere(seed=1),
                "mu": _on_sphere(seed=2),
                "x1": _on_sphere(seed=3),
            },
            agree={"x_t": 1, "mu": 1, "x1": 1},
        ),
        f"{RG}.jacobi_factor": lambda: call_example(
            f"{RG}.jacobi_factor", curvature=1.0, length=torch.rand(4)
        ),
        f"{RG}.ManifoldFlowSampler": lambda: Example(
            fn(f"{RG}.ManifoldFlowSampler")(_sphere(), _endpoint()).integrate,
            {"x0": _on_sphere(), "steps": 2},
            agree={"x0": 1},
        ),
    }
)

# --- dado ----------------------------------------------------------------------------------------------------
DA = f"{G}.dado"


def _objective() -> Any:
    import networkx as nx

    rng = np.random.default_rng(0)
    return fn(f"{DA}.JunctionTreeObjective")(
        nx.path_graph(3),
        3,
        [rng.normal(size=3) for _ in range(3)],
        {(0, 1): rng.normal(size=(3, 3)), (1, 2): rng.normal(size=(3, 3))},
    )


def _tree_values() -> Example:
    obj = _objective()
    x = ids(6, 3, vocab=3)
    node, edge = obj.terms(x)
    return Example(
        fn(f"{DA}.tree_values"),
        {"structure": obj.structure, "node_vals": node, "edge_vals": edge, "states": obj.clique_states(x)},
        agree={"edge_vals": 1, "states": 1},
        vocab={"states": obj.structure.n_states**obj.structure.width},
    )


EXAMPLES.update(
    {
        f"{DA}.JunctionTreeObjective": lambda: Example(
            _objective(), {"x": ids(5, 3, vocab=3)}, vocab={"x": 3}
        ),
        f"{DA}.tree_values": _tree_values,
        f"{DA}.group_mean": lambda: call_example(
            f"{DA}.group_mean", {"keys": 0}, values=gauss(6, 2), keys=ids(6, 2, vocab=3), n_keys=3
        ),
        f"{DA}.advantage_weights": lambda: call_example(
            f"{DA}.advantage_weights", advantages=gauss(6, 2), beta=1.0
        ),
        f"{DA}.effective_sample_size": lambda: call_example(
            f"{DA}.effective_sample_size", weights=torch.rand(6, 2)
        ),
    }
)

# --- creatidesign --------------------------------------------------------------------------------------------
CD = f"{G}.creatidesign"


def _designs() -> Any:
    return fn(f"{CD}.ProceduralDesignDataset")(2, seed=0, canvas=32)


def _dit() -> torch.nn.Module:
    return built(
        lambda: fn(f"{CD}.MultiConditionDiT")(image_size=32, patch=4, dim=16, depth=1, heads=2, vocab=16)
    )


def _dit_call() -> Example:
    data = _designs()
    prompt, layout, subjects = data.conditions([0, 1])
    return Example(
        _dit(),
        {
            "noisy_latent": gauss(2, 3, 32, 32),
            "t": torch.rand(2),
            "prompt_ids": prompt,
            "layout": layout,
            "subjects": subjects,
        },
        agree={"noisy_latent": 0, "t": 0, "prompt_ids": 0},
        vocab={"prompt_ids": 16},
    )


def _rf_loss() -> Example:
    data = _designs()
    prompt, layout, subjects = data.conditions([0, 1])
    return Example(
        fn(f"{CD}.rectified_flow_loss"),
        {
            "model": _dit(),
            "x1": data.images,
            "prompt_ids": prompt,
            "layout": layout,
            "subjects": subjects,
            "generator": _gen(1),
        },
        agree={"x1": 0, "prompt_ids": 0},
        vocab={"prompt_ids": 16},
    )


def _sample_euler() -> Example:
    data = _designs()
    prompt, layout, subjects = data.conditions([0, 1])
    return Example(
        fn(f"{CD}.sample_euler"),
        {
            "model": _dit(),
            "prompt_ids": prompt,
            "layout": layout,
            "subjects": subjects,
            "steps": 2,
            "noise": gauss(2, 3, 32, 32),
        },
        agree={"prompt_ids": 0, "noise": 0},
        vocab={"prompt_ids": 16},
    )


def _crop_classifier() -> torch.nn.Module:
    return built(lambda: fn(f"{CD}.CropClassifier")())


EXAMPLES.update(
    {
        f"{CD}.MultiConditionDiT": _dit_call,
        f"{CD}.rectified_flow_loss": _rf_loss,
        f"{CD}.sample_euler": _sample_euler,
        f"{CD}.fourier_box_embedding": lambda: call_example(
            f"{CD}.fourier_box_embedding", boxes=torch.rand(3, 4)
        ),
        f"{CD}.CropClassifier": lambda: Example(_crop_classifier(), {"x": gauss(2, 3, 12, 12).tanh()}),
        f"{CD}.crop_boxes": lambda: Example(
            fn(f"{CD}.crop_boxes"),
            {
                "images": _designs().images,
                "boxes": [b for *_, b in _designs().designs[0].layout],
                "index": [0] * len(_designs().designs[0].layout),
            },
        ),
        f"{CD}.layout_scores": lambda: Example(
            fn(f"{CD}.layout_scores"),
            {"net": _crop_classifier(), "images": _designs().images, "designs": _designs().designs},
            agree={"images": 0},
        ),
        f"{CD}.subject_fidelity": lambda: Example(
            fn(f"{CD}.subject_fidelity"),
            {"images": _designs().images, "designs": _designs().designs},
            agree={"images": 0},
        ),
        f"{CD}.background_accuracy": lambda: Example(
            fn(f"{CD}.background_accuracy"),
            {"images": _designs().images, "designs": _designs().designs},
            agree={"images": 0},
        ),
        f"{CD}.frechet_distance": lambda: call_example(
            f"{CD}.frechet_distance", {"b": 1}, a=normal_array(20, 3, seed=1), b=normal_array(20, 3, seed=2)
        ),
    }
)

# --- aeseval, and_or_template, c3b ---------------------------------------------------------------------------
AE = f"{G}.aeseval"
AO = f"{G}.and_or_template"
C3 = f"{G}.c3b"
EXAMPLES.update(
    {
        f"{AE}.ElementCNN": lambda: Example(
            built(lambda: fn(f"{AE}.ElementCNN")(width=4)),
            {"crop": gauss(2, 3, 64, 64), "context": gauss(2, 4, 64, 64), "ind": ids(2, vocab=9)},
            agree={"context": 0, "ind": 0},
            vocab={"ind": 9},
        ),
        f"{AE}.ImageLevelCNN": lambda: forward_example(
            f"{AE}.ImageLevelCNN", {"width": 4}, x=gauss(1, 3, 128, 128)
        ),
        f"{AE}.equal_neighbour_share": lambda: call_example(
            f"{AE}.equal_neighbour_share", pixels=np.random.default_rng(0).integers(0, 3, (6, 6, 3))
        ),
        f"{AO}.SmallCNN": lambda: forward_example(f"{AO}.SmallCNN", {"width": 4}, x=gauss(2, 3, 16, 16)),
        f"{AO}.fit_lambdas": lambda: call_example(
            f"{AO}.fit_lambdas",
            {"target": 0},
            h_ref=np.random.default_rng(0).random((50, 3)),
            target=np.full(3, 0.4),
        ),
        f"{AO}.term_features": lambda: call_example(
            f"{AO}.term_features", geo=np.random.default_rng(0).random((3, 4, 5))
        ),
        f"{C3}.bootstrap_mean": lambda: call_example(
            f"{C3}.bootstrap_mean", scores=np.linspace(0.0, 1.0, 6), n_boot=20
        ),
    }
)

_LEADING = "documented (..., 3) / (..., 3, 3): maps over any leading axes"
ACCEPTS.update(
    {
        **{
            (f"{RNA}.{name}", arg, m): _LEADING
            for name, arg in (
                ("so3_exp", "w"),
                ("so3_log", "r"),
                ("check_rotations", "r"),
                ("frames_from_atoms", "atoms"),
            )
            for m in ("ndim-", "ndim+")
        },
        **{
            (f"{RNA}.igso3_angle_density", "omega", m): "elementwise in omega: the density keeps its shape"
            for m in ("ndim-", "ndim+")
        },
    }
)

_ANY_RANK = "documented to map over any leading axes (elementwise, or along one named axis)"
ACCEPTS.update(
    {
        (name, arg, m): _ANY_RANK
        for name, arg in (
            (f"{SMC}.ess_from_log_weights", "log_w"),
            (f"{SMC}.logmeanexp", "x"),
            (f"{ST}.EMAVectorQuantizer", "x"),
            (f"{ST}.codebook_perplexity", "indices"),
            (f"{ST}.euler_sample", "noise"),
            (f"{DA}.advantage_weights", "advantages"),
            (f"{DA}.effective_sample_size", "weights"),
            (f"{RG}.jacobi_factor", "length"),
            (f"{CD}.fourier_box_embedding", "boxes"),
        )
        for m in ("ndim-", "ndim+")
    }
)
ACCEPTS.update(
    {
        (
            f"{SMC}.base_smc",
            "lambdas",
            "None",
        ): "None is smc_sample's documented default (all ones); base_smc forwards its keywords to it",
        (
            f"{DA}.advantage_weights",
            "advantages",
            "inf",
        ): "documented: the weights are clipped at 1e30, never inf "
        "(an infinite advantage is the clip's limit); NaN is refused",
        (
            f"{AE}.equal_neighbour_share",
            "pixels",
            "float",
        ): "a float image compares neighbouring pixels by exact equality just as an integer one does",
    }
)


# --- uncovered callables of round 2: trainers with one step, exact samplers, tokenizers --------------------------
def _exact_sampler() -> Example:
    base = fn(f"{SMC}.enumerate_sampler")(_mdlm(), 2, 2)
    return Example(
        fn(f"{SMC}.ExactSampler"),
        {"states": base.states, "log_kernels": base.log_kernels, "mask_id": base.mask_id},
        vocab={"states": base.mask_id + 1},
    )


def _recognizer() -> torch.nn.Module:
    return built(lambda: fn(f"{ST}.PhoneRecognizer")(in_dim=8, n_symbols=5, hidden=8))


def _sitok() -> torch.nn.Module:
    return built(
        lambda: fn(f"{ST}.SiTokenizer")(
            n_mels=8,
            stack=2,
            d_model=8,
            enc_layers=1,
            dec_layers=1,
            n_heads=2,
            codebook_size=6,
            code_dim=4,
            n_symbols=5,
            max_tokens=16,
            data_init=False,
        )
    )


EXAMPLES.update(
    {
        f"{SMC}.ExactSampler": _exact_sampler,
        f"{RNA}.self_consistency": lambda: call_example(
            f"{RNA}.self_consistency",
            {"rots": 1, "trans": 1},
            tokens=ids(2, 8, vocab=4),
            rots=_rots(2, 8),
            trans=torch.stack([_helix(seed=1), _helix(seed=2)]),
        ),
        f"{ST}.KMeansTokenizer": lambda: Example(
            fn(f"{ST}.KMeansTokenizer")(codebook_size=4, n_mels=8, stack=2, max_iter=2).fit,
            {"mels": gauss(3, 8, 12), "mean": gauss(8, seed=1), "std": torch.rand(8) + 0.5},
            agree={"mels": 1, "mean": 0, "std": 0},
        ),
        f"{ST}.SiTokenizer": lambda: Example(
            _sitok(),
            {
                "mel": gauss(2, 8, 8),
                "text_tokens": ids(2, 3, vocab=5),
                "mel_lengths": torch.tensor([8, 6]),
                "generator": _gen(3),
            },
            agree={"mel": 1, "text_tokens": 0, "mel_lengths": 0},
            vocab={"text_tokens": 5},
        ),
        f"{ST}.recognize": lambda: call_example(f"{ST}.recognize", model=_recognizer(), feats=gauss(3, 8, 8)),
        f"{ST}.train_ctc_model": lambda: Example(
            with_grad(fn(f"{ST}.train_ctc_model")),
            {
                "model": _recognizer(),
                "feats": gauss(3, 8, 8),
                "targets": ids(3, 2, vocab=5),
                "steps": 1,
                "batch": 2,
            },
            agree={"targets": 0},
            vocab={"targets": 5},
        ),
        f"{AO}.train_cnn": lambda: Example(
            with_grad(fn(f"{AO}.train_cnn")),
            {
                "x_train": normal_array(6, 3, 16, 16).astype(np.float32),
                "y_train": normal_array(6, seed=1),
                "x_test": normal_array(2, 3, 16, 16, seed=2).astype(np.float32),
                "steps": 1,
                "batch": 4,
            },
            agree={"y_train": 0, "x_test": 1},
        ),
        f"{CD}.train_crop_classifier": lambda: Example(
            with_grad(fn(f"{CD}.train_crop_classifier")),
            {"images": _designs().images, "designs": _designs().designs, "steps": 1, "batch": 4},
            agree={"images": 0},
        ),
    }
)
