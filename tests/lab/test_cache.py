"""The shared on-disk cache: keys, atomic saves, load-or-build, unreadable entries."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from iclr26.lab.cache import (
    CacheEntryError,
    atomic_torch_save,
    cache_file,
    cache_root,
    cached_torch,
    config_key,
)


@dataclass(frozen=True)
class Cfg:
    width: int = 3
    name: str = "a"


def test_keys_are_stable_and_sensitive() -> None:
    assert config_key(Cfg()) == config_key(Cfg()) == config_key({"width": 3, "name": "a"})
    assert config_key(Cfg(width=4)) != config_key(Cfg())
    assert config_key(Cfg(), version=2) != config_key(Cfg())
    with pytest.raises(TypeError, match="config"):
        config_key([1, 2])


def test_root_from_argument_then_environment(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "env"))
    assert cache_root() == tmp_path / "env"
    assert cache_root(tmp_path / "arg") == tmp_path / "arg"
    assert cache_file("ns", Cfg(), tmp_path).parent == tmp_path / "ns"


def test_load_or_build_builds_once(tmp_path) -> None:
    calls = []

    def build():
        calls.append(1)
        return {"w": torch.arange(3.0), "n": 7}

    first = cached_torch("ns", Cfg(), build, cache_dir=tmp_path)
    second = cached_torch("ns", Cfg(), build, cache_dir=tmp_path)
    assert len(calls) == 1 and torch.equal(first["w"], second["w"]) and second["n"] == 7
    cached_torch("ns", Cfg(), build, cache=False, cache_dir=tmp_path)
    assert len(calls) == 2
    assert sorted(p.name for p in (tmp_path / "ns").iterdir()) == [f"{config_key(Cfg())}.pt"]  # no temp files


def test_unreadable_entry_names_the_file(tmp_path) -> None:
    path = cache_file("ns", Cfg(), tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a torch file")
    with pytest.raises(CacheEntryError, match="delete it"):
        cached_torch("ns", Cfg(), lambda: 1, cache_dir=tmp_path)


def test_failed_save_leaves_nothing(tmp_path) -> None:
    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        atomic_torch_save(Unpicklable(), tmp_path / "x.pt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("namespace", ["", "a/b", ".hidden", 3])
def test_bad_namespace(namespace, tmp_path) -> None:
    with pytest.raises(ValueError, match="namespace"):
        cache_file(namespace, Cfg(), tmp_path)


def test_builds_run_on_build_threads_and_restore_the_callers(tmp_path):
    from iclr26.lab.cache import BUILD_THREADS

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        seen = cached_torch("threads", {"k": 1}, lambda: {"n": torch.get_num_threads()}, cache_dir=tmp_path)
        assert seen["n"] == BUILD_THREADS
        assert cached_torch("threads", {"k": 2}, torch.get_num_threads, cache=False) == BUILD_THREADS
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_seed_provenance_records_loaded_and_built_entries(tmp_path) -> None:
    """A seed's provenance lists the cached artifacts it loaded (possibly built by older code) and built."""
    from iclr26.harness.provenance import CacheUses

    with CacheUses() as first:
        cached_torch("demo", {"w": 1}, lambda: {"x": torch.ones(1)}, cache_dir=tmp_path)
    with CacheUses() as second:
        cached_torch("demo", {"w": 1}, lambda: 1 / 0, cache_dir=tmp_path)
        cached_torch("demo", {"w": 1}, lambda: {"x": torch.ones(1)}, cache=False)
    key = cache_file("demo", {"w": 1}, tmp_path).stem
    assert first.summary() == {"loaded": [], "built": [f"demo/{key}"]}
    assert second.summary() == {"loaded": [f"demo/{key}"], "built": []}
