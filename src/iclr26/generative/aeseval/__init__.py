"""AesEval-Bench: Can Vision-Language Models Assess Graphic Design Aesthetics? (An et al., ICLR 2026).

arXiv 2603.01083, OpenReview QGv6QwDA4z; official code arctanxarc/AesEval-Bench. The benchmark asks a VLM about
12 aesthetic indicators in three tasks (yes/no judgment, four-way region selection, bounding-box localisation)
and scores the replies with exact parsers; this package implements that harness with the official rules, a
procedural design generator with nine objectively perturbed indicators, reference backends and two tiny CNN
backends (image-level versus indicator-grounded supervision).

Example
-------
>>> from iclr26.generative.aeseval import AesEvalHarness, MetadataOracle, ProceduralDesignGenerator, RandomBackend
>>> split = ProceduralDesignGenerator(canvas=96).split(18, seed=0)
>>> AesEvalHarness(MetadataOracle(), split, "text-preview-choice").run()["overall"]["accuracy"]
1.0
>>> r = AesEvalHarness(RandomBackend(seed=0), split, "text-preview").run()
>>> sorted(k for k in r if k not in ("records",))
['color', 'font', 'graphic', 'layout', 'overall']
"""

from iclr26.generative.aeseval.backends import (
    MajorityBackend,
    MetadataOracle,
    RandomBackend,
    format_box,
    indicator_of,
    option_boxes,
    random_box,
    task_of,
)
from iclr26.generative.aeseval.cnn import (
    ElementCNN,
    ImageLevelCNN,
    TinyCNNBackend,
    element_inputs,
    train_backend,
)
from iclr26.generative.aeseval.designs import (
    INDICATORS,
    OFFLINE_INDICATORS,
    AesEvalSample,
    ProceduralDesignGenerator,
    balance_offset,
    equal_neighbour_share,
)
from iclr26.generative.aeseval.harness import (
    AesEvalHarness,
    build_question,
    check_split,
    load_official,
    write_official,
)
from iclr26.generative.aeseval.heuristic import PixelHeuristicBackend
from iclr26.generative.aeseval.scoring import (
    DIMENSIONS,
    EVAL_MODES,
    aggregate,
    box_iou,
    parse_choice,
    parse_yes_no,
    question_for,
    score_bbox,
    score_choice,
    score_reply,
    score_yes_no,
    split_key,
    strip_think,
)
from iclr26.lab.vision import TransformersVLMBackend, VLMBackend

__all__ = [
    "DIMENSIONS",
    "EVAL_MODES",
    "INDICATORS",
    "OFFLINE_INDICATORS",
    "AesEvalHarness",
    "AesEvalSample",
    "ElementCNN",
    "ImageLevelCNN",
    "MajorityBackend",
    "MetadataOracle",
    "PixelHeuristicBackend",
    "ProceduralDesignGenerator",
    "RandomBackend",
    "TinyCNNBackend",
    "TransformersVLMBackend",
    "VLMBackend",
    "aggregate",
    "balance_offset",
    "box_iou",
    "build_question",
    "check_split",
    "element_inputs",
    "equal_neighbour_share",
    "format_box",
    "indicator_of",
    "load_official",
    "option_boxes",
    "parse_choice",
    "parse_yes_no",
    "question_for",
    "random_box",
    "score_bbox",
    "score_choice",
    "score_reply",
    "score_yes_no",
    "split_key",
    "strip_think",
    "task_of",
    "train_backend",
    "write_official",
]
