"""Environment steps per second: one seed at a time vs N seeds trained in lockstep as a vmapped ensemble (not a test).

The learner is iS-DQN (K = 4, [128, 128] MLP, one update per environment step, batch 32) on gymnasium's
CartPole-v1, the setting of the is-ql reproduction. For each N the script trains N seeds either one after another
(N separate single-member agents) or together (one agent with ``n_members = N`` on ``lab.rl.Ensemble``) for the
same number of steps per seed, and reports total environment steps per second of wall time; both run in the same
process with the same thread count, so the ratio is what to read.

    python benchmarks/rl_ensemble_throughput.py [--steps 1500] [--members 1 4 10] [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import torch

from iclr26.decision.is_ql import ISDQN
from iclr26.decision.is_ql.agents import train
from iclr26.harness.progress import reporting


def run(n_members: int, steps: int, seed: int) -> float:
    env = gym.make("CartPole-v1")
    agent = ISDQN(
        env.observation_space, env.action_space, K=4, target_update=500, n_members=n_members, seed=seed
    )
    t0 = time.perf_counter()
    train(agent, "CartPole-v1", steps, seed=seed, warmup=200)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--members", type=int, nargs="+", default=[1, 4, 10])
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    with reporting(None):
        single = run(1, args.steps, seed=0)
        print(f"iS-DQN K=4 on CartPole-v1, {args.steps} steps per seed, {args.threads} threads")
        print(f"{'seeds':>5} {'one at a time (steps/s)':>24} {'ensemble (steps/s)':>19} {'ratio':>6}")
        for n in args.members:
            sequential = single * n  # N independent runs cost N single runs
            together = run(n, args.steps, seed=0)
            rate_seq, rate_ens = n * args.steps / sequential, n * args.steps / together
            print(f"{n:>5} {rate_seq:>24.0f} {rate_ens:>19.0f} {rate_ens / rate_seq:>6.2f}")


if __name__ == "__main__":
    main()
