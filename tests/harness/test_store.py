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
    with pytest.raises(CorruptResultError, match="config: Field required"):
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


# ---------------------------------------------------------------- defensive reads


def _raw(store, slug, budget, name, obj_or_text):
    folder = store.root / slug / budget
    folder.mkdir(parents=True, exist_ok=True)
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    (folder / name).write_text(text)
    return folder / name


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        (record(1, provenance="x"), "provenance"),
        (record(1, peak_rss_mb="12"), "peak_rss_mb"),
        (record(1, metrics={"a": "1.0"}), "metrics.a"),
        (record(1, metrics={"a": True}), "metrics.a"),
        (record(1, schema=7), "schema"),
        (record(1, budget="weekly"), "budget"),
        ({**record(1), "seed": -1}, "seed"),
    ],
)
def test_bad_files_are_named_and_skipped(tmp_path, content, reason):
    store = ResultStore(tmp_path)
    store.write(record(0))
    _raw(store, "toy-harness", "quick", "seed_001.json", content)
    loaded = store.load("toy-harness", "quick")
    assert [r.seed for r in loaded.results] == [0]
    assert (
        len(loaded.errors) == 1
        and reason in str(loaded.errors[0])
        and "seed_001.json" in str(loaded.errors[0])
    )


def test_a_directory_named_like_a_seed_is_reported(tmp_path):
    store = ResultStore(tmp_path)
    (tmp_path / "toy-harness" / "quick" / "seed_002.json").mkdir(parents=True)
    loaded = store.load("toy-harness", "quick")
    assert not loaded.results and "not a regular file" in str(loaded.errors[0])


def test_a_seed_is_counted_once_whatever_the_file_names(tmp_path):
    store = ResultStore(tmp_path)
    store.write(record(0))
    _raw(store, "toy-harness", "quick", "seed_0.json", record(0, metrics={"a": 5.0}))
    loaded = store.load("toy-harness", "quick")
    assert len(loaded.results) == 1 and loaded.results[0].metrics["a"] == 1.0  # the canonical file wins
    assert "a second file for seed 0" in str(loaded.errors[0])


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("seed_001.json", record(1, slug="other"), "lies in the folder"),
        ("seed_001.json", record(1, budget="full"), "lies in the folder"),
        ("seed_001.json", record(4), "its name says 001"),
    ],
)
def test_a_file_in_the_wrong_place_is_excluded(tmp_path, name, content, reason):
    store = ResultStore(tmp_path)
    _raw(store, "toy-harness", "quick", name, content)
    loaded = store.load("toy-harness", "quick")
    assert not loaded.results and reason in str(loaded.errors[0])


def test_stale_temp_files_of_dead_writers_are_cleaned(tmp_path):
    import os
    import subprocess

    store = ResultStore(tmp_path)
    store.write(record(0))
    proc = subprocess.Popen(["true"])
    proc.wait()
    folder = tmp_path / "toy-harness" / "quick"
    stale = folder / f".seed_001.json.{proc.pid}.abc123.tmp"
    live = folder / f".seed_002.json.{os.getpid()}.def456.tmp"
    stale.write_text("{")
    live.write_text("{")
    assert store.clean_stale_temp("toy-harness", "quick") == [stale]
    assert live.exists() and not stale.exists()
