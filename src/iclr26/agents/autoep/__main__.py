"""Endpoint path: ``python -m iclr26.agents.autoep --llm http://host:port/v1@model [--n 30 --generations 60]``.

Runs the GA on `--instances` random TSP instances under the LLM chain (with ELA features), the same chain
without them (:class:`NoELAChainController`) and fixed mid-range (pc, pm), with K = `--K`, and prints one JSON
object: each controller's gap % per instance, the chain's parse failures and its last replies. No verdict is
computed from it (the endpoint check of the brief needs the full budget).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from iclr26.agents.autoep.controllers import FixedController, LLMChainController, NoELAChainController
from iclr26.agents.autoep.ga import GATSP, run_controlled
from iclr26.agents.autoep.tsp import distance_matrix, random_instance, reference_length


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m iclr26.agents.autoep", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="'http://host:port/v1@model', 'hf:/dir' or 'scripted'")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--generations", type=int, default=60)
    ap.add_argument("--pop-size", type=int, default=40)
    ap.add_argument("--K", type=int, default=10)
    args = ap.parse_args(argv)
    if min(args.n - 2, args.instances, args.generations, args.K, args.pop_size - 1) < 1 or args.seed < 0:
        ap.error(
            "--n >= 3, --instances, --generations, --K >= 1, --pop-size >= 2 and --seed >= 0 are required"
        )
    from iclr26.lab.llm import make_backend

    backend = make_backend(args.llm)
    rng = np.random.default_rng(args.seed)
    out: dict = {
        "llm": getattr(backend, "identity", args.llm),
        "gaps": {},
        "failures": {},
        "last_replies": {},
    }
    controllers = {
        "llm_chain": LLMChainController(backend, backend, backend),
        "llm_chain_noela": NoELAChainController(backend, backend, backend),
        "fixed_mid": FixedController({"pc": 0.6, "pm": 0.425}),
    }
    for i in range(args.instances):
        c = random_instance(args.n, rng)
        ref = reference_length(distance_matrix(c), seed=args.seed)
        for name, ctl in controllers.items():
            r = run_controlled(
                GATSP(c, args.pop_size, seed=args.seed * 100 + i), ctl, args.generations, K=args.K
            )
            out["gaps"].setdefault(name, []).append(100 * (r.best[-1] / ref - 1))
    for name in ("llm_chain", "llm_chain_noela"):
        ctl = controllers[name]
        out["failures"][name] = ctl.failures
        out["last_replies"][name] = ctl.log[-1] if ctl.log else None
    json.dump(out, sys.stdout, indent=1, default=str)
    print()
    return out


if __name__ == "__main__":
    main()
