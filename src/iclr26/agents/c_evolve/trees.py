"""The offline substrate: genomes are decision-tree "programs" on a bundled scikit-learn dataset.

A genome is ``(mask, max_depth, min_samples_leaf)``: a tuple of bools over the features, a depth in 2..12 and a
leaf size in {1, 2, 5, 10}. Its outputs are a ``DecisionTreeClassifier``'s (``random_state=0``) predicted labels
on the validation split (= D_met); the test split is only used for the final report. Splits are stratified
60 / 20 / 20 % per seed. Mutation: flip 1-4 mask bits and/or step one hyperparameter (never an empty mask).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from iclr26.checks import check_choice, check_int

__all__ = ["DEPTHS", "LEAVES", "TreeWorld", "mutate_tree"]

DEPTHS = tuple(range(2, 13))
LEAVES = (1, 2, 5, 10)


def mutate_tree(genome: tuple, rng: np.random.Generator, context: Mapping[str, Any] | None = None) -> tuple:
    """Flip 1-4 mask bits (probability 0.7) and/or step depth or leaf size by one (else, or probability 0.3)."""
    mask, depth, leaf = genome
    mask = np.array(mask, dtype=bool)
    flip = rng.random() < 0.7
    step = (not flip) or rng.random() < 0.3
    if flip:
        idx = rng.choice(mask.size, size=int(rng.integers(1, 5)), replace=False)
        mask[idx] = ~mask[idx]
        if not mask.any():
            mask[int(rng.integers(0, mask.size))] = True
    if step:
        if rng.random() < 0.5:
            depth = int(np.clip(depth + (1 if rng.random() < 0.5 else -1), DEPTHS[0], DEPTHS[-1]))
        else:
            j = int(np.clip(LEAVES.index(leaf) + (1 if rng.random() < 0.5 else -1), 0, len(LEAVES) - 1))
            leaf = LEAVES[j]
    return (tuple(bool(b) for b in mask), int(depth), int(leaf))


class TreeWorld:
    """One seeded split of ``load_digits`` or ``load_wine`` with cached tree fits.

    ``evaluate(genome)`` -> ``{val index: label}``; ``metric(outputs)`` -> val accuracy;
    ``test_outputs(genome)`` -> predicted test labels (array); ``seed_genome`` = all features, depth 4, leaf 1.
    """

    def __init__(self, dataset: str = "digits", seed: int = 0) -> None:
        from sklearn.datasets import load_digits, load_wine
        from sklearn.model_selection import train_test_split

        self.dataset = check_choice("dataset", dataset, ("digits", "wine"))
        self.seed = check_int("seed", seed, low=0)
        X, y = (load_digits if dataset == "digits" else load_wine)(return_X_y=True)
        Xtr, Xrest, ytr, yrest = train_test_split(X, y, test_size=0.4, random_state=seed, stratify=y)
        Xva, Xte, yva, yte = train_test_split(Xrest, yrest, test_size=0.5, random_state=seed, stratify=yrest)
        self.Xtr, self.ytr, self.Xva, self.yva, self.Xte, self.yte = Xtr, ytr, Xva, yva, Xte, yte
        self.n_features = X.shape[1]
        self.n_classes = int(y.max()) + 1
        self.majority = float(np.bincount(yte).max() / yte.size)
        self._fits: dict[tuple, Any] = {}
        self.fits = 0

    @property
    def seed_genome(self) -> tuple:
        return ((True,) * self.n_features, 4, 1)

    def _model(self, genome: tuple) -> Any:
        from sklearn.tree import DecisionTreeClassifier

        if genome not in self._fits:
            mask, depth, leaf = genome
            cols = np.flatnonzero(np.array(mask, dtype=bool))
            clf = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf, random_state=0)
            clf.fit(self.Xtr[:, cols], self.ytr)
            self.fits += 1
            self._fits[genome] = (clf, cols, clf.predict(self.Xva[:, cols]), clf.predict(self.Xte[:, cols]))
        return self._fits[genome]

    def evaluate(self, genome: tuple) -> dict[int, int]:
        return {i: int(v) for i, v in enumerate(self._model(genome)[2])}

    def metric(self, outputs: Mapping[int, int]) -> float:
        return float(np.mean([outputs[i] == self.yva[i] for i in range(self.yva.size)]))

    def test_outputs(self, genome: tuple) -> np.ndarray:
        return self._model(genome)[3]

    def test_accuracy(self, genomes: list[tuple], rng: np.random.Generator | None = None) -> float:
        """Test accuracy of the majority vote of `genomes` (random ties from `rng`, else first)."""
        from iclr26.agents.c_evolve.cevolve import majority_vote

        P = np.stack([self.test_outputs(g) for g in genomes])
        votes = np.array([majority_vote(list(P[:, j]), rng) for j in range(P.shape[1])])
        return float(np.mean(votes == self.yte))
