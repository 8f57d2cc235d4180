import dataclasses

import pytest

from iclr26.harness.claims import Outcome
from iclr26.harness.executors import LocalExecutor, SeedTask, run_seed_task
from iclr26.harness.experiment import Experiment
from iclr26.harness.runner import plan, reproduce
from iclr26.harness.store import ResultStore
from tests.harness.toy import TOY, ToyConfig


def test_quick_run_stores_every_seed_and_judges(tmp_path):
    store = ResultStore(tmp_path)
    [summary] = reproduce(["toy-harness"], "quick", store=store, device="cpu")
    assert [r.seed for r in summary.results] == [0, 1, 2, 3]
    assert summary.ran == [0, 1, 2, 3] and summary.skipped == []
    outcomes = {cv.claim.id: cv.verdict.outcome for cv in summary.verdicts}
    assert outcomes == {"method-better": Outcome.SUPPORTED, "score-high": Outcome.SUPPORTED}
    rec = store.read("toy-harness", "quick", 2)
    assert rec.config == {"n": 16, "effect": 0.5}
    assert rec.wall_s >= 0 and rec.peak_rss_mb > 0
    assert {"iclr26", "git", "python", "torch", "device", "started", "finished"} <= set(rec.provenance)


def test_smoke_is_never_judged(tmp_path):
    [summary] = reproduce(["toy-harness"], "smoke", store=ResultStore(tmp_path), device="cpu")
    assert {cv.verdict.outcome for cv in summary.verdicts} == {Outcome.NOT_JUDGED}


def test_rerun_skips_stored_seeds(tmp_path):
    store = ResultStore(tmp_path)
    reproduce(["toy-harness"], "quick", store=store, device="cpu")
    [again] = reproduce(["toy-harness"], "quick", store=store, device="cpu")
    assert again.ran == [] and again.skipped == [0, 1, 2, 3]
    [more] = reproduce(["toy-harness"], "quick", n_seeds=6, store=store, device="cpu")
    assert more.ran == [4, 5] and len(more.results) == 6


class DiesAfter(LocalExecutor):
    """An executor whose process is 'killed' after k seeds."""

    def __init__(self, k):
        self.k = k

    def run(self, tasks):
        for i, record in enumerate(super().run(tasks)):
            if i == self.k:
                raise KeyboardInterrupt
            yield record


def test_interrupted_run_resumes_without_rerunning(tmp_path):
    store = ResultStore(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        reproduce(["toy-harness"], "quick", store=store, device="cpu", executor=DiesAfter(1))
    assert [r.seed for r in store.load("toy-harness", "quick").results] == [0]
    first = store.path("toy-harness", "quick", 0).read_text()
    [summary] = reproduce(["toy-harness"], "quick", store=store, device="cpu")
    assert summary.skipped == [0] and summary.ran == [1, 2, 3]
    assert store.path("toy-harness", "quick", 0).read_text() == first


def test_changed_config_reruns(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    reproduce(["toy-harness"], "quick", store=store, device="cpu")
    changed = dataclasses.replace(TOY, configs={**TOY.configs, "quick": ToyConfig(16, effect=0.7)})
    assert plan(changed, "quick", store).todo == [0, 1, 2, 3]


def test_seed_task_is_deterministic():
    a = run_seed_task(SeedTask("toy-harness", "quick", 1, "cpu"))
    b = run_seed_task(SeedTask("toy-harness", "quick", 1, "cpu"))
    assert a["metrics"] == b["metrics"]


def test_experiment_validation():
    with pytest.raises(ValueError, match="full"):
        Experiment("x", {"smoke": 1, "quick": 2}, {"smoke": 1, "quick": 1}, run=lambda *a: {}, claims=[])
    with pytest.raises(ValueError, match="seeds"):
        Experiment(
            "x",
            dict.fromkeys(("smoke", "quick", "full"), 1),
            {"smoke": 1, "quick": 0, "full": 1},
            run=lambda *a: {},
            claims=[],
        )
    with pytest.raises(ValueError, match="budget"):
        Experiment("x", {"tiny": 1}, {"tiny": 1}, run=lambda *a: {}, claims=[])


def test_bad_seed_count(tmp_path):
    with pytest.raises(ValueError, match="seeds"):
        reproduce(["toy-harness"], "quick", n_seeds=0, store=ResultStore(tmp_path), device="cpu")


def test_corrupt_seed_is_named_and_rerun(tmp_path):
    store = ResultStore(tmp_path)
    reproduce(["toy-harness"], "quick", store=store, device="cpu")
    store.path("toy-harness", "quick", 1).write_text("{truncated")
    [summary] = reproduce(["toy-harness"], "quick", store=store, device="cpu")
    assert summary.ran == [1]
    assert any("seed_001.json" in e and "run again" in e for e in summary.errors)
    assert store.read("toy-harness", "quick", 1) is not None


def test_harness_applies_the_thread_limit_and_records_it(monkeypatch):
    import dataclasses

    import torch

    from iclr26.harness.executors import SeedTask, run_seed_task
    from tests.harness import toy

    seen = []

    def run(cfg, seed, device):
        seen.append(torch.get_num_threads())
        return toy.run(cfg, seed, device)

    before = torch.get_num_threads()
    monkeypatch.setattr(toy.TOY, "run", run)
    record = run_seed_task(SeedTask("toy-harness", "quick", 0, "cpu"))
    assert seen == [1] and record["provenance"]["threads"] == 1
    assert torch.get_num_threads() == before, "the limit is restored after the seed"

    @dataclasses.dataclass(frozen=True)
    class Flagged:
        n: int = 4
        single_thread: bool = False

    exp = dataclasses.replace(
        toy.TOY, configs={"smoke": Flagged(), "quick": Flagged(single_thread=True), "full": {"threads": 3}}
    )
    assert exp.threads_for("smoke") is None and exp.threads_for("quick") == 1 and exp.threads_for("full") == 3
    assert dataclasses.replace(toy.TOY, threads=None).threads_for("quick") is None
    with pytest.raises(ValueError, match="threads must be an int >= 1"):
        dataclasses.replace(toy.TOY, threads=0)


def test_usable_excludes_defects_of_one_seed_but_not_absences_by_design():
    from iclr26.harness import Claim, Decider
    from iclr26.harness.runner import usable
    from iclr26.harness.store import SeedResult

    optional = Decider(lambda rows: None, metrics=("opt",), description="optional", allow_nonfinite=("opt",))
    exp = dataclasses.replace(
        TOY,
        claims=[
            *TOY.claims,
            Claim("optional", "an optional baseline", "-", optional),
            Claim("full-only", "measured at full only", "-", Decider(lambda r: None, ("late",), "late")),
        ],
    )
    config = exp.config_dict("quick")

    def seed(i, **metrics):
        base = {"method": 1.0, "baseline": 0.0, "score": 0.9, "opt": float("nan")}
        return SeedResult("toy-harness", "quick", i, config, base | metrics, {}, {}, 0.1, None, {})

    keep, why = usable(exp, "quick", [seed(0), seed(1)])
    assert [r.seed for r in keep] == [0, 1] and not why, (
        "allowed NaN and a metric no seed has exclude nothing"
    )
    keep, why = usable(exp, "quick", [seed(0), seed(1, score=float("nan")), seed(2, late=1.0)])
    assert [r.seed for r in keep] == [2], keep
    assert any("seed 1" in w and "score" in w for w in why)
    assert any("seed 0" in w and "late" in w for w in why), (
        "measured in one seed, so missing from another is a defect"
    )


def test_overrides_change_the_config_and_never_reuse_other_seeds(tmp_path):
    store = ResultStore(tmp_path)
    reproduce(["toy-harness"], "quick", store=store, device="cpu")
    [changed] = reproduce(["toy-harness"], "quick", store=store, device="cpu", overrides={"effect": 0.0})
    assert changed.ran == [0, 1, 2, 3]  # the stored seeds were of another config
    assert store.read("toy-harness", "quick", 0).config == {"n": 16, "effect": 0.0}
    assert (
        run_seed_task(SeedTask("toy-harness", "quick", 0, "cpu", (("effect", 0.0),)))["config"]["effect"]
        == 0.0
    )
    with pytest.raises(ValueError, match="no config field 'llm'"):
        TOY.with_config("quick", llm="scripted")
    assert TOY.config("quick").effect == 0.5  # with_config returns a copy


def test_a_claim_that_requires_a_config_field_is_not_judged_without_it(tmp_path):
    from iclr26.harness.runner import judge

    needs = dataclasses.replace(TOY.claims[0], id="needs-llm", requires=("llm",))
    exp = dataclasses.replace(TOY, claims=[*TOY.claims, needs])
    assert [c.id for c in exp.claims_measured("quick")] == [c.id for c in TOY.claims]
    assert exp.claim_metrics == TOY.claim_metrics  # the offline smoke run is not asked for its metrics
    [summary] = reproduce(["toy-harness"], "quick", store=ResultStore(tmp_path), device="cpu")
    verdicts = {cv.claim.id: cv.verdict for cv in judge(exp, "quick", summary.results)}
    assert (
        verdicts["needs-llm"].outcome == Outcome.NOT_JUDGED and "--llm" in verdicts["needs-llm"].explanation
    )
    # with the field set the same claim is judged like its twin
    with_llm = dataclasses.replace(
        exp, configs={**exp.configs, "quick": {"n": 16, "effect": 0.5, "llm": "x"}}
    )
    judged = {cv.claim.id: cv.verdict for cv in judge(with_llm, "quick", summary.results)}
    assert judged["needs-llm"].outcome == judged[TOY.claims[0].id].outcome
    with pytest.raises(ValueError, match="requires must name config fields"):
        dataclasses.replace(TOY.claims[0], requires=("not a field",))


def test_a_claim_that_excludes_a_config_field_is_not_judged_with_it(tmp_path):
    from iclr26.harness.runner import judge

    offline = dataclasses.replace(TOY.claims[0], id="offline-only", excludes=("llm",))
    exp = dataclasses.replace(TOY, claims=[offline])
    [summary] = reproduce(["toy-harness"], "quick", store=ResultStore(tmp_path), device="cpu")
    assert judge(exp, "quick", summary.results)[0].verdict.outcome == Outcome.SUPPORTED
    with_llm = dataclasses.replace(
        exp, configs={**exp.configs, "quick": {"n": 16, "effect": 0.5, "llm": "x"}}
    )
    [cv] = judge(with_llm, "quick", summary.results)
    assert cv.verdict.outcome == Outcome.NOT_JUDGED and "only without llm" in cv.verdict.explanation
    assert with_llm.claims_measured("quick") == [] and with_llm.claim_metrics_for("quick") == []
