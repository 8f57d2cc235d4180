"""Endpoint path: ``python -m iclr26.agents.c_evolve --llm http://host:port/v1@model [--budget 12 --seed 0]``.

Runs C-Evolve and the individual-fitness baseline on prompts with that backend (``--llm`` as accepted by
iclr26.lab.llm.make_backend): generated arithmetic questions split into feedback / metric / test sets, the
genome an instruction prompt, outputs the integer parsed from each reply, mutation by
:class:`LLMReflectiveMutator` with feedback on b = 3 feedback examples, majority-vote consensus. Prints one JSON
object (test accuracy of C-Evolve's group and of the baselines); no verdict is computed from it (``iclr26
reproduce c-evolve --budget full --llm ...`` runs the same path over the harness's seeds).
"""

from __future__ import annotations

import argparse
import json
import sys

from iclr26.agents.c_evolve.endpoint import SEED_PROMPT, arithmetic, parse_int, run_endpoint

__all__ = ["SEED_PROMPT", "arithmetic", "main", "parse_int"]


def main(argv: list[str] | None = None) -> dict:
    from iclr26.lab.llm import make_backend

    ap = argparse.ArgumentParser(prog="python -m iclr26.agents.c_evolve", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="'http://host:port/v1@model', 'hf:/dir' or 'scripted'")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=12, help="child evaluations per run")
    ap.add_argument("--n-feedback", type=int, default=6)
    ap.add_argument("--n-metric", type=int, default=10)
    ap.add_argument("--n-test", type=int, default=20)
    args = ap.parse_args(argv)
    backend = make_backend(args.llm)
    r = run_endpoint(backend, args.seed, args.budget, args.n_feedback, args.n_metric, args.n_test)
    out = {"backend": backend.identity, "metrics": r["metrics"], "group": r["group"]}
    json.dump(out, sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")
    return out


if __name__ == "__main__":
    main()
