"""The nearest-class-mean baseline against a brute-force loop, and its errors."""

import pytest
import torch

from iclr26.lab.baselines import nearest_class_mean_accuracy


def test_matches_a_loop_over_examples():
    gen = torch.Generator().manual_seed(0)
    x, y = (
        torch.randn(60, 3, 4, generator=gen, dtype=torch.float64),
        torch.randint(0, 4, (60,), generator=gen),
    )
    xe, ye = (
        torch.randn(25, 3, 4, generator=gen, dtype=torch.float64),
        torch.randint(0, 4, (25,), generator=gen),
    )
    means = [x[y == c].reshape(-1, 12).mean(0) for c in range(4)]
    hits = [
        min(range(4), key=lambda c: float((xe[i].reshape(12) - means[c]).norm())) == int(ye[i])
        for i in range(25)
    ]
    assert nearest_class_mean_accuracy(x, y, xe, ye) == pytest.approx(sum(hits) / 25, abs=0)


def test_bad_shapes_and_empty_classes_are_named():
    x, y = torch.zeros(4, 2), torch.tensor([0, 0, 1, 1])
    with pytest.raises(ValueError, match="as many rows"):
        nearest_class_mean_accuracy(x, y[:3], x, y)
    with pytest.raises(ValueError, match=r"no example of classes \[2\]"):
        nearest_class_mean_accuracy(x, y, x, y, n_classes=3)
