"""Oracle tests of iS-DQN (arXiv 2506.04398): the brief's correctness tests (1)-(6) plus the claim checks."""

import gymnasium as gym
import numpy as np
import pytest
import torch

from iclr26.decision.is_ql import DQN, ISDQN, SharedHeadQNet, TargetFreeDQN, train
from iclr26.decision.is_ql.claim_check import gap_recovery_decider, param_decider, pooled_auc
from iclr26.decision.is_ql.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads

OBS = gym.spaces.Box(-np.inf, np.inf, (4,), np.float32)
ACT = gym.spaces.Discrete(3)
SMALL = dict(hidden=(16, 16), dtype=torch.float64, lr=1e-2)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny networks run fastest (and without thread contention) on one thread."""
    with limited_threads(1):
        yield


def batches(n_members, n, batch=8, obs_dim=4, n_actions=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        yield {
            "obs": torch.randn(n_members, batch, obs_dim, generator=g, dtype=torch.float64),
            "actions": torch.randint(0, n_actions, (n_members, batch), generator=g),
            "rewards": torch.randn(n_members, batch, generator=g, dtype=torch.float64),
            "next_obs": torch.randn(n_members, batch, obs_dim, generator=g, dtype=torch.float64),
            "terminated": (torch.rand(n_members, batch, generator=g) < 0.2).to(torch.float64),
        }


def head_rows(agent, k):
    p = agent.stacked()
    a = agent.n_actions
    return p["head.weight"][:, k * a : (k + 1) * a].detach().clone(), p["head.bias"][
        :, k * a : (k + 1) * a
    ].detach()


def copy_tf_into_is(tf, isq):
    """Trunk and head 1 (and head 0) of `isq` from `tf`'s single head."""
    src, dst = tf.stacked(), isq.stacked()
    a = tf.n_actions
    with torch.no_grad():
        for name, value in src.items():
            if name.startswith("trunk"):
                dst[name].copy_(value)
        for k in range(isq.K + 1):
            dst["head.weight"][:, k * a : (k + 1) * a] = src["head.weight"]
            dst["head.bias"][:, k * a : (k + 1) * a] = src["head.bias"]


def test_1_k1_every_update_equals_target_free():
    tf = TargetFreeDQN(OBS, ACT, n_members=2, seed=1, **SMALL)
    isq = ISDQN(OBS, ACT, K=1, target_update=1, n_members=2, seed=2, **SMALL)
    copy_tf_into_is(tf, isq)
    for batch in batches(2, 8):
        l_tf, l_is = tf.update(batch), isq.update(batch)
        np.testing.assert_allclose(l_is, l_tf, rtol=0, atol=1e-10)
        for name, v in tf.stacked().items():
            w = isq.stacked()[name]
            if name.startswith("head"):
                w = w[:, 3:]  # head 1
            torch.testing.assert_close(w, v, rtol=0, atol=1e-10)


def test_1_head0_never_moves_under_adam_and_full_loop_matches():
    isq = ISDQN(OBS, ACT, K=3, target_update=10_000, n_members=2, seed=3, **SMALL)
    w0, b0 = head_rows(isq, 0)
    w1, _ = head_rows(isq, 1)
    for batch in batches(2, 5):
        isq.update(batch)
    torch.testing.assert_close(head_rows(isq, 0)[0], w0, rtol=0, atol=0)
    torch.testing.assert_close(head_rows(isq, 0)[1], b0, rtol=0, atol=0)
    assert not torch.allclose(head_rows(isq, 1)[0], w1)
    # in the training loop the head draw has its own stream: K=1, T=1 iS-DQN == TF-DQN step for step
    env = gym.make("CartPole-v1")
    kw = dict(hidden=(8,), dtype=torch.float64, n_members=2)
    tf = TargetFreeDQN(env.observation_space, env.action_space, seed=0, **kw)
    isq = ISDQN(env.observation_space, env.action_space, K=1, target_update=1, seed=5, **kw)
    copy_tf_into_is(tf, isq)
    ra = train(tf, "CartPole-v1", 120, warmup=20, eps_decay=50, seed=4)
    rb = train(isq, "CartPole-v1", 120, warmup=20, eps_decay=50, seed=4)
    assert ra.episodes == rb.episodes
    np.testing.assert_allclose(np.array(rb.losses), np.array(ra.losses), rtol=0, atol=1e-10)


def test_2_shift_heads_moves_every_head_down_and_keeps_the_last():
    torch.manual_seed(0)
    net = SharedHeadQNet(4, 3, K=4, hidden=(8,))
    before = net.head.weight.detach().view(5, 3, 8).clone(), net.head.bias.detach().view(5, 3).clone()
    net.shift_heads_()
    w, b = net.head.weight.view(5, 3, 8), net.head.bias.view(5, 3)
    for i in range(4):
        torch.testing.assert_close(w[i], before[0][i + 1], rtol=0, atol=0)
        torch.testing.assert_close(b[i], before[1][i + 1], rtol=0, atol=0)
    torch.testing.assert_close(w[4], before[0][4], rtol=0, atol=0)
    torch.testing.assert_close(b[4], before[1][4], rtol=0, atol=0)
    # the agent's ensemble shift does the same for every member
    isq = ISDQN(OBS, ACT, K=2, target_update=10, n_members=3, **SMALL)
    old = [head_rows(isq, k)[0] for k in range(3)]
    isq.shift_heads_()
    torch.testing.assert_close(head_rows(isq, 0)[0], old[1])
    torch.testing.assert_close(head_rows(isq, 1)[0], old[2])
    torch.testing.assert_close(head_rows(isq, 2)[0], old[2])


def test_3_head0_gradient_is_zero_and_targets_carry_no_grad():
    isq = ISDQN(OBS, ACT, K=3, target_update=10, n_members=2, **SMALL)
    batch = next(batches(2, 1))
    assert not isq.targets(batch).requires_grad
    isq.optimizer.zero_grad()
    isq.losses(batch).sum().backward()
    g = isq.stacked()["head.weight"].grad
    gb = isq.stacked()["head.bias"].grad
    assert torch.count_nonzero(g[:, :3]) == 0 and torch.count_nonzero(gb[:, :3]) == 0
    assert torch.count_nonzero(g[:, 3:]) > 0


def test_4_loss_equals_naive_per_head_loop():
    isq = ISDQN(OBS, ACT, K=4, target_update=10, n_members=2, gamma=0.9, **SMALL)
    batch = next(batches(2, 1))
    fast = isq.head_losses(batch).detach()
    for j in range(2):
        net = isq.online.member(j)
        for k in range(1, 5):
            terms = []
            for i in range(batch["obs"].shape[1]):
                q = net(batch["obs"][j, i])[k, batch["actions"][j, i]]
                v = net(batch["next_obs"][j, i])[k - 1].max()
                y = batch["rewards"][j, i] + 0.9 * (1 - batch["terminated"][j, i]) * v
                terms.append((float(y.detach()) - float(q.detach())) ** 2)
            assert abs(float(fast[j, k - 1]) - np.mean(terms)) < 1e-10


def test_5_separate_frozen_copy_with_k1_is_dqn():
    env = gym.make("CartPole-v1")
    kw = dict(hidden=(8,), dtype=torch.float64, n_members=2, lr=1e-3)
    dqn = DQN(env.observation_space, env.action_space, target_update=15, seed=0, **kw)
    isq = ISDQN(
        env.observation_space, env.action_space, K=1, target_update=15, shared_trunk=False, seed=9, **kw
    )
    copy_tf_into_is(dqn, isq)
    isq.frozen.load_state_dict(isq.online.state_dict())
    ra = train(dqn, "CartPole-v1", 150, warmup=20, eps_decay=60, seed=2)
    rb = train(isq, "CartPole-v1", 150, warmup=20, eps_decay=60, seed=2)
    assert ra.episodes == rb.episodes
    np.testing.assert_allclose(np.array(rb.losses), np.array(ra.losses), rtol=0, atol=1e-10)
    torch.testing.assert_close(
        isq.stacked()["trunk.0.weight"], dqn.stacked()["trunk.0.weight"], rtol=0, atol=1e-10
    )
    # the shared-trunk variant is a different algorithm
    shared = ISDQN(env.observation_space, env.action_space, K=1, target_update=15, seed=9, **kw)
    copy_tf_into_is(dqn, shared)
    assert shared.param_count() < isq.param_count() == dqn.param_count()


@pytest.mark.parametrize(
    "env_id, obs_dim, n_actions, trunk, tf, is4",
    [("CartPole-v1", 4, 2, 17152, 17410, 18442), ("Acrobot-v1", 6, 3, 17408, 17795, 19343)],
)
def test_6_parameter_counts_match_the_formulas(env_id, obs_dim, n_actions, trunk, tf, is4):
    env = gym.make(env_id)
    net = SharedHeadQNet(obs_dim, n_actions, K=4)
    assert net.trunk_param_count() == trunk
    assert net.param_count() == trunk + 5 * 129 * n_actions == is4
    spaces = (env.observation_space, env.action_space)
    assert TargetFreeDQN(*spaces).param_count() == tf
    assert DQN(*spaces).param_count() == 2 * tf
    assert ISDQN(*spaces, K=4).param_count() == is4
    assert ISDQN(*spaces, K=1, shared_trunk=False).param_count() == 2 * tf


def test_acting_draws_a_learned_head_per_member():
    isq = ISDQN(OBS, ACT, K=3, n_members=4, **SMALL)
    heads = np.concatenate([isq._heads().numpy() for _ in range(200)])
    assert set(heads.tolist()) == {1, 2, 3}
    q = isq.acting_q(np.zeros((4, 4)))
    assert q.shape == (4, 3)


def rows(dqn, tf, is4, is1=None, n=3, learned=0.5):
    """`n` seeds of 4 members; `{env}_{method}_auc` is the members' mean, as run() writes it."""
    out = []
    for s in range(n):
        r = {}
        for env in ("cartpole", "acrobot"):
            for m, v in (("dqn", dqn), ("tf", tf), ("is4", is4), ("is1", is1 if is1 is not None else tf)):
                members = [
                    v + 0.5 * ((s * 4 + j) % 5) - 1.0 + (0.3 * j - 0.45 if m == "dqn" else 0.0)
                    for j in range(4)
                ]
                for j, a in enumerate(members):
                    r[f"{env}_{m}_auc_m{j}"] = a
                r[f"{env}_{m}_auc"] = float(np.mean(members))
            r[f"{env}_dqn_params"], r[f"{env}_tf_params"], r[f"{env}_is4_params"] = 34820, 17410, 18442
            r[f"{env}_is1_params"] = 17668
            r[f"{env}_dqn_learned"] = learned
        out.append(r)
    return out


CLAIMS = {c.id: c for c in EXPERIMENT.claims}


def test_gap_recovery_decider_three_outcomes_and_sabotage():
    dec = gap_recovery_decider(("cartpole", "acrobot"), "is4", 0.5)
    assert dec(rows(100, 40, 90)).outcome is Outcome.SUPPORTED
    assert dec(rows(100, 40, 40)).outcome is Outcome.NOT_SUPPORTED  # sabotage: iS no better than TF
    assert dec(rows(100, 40, 55)).outcome is Outcome.INCONCLUSIVE  # above TF, < half the gap
    assert dec(rows(40, 40, 90)).outcome is Outcome.INCONCLUSIVE  # no gap to bridge
    bad = rows(100, 40, 90)
    for r in bad:
        r["cartpole_is4_params"] = 30000  # too many parameters
    assert dec(bad).outcome is Outcome.NOT_SUPPORTED
    v = dec(rows(100, 40, 90))
    assert abs(v.estimate - 50 / 60) < 0.05 and v.interval[0] <= v.estimate <= v.interval[1]


def test_param_decider():
    dec = param_decider(("cartpole", "acrobot"))
    assert dec(rows(1, 1, 1)).outcome is Outcome.SUPPORTED
    assert dec(rows(1, 1, 1, n=1)).outcome is Outcome.SUPPORTED  # deterministic: one seed suffices
    r = rows(1, 1, 1)
    r[0]["acrobot_is4_params"] = 20000
    assert dec(r).outcome is Outcome.NOT_SUPPORTED
    assert CLAIMS["is-dqn-memory"].kind == "check"  # true by construction, reported apart


def test_replicates_are_the_members_anchored_on_the_seed_mean():
    r = rows(100, 40, 90)
    members = np.array([[row[f"cartpole_is4_auc_m{j}"] for j in range(4)] for row in r]).ravel()
    np.testing.assert_allclose(pooled_auc(r, "cartpole", "is4", 4), members, rtol=0, atol=1e-12)
    # replacing the method's per-seed AUC by TF's moves all its replicates there (the sabotage the suite runs)
    sabotaged = [{**row, "cartpole_is4_auc": row["cartpole_tf_auc"]} for row in r]
    dec = gap_recovery_decider(("cartpole", "acrobot"), "is4", 0.5)
    assert dec(sabotaged).outcome is not Outcome.SUPPORTED
    assert dec([{k: v for k, v in row.items() if k != "cartpole_tf_auc_m3"} for row in r]).outcome is (
        Outcome.INCONCLUSIVE
    )  # every member is declared: a missing one is not silently skipped


@pytest.mark.parametrize("claim_id", ["is-dqn-bridges-gap", "is-dqn-k1-beats-tf"])
def test_precondition_dqn_learned(claim_id):
    claim = CLAIMS[claim_id]
    assert not claim.unmet(rows(100, 40, 90, is1=90))  # DQN learned: the rule's verdict stands
    assert claim.judge(rows(100, 40, 90, is1=90)).outcome is Outcome.SUPPORTED
    assert claim.judge(rows(100, 40, 40)).outcome is Outcome.NOT_SUPPORTED
    low = rows(100, 40, 40)
    low[1] = {**low[1], "acrobot_dqn_learned": 0.05}  # one seed where DQN barely beat random play
    assert claim.judge(low).outcome is Outcome.NOT_REPRODUCED
    assert claim.judge(rows(100, 40, 90, learned=0.0)).outcome is Outcome.NOT_REPRODUCED


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: ISDQN(OBS, ACT, K=0), "K"),
        (lambda: ISDQN(OBS, ACT, target_update=0), "target_update"),
        (lambda: DQN(OBS, gym.spaces.Box(-1, 1, (2,)), target_update=5), "action_space"),
        (lambda: TargetFreeDQN(OBS, ACT).act(np.zeros((1, 5)), 0.1, np.random.default_rng(0)), "obs"),
    ],
)
def test_bad_inputs_raise(make, words):
    with pytest.raises(ValueError, match=words):
        make()
