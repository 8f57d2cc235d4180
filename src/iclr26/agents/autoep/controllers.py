"""Hyperparameter controllers: ``propose(state) -> theta`` every K generations.

* :class:`LLMChainController`: the paper's chain analysis LLM -> decision LLM -> generation LLM over any
  :class:`~iclr26.lab.llm.LLMBackend`; the generation reply is parsed from ``<A>..</A> <B>..</B>`` tags, clipped
  to the ranges; an unparsable reply keeps theta and is logged (never raises).
* :class:`NoELAChainController`: the same chain shown only the utility history y (ablation).
* :class:`RuleChainController`: a deterministic transcription of the three steps (offline stand-in):
  thresholds on stagnation / diversity / improvement -> a direction per hyperparameter -> a fixed step.
* :class:`FixedController`, :class:`RandomController`, :class:`ScheduleController` (linear pm decay).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from iclr26.agents.autoep.ela import ELAState, as_prompt
from iclr26.checks import check_bool, check_float, check_int

__all__ = [
    "GA_RANGES",
    "PROMPTS",
    "Controller",
    "FixedController",
    "LLMChainController",
    "NoELAChainController",
    "RandomController",
    "RuleChainController",
    "ScheduleController",
    "check_ranges",
    "clip_theta",
    "parse_theta",
]

GA_RANGES: dict[str, tuple[float, float]] = {"pc": (0.4, 0.8), "pm": (0.05, 0.8)}
"""The README's GA ranges: crossover probability pc in (0.4, 0.8), mutation probability pm in (0.05, 0.8)."""


@runtime_checkable
class Controller(Protocol):
    """Anything with ``propose(state: ELAState) -> dict[str, float]``."""

    def propose(self, state: ELAState) -> dict[str, float]: ...


def check_ranges(ranges: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """`ranges` as ``{name: (low, high)}`` with finite ``low < high``, else ``ValueError``."""
    if not isinstance(ranges, Mapping) or not ranges:
        raise ValueError(f"ranges must be a non-empty mapping name -> (low, high), got {ranges!r}")
    out = {}
    for k, v in ranges.items():
        try:
            lo, hi = (float(x) for x in v)
        except (TypeError, ValueError):
            raise ValueError(f"ranges[{k!r}] must be a pair (low, high), got {v!r}") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ValueError(f"ranges[{k!r}] must have finite low < high, got {v!r}")
        out[str(k)] = (lo, hi)
    return out


def clip_theta(theta: Mapping[str, float], ranges: Mapping[str, tuple[float, float]]) -> dict[str, float]:
    """Each value clipped to its range (out of range -> the boundary); names not in `ranges` are an error."""
    out = {}
    for k, v in theta.items():
        if k not in ranges:
            raise ValueError(f"theta has {k!r}, which is not in ranges ({', '.join(ranges)})")
        lo, hi = ranges[k]
        out[k] = float(min(max(float(v), lo), hi))
    return out


_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def parse_theta(text: str, tags: Mapping[str, str]) -> dict[str, float] | None:
    """Numbers from ``<TAG>value</TAG>`` for each ``name -> TAG`` in `tags`; None when any is missing."""
    out = {}
    for name, tag in tags.items():
        m = re.search(rf"<{tag}>\s*({_NUM})\s*</{tag}>", text or "")
        if m is None:
            return None
        out[name] = float(m.group(1))
    return out


class FixedController:
    """Always the same theta (the hand-tuned or grid-tuned baseline)."""

    def __init__(self, theta: Mapping[str, float]) -> None:
        self.theta = {k: check_float(f"theta[{k!r}]", v) for k, v in theta.items()}

    def propose(self, state: ELAState) -> dict[str, float]:
        return dict(self.theta)


class RandomController:
    """Theta drawn uniformly from the ranges at every call (seeded)."""

    def __init__(self, ranges: Mapping[str, Any] = GA_RANGES, seed: int = 0) -> None:
        self.ranges = check_ranges(ranges)
        self.rng = np.random.default_rng(check_int("seed", seed, low=0))

    def propose(self, state: ELAState) -> dict[str, float]:
        return {k: float(self.rng.uniform(lo, hi)) for k, (lo, hi) in self.ranges.items()}


class ScheduleController:
    """pm decays linearly from ``pm_start`` to ``pm_end`` over `generations`; pc stays ``pc``."""

    def __init__(
        self, generations: int, pc: float = 0.6, pm_start: float = 0.8, pm_end: float = 0.05
    ) -> None:
        self.generations = check_int("generations", generations, low=1)
        self.pc = check_float("pc", pc, 0.0, 1.0)
        self.pm_start = check_float("pm_start", pm_start, 0.0, 1.0)
        self.pm_end = check_float("pm_end", pm_end, 0.0, 1.0)

    def propose(self, state: ELAState) -> dict[str, float]:
        frac = min(max(state.generation / self.generations, 0.0), 1.0)
        return {"pc": self.pc, "pm": self.pm_start + (self.pm_end - self.pm_start) * frac}


class RuleChainController:
    """The three-step chain as fixed rules over the ELA features (the offline stand-in for the LLMs).

    1. analysis: ``explore`` when diversity < `diversity_low`, or the best has not improved for `stall` rounds;
       ``exploit`` when the relative improvement over the window is >= `improve_high` and diversity >=
       `diversity_low`; else ``hold``.
    2. decision: explore -> raise pm, lower pc; exploit -> lower pm, raise pc; hold -> keep.
    3. generation: move each by ``step * (high - low)`` in its direction, clipped to the ranges.

    With ``use_ela=False`` only the utility history is used (diversity is ignored): the no-ELA ablation.
    Every decision is appended to ``self.log``.
    """

    def __init__(
        self,
        ranges: Mapping[str, Any] = GA_RANGES,
        *,
        step: float = 0.15,
        diversity_low: float = 0.15,
        stall: int = 2,
        improve_high: float = 0.01,
        use_ela: bool = True,
    ) -> None:
        self.ranges = check_ranges(ranges)
        for k in ("pc", "pm"):
            if k not in self.ranges:
                raise ValueError(f"ranges must contain 'pc' and 'pm', got {list(self.ranges)}")
        self.step = check_float("step", step, 0.0, 1.0, low_open=True)
        self.diversity_low = check_float("diversity_low", diversity_low, 0.0, 1.0)
        self.stall = check_int("stall", stall, low=1)
        self.improve_high = check_float("improve_high", improve_high, 0.0)
        self.use_ela = check_bool("use_ela", use_ela)
        self.log: list[dict[str, Any]] = []

    def analyse(self, state: ELAState) -> str:
        z = state.features
        low_div = self.use_ela and z["diversity"] < self.diversity_low
        if low_div or z["stagnation"] >= self.stall:
            return "explore"
        if z["improvement"] >= self.improve_high:
            return "exploit"
        return "hold"

    @staticmethod
    def decide(analysis: str) -> dict[str, int]:
        return {"explore": {"pc": -1, "pm": +1}, "exploit": {"pc": +1, "pm": -1}}.get(
            analysis, {"pc": 0, "pm": 0}
        )

    def propose(self, state: ELAState) -> dict[str, float]:
        analysis = self.analyse(state)
        direction = self.decide(analysis)
        theta = {
            k: state.theta[k] + direction[k] * self.step * (hi - lo) for k, (lo, hi) in self.ranges.items()
        }
        theta = clip_theta(theta, self.ranges)
        self.log.append({"generation": state.generation, "analysis": analysis, "direction": direction})
        return theta


PROMPTS: dict[str, str] = {
    "analysis": (
        "You analyse a genetic algorithm solving a TSP. Recent rounds (theta, best tour length y, landscape "
        "features z):\n{history}\nCurrent features: {features}\nRule of thumb: a flat y means the search needs "
        "exploration; a steadily improving y means it needs exploitation. Answer 'exploration' or "
        "'exploitation' and one sentence why."
    ),
    "decision": (
        "Search state analysis: {analysis}\nCurrent hyperparameters: {theta}\nFor each hyperparameter say "
        "whether to raise, lower or keep it (higher mutation pm explores, higher crossover pc exploits)."
    ),
    "generation": (
        "Decision: {decision}\nCurrent hyperparameters: {theta}\nValid ranges: {ranges}\nReply with the new "
        "values only, exactly in the format {format}"
    ),
}


class LLMChainController:
    """The paper's chain: analysis LLM -> decision LLM -> parameter-generation LLM (zero-shot, no training).

    Parameters
    ----------
    backend_analysis, backend_decision, backend_generation : LLMBackend (may be the same object).
    prompts : templates ``analysis`` ({history}, {features}), ``decision`` ({analysis}, {theta}) and
        ``generation`` ({decision}, {theta}, {ranges}, {format}); default :data:`PROMPTS`.
    ranges : name -> (low, high); proposals are clipped to them.
    tags : name -> tag letter in the reply; default pc -> A, pm -> B (the README's letters; the released GA
        script sends them the other way round).
    temperature, max_tokens : passed to every call.

    An unparsable generation reply (or an LLM error) keeps the current theta; ``self.failures`` counts them and
    ``self.log`` holds every round's three replies.
    """

    use_features = True

    def __init__(
        self,
        backend_analysis: Any,
        backend_decision: Any,
        backend_generation: Any,
        prompts: Mapping[str, str] | None = None,
        ranges: Mapping[str, Any] = GA_RANGES,
        *,
        tags: Mapping[str, str] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> None:
        for name, b in (("backend_analysis", backend_analysis), ("backend_decision", backend_decision),
                        ("backend_generation", backend_generation)):  # fmt: skip
            if not hasattr(b, "chat"):
                raise TypeError(f"{name} must be an LLMBackend (with .chat), got {type(b).__name__}")
        self.backends = (backend_analysis, backend_decision, backend_generation)
        self.prompts = {**PROMPTS, **(prompts or {})}
        unknown = set(self.prompts) - set(PROMPTS)
        if unknown:
            raise ValueError(f"prompts has unknown keys {sorted(unknown)}; accepted: {sorted(PROMPTS)}")
        self.ranges = check_ranges(ranges)
        letters = "ABCDEFGH"
        self.tags = dict(tags) if tags is not None else {k: letters[i] for i, k in enumerate(self.ranges)}
        if set(self.tags) != set(self.ranges):
            raise ValueError(f"tags must name every range ({sorted(self.ranges)}), got {sorted(self.tags)}")
        self.temperature = check_float("temperature", temperature, 0.0)
        self.max_tokens = check_int("max_tokens", max_tokens, low=1)
        self.failures = 0
        self.log: list[dict[str, Any]] = []

    def _history_text(self, state: ELAState) -> str:
        lines = []
        for r in state.history:
            th = ", ".join(f"{k}={v:.3f}" for k, v in r["theta"].items())
            z = f"; z: {as_prompt(r['z'])}" if self.use_features else ""
            lines.append(f"theta: {th}; y={r['y']:.4f}{z}")
        return "\n".join(lines) or "(none yet)"

    def _ask(self, i: int, prompt: str) -> str:
        from iclr26.lab.llm import Message

        reply = self.backends[i].chat(
            [Message("user", prompt)], temperature=self.temperature, max_tokens=self.max_tokens
        )
        return reply.text

    def propose(self, state: ELAState) -> dict[str, float]:
        theta_text = ", ".join(f"{k}={v:.3f}" for k, v in state.theta.items())
        ranges_text = ", ".join(f"{k} in [{lo}, {hi}]" for k, (lo, hi) in self.ranges.items())
        fmt = " ".join(f"<{t}>value of {k}</{t}>" for k, t in self.tags.items())
        feats = as_prompt(state.features) if self.use_features else "(not shown)"
        entry: dict[str, Any] = {"generation": state.generation}
        try:
            entry["analysis"] = a = self._ask(
                0, self.prompts["analysis"].format(history=self._history_text(state), features=feats)
            )
            entry["decision"] = d = self._ask(
                1, self.prompts["decision"].format(analysis=a, theta=theta_text)
            )
            entry["generation_reply"] = g = self._ask(
                2,
                self.prompts["generation"].format(
                    decision=d, theta=theta_text, ranges=ranges_text, format=fmt
                ),
            )
            parsed = parse_theta(g, self.tags)
        except Exception as err:  # an endpoint error must not end the run: keep theta
            entry["error"] = f"{type(err).__name__}: {err}"
            parsed = None
        if parsed is None:
            self.failures += 1
            entry["kept"] = True
            self.log.append(entry)
            return dict(state.theta)
        theta = clip_theta(parsed, self.ranges)
        entry["theta"] = theta
        self.log.append(entry)
        return theta


class NoELAChainController(LLMChainController):
    """:class:`LLMChainController` whose prompts show only (theta, y) history, no landscape features."""

    use_features = False
