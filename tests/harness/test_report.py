import base64
import re

import pytest

from iclr26.catalog import Paper, load_catalog
from iclr26.harness.report import build_report
from iclr26.harness.runner import reproduce
from iclr26.harness.store import ResultStore
from tests.harness import toy

TOY_PAPER = Paper(
    slug="toy-harness",
    title="A toy paper",
    short_name="Toy",
    openreview=None,
    arxiv="0000.00000",
    code=None,
    domain="mechanisms",
    tier="A",
    status="reproduced",
    module="iclr26.mechanisms.toy_harness",
    seed_file="-",
    paragraph=0,
    summary="A toy used by the report's tests.",
)


@pytest.fixture
def with_toy(monkeypatch):
    papers = (*load_catalog(), TOY_PAPER)
    monkeypatch.setattr("iclr26.harness.report.load_catalog", lambda: papers)
    return papers


def test_report_sections_figures_and_table(tmp_path, with_toy):
    store = ResultStore(tmp_path / "res")
    reproduce(["toy-harness"], "quick", store=store, device="cpu")
    paths = build_report(store, tmp_path / "res")
    page = paths.html.read_text()
    assert page.count("<tr><td>") >= 2  # claim rows
    assert "method-better" in page and "score-high" in page and "supported" in page
    assert "a toy" in page  # scale gap
    images = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert images and base64.b64decode(images[0])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "src='http" not in page  # self-contained
    assert all(p.slug in page for p in with_toy)  # the top table lists every catalog paper
    md = paths.markdown.read_text()
    assert "**method-better**" in md and (tmp_path / "res" / "figures" / "toy-harness-1.png").exists()


def test_report_survives_corrupt_files_and_broken_figures(tmp_path, with_toy, monkeypatch):
    store = ResultStore(tmp_path)
    reproduce(["toy-harness"], "quick", store=store, device="cpu")
    store.path("toy-harness", "quick", 2).write_text("{not json")
    monkeypatch.setattr(toy.TOY, "figures", [toy.loss_figure, toy.broken_figure])
    paths = build_report(store, tmp_path)
    assert any("seed_002.json" in w for w in paths.warnings)
    assert any("broken_figure" in w and "boom" in w for w in paths.warnings)
    page = paths.html.read_text()
    assert "seed_002.json" in page and "3 seeds" in page


def test_empty_store_gives_catalog_table(tmp_path):
    paths = build_report(ResultStore(tmp_path / "none"), tmp_path / "out")
    page = paths.html.read_text()
    assert all(p.slug in page for p in load_catalog())
