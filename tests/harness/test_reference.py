"""Reference results: the shipped seeds are valid and current, verify catches a tampered seed, the report and the
README table come from them."""

import json
import math
from dataclasses import dataclass

import pytest

from iclr26.harness import Claim, Experiment, ResultStore, difference_at_least
from iclr26.harness.executors import SeedTask, run_seed_task
from iclr26.harness.reference import (
    REFERENCE_BUDGET,
    catalog_table,
    reference_papers,
    reference_store,
    thin_curves,
)
from iclr26.harness.registry import get_experiment, register_experiment
from iclr26.harness.report import build_report
from iclr26.harness.runner import reproduce
from iclr26.harness.verify import metrics_agree, verify

SHIPPED = [s for s in reference_store().slugs() if REFERENCE_BUDGET in reference_store().budgets(s)]


def test_reference_results_stay_small():
    root = reference_store().root
    total = sum(p.stat().st_size for p in root.rglob("*.json")) if root.is_dir() else 0
    assert total < 15 * 2**20, f"reference results take {total / 2**20:.1f} MB (limit 15 MB)"


@pytest.mark.parametrize("slug", SHIPPED)
def test_shipped_seeds_are_valid_and_of_the_current_quick_config(slug):
    loaded = reference_store().load(slug, REFERENCE_BUDGET)
    assert not loaded.errors, loaded.errors
    exp = get_experiment(slug)
    config = exp.config_dict(REFERENCE_BUDGET)
    stale = [r.seed for r in loaded.results if r.config != config]
    assert not stale, f"{slug}: reference seeds {stale} have another config than quick's: rerun them"
    assert sorted(r.seed for r in loaded.results) == list(range(exp.seeds[REFERENCE_BUDGET]))
    for r in loaded.results:
        assert all(len(c["x"]) <= 200 for c in r.curves.values()), "thin the curves (--thin)"
        assert r.provenance.get("lock"), "reference seeds record the lock they were made with"


def test_every_shipped_paper_is_judged():
    assert set(reference_papers()) == set(SHIPPED)


def test_thin_curves_keeps_ends_and_metrics():
    rec = {"metrics": {"a": 1.0}, "curves": {"c": {"x": list(range(1000)), "y": list(range(1000))}}}
    out = thin_curves(rec, 50)
    assert out["metrics"] == rec["metrics"] and len(out["curves"]["c"]["x"]) == 50
    assert out["curves"]["c"]["x"][0] == 0 and out["curves"]["c"]["x"][-1] == 999


def test_metrics_agree_tolerance_and_nan():
    assert metrics_agree({"a": 1.0, "b": float("nan")}, {"a": 1.0, "b": float("nan")}, 0.0) == ([], 0.0)
    assert metrics_agree({"a": 1.001}, {"a": 1.0}, 0.0)[0] == ["a"]
    assert metrics_agree({"a": 1.001}, {"a": 1.0}, 0.01)[0] == []
    assert metrics_agree({"a": 1.0}, {"a": 1.0, "b": 2.0}, 0.0)[0] == ["b"]


@dataclass(frozen=True)
class _Cfg:
    n: int = 3


def _toy_run(cfg, seed, device):
    import numpy as np

    rng = np.random.default_rng(seed)
    return {"ours": float(1.0 + rng.normal(0, 0.01)), "base": float(rng.normal(0, 0.01))}


TOY = Experiment(
    slug="toy-reference",
    configs={b: _Cfg() for b in ("smoke", "quick", "full")},
    seeds={"smoke": 1, "quick": 3, "full": 3},
    run=_toy_run,
    claims=[Claim("ours-wins", "ours beats base", "+1", difference_at_least("ours", "base"))],
)


def test_verify_agrees_then_catches_a_tampered_seed(tmp_path):
    register_experiment(TOY)
    ref = ResultStore(tmp_path / "ref")
    reproduce(["toy-reference"], "quick", store=ref, device="cpu")
    [check] = verify(["toy-reference"], "quick", reference=ref)
    assert check.agrees and len(check.seeds) == 3
    path = ref.path("toy-reference", "quick", 1)
    record = json.loads(path.read_text())
    record["metrics"]["ours"] += 1e-9
    path.write_text(json.dumps(record))
    [check] = verify(["toy-reference"], "quick", reference=ref)
    assert not check.agrees and check.seeds[1].differing == ["ours"]
    [check] = verify(["toy-reference"], "quick", reference=ResultStore(tmp_path / "empty"))
    assert not check.agrees and "no reference seeds" in check.problem


def test_verify_cli_exit_status(tmp_path, monkeypatch, capsys):
    from iclr26.cli import main

    register_experiment(TOY)
    ref = ResultStore(tmp_path / "ref")
    reproduce(["toy-reference"], "quick", store=ref, device="cpu")
    monkeypatch.setattr("iclr26.harness.reference.reference_root", lambda: tmp_path / "ref")
    assert main(["verify", "toy-reference", "--jobs", "1"]) == 0
    assert "agree" in capsys.readouterr().out
    path = ref.path("toy-reference", "quick", 0)
    record = json.loads(path.read_text())
    record["metrics"]["base"] = 5.0
    path.write_text(json.dumps(record))
    assert main(["verify", "toy-reference", "--jobs", "1"]) == 1
    assert "differ from the reference: toy-reference" in capsys.readouterr().err


def test_report_shows_reference_results_and_flags_a_different_verdict(tmp_path):
    """esp's smoke record stands in for reference seeds: the report shows them where the user has none, and
    beside the user's results where both exist."""
    record = run_seed_task(SeedTask("esp", "smoke", 0, "cpu"))
    ref = ResultStore(tmp_path / "ref")
    ref.write(record)
    mine = ResultStore(tmp_path / "mine")
    paths = build_report(mine, tmp_path / "mine", ref)
    html = paths.html.read_text()
    assert "id='esp'" in html and "reference (commit" in html and "iclrFilter" in html
    mine.write(record)
    html = build_report(mine, tmp_path / "mine", ref).html.read_text()
    assert "Beside the reference" in html


def test_catalog_table_counts_every_outcome():
    table = catalog_table()
    assert table.startswith("Totals over") and "not reproduced at this budget" in table
    assert table.count("\n| `") == 76


def test_shrink_record_keeps_metrics_exact_and_rounds_only_figure_data():
    from iclr26.harness.reference import compact_json, shrink_record

    rec = {
        "metrics": {"a": 0.123456789012345, "nan": float("nan")},
        "curves": {"c": {"x": list(range(500)), "y": [i / 7 for i in range(500)]}},
        "artifacts": {"h": [[1 / 3, 2 / 3], {"z": 1e-9 / 7}], "n": 5},
    }
    out = shrink_record(rec)
    assert out["metrics"]["a"] == 0.123456789012345
    assert len(out["curves"]["c"]["x"]) == 200 and out["curves"]["c"]["thinned_from"] == 500
    assert out["artifacts"]["h"][0] == [0.333333, 0.666667] and out["artifacts"]["n"] == 5
    text = compact_json(out)
    back = json.loads(text)
    assert back["metrics"]["a"] == rec["metrics"]["a"] and math.isnan(back["metrics"]["nan"])
    assert text.count("\n") == len(out) + 2, "one top-level key per line"
