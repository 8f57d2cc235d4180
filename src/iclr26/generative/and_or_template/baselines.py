"""Baselines: a small pixel CNN rating regressor (PyTorch), ridge on hand features, k-means paradigm recovery."""

from __future__ import annotations

import numpy as np
import torch
from sklearn.cluster import KMeans
from sklearn.linear_model import Ridge
from torch import nn

from iclr26.checks import check_array, check_int, check_tensor
from iclr26.generative.and_or_template.terms import geometry

__all__ = ["SmallCNN", "hand_features", "kmeans_paradigms", "ridge_ratings", "train_cnn"]


class SmallCNN(nn.Module):
    """Two conv blocks and a linear head: (batch, 3, H, W) pixels -> (batch,) rating."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = check_int("width", width, 1)
        self.net = nn.Sequential(
            nn.Conv2d(3, w, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(w, 2 * w, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(4),
            nn.Flatten(),
            nn.Linear(32 * w, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, ndim=4, floating=True, shape=(None, 3, None, None))
        return self.net(x)[:, 0]


def train_cnn(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    steps: int = 300,
    seed: int = 0,
    lr: float = 3e-3,
    batch: int = 32,
) -> np.ndarray:
    """Train SmallCNN on standardised ratings (Adam, fixed steps) and predict the test ratings."""
    x = check_array("x_train", x_train, ndim=4, finite=True)  # validated here, converted as given below
    check_array("y_train", y_train, ndim=1, finite=True)
    if len(y_train) != x.shape[0] or x.shape[0] < 1:
        raise ValueError(
            f"y_train must hold one rating per image of x_train ({x.shape[0]}), got {len(y_train)}"
        )
    test = check_array("x_test", x_test, ndim=4, finite=True)
    if test.shape[1:] != x.shape[1:]:
        raise ValueError(f"x_test must have images of x_train's shape {x.shape[1:]}, got {test.shape[1:]}")
    check_int("steps", steps, low=0)
    check_int("batch", batch, low=1)
    torch.manual_seed(seed)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    xt, yt = torch.tensor(x_train), torch.tensor(y_train, dtype=torch.float32)
    mu, sd = yt.mean(), yt.std().clamp_min(1e-6)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, len(xt), (min(batch, len(xt)),), generator=g)
        loss = ((model(xt[idx]) - (yt[idx] - mu) / sd) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return (model(torch.tensor(x_test)) * sd + mu).numpy()


def hand_features(scenes) -> np.ndarray:
    """The flattened geometry array (presence, cx, cy, log scale, angle per category)."""
    geo = geometry(scenes)
    return geo.reshape(len(geo), -1)


def ridge_ratings(train, y_train, test, alpha: float = 1.0) -> np.ndarray:
    return Ridge(alpha=alpha).fit(hand_features(train), y_train).predict(hand_features(test))


def kmeans_paradigms(scenes, k: int, seed: int = 0) -> np.ndarray:
    return KMeans(k, n_init=5, random_state=seed).fit_predict(hand_features(scenes))
