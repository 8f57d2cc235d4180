"""Probabilistic Instruction Following: tasks, JSD, the PRNG reference band, and evaluation through a backend.

Paper: "String Seed of Thought" (Misaki, Akiba; ICLR 2026, arXiv 2510.21150). The task suite is our choice
(the paper's was not read): n in {2, 3, 5, 10} uniform, and 0.3/0.7, 0.1/0.9, 0.5/0.3/0.2, Zipf(1) over 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from iclr26.agents.ssot.extract import check_probs
from iclr26.agents.ssot.prompts import build_messages, check_options, parse
from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.llm import LLMBackend

__all__ = ["METHODS", "TASKS", "PIFResult", "PIFTask", "jsd", "prng_band", "run_pif", "task_suite"]

METHODS = ("direct", "ssot", "high_temp", "list_pick", "few_shot", "prng")


def jsd(p: Sequence[float], q: Sequence[float]) -> float:
    """Jensen-Shannon divergence in bits (0 <= JSD <= 1); both arguments are distributions of equal length.

    >>> jsd([1, 0], [0, 1]), jsd([0.5, 0.5], [0.5, 0.5])
    (1.0, 0.0)
    """
    a = check_probs(p, "p")
    b = check_probs(q, "q", a.size)
    return float(jsd_rows(a[None], b)[0])


def jsd_rows(P: np.ndarray, q: np.ndarray) -> np.ndarray:
    """JSD (bits) of each row of P against q."""
    m = 0.5 * (P + q[None])

    def kl(x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(x > 0, x * np.log2(np.where(x > 0, x, 1) / np.where(y > 0, y, 1)), 0.0)
        return t.sum(axis=-1)

    return np.clip(0.5 * kl(P, m) + 0.5 * kl(np.broadcast_to(q, P.shape), m), 0.0, 1.0)


def prng_band(
    probs, n_samples: int, reps: int = 1000, alpha: float = 0.05, seed: int = 0
) -> dict[str, float]:
    """The JSD of `reps` simulated multinomial(n_samples, probs) draws: median and the (1 - alpha) band."""
    p = check_probs(probs)
    n_samples = check_int("n_samples", n_samples, low=1)
    reps = check_int("reps", reps, low=2)
    alpha = check_float("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    counts = np.random.default_rng(seed).multinomial(n_samples, p, size=reps)
    j = jsd_rows(counts / n_samples, p)
    return {
        "lo": float(np.quantile(j, alpha / 2)),
        "median": float(np.median(j)),
        "hi": float(np.quantile(j, 1 - alpha / 2)),
    }


@dataclass(frozen=True)
class PIFTask:
    """One PIF task: distinct options and their target probabilities."""

    options: tuple[str, ...]
    probs: tuple[float, ...]
    name: str = ""

    def __post_init__(self) -> None:
        opts, p = check_options(list(self.options), list(self.probs))
        object.__setattr__(self, "options", tuple(opts))
        object.__setattr__(self, "probs", tuple(float(x) for x in p))
        if not self.name:
            object.__setattr__(self, "name", "/".join(f"{x:.2g}" for x in p))

    @property
    def n(self) -> int:
        return len(self.options)

    @property
    def uniform(self) -> bool:
        return bool(np.allclose(self.probs, 1.0 / self.n))


def task_suite() -> list[PIFTask]:
    """The eight tasks: uniform over 2, 3, 5, 10; 0.3/0.7, 0.1/0.9, 0.5/0.3/0.2, Zipf(1) over 5."""
    letters = "ABCDEFGHIJ"
    tasks = [PIFTask(tuple(letters[:n]), tuple([1.0 / n] * n), f"uniform-{n}") for n in (2, 3, 5, 10)]
    z = 1.0 / np.arange(1, 6)
    z /= z.sum()
    for name, p in (("0.3/0.7", [0.3, 0.7]), ("0.1/0.9", [0.1, 0.9]), ("0.5/0.3/0.2", [0.5, 0.3, 0.2]),
                    ("zipf-5", z.tolist())):  # fmt: skip
        tasks.append(PIFTask(tuple(letters[: len(p)]), tuple(p), name))
    return tasks


TASKS = tuple(t.name for t in task_suite())


@dataclass
class PIFResult:
    """Counts over the options, invalid completions, and the JSDs (valid only; and with 'invalid' as a class)."""

    counts: np.ndarray
    invalid: int
    jsd: float
    jsd_with_invalid: float
    invalid_rate: float
    completions: list[str] = field(default_factory=list, repr=False)


def run_pif(
    backend: LLMBackend | None,
    task: PIFTask,
    n_samples: int,
    method: str = "ssot",
    seed: int = 0,
    *,
    temperature: float = 1.0,
    max_tokens: int = 1024,
    keep_text: bool = False,
) -> PIFResult:
    """`n_samples` independent completions (fresh context, sample i sent with seed ``seed + i``), parsed.

    ``method="prng"`` draws from NumPy instead of a backend (the ideal); ``high_temp`` is the direct prompt at
    temperature 1.5. The JSD excludes unparseable completions (NaN when none parsed); ``jsd_with_invalid``
    counts them as one more category with target probability 0.
    """
    if not isinstance(task, PIFTask):
        raise TypeError(f"task must be a PIFTask, got {type(task).__name__}")
    n_samples = check_int("n_samples", n_samples, low=1)
    method = check_choice("method", method, METHODS)
    seed = check_int("seed", seed, low=0)
    temperature = check_float("temperature", temperature, 0.0)
    p = np.array(task.probs)
    counts = np.zeros(task.n, dtype=np.int64)
    invalid, texts = 0, []
    if method == "prng":
        counts = np.random.default_rng(seed).multinomial(n_samples, p)
    else:
        if not isinstance(backend, LLMBackend):
            raise TypeError(
                f"backend must be an LLMBackend for method {method!r}, got {type(backend).__name__}"
            )
        temp = 1.5 if method == "high_temp" else temperature
        msgs = build_messages(
            "direct" if method == "high_temp" else method, list(task.options), list(task.probs)
        )
        for i in range(n_samples):
            text = backend.chat(msgs, max_tokens=max_tokens, temperature=temp, seed=seed + i).text
            got = parse(text, list(task.options), require_string=method == "ssot")
            if got.valid:
                counts[got.option] += 1
            else:
                invalid += 1
            if keep_text:
                texts.append(text)
    valid = int(counts.sum())
    j = float(jsd_rows((counts / valid)[None], p)[0]) if valid else float("nan")
    full = np.append(counts, invalid) / n_samples
    j_inv = float(jsd_rows(full[None], np.append(p, 0.0))[0])
    return PIFResult(counts, invalid, j, j_inv, invalid / n_samples, texts)
