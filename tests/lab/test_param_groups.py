"""split_param_groups routes hidden matrices vs the rest; state_numel counts optimizer-state floats exactly."""

import pytest
import torch
from torch import nn

from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig
from iclr26.optim import split_param_groups, state_numel


def test_tinygpt_split_is_hidden_matrices_vs_tables_head_and_vectors():
    cfg = TinyGPTConfig(n_layers=2, d_model=16, n_heads=2, seq_len=8)
    model = TinyGPT(cfg, vocab_size=11)
    matrices, others = split_param_groups(model)
    assert len(matrices) == 2 * 6  # q, k, v, o, fc, proj per layer
    assert all(p.ndim == 2 for p in matrices)
    ids = {id(p) for p in matrices}
    for p in (model.tok.weight, model.pos.weight, model.lm_head.weight):
        assert id(p) not in ids
    assert len(matrices) + len(others) == len(list(model.parameters()))
    with_head, _ = split_param_groups(model, exclude_head=False)
    assert id(model.lm_head.weight) in {id(p) for p in with_head}


def test_tied_weights_appear_once_and_frozen_ones_not_at_all():
    emb = nn.Embedding(10, 4)
    head = nn.Linear(4, 10, bias=False)
    head.weight = emb.weight
    frozen = nn.Linear(4, 4)
    frozen.requires_grad_(False)
    model = nn.ModuleDict({"emb": emb, "hidden": nn.Linear(4, 4), "frozen": frozen, "head": head})
    matrices, others = split_param_groups(model)
    assert [tuple(p.shape) for p in matrices] == [(4, 4)]
    assert sum(p is emb.weight for p in others) == 1
    assert all(p.requires_grad for p in matrices + others)


def test_state_numel_matches_adamw_and_sgd_formulas():
    model = nn.Sequential(nn.Linear(5, 7), nn.Linear(7, 3))
    n = sum(p.numel() for p in model.parameters())
    adam = torch.optim.AdamW(model.parameters())
    sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(2, 5)).sum().backward()
    adam.step()
    sgd.step()
    assert state_numel(adam) == 2 * n  # exp_avg + exp_avg_sq; the 0-d step counter is not memory
    assert state_numel(sgd) == n
    assert state_numel([adam, sgd]) == 3 * n


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="model"):
        split_param_groups([nn.Parameter(torch.ones(2, 2))])
    with pytest.raises(TypeError, match="optimizer"):
        state_numel([object()])
