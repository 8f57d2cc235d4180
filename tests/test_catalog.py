import csv
import importlib
from pathlib import Path

import pytest

from iclr26.catalog import DOMAINS, UnknownPaperError, get_paper, load_catalog, paper_module

SHARED_TSV = Path(__file__).resolve().parents[1].parent / "shared" / "papers" / "catalog.tsv"


def test_catalog_has_76_unique_papers():
    papers = load_catalog()
    assert len(papers) == 76
    assert len({p.slug for p in papers}) == 76
    assert {p.domain for p in papers} <= set(DOMAINS)


@pytest.mark.skipif(not SHARED_TSV.exists(), reason="the shared catalog.tsv is not beside this checkout")
def test_catalog_matches_shared_tsv():
    with SHARED_TSV.open() as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    papers = load_catalog()
    assert [p.slug for p in papers] == [r["slug"] for r in rows]
    for p, r in zip(papers, rows):
        assert p.domain == ("optim" if r["domain"] == "optimization" else r["domain"])
        assert (p.seed_file, p.paragraph) == (r["seed_file"], int(r["paragraph"]))


def test_every_entry_is_complete():
    for p in load_catalog():
        assert p.title and p.short_name and p.summary, p.slug
        assert 40 <= len(p.summary.split()) <= 130, p.slug


def test_status_matches_the_code():
    for p in load_catalog():
        if p.status == "planned":
            continue
        module = importlib.import_module(p.module)
        assert getattr(module, "__all__", None), f"{p.module} must declare its public API in __all__"
        if p.status == "reproduced":
            exp = importlib.import_module(f"{p.module}.experiment").EXPERIMENT
            assert exp.slug == p.slug
            readme = Path(module.__file__).with_name("README.md")
            assert readme.exists(), f"{p.slug} needs a README.md"


def test_unknown_slug_suggests():
    with pytest.raises(UnknownPaperError, match="did you mean esp"):
        get_paper("espp")


def test_planned_paper_has_no_module(planned_slug):
    with pytest.raises(LookupError, match="planned"):
        paper_module(planned_slug)


def test_readme_table_is_current():
    from iclr26.harness.reference import catalog_table

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert catalog_table() in readme, (
        "README's catalog table is stale: regenerate with `python -m iclr26.harness.reference`"
    )
