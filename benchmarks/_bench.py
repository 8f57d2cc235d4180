"""Shared pieces of the benchmark scripts: interleaved timing, the machine description, atomic JSON results.

Every script that speaks the protocol takes ``--small`` (the setting ``make bench`` uses) and ``--json PATH``
(write its result there, atomically); :mod:`run_all` collects the files into ``benchmarks/RESULTS.md``.
A result is ``{"script", "title", "device", "settings", "rows": [...], "notes": [...]}``; each row holds
``paper`` (a slug or ""), ``what``, ``ours``, ``baseline`` (the user's alternative, measured in the same run),
``ratio`` (baseline time / ours, or the claim's own ratio; > 1 means ours is faster or smaller), ``unit`` and
``paper_value``, the paper's number for this ratio where it states one.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def interleaved(
    fns: dict[str, Callable[[], object]], repeats: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Wall seconds of each function, ``repeats`` rounds, every round running all of them in turn."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(repeats):
        order = list(fns) if r % 2 == 0 else list(reversed(fns))  # alternate the order too
        for name in order:
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    return times


def median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """CPU model, cores, load average and the versions the numbers depend on."""
    import torch

    info = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
    }
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def row(
    paper: str, what: str, ours: str, baseline: str, ratio: float, *, unit: str = "x", paper_value: str = ""
) -> dict:
    return {
        "paper": paper,
        "what": what,
        "ours": ours,
        "baseline": baseline,
        "ratio": float(ratio),
        "unit": unit,
        "paper_value": paper_value,
    }


def write_result(path: str | None, result: dict) -> None:
    """Write ``result`` (plus the machine) to ``path`` atomically: a temp file in the same folder, then rename."""
    result = {**result, "machine": machine()}
    if path is None:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(result, f, indent=1, default=float)
    os.replace(tmp, target)
