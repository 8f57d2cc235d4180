import csv
import json
from pathlib import Path

import pytest

from iclr26.catalog import load_catalog
from iclr26.cli import main

SHARED_TSV = Path(__file__).resolve().parents[1].parent / "shared" / "papers" / "catalog.tsv"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_json_has_every_paper(capsys):
    code, out, _ = run(capsys, "list", "--json")
    entries = json.loads(out)
    assert code == 0 and len(entries) == 76
    if SHARED_TSV.exists():
        with SHARED_TSV.open() as fh:
            assert [e["slug"] for e in entries] == [r["slug"] for r in csv.DictReader(fh, delimiter="\t")]


def test_list_filters(capsys):
    code, out, _ = run(capsys, "list", "--json", "--domain", "mechanisms")
    assert code == 0 and {e["domain"] for e in json.loads(out)} == {"mechanisms"}
    code, out, _ = run(capsys, "list", "--status", "reproduced", "--json")
    assert code == 0 and all(e["status"] == "reproduced" for e in json.loads(out))


def test_list_table(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and "esp" in out


def test_show_card(capsys):
    code, out, _ = run(capsys, "show", "esp")
    assert code == 0 and load_catalog()[0].title.split()[0] in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["reproduce", "no-such-paper"], "unknown paper 'no-such-paper'"),
        (["reproduce", "esp", "--budget", "huge"], "unknown budget 'huge'; choose one of smoke, quick, full"),
        (["reproduce", "esp", "--seeds", "zero"], "--seeds must be a positive integer"),
        (["reproduce", "esp", "--seeds", "0"], "--seeds must be a positive integer"),
        (["reproduce", "esp", "--device", "tpu"], "unknown device 'tpu'"),
        (["reproduce", "esp", "--executor", "spark"], "unknown executor 'spark'"),
        (["reproduce"], "name at least one paper slug, or pass --all"),
        (["reproduce", "esp", "--all"], "not both"),
        (["show", "nope"], "unknown paper 'nope'"),
        (["list", "--domain", "biology"], "unknown domain 'biology'"),
        (["list", "--status", "done"], "unknown status 'done'"),
        (["frobnicate"], "No such command"),
        (["list", "--bogus"], "No such option"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err + out


def test_reproduce_smoke_and_report(capsys, tmp_path):
    code, out, err = run(
        capsys, "reproduce", "esp", "--budget", "smoke", "--out", str(tmp_path), "--device", "cpu"
    )
    assert code == 0, err
    assert (tmp_path / "esp" / "smoke" / "seed_000.json").exists()
    assert "not judged" in out
    code, out, err = run(
        capsys, "reproduce", "esp", "--budget", "smoke", "--out", str(tmp_path), "--device", "cpu"
    )
    assert code == 0 and "0 run now, 1 already stored" in out
    code, out, _ = run(capsys, "report", "--out", str(tmp_path))
    assert code == 0 and (tmp_path / "report.html").exists() and (tmp_path / "report.md").exists()
    code, out, _ = run(capsys, "show", "esp", "--out", str(tmp_path))
    assert code == 0 and "Last verdicts" in out


def test_bare_command_prints_help(capsys):
    code, out, _ = run(capsys)
    assert code == 0 and "reproduce" in out and "report" in out


def test_reproduce_planned_paper_is_one_line_exit_2(capsys, planned_slug):
    code, out, err = run(capsys, "reproduce", planned_slug)
    assert code == 2 and f"paper '{planned_slug}' is planned" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err + out


def test_show_planned_paper(capsys, planned_slug):
    code, out, _ = run(capsys, "show", planned_slug)
    assert code == 0 and "Not implemented yet" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--seeds", "1_0"], "--seeds must be a positive integer written in digits"),
        (["--seeds", "99999999999999999999999"], "--seeds must be a positive integer in 1..10000"),
        (["--jobs", "0"], "--jobs must be a positive integer"),
        (["--jobs", "two"], "--jobs must be a positive integer"),
        (["--out", ""], "--out must name a folder"),
        (["--out", "/proc/iclr26"], "cannot be written"),
        (["--out", "x" * 300], "cannot be written"),
    ],
)
def test_reproduce_arguments_checked_before_any_work(capsys, tmp_path, argv, needle):
    code, out, err = run(capsys, "reproduce", "esp", "--budget", "smoke", *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.iterdir())


def test_out_pointing_at_a_file_is_refused(capsys, tmp_path):
    target = tmp_path / "f"
    target.write_text("x")
    code, _, err = run(capsys, "reproduce", "esp", "--budget", "smoke", "--out", str(target))
    assert code == 2 and "is not a folder" in err
    code, _, err = run(capsys, "report", "--out", str(target))
    assert code == 2 and "is not a folder" in err


def test_cuda_is_refused_for_a_cpu_only_experiment(capsys, tmp_path):
    from dataclasses import dataclass

    from iclr26.harness import Claim, Experiment, mean_at_least
    from iclr26.harness.registry import register_experiment

    @dataclass(frozen=True)
    class Cfg:
        n: int = 1

    exp = Experiment(
        slug="toy-cpu-only",
        configs={b: Cfg() for b in ("smoke", "quick", "full")},
        seeds={"smoke": 1, "quick": 3, "full": 3},
        run=lambda cfg, seed, device: {"x": 1.0},
        claims=[Claim("x", "x is positive", "1", mean_at_least("x", 0.0))],
    )
    assert exp.devices == ("cpu",)
    register_experiment(exp)
    code, _, err = run(capsys, "reproduce", "toy-cpu-only", "--device", "cuda", "--out", str(tmp_path))
    assert code == 2 and "supports --device cpu only" in err
    assert not (tmp_path / "toy-cpu-only").exists()


def test_provenance_names_the_device_used(tmp_path):
    from iclr26.harness.provenance import device_name

    assert device_name("cpu", None).startswith("cpu")
    assert device_name("cuda", None).startswith("cpu") and "no tensor was allocated" in device_name(
        "cuda", 0.0
    )


def test_jobs_2_equals_jobs_1_file_for_file(capsys, tmp_path):
    for jobs in ("1", "2"):
        code, _, err = run(
            capsys,
            "reproduce",
            "esp",
            "--budget",
            "smoke",
            "--seeds",
            "2",
            "--jobs",
            jobs,
            "--out",
            str(tmp_path / jobs),
        )
        assert code == 0, err
    for seed in (0, 1):
        a, b = (
            json.loads((tmp_path / j / "esp" / "smoke" / f"seed_{seed:03d}.json").read_text()) for j in "12"
        )
        for key in ("config", "metrics", "curves", "artifacts"):
            assert a[key] == b[key], (seed, key)


def _fresh_sigint() -> None:
    """In the child, before exec: SIGINT unblocked and at its default action, as in a user's terminal.

    A child inherits its parent's signal mask and ignored dispositions; inside the full suite the pytest worker
    (after Ray and multiprocessing tests ran in it) can pass SIGINT on blocked, and the CLI then never sees it.
    """
    import signal

    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupt_prints_one_line_and_exits_130(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "iclr26.cli",
            "reproduce",
            "esp",
            "--budget",
            "smoke",
            "--seeds",
            "200",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_fresh_sigint,
    )
    folder = tmp_path / "esp" / "smoke"
    # generous waits: on a loaded 2-core machine two spawned workers take a minute to store their first seed
    deadline = time.time() + 150
    while time.time() < deadline and not (folder.is_dir() and any(folder.glob("seed_*.json"))):
        time.sleep(0.2)
    status = Path(f"/proc/{proc.pid}/status")
    masks = [ln for ln in status.read_text().splitlines() if ln.startswith("Sig")] if status.exists() else []
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"no exit within 120 s of SIGINT; the child's signal state then: {masks}")
    stored = len(list(folder.glob("seed_*.json")))
    assert proc.returncode == 130
    assert f"interrupted: {stored} of 200 seeds stored" in err and "Traceback" not in err
