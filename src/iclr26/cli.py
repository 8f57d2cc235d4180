"""The ``iclr26`` command: list, show, reproduce, report.

Bad input (an unknown slug or budget, a paper still planned, a bad ``--seeds``) prints one line naming the
problem and the valid choices and exits with code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import click
import typer
from rich import box
from rich.console import Console
from rich.table import Table

from iclr26.catalog import DOMAINS, STATUSES, UnknownPaperError, get_paper, load_catalog
from iclr26.harness.budget import BUDGETS, DEFAULT_BUDGET, check_budget
from iclr26.harness.registry import NotReproducibleError, get_experiment, reproducible_slugs
from iclr26.harness.seeding import DEVICES
from iclr26.harness.store import DEFAULT_ROOT, ResultStore

app = typer.Typer(
    name="iclr26",
    help="Methods of 76 ICLR 2026 papers, and seeded reproductions of their claims.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
console = Console()
err_console = Console(stderr=True, soft_wrap=True)

OUTCOME_STYLE = {
    "supported": "green",
    "not supported": "red",
    "inconclusive": "yellow",
    "not reproduced": "magenta",
    "not judged": "dim",
}
OUTCOME_TEXT = {
    "supported": "supported",
    "not supported": "not supported",
    "inconclusive": "inconclusive",
    "not reproduced": "not reproduced at this budget",
    "not judged": "not judged",
}


class CLIError(Exception):
    """A user error: printed as one line, exit code 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C but reported with exit code 143."""


# What an interrupted `reproduce` reports: seeds stored so far out of those it set out to run.
_RUN = {"stored": 0, "total": 0, "active": False, "sigterm": False}


def _choice(value: str, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise CLIError(f"unknown {what} {value!r}; choose one of {', '.join(choices)}")
    return value


@app.command("list")
def list_papers(
    domain: Annotated[str | None, typer.Option(help=f"Only this domain: {', '.join(DOMAINS)}.")] = None,
    status: Annotated[str | None, typer.Option(help=f"Only this status: {', '.join(STATUSES)}.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array instead of a table.")] = False,
) -> None:
    """List the papers of the catalog."""
    papers = load_catalog()
    if domain is not None:
        _choice(domain, DOMAINS, "domain")
        papers = tuple(p for p in papers if p.domain == domain)
    if status is not None:
        _choice(status, STATUSES, "status")
        papers = tuple(p for p in papers if p.status == status)
    if as_json:
        sys.stdout.write(json.dumps([p.to_dict() for p in papers], indent=1, ensure_ascii=False) + "\n")
        return
    # One line a paper at any terminal width: the title takes what the other columns leave, cut with an ellipsis.
    widths = [max([len(p.slug) for p in papers] + [4]), max([len(p.domain) for p in papers] + [6]), 11]
    title_w = max(12, console.width - sum(widths) - 2 * len(widths) - 1)
    table = Table(title=f"iclr26 catalog ({len(papers)} papers)", box=box.SIMPLE_HEAD, pad_edge=False)
    for name, w in zip(("slug", "domain", "status"), widths):
        table.add_column(name, no_wrap=True, width=w)
    table.add_column("title", no_wrap=True, overflow="ellipsis", max_width=title_w)
    for p in papers:
        style = {"reproduced": "green", "implemented": "cyan"}.get(p.status, "dim")
        table.add_row(p.slug, p.domain, f"[{style}]{p.status}[/]", p.title)
    console.print(table)


def _readme_usage(module: str) -> str | None:
    """The first Python code block of a paper's README, if the package ships one (read without importing it)."""
    from importlib.util import find_spec

    try:
        spec = find_spec(module)
        if spec is None or spec.origin is None:
            return None
        text = (Path(spec.origin).parent / "README.md").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None
    start = text.find("```python")
    if start < 0:
        return None
    end = text.find("```", start + 9)
    return text[start + 9 : end].strip() if end > 0 else None


def _public_names(module: str) -> list[str]:
    """The package's ``__all__``, read from its ``__init__.py`` without importing it (and torch with it)."""
    import ast
    from importlib.util import find_spec

    spec = find_spec(module)
    if spec is None or spec.origin is None:
        return []
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            try:
                return sorted(ast.literal_eval(node.value))
            except ValueError:
                break
    return sorted(getattr(importlib.import_module(module), "__all__", []))


@app.command()
def show(
    slug: Annotated[str, typer.Argument(help="The paper's slug (see `iclr26 list`).")],
    out: Annotated[Path, typer.Option(help="Results directory to read verdicts from.")] = Path(DEFAULT_ROOT),
) -> None:
    """Show a paper's card: title, ids, summary, what is implemented, usage and last verdicts."""

    paper = get_paper(slug)
    console.print(f"[bold]{paper.title}[/]  ({paper.short_name}, {paper.slug})")
    console.print(
        f"domain {paper.domain} · tier {paper.tier or '-'} · status {paper.status} · module {paper.module}"
    )
    for name, url in paper.links.items():
        console.print(f"{name}: {url}")
    console.print()
    console.print(paper.summary)
    if paper.status == "planned":
        console.print("\n[dim]Not implemented yet.[/]")
        return
    names = _public_names(paper.module)
    if names:
        console.print(f"\n[bold]Public API[/] ({paper.module}): {', '.join(names)}")
    usage = _readme_usage(paper.module)
    if usage:
        console.print("\n[bold]Usage[/]")
        console.print(usage, markup=False, highlight=False)
    if paper.status != "reproduced":
        return
    store = ResultStore(out)
    shown = False
    for budget in reversed(BUDGETS):
        loaded = store.load(slug, budget)
        if not loaded.results:
            continue
        from iclr26.harness.runner import judge

        exp = get_experiment(slug)  # imported only when there is something to judge: it loads torch
        console.print(f"\n[bold]Last verdicts[/] ({budget}, {len(loaded.results)} seeds, from {out})")
        _print_verdicts(judge(exp, budget, loaded.results))
        shown = True
        break
    if not shown:
        console.print(f"\n[dim]No results in {out} yet: run `iclr26 reproduce {slug}`.[/]")


def _print_verdicts(verdicts) -> None:  # list[ClaimVerdict]
    table = Table()
    for col in ("claim", "verdict", "measured"):
        table.add_column(col, overflow="fold")
    for cv in verdicts:
        value = cv.verdict.outcome.value
        text = OUTCOME_TEXT[value] if cv.claim.kind == "claim" else f"check {OUTCOME_TEXT[value]}"
        table.add_row(cv.claim.id, f"[{OUTCOME_STYLE[value]}]{text}[/]", cv.verdict.measured())
    console.print(table)
    counts = Counter(OUTCOME_TEXT[cv.verdict.outcome.value] for cv in verdicts if cv.claim.kind == "claim")
    checks = [cv for cv in verdicts if cv.claim.kind == "check"]
    if counts:
        line = ", ".join(f"{n} {o}" for o, n in counts.items())
        if checks:
            line += f"; checks: {sum(cv.verdict.outcome.value == 'supported' for cv in checks)}/{len(checks)} hold"
        console.print(f"claims: {line}", highlight=False)
    for cv in verdicts:
        console.print(f"[bold]{cv.claim.id}[/]: {cv.claim.statement}", highlight=False)
        console.print(f"  paper: {cv.claim.paper_value}", highlight=False, markup=False)
        console.print(f"  [dim]why: {cv.verdict.explanation}[/]", highlight=False)


def _check_out(value: str | Path) -> Path:
    """The results folder exists (or can be made) and takes a file; else a one-line error before any work."""
    import tempfile

    if not str(value).strip():
        raise CLIError(f"--out must name a folder, got {str(value)!r}")
    out = Path(value)
    try:
        if out.exists() and not out.is_dir():
            raise CLIError(f"--out {out} is not a folder")
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-check-"):
            pass
    except OSError as err:
        raise CLIError(f"--out {out} cannot be written: {err.strerror or err}") from None
    return out


def _check_llm(spec: str) -> str:
    """An LLM spec's form, checked before any run (the backend itself is built inside each seed)."""
    text = spec.strip()
    ok = text == "scripted" or (text.startswith("hf:") and len(text) > 3)
    ok = ok or (text.startswith(("http://", "https://")) and "@" in text and not text.endswith("@"))
    if not ok:
        raise CLIError(
            f"--llm must be 'http://host:port/v1@model', 'hf:/local/dir' or 'scripted', got {spec!r}"
        )
    return text


def _takes_llm(experiment, budget: str) -> None:
    try:
        experiment.with_config(budget, llm=None)
    except ValueError:
        raise ValueError(
            f"paper {experiment.slug!r} does not take an LLM endpoint (its {budget} config has no 'llm' field)"
        ) from None


def _plan_todo(
    slug: str, budget: str, n_seeds: int | None, out: Path, rerun: bool = False, overrides: dict | None = None
) -> list[int]:
    from iclr26.harness.runner import plan

    exp = get_experiment(slug)
    p = plan(exp.with_config(budget, **overrides) if overrides else exp, budget, ResultStore(out), n_seeds)
    return p.seeds if rerun else p.todo


def _parse_positive(flag: str, value: str | None, limit: int) -> int | None:
    """A positive integer written in plain digits, at most `limit`; else a one-line error."""
    if value is None:
        return None
    text = value.strip()
    if not text.isdigit() or not text.isascii():
        raise CLIError(f"{flag} must be a positive integer written in digits (1..{limit}), got {value!r}")
    n = int(text)
    if not 1 <= n <= limit:
        raise CLIError(f"{flag} must be a positive integer in 1..{limit}, got {n}")
    return n


MAX_SEEDS = 10_000


def _parse_seeds(seeds: str | None) -> int | None:
    return _parse_positive("--seeds", seeds, limit=MAX_SEEDS)


@app.command()
def reproduce(
    slugs: Annotated[list[str] | None, typer.Argument(help="Paper slugs to reproduce.")] = None,
    all_papers: Annotated[bool, typer.Option("--all", help="Every paper with a reproduction.")] = False,
    budget: Annotated[str, typer.Option(help=f"One of {', '.join(BUDGETS)}.")] = DEFAULT_BUDGET,
    seeds: Annotated[str | None, typer.Option(help="Number of seeds (default: the budget's).")] = None,
    device: Annotated[str, typer.Option(help=f"One of {', '.join(DEVICES)}.")] = "auto",
    out: Annotated[str, typer.Option(help="Results directory.")] = DEFAULT_ROOT,
    executor: Annotated[str, typer.Option(help="local or ray.")] = "local",
    jobs: Annotated[
        str | None,
        typer.Option(
            help="Local worker processes, each with its share of the cores (default: one per core)."
        ),
    ] = None,
    rerun: Annotated[bool, typer.Option(help="Run every seed again, even those already stored.")] = False,
    ray_address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: a local instance).")
    ] = None,
    llm: Annotated[
        str | None,
        typer.Option(
            help="An LLM for the papers that take one: 'http://host:port/v1@model' (key from $OPENAI_API_KEY), "
            "'hf:/local/dir' or 'scripted'. Only papers whose config has an 'llm' field accept it."
        ),
    ] = None,
) -> None:
    """Run the seeds of each paper's reproduction that are not stored yet, then print the verdicts."""
    from iclr26.harness.progress import reporting
    from iclr26.harness.runner import reproduce as run_reproduce
    from iclr26.harness.seeding import resolve_device
    from iclr26.progress_bar import RichReporter

    try:
        check_budget(budget)
    except ValueError as err:
        raise CLIError(str(err)) from None
    n_seeds = _parse_seeds(seeds)
    out = _check_out(out)
    _choice(device, DEVICES, "device")
    _choice(executor, ("local", "ray"), "executor")
    if ray_address and executor != "ray":
        raise CLIError("--ray-address needs --executor ray")
    n_jobs = _parse_positive("--jobs", jobs, limit=1024)
    if n_jobs is not None and executor == "ray":
        raise CLIError("--jobs is for the local executor; Ray schedules its own workers")
    if all_papers and slugs:
        raise CLIError("give paper slugs or --all, not both")
    targets = reproducible_slugs() if all_papers else list(slugs or [])
    if not targets:
        raise CLIError("name at least one paper slug, or pass --all")
    overrides = {} if llm is None else {"llm": _check_llm(llm)}
    try:
        for (
            slug
        ) in targets:  # unknown or planned papers, and devices they do not support, fail before any run
            exp = get_experiment(slug)
            resolve_device(device, exp.devices, slug)
            if overrides:
                _takes_llm(exp, budget)
    except ValueError as err:
        raise CLIError(str(err)) from None

    if executor == "ray":
        from iclr26.harness.executors import RayExecutor

        try:
            ex = RayExecutor(address=ray_address)
            if ray_address:
                ex.check_reachable(ray_address)
        except (ImportError, ValueError, ConnectionError) as err:
            raise CLIError(str(err)) from None
    else:
        from iclr26.harness.executors import LocalExecutor, PoolExecutor, default_jobs

        n_tasks = sum(len(_plan_todo(slug, budget, n_seeds, out, rerun, overrides)) for slug in targets)
        workers = min(n_jobs or default_jobs(), max(n_tasks, 1))
        ex = LocalExecutor() if workers == 1 else PoolExecutor(workers)

    store = ResultStore(out)

    _RUN.update(
        stored=0,
        total=sum(len(_plan_todo(s_, budget, n_seeds, out, rerun, overrides)) for s_ in targets),
        active=True,
    )

    def done(record: dict) -> None:
        _RUN["stored"] += 1
        console.print(
            f"[dim]{record['slug']} {record['budget']} seed {record['seed']}: {record['wall_s']:.1f} s, "
            f"peak {record['peak_rss_mb']:.0f} MB -> {store.path(record['slug'], record['budget'], record['seed'])}[/]",
            highlight=False,
            soft_wrap=True,
        )

    with RichReporter(console) as reporter, reporting(reporter):
        summaries = run_reproduce(
            targets, budget, n_seeds, device, store, ex, on_result=done, rerun=rerun, overrides=overrides
        )
    for s in summaries:
        console.print(
            f"\n[bold]{s.slug}[/] ({s.budget}): {len(s.results)} seeds "
            f"({len(s.ran)} run now, {len(s.skipped)} already stored)"
        )
        for e in s.errors:
            err_console.print(f"[yellow]warning:[/] {e}", highlight=False)
        _print_verdicts(s.verdicts)
    console.print(f"\nResults in {out}/. Make the report with: iclr26 report --out {out}")


@app.command()
def verify(
    slugs: Annotated[list[str] | None, typer.Argument(help="Paper slugs to verify.")] = None,
    all_papers: Annotated[bool, typer.Option("--all", help="Every paper with reference results.")] = False,
    budget: Annotated[str, typer.Option(help="The budget of the reference seeds.")] = "quick",
    jobs: Annotated[str | None, typer.Option(help="Local worker processes (default: one per core).")] = None,
) -> None:
    """Rerun the shipped reference seeds and check that metrics and verdicts come out the same (exit 0 only then)."""
    from iclr26.harness.executors import LocalExecutor, PoolExecutor, default_jobs
    from iclr26.harness.reference import reference_store
    from iclr26.harness.verify import verify as run_verify

    try:
        check_budget(budget)
    except ValueError as err:
        raise CLIError(str(err)) from None
    n_jobs = _parse_positive("--jobs", jobs, limit=1024)
    store = reference_store()
    if all_papers and slugs:
        raise CLIError("give paper slugs or --all, not both")
    targets = (
        [s for s in reproducible_slugs() if budget in store.budgets(s)] if all_papers else list(slugs or [])
    )
    if not targets:
        raise CLIError(
            "name at least one paper slug, or pass --all" + ("" if slugs else " (no reference results found)")
        )
    for slug in targets:
        get_experiment(slug)
    workers = n_jobs or default_jobs()
    ex = LocalExecutor() if workers == 1 else PoolExecutor(workers)
    from iclr26.harness.progress import reporting
    from iclr26.progress_bar import RichReporter

    with RichReporter(console) as reporter, reporting(reporter):
        checks = run_verify(targets, budget, ex, store)
    table = Table(title=f"verify against the shipped reference ({budget})")
    for col in ("paper", "seeds equal", "max rel. diff", "tolerance", "verdicts", "result"):
        table.add_column(col, overflow="fold")
    for c in checks:
        if c.problem:
            table.add_row(c.slug, "-", "-", f"{c.tolerance:g}", "-", f"[red]{c.problem}[/]")
            continue
        equal = sum(s.equal for s in c.seeds)
        worst = max((s.max_rel_diff for s in c.seeds), default=0.0)
        verdicts = "same" if not c.verdict_changes else "; ".join(c.verdict_changes)
        result = "[green]agrees[/]" if c.agrees else "[red]differs[/]"
        table.add_row(c.slug, f"{equal}/{len(c.seeds)}", f"{worst:.3g}", f"{c.tolerance:g}", verdicts, result)
    console.print(table)
    for c in checks:
        for s in c.seeds:
            if not s.equal:
                console.print(
                    f"{c.slug} seed {s.seed}: differs in {', '.join(s.differing[:8])}", highlight=False
                )
                for condition in s.conditions:
                    console.print(f"  run conditions differ: {condition}", highlight=False)
    bad = [c.slug for c in checks if not c.agrees]
    if bad:
        err_console.print(f"{len(bad)} of {len(checks)} papers differ from the reference: {', '.join(bad)}")
        raise typer.Exit(1)
    console.print(f"all {len(checks)} papers agree with the reference")


@app.command()
def report(
    out: Annotated[str, typer.Option(help="Results directory; the report is written there.")] = DEFAULT_ROOT,
    reference: Annotated[
        bool, typer.Option(help="Show the shipped reference results beside yours (and where you have none).")
    ] = True,
) -> None:
    """Write report.html (self-contained, figures embedded) and report.md from the results directory."""
    from iclr26.harness.reference import reference_store
    from iclr26.harness.report import build_report

    out = _check_out(out)
    try:
        paths = build_report(ResultStore(out), out, reference_store() if reference else None)
    except OSError as err:
        raise CLIError(
            f"the report could not be written to {out}: {err.strerror or err}; the previous one is kept"
        ) from None
    console.print(f"Report written: {paths.html.resolve()}")
    console.print(f"Markdown:       {paths.markdown.resolve()}")
    for warning in paths.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def _is_click_error(err: Exception) -> bool:
    """A usage error of click, or of the click that newer typer releases vendor (same interface)."""
    return hasattr(err, "format_message") and isinstance(getattr(err, "exit_code", None), int)


def _interrupted(code: int) -> int:
    if _RUN["active"]:
        line = (
            f"interrupted: {_RUN['stored']} of {_RUN['total']} seeds stored; rerun the same command to resume"
        )
    else:
        line = "interrupted"
    err_console.print(line, markup=False, highlight=False)
    return code


def _on_sigterm(signum: int, frame: object) -> None:
    _RUN["sigterm"] = True  # typer turns the interrupt into Exit(130): remember it was SIGTERM
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning user errors into one line and exit code 2, an interrupt into one line
    and 130 (Ctrl-C) or 143 (SIGTERM)."""
    import signal

    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (an embedding application): leave signals alone
        previous = None
    _RUN.update(stored=0, total=0, active=False, sigterm=False)
    try:
        rv = app(args=argv, standalone_mode=False)
    except (CLIError, UnknownPaperError, NotReproducibleError) as err:
        err_console.print(f"error: {err}", markup=False, highlight=False)
        return 2
    except (KeyboardInterrupt, click.exceptions.Abort, typer.Abort):
        return _interrupted(143 if _RUN["sigterm"] else 130)
    except Exception as err:
        if not _is_click_error(err):
            raise
        if type(err).__name__.startswith("NoArgsIsHelp"):  # a bare `iclr26`: its message is the help text
            sys.stdout.write(err.format_message() + "\n")
            return 0
        err_console.print(f"error: {err.format_message()}", markup=False, highlight=False)
        return err.exit_code
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if isinstance(rv, int) and rv:
        if rv == 130:  # typer turns KeyboardInterrupt (and so Terminated) into Exit(130)
            return _interrupted(143 if _RUN["sigterm"] else 130)
        return rv
    return 0


if __name__ == "__main__":
    sys.exit(main())
