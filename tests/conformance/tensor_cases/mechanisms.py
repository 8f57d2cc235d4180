"""Tensor-battery examples for the mechanisms domain (``iclr26.mechanisms.*``)."""

from __future__ import annotations

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
    probs,
    with_grad,
)

EXAMPLES: dict[str, Callable[[], Example]] = {}

#: (callable, argument, mutation) -> why the mutated call is legitimately accepted
ACCEPTS: dict[tuple[str, str, str], str] = {}


# --- dale_signed_weights ----------------------------------------------------------------------------------------
DS = "iclr26.mechanisms.dale_signed_weights"


def _cnn() -> torch.nn.Module:
    return built(lambda: fn(f"{DS}.SmallCNN")(width=2))


def _images(n: int = 2, size: int = 16, seed: int = 0) -> torch.Tensor:
    return torch.rand(n, 1, size, size, generator=torch.Generator().manual_seed(seed))


def _mask(n: int = 2, size: int = 4) -> torch.Tensor:
    m = torch.zeros(n, size, size, dtype=torch.bool)
    m[:, 1:3, 1:3] = True
    return m


EXAMPLES.update(
    {
        f"{DS}.SmallCNN": lambda: forward_example(f"{DS}.SmallCNN", {"width": 2}, {"x": 1}, x=_images()),
        f"{DS}.accuracy": lambda: Example(
            fn(f"{DS}.accuracy"),
            {"model": _cnn(), "x": _images(), "y": torch.tensor([1, 3])},
            agree={"y": 0},
            vocab={"y": 10},
        ),
        f"{DS}.pgd_attack": lambda: Example(
            fn(f"{DS}.pgd_attack"),
            {"model": _cnn(), "x": _images(), "y": torch.tensor([1, 3]), "eps": 0.03, "steps": 1},
            agree={"y": 0},
            vocab={"y": 10},
        ),
        f"{DS}.train_cnn": lambda: Example(
            fn(f"{DS}.train_cnn"),
            {
                "cfg": fn(f"{DS}.ZooConfig")(width=2, epochs=1, batch=4),
                "x": _images(4),
                "y": torch.tensor([1, 3, 0, 2]),
            },
            agree={"y": 0},
            vocab={"y": 10},
        ),
        f"{DS}.sign_split_logits": lambda: call_example(
            f"{DS}.sign_split_logits", {"x": 1}, model=_cnn(), layer="fc", x=_images()
        ),
        f"{DS}.input_attribution": lambda: Example(
            fn(f"{DS}.input_attribution"), {"fn": lambda x: _cnn()(x)[:, 0], "x": _images()}, agree={"x": 1}
        ),
        f"{DS}.mask_fraction": lambda: call_example(
            f"{DS}.mask_fraction", {"mask": 1}, attribution=gauss(2, 4, 4), mask=_mask()
        ),
        f"{DS}.spatial_spread": lambda: call_example(f"{DS}.spatial_spread", attribution=gauss(2, 4, 4)),
        f"{DS}.spectral_centroid": lambda: call_example(f"{DS}.spectral_centroid", images=gauss(2, 8, 8)),
        f"{DS}.dale_index": lambda: call_example(f"{DS}.dale_index", weight=gauss(4, 6)),
        f"{DS}.signed_dale_index": lambda: call_example(f"{DS}.signed_dale_index", weight=gauss(4, 6)),
        f"{DS}.graded_ablation": lambda: call_example(
            f"{DS}.graded_ablation", weight=gauss(3, 6), alpha=0.5, sign="positive"
        ),
        f"{DS}.random_sign_split": lambda: call_example(
            f"{DS}.random_sign_split", weight=gauss(3, 6), generator=torch.Generator().manual_seed(0)
        ),
    }
)

# --- icl_causal_structure ---------------------------------------------------------------------------------------
CS = "iclr26.mechanisms.icl_causal_structure"
D_CS, L_CS, H_CS = 3, 2, 4


def _kernel() -> torch.Tensor:
    return fn(f"{CS}.sample_task")(D_CS, seed=0)


def _contexts(batch: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    return fn(f"{CS}.sample_contexts")(_kernel(), batch=batch, L=L_CS, H=H_CS, seed=1)


def _tokens_pi(path: str) -> Example:
    return Example(
        fn(path),
        {"tokens": _contexts()[0], "pi": _kernel()},
        agree={"pi": 0},
        vocab={"tokens": D_CS},
    )


EXAMPLES.update(
    {
        **{
            f"{CS}.{n}": (lambda n=n: _tokens_pi(f"{CS}.{n}"))
            for n in (
                "bma",
                "bma_direct",
                "bma_predict",
                "map_parent_predict",
                "previous_parent_predict",
                "uniform_parent_predict",
                "unigram_predict",
            )
        },
        f"{CS}.oracle_predict": lambda: Example(
            fn(f"{CS}.oracle_predict"),
            {"tokens": _contexts()[0], "parents": _contexts()[1], "pi": _kernel()},
            agree={"pi": 0, "parents": 1},
            vocab={"tokens": D_CS},
        ),
        f"{CS}.check_kernel": lambda: call_example(f"{CS}.check_kernel", {"pi": 0}, pi=_kernel()),
        f"{CS}.sample_contexts": lambda: call_example(
            f"{CS}.sample_contexts", {"pi": 0}, pi=_kernel(), batch=2, L=L_CS, H=H_CS
        ),
        f"{CS}.construct_bma_transformer": lambda: call_example(
            f"{CS}.construct_bma_transformer", {"pi": 0}, pi=_kernel(), L=L_CS, H=H_CS
        ),
        f"{CS}.softmax_columns": lambda: call_example(f"{CS}.softmax_columns", W=gauss(3, 3)),
        f"{CS}.column_softmax_error": lambda: call_example(
            f"{CS}.column_softmax_error", {"W": 0}, W=gauss(3, 3), pi=_kernel()
        ),
        f"{CS}.row_softmax_error": lambda: call_example(
            f"{CS}.row_softmax_error", {"W": 0}, W=gauss(3, 3), pi=_kernel()
        ),
        f"{CS}.kl_divergence": lambda: call_example(
            f"{CS}.kl_divergence", {"q": -1}, p=probs(2, 4, 3, seed=1), q=probs(2, 4, 3, seed=2)
        ),
        f"{CS}.log_loss": lambda: Example(
            fn(f"{CS}.log_loss"),
            {"pred": probs(2, 4, 3), "targets": ids(2, 4, vocab=3)},
            agree={"targets": 1},
            vocab={"targets": 3},
        ),
        f"{CS}.parent_selection_loss": lambda: Example(
            fn(f"{CS}.parent_selection_loss"),
            {"attn": probs(2, H_CS, H_CS), "parents": _contexts()[1]},
            agree={"parents": 1},
            vocab={"parents": H_CS},
        ),
        f"{CS}.DisentangledRPETransformer": lambda: Example(
            built(lambda: fn(f"{CS}.DisentangledRPETransformer")(D_CS, L_CS, H_CS)),
            {"tokens": _contexts()[0]},
            agree={"tokens": 2},
            vocab={"tokens": D_CS},
        ),
        f"{CS}.StandardRPETransformer": lambda: Example(
            built(lambda: fn(f"{CS}.StandardRPETransformer")(D_CS, L_CS, H_CS, d_model=8, n_heads=2)),
            {"tokens": _contexts()[0]},
            agree={"tokens": 2},
            vocab={"tokens": D_CS},
        ),
        f"{CS}.evaluate": lambda: call_example(
            f"{CS}.evaluate",
            {"pi": 0},
            model=built(lambda: fn(f"{CS}.DisentangledRPETransformer")(D_CS, L_CS, H_CS)),
            pi=_kernel(),
            n=2,
            seed=0,
            L=L_CS,
            H=H_CS,
        ),
    }
)

# --- ic_ssl -----------------------------------------------------------------------------------------------------
SS = "iclr26.mechanisms.ic_ssl"


def _ssl_tokens(b: int = 2, n: int = 8, d: int = 2, c: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    tokens = gauss(b, n, d + c)
    tokens[..., d:] = 0
    tokens[:, 0, d] = tokens[:, 1, d + 1] = 1
    is_query = torch.zeros(b, n, dtype=torch.bool)
    is_query[:, -2:] = True
    return tokens, is_query


def _ctx(b: int = 2, n: int = 8) -> torch.Tensor:
    return ~_ssl_tokens(b, n)[1]


EXAMPLES.update(
    {
        f"{SS}.ICSSLTransformer": lambda: Example(
            built(lambda: fn(f"{SS}.ICSSLTransformer")(d=2, n_classes=2, k=3, n_power=1, n_gd=1)),
            dict(zip(("tokens", "is_query"), _ssl_tokens())),
            agree={"tokens": 2, "is_query": 1},
        ),
        f"{SS}.PlainICLTransformer": lambda: Example(
            built(lambda: fn(f"{SS}.PlainICLTransformer")(d=2, n_classes=2, width=8, depth=1, heads=2)),
            dict(zip(("tokens", "is_query"), _ssl_tokens())),
            agree={"tokens": 2, "is_query": 1},
        ),
        f"{SS}.RBFAttention": lambda: forward_example(
            f"{SS}.RBFAttention",
            {"h": 0.5},
            {"keys": 2, "values": 1},
            queries=gauss(2, 5, 3, seed=1),
            keys=gauss(2, 4, 3, seed=2),
            values=gauss(2, 4, 2, seed=3),
        ),
        f"{SS}.PowerIterLayer": lambda: forward_example(
            f"{SS}.PowerIterLayer",
            {"k": 3},
            {"phi": 2, "p": 2, "ctx": 1},
            phi=gauss(2, 8, 3),
            p=probs(2, 8, 8),
            ctx=_ctx(),
        ),
        f"{SS}.GDSoftmaxLayer": lambda: forward_example(
            f"{SS}.GDSoftmaxLayer",
            {"k": 3},
            {"phi": 2, "y": 1, "labelled": 1},
            f=torch.zeros(2, 8, 2),
            phi=gauss(2, 8, 3),
            y=torch.nn.functional.one_hot(ids(2, 8, vocab=2), 2).float(),
            labelled=_ctx(),
        ),
        f"{SS}.orthonormalize": lambda: call_example(
            f"{SS}.orthonormalize", {"ctx": 1}, phi=gauss(2, 8, 3), ctx=_ctx()
        ),
        f"{SS}.softmax_regression_gd": lambda: call_example(
            f"{SS}.softmax_regression_gd",
            {"y_lab": 0, "phi_eval": 1},
            phi_lab=gauss(6, 3, seed=1),
            y_lab=torch.nn.functional.one_hot(ids(6, vocab=2), 2).float(),
            phi_eval=gauss(4, 3, seed=2),
            lr=0.5,
            steps=2,
        ),
        f"{SS}.laplacian_eigenmap": lambda: call_example(
            f"{SS}.laplacian_eigenmap", x=np.random.default_rng(0).normal(size=(12, 2)), n_components=2
        ),
        f"{SS}.tokens_from_task": lambda: Example(
            fn(f"{SS}.tokens_from_task"),
            {
                "x_ctx": gauss(6, 2, seed=1),
                "y_ctx": torch.tensor([0, 1, -1, -1, 0, 1]),
                "x_qry": gauss(3, 2, seed=2),
                "n_classes": 2,
            },
            agree={"y_ctx": 0, "x_qry": 1},
            vocab={"y_ctx": 2},
        ),
    }
)

# --- task_vectors -----------------------------------------------------------------------------------------------
TV = "iclr26.mechanisms.task_vectors"


def _tv_model() -> torch.nn.Module:
    return built(lambda: fn(f"{TV}.LinearAttentionTransformer")(2, 4, n_demos=2)).double()


def _tv_batch(batch: int = 2) -> Any:
    return fn(f"{TV}.linear_icl_data")("triplet", d=2, n=2, batch=batch, seed=0, dtype=torch.float64)


EXAMPLES.update(
    {
        f"{TV}.LinearAttentionTransformer": lambda: Example(
            _tv_model(), {"prompts": _tv_batch().prompts}, agree={"prompts": 2}
        ),
        f"{TV}.extract": lambda: call_example(
            f"{TV}.extract", {"prompts": 2}, model=_tv_model(), prompts=_tv_batch().prompts, layer=0
        ),
        f"{TV}.inject": lambda: call_example(
            f"{TV}.inject",
            {"zero_shot": 2, "tau": -1},
            model=_tv_model(),
            zero_shot=fn(f"{TV}.zero_shot_prompt")(_tv_batch().xq),
            tau=gauss(2, 4).double(),
            layer=0,
        ),
        f"{TV}.multi_inject": lambda: call_example(
            f"{TV}.multi_inject",
            {"prompts": 2},
            model=_tv_model(),
            prompts=_tv_batch().prompts,
            taus=gauss(2, 4).double(),
            layer=0,
            positions=[1, 4],
        ),
        f"{TV}.zero_shot_prompt": lambda: call_example(f"{TV}.zero_shot_prompt", xq=gauss(2, 2)),
        f"{TV}.normalized_risk": lambda: call_example(
            f"{TV}.normalized_risk", {"yq": -1}, out=gauss(3, 2, seed=1), yq=gauss(3, 2, seed=2)
        ),
        f"{TV}.rank_share": lambda: call_example(f"{TV}.rank_share", outputs=gauss(4, 3)),
    }
)

# --- function_induction -----------------------------------------------------------------------------------------
FI = "iclr26.mechanisms.function_induction"


def _fi_model() -> torch.nn.Module:
    vocab = fn(f"{FI}.Vocab")()
    return built(
        lambda: fn("iclr26.lab.transformer.Transformer")(
            vocab_size=vocab.size, seq_len=30, d_model=8, n_layers=2, n_heads=2, init_seed=0
        )
    )


def _fi_vocab() -> int:
    return fn(f"{FI}.Vocab")().size


def _pairs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return fn(f"{FI}.contrast_pairs")(3, 1, seed=3)


def _fi_tokens(path: str, **kw: Any) -> Example:
    return Example(
        fn(path), {"model": _fi_model(), "tokens": _pairs()[0], **kw}, vocab={"tokens": _fi_vocab()}
    )


EXAMPLES.update(
    {
        f"{FI}.accuracy": lambda: Example(
            fn(f"{FI}.accuracy"),
            {"model": _fi_model(), "tokens": _pairs()[0], "answers": _pairs()[2]},
            agree={"answers": 0},
            vocab={"tokens": _fi_vocab(), "answers": _fi_vocab()},
        ),
        f"{FI}.ablate_heads": lambda: _fi_tokens(f"{FI}.ablate_heads", heads=[(0, 1)]),
        f"{FI}.induction_scores": lambda: Example(
            fn(f"{FI}.induction_scores"),
            {"model": _fi_model(), "tokens": fn(f"{FI}.induction_prompts")(3, 4)},
            vocab={"tokens": _fi_vocab()},
        ),
        f"{FI}.path_patch_scan": lambda: Example(
            fn(f"{FI}.path_patch_scan"),
            {
                "model": _fi_model(),
                "clean": _pairs()[0],
                "corrupt": _pairs()[1],
                "receivers": [fn("iclr26.lab.transformer.Site")("resid_final", pos=-1)],
                "metric": fn(f"{FI}.logit_diff")(_pairs()[2], _pairs()[3]),
                "senders": [(0, 1)],
            },
            agree={"corrupt": 1},
            vocab={"clean": _fi_vocab(), "corrupt": _fi_vocab()},
        ),
        f"{FI}.naive_logit_effect": lambda: Example(
            fn(f"{FI}.naive_logit_effect"),
            {
                "model": _fi_model(),
                "head": (1, 0),
                "source": _pairs()[1],
                "naive": [fn(f"{FI}.naive_prompts")(3, 2, 1)],
            },
            vocab={"source": _fi_vocab()},
        ),
        f"{FI}.logit_diff": lambda: Example(
            lambda y_base, y_cont: fn(f"{FI}.logit_diff")(y_base, y_cont)(gauss(3, 5, _fi_vocab())),
            {"y_base": _pairs()[2], "y_cont": _pairs()[3]},
            agree={"y_cont": 0},
            vocab={"y_base": _fi_vocab(), "y_cont": _fi_vocab()},
        ),
        f"{FI}.bootstrap_relative_effect": lambda: call_example(
            f"{FI}.bootstrap_relative_effect",
            {"f_cont": -1, "f_base": -1},
            f_patched=gauss(6, seed=1),
            f_cont=gauss(6, seed=2) + 2,
            f_base=gauss(6, seed=3) - 2,
            n_boot=20,
        ),
        f"{FI}.offset_profile": lambda: call_example(f"{FI}.offset_profile", heat=gauss(6, 6)),
        f"{FI}.addition_prompts": lambda: call_example(
            f"{FI}.addition_prompts", operands=np.random.default_rng(0).integers(0, 9, (3, 2, 2))
        ),
        f"{FI}.shift_prompts": lambda: call_example(
            f"{FI}.shift_prompts", xs=np.random.default_rng(0).integers(0, 9, (3, 2)), delta=1
        ),
    }
)

# --- moe_routing_attribution ------------------------------------------------------------------------------------
MR = "iclr26.mechanisms.moe_routing_attribution"

EXAMPLES.update(
    {
        f"{MR}.influence": lambda: call_example(f"{MR}.influence", sub=gauss(5, 4)),
        f"{MR}.rank_change": lambda: call_example(
            f"{MR}.rank_change", {"sub": 1}, scores=gauss(5, 4, seed=1), sub=gauss(5, 4, seed=2), k=2
        ),
        f"{MR}.cofiring": lambda: call_example(
            f"{MR}.cofiring",
            {"firing_b": 0},
            firing_a=torch.rand(6, 3, generator=torch.Generator().manual_seed(1)) > 0.5,
            firing_b=torch.rand(6, 4, generator=torch.Generator().manual_seed(2)) > 0.5,
            n_shuffles=2,
        ),
    }
)

ACCEPTS.update(
    {
        **{
            (
                f"{DS}.{n}",
                "weight",
                "ndim+",
            ): "documented: a Linear (out, in) or a Conv (out, in, *kernel) weight, "
            "so a 3-D weight is a Conv1d's"
            for n in ("dale_index", "signed_dale_index")
        },
        **{
            (f"{DS}.spectral_centroid", "images", m): "documented (..., H, W): one centroid per leading index"
            for m in ("ndim-", "ndim+")
        },
    }
)

ACCEPTS.update(
    {
        **{
            (f"{CS}.{n}", "tokens", "ndim-"): "documented (module docstring): a single context (L + 1, H) is "
            "accepted (bma_predict returns unbatched outputs, the baselines a batch of one)"
            for n in (
                "bma",
                "bma_direct",
                "bma_predict",
                "map_parent_predict",
                "previous_parent_predict",
                "uniform_parent_predict",
                "unigram_predict",
            )
        },
        **{
            (f"{CS}.parent_selection_loss", "attn", m): "row h = 0 (no parent) is documented undefined and "
            "never read: the changed entry attn[0, 0, 0] does not enter the loss"
            for m in ("nan", "inf")
        },
    }
)

ACCEPTS.update(
    {
        (f"{SS}.RBFAttention", "keys", "inf"): "an infinitely distant key has kernel weight exp(-inf) = 0 "
        "exactly, as a masked key (key_mask) has; a NaN key propagates",
    }
)

ACCEPTS.update(
    {
        (
            f"{TV}.inject",
            "tau",
            "ndim-",
        ): "documented: tau (B, width) or one (width,) vector for every prompt",
    }
)

ACCEPTS.update(
    {
        (
            f"{FI}.bootstrap_relative_effect",
            "f_patched",
            "ndim+",
        ): "documented (..., n_prompts): leading axes (e.g. heads) get one effect each",
    }
)

# --- esp --------------------------------------------------------------------------------------------------------
ES = "iclr26.mechanisms.esp"


def _esp_models(n: int = 2) -> list[torch.nn.Module]:
    return [fn("iclr26.lab.transformer.AttnOnlyTransformer")(1, 1, 8, 7, 4, init_seed=s) for s in range(n)]


def _esp_tokens() -> torch.Tensor:
    return fn(f"{ES}.make_dataset")(fn("iclr26.lab.tasks.transitive_tournament")(4))[0]


EXAMPLES.update(
    {
        f"{ES}.predict": lambda: Example(
            fn(f"{ES}.predict"),
            {"model": _esp_models(1)[0].eval(), "tokens": _esp_tokens()},
            vocab={"tokens": 7},
        ),
        f"{ES}.batched_esp_logits": lambda: Example(
            fn(f"{ES}.batched_esp_logits"),
            {
                "params": fn(f"{ES}.batched.stack_models")(_esp_models()),
                "tokens": _esp_tokens().expand(2, -1, -1).clone(),
            },
            vocab={"tokens": 7},
        ),
    }
)

# --- icl_info_removal -------------------------------------------------------------------------------------------
IR = "iclr26.mechanisms.icl_info_removal"


def _ir_family() -> Any:
    return fn(f"{IR}.make_task_family")(n_inputs=16, n_tasks=2, n_labels=4, seed=3)


def _ir_model() -> torch.nn.Module:
    return built(
        lambda: fn("iclr26.lab.transformer.Transformer")(
            vocab_size=_ir_family().vocab_size, seq_len=9, d_model=8, n_layers=2, n_heads=2, init_seed=1
        )
    )


def _ir_batch() -> Any:
    return fn(f"{IR}.icl_prompts")(_ir_family(), 3, 2, torch.Generator().manual_seed(0))


def _ir_tokens(path: str, **kw: Any) -> Example:
    return Example(
        fn(path),
        {"model": _ir_model(), "tokens": _ir_batch().tokens, **kw},
        vocab={"tokens": _ir_family().vocab_size},
    )


EXAMPLES.update(
    {
        f"{IR}.LowRankFilter": lambda: forward_example(
            f"{IR}.LowRankFilter", {"d": 8, "r": 2, "init_seed": 0}, {"h": -1}, h=gauss(3, 8)
        ),
        f"{IR}.head_means": lambda: _ir_tokens(f"{IR}.head_means"),
        f"{IR}.hidden_states": lambda: _ir_tokens(f"{IR}.hidden_states", layer=1),
        f"{IR}.run_filtered": lambda: _ir_tokens(
            f"{IR}.run_filtered", layer=1, filt=fn(f"{IR}.LowRankFilter")(8, 2, init_seed=0)
        ),
        f"{IR}.run_ablated": lambda: _ir_tokens(
            f"{IR}.run_ablated", heads=[(0, 1)], ablation="mean", means=gauss(2, 2, 8)
        ),
        f"{IR}.learn_filter": lambda: Example(
            fn(f"{IR}.learn_filter"),
            {
                "model": _ir_model(),
                "tokens": _ir_batch().tokens,
                "targets": _ir_batch().targets,
                "layer": 1,
                "r": 2,
                "h_mean": torch.zeros(8),
                "steps": 2,
            },
            agree={"targets": 0, "h_mean": 0},
            vocab={"tokens": _ir_family().vocab_size, "targets": _ir_family().vocab_size},
        ),
        f"{IR}.random_filter": lambda: call_example(
            f"{IR}.random_filter",
            {"h_mean": 0},
            d=8,
            r=2,
            h_mean=torch.zeros(8),
            generator=torch.Generator().manual_seed(0),
        ),
        f"{IR}.metrics": lambda: Example(
            fn(f"{IR}.metrics"),
            {
                "hidden": gauss(4, 8),
                "U": torch.linalg.qr(gauss(8, 2))[0],
                "label_sets": torch.tensor([[0, 1], [2, 3]]),
                "probs": probs(4, 6),
                "tasks": torch.tensor([0, 1, 0, 1]),
            },
            agree={"U": 0, "probs": 0, "tasks": 0},
            vocab={"tasks": 2, "label_sets": 6},
        ),
    }
)

ACCEPTS.update(
    {
        **{
            (f"{IR}.LowRankFilter", "h", m): "documented (..., d): the filter maps over any leading axes"
            for m in ("ndim-", "ndim+")
        },
        (f"{IR}.metrics", "tasks", "ndim-"): "a 0-d tasks is one task for every row, like the documented int",
        **{
            (f"{IR}.{n}", "h_mean", "None"): "None is LowRankFilter's documented zero centre"
            for n in ("random_filter", "learn_filter")
        },
    }
)

# --- soft_thinking ----------------------------------------------------------------------------------------------
ST = "iclr26.mechanisms.soft_thinking"
V_ST = 12


def _st_model() -> torch.nn.Module:
    return built(lambda: fn("iclr26.lab.transformer.Transformer")(V_ST, 16, 8, 1, 2, init_seed=0))


def _st_probe(path: str) -> Example:
    model = _st_model()
    return Example(
        fn(path),
        {
            "model": model,
            "prefix": model.W_E.detach()[ids(2, 3, vocab=V_ST)],
            "ids": torch.tensor([[3, 5, 1], [2, 4, 6]]),
            "weights": torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]]),
        },
        agree={"prefix": 2, "weights": 1},
        vocab={"ids": V_ST},
    )


EXAMPLES.update(
    {
        f"{ST}.top1_dominance": lambda: _st_probe(f"{ST}.top1_dominance"),
        f"{ST}.swap_test": lambda: _st_probe(f"{ST}.swap_test"),
        f"{ST}.layer_overlap": lambda: Example(
            fn(f"{ST}.layer_overlap"),
            {
                "model": _st_model(),
                "prefix": _st_model().W_E.detach()[ids(2, 3, vocab=V_ST)],
                "a": torch.tensor([3, 4]),
                "b": torch.tensor([5, 1]),
                "top_single": 2,
                "top_soft": 3,
            },
            agree={"prefix": 2, "b": 0},
            vocab={"a": V_ST, "b": V_ST},
        ),
    }
)


# --- continuous_cot ---------------------------------------------------------------------------------------------
CC = "iclr26.mechanisms.continuous_cot"


def _cc_data() -> Any:
    return fn(f"{CC}.make_prosqa_like")(2, 8, 2, seed=0)


def _cc_wrapper() -> torch.nn.Module:
    data = _cc_data()
    return built(lambda: fn(f"{CC}.CoconutWrapper")(fn(f"{CC}.make_model")(data, d_model=8, n_heads=2)))


EXAMPLES.update(
    {
        f"{CC}.CoconutWrapper": lambda: Example(
            _cc_wrapper(),
            {
                "prefix": _cc_data().prompt,
                "n_thoughts": 2,
                "suffix": torch.full((2, 1), _cc_data().token("[A]")),
            },
            agree={"suffix": 0},
            vocab={"prefix": _cc_data().vocab_size, "suffix": _cc_data().vocab_size},
        ),
        f"{CC}.capture_attention": lambda: call_example(
            f"{CC}.capture_attention",
            {"embeds": -1},
            wrapper=_cc_wrapper(),
            embeds=_cc_wrapper().model.embed(_cc_data().prompt).detach(),
        ),
        f"{CC}.ReachabilityData": lambda: Example(
            fn(f"{CC}.ReachabilityData"),
            fields(_cc_data()),
            agree={
                **{n: 0 for n in ("root", "pos", "neg", "edges", "src_pos", "tgt_pos", "cand_pos")},
                **{n: 0 for n in ("dist", "reach", "path")},
            },
            vocab={n: _cc_data().vocab_size for n in ("prompt",)},
        ),
        f"{CC}.IndexMatching": lambda: call_example(
            f"{CC}.IndexMatching",
            {"gap_src": 1, "gap_tgt": 1, "edge_scores": 2, "frontier": 1},
            mu=0.5,
            gap_sep=gauss(2, 2, seed=1),
            gap_src=gauss(2, 2, seed=2),
            gap_tgt=gauss(2, 2, seed=3),
            edge_scores=gauss(3, 2, 2, 5, seed=4),
            frontier=torch.rand(3, 5, generator=torch.Generator().manual_seed(5)) > 0.5,
        ),
    }
)

# --- dale_signed_weights: the data record -----------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{DS}.TextureDigits": lambda: call_example(
            f"{DS}.TextureDigits",
            {"y": 0, "mask": 1, "alpha": 2},
            x=_images(2, 4),
            y=torch.tensor([1, 3]),
            mask=_mask(2, 4),
            alpha=torch.rand(2, 4, 4, generator=torch.Generator().manual_seed(1)),
        ),
    }
)

# --- esp: the batched-runs record -------------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{ES}.BatchedRuns": lambda: call_example(
            f"{ES}.BatchedRuns",
            {"accuracy": 1},
            steps=[0, 10, 20],
            accuracy=torch.rand(2, 3, generator=torch.Generator().manual_seed(0)),
            params=fn(f"{ES}.batched.stack_models")(_esp_models()),
            n_vertices=4,
            heads=1,
            d=8,
        ),
    }
)

# --- function_induction: patching and the relative effect -------------------------------------------------------
EXAMPLES.update(
    {
        f"{FI}.activation_patch": lambda: Example(
            fn(f"{FI}.activation_patch"),
            {
                "model": _fi_model(),
                "clean": _pairs()[0],
                "corrupt": _pairs()[1],
                "sites": [fn("iclr26.lab.transformer.Site")("resid_final", pos=-1)],
                "metric": fn(f"{FI}.logit_diff")(_pairs()[2], _pairs()[3]),
            },
            agree={"corrupt": 1},
            vocab={"clean": _fi_vocab(), "corrupt": _fi_vocab()},
        ),
        f"{FI}.path_patch": lambda: Example(
            fn(f"{FI}.path_patch"),
            {
                "model": _fi_model(),
                "clean": _pairs()[0],
                "corrupt": _pairs()[1],
                "sender": (0, 1),
                "receivers": [fn("iclr26.lab.transformer.Site")("resid_final", pos=-1)],
                "metric": fn(f"{FI}.logit_diff")(_pairs()[2], _pairs()[3]),
            },
            agree={"corrupt": 1},
            vocab={"clean": _fi_vocab(), "corrupt": _fi_vocab()},
        ),
        f"{FI}.relative_effect": lambda: call_example(
            f"{FI}.relative_effect",
            patched=gauss(4, seed=1),
            corrupt_value=gauss(4, seed=2) + 3,
            clean_value=gauss(4, seed=3) - 3,
        ),
    }
)

# --- ic_ssl: the task record ------------------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{SS}.ManifoldTask": lambda: Example(
            fn(f"{SS}.ManifoldTask"),
            fields(fn(f"{SS}.make_task")("moons", 6, 3, 2, 1, np.random.default_rng(0))),
            agree={"y_ctx": 0, "x_qry": 1, "y_qry": 0, "y_ctx_true": 0},
            vocab={"y_ctx": 2, "y_qry": 2, "y_ctx_true": 2},
        ),
    }
)

# --- icl_causal_structure: training -----------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{CS}.train": lambda: Example(
            with_grad(fn(f"{CS}.train")),
            {
                "model": built(lambda: fn(f"{CS}.DisentangledRPETransformer")(D_CS, L_CS, H_CS)),
                "pi": _kernel(),
                "cfg": fn(f"{CS}.TrainConfig")(steps=1, batch=2, log_every=1),
                "seed": 0,
                "L": L_CS,
                "H": H_CS,
            },
            agree={"pi": 0},
        ),
    }
)

# --- icl_info_removal: the records ------------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{IR}.HeadScan": lambda: call_example(
            f"{IR}.HeadScan",
            {"accuracy_drop": 1, "off_subspace_increase": 1},
            selectivity_drop=gauss(2, 2, seed=1),
            accuracy_drop=gauss(2, 2, seed=2),
            off_subspace_increase=gauss(2, 2, seed=3),
        ),
        f"{IR}.ICLBatch": lambda: Example(
            fn(f"{IR}.ICLBatch"),
            fields(_ir_batch()),
            agree={"targets": 0, "tasks": 0, "queries": 0},
            vocab={"tasks": 2},
        ),
        f"{IR}.TaskFamily": lambda: Example(
            fn(f"{IR}.TaskFamily"), fields(_ir_family()), vocab={"label_table": _ir_family().vocab_size}
        ),
    }
)

# --- moe_routing_attribution: the tiny MoE LM -------------------------------------------------------------------
_MR_CFG = {"n_layers": 2, "d_model": 8, "n_heads": 2, "n_experts": 4, "k": 2, "d_hidden": 8, "seq_len": 8}


def _moe() -> torch.nn.Module:
    cfg = fn(f"{MR}.TinyMoEConfig")(**_MR_CFG, vocab_size=16)
    return built(lambda: fn(f"{MR}.tiny_moe_lm")(cfg))


def _moe_call(path: str, **kw: Any) -> Example:
    return Example(fn(path), {"model": _moe(), "tokens": ids(2, 4, vocab=16), **kw}, vocab={"tokens": 16})


def _trace() -> Any:
    return fn(f"{MR}.trace_routing")(_moe(), ids(2, 4, vocab=16))


EXAMPLES.update(
    {
        f"{MR}.trace_routing": lambda: _moe_call(f"{MR}.trace_routing"),
        f"{MR}.router_scores": lambda: _moe_call(f"{MR}.router_scores", layer=1),
        f"{MR}.decompose": lambda: _moe_call(f"{MR}.decompose", layer=1),
        f"{MR}.aarv": lambda: _moe_call(f"{MR}.aarv", component="attn0", layer=1),
        f"{MR}.influence_matrix": lambda: _moe_call(f"{MR}.influence_matrix"),
        f"{MR}.linear_subscores": lambda: Example(
            fn(f"{MR}.linear_subscores"),
            {
                "components": {"a": gauss(5, 8, seed=1), "b": gauss(5, 8, seed=2)},
                "norm": torch.nn.LayerNorm(8),
                "weight": gauss(4, 8, seed=3),
                "bias": gauss(4, seed=4),
            },
            agree={"weight": 1, "bias": 0},
        ),
        f"{MR}.RoutingTrace": lambda: Example(fn(f"{MR}.RoutingTrace"), fields(_trace()), agree={"pos": 1}),
        f"{MR}.InfluenceMatrix": lambda: call_example(
            f"{MR}.InfluenceMatrix",
            {"aps": 1, "ans": 1},
            senders=["embed", "attn0", "moe0"],
            receivers=[0, 1],
            var=np.random.default_rng(0).random((3, 2)),
            aps=np.random.default_rng(1).random((3, 2)),
            ans=-np.random.default_rng(2).random((3, 2)),
        ),
    }
)

# --- soft_thinking: decoding and its records --------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{ST}.soft_decode": lambda: Example(
            fn(f"{ST}.soft_decode"),
            {
                "model": _st_model(),
                "prompt": ids(2, 3, vocab=V_ST),
                "k": 3,
                "max_think": 2,
                "end_think_id": 0,
                "eos_id": 1,
                "max_answer": 2,
                "record": True,
            },
            vocab={"prompt": V_ST},
        ),
        f"{ST}.DominanceProbe": lambda: call_example(
            f"{ST}.DominanceProbe",
            {n: 0 for n in ("js_top2", "agree_top1", "agree_top2", "p_top1")},
            js_top1=torch.rand(3, dtype=torch.float64),
            js_top2=torch.rand(3, dtype=torch.float64),
            agree_top1=torch.tensor([True, False, True]),
            agree_top2=torch.tensor([False, False, True]),
            p_top1=torch.rand(3, dtype=torch.float64),
        ),
        f"{ST}.SoftStep": lambda: Example(
            fn(f"{ST}.SoftStep"),
            {
                "rows": torch.tensor([0, 2]),
                "prefix": gauss(2, 3, 8),
                "ids": ids(2, 3, vocab=V_ST),
                "p": probs(2, 3, seed=1),
                "q": probs(2, 3, seed=2),
            },
            agree={"prefix": 0, "ids": 0, "p": 1, "q": 1},
        ),
        f"{ST}.SoftDecodeResult": lambda: call_example(
            f"{ST}.SoftDecodeResult",
            {"think_len": 0},
            tokens=torch.tensor([[3, 0, 5, 1], [0, 4, 1, -1]]),
            think_len=torch.tensor([1, 0]),
            answers=[[5], [4]],
        ),
    }
)

# --- task_vectors: the records ----------------------------------------------------------------------------------
EXAMPLES.update(
    {
        f"{TV}.ICLBatch": lambda: Example(
            fn(f"{TV}.ICLBatch"),
            fields(_tv_batch()),
            agree={"W": 0, "Y": 0, "xq": 0, "yq": 0},
        ),
        f"{TV}.MapPool": lambda: Example(
            fn(f"{TV}.MapPool"),
            fields(fn(f"{TV}.map_pool")(0, n_maps=2, size=4)),
            agree={"dst": 1},
            vocab={"src": 64, "dst": 64},
        ),
    }
)

ACCEPTS.update(
    {
        (
            f"{FI}.relative_effect",
            arg,
            m,
        ): "documented: the three values (floats or tensors) broadcast together"
        for arg in ("patched", "corrupt_value", "clean_value")
        for m in ("ndim-", "ndim+")
    }
)

ACCEPTS.update(
    {
        (f"{MR}.RoutingTrace", "pos", "None"): "documented Tensor | None: a model without learned positions "
        "(trace_routing records None then)",
    }
)
