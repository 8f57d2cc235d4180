"""Every experiment passes the same battery on its smoke budget (seed 0).

- the smoke run finishes and produces every metric that some claim reads;
- it is deterministic for a seed (run twice, identical metrics);
- its record is valid JSON that the store writes and reads back;
- every claim's decider accepts its metrics (judged as if it were a quick run) without crashing;
- every figure draws from the stored result;
- the smoke budget stays within the suite's time budget.

Each paper's own test file holds its oracle tests and must not rerun the smoke experiment.
"""

import contextlib
import math
import time

import pytest
import torch
from matplotlib.figure import Figure

from iclr26.harness.claims import Outcome
from iclr26.harness.executors import SeedTask, run_seed_task
from iclr26.harness.registry import get_experiment, reproducible_slugs
from iclr26.harness.runner import judge
from iclr26.harness.store import ResultStore
from tests.conformance.devices import CUDA_TOLERANCE, DeviceLog, assert_cuda_smoke_matches_cpu

SLUGS = reproducible_slugs()
SMOKE_LIMIT_S = 15.0


@pytest.fixture(scope="module")
def smoke_records():
    cache = {}

    def get(slug):
        if slug not in cache:
            t0 = time.perf_counter()
            record = run_seed_task(SeedTask(slug, "smoke", 0, "cpu"))
            cache[slug] = (record, time.perf_counter() - t0)
        return cache[slug]

    return get


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_there_are_experiments():
    assert SLUGS, "no paper is marked reproduced"


@pytest.mark.parametrize("slug", SLUGS)
def test_smoke_produces_claim_metrics_within_budget(slug, smoke_records):
    record, seconds = smoke_records(slug)
    exp = get_experiment(slug)
    missing = [m for m in exp.claim_metrics if m not in record["metrics"]]
    assert not missing, f"{slug} smoke run lacks metrics {missing}"
    assert seconds < SMOKE_LIMIT_S, f"{slug} smoke took {seconds:.1f} s (limit {SMOKE_LIMIT_S} s)"
    assert exp.claims, f"{slug} has no claims"
    assert exp.scale_gap, f"{slug} must say what differs from the paper's setting (scale_gap)"


@pytest.mark.parametrize("slug", SLUGS)
def test_smoke_is_deterministic(slug, smoke_records):
    """Two runs of seed 0 give the same metrics; for the experiments of the device table the second run also
    shows that a CPU run creates no tensor on another device (it runs under a dispatch log, 2-4x slower, so only
    there)."""
    first, _ = smoke_records(slug)
    log = DeviceLog()
    with log if slug in CUDA_TOLERANCE else contextlib.nullcontext():
        second = run_seed_task(SeedTask(slug, "smoke", 0, "cpu"))
    diff = [k for k in first["metrics"] if not same(first["metrics"][k], second["metrics"][k])]
    assert not diff, f"{slug}: metrics differ between two runs of seed 0: {diff}"
    if slug in CUDA_TOLERANCE:
        assert log.devices == {"cpu"}, f"{slug}: a CPU run created tensors on {sorted(log.devices - {'cpu'})}"


def test_device_table_names_experiments_that_declare_cuda():
    for slug in CUDA_TOLERANCE:
        assert get_experiment(slug).devices == ("cpu", "cuda"), (
            f"{slug} is in CUDA_TOLERANCE but not cuda-capable"
        )


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("slug", sorted(CUDA_TOLERANCE))
def test_smoke_seed_on_cuda_matches_cpu(slug):
    assert_cuda_smoke_matches_cpu(get_experiment(slug), CUDA_TOLERANCE[slug])


@pytest.mark.parametrize("slug", SLUGS)
def test_record_roundtrips_and_claims_judge(slug, smoke_records, tmp_path):
    record, _ = smoke_records(slug)
    store = ResultStore(tmp_path)
    store.write(record)
    loaded = store.load(slug, "smoke")
    assert not loaded.errors and len(loaded.results) == 1
    exp = get_experiment(slug)
    for cv in judge(exp, "quick", loaded.results * 3):
        assert isinstance(cv.verdict.outcome, Outcome) and cv.verdict.explanation
    assert {cv.verdict.outcome for cv in judge(exp, "smoke", loaded.results)} == {Outcome.NOT_JUDGED}


@pytest.mark.parametrize("slug", SLUGS)
def test_figures_draw(slug, smoke_records, tmp_path):
    record, _ = smoke_records(slug)
    store = ResultStore(tmp_path)
    store.write(record)
    results = store.load(slug, "smoke").results
    exp = get_experiment(slug)
    assert exp.figures, f"{slug} has no figures"
    for fn in exp.figures:
        assert fn.__doc__, f"{slug}: figure {fn.__name__} needs a docstring (its caption)"
        assert isinstance(fn(results), Figure)


@pytest.mark.parametrize("slug", SLUGS)
def test_judged_budgets_have_enough_seeds(slug):
    exp = get_experiment(slug)
    assert exp.seeds["full"] >= 3, f"{slug}: full needs at least 3 seeds for an interval"


# ---------------------------------------------------------------- every claim can pass and can fail

CLAIMS = [(slug, c.id) for slug in SLUGS for c in get_experiment(slug).claims if c.kind == "claim"]


def _claim(slug: str, claim_id: str):
    return next(c for c in get_experiment(slug).claims if c.id == claim_id)


def _declared_rows(claim, record: dict, n: int = 4) -> list[dict]:
    """`n` synthetic seeds holding only the metrics the claim declares (an undeclared read fails), spread a
    little around the smoke run's values (a claim that ``requires`` a config field the offline smoke run leaves
    unset, such as an LLM endpoint, has no smoke values: its metrics start from 0)."""
    rows = []
    for i in range(n):
        row = {}
        for m in claim.metrics:
            v = float(record["metrics"].get(m, 0.0) if claim.requires else record["metrics"][m])
            row[m] = v * (1.0 + 0.01 * (i - 1.5)) + 1e-4 * (i - 1.5) if math.isfinite(v) else 0.0
        rows.append(row)
    return rows


def _winning_rows(claim, record: dict) -> list[dict]:
    synth = claim.decide.synthesize
    assert synth is not None, (
        f"{claim.id}: its decider cannot say what a clear win looks like (give the helper or @decider a "
        "`synthesize`), so nothing shows the claim can pass"
    )
    rows = _declared_rows(claim, record)
    for p in claim.preconditions:
        rows = p.satisfy(rows)
    return synth(rows)


@pytest.mark.parametrize(("slug", "claim_id"), CLAIMS)
def test_claim_can_pass_on_a_clear_win(slug, claim_id, smoke_records):
    record, _ = smoke_records(slug)
    claim = _claim(slug, claim_id)
    verdict = claim.judge(_winning_rows(claim, record))
    assert verdict.outcome is Outcome.SUPPORTED, f"{slug}/{claim_id}: a clear win gives {verdict}"


@pytest.mark.parametrize(("slug", "claim_id"), CLAIMS)
def test_claim_fails_when_the_method_is_the_baseline(slug, claim_id, smoke_records):
    """Sabotage: each compared method metric replaced by its baseline's, every other number a clear win."""
    record, _ = smoke_records(slug)
    claim = _claim(slug, claim_id)
    for comp in claim.decide.compares:
        rows = [{**r, comp.method: r[comp.baseline]} for r in _winning_rows(claim, record)]
        verdict = claim.judge(rows)
        assert verdict.outcome is not Outcome.SUPPORTED, (
            f"{slug}/{claim_id}: with {comp.method} := {comp.baseline} the claim is still supported: {verdict}"
        )


@pytest.mark.parametrize(("slug", "claim_id"), CLAIMS)
def test_claim_is_not_reproduced_when_a_precondition_fails(slug, claim_id, smoke_records):
    record, _ = smoke_records(slug)
    claim = _claim(slug, claim_id)
    for p in claim.preconditions:
        rows = _winning_rows(claim, record)
        rows[0] = {**rows[0], p.metric: float("nan")}
        assert claim.judge(rows).outcome is Outcome.NOT_REPRODUCED, f"{slug}/{claim_id}: {p.describe()}"
