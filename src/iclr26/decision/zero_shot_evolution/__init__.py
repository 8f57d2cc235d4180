"""Zero-/few-shot evolution: accelerated co-design of robots through morphological pretraining (Strgar &
Kriegman, ICLR 2026, arXiv 2502.10862).

A differentiable 2-D voxel mass-spring simulator batched over bodies (:class:`MassSpring2D`), the voxel genotype
machinery with the official novelty archive over canonical forms (:mod:`.body`), one morphology-agnostic
:class:`UniversalController` pretrained by backpropagation through the simulator over many random bodies
(:func:`pretrain`), and the co-design loops (:func:`evolve`): zero-shot (frozen pretrained controller), few-shot
(reset and fine-tune every generation) and the simultaneous co-design baseline (one controller inherited across
generations).

The brief's names ``morphevo.sim.MassSpring2D``, ``morphevo.body``, ``morphevo.controller.UniversalController``
and ``morphevo.evolve`` are this package's ``sim.MassSpring2D``, ``body``, ``controller.UniversalController`` and
``evolve`` (also re-exported here).
"""

from iclr26.decision.zero_shot_evolution import body
from iclr26.decision.zero_shot_evolution.body import (
    NoveltyArchive,
    Workspace,
    canonical_form,
    canonical_hash,
    check_genotype,
    crossover,
    diversity,
    largest_component,
    mutate,
    random_bodies,
    random_body,
    shift_to_bottom_center,
    variation,
)
from iclr26.decision.zero_shot_evolution.controller import (
    UniversalController,
    cosine_warm_restarts_lr,
    masked_center,
)
from iclr26.decision.zero_shot_evolution.evolve import (
    FINETUNE,
    MODES,
    EvolutionResult,
    OptimConfig,
    evaluate,
    evolve,
    pretrain,
    random_lights,
)
from iclr26.decision.zero_shot_evolution.sim import MassSpring2D, SimResult

__all__ = [
    "FINETUNE",
    "MODES",
    "EvolutionResult",
    "MassSpring2D",
    "NoveltyArchive",
    "OptimConfig",
    "SimResult",
    "UniversalController",
    "Workspace",
    "body",
    "canonical_form",
    "canonical_hash",
    "check_genotype",
    "cosine_warm_restarts_lr",
    "crossover",
    "diversity",
    "evaluate",
    "evolve",
    "largest_component",
    "masked_center",
    "mutate",
    "pretrain",
    "random_bodies",
    "random_body",
    "random_lights",
    "shift_to_bottom_center",
    "variation",
]
