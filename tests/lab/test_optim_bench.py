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
