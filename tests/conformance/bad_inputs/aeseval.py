"""Bad input to the AesEval-Bench harness, scoring, generator, backends and config."""

import tempfile
from pathlib import Path

from PIL import Image

from iclr26.generative.aeseval import (
    AesEvalHarness,
    AesEvalSample,
    MetadataOracle,
    PixelHeuristicBackend,
    ProceduralDesignGenerator,
    RandomBackend,
    TinyCNNBackend,
    aggregate,
    load_official,
    score_bbox,
    score_reply,
    split_key,
    train_backend,
)
from iclr26.generative.aeseval.experiment import AesConfig

_GEN = ProceduralDesignGenerator(canvas=64)
_SPLIT = _GEN.split(9, seed=0)
_S = _SPLIT[0]


def _bad_key_sample(key):
    return [AesEvalSample("x_new", _S.image, _S.elements, {key: []})]


def _unreadable_preview():
    root = Path(tempfile.mkdtemp())
    d = root / "s0-perturbs_new"
    d.mkdir()
    (d / "GT.json").write_text("{}")
    (d / "simplified_meta_info.json").write_text('{"elements": []}')
    (d / "preview.png").write_bytes(b"not a png")
    return load_official(root)


CASES = [
    (
        lambda: AesEvalHarness(MetadataOracle(), _SPLIT, "text-preview-box"),
        ValueError,
        ["eval_mode", "text-preview-bbox"],
    ),
    (
        lambda: AesEvalHarness(MetadataOracle(), _bad_key_sample("typo-alignment"), "text-preview"),
        ValueError,
        ["GT key", "dimension-indicator", "typo-alignment"],
    ),
    (
        lambda: AesEvalHarness(MetadataOracle(), _bad_key_sample("layout"), "text-preview"),
        ValueError,
        ["GT key", "'layout'"],
    ),
    (lambda: AesEvalHarness(MetadataOracle(), [], "text-preview"), ValueError, ["split", "non-empty"]),
    (lambda: AesEvalHarness("gpt-4o", _SPLIT, "text-preview"), ValueError, ["backend", "VLMBackend", "str"]),
    (lambda: AesEvalHarness(MetadataOracle(), _SPLIT, "text-preview", seed=-1), ValueError, ["seed", ">= 0"]),
    (
        lambda: AesEvalHarness(
            MetadataOracle(), [AesEvalSample("x", "/no/such.png", [], {})], "text-preview"
        ).run(),
        FileNotFoundError,
        ["image", "/no/such.png"],
    ),
    (_unreadable_preview, ValueError, ["preview", "cannot open"]),
    (lambda: load_official("/no/such/dir"), FileNotFoundError, ["path", "/no/such/dir"]),
    (lambda: load_official(tempfile.mkdtemp()), ValueError, ["path", "_new", "GT.json"]),
    (lambda: split_key("font_legibility"), ValueError, ["GT key", "font_legibility"]),
    (lambda: score_reply("bbox", "0,0,1,1", "None"), ValueError, ["eval_mode", "text-preview-bbox"]),
    (lambda: score_bbox("0,0,1,1", "nothing"), ValueError, ["bbox ground truth", "'nothing'"]),
    (lambda: aggregate([], "yes-no"), ValueError, ["eval_mode", "yes-no"]),
    (lambda: ProceduralDesignGenerator(canvas=16), ValueError, ["canvas", ">= 64", "16"]),
    (lambda: ProceduralDesignGenerator(p_issue=1.5), ValueError, ["p_issue", "1.5"]),
    (
        lambda: ProceduralDesignGenerator(indicators=["color-appeal"]),
        ValueError,
        ["indicator", "color-appeal"],
    ),
    (lambda: _GEN.sample(0, "graphic-relevance", True), ValueError, ["indicator", "graphic-relevance"]),
    (lambda: _GEN.split(0, seed=0), ValueError, ["n", ">= 1"]),
    (lambda: RandomBackend(p_none=-0.1), ValueError, ["p_none", "-0.1"]),
    (lambda: train_backend(_SPLIT, "pixels"), ValueError, ["supervision", "grounded", "pixels"]),
    (lambda: train_backend(_SPLIT, "image", epochs=0), ValueError, ["epochs", ">= 1"]),
    (lambda: TinyCNNBackend(object()), ValueError, ["model", "ImageLevelCNN", "object"]),
    (
        lambda: MetadataOracle().predict(
            Image.new("RGB", (8, 8)),
            "Does element have balance issue? Answer it with one word 'yes' or 'no'.",
        ),
        RuntimeError,
        ["observed no sample"],
    ),
    (
        lambda: RandomBackend().predict(Image.new("RGB", (8, 8)), "What is this?"),
        ValueError,
        ["question", "AesEval-Bench"],
    ),
    (
        lambda: PixelHeuristicBackend().predict(42, "Does element have balance issue?"),
        ValueError,
        ["image", "PIL image", "int"],
    ),
    (lambda: AesConfig(n_test=3), ValueError, ["n_test", ">= 9"]),
]
