"""Endpoint path: ``python -m iclr26.agents.c_evolve --llm http://host:port/v1@model [--budget 12 --seed 0]``.

Runs C-Evolve and the individual-fitness baseline on prompts with that backend (``--llm`` as accepted by
iclr26.lab.llm.make_backend): generated arithmetic questions split into feedback / metric / test sets, the
genome an instruction prompt, outputs the integer parsed from each reply, mutation by
:class:`LLMReflectiveMutator` with feedback on b = 3 feedback examples, majority-vote consensus. Prints one JSON
object (test accuracy of C-Evolve's group and of the baselines); no verdict is computed from it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import numpy as np

from iclr26.agents.c_evolve.cevolve import CEvolve, majority_vote
from iclr26.agents.c_evolve.llm import LLMReflectiveMutator

SEED_PROMPT = "Answer the arithmetic question. End with the final integer."


def arithmetic(n: int, seed: int) -> list[tuple[str, int]]:
    """`n` questions ``a + b * c`` with small integers and their answers."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a, b, c = (int(v) for v in rng.integers(1, 20, size=3))
        out.append((f"What is {a} + {b} * {c}?", a + b * c))
    return out


def parse_int(text: str) -> int | None:
    nums = re.findall(r"-?\d+", text)
    return int(nums[-1]) if nums else None


def main(argv: list[str] | None = None) -> dict:
    from iclr26.lab.llm import Message, make_backend

    ap = argparse.ArgumentParser(prog="python -m iclr26.agents.c_evolve", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="'http://host:port/v1@model', 'hf:/dir' or 'scripted'")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=12, help="child evaluations per run")
    ap.add_argument("--n-feedback", type=int, default=6)
    ap.add_argument("--n-metric", type=int, default=10)
    ap.add_argument("--n-test", type=int, default=20)
    args = ap.parse_args(argv)
    backend = make_backend(args.llm)
    items = arithmetic(args.n_feedback + args.n_metric + args.n_test, args.seed)
    fb, met = items[: args.n_feedback], items[args.n_feedback : args.n_feedback + args.n_metric]
    test = items[args.n_feedback + args.n_metric :]

    def answers(prompt: str, data: list[tuple[str, int]]) -> dict[int, int | None]:
        return {i: parse_int(backend.chat([Message("system", str(prompt)), Message("user", q)]).text)
                for i, (q, _) in enumerate(data)}  # fmt: skip

    def feedback(prompt: str, rng: np.random.Generator, n: int) -> str:
        picks = rng.choice(len(fb), size=min(n, len(fb)), replace=False)
        got = answers(prompt, [fb[int(j)] for j in picks])
        return "\n".join(
            f"- {fb[int(j)][0]} -> {got[k]!r} (expected {fb[int(j)][1]})" for k, j in enumerate(picks)
        )

    def metric(out: dict) -> float:
        return float(np.mean([out[i] == met[i][1] for i in range(len(met))]))

    def test_acc(prompts: list[str]) -> float:
        outs = [answers(p, test) for p in prompts]
        votes = [majority_vote([o[i] for o in outs]) for i in range(len(test))]
        return float(np.mean([v == y for v, (_, y) in zip(votes, test)]))

    mut = LLMReflectiveMutator(backend, feedback)
    res = {}
    for name, frac in (("cevolve", 0.5), ("individual", 1.0)):
        r = CEvolve(lambda p: answers(p, met), mut, metric, warmup_frac=frac, seed=args.seed).run(
            args.budget, init=SEED_PROMPT
        )
        res[name] = r
    metrics = {
        "test_cevolve": test_acc([m.genome for m in res["cevolve"].best_group]),
        "test_island_best": test_acc([m.genome for m in res["individual"].best_of_each_island()]),
        "test_single": test_acc([res["individual"].best_single().genome]),
        "evals_cevolve": float(res["cevolve"].evaluations),
    }
    out = {"backend": backend.identity, "metrics": metrics,
           "group": [m.genome for m in res["cevolve"].best_group]}  # fmt: skip
    json.dump(out, sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")
    return out


if __name__ == "__main__":
    main()
