"""Recall tasks are deterministic and their targets are exactly what the layout says."""

import pytest
import torch

from iclr26.lab.tasks import (
    IGNORE_INDEX,
    PASSKEY_VOCAB,
    RecallBatch,
    local_and_recall,
    local_and_recall_vocab_size,
    mqar,
    passkey,
    regression_prompts,
)


def test_mqar_targets_are_the_values_of_the_queried_keys():
    tokens, targets = mqar(n=50, seq_len=64, n_kv=8, vocab_size=64, seed=3)
    assert torch.equal(tokens, mqar(50, 64, 8, 64, seed=3)[0])
    for row in range(50):
        pairs = {int(tokens[row, 2 * i]): int(tokens[row, 2 * i + 1]) for i in range(8)}
        assert len(pairs) == 8 and all(1 <= k < 32 <= v < 64 for k, v in pairs.items())
        scored = (targets[row] != IGNORE_INDEX).nonzero().flatten().tolist()
        assert len(scored) == 8 and all(p >= 16 for p in scored)
        assert {int(tokens[row, p]) for p in scored} == set(pairs)
        for p in scored:
            assert int(targets[row, p]) == pairs[int(tokens[row, p])] == int(tokens[row, p + 1])


def test_passkey_depth_and_answer():
    tokens, targets = passkey(n=4, seq_len=40, depth=0.0, passkey_len=4, seed=1)
    assert (tokens[:, 0] == PASSKEY_VOCAB["key_marker"]).all()
    assert torch.equal(tokens[:, 1:5], targets[:, 35:39])
    deep, _ = passkey(n=4, seq_len=40, depth=1.0, passkey_len=4, seed=1)
    assert (deep[:, 40 - 11] == PASSKEY_VOCAB["key_marker"]).all()


def test_local_and_recall_labels_match_the_layout():
    batch = local_and_recall(n=6, seq_len=300, seed=0)
    vocab = local_and_recall_vocab_size()
    assert int(batch.tokens.max()) < vocab
    for row in range(6):
        for p in (batch.kind[row] == RecallBatch.RECALL).nonzero().flatten().tolist():
            key = int(batch.tokens[row, p])
            first = int((batch.tokens[row] == key).nonzero()[0])
            assert p - first == int(batch.distance[row, p]) and 100 <= p - first <= 250
            assert int(batch.targets[row, p]) == int(batch.tokens[row, first + 1])
        for p in (batch.kind[row] == RecallBatch.LOCAL).nonzero().flatten().tolist():
            d = int(batch.distance[row, p])
            assert 8 <= d <= 40 and batch.tokens[row, p - d] == batch.tokens[row, p]
            assert int(batch.targets[row, p]) == int(batch.tokens[row, p - d + 1])
    assert ((batch.targets != IGNORE_INDEX) == (batch.kind > 0)).all()
    assert (batch.kind == RecallBatch.RECALL).sum() >= 6 * 6
    # the key -> value map is redrawn per sequence: no fixed bigram answers the recall queries
    assert len({tuple(batch.tokens[row, 1:16:2].tolist()) for row in range(6)}) > 1


def test_regression_families():
    xs, ys = regression_prompts(3, 40, 5, "linear", noise=0.0, seed=0)
    w = torch.linalg.lstsq(xs[0], ys[0]).solution
    assert torch.allclose(xs[0] @ w, ys[0], atol=1e-5)
    xs, ys = regression_prompts(1, 40, 5, "piecewise_linear", noise=0.0, seed=0)
    w_last = torch.linalg.lstsq(xs[0, 30:], ys[0, 30:]).solution
    assert torch.allclose(xs[0, 30:] @ w_last, ys[0, 30:], atol=1e-5)
    assert not torch.allclose(xs[0, :10] @ w_last, ys[0, :10], atol=1e-2)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: mqar(1, 10, 4, 64), "seq_len"),
        (lambda: mqar(1, 64, 8, 16), "vocab_size"),
        (lambda: passkey(1, 40, 1.5), "depth"),
        (lambda: local_and_recall(1, 300, local_span=(30, 10)), "local_span"),
        (lambda: regression_prompts(1, 4, 2, "cubic"), "family"),
    ],
)
def test_bad_arguments_are_named(call, word):
    with pytest.raises(ValueError, match=word):
        call()
