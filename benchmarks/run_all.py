"""Run every benchmark script at its small setting and write ``benchmarks/RESULTS.md`` (``make bench``).

Scripts that speak the protocol of :mod:`_bench` (``--small --json PATH``) give rows of ratios against the user's
alternative measured in the same run; the table collects them beside the paper's number where the paper's claim
is about speed or memory. Scripts not yet converted run with the small arguments of ``LEGACY`` and their last
output lines are kept in a second section, marked as not yet compared with the user's alternative. Each script
runs in its own process with a time limit (``--only`` reruns some and keeps the others' last results, stored
in ``benchmarks/results.json``); the machine (CPU model, cores), the load average before and after,
and the versions are recorded. Rows measured on another device (a GPU) carry that device in their own column.
A script that also takes ``--prepare`` (build its cached model, untimed) runs that first under ``--prepare-timeout``,
so that a cold cache does not eat the time limit of the measurement.

    python benchmarks/run_all.py [--only NAME ...] [--timeout 240] [--prepare-timeout 900]
        [--out benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench import machine

HERE = Path(__file__).resolve().parent
SKIP = {"_bench.py", "run_all.py"}

# Small settings of the scripts that do not take --small yet (issue 29: their baselines are still to be moved to
# the user's alternative); None = cannot run offline here (needs a checkout passed on the command line).
# Scripts that speak the protocol of _bench need no entry.
LEGACY: dict[str, list[str] | None] = {
    "fact_nfa_official_rfm.py": None,
}


def speaks_protocol(path: Path) -> bool:
    text = path.read_text()
    return '"--small"' in text and '"--json"' in text


def prepare(path: Path, env: dict, timeout: float) -> str | None:
    """Run ``path --prepare`` (building its cache) when it takes the flag: None, or why it failed."""
    if '"--prepare"' not in path.read_text():
        return None
    try:
        proc = subprocess.run(
            [sys.executable, str(path), "--prepare"],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=HERE.parent,
        )
    except subprocess.TimeoutExpired:
        return f"--prepare timed out after {timeout:.0f} s"
    return None if proc.returncode == 0 else f"--prepare failed (exit {proc.returncode})"


def portable(text: str, out_dir: Path | None = None) -> str:
    """``text`` with this checkout's and the run's temporary paths made relative (nothing machine-specific is stored)."""
    if out_dir is not None:
        text = text.replace(str(out_dir), "<tmp>")
    return text.replace(str(HERE.parent) + os.sep, "").replace(str(HERE.parent), ".")


def run_script(path: Path, out_dir: Path, timeout: float, prepare_timeout: float = 900.0) -> dict:
    env = {**os.environ, "ICLR26_BENCH_SMALL": "1", "PYTHONPATH": str(HERE)}
    t_prep = time.perf_counter()
    failed = prepare(path, env, prepare_timeout)
    prep_s = time.perf_counter() - t_prep
    if failed:
        return {
            "script": path.name,
            "status": failed,
            "wall_s": 0.0,
            "prepare_s": prep_s,
            "cmd": [portable(str(path))],
        }
    if speaks_protocol(path):
        json_path = out_dir / f"{path.stem}.json"
        cmd = [sys.executable, str(path), "--small", "--json", str(json_path)]
    else:
        args = LEGACY.get(path.name, [])
        if args is None:
            return {"script": path.name, "status": "skipped (needs an external checkout)", "wall_s": 0.0}
        json_path, cmd = None, [sys.executable, str(path), *args]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=HERE.parent)
        status = "ok" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
        output = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        status = f"timed out after {timeout:.0f} s"
        output = (
            (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        )
    res = {"script": path.name, "status": status, "wall_s": time.perf_counter() - t0,
           "cmd": [portable(c, out_dir) for c in cmd[1:]]}  # fmt: skip
    if prep_s > 1.0:
        res["prepare_s"] = prep_s
    res["tail"] = [portable(line, out_dir) for line in output.splitlines() if line.strip()][-8:]
    if json_path is not None and json_path.exists():
        res["result"] = json.loads(json_path.read_text())
    return res


def fmt_ratio(r: dict) -> str:
    x = r["ratio"]
    return f"{x:.2f}{r.get('unit', 'x')}" if x == x else "n/a"


def render(
    results: list[dict],
    before: dict,
    after: dict,
    started: str,
    total_s: float,
    only: list[str] | None = None,
) -> str:
    rerun = (
        f" This invocation reran only {', '.join(f'`{o}`' for o in only)}; the other rows come from the"
        " last full run (each script's own machine record is in `results.json`)."
        if only
        else ""
    )
    lines = [
        "# Benchmark results",
        "",
        f"Written by `make bench` (`benchmarks/run_all.py`), started {started}, {total_s:.0f} s in all. Each ratio",
        "is the user's alternative / ours (time or memory; > 1 means ours is faster or smaller), both measured in",
        "the same process, repeats interleaved. Timings on a shared machine move with its load: read the ratios."
        + rerun,
        "",
        f"- machine: {before['cpu']}, {before['cores']} cores; torch threads per script as each script sets",
        f"- load average (1, 5, 15 min): {before['loadavg']} before, {after['loadavg']} after",
        f"- versions: Python {before['python']}, torch {before['torch']}",
        "",
        "## Ratios against the user's alternative",
        "",
        "| paper | what | ours | user's alternative | ratio | paper's number | device | script |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        result = res.get("result")
        if not result:
            continue
        for r in result["rows"]:
            cells = (
                r["paper"] or "-",
                r["what"],
                r["ours"],
                r["baseline"],
                fmt_ratio(r),
                r.get("paper_value") or "-",
            )
            cells += (result.get("device", "cpu"), f"`{res['script']}`")
            lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    notes = [n for res in results if res.get("result") for n in res["result"].get("notes", [])]
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    lines += [
        "",
        "GPU rows are added by running a script on the GPU machine and appending its rows with the device named",
        "(e.g. `cuda (H200)`) in the device column.",
        "",
        "## Scripts not yet measured against the user's alternative",
        "",
        "These still compare with the library's own references (issue 29 lists the baseline each should move to);",
        "they ran at the small arguments shown, and their last output lines are kept as they printed them.",
        "",
        "| script | small arguments | status | wall s |",
        "|---|---|---|---|",
    ]
    for res in results:
        if res.get("result"):
            continue
        lines.append(
            f"| `{res['script']}` | `{' '.join(res.get('cmd', [])[1:])}` | {res['status']} | {res['wall_s']:.0f} |"
        )
    lines += [
        "",
        "## Every script",
        "",
        "Wall s is the measured run; cache building (`--prepare`, untimed) is listed apart where it took time.",
        "",
        "| script | status | wall s | cache build s |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{r['script']}` | {r['status']} | {r['wall_s']:.0f} | "
        f"{format(r['prepare_s'], '.0f') if r.get('prepare_s') else '-'} |"
        for r in results
    ]
    lines += ["", "<details><summary>last output lines per script</summary>", ""]
    for res in results:
        lines += [f"### {res['script']}", "", "```", *res.get("tail", []), "```", ""]
    lines += ["</details>", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", default=None, help="script names (without .py) to run")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("BENCH_TIMEOUT", 240)))
    ap.add_argument(
        "--prepare-timeout", type=float, default=float(os.environ.get("BENCH_PREPARE_TIMEOUT", 900))
    )
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = ap.parse_args()
    scripts = sorted(p for p in HERE.glob("*.py") if p.name not in SKIP)
    if args.only:
        scripts = [p for p in scripts if p.stem in set(args.only)]
    before, started, t0 = (
        machine(),
        dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        time.time(),
    )
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in scripts:
            res = run_script(path, Path(tmp), args.timeout, args.prepare_timeout)
            print(f"{res['script']:45s} {res['status']:30s} {res['wall_s']:6.0f} s", flush=True)
            results.append(res)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    store = out.with_name("results.json")  # every script's last result, so that --only updates the table
    if args.only and store.exists():
        previous = json.loads(store.read_text())
        fresh = {r["script"] for r in results}
        results = sorted(
            [r for r in previous if r["script"] not in fresh] + results, key=lambda r: r["script"]
        )
    tmp_store = store.with_suffix(".json.tmp")
    tmp_store.write_text(json.dumps(results, indent=1, default=float))
    os.replace(tmp_store, store)
    text = render(results, before, machine(), started, time.time() - t0, args.only)
    tmp_out = out.with_suffix(".md.tmp")
    tmp_out.write_text(text)
    os.replace(tmp_out, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
