"""Bad input to the zero-/few-shot evolution simulator, body operators, controller and loops (arXiv 2502.10862)."""

import numpy as np
import torch

from iclr26.decision.zero_shot_evolution import (
    MassSpring2D,
    NoveltyArchive,
    UniversalController,
    Workspace,
    crossover,
    evolve,
    mutate,
    pretrain,
    variation,
)

WS = Workspace()
SIM = MassSpring2D()
ONE = np.zeros((5, 5), dtype=np.uint8)
ONE[2, 0] = 1
CTRL = UniversalController(36, 110, (8, 8, 8))


def _two(x):
    return np.stack([ONE, x])


CASES = [
    (lambda: WS.phenotype(np.zeros((5, 5))), ValueError, ["genotypes", "at least one voxel", "empty"]),
    (lambda: SIM.rollout(_two(np.zeros((5, 5))), None, torch.ones(2), 5), ValueError, ["bodies", "empty"]),
    (lambda: WS.phenotype(np.ones((4, 5))), ValueError, ["genotypes", "grid shape (5, 5)", "(4, 5)"]),
    (
        lambda: SIM.rollout(np.ones((2, 6, 5)), None, torch.ones(2), 5),
        ValueError,
        ["bodies", "(5, 5)", "(6, 5)"],
    ),
    (lambda: SIM.rollout(ONE, None, torch.ones(1), 5), ValueError, ["bodies", "3-D", "(B, nx, ny)"]),
    (lambda: WS.phenotype(np.full((5, 5), 2)), ValueError, ["genotypes", "binary", "0 and 1"]),
    (lambda: mutate(ONE * 0.5, np.random.default_rng(0), NoveltyArchive()), ValueError, ["g", "binary"]),
    (lambda: MassSpring2D(dt=0.02), ValueError, ["dt = 0.02", "stability", "2 / sqrt(k / mass)"]),
    (
        lambda: MassSpring2D(dt=0.008, k=15_000.0, mass=0.1),
        ValueError,
        ["dt = 0.008", "stability", "mass = 0.1"],
    ),
    (lambda: MassSpring2D(dt=-1.0), ValueError, ["dt", "> 0"]),
    (lambda: SIM.rollout(_two(ONE), None, torch.ones(3), 5), ValueError, ["lights", "(2)"]),
    (lambda: SIM.rollout(_two(ONE), None, torch.ones(2), 0), ValueError, ["steps", ">= 1"]),
    (
        lambda: SIM.rollout(_two(ONE), lambda x: x[:, :3], torch.ones(2), 2),
        ValueError,
        ["controller", "(2, 110)"],
    ),
    (lambda: CTRL(torch.zeros(2, 36)), ValueError, ["inputs", "(*, 41)"]),
    (lambda: UniversalController(0, 110), ValueError, ["n_masses", ">= 1"]),
    (lambda: crossover(ONE, np.ones((4, 4), dtype=np.uint8), NoveltyArchive()), ValueError, ["g2", "(5, 5)"]),
    (
        lambda: variation(ONE[None], np.random.default_rng(0), NoveltyArchive(), 1.5),
        ValueError,
        ["mutate_frac"],
    ),
    (
        lambda: evolve(
            "coevolve", _two(ONE), CTRL, SIM, torch.ones(1), 1, NoveltyArchive(), np.random.default_rng(0)
        ),
        ValueError,
        ["mode", "'zeroshot'", "'coevolve'"],
    ),
    (
        lambda: evolve(
            "zeroshot", ONE[None], CTRL, SIM, torch.ones(1), 1, NoveltyArchive(), np.random.default_rng(0)
        ),
        ValueError,
        ["population", "at least 2"],
    ),
    (
        lambda: pretrain(CTRL, SIM, ONE[None], 1, 4, np.random.default_rng(0), 5),
        ValueError,
        ["batch_size", "<= 1"],
    ),
]
