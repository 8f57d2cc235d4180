"""Bad input to the ASIDE rotation, role embeddings, HF wrapper, language, SEP score and config."""

import torch
from torch import nn

from iclr26.architectures.aside import (
    ASIDEEmbedding,
    IsoclinicRotation,
    Language,
    SepItem,
    TinyGPTSpec,
    isoclinic_rotation_matrix,
    make_role_embedding,
    sep_score,
    wrap_hf_causal_lm,
)
from iclr26.architectures.aside.experiment import AsideConfig
from iclr26.lab.tinylm import TinyLMConfig, build_model

_E = nn.Embedding(10, 4)
_IDS = torch.tensor([[1, 2, 3]])


def _lm(strict: bool = True):
    model = build_model(TinyLMConfig(d_model=16, n_layers=1, n_heads=2), vocab_size=12)
    return wrap_hf_causal_lm(model, "aside", strict=strict)


_WRAPPED = _lm()


def _twice():
    wrap_hf_causal_lm(_WRAPPED)


CASES = [
    # the brief's four: shape mismatch, roles outside {0, 1}, odd d with strict, missing segment_ids
    (
        lambda: ASIDEEmbedding(_E)(_IDS, torch.tensor([[0, 1]])),
        ValueError,
        ["segment_ids", "shape", "(1, 3)"],
    ),
    (
        lambda: ASIDEEmbedding(_E)(_IDS, torch.tensor([[0, 1, 2]])),
        ValueError,
        ["segment_ids", "roles", "[2]"],
    ),
    (lambda: ASIDEEmbedding(nn.Embedding(10, 5)), ValueError, ["d must be even", "d=5"]),
    (lambda: isoclinic_rotation_matrix(7), ValueError, ["even", "d=7"]),
    (lambda: _WRAPPED(input_ids=_IDS), ValueError, ["segment_ids is required"]),
    (lambda: _WRAPPED.generate(_IDS, max_new_tokens=2), ValueError, ["segment_ids is required"]),
    (
        lambda: _WRAPPED(input_ids=_IDS, segment_ids=torch.tensor([[0, 1]])),
        ValueError,
        ["shape of input_ids"],
    ),
    (lambda: _WRAPPED(input_ids=_IDS, segment_ids=torch.tensor([[0.0, 1.0, 1.0]])), ValueError, ["dtype"]),
    (lambda: _WRAPPED(input_ids=_IDS, segment_ids=torch.tensor([[0, -1, 1]])), ValueError, ["roles", "[-1]"]),
    (
        lambda: _WRAPPED(inputs_embeds=torch.zeros(1, 3, 16), segment_ids=_IDS * 0),
        ValueError,
        ["inputs_embeds"],
    ),
    (lambda: _WRAPPED.generate(_IDS, _IDS * 0, max_new_tokens=0), ValueError, ["max_new_tokens", ">= 1"]),
    (_twice, ValueError, ["already wrapped"]),
    (lambda: wrap_hf_causal_lm(nn.Linear(2, 2)), TypeError, ["model", "Hugging Face"]),
    (
        lambda: wrap_hf_causal_lm(build_model(TinyLMConfig(d_model=16, n_layers=1, n_heads=2), 12), "rot"),
        ValueError,
        ["method", "'aside'", "'rot'"],
    ),
    (lambda: IsoclinicRotation(4, direction="up"), ValueError, ["direction", "'right'", "'up'"]),
    (lambda: IsoclinicRotation(4, alpha=float("nan")), ValueError, ["alpha"]),
    (lambda: IsoclinicRotation(4).rotate(torch.zeros(2, 3)), ValueError, ["last dimension", "d=4"]),
    (
        lambda: IsoclinicRotation(4).apply(torch.zeros(1, 2, 4), torch.zeros(1, 3, dtype=torch.long)),
        ValueError,
        ["segment_ids", "shape"],
    ),
    (lambda: ASIDEEmbedding(nn.Linear(2, 2)), TypeError, ["embedding", "nn.Embedding"]),
    (lambda: ASIDEEmbedding(_E)(_IDS, None), ValueError, ["segment_ids is required"]),
    (lambda: ASIDEEmbedding(_E)(_IDS.float(), _IDS * 0), TypeError, ["input_ids", "integer"]),
    (lambda: make_role_embedding("both", _E), ValueError, ["method", "'both'"]),
    (lambda: Language(n_words=3), ValueError, ["n_words", ">= 16"]),
    (
        lambda: Language().with_probe(
            Language().sample_item(__import__("numpy").random.default_rng(0)), "middle"
        ),
        ValueError,
        ["place", "'middle'"],
    ),
    (lambda: sep_score("model", [SepItem("a", "b", "c", "c")]), TypeError, ["model_fn", "callable"]),
    (lambda: sep_score(lambda p: ["x"] * len(p), []), ValueError, ["items", "non-empty"]),
    (
        lambda: sep_score(lambda p: ["x"], [SepItem("a", "b", "c", "c")] * 2),
        ValueError,
        ["returned 1 outputs"],
    ),
    (
        lambda: sep_score(lambda p: ["x"] * len(p), [SepItem("a", "b", "c", "c")], places=("instruction",)),
        ValueError,
        ["places"],
    ),
    (lambda: TinyGPTSpec(d_model=33, n_heads=3), ValueError, ["d_model must be even", "33"]),
    (lambda: TinyGPTSpec(arch="mamba"), ValueError, ["arch", "'mamba'"]),
    (lambda: AsideConfig(n_probe_items=2), ValueError, ["n_probe_items", ">= 4"]),
    (lambda: AsideConfig(sft_steps=0), ValueError, ["sft_steps", ">= 1"]),
]
