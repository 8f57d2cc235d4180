"""Environment steps per second: N seeds trained in lockstep as one vmapped ensemble vs one seed at a time (not a test).

The learner is iS-DQN (K = 4, [128, 128] MLP, one update per environment step, batch 32) on gymnasium's
CartPole-v1, the setting of the is-ql reproduction. For each N, ours trains N seeds together (one agent with
``n_members = N`` on :class:`iclr26.lab.rl.Ensemble`, N environment copies in a gymnasium vector env); the
alternative is what a user does without it: N separate runs one after another (single-member agents, seeds
0..N-1), each for the same number of steps. PyTorch's own ensembling recipe (``torch.func.stack_module_state`` +
``functional_call`` + ``vmap``) is not a separate contender: it is what ``Ensemble`` is built on. The two sides
draw different random streams (the ensemble shares one replay sampler), so there is no output to compare; the
unit tests (tests/lab/test_rl.py) check that one Adam over the ensemble equals independent Adams.

Wall time of whole training runs, one thread, interleaved (each repeat runs the N separate runs and the ensemble
run in turn), median; ratio = the separate runs' time / the ensemble's (> 1: the ensemble is faster).

    python benchmarks/rl_ensemble_throughput.py [--steps 1500] [--members 4 10] [--repeats 3] [--threads 1]
        [--small] [--json PATH]
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import torch
from _bench import interleaved, median, row, write_result

from iclr26.decision.is_ql import ISDQN
from iclr26.decision.is_ql.agents import train
from iclr26.harness.progress import reporting


def run(n_members: int, steps: int, seed: int) -> None:
    env = gym.make("CartPole-v1")
    agent = ISDQN(
        env.observation_space, env.action_space, K=4, target_update=500, n_members=n_members, seed=seed
    )
    train(agent, "CartPole-v1", steps, seed=seed, warmup=200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--members", type=int, nargs="+", default=[4, 10])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--small", action="store_true", help="make bench setting: 300 steps, N = 4, 3 repeats")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.small:
        args.steps, args.members, args.repeats = 300, [4], 3
    torch.set_num_threads(args.threads)
    rows = []
    print(f"iS-DQN K=4 on CartPole-v1, {args.steps} steps per seed (200 warm-up), {args.threads} thread(s)")
    print(f"{'seeds':>5} {'one at a time (steps/s)':>24} {'ensemble (steps/s)':>19} {'ratio':>6}")
    with reporting(None):
        run(1, 210, seed=0)  # warm-up: imports, first allocations (the timed rounds then alternate the order)
        for n in args.members:
            run(n, 210, seed=0)
            t = interleaved(
                {
                    "separate": lambda n=n: [run(1, args.steps, seed=s) for s in range(n)],
                    "ensemble": lambda n=n: run(n, args.steps, seed=0),
                },
                args.repeats,
                warmup=0,
            )
            sep, ens = median(t["separate"]), median(t["ensemble"])
            total = n * args.steps
            print(f"{n:>5} {total / sep:>24.0f} {total / ens:>19.0f} {sep / ens:>6.2f}")
            rows.append(
                row(
                    "is-ql",
                    f"iS-DQN on CartPole-v1, {n} seeds x {args.steps} steps (training throughput)",
                    f"one {n}-member vmapped ensemble (lab.rl.Ensemble)",
                    f"{n} separate single-seed runs one after another",
                    sep / ens,
                )
            )
    write_result(
        args.json,
        {
            "script": "rl_ensemble_throughput.py",
            "title": "RL: a vmapped ensemble of seeds vs separate runs",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [
                "RL ensemble: the alternative is N separate runs (torch.func's ensembling recipe is what "
                "lab.rl.Ensemble is built on); the runs draw different random streams, so no outputs are compared."
            ],
        },
    )


if __name__ == "__main__":
    main()
