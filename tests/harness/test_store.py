import json

import pytest

from iclr26.harness.store import CorruptResultError, ResultStore


def record(seed=0, **over):
    rec = {
        "slug": "toy-harness",
        "budget": "quick",
        "seed": seed,
        "config": {"n": 4},
        "metrics": {"a": 1.0, "b": float("nan")},
        "curves": {},
        "artifacts": {},
        "wall_s": 0.1,
        "peak_rss_mb": 100.0,
        "provenance": {"iclr26": "x"},
    }
    rec.update(over)
    return rec


def test_roundtrip_and_layout(tmp_path):
    store = ResultStore(tmp_path)
    path = store.write(record(3))
    assert path == tmp_path / "toy-harness" / "quick" / "seed_003.json"
    got = store.read("toy-harness", "quick", 3)
    assert got.metrics["a"] == 1.0 and got.seed == 3
    assert store.read("toy-harness", "quick", 4) is None
    assert store.slugs() == ["toy-harness"] and store.budgets("toy-harness") == ["quick"]


def test_no_temp_files_left(tmp_path):
    store = ResultStore(tmp_path)
    for s in range(3):
        store.write(record(s))
    assert sorted(p.name for p in (tmp_path / "toy-harness" / "quick").iterdir()) == [
        "seed_000.json",
        "seed_001.json",
        "seed_002.json",
    ]


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    path = store.write(record(0))
    before = path.read_text()

    def explode(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr("iclr26.harness.store.os.replace", explode)
    with pytest.raises(OSError):
        store.write(record(0, metrics={"a": 2.0}))
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir()] == ["seed_000.json"]


def test_invalid_record_rejected(tmp_path):
    with pytest.raises(CorruptResultError, match="missing"):
        ResultStore(tmp_path).write({"slug": "x", "budget": "quick", "seed": 0})


def test_corrupt_file_named_and_collected(tmp_path):
    store = ResultStore(tmp_path)
    store.write(record(0))
    bad = store.path("toy-harness", "quick", 1)
    bad.write_text('{"slug": "toy-harness", "truncated')
    (tmp_path / "toy-harness" / "quick" / "seed_002.json").write_text(json.dumps({"slug": 1}))
    loaded = store.load("toy-harness", "quick")
    assert [r.seed for r in loaded.results] == [0]
    assert len(loaded.errors) == 2
    assert "seed_001.json" in str(loaded.errors[0]) and "not valid JSON" in str(loaded.errors[0])
    with pytest.raises(CorruptResultError, match="seed_001.json"):
        store.read("toy-harness", "quick", 1)


def test_bad_budget_and_seed(tmp_path):
    store = ResultStore(tmp_path)
    with pytest.raises(ValueError, match="budget"):
        store.path("x", "huge", 0)
    with pytest.raises(ValueError, match="seed"):
        store.path("x", "quick", -1)
