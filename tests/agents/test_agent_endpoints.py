"""Every agent paper's ``--llm`` path against the loopback server, with an API key in the environment.

Each paper's own tests check its numbers over the endpoint; this file checks what all of them owe a user: the key
set in the environment is sent to the server and written nowhere (no cache entry, no output, no log line), a
transient server error (HTTP 500) is retried rather than ending the run, and a server that answers malformed JSON
never makes the key appear in an error.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from iclr26.agents.ssot.scripted import ssot_reply
from tests.agents.test_c_evolve import _arith_reply as cevolve_reply
from tests.agents.test_mass import _arith_reply as mass_reply
from tests.llm_stub import serve_stub

SECRET = "sk-agentpath-0123456789abcdefghijklmnop"


def _ssot_respond():
    rng = np.random.default_rng(0)

    def respond(body):
        prompt = body["messages"][-1]["content"]
        return ssot_reply(prompt, rng) if "random_string" in prompt else "<answer>A</answer>"

    return respond


PAPERS = {
    "ssot": (lambda: _ssot_respond(), ["--tasks", "uniform-2,0.3/0.7", "--n-samples", "6"]),
    "mass": (
        lambda: mass_reply,
        [
            "--budget",
            "500",
            "--n-train",
            "8",
            "--n-val",
            "10",
            "--n-test",
            "6",
            "--n-instructions",
            "2",
            "--n-demo-sets",
            "2",
            "--n-topologies",
            "2",
        ],
    ),  # fmt: skip
    "c_evolve": (
        lambda: cevolve_reply,
        ["--budget", "4", "--n-feedback", "3", "--n-metric", "3", "--n-test", "4"],
    ),
    "vcworld": (
        lambda: lambda body: "LABEL: 1\nCONFIDENCE: 0.6",
        ["--n-triplets", "2", "--n-genes", "40", "--n-drugs", "10"],
    ),
    "autoep": (
        lambda: lambda body: "<A>0.7</A> <B>0.6</B>",
        ["--n", "10", "--instances", "1", "--generations", "10", "--pop-size", "8"],
    ),
}


def _main(paper: str):
    return importlib.import_module(f"iclr26.agents.{paper}.__main__").main


def _files_containing(root: Path, needle: str) -> list[str]:
    hits = []
    for p in root.rglob("*"):
        if p.is_file() and needle.encode() in p.read_bytes():
            hits.append(str(p.relative_to(root)))
    return hits


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_key_is_sent_but_written_nowhere_and_a_500_is_retried(paper, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    respond, args = PAPERS[paper]
    with serve_stub(respond()) as (url, state):
        state.replies = [
            (500, {"error": {"message": "overloaded"}})
        ]  # the first call fails once, then is retried
        _main(paper)(["--llm", f"{url}@stub-model", *args])
    assert len(state.requests) >= 2
    assert all(r["headers"].get("Authorization") == f"Bearer {SECRET}" for r in state.requests)
    out = capsys.readouterr()
    assert SECRET not in out.out and SECRET not in out.err
    assert _files_containing(tmp_path, SECRET) == []


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_malformed_json_never_shows_the_key(paper, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    respond, args = PAPERS[paper]
    with serve_stub(respond()) as (url, state):
        state.replies = [(200, "{not json")] * 10_000
        try:
            _main(paper)(["--llm", f"{url}@stub-model", *args])
        except SystemExit as exc:  # a CLI may turn the backend's error into an exit status
            assert SECRET not in str(exc.code)
        except Exception as exc:  # noqa: BLE001 - any error a user would see must be free of the key
            assert SECRET not in str(exc) and SECRET not in repr(exc)
    out = capsys.readouterr()
    assert SECRET not in out.out and SECRET not in out.err
    assert _files_containing(tmp_path, SECRET) == []


def test_cli_reproduce_runs_a_paper_against_the_endpoint(tmp_path, monkeypatch, capsys):
    """``iclr26 reproduce mass --llm URL@model``: the budget's config with that endpoint, stored as a distinct config
    (offline seeds are not reused), the key sent and written nowhere."""
    import json

    from iclr26.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out_dir = tmp_path / "results"
    with serve_stub(mass_reply) as (url, state):
        code = main(
            ["reproduce", "mass", "--budget", "smoke", "--llm", f"{url}@stub-model", "--out", str(out_dir)]
        )
    assert code == 0, capsys.readouterr().err
    assert state.requests and all(
        r["headers"].get("Authorization") == f"Bearer {SECRET}" for r in state.requests
    )
    record = json.loads((out_dir / "mass" / "smoke" / "seed_000.json").read_text())
    assert record["config"]["llm"] == f"{url}@stub-model"
    assert _files_containing(tmp_path, SECRET) == []


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["reproduce", "esp", "--llm", "scripted"], "paper 'esp' does not take an LLM endpoint"),
        (["reproduce", "mass", "--llm", "localhost:8000"], "--llm must be"),
    ],
)
def test_cli_llm_bad_input_is_one_line(capsys, argv, needle):
    from iclr26.cli import main

    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_cli_reproduce_runs_ssot_against_the_endpoint(tmp_path, monkeypatch, capsys):
    """``iclr26 reproduce ssot --budget smoke --llm URL@model``: both seeds send every smoke task to the endpoint
    with the direct and the SSoT prompt, the stored config names the endpoint, the key is sent and written nowhere."""
    import json

    from iclr26.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out_dir = tmp_path / "results"
    with serve_stub(_ssot_respond()) as (url, state):
        spec = f"{url}@stub-model"
        code = main(
            ["reproduce", "ssot", "--budget", "smoke", "--llm", spec, "--out", str(out_dir), "--jobs", "1"]
        )
    assert code == 0, capsys.readouterr().err
    # 2 seeds x 2 smoke tasks x 2 methods x 100 samples
    assert len(state.requests) == 800
    assert all(r["headers"].get("Authorization") == f"Bearer {SECRET}" for r in state.requests)
    for seed in (0, 1):
        record = json.loads((out_dir / "ssot" / "smoke" / f"seed_{seed:03d}.json").read_text())
        assert record["config"]["llm"] == spec
        m = record["metrics"]
        assert m["llm_invalid_ssot"] == 0.0 and m["llm_inband_ssot"] >= 0.5 and m["llm_inband_direct"] == 0.0
        assert m["llm_jsd_ssot"] < m["llm_jsd_direct"] and 0 < m["llm_gain_lo"] <= m["llm_gain_hi"]
    assert SECRET not in capsys.readouterr().out
    assert _files_containing(tmp_path, SECRET) == []


@pytest.mark.parametrize(
    ("slug", "respond"),
    [("c-evolve", lambda: cevolve_reply), ("autoep", lambda: lambda body: "<A>0.7</A> <B>0.6</B>")],
)
def test_cli_reproduce_runs_cevolve_and_autoep_against_the_endpoint(
    slug, respond, tmp_path, monkeypatch, capsys
):
    """``iclr26 reproduce <slug> --budget smoke --llm URL@model`` runs the endpoint path end to end: every smoke seed
    stored with the llm spec in its config and the endpoint metrics the paper's endpoint claim reads, the key sent
    and written nowhere."""
    import json

    from iclr26.cli import main
    from iclr26.harness.registry import get_experiment

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out_dir = tmp_path / "results"
    with serve_stub(respond()) as (url, state):
        code = main(
            ["reproduce", slug, "--budget", "smoke", "--llm", f"{url}@stub-model", "--out", str(out_dir)]
        )
    assert code == 0, capsys.readouterr().err
    assert state.requests and all(
        r["headers"].get("Authorization") == f"Bearer {SECRET}" for r in state.requests
    )
    module = importlib.import_module(f"iclr26.agents.{slug.replace('-', '_')}.experiment")
    needed = {m for c in module.ENDPOINT_CLAIMS for m in c.metrics}
    seeds = sorted((out_dir / slug / "smoke").glob("seed_*.json"))
    assert len(seeds) == get_experiment(slug).seeds["smoke"]
    for path in seeds:
        record = json.loads(path.read_text())
        assert record["config"]["llm"] == f"{url}@stub-model"
        assert needed <= set(record["metrics"])
    assert _files_containing(tmp_path, SECRET) == []
    out = capsys.readouterr()
    assert SECRET not in out.out and SECRET not in out.err
