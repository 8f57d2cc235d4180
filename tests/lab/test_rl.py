"""The shared RL core: ensemble == independent members (forward and Adam), buffer, GAE, masking, envs."""

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.lab.rl import (
    Ensemble,
    ReplayBuffer,
    epsilon_greedy,
    gae,
    linear_schedule,
    make_vector_env,
    masked_categorical,
    td_targets,
)


def members(n=3):
    torch.manual_seed(0)
    return [nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)) for _ in range(n)]


def test_ensemble_adam_equals_independent_adams():
    nets = members()
    ens = Ensemble(nets)
    opt = torch.optim.Adam(ens.parameters(), lr=1e-2)
    opts = [torch.optim.Adam(m.parameters(), lr=1e-2) for m in nets]
    gen = torch.Generator().manual_seed(1)
    for _ in range(5):
        x, y = torch.randn(3, 6, 4, generator=gen), torch.randn(3, 6, 2, generator=gen)
        opt.zero_grad()
        ((ens(x) - y) ** 2).mean(dim=(1, 2)).sum().backward()
        ens.clip_grad_norm_(0.5)
        opt.step()
        for i, (m, o) in enumerate(zip(nets, opts)):
            o.zero_grad()
            ((m(x[i]) - y[i]) ** 2).mean().backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
            o.step()
    for i, m in enumerate(nets):
        rebuilt = ens.member(i)
        for (name, a), b in zip(m.named_parameters(), rebuilt.parameters()):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6, msg=name)
    x = torch.randn(5, 4)
    torch.testing.assert_close(ens(x, shared_input=True)[2], nets[2](x), rtol=1e-5, atol=1e-6)
    named = ens.named_stacked()
    assert list(named) == [n for n, _ in nets[0].named_parameters()] and named["2.bias"].shape == (3, 2)


def test_load_member_writes_one_member_back():
    nets = members()
    ens = Ensemble(nets)
    fresh = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    ens.load_member(1, fresh)
    x = torch.randn(3, 2, 4)
    torch.testing.assert_close(ens(x)[1], fresh(x[1]))
    torch.testing.assert_close(ens(x)[0], nets[0](x[0]))


def test_replay_buffer_is_fifo_and_seeded():
    buf = ReplayBuffer(capacity=4, obs_shape=(2,), n_envs=2, seed=0)
    for t in range(6):
        obs = np.full((2, 2), t, dtype=np.float32)
        buf.add(obs, [t, t], [1.0, 2.0], obs + 1, [0, 1])
    assert len(buf) == 4 and set(buf.actions[0].tolist()) == {2, 3, 4, 5}
    assert buf.ordered()["actions"][0].tolist() == [2, 3, 4, 5]  # oldest first after wrapping
    batch = buf.sample(16)
    assert batch["obs"].shape == (2, 16, 2) and batch["actions"].min() >= 2
    assert torch.equal(batch["next_obs"], batch["obs"] + 1)
    other = ReplayBuffer(4, (2,), 2, seed=0)
    other.__dict__.update({k: v for k, v in buf.__dict__.items() if k != "rng"})
    assert torch.equal(other.sample(16)["actions"], batch["actions"])
    with pytest.raises(ValueError, match="obs must have shape"):
        buf.add(np.zeros((3, 2)), [0] * 3, [0] * 3, np.zeros((3, 2)), [0] * 3)


def test_gae_limits():
    gen = torch.Generator().manual_seed(0)
    r, v = torch.randn(6, 2, generator=gen), torch.randn(6, 2, generator=gen)
    dones = torch.zeros(6, 2)
    dones[2, 0] = 1
    last = torch.randn(2, generator=gen)
    adv0, _ = gae(r, v, dones, last, gamma=0.9, lam=0.0)
    nxt = torch.cat([v[1:], last[None]])
    torch.testing.assert_close(adv0, r + 0.9 * nxt * (1 - dones) - v)
    _, ret1 = gae(r, v, dones, last, gamma=0.9, lam=1.0)
    expect = torch.zeros(6, 2)
    running = last.clone()
    for t in range(5, -1, -1):
        running = r[t] + 0.9 * running * (1 - dones[t])
        expect[t] = running
    torch.testing.assert_close(ret1, expect)


def test_masked_actions_are_never_sampled():
    logits = torch.randn(500, 5)
    mask = torch.rand(500, 5) > 0.5
    mask[:, 0] |= ~mask.any(1)
    dist = masked_categorical(logits, mask)
    actions = dist.sample()
    assert mask[torch.arange(500), actions].all()
    assert torch.isfinite(dist.entropy()).all()
    with pytest.raises(ValueError, match="at least one action"):
        masked_categorical(logits[:1], torch.zeros(1, 5, dtype=torch.bool))


def test_epsilon_greedy_schedule_and_targets():
    rng = np.random.default_rng(0)
    q = torch.tensor([[0.0, 1.0, 0.5]] * 1000)
    assert (epsilon_greedy(q, 0.0, rng) == 1).all()
    counts = np.bincount(epsilon_greedy(q, 1.0, rng), minlength=3)
    assert counts.min() > 250
    assert (
        linear_schedule(1.0, 0.1, 10, 5) == pytest.approx(0.55) and linear_schedule(1.0, 0.1, 10, 50) == 0.1
    )
    t = td_targets(torch.ones(2), torch.tensor([2.0, 2.0], requires_grad=True), torch.tensor([0.0, 1.0]), 0.5)
    assert t.tolist() == [2.0, 1.0] and not t.requires_grad


def test_vector_env_seeds_copies_and_resets_in_the_same_step():
    venv, obs = make_vector_env("CartPole-v1", 3, seed=7)
    _, obs2 = make_vector_env("CartPole-v1", 3, seed=7)
    assert np.array_equal(obs, obs2) and not np.array_equal(obs[0], obs[1])
    for _ in range(200):
        obs, _, term, trunc, info = venv.step(np.zeros(3, dtype=np.int64))
        if (term | trunc).any():
            i = int(np.flatnonzero(term | trunc)[0])
            assert "final_obs" in info and info["final_obs"][i] is not None
            break
    else:
        pytest.fail("always pushing left must end a CartPole episode")
    venv.close()
