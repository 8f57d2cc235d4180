"""The report: ``report.html`` (self-contained, figures embedded as PNG) and ``report.md`` (figures beside it).

Verdicts are recomputed from the stored seeds every time. On top, one table of all catalog papers with status
and verdicts (negative and inconclusive ones as visible as positive ones); then one section per paper with
results: the claims in our words, the paper's number, ours with its interval, the verdict, the scale gap, the
figures and the provenance. A corrupt results file or a failing figure becomes a visible warning, never a crash.
"""

from __future__ import annotations

import base64
import html
import io
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from iclr26.catalog import Paper, load_catalog
from iclr26.harness.budget import BUDGETS
from iclr26.harness.claims import Outcome
from iclr26.harness.figures import VERDICT_COLORS
from iclr26.harness.registry import get_experiment
from iclr26.harness.runner import ClaimVerdict, judge, usable
from iclr26.harness.store import ResultStore, SeedResult, atomic_write_text

__all__ = ["ReportPaths", "build_report"]

_BADGE = {outcome.value: colour for outcome, colour in VERDICT_COLORS.items()}  # the figures' colours
_PREFERENCE = tuple(reversed(BUDGETS))  # full, then quick, then smoke


@dataclass
class ReportPaths:
    html: Path
    markdown: Path
    warnings: list[str] = field(default_factory=list)


@dataclass
class FigureOut:
    caption: str
    png: bytes | None
    error: str | None = None


@dataclass
class PaperSection:
    paper: Paper
    budget: str
    results: list[SeedResult]
    verdicts: list[ClaimVerdict]
    figures: list[FigureOut]
    scale_gap: str
    warnings: list[str]
    source: str = "yours"
    other: PaperSection | None = None  # the reference section, when the user's own results are shown

    def differs(self) -> list[str]:
        """Claims whose verdict differs between the user's results and the reference."""
        if self.other is None:
            return []
        ref = {cv.claim.id: cv.verdict.outcome for cv in self.other.verdicts}
        return [
            cv.claim.id
            for cv in self.verdicts
            if cv.claim.id in ref and ref[cv.claim.id] is not cv.verdict.outcome
        ]


def _render_figures(fns: Sequence, results: list[SeedResult], slug: str) -> list[FigureOut]:
    out = []
    for fn in fns:
        caption = (fn.__doc__ or fn.__name__).strip().splitlines()[0]
        try:
            fig = fn(results)
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
            out.append(FigureOut(caption, buf.getvalue()))
        except Exception as err:  # a broken figure must not take the report down
            last = traceback.format_exception_only(type(err), err)[-1].strip()
            out.append(FigureOut(caption, None, f"figure {fn.__name__} of {slug} failed: {last}"))
    return out


def _sections(
    store: ResultStore, warnings: list[str], source: str = "yours", no_figures: frozenset[str] = frozenset()
) -> dict[str, PaperSection]:
    sections = {}
    for paper in load_catalog():
        budgets = [b for b in _PREFERENCE if b in store.budgets(paper.slug)]
        if not budgets:
            continue
        if paper.status != "reproduced":
            warnings.append(f"results for {paper.slug} exist but the paper has no reproduction; skipped")
            continue
        exp = get_experiment(paper.slug)
        for budget in budgets:
            loaded = store.load(paper.slug, budget)
            results, excluded = usable(exp, budget, loaded.results)
            local = [str(e) for e in loaded.errors] + excluded
            warnings.extend(local)
            if not results:
                continue
            figures = [] if paper.slug in no_figures else _render_figures(exp.figures, results, paper.slug)
            local += [f.error for f in figures if f.error]
            warnings.extend(f.error for f in figures if f.error)
            sections[paper.slug] = PaperSection(
                paper,
                budget,
                results,
                judge(exp, budget, results),
                figures,
                exp.scale_gap,
                local,
                source,
            )
            break
    return sections


def merged_sections(
    store: ResultStore, reference: ResultStore | None, warnings: list[str]
) -> dict[str, PaperSection]:
    """The user's sections where they have results (with the reference beside them), else the reference's."""
    mine = _sections(store, warnings)
    if reference is None or reference.root.resolve() == store.root.resolve():
        return mine
    ref_warnings: list[str] = []
    ref = _sections(reference, ref_warnings, "reference", no_figures=frozenset(mine))
    warnings.extend(f"reference results: {w}" for w in ref_warnings)
    from iclr26.harness.reference import reference_stamp

    out = {}
    for paper in load_catalog():
        r = ref.get(paper.slug)
        if r is not None:
            r.source = f"reference ({reference_stamp(r.results)})"
        if paper.slug in mine:
            out[paper.slug] = mine[paper.slug]
            out[paper.slug].other = r
        elif r is not None:
            out[paper.slug] = r
    return out


def _with_results_first(papers: Sequence[Paper], sections: dict[str, PaperSection]) -> list[Paper]:
    """Papers with results on top (catalog order within each group), so the verdicts are seen first."""
    return [p for p in papers if p.slug in sections] + [p for p in papers if p.slug not in sections]


def _verdict_counts(section: PaperSection | None) -> Counter:
    """Outcomes of the paper's claims; checks (true by construction) are counted apart, as ``check: ...``."""
    if section is None:
        return Counter()
    return Counter(
        cv.verdict.outcome.value if cv.claim.kind == "claim" else f"check: {cv.verdict.outcome.value}"
        for cv in section.verdicts
    )


def _label(outcome: str) -> str:
    return Outcome(outcome).label


def _key(cv: ClaimVerdict) -> str:
    return cv.verdict.outcome.value if cv.claim.kind == "claim" else f"check: {cv.verdict.outcome.value}"


def _count_label(key: str) -> str:
    return ("check " + _label(key.removeprefix("check: "))) if key.startswith("check: ") else _label(key)


def _provenance_lines(results: list[SeedResult]) -> list[str]:
    first = results[0].provenance
    walls = [r.wall_s for r in results]
    peaks = [r.peak_rss_mb for r in results if r.peak_rss_mb is not None]
    commits = sorted({str(r.provenance.get("git")) for r in results})
    lines = [
        f"seeds {', '.join(str(r.seed) for r in results)}; wall time per seed {min(walls):.1f}-{max(walls):.1f} s "
        f"(total {sum(walls):.1f} s)" + (f"; peak memory {max(peaks):.0f} MB" if peaks else ""),
        f"iclr26 {first.get('iclr26')}, git {', '.join(commits)}, python {first.get('python')}, "
        f"torch {first.get('torch')}, device {first.get('device')}",
        f"finished {max(str(r.provenance.get('finished')) for r in results)}",
    ]
    return lines


# ----------------------------------------------------------------------------------------------- HTML
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#1f2328;line-height:1.45}
table{border-collapse:collapse;width:100%;margin:.8em 0;font-size:.92em}
th,td{border:1px solid #d0d7de;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.badge{display:inline-block;padding:.05em .5em;border-radius:1em;color:#fff;font-size:.85em;white-space:nowrap}
.planned{color:#6e7781}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #d0d7de}
figcaption{font-size:.9em;color:#57606a}
.warn{background:#fff8c5;border:1px solid #d4a72c;padding:.4em .6em;margin:.4em 0}
.prov{font-size:.85em;color:#57606a}
section{border-top:2px solid #d0d7de;margin-top:2em}
code{background:#f6f8fa;padding:0 .2em}
"""


def _badge(outcome: str, count: int | None = None) -> str:
    check = outcome.startswith("check: ")
    base = outcome.removeprefix("check: ")
    text = ("check " if check else "") + _label(base)
    label = f"{count} {text}" if count is not None else text
    colour = "#57606a" if check else _BADGE[base]
    return f'<span class="badge" style="background:{colour}">{html.escape(label)}</span>'


def _summary_figure(sections: dict[str, PaperSection]) -> bytes | None:
    """Claims per domain, stacked by outcome (checks apart): the picture a reader wants first."""
    from matplotlib.figure import Figure

    domains = sorted({s.paper.domain for s in sections.values()})
    if not domains:
        return None
    order = ["supported", "not supported", "inconclusive", "not reproduced", "not judged"]
    counts = {d: Counter() for d in domains}
    for s in sections.values():
        counts[s.paper.domain].update(
            cv.verdict.outcome.value for cv in s.verdicts if cv.claim.kind == "claim"
        )
    fig = Figure(figsize=(8, 0.45 * len(domains) + 1.2))
    ax = fig.subplots()
    left = [0] * len(domains)
    for outcome in order:
        widths = [counts[d][outcome] for d in domains]
        if any(widths):
            ax.barh(domains, widths, left=left, color=_BADGE[outcome], label=_label(outcome))
            left = [a + b for a, b in zip(left, widths)]
    ax.set_xlabel("claims")
    ax.invert_yaxis()
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.set_title("Verdicts per domain")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()


_FILTER_JS = """
function iclrFilter(){var o=document.getElementById('f-outcome').value,d=document.getElementById('f-domain').value;
document.querySelectorAll('tr.paper-row').forEach(function(r){
var ok=(!d||r.dataset.domain===d)&&(!o||(' '+r.dataset.outcomes+' ').indexOf(' '+o+' ')>=0);
r.style.display=ok?'':'none';});}
"""


def _html(sections: dict[str, PaperSection], warnings: list[str]) -> str:
    e = html.escape
    papers = load_catalog()
    status_counts = Counter(p.status for p in papers)
    all_counts = sum((_verdict_counts(s) for s in sections.values()), Counter())
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>iclr26 report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>iclr26: reproductions of ICLR 2026 claims</h1>",
        f"<p>{len(papers)} papers: "
        + ", ".join(f"{status_counts[s]} {s}" for s in ("reproduced", "implemented", "planned"))
        + f". Verdicts over {len(sections)} papers with results: "
        + " ".join(_badge(o, all_counts[o]) for o in _BADGE if all_counts[o])
        + "".join(
            " " + _badge(f"check: {o}", all_counts[f"check: {o}"])
            for o in _BADGE
            if all_counts[f"check: {o}"]
        )
        + "</p>",
    ]
    summary = _summary_figure(sections)
    if summary is not None:
        data = base64.b64encode(summary).decode("ascii")
        parts.append(f"<figure><img alt='verdicts per domain' src='data:image/png;base64,{data}'></figure>")
    parts += [f"<div class='warn'>{e(w)}</div>" for w in warnings]
    domains = sorted({p.domain for p in papers})
    parts.append(
        "<p>Filter: <select id='f-outcome' onchange='iclrFilter()'><option value=''>any outcome</option>"
        + "".join(f"<option value='{e(o.replace(' ', '-'))}'>{e(_label(o))}</option>" for o in _BADGE)
        + "</select> <select id='f-domain' onchange='iclrFilter()'><option value=''>any domain</option>"
        + "".join(f"<option value='{e(d)}'>{e(d)}</option>" for d in domains)
        + f"</select></p><script>{_FILTER_JS}</script>"
    )
    parts.append(
        "<table><tr><th>paper</th><th>domain</th><th>status</th><th>results</th><th>verdicts</th></tr>"
    )
    for p in _with_results_first(papers, sections):
        s = sections.get(p.slug)
        name = f"<a href='#{p.slug}'>{e(p.slug)}</a>" if s else e(p.slug)
        verdicts = "<br>".join(f"{_badge(_key(cv))} {e(cv.claim.id)}" for cv in s.verdicts) if s else ""
        if s and s.differs():
            verdicts += f"<br><b>differs from the reference: {e(', '.join(s.differs()))}</b>"
        outcomes = (
            " ".join(sorted({cv.verdict.outcome.value.replace(" ", "-") for cv in s.verdicts})) if s else ""
        )
        cls = "paper-row" + ("" if p.status != "planned" else " planned")
        source = f"{e(s.source)}, {e(s.budget)}" if s else ""
        parts.append(
            f"<tr class='{cls}' data-domain='{e(p.domain)}' data-outcomes='{e(outcomes)}'>"
            f"<td>{name}<br><small>{e(p.title)}</small></td><td>{e(p.domain)}</td><td>{e(p.status)}</td>"
            f"<td><small>{source}</small></td><td>{verdicts}</td></tr>"
        )
    parts.append("</table>")
    for slug, s in sections.items():
        p = s.paper
        links = " · ".join(f"<a href='{e(u)}'>{e(n)}</a>" for n, u in p.links.items())
        parts += [
            f"<section id='{e(slug)}'><h2>{e(p.short_name)}: {e(p.title)}</h2>",
            f"<p><code>{e(slug)}</code> · {e(p.domain)} · budget <b>{e(s.budget)}</b> · {len(s.results)} seeds"
            + f" · {e(s.source)}"
            + (f" · {links}" if links else "")
            + "</p>",
            f"<p>{e(p.summary)}</p>",
            "<table><tr><th>claim</th><th>paper</th><th>ours</th><th>verdict</th><th>why</th></tr>",
        ]
        for cv in s.verdicts:
            parts.append(
                f"<tr><td><b>{e(cv.claim.id)}</b><br>{e(cv.claim.statement)}</td><td>{e(cv.claim.paper_value)}</td>"
                f"<td>{e(cv.verdict.measured())}</td><td>{_badge(_key(cv))}</td>"
                f"<td><small>{e(cv.verdict.explanation)}</small></td></tr>"
            )
        parts.append("</table>")
        if s.other is not None:
            ref = {cv.claim.id: cv for cv in s.other.verdicts}
            parts.append(
                f"<p>Beside the {e(s.other.source)}:</p><table><tr><th>claim</th><th>reference</th>"
                "<th>yours</th></tr>"
            )
            for cv in s.verdicts:
                r = ref.get(cv.claim.id)
                flag = (
                    " <b>differs</b>" if r is not None and r.verdict.outcome is not cv.verdict.outcome else ""
                )
                rv = f"{_badge(_key(r))} {e(r.verdict.measured())}" if r is not None else "-"
                parts.append(
                    f"<tr><td>{e(cv.claim.id)}</td><td>{rv}</td>"
                    f"<td>{_badge(_key(cv))} {e(cv.verdict.measured())}{flag}</td></tr>"
                )
            parts.append("</table>")
        gaps = [s.scale_gap] + [
            f"{cv.claim.id}: {cv.claim.scale_gap}" for cv in s.verdicts if cv.claim.scale_gap
        ]
        gaps = [g for g in gaps if g]
        if gaps:
            parts.append("<p><b>Scale gap.</b> " + " ".join(e(g) for g in gaps) + "</p>")
        for w in s.warnings:
            parts.append(f"<div class='warn'>{e(w)}</div>")
        for f in s.figures:
            if f.png is None:
                continue
            data = base64.b64encode(f.png).decode("ascii")
            parts.append(
                f"<figure><img alt='{e(f.caption)}' src='data:image/png;base64,{data}'>"
                f"<figcaption>{e(f.caption)}</figcaption></figure>"
            )
        parts.append(
            "<p class='prov'>" + "<br>".join(e(x) for x in _provenance_lines(s.results)) + "</p></section>"
        )
    parts.append("</body></html>\n")
    return "\n".join(parts)


# ----------------------------------------------------------------------------------------------- Markdown
def _md_text(text: object) -> str:
    """Text from result files or the catalog, safe in Markdown: raw HTML is escaped, never rendered."""
    return html.escape(str(text), quote=False)


def _md_cell(text: object) -> str:
    return _md_text(text).replace("|", "\\|").replace("\n", " ")


def _markdown(sections: dict[str, PaperSection], warnings: list[str], fig_dir: Path, out: Path) -> str:
    papers = load_catalog()
    lines = ["# iclr26 report", ""]
    lines += [f"> warning: {_md_text(w)}" for w in warnings]
    lines += ["", "| paper | domain | status | budget | verdicts |", "|---|---|---|---|---|"]
    for p in _with_results_first(papers, sections):
        s = sections.get(p.slug)
        counts = (
            ", ".join(f"{n} {_count_label(o)}" for o, n in sorted(_verdict_counts(s).items())) if s else ""
        )
        name = f"[{p.slug}](#{p.slug})" if s else p.slug
        lines.append(f"| {name} | {p.domain} | {p.status} | {s.budget if s else ''} | {counts} |")
    for slug, s in sections.items():
        p = s.paper
        lines += [
            "",
            f'<a id="{slug}"></a>',
            f"## {p.short_name}: {p.title}",
            "",
            f"`{slug}` · budget **{s.budget}** · {len(s.results)} seeds · {_md_text(s.source)}",
            "",
            p.summary,
            "",
        ]
        lines += ["| claim | paper | ours | verdict |", "|---|---|---|---|"]
        for cv in s.verdicts:
            lines.append(
                f"| **{cv.claim.id}**: {_md_cell(cv.claim.statement)} | {_md_cell(cv.claim.paper_value)} | "
                f"{_md_cell(cv.verdict.measured())} | **{_count_label(_key(cv))}** |"
            )
        lines.append("")
        lines += [f"- {_md_text(cv.claim.id)}: {_md_text(cv.verdict.explanation)}" for cv in s.verdicts]
        if s.scale_gap:
            lines += ["", f"Scale gap: {s.scale_gap}"]
        for i, f in enumerate(s.figures):
            if f.png is None:
                lines += ["", f"> figure failed: {f.error}"]
                continue
            path = fig_dir / f"{slug}-{i + 1}.png"
            path.write_bytes(f.png)
            lines += ["", f"![{f.caption}]({path.relative_to(out).as_posix()})", f"*{f.caption}*"]
        lines += [""] + [f"<sub>{_md_text(x)}</sub><br>" for x in _provenance_lines(s.results)]
    return "\n".join(lines) + "\n"


def build_report(store: ResultStore, out: str | Path, reference: ResultStore | None = None) -> ReportPaths:
    """Write ``report.html`` and ``report.md`` (with ``figures/``) into `out` from the results in `store`.

    The report is written as a unit: everything goes into a temporary folder inside `out` first and is moved into
    place only when complete, so a failure (a full disk) leaves the previous report as it was. `reference`
    (the shipped reference results) fills in every paper the user has no results for and sits beside the rest.
    """
    import shutil
    import tempfile

    import matplotlib

    matplotlib.use("Agg")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    warnings: list[str] = []
    sections = merged_sections(store, reference, warnings)
    staging = Path(tempfile.mkdtemp(prefix=".report-", dir=out))
    try:
        fig_dir = staging / "figures"
        fig_dir.mkdir()
        atomic_write_text(staging / "report.html", _html(sections, warnings))
        atomic_write_text(staging / "report.md", _markdown(sections, warnings, fig_dir, staging))
        old_figs = out / "figures"
        retired = staging / "figures.old"
        if old_figs.exists():
            old_figs.rename(retired)
        fig_dir.rename(old_figs)
        for name in ("report.md", "report.html"):
            (staging / name).replace(out / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ReportPaths(out / "report.html", out / "report.md", warnings)
