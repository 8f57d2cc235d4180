"""Endpoint path: ``python -m iclr26.agents.vcworld --llm http://host:port/v1@model [--n-triplets 40]``.

Builds a synthetic world (smoke size by default), retrieves the evidence of `n-triplets` sampled test triplets
per task (DE on any test triplet, DIR on DE ones), asks the LLM through :class:`LLMReasoner` (``--llm`` as
accepted by iclr26.lab.llm.make_backend; ``--cache DIR`` wraps it in the on-disk cache) and prints one JSON
object: per task the LLM's accuracy and invalid rate next to GraphReasoner's on the same triplets.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from iclr26.agents.vcworld.kg import corrupted_kg
from iclr26.agents.vcworld.reason import GraphReasoner, LLMReasoner
from iclr26.agents.vcworld.retrieve import Retriever, label_table
from iclr26.agents.vcworld.sim import VirtualCell
from iclr26.lab.llm import make_backend


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m iclr26.agents.vcworld", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="'scripted', 'http://host:port/v1@model' or 'hf:/dir'")
    ap.add_argument("--n-triplets", type=int, default=40)
    ap.add_argument("--n-genes", type=int, default=100)
    ap.add_argument("--n-drugs", type=int, default=30)
    ap.add_argument("--n-cell-lines", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=768)
    ap.add_argument("--cache", default=None)
    args = ap.parse_args(argv)
    if args.n_triplets < 1:
        ap.error(f"--n-triplets must be >= 1, got {args.n_triplets}")
    vc = VirtualCell(args.n_genes, args.n_drugs, args.n_cell_lines, seed=args.seed)
    train, test = vc.split_drugs(0.3, args.seed)
    retriever = Retriever(corrupted_kg(vc, seed=args.seed), label_table(vc, train))
    llm = LLMReasoner(make_backend(args.llm, cache_dir=args.cache), max_tokens=args.max_tokens)
    graph = GraphReasoner()
    rng = np.random.default_rng(args.seed)
    out = {"llm": llm.backend.identity, "tasks": {}}
    for task in ("de", "dir"):
        cells, drugs, genes = np.nonzero(vc.de[:, test] >= (1 if task == "dir" else 0))
        pick = rng.choice(len(cells), min(args.n_triplets, len(cells)), replace=False)
        hits_llm = hits_graph = invalid = 0
        for i in pick:
            c, p, g = int(cells[i]), int(test[drugs[i]]), int(genes[i])
            ev = retriever.retrieve(c, p, g)
            truth = vc.label(c, p, g, task)
            pred = llm.predict(ev, task)
            invalid += pred is None
            hits_llm += pred is not None and pred.label == truth
            hits_graph += graph.predict(ev, task).label == truth
        n = len(pick)
        out["tasks"][task] = {"n": n, "llm_accuracy": hits_llm / n, "llm_invalid_rate": invalid / n,
                              "graph_accuracy": hits_graph / n}  # fmt: skip
    json.dump(out, sys.stdout, indent=1)
    print()
    return out


if __name__ == "__main__":
    main()
