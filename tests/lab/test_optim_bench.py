"""The optimizer bench's learning-rate ladder: slides while the winner sits on an edge, reuses known points."""

import math

from iclr26.lab.optim_bench import ladder_search

LADDER = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)


def bowl(center):
    calls = []

    def measure(lrs):
        calls.append(list(lrs))
        return {lr: (math.log10(lr) - math.log10(center)) ** 2 for lr in lrs}

    return measure, calls


def test_interior_winner_stops_after_one_window():
    measure, calls = bowl(1e-3)
    out = ladder_search(measure, (3e-4, 1e-3, 3e-3), LADDER, 3)
    assert out.best_in_window == out.best_overall == 1e-3 and calls == [[3e-4, 1e-3, 3e-3]]


def test_edge_winner_slides_and_measures_only_new_points():
    measure, calls = bowl(3e-2)
    out = ladder_search(measure, (1e-3, 3e-3, 1e-2), LADDER, 3)
    assert out.grids == [[1e-3, 3e-3, 1e-2], [3e-3, 1e-2, 3e-2], [1e-2, 3e-2, 1e-1]]
    assert calls[1:] == [[3e-2], [1e-1]] and out.best_in_window == 3e-2


def test_window_cap_and_known_points_and_divergence():
    measure, calls = bowl(1e-1)
    out = ladder_search(measure, (1e-3, 3e-3, 1e-2), LADDER, 2, known={"0.001": 9.0, "0.003": 8.0})
    assert calls == [[1e-2], [3e-2]] and len(out.grids) == 2 and out.best_overall == 3e-2

    def diverge(lrs):
        raise RuntimeError("every point diverged")

    out = ladder_search(diverge, (1e-3, 3e-3, 1e-2), LADDER, 3)  # nothing finite: slide towards smaller rates
    assert out.grids[-1] == [1e-4, 3e-4, 1e-3] and out.best_in_window == 1e-4
    assert all(math.isnan(v) for v in out.losses.values())


def test_bench_optimizers_records_the_template_metrics_with_shared_init():
    from dataclasses import dataclass

    import torch

    from iclr26.lab.optim_bench import bench_optimizers, trained_below_marginal

    @dataclass(frozen=True)
    class Tiny:
        n_layers: int = 1
        d_model: int = 16
        n_heads: int = 2
        seq_len: int = 16
        steps: int = 4
        batch_size: int = 4
        eval_every: int = 2
        eval_batches: int = 1
        max_chars: int = 20_000

    runs = [
        ("sgd", lambda m: torch.optim.SGD(m.parameters(), lr=0.1)),
        ("adamw", lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2)),
    ]
    bench = bench_optimizers(Tiny(), 0, "cpu", runs, "test")
    v = bench.values
    for name in ("sgd", "adamw"):
        assert math.isclose(v[f"{name}_final_over_marginal"], v[f"{name}_final"] / v["marginal_eval_loss"])
        assert v[f"{name}_diverged"] == 0.0 and v[f"{name}_state_floats"] >= 0
        assert f"{name}_eval" in bench.curves and name in bench.seconds
    assert v["sgd_state_floats"] < v["adamw_state_floats"], "AdamW keeps two moments, plain SGD none"
    first = [p.detach() for p in bench.runs["sgd"].model.parameters()]
    again = bench_optimizers(Tiny(), 0, "cpu", runs[:1], "test")
    assert all(torch.equal(a, b.detach()) for a, b in zip(first, again.runs["sgd"].model.parameters()))
    assert trained_below_marginal("sgd", "SGD").metric == "sgd_final_over_marginal"


def _tiny_gpt():
    from iclr26.lab.tinygpt import TinyGPT, TinyGPTConfig

    return TinyGPT(TinyGPTConfig(n_layers=1, d_model=16, n_heads=2, seq_len=8), 11, init_seed=0)


def test_shared_baselines_build_their_library_optimizers():
    import pytest
    import torch
    from pytorch_optimizer import SOAP, GaLore

    from iclr26.lab.optim_baselines import BASELINE_NAMES, baseline

    kinds = {"adamw": torch.optim.AdamW, "soap": SOAP, "galore": GaLore, "muon": torch.optim.Muon}
    for name in BASELINE_NAMES:
        built = baseline(name, _tiny_gpt(), 1e-3, 4, 7)
        first = built[0] if isinstance(built, list) else built
        assert isinstance(first, kinds[name])
        assert all(
            g["weight_decay"] == 0.0
            for o in (built if isinstance(built, list) else [built])
            for g in o.param_groups
        )
    galore = baseline("galore", _tiny_gpt(), 1e-3, 4, 7)
    assert galore.param_groups[0]["update_proj_gap"] == 7 and galore.param_groups[0]["rank"] == 4
    muon = baseline("muon", _tiny_gpt(), 1e-3, 4, 7)
    assert all(p.ndim == 2 for p in muon[0].param_groups[0]["params"]) and isinstance(
        muon[1], torch.optim.AdamW
    )
    with pytest.raises(ValueError, match="name"):
        baseline("adam", _tiny_gpt(), 1e-3, 4, 7)


def test_same_setting_ignores_only_the_named_keys():
    from iclr26.lab.optim_baselines import same_setting

    a, b = {"steps": 10, "optimizers": ["adamw"]}, {"steps": 10, "optimizers": ["muon"]}
    assert same_setting(a, b, ("optimizers",)) and not same_setting(a, b)
    assert not same_setting({}, a)


def test_basis_orth_error_measures_drift_from_orthonormal():
    import torch

    from iclr26.lab.optim_bench import basis_orth_error

    w = torch.nn.Parameter(torch.zeros(4, 3))
    opt = torch.optim.SGD([w], lr=0.1)
    opt.state[w]["U"] = torch.eye(4)[:, :2] * 1.5
    assert math.isclose(basis_orth_error(opt, [w], "U"), 1.25) and basis_orth_error(opt, [], "U") == 0.0
