"""ASIDE: "Architectural Separation of Instructions and Data in Language Models" (ICLR 2026, arXiv 2503.10566).

Data-role token embeddings are rotated by a fixed isoclinic rotation (pi/2 on every dimension pair), no new
parameters; everything after the embedding layer is unchanged. Here: the rotation, role-aware embeddings
(ASIDE, the ISE baseline, Vanilla), a wrapper for any Hugging Face causal LM, the SEP separation score, a
synthetic instruction/data language, and the two-stage tiny-model reproduction.

Example
-------
>>> import torch
>>> from iclr26.architectures.aside import IsoclinicRotation, wrap_hf_causal_lm
>>> from iclr26.lab.tinylm import TinyLMConfig, build_model
>>> R = IsoclinicRotation(8).matrix
>>> torch.allclose(R @ R.T, torch.eye(8))
True
>>> lm = wrap_hf_causal_lm(build_model(TinyLMConfig(arch="gpt2", d_model=32, n_layers=1, n_heads=2), 40))
>>> lm(input_ids=torch.tensor([[4, 5, 6]]), segment_ids=torch.tensor([[0, 1, 1]])).logits.shape
torch.Size([1, 3, 40])
"""

from iclr26.architectures.aside.claim_check import aside_separates
from iclr26.architectures.aside.embeddings import (
    EMBEDDINGS,
    ASIDEEmbedding,
    ISEEmbedding,
    VanillaEmbedding,
    make_role_embedding,
)
from iclr26.architectures.aside.hf import is_wrapped, wrap_hf_causal_lm
from iclr26.architectures.aside.language import Item, Language, split_roles
from iclr26.architectures.aside.rotation import (
    DIRECTIONS,
    IsoclinicRotation,
    check_segment_ids,
    isoclinic_rotation_matrix,
)
from iclr26.architectures.aside.sep import SepItem, SepResult, insert_probe, sep_score
from iclr26.architectures.aside.train import (
    TinyGPT,
    TinyGPTSpec,
    generate_responses,
    pretrain_stage1,
    role_probe,
    sft,
)

__all__ = [
    "DIRECTIONS",
    "EMBEDDINGS",
    "ASIDEEmbedding",
    "ISEEmbedding",
    "IsoclinicRotation",
    "Item",
    "Language",
    "SepItem",
    "SepResult",
    "TinyGPT",
    "TinyGPTSpec",
    "VanillaEmbedding",
    "aside_separates",
    "check_segment_ids",
    "generate_responses",
    "insert_probe",
    "is_wrapped",
    "isoclinic_rotation_matrix",
    "make_role_embedding",
    "pretrain_stage1",
    "role_probe",
    "sep_score",
    "sft",
    "split_roles",
    "wrap_hf_causal_lm",
]
