"""The tiny char-GPT bench: data, model shape/causality, deterministic training, schedule, tuning."""

import math

import pytest
import torch

from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig, TrainConfig, char_data, cosine_warmup, train, tune_lr

SMALL = TinyGPTConfig(n_layers=1, d_model=16, n_heads=2, seq_len=16)
FEW = TrainConfig(steps=6, batch_size=4, eval_every=3, eval_batches=1)


@pytest.fixture(scope="module")
def data():
    return char_data(max_chars=100_000)


def test_data_is_a_small_char_vocab_with_disjoint_splits(data):
    assert 40 <= data.vocab_size <= 128
    assert data.vocab[0] == "\x00"
    assert data.train.max() < data.vocab_size and data.val.numel() > 1000
    assert "def " in data.decode(data.train[:5000])


def test_default_model_has_the_briefs_size():
    model = TinyGPT(TinyGPTConfig(), vocab_size=100)
    assert 0.40e6 < sum(p.numel() for p in model.parameters()) < 0.50e6


def test_model_is_causal(data):
    model = TinyGPT(SMALL, data.vocab_size, init_seed=0)
    x = data.train[:16][None]
    y = x.clone()
    y[0, 10:] = (y[0, 10:] + 1) % data.vocab_size
    assert torch.allclose(model(x)[0, :10], model(y)[0, :10])
    assert not torch.allclose(model(x)[0, 10:], model(y)[0, 10:])


def test_training_is_deterministic_and_lowers_loss(data):
    def run():
        model = TinyGPT(SMALL, data.vocab_size, init_seed=3)
        return train(model, lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2), FEW, seed=5, data=data)

    a, b = run(), run()
    assert a.eval_losses == b.eval_losses and a.train_losses == b.train_losses
    assert a.eval_steps == [0, 3, 6]
    assert a.final_eval_loss < a.eval_losses[0]
    assert a.state_numel == 2 * sum(p.numel() for p in TinyGPT(SMALL, data.vocab_size).parameters())


def test_divergence_is_flagged_and_never_tuned_to(data):
    def make(m, lr):
        return torch.optim.SGD(m.parameters(), lr=lr)

    best, losses = tune_lr(make, [1e-2, 1e9], SMALL, FEW, seed=0, data=data)
    assert best == 1e-2 and math.isnan(losses[1e9])


def test_schedule_warms_up_then_decays_to_the_floor():
    values = [cosine_warmup(s, 100, 0.1, 0.1) for s in range(101)]
    assert values[9] == pytest.approx(1.0) and values[0] == pytest.approx(0.1)
    assert values[100] == pytest.approx(0.1)
    assert all(a >= b for a, b in zip(values[10:], values[11:]))


def test_bad_configs_name_the_argument():
    with pytest.raises(ValueError, match="n_heads"):
        TinyGPTConfig(d_model=10, n_heads=3)
    with pytest.raises(ValueError, match="warmup_frac"):
        TrainConfig(warmup_frac=1.5)
    with pytest.raises(ValueError, match="grid"):
        tune_lr(lambda m, lr: None, [], SMALL, FEW, seed=0)
