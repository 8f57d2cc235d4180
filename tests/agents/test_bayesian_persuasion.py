"""BP-LLM ("Towards Strategic Persuasion with Language Models"): oracle and correctness tests.

The brief's tests (prosecutor closed forms, LP = concave envelope on random two-state games, obedience,
relabelling invariance, posteriors that sum to 1), the batched value against its signal-by-signal oracle, the
environments (offline, scripted LLMs, an OpenAI-compatible stub on 127.0.0.1), the trainer's two modes, and the
claim rule on hand-built rows.
"""

import math

import numpy as np
import pytest

from iclr26.agents.bayesian_persuasion import (
    BayesianReceiver,
    Game,
    LLMPersuasionEnv,
    PartialUpdater,
    PersuasionEnv,
    QuantalReceiver,
    baseline_values,
    concavify_binary,
    full_disclosure,
    indifference_beliefs,
    lp_optimum_is_unique,
    naive_value,
    no_disclosure,
    normalized_gain,
    obedience_gap,
    optimal_face_width,
    parse_belief,
    posterior_distribution,
    prosecutor,
    random_game,
    random_scheme,
    solve_lp,
    straightforward,
    strategy_tv,
    train_sender,
    train_senders,
    upper_hull,
    value,
)
from iclr26.agents.bayesian_persuasion.claim_check import rl_reaches_optimum
from iclr26.agents.bayesian_persuasion.envelope import v_hat_on
from iclr26.agents.bayesian_persuasion.experiment import EXPERIMENT, BPConfig, draw_games
from iclr26.agents.bayesian_persuasion.train import _Padded
from iclr26.harness.claims import Outcome
from iclr26.harness.threads import limited_threads
from iclr26.lab.llm import OpenAICompatibleBackend, ScriptedBackend
from tests.llm_stub import ok_reply, serve_stub

RECEIVERS = [BayesianReceiver(), PartialUpdater(0.6), QuantalReceiver(5.0)]


@pytest.fixture(autouse=True)
def one_thread():
    """The trainer's tiny tensors run fastest (and as the harness runs them) on one thread."""
    with limited_threads(1):
        yield


def random_games(n, n_states=(2, 3, 5), n_actions=(2, 3, 4), seed=0):
    rng = np.random.default_rng(seed)
    kinds = ("state-dependent", "state-independent")
    return [
        random_game(rng, n_states[i % len(n_states)], n_actions[(i // 3) % len(n_actions)], kinds[i % 2])
        for i in range(n)
    ]


# ---------------------------------------------------------------- the prosecutor-judge example (closed forms)


def test_prosecutor_closed_forms():
    g = prosecutor()
    pi, v_star = solve_lp(g)
    assert v_star == pytest.approx(0.6, abs=1e-6)
    assert value(g, full_disclosure(g)) == pytest.approx(0.3, abs=1e-6)
    assert value(g, no_disclosure(g)) == pytest.approx(0.0, abs=1e-6)
    assert concavify_binary(g).value == pytest.approx(0.6, abs=1e-6)
    # the optimal scheme: always 'convict' when guilty, 'convict' with probability 3/7 when innocent
    assert pi[1, 1] == pytest.approx(1.0, abs=1e-8)
    assert pi[0, 1] == pytest.approx(3 / 7, abs=1e-8)
    assert value(g, pi) == pytest.approx(0.6, abs=1e-9)
    assert indifference_beliefs(g).tolist() == [0.5]


@pytest.mark.parametrize("p", [0.1, 0.3, 0.45, 0.5, 0.8])
def test_prosecutor_value_is_min_of_one_and_twice_the_prior(p):
    """V* = min(1, 2 p): pool the guilty with just enough innocents to keep P(guilty | convict) = 1/2."""
    g = prosecutor(p)
    assert solve_lp(g)[1] == pytest.approx(min(1.0, 2 * p), abs=1e-8)
    assert concavify_binary(g).value == pytest.approx(min(1.0, 2 * p), abs=1e-9)


# ---------------------------------------------------------------- LP = concave envelope (two states)


@pytest.mark.parametrize("n_actions", [2, 3, 4])
def test_lp_equals_concave_envelope_on_random_binary_games(n_actions):
    for g in random_games(60, n_states=(2,), n_actions=(n_actions,), seed=n_actions):
        env = concavify_binary(g, grid=1e-3)
        assert solve_lp(g)[1] == pytest.approx(env.value, abs=1e-6), g


def test_plain_grid_misses_the_kink_but_indifference_beliefs_do_not():
    # the judge convicts iff P(guilty) >= 0.5004: not on the 1e-3 grid
    g = Game([0.7, 0.3], [[0.5004, 0.0], [0.0, 0.4996]], [[0.0, 0.0], [1.0, 1.0]])
    exact = 0.3 / 0.5004
    plain = np.linspace(0.0, 1.0, 1001)
    hx, hy = upper_hull(plain, v_hat_on(g, np.stack([1 - plain, plain], 1)))
    assert exact - np.interp(0.3, hx, hy) > 1e-4  # the plain grid is off by O(grid)
    assert concavify_binary(g, grid=1e-3).value == pytest.approx(exact, abs=1e-9)
    assert solve_lp(g)[1] == pytest.approx(exact, abs=1e-8)


def test_envelope_is_concave_and_above_v_hat():
    for g in random_games(20, n_states=(2,), n_actions=(3,), seed=7):
        env = concavify_binary(g, grid=200)
        cav = env.cav(env.beliefs)
        assert np.all(cav >= env.v_hat - 1e-12)
        slopes = np.diff(env.hull_y) / np.diff(env.hull_x)
        assert np.all(np.diff(slopes) <= 1e-9)


# ---------------------------------------------------------------- the LP: obedience, optimality, receivers


@pytest.mark.parametrize("receiver", [BayesianReceiver(), PartialUpdater(0.6)], ids=repr)
def test_lp_scheme_is_obedient_and_its_value_is_the_lp_value(receiver):
    for g in random_games(40, seed=1):
        pi, v_star = solve_lp(g, receiver)
        assert obedience_gap(g, pi, receiver) <= 1e-9
        assert value(g, pi, receiver) == pytest.approx(v_star, abs=1e-8)
        assert np.allclose(pi.sum(1), 1.0) and pi.min() >= 0


@pytest.mark.parametrize("receiver", [BayesianReceiver(), PartialUpdater(0.6)], ids=repr)
def test_lp_bounds_every_scheme_and_the_baselines(receiver):
    rng = np.random.default_rng(3)
    for g in random_games(30, seed=2):
        v_star = solve_lp(g, receiver)[1]
        base = baseline_values(g, receiver, rng, n_random=8)
        assert base["no disclosure"] <= v_star + 1e-9 and base["full disclosure"] <= v_star + 1e-9
        for n_signals in (1, 2, g.n_actions + 2):
            pi = random_scheme(g, rng, n_signals)
            assert value(g, pi, receiver) <= v_star + 1e-9


def test_partial_updater_interpolates_between_no_information_and_bayes():
    for g in random_games(20, seed=4):
        v0 = value(g, no_disclosure(g))
        assert solve_lp(g, PartialUpdater(1.0))[1] == pytest.approx(solve_lp(g)[1], abs=1e-9)
        assert solve_lp(g, PartialUpdater(0.0))[1] == pytest.approx(v0, abs=1e-9)
    # a state-independent sender cares only about the receiver's belief set, which shrinks with gamma
    rng = np.random.default_rng(5)
    for _ in range(20):
        g = random_game(rng, 3, 3, "state-independent")
        vals = [solve_lp(g, PartialUpdater(gm))[1] for gm in (0.2, 0.5, 0.8, 1.0)]
        assert all(b >= a - 1e-9 for a, b in zip(vals, vals[1:]))


def test_uniqueness_check():
    assert lp_optimum_is_unique(prosecutor())
    # a sender indifferent between the actions: every scheme is optimal
    flat = Game([0.5, 0.5], [[1, 0], [0, 1]], [[1, 1], [1, 1]])
    assert optimal_face_width(flat) > 0.1 and not lp_optimum_is_unique(flat)


# ---------------------------------------------------------------- value: oracle, invariances, posteriors


@pytest.mark.parametrize("receiver", RECEIVERS, ids=repr)
def test_batched_value_matches_the_signal_by_signal_oracle(receiver):
    rng = np.random.default_rng(6)
    for g in random_games(30, seed=6):
        for n_signals in (1, 3, 5):
            pi = random_scheme(g, rng, n_signals)
            assert value(g, pi, receiver) == pytest.approx(naive_value(g, pi, receiver), abs=1e-12)
        pi, _ = solve_lp(g)  # on the receiver's thresholds: the ties matter here
        assert value(g, pi, receiver) == pytest.approx(naive_value(g, pi, receiver), abs=1e-9)


@pytest.mark.parametrize("receiver", RECEIVERS, ids=repr)
def test_value_is_invariant_to_relabelling_and_splitting_signals(receiver):
    rng = np.random.default_rng(7)
    for g in random_games(20, seed=7):
        for pi in (random_scheme(g, rng, 4), solve_lp(g)[0]):
            v = value(g, pi, receiver)
            perm = rng.permutation(pi.shape[1])
            assert value(g, pi[:, perm], receiver) == pytest.approx(v, abs=1e-12)
            # split signal 0 into two copies with the same posterior: nothing changes
            split = np.hstack([0.3 * pi[:, :1], 0.7 * pi[:, :1], pi[:, 1:]])
            assert value(g, split, receiver) == pytest.approx(v, abs=1e-9)
            if receiver.best_responds:  # merging by induced action keeps the value
                assert value(g, straightforward(g, pi, receiver), receiver) == pytest.approx(v, abs=1e-9)
            assert strategy_tv(g, pi, pi[:, perm], receiver) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("receiver", [BayesianReceiver(), PartialUpdater(0.3)], ids=repr)
def test_posteriors_sum_to_one_and_average_to_the_prior(receiver):
    rng = np.random.default_rng(8)
    for g in random_games(20, seed=8):
        pi = random_scheme(g, rng, 4)
        post = receiver.posterior(g, pi)
        assert np.allclose(post.sum(1), 1.0) and post.min() >= 0
        mass, beliefs = posterior_distribution(g, pi, receiver)
        assert mass @ beliefs == pytest.approx(g.prior, abs=1e-12)  # Bayes plausibility (also for the mix)
    g = prosecutor()
    never = np.array([[1.0, 0.0], [1.0, 0.0]])  # signal 1 is never sent: its belief is the prior
    assert BayesianReceiver().posterior(g, never)[1].tolist() == g.prior.tolist()


def test_quantal_receiver_limits():
    g = prosecutor()
    pi = np.array([[0.7, 0.3], [0.2, 0.8]])
    assert value(g, pi, QuantalReceiver(0.0)) == pytest.approx(0.5)  # uniform over two actions
    assert value(g, pi, QuantalReceiver(1e6)) == pytest.approx(value(g, pi), abs=1e-9)
    probs = QuantalReceiver(3.0).action_probs(g, pi)
    assert np.allclose(probs.sum(1), 1.0) and np.all(probs > 0)


def test_normalized_gain():
    assert normalized_gain(0.5, 0.0, 0.6) == pytest.approx(5 / 6)
    assert math.isnan(normalized_gain(0.5, 0.2, 0.2))
    assert math.isnan(normalized_gain(0.5, 0.2, 0.21, min_gap=0.05))


def test_padded_batch_values_match_value():
    rng = np.random.default_rng(9)
    games = [prosecutor(), *random_games(8, seed=9)]
    envs = [PersuasionEnv(g, r) for g, r in zip(games, RECEIVERS * 3)]
    batch = _Padded(envs)
    b, om, sm = batch.shape
    pis = np.zeros((b, 2, om, sm))
    for i, e in enumerate(envs):
        for k in range(2):
            pis[i, k, : e.game.n_states, : e.n_signals] = random_scheme(e.game, rng)
            pis[i, k, e.game.n_states :, 0] = 1.0  # padded states: any distribution
    got = batch.values(pis)
    for i, e in enumerate(envs):
        for k in range(2):
            pi = pis[i, k, : e.game.n_states, : e.n_signals]
            assert got[i, k] == pytest.approx(value(e.game, pi, e.receiver), abs=1e-12)


# ---------------------------------------------------------------- the offline environment


def test_env_episode_rewards_average_to_the_value():
    g = prosecutor()
    env = PersuasionEnv(g, seed=0)
    assert env.observation_space.n == 2 and env.action_space.n == 3
    pi = np.array([[4 / 7, 3 / 7, 0.0], [0.0, 1.0, 0.0]])
    env.commit(pi)
    rng = np.random.default_rng(0)
    rewards = []
    for _ in range(4000):
        state, _ = env.reset()
        assert env.observation_space.contains(state)
        signal = int(rng.choice(3, p=pi[state]))
        _, reward, terminated, truncated, info = env.step(signal)
        assert terminated and not truncated
        rewards.append(reward)
    assert np.mean(rewards) == pytest.approx(0.6, abs=0.03)
    assert env.rollout(pi, 20_000, rng=1).mean() == pytest.approx(0.6, abs=0.015)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_env_rollout_matches_the_value_for_a_quantal_receiver():
    g = random_game(0, 3, 3)
    env = PersuasionEnv(g, QuantalReceiver(4.0))
    pi = random_scheme(g, 1)
    assert env.rollout(pi, 50_000, rng=2).mean() == pytest.approx(
        value(g, pi, env.receiver) - env.v0, abs=0.01
    )


# ---------------------------------------------------------------- training


def test_commitment_mode_reaches_the_prosecutor_optimum():
    out = train_sender(PersuasionEnv(prosecutor()), steps=1500, seed=0)
    assert normalized_gain(out.value, out.v0, 0.6) >= 0.9
    assert straightforward(prosecutor(), out.scheme)[0, 1] <= 3 / 7 + 1e-9  # from the feasible side
    assert out.steps[0] == 0 and out.steps[-1] == 1500 and len(out.values) == len(out.steps)


def test_commitment_mode_learns_with_sampled_scores_reinforce_and_an_mlp():
    env = PersuasionEnv(prosecutor())
    sampled = train_sender(env, steps=1000, scoring="sampled", episodes=64, seed=1)
    assert sampled.value >= 0.45  # full disclosure gives 0.3, the optimum 0.6
    assert train_sender(env, steps=1000, algo="reinforce", seed=2).value >= 0.45
    assert train_sender(env, policy="mlp", steps=1000, seed=3).value >= 0.45


def test_per_episode_mode_oversends_and_collapses_from_full_disclosure():
    """The negative control: decoding with the current scheme, it pushes pi(convict | innocent) past 3/7."""
    warm = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    out = train_senders([PersuasionEnv(prosecutor())], mode="per_episode", steps=1500, init=[warm], seed=0)[0]
    assert out.scheme[0, 1] > 3 / 7 and out.value == 0.0
    assert max(out.values) > 0.3  # it did persuade along the way


def test_training_is_deterministic_and_batched_games_keep_their_shapes():
    envs = [PersuasionEnv(prosecutor()), PersuasionEnv(random_game(1, 5, 3), PartialUpdater(0.6))]
    a = train_senders(envs, steps=60, seed=4)
    b = train_senders(envs, steps=60, seed=4)
    assert [x.value for x in a] == [x.value for x in b]
    assert a[0].scheme.shape == (2, 3) and a[1].scheme.shape == (5, 4)
    assert np.allclose(a[1].scheme.sum(1), 1.0)


# ---------------------------------------------------------------- the LLM environment


def test_parse_belief_formats():
    states = ("innocent", "guilty")
    assert parse_belief("BELIEF: guilty=0.25, innocent=0.75", states).tolist() == [0.75, 0.25]
    assert parse_belief("hmm\nbelief: innocent: 30%, guilty: 70%", states).tolist() == pytest.approx(
        [0.3, 0.7]
    )
    assert parse_belief("Belief = 1, 3", states).tolist() == [0.25, 0.75]
    assert parse_belief("BELIEF: 60, 40", states).tolist() == pytest.approx([0.6, 0.4])
    assert parse_belief("BELIEF: 0.2\nBELIEF: innocent=0.9, guilty=0.1", states).tolist() == [0.9, 0.1]
    assert parse_belief("I think guilty", states) is None
    assert parse_belief("BELIEF: 0.5", states) is None


def _scripted_sender(messages):
    system = messages[0].content
    return "The evidence is damning." if "truth: 'guilty'" in system else "Consider the circumstances."


def test_llm_env_scripted_episode_and_privacy():
    g = prosecutor()
    receiver = ScriptedBackend(
        lambda m: "BELIEF: innocent=0.4, guilty=0.6" if "damning" in m[-1].content else "BELIEF: 0.9, 0.1"
    )
    sender = ScriptedBackend(_scripted_sender)
    env = LLMPersuasionEnv(g, sender, receiver, topic="A court case.", turns=2, seed=0)
    results = env.run_episodes(30, seed=0)
    for r in results:
        guilty = r["state"] == "guilty"
        assert r["parsed"] and len(r["transcript"]) == 2 and len(r["beliefs"]) == 2
        assert r["receiver_action"] == ("convict" if guilty else "acquit")
        assert r["reward"] == (1.0 if guilty else 0.0) and r["gain"] == r["reward"]
    for call in receiver.calls:  # the receiver is never told the state
        assert all("You know the truth" not in m.content for m in call.messages)
    assert "truth: '" in sender.calls[0].messages[0].content


def test_llm_env_unparsed_reply_keeps_the_prior_and_a_given_message_is_used():
    g = prosecutor()
    receiver = ScriptedBackend(["I am not sure."])
    env = LLMPersuasionEnv(g, ScriptedBackend(["unused"]), receiver, seed=1)
    env.reset()
    _, reward, done, _, info = env.step("Look at the alibi.")
    assert done and not info["parsed"] and info["belief"].tolist() == g.prior.tolist()
    assert info["receiver_action"] == "acquit" and reward == 0.0
    assert "Look at the alibi." in receiver.calls[0].messages[-1].content


def test_llm_env_over_an_openai_compatible_server_on_loopback():
    with serve_stub() as (url, state):
        state.replies = [
            ok_reply("Think about the motive."),
            ok_reply("Fine.\nBELIEF: innocent=20%, guilty=80%"),
        ]
        sender = OpenAICompatibleBackend(url, "stub-sender", backoff_s=0)
        receiver = OpenAICompatibleBackend(url, "stub-receiver", backoff_s=0)
        env = LLMPersuasionEnv(prosecutor(), sender, receiver, seed=3)
        env.reset()
        _, reward, _, _, info = env.step()
        assert info["belief"].tolist() == pytest.approx([0.2, 0.8]) and info["receiver_action"] == "convict"
        assert reward == 1.0
        bodies = [r["body"] for r in state.requests]
        assert [b["model"] for b in bodies] == ["stub-sender", "stub-receiver"]
        assert "You know the truth" in bodies[0]["messages"][0]["content"]
        receiver_text = " ".join(m["content"] for m in bodies[1]["messages"])
        assert "You know the truth" not in receiver_text and "Think about the motive." in receiver_text


# ---------------------------------------------------------------- the reproduction: games and the claim rule


def test_draw_games_cycles_the_grid_and_respects_the_gap():
    cfg = BPConfig(n_games=12)
    games, kinds, _ = draw_games(cfg, np.random.default_rng(0))
    shapes = [(g.n_states, g.n_actions) for g in games]
    assert shapes == [(o, a) for o in (2, 3, 5) for a in (2, 3) for _ in range(2)]
    for g, kind in zip(games, kinds):
        assert solve_lp(g)[1] - value(g, no_disclosure(g)) >= cfg.min_gap
        assert (kind == "state-independent") == bool(np.all(g.v_sender == g.v_sender[:, :1]))
    again, _, _ = draw_games(cfg, np.random.default_rng(0))
    assert all(np.array_equal(a.u_receiver, b.u_receiver) for a, b in zip(games, again))


def rows(rl, full, n=5, margin=0.5):
    return [
        {"rl_G": rl + 0.004 * (i - 2), "full_G": full + 0.01 * (i - 2), "rl_learned_margin": margin}
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("rl", "full", "outcome"),
    [
        (0.97, 0.55, Outcome.SUPPORTED),
        (0.85, 0.55, Outcome.INCONCLUSIVE),  # the mean misses 0.9
        (0.6, 0.55, Outcome.NOT_SUPPORTED),  # below 0.7
        (0.95, 0.95, Outcome.INCONCLUSIVE),  # sabotage: no better than full disclosure
    ],
)
def test_claim_rule(rl, full, outcome):
    assert rl_reaches_optimum(rows(rl, full)).outcome is outcome


def test_claim_rule_wide_interval_is_inconclusive_and_a_failed_precondition_is_not_reproduced():
    wide = [{"rl_G": v, "full_G": 0.5, "rl_learned_margin": 0.5} for v in (0.99, 0.99, 0.99, 0.99, 0.6)]
    assert rl_reaches_optimum(wide).outcome is Outcome.INCONCLUSIVE  # mean 0.91, lower bound < 0.8
    claim = EXPERIMENT.claims[0]
    bad = rows(0.97, 0.55)
    bad[2]["rl_learned_margin"] = -0.1
    assert claim.judge(bad).outcome is Outcome.NOT_REPRODUCED
    assert claim.judge(rows(0.97, 0.55)).outcome is Outcome.SUPPORTED
