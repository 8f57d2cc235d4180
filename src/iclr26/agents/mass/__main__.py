"""Endpoint path: ``python -m iclr26.agents.mass --llm http://host:port/v1@model [--budget 2000 --seed 0]``.

Runs the experiment's ``run`` with that backend (``--llm`` as accepted by iclr26.lab.llm.make_backend) on
generated arithmetic multiple-choice items instead of the simulated world, and prints one JSON object: every
method's test accuracy, the workflows chosen and MASS's stage scores. The sizes default to a small run
(train 30, val 40, test 100, budget 2,000 workflow-item evaluations); no verdict is computed from it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from iclr26.agents.mass.experiment import EXPERIMENT, MASSConfig, run


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m iclr26.agents.mass", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="'http://host:port/v1@model', 'hf:/dir' or 'scripted'")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--n-train", type=int, default=30)
    ap.add_argument("--n-val", type=int, default=40)
    ap.add_argument("--n-test", type=int, default=100)
    ap.add_argument("--n-instructions", type=int, default=4)
    ap.add_argument("--n-demo-sets", type=int, default=3)
    ap.add_argument("--n-topologies", type=int, default=4)
    args = ap.parse_args(argv)
    if args.budget < 1 or min(args.n_train, args.n_val, args.n_test) < 1:
        ap.error("--budget, --n-train, --n-val and --n-test must be >= 1")
    cfg = dataclasses.replace(
        EXPERIMENT.config("quick"),
        llm=args.llm,
        budget=args.budget,
        n_train=args.n_train,
        n_val=args.n_val,
        n_test=args.n_test,
        n_instructions=args.n_instructions,
        n_demo_sets=args.n_demo_sets,
        n_topologies=args.n_topologies,
        minibatch=min(MASSConfig.minibatch, args.n_val),
    )
    m = run(cfg, args.seed, "cpu")
    out = {"llm": m.artifacts["backend"], "config": dataclasses.asdict(cfg), "metrics": m.values,
           "workflows": m.artifacts["workflows"], "influence": m.artifacts["influence"]}  # fmt: skip
    json.dump(out, sys.stdout, indent=1)
    print()
    return out


if __name__ == "__main__":
    main()
