"""Oracle tests for the FAME reproduction (arXiv 2603.00903): the brief's tests (1)-(6) plus env and claim checks."""

import numpy as np
import pytest
import torch
from statsmodels.stats.proportion import proportion_confint

from iclr26.decision.dual_learner_crl import (
    FAME,
    DQNConfig,
    FAMEConfig,
    Finetune,
    GridTasks,
    LargeBuffer,
    MultiHeadDQN,
    QNetwork,
    Reset,
    Transition,
    catastrophic_forgetting,
    forward_transfer,
    greedy_returns,
    kl_regularizer,
    meta_nll_epochs,
    run_sequence,
    running_performance,
    wilson_interval,
)
from iclr26.decision.dual_learner_crl.claim_check import fame_decider, warmup_decider
from iclr26.decision.dual_learner_crl.experiment import EXPERIMENT
from iclr26.harness.claims import Outcome
from iclr26.lab.rl import ReplayBuffer
from iclr26.lab.threads import limited_threads

TINY = dict(switch=64, replay_capacity=64, batch_size=8, target_sync=16, channels=4, hidden=16)


@pytest.fixture(autouse=True)
def one_thread():
    with limited_threads(1):
        yield


def tiny_fame(**kw) -> FAMEConfig:
    base = dict(
        TINY, fast2meta=32, meta_capacity=80, meta_epochs=1, meta_batch=8, detection_steps=10, warmup=32
    )
    return FAMEConfig(**(base | kw))


def oracle_policy(env, task):
    def policy(obs):
        pos = np.argwhere(obs[:, 2] > 0)[:, 1:]
        return env.oracle_actions(pos, task).argmax(1)

    return policy


# -- environment --------------------------------------------------------------------------------------------


def test_env_oracle_normalizes_to_one_and_random_to_zero():
    env = GridTasks(seed=0)
    for task in env.tasks:
        r = greedy_returns(env, task, oracle_policy(env, task), 400, seed=1)
        assert np.isclose(env.normalize(task, r.mean()), 1.0, atol=0.03)
        rand_policy = np.random.default_rng(5).integers
        rand = greedy_returns(env, task, lambda o, f=rand_policy: f(0, 4, len(o)), 3000, seed=2)
        assert abs(env.normalize(task, rand.mean())) < 0.1


def test_env_step_semantics_and_episode_log():
    env = GridTasks(max_steps=3, seed=0)
    env.set_task("A")
    obs, _ = env.reset(seed=3)
    assert obs.shape == (3, 7, 7) and obs[2].sum() == 1 and obs[1].sum() == 1
    assert np.array_equal(obs[0], env.tasks["A"][0])
    done = False
    rewards = []
    while not done:
        obs, r, term, trunc, _ = env.step(0)
        rewards.append(r)
        done = term or trunc
    assert len(env.episode_log) == 1 and np.isclose(env.episode_log[0][2], sum(rewards))
    assert term or len(rewards) == 3


# -- (1) meta NLL recovers a deterministic policy -----------------------------------------------------------


def test_meta_nll_recovers_deterministic_policy():
    env = GridTasks(seed=0)
    meta, fresh = (ReplayBuffer(400, (3, 7, 7), 1, seed=s) for s in (1, 2))
    for buf, task in ((meta, "A"), (fresh, "B")):
        cells = env.start_cells(task)
        acts = env.oracle_actions(cells, task).argmax(1)
        obs = env.observe(cells, task)
        for _ in range(8):
            for o, a in zip(obs, acts):
                buf.add(o[None], [a], [0.0], o[None], [0.0])
    torch.manual_seed(0)
    net = QNetwork((3, 7, 7), 4, 8, 64, generator=torch.Generator().manual_seed(0))
    losses = meta_nll_epochs(net, meta, fresh, task_number=2, epochs=25, batch_size=32, lr=3e-3)
    assert losses[-1] < losses[0]
    for task in ("A", "B"):
        cells = env.start_cells(task)
        pred = net(torch.as_tensor(env.observe(cells, task))).argmax(1).numpy()
        assert np.mean(pred == env.oracle_actions(cells, task).argmax(1)) > 0.99


# -- (2) lambda = 0, no detection: FAME's fast learner == Finetune --------------------------------------------


def _params(net):
    return torch.cat([p.detach().flatten() for p in net.parameters()])


def _pair(sabotage: bool = False):
    seq = ("A", "B", "A")
    fame = FAME((3, 7, 7), 4, tiny_fame(kl_weight=0.0, detection_steps=0), seed=3)
    if sabotage:  # meta training now draws from the action stream
        fame.meta_buffer.rng = fame.act_rng
        fame.fast2meta.rng = fame.act_rng
    fine = Finetune((3, 7, 7), 4, DQNConfig(**TINY), seed=3)
    r_fame = run_sequence(fame, GridTasks(seed=9), seq, 64, eval_episodes=2)
    r_fine = run_sequence(fine, GridTasks(seed=9), seq, 64, eval_episodes=2)
    return fame, fine, r_fame, r_fine


def test_fame_without_kl_and_detection_equals_finetune():
    fame, fine, r_fame, r_fine = _pair()
    assert fame.meta_trained and len(fame.meta_losses) == 2  # meta training did run in between
    assert fame.n_updates == fine.n_updates > 0
    assert torch.equal(_params(fame.q), _params(fine.q))
    assert np.array_equal(r_fame["perf"], r_fine["perf"])


def test_sabotage_shared_random_stream_breaks_equality():
    fame, fine, _, _ = _pair(sabotage=True)
    assert not torch.equal(_params(fame.q), _params(fine.q))


# -- (3) the CF metric ----------------------------------------------------------------------------------------


def test_cf_metric_on_three_state_chain():
    pi_old = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    assert catastrophic_forgetting([0.5, 0.3, 0.2], pi_old, pi_old) == 0.0
    pi_new = pi_old.copy()
    pi_new[2] = [0.8, 0.2]  # changed only where the OLD policy never goes
    assert catastrophic_forgetting([0.6, 0.4, 0.0], pi_old, pi_new) == 0.0
    assert np.isclose(catastrophic_forgetting([0.0, 0.0, 1.0], pi_old, pi_new), 0.6)  # TV
    kl = catastrophic_forgetting([0.0, 0.0, 1.0], pi_old, pi_new, "kl")
    assert np.isclose(kl, 0.2 * np.log(0.2 / 0.8) + 0.8 * np.log(0.8 / 0.2))


# -- (4) buffer bookkeeping -----------------------------------------------------------------------------------


def _drive(agent, env, seq, switch):
    sizes, replay_at_start = [], []
    for k, task in enumerate(seq):
        env.set_task(task)
        env.total_steps = k * switch
        agent.on_task_start(env, task)
        replay_at_start.append(len(agent.replay))
        obs, _ = env.reset()
        while env.total_steps < (k + 1) * switch:
            a = agent.act(obs)
            nxt, r, term, trunc, _ = env.step(a)
            agent.observe(Transition(obs, a, r, nxt, term, trunc))
            obs = env.reset()[0] if term or trunc else nxt
        window = agent.fast2meta.obs[0, : len(agent.fast2meta)].copy() if isinstance(agent, FAME) else None
        last = (
            agent.fast2meta.obs[0, (agent.fast2meta.pos - 1) % agent.fast2meta.capacity].copy()
            if window is not None
            else None
        )
        agent.on_task_end()
        sizes.append(len(agent.meta_buffer) if isinstance(agent, FAME) else len(agent.replay))
        if last is not None:  # the newest (s, a) of the window is the newest entry of the meta buffer
            mb = agent.meta_buffer
            assert np.array_equal(mb.obs[0, (mb.pos - 1) % mb.capacity], last)
    return sizes, replay_at_start


def test_buffers_cleared_grown_and_capped():
    fame = FAME((3, 7, 7), 4, tiny_fame(detection_steps=0, fast2meta=32, meta_capacity=80), seed=0)
    sizes, at_start = _drive(fame, GridTasks(seed=1), ("A", "B", "A"), 64)
    assert at_start == [0, 0, 0]
    assert sizes == [32, 64, 80]  # + min(N, steps) per task, FIFO cap 80
    fame2 = FAME((3, 7, 7), 4, tiny_fame(detection_steps=10, fast2meta=64, meta_capacity=500), seed=0)
    sizes2, at_start2 = _drive(fame2, GridTasks(seed=1), ("A", "B"), 64)
    assert sizes2 == [64, 118]  # task 2 has only 64 - 10 training steps
    assert at_start2 == [0, 10]  # cleared at the switch, then holds the detection rollouts
    fine = Finetune((3, 7, 7), 4, DQNConfig(**TINY), seed=0)
    _, at_start3 = _drive_plain(fine)
    assert at_start3 == [0, 0]
    lb = LargeBuffer((3, 7, 7), 4, DQNConfig(**(TINY | {"replay_capacity": 500})), seed=0)
    _, at_start4 = _drive_plain(lb)
    assert at_start4 == [0, 64]


def _drive_plain(agent):
    return _drive(agent, GridTasks(seed=1), ("A", "B"), 64)


# -- (5) detection never runs the meta learner at task 2 ------------------------------------------------------


def test_detection_skips_meta_at_task_two():
    fame = FAME((3, 7, 7), 4, tiny_fame(), seed=0)
    env = GridTasks(seed=2)
    run_sequence(fame, env, ("A", "B", "C"), 64, eval_episodes=2)
    d = fame.decisions
    assert [x["choice"] for x in d][0] == "none"
    assert d[1]["meta_ran"] is False and d[1]["meta_return"] is None and d[1]["choice"] in ("fast", "reset")
    assert d[2]["meta_ran"] is True and d[2]["choice"] in ("meta", "fast", "reset")


# -- (6) the KL regularizer -----------------------------------------------------------------------------------


def test_kl_gradient_zero_when_policies_match():
    logits = torch.randn(5, 4, generator=torch.Generator().manual_seed(0))
    q = (logits + 3.0).clone().requires_grad_(True)  # softmax(Q) == softmax(logits)
    kl_regularizer(q, logits).backward()
    assert q.grad.abs().max() < 1e-6
    q2 = torch.randn(5, 4, requires_grad=True)
    loss = kl_regularizer(q2, logits)
    loss.backward()
    assert loss > 0 and q2.grad.abs().max() > 1e-3
    ref = (
        (torch.softmax(logits, -1) * (torch.log_softmax(logits, -1) - torch.log_softmax(q2, -1)))
        .sum(-1)
        .mean()
    )
    assert torch.allclose(loss, ref)


def test_warmup_adds_kl_only_inside_window():
    fame = FAME((3, 7, 7), 4, tiny_fame(), seed=0)
    obs = torch.zeros(2, 3, 7, 7)
    q = torch.randn(2, 4)
    assert fame.extra_loss(obs, q) is None
    fame.warm, fame.task_step = True, 10
    assert fame.extra_loss(obs, q) is not None
    fame.task_step = fame.cfg.warmup
    assert fame.extra_loss(obs, q) is None


# -- baselines, metrics and claim checks --------------------------------------------------------------------


def test_reset_and_multihead_baselines():
    reset = Reset((3, 7, 7), 4, DQNConfig(**TINY), seed=0)
    env = GridTasks(seed=0)
    env.set_task("A")
    reset.on_task_start(env, "A")
    before = _params(reset.q)
    reset.on_task_start(env, "B")
    assert not torch.equal(before, _params(reset.q))
    mh = MultiHeadDQN((3, 7, 7), 4, DQNConfig(**TINY), ("A", "B"), seed=0)
    mh.on_task_start(env, "B")
    x = torch.zeros(1, 3, 7, 7)
    assert torch.equal(mh.q_values(x), mh.q(x)[:, 1])


def test_running_performance_and_forward_transfer():
    perf = running_performance([(4, 0, 1.0), (19, 1, 0.5)], 20, 10, window=2)
    assert np.array_equal(perf[:4], np.zeros(4)) and np.all(perf[4:10] == 1.0)
    assert np.all(perf[10:19] == 0.0) and perf[19] == 0.5
    assert np.allclose(forward_transfer([0.5, 0.2], [0.0, 0.2]), [0.5, 0.0])


def test_wilson_matches_statsmodels():
    for s, n in ((0, 5), (3, 9), (15, 15)):
        assert np.allclose(wilson_interval(s, n), proportion_confint(s, n, method="wilson"))


def _rows(adv, gap, seen=(3, 3), new=(0, 1), learned=0.8, meta=0.8):
    """Per-seed rows: FAME's advantage over the best baseline `adv` (the best is LargeBuffer, 0.4) and
    Finetune's forgetting minus FAME's `gap`; `learned` / `meta` are the precondition metrics."""
    return [
        {
            "avg_fame": 0.4 + a,
            "avg_reset": 0.3,
            "avg_finetune": 0.1,
            "avg_largebuffer": 0.4,
            "forget_fame": 0.2,
            "forget_finetune": 0.2 + g,
            "seen_meta": seen[0],
            "seen_n": seen[1],
            "new_meta": new[0],
            "new_n": new[1],
            "end_of_task_fame": learned,
            "end_of_task_reset": learned,
            "meta_acc_norm_final": meta,
        }
        for a, g in zip(adv, gap, strict=True)
    ]


def test_claim_deciders_can_pass_fail_and_abstain():
    judge = fame_decider()
    assert judge(_rows([0.2, 0.25, 0.3], [0.1, 0.2, 0.15])).outcome is Outcome.SUPPORTED
    assert judge(_rows([-0.2, -0.25, -0.3], [0.1, 0.2, 0.15])).outcome is Outcome.NOT_SUPPORTED
    assert (
        judge(_rows([0.2, 0.25, 0.3], [-0.1, -0.2, -0.15])).outcome is Outcome.NOT_SUPPORTED
    )  # (b) reversed
    assert judge(_rows([-0.2, 0.25, 0.1], [0.1, 0.2, 0.15])).outcome is Outcome.INCONCLUSIVE
    assert judge(_rows([0.2, 0.25, 0.3], [0.1, 0.2, 0.15], seen=(1, 3))).outcome is Outcome.INCONCLUSIVE
    # a refuted warm-up alone never refutes the combined claim
    assert judge(_rows([0.2, 0.25, 0.3], [0.1, 0.2, 0.15], seen=(0, 5))).outcome is Outcome.INCONCLUSIVE
    warm = warmup_decider()
    assert warm(_rows([0] * 3, [0] * 3)).outcome is Outcome.SUPPORTED
    assert warm(_rows([0] * 5, [0] * 5, seen=(0, 3))).outcome is Outcome.NOT_SUPPORTED
    assert warm(_rows([0] * 3, [0] * 3, seen=(2, 3))).outcome is Outcome.INCONCLUSIVE


def test_fame_is_judged_against_the_best_baseline_of_each_seed():
    rows = _rows([0.05, 0.06, 0.07], [0.1, 0.2, 0.15])
    assert fame_decider()(rows).outcome is Outcome.SUPPORTED
    rows[1] = {**rows[1], "avg_reset": 0.9}  # in one seed Reset is far ahead of FAME
    assert fame_decider()(rows).outcome is Outcome.INCONCLUSIVE
    same = [{**r, "avg_fame": r["avg_largebuffer"]} for r in _rows([0.1] * 3, [0.1] * 3)]
    assert fame_decider()(same).outcome is not Outcome.SUPPORTED


@pytest.mark.parametrize("claim_id", ["fame-beats-baselines", "adaptive-warmup-selection"])
def test_preconditions_pass_when_fame_learned_and_give_not_reproduced_when_not(claim_id):
    claim = next(c for c in EXPERIMENT.claims if c.id == claim_id)
    good = _rows([0.2, 0.25, 0.3], [0.1, 0.2, 0.15])
    assert not claim.unmet(good)
    assert claim.judge(good).outcome is Outcome.SUPPORTED
    bad_meta = _rows([0.2, 0.25, 0.3], [0.1, 0.2, 0.15], meta=0.2)
    assert claim.judge(bad_meta).outcome is Outcome.NOT_REPRODUCED
    # a FAME that did not learn is not evidence against the paper, even when the rule alone would refute it
    refuted = _rows([-0.2, -0.25, -0.3], [0.1, 0.2, 0.15], seen=(0, 5), learned=0.1, meta=0.1)
    assert claim.decide(refuted).outcome is Outcome.NOT_SUPPORTED
    assert claim.judge(refuted).outcome is Outcome.NOT_REPRODUCED
    if claim_id == "fame-beats-baselines":
        assert claim.judge(_rows([0.2, 0.25, 0.3], [0.1, 0.2, 0.15], learned=0.3)).outcome is (
            Outcome.NOT_REPRODUCED
        )


def test_chance_accuracy_is_the_random_policys_shortest_path_rate():
    from iclr26.decision.dual_learner_crl.experiment import _chance_accuracy

    env = GridTasks(layouts=("A", "B", "C", "D"))
    cells = env.start_cells("A")
    hits = env.oracle_actions(cells, "A").sum(1)
    assert 1 <= hits.min() and hits.max() <= 2  # one or two shortest-path moves per cell
    assert np.isclose(_chance_accuracy(("A",), 50), np.mean(hits / 4))


@pytest.mark.parametrize("bad", [dict(kl_weight=-0.1), dict(fast2meta=500), dict(detection_steps=40)])
def test_config_validation(bad):
    with pytest.raises(ValueError):
        tiny_fame(**bad)


# -- the gridworld recipe: per-task epsilon schedule and the detection's random reference ---------------------


def test_epsilon_schedule_restarts_each_task_and_after_detection():
    cfg = DQNConfig(**TINY, epsilon=0.1, epsilon_start=1.0, epsilon_decay=20)
    agent = Finetune((3, 7, 7), 4, cfg, seed=0)
    env = GridTasks(seed=0)
    agent.on_task_start(env, "A")
    assert agent.epsilon_now() == 1.0
    agent.task_step = 10
    assert np.isclose(agent.epsilon_now(), 0.55)
    agent.task_step = 40
    assert agent.epsilon_now() == 0.1
    agent.on_task_start(env, "B")
    assert agent.epsilon_now() == 1.0
    fixed = Finetune((3, 7, 7), 4, DQNConfig(**TINY), seed=0)  # default: a fixed epsilon, as in the code
    assert fixed.epsilon_now() == 0.1
    fame = FAME((3, 7, 7), 4, tiny_fame(epsilon_start=1.0, epsilon_decay=20), seed=0)
    fame.on_task_start(env, "A")
    fame.on_task_start(env, "B")  # detection (10 greedy steps) does not use up the schedule
    assert fame.task_step == 10 and fame.epsilon_now() == 1.0


def test_random_reference_is_the_random_policys_return():
    env = GridTasks(seed=3)
    fame = FAME((3, 7, 7), 4, tiny_fame(random_reference="random_policy"), seed=0)
    run_sequence(fame, env, ("A", "B"), 64, eval_episodes=2)
    assert np.isclose(fame.decisions[1]["random_value"], env.random_return("B"))
    official = FAME((3, 7, 7), 4, tiny_fame(), seed=0)
    run_sequence(official, GridTasks(seed=3), ("A", "B"), 64, eval_episodes=2)
    assert not np.isclose(official.decisions[1]["random_value"], env.random_return("B"))
    with pytest.raises(ValueError, match="random_reference"):
        tiny_fame(random_reference="zero")
