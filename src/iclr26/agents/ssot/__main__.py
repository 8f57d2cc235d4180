"""Endpoint path: ``python -m iclr26.agents.ssot --llm http://host:port/v1@model [--methods direct,ssot]``.

Runs the PIF task suite through the lab's LLM backend (``--llm`` as accepted by iclr26.lab.llm.make_backend;
``--cache DIR`` wraps it in the on-disk cache, keyed by messages, parameters and the per-sample seed) and
prints one JSON object: per task and method the counts, JSD, invalid rate and the PRNG band.
"""

from __future__ import annotations

import argparse
import json
import sys

from iclr26.agents.ssot.pif import METHODS, prng_band, run_pif, task_suite
from iclr26.lab.llm import make_backend


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m iclr26.agents.ssot", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="'scripted', 'http://host:port/v1@model' or 'hf:/dir'")
    ap.add_argument("--methods", default="direct,ssot")
    ap.add_argument("--tasks", default="", help="comma-separated task names (default: all eight)")
    ap.add_argument("--n-samples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--max-tokens", type=int, default=1024)
    ap.add_argument("--cache", default=None)
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    for m in methods:
        if m not in METHODS:
            ap.error(f"--methods: {m!r} is not one of {', '.join(METHODS)}")
    tasks = [t for t in task_suite() if not args.tasks or t.name in args.tasks.split(",")]
    if not tasks:
        ap.error(f"--tasks {args.tasks!r} names no task of {', '.join(t.name for t in task_suite())}")
    backend = make_backend(args.llm, cache_dir=args.cache)
    out = {"llm": backend.identity, "n_samples": args.n_samples, "tasks": {}}
    for t in tasks:
        row = {"prng_band": prng_band(t.probs, args.n_samples, seed=args.seed)}
        for m in methods:
            r = run_pif(backend, t, args.n_samples, m, args.seed, temperature=args.temperature,
                        max_tokens=args.max_tokens)  # fmt: skip
            row[m] = {"counts": r.counts.tolist(), "jsd": r.jsd, "jsd_with_invalid": r.jsd_with_invalid,
                      "invalid_rate": r.invalid_rate}  # fmt: skip
        out["tasks"][t.name] = row
    json.dump(out, sys.stdout, indent=1)
    print()
    return out


if __name__ == "__main__":
    main()
