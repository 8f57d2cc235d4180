"""Bad input to the C3B generator, harness, chrF, adapter, trained backend and config."""

import numpy as np

from iclr26.generative.c3b import (
    C3BHarness,
    ComicGenerator,
    TinyCNNBackend,
    check_language,
    chrf,
    load_official,
    split_panels,
)
from iclr26.generative.c3b.experiment import C3BConfig
from iclr26.lab.vision import OracleBackend, VQAItem

_G = ComicGenerator(panel_size=32)
_S = _G.sample_scene(np.random.default_rng(0), 2)
_ITEMS = _G.split(2, seed=0)
_NOIMG = [VQAItem("x", None, "q?", "a", ("a", "b"), {"level": 1, "language": "en"})]
_BADLANG = [VQAItem("x", _ITEMS[0].image, "q?", "a", ("a", "b"), {"level": 1, "language": "de"})]
_BADLEVEL = [VQAItem("x", _ITEMS[0].image, "q?", "a", ("a", "b"), {"level": 4, "language": "en"})]
_MISSING = [VQAItem("x", "/nonexistent/c3b.png", "q?", "a", ("a", "b"), {"level": 1, "language": "en"})]

CASES = [
    (lambda: check_language("de"), ValueError, ["language", "en", "'de'"]),
    (lambda: _G.item(_S, "img", 1, "jp", np.random.default_rng(0), "i"), ValueError, ["language", "'jp'"]),
    (lambda: ComicGenerator(panel_size=8), ValueError, ["panel_size", "8"]),
    (lambda: ComicGenerator(n_cultures_per_image=(4,)), ValueError, ["n_cultures_per_image", "1, 2, 3"]),
    (lambda: ComicGenerator(languages=()), ValueError, ["languages", "non-empty"]),
    (lambda: _G.sample_scene(np.random.default_rng(0), 5), ValueError, ["n_cultures", "5"]),
    (lambda: _G.split(0, seed=0), ValueError, ["n_scenes", "0"]),
    (lambda: C3BHarness(object(), _ITEMS), ValueError, ["backend", "VLMBackend"]),
    (lambda: C3BHarness(OracleBackend(_ITEMS), _NOIMG), ValueError, ["image is missing"]),
    (lambda: C3BHarness(OracleBackend(_ITEMS), _BADLANG), ValueError, ["language", "'de'"]),
    (lambda: C3BHarness(OracleBackend(_ITEMS), _BADLEVEL), ValueError, ["level", "1, 2 or 3", "4"]),
    (lambda: C3BHarness(OracleBackend(_ITEMS), []), ValueError, ["split", "non-empty"]),
    (lambda: OracleBackend(_MISSING), FileNotFoundError, ["no image file", "c3b.png"]),
    (lambda: chrf(3, "abc"), ValueError, ["hypothesis", "str"]),
    (lambda: chrf("abc", []), ValueError, ["references", "non-empty"]),
    (lambda: chrf("abc", "abc", order=0), ValueError, ["order", "0"]),
    (lambda: chrf("abc", "abc", beta=0.0), ValueError, ["beta", "0.0"]),
    (lambda: load_official("/nonexistent/c3b.jsonl"), FileNotFoundError, ["path", "c3b.jsonl"]),
    (lambda: split_panels(_ITEMS[0].image, n_panels=2), ValueError, ["strip", "2 square panels"]),
    (lambda: TinyCNNBackend(input_size=4), ValueError, ["input_size", "4"]),
    (lambda: TinyCNNBackend(lr=0.0), ValueError, ["lr", "0.0"]),
    (lambda: TinyCNNBackend().fit([]), ValueError, ["items", "non-empty"]),
    (lambda: TinyCNNBackend().predict(_ITEMS[0].image, "q"), RuntimeError, ["not fitted", "fit"]),
    (lambda: C3BConfig(input_size=512, panel_size=256), ValueError, ["input_size", "512"]),
]
