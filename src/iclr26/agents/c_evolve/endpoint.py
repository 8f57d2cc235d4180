"""C-Evolve against an LLM endpoint: prompt genomes on generated arithmetic questions.

The genome is an instruction prompt, the outputs of a prompt are the integers parsed from the replies to the metric
questions, mutation is :class:`~iclr26.agents.c_evolve.llm.LLMReflectiveMutator` with feedback on b = 3 feedback
examples, and a group answers by majority vote. Used by ``python -m iclr26.agents.c_evolve --llm`` and by the
experiment's ``run`` when its config has ``llm`` set.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from iclr26.agents.c_evolve.cevolve import CEvolve, majority_vote
from iclr26.agents.c_evolve.llm import LLMReflectiveMutator

__all__ = ["SEED_PROMPT", "arithmetic", "mode_accuracy", "parse_int", "run_endpoint"]

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


def run_endpoint(
    backend: Any, seed: int, budget: int, n_feedback: int, n_metric: int, n_test: int, **cevolve_kw: Any
) -> dict[str, Any]:
    """C-Evolve (warm-up 0.5) and individual-fitness evolution (warm-up 1) on prompts with `backend`, each with
    `budget` child evaluations; returns ``{"metrics", "group", "island_best"}`` (test accuracies of C-Evolve's group, the post-hoc
    group of each island's best, the top-K and the best single prompt, and the predict-the-mode baseline)."""
    from iclr26.lab.llm import Message

    items = arithmetic(n_feedback + n_metric + n_test, seed)
    fb, met, test = (
        items[:n_feedback],
        items[n_feedback : n_feedback + n_metric],
        items[n_feedback + n_metric :],
    )

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
        res[name] = CEvolve(
            lambda p: answers(p, met), mut, metric, warmup_frac=frac, seed=seed, **cevolve_kw
        ).run(budget, init=SEED_PROMPT)
    ind = res["individual"]
    metrics = {
        "test_cevolve": test_acc([m.genome for m in res["cevolve"].best_group]),
        "test_island_best": test_acc([m.genome for m in ind.best_of_each_island()]),
        "test_topk": test_acc([m.genome for m in ind.top_k()]),
        "test_single": test_acc([ind.best_single().genome]),
        "evals_cevolve": float(res["cevolve"].evaluations),
        "evals_individual": float(ind.evaluations),
        "mode_acc": mode_accuracy(fb + met, test),
    }
    metrics["cevolve_over_mode"] = metrics["test_cevolve"] - metrics["mode_acc"]
    metrics["island_best_over_mode"] = metrics["test_island_best"] - metrics["mode_acc"]
    metrics["diff_cevolve_island_best"] = metrics["test_cevolve"] - metrics["test_island_best"]
    return {"metrics": metrics, "group": [m.genome for m in res["cevolve"].best_group],
            "island_best": [m.genome for m in ind.best_of_each_island()]}  # fmt: skip


def mode_accuracy(seen: list[tuple[str, int]], test: list[tuple[str, int]]) -> float:
    """Accuracy on `test` of always answering the most frequent answer among `seen` (a trivial baseline)."""
    mode = Counter(y for _, y in seen).most_common(1)[0][0] if seen else None
    return float(np.mean([y == mode for _, y in test])) if test else float("nan")
