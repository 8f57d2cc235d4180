"""The experiment contract: one declarative object per paper.

An experiment gives a config per budget, a number of seeds per budget, a pure ``run(config, seed, device)``
that returns :class:`Metrics`, the claims judged from those metrics, and figure functions drawn from the
stored per-seed results. It prints nothing and keeps no global state; the harness seeds, times, stores and
judges it.

Example
-------
>>> from dataclasses import dataclass
>>> from iclr26.harness import Claim, Experiment, Metrics, mean_at_least
>>> @dataclass(frozen=True)
... class Cfg:
...     n: int
>>> def run(cfg, seed, device):
...     return Metrics(values={"score": 1.0 + 0.01 * seed})
>>> exp = Experiment(
...     slug="toy", configs={"smoke": Cfg(2), "quick": Cfg(8), "full": Cfg(64)},
...     seeds={"smoke": 1, "quick": 3, "full": 5}, run=run,
...     claims=[Claim("score", "the score exceeds 0.5", "0.9", mean_at_least("score", 0.5))],
... )
>>> exp.config_dict("quick")
{'n': 8}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from iclr26.checks import check_int
from iclr26.harness.budget import BUDGETS, check_budget
from iclr26.harness.claims import Claim
from iclr26.harness.threads import limited_threads

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from iclr26.harness.store import SeedResult

__all__ = ["Curve", "Experiment", "Metrics", "to_jsonable"]


@dataclass
class Curve:
    """A named series: ``y`` against ``x`` with axis labels (e.g. accuracy vs training step)."""

    x: Sequence[float]
    y: Sequence[float]
    xlabel: str = "step"
    ylabel: str = ""

    def to_dict(self) -> dict[str, Any]:
        if len(self.x) != len(self.y):
            raise ValueError(f"curve x and y must have the same length, got {len(self.x)} and {len(self.y)}")
        return {
            "x": [float(v) for v in self.x],
            "y": [float(v) for v in self.y],
            "xlabel": self.xlabel,
            "ylabel": self.ylabel,
        }


@dataclass
class Metrics:
    """What one seed of an experiment returns.

    values : scalar metrics the claims read (floats; NaN allowed and shown as such).
    curves : named :class:`Curve` objects (or ``{"x": [...], "y": [...]}`` dicts) for figures.
    artifacts : any other JSON-serialisable data a figure needs (an attention map, a histogram).
    """

    values: dict[str, float]
    curves: dict[str, Curve | dict[str, Any]] = field(default_factory=dict)
    artifacts: dict[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        values = {}
        for name, value in self.values.items():
            try:
                values[str(name)] = float(value)
            except (TypeError, ValueError) as err:
                raise TypeError(f"metric {name!r} must be a number, got {value!r}") from err
        curves = {
            str(name): (c.to_dict() if isinstance(c, Curve) else Curve(**c).to_dict())
            for name, c in self.curves.items()
        }
        return {"metrics": values, "curves": curves, "artifacts": to_jsonable(self.artifacts)}


def to_jsonable(obj: Any) -> Any:
    """Convert NumPy/torch scalars and arrays, tuples and dataclasses into plain JSON types."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(dataclasses.asdict(obj))
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (str, bool)) or obj is None:
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if hasattr(obj, "tolist"):  # numpy arrays and scalars, torch tensors
        return to_jsonable(obj.tolist())
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"cannot store a value of type {type(obj).__name__} in a results file: {obj!r}")


FigureFn = Callable[[Sequence["SeedResult"]], "Figure"]
RunFn = Callable[[Any, int, str], "Metrics | Mapping[str, float]"]


@dataclass
class Experiment:
    """A paper's reproduction: configs and seeds per budget, ``run``, claims and figures.

    Parameters
    ----------
    slug : the paper's catalog slug.
    configs : budget name -> config object (a dataclass, or a dict).
    seeds : budget name -> number of seeds.
    run : ``run(config, seed, device) -> Metrics`` (a plain dict of scalars is accepted too).
    claims : the claims judged at the quick and full budgets.
    figures : functions ``fig(results) -> matplotlib Figure`` over the stored per-seed results; the first line
        of each function's docstring is its caption.
    scale_gap : what differs between this reproduction and the paper's setting, in one or two sentences.
    tolerance : how far (relative, ``|a - b| <= tol * max(1, |b|)``) a rerun's metrics may differ from the shipped
        reference seeds because of platform-dependent numerics; 0 means bit for bit (``iclr26 verify`` states it).
    devices : the devices ``run`` really computes on: ``("cpu",)`` unless it moves its tensors to the ``device``
        it is given, then ``("cpu", "cuda")``. The CLI refuses any other device.
    threads : torch intra-op threads each seed runs on (None: whatever the process has). The harness applies it
        around ``run``, so a seed computes the same numbers whatever ``--jobs`` is, and an experiment never sets
        thread counts itself. A config may override it per budget with a ``single_thread`` flag (True: 1,
        False: None) or an int ``threads`` field.
    blas_threads : limit the NumPy/SciPy BLAS and OpenMP pools to the same count (threadpoolctl). On by default:
        otherwise those pools keep the process's size, which ``--jobs`` changes (a worker gets its share of the
        cores), and a seed's numbers would depend on how it was launched. The seed's provenance records the
        count either way (``blas_threads``).
    """

    slug: str
    configs: Mapping[str, Any]
    seeds: Mapping[str, int]
    run: RunFn
    claims: Sequence[Claim]
    figures: Sequence[FigureFn] = ()
    scale_gap: str = ""
    devices: tuple[str, ...] = ("cpu",)
    tolerance: float = 0.0
    threads: int | None = 1
    blas_threads: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.tolerance, (int, float)) or not 0.0 <= self.tolerance < 1.0:
            raise ValueError(
                f"experiment {self.slug!r}: tolerance must lie in [0, 1), got {self.tolerance!r}"
            )
        self.devices = tuple(self.devices)
        if (
            not self.devices
            or any(d not in ("cpu", "cuda") for d in self.devices)
            or "cpu" not in self.devices
        ):
            raise ValueError(
                f"experiment {self.slug!r}: devices must include 'cpu' and may add 'cuda', got {self.devices!r}"
            )
        if self.threads is not None:
            check_int(f"experiment {self.slug!r}: threads", self.threads, low=1)
        for name in (*self.configs, *self.seeds):
            check_budget(name)
        missing = [b for b in BUDGETS if b not in self.configs or b not in self.seeds]
        if missing:
            raise ValueError(f"experiment {self.slug!r} lacks a config or seed count for budget(s) {missing}")
        for budget, n in self.seeds.items():
            check_int(f"experiment {self.slug!r}: seeds[{budget!r}]", n, low=1)
        ids = [c.id for c in self.claims]
        if len(set(ids)) != len(ids):
            raise ValueError(f"experiment {self.slug!r} has duplicate claim ids: {ids}")

    def config(self, budget: str) -> Any:
        return self.configs[check_budget(budget)]

    def with_config(self, budget: str, **changes: Any) -> Experiment:
        """This experiment with ``budget``'s config changed (e.g. ``llm="http://host:8000/v1@model"``).

        Only fields the config already has can change; anything else is a ``ValueError`` naming the field and the
        fields there are, so a paper that does not take, say, an LLM endpoint says so instead of ignoring it.
        """
        cfg = self.config(budget)
        names = list(cfg) if isinstance(cfg, Mapping) else [f.name for f in dataclasses.fields(cfg)]
        unknown = [k for k in changes if k not in names]
        if unknown:
            raise ValueError(
                f"paper {self.slug!r} has no config field {unknown[0]!r} at budget {budget!r} "
                f"(its fields: {', '.join(names)})"
            )
        new = {**cfg, **changes} if isinstance(cfg, Mapping) else dataclasses.replace(cfg, **changes)
        return dataclasses.replace(self, configs={**self.configs, budget: new})

    def config_dict(self, budget: str) -> dict[str, Any]:
        """The config of `budget` as a JSON-ready dict (what the results file records)."""
        return to_jsonable(self.config(budget))

    def threads_for(self, budget: str) -> int | None:
        """The thread count the harness gives a seed of `budget` (see ``threads``)."""
        cfg = self.config(budget)
        flag = cfg.get("single_thread") if isinstance(cfg, Mapping) else getattr(cfg, "single_thread", None)
        if isinstance(flag, bool):
            return 1 if flag else None
        n = cfg.get("threads") if isinstance(cfg, Mapping) else getattr(cfg, "threads", None)
        if isinstance(n, int) and not isinstance(n, bool):
            return check_int(f"{self.slug}: config threads", n, low=1)
        return self.threads

    def run_seed(self, budget: str, seed: int, device: str) -> dict[str, Any]:
        """Run one seed, on ``threads_for(budget)`` threads, and return its ``{"metrics", "curves", "artifacts"}``
        record."""
        with limited_threads(self.threads_for(budget), blas=self.blas_threads):
            out = self.run(self.config(budget), seed, device)
        if isinstance(out, Metrics):
            return out.to_record()
        if isinstance(out, Mapping):
            return Metrics(values=dict(out)).to_record()
        raise TypeError(
            f"{self.slug}: run() must return Metrics or a dict of scalars, got {type(out).__name__}"
        )

    def requirement_gaps(self, claim: Claim, budget: str) -> tuple[list[str], list[str]]:
        """Why ``budget``'s config does not measure ``claim``: the ``requires`` fields it leaves unset (None or
        absent) and the ``excludes`` fields it sets; both empty when it measures the claim."""
        cfg = self.config(budget)
        get = cfg.get if isinstance(cfg, Mapping) else lambda f: getattr(cfg, f, None)
        return [f for f in claim.requires if get(f) is None], [
            f for f in claim.excludes if get(f) is not None
        ]

    def claims_measured(self, budget: str) -> list[Claim]:
        """The claims ``budget``'s config measures (every ``requires`` field set, no ``excludes`` field set)."""
        return [c for c in self.claims if not any(self.requirement_gaps(c, budget))]

    def claim_metrics_for(self, budget: str) -> list[str]:
        """Every metric a claim measured at ``budget`` reads (a run of that budget must produce all of them)."""
        return list(dict.fromkeys(m for c in self.claims_measured(budget) for m in c.metrics))

    @property
    def claim_metrics(self) -> list[str]:
        """Every metric the claims that need no extra config read (the offline smoke run must produce them all)."""
        return list(dict.fromkeys(m for c in self.claims if not c.requires for m in c.metrics))
