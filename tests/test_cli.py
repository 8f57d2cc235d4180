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


PLANNED = next(p.slug for p in load_catalog() if p.status == "planned")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["reproduce", "no-such-paper"], "unknown paper 'no-such-paper'"),
        (["reproduce", "esp", "--budget", "huge"], "unknown budget 'huge'; choose one of smoke, quick, full"),
        (["reproduce", PLANNED], f"paper '{PLANNED}' is planned"),
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


def test_show_planned_paper(capsys):
    code, out, _ = run(capsys, "show", PLANNED)
    assert code == 0 and "Not implemented yet" in out
