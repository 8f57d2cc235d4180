"""C3B: "Culture In a Frame: C^3B as a Comic-Based Benchmark for Multimodal Culturally Awareness" (Song et al.,
ICLR 2026, arXiv 2510.00041).

A benchmark, not a model: comic images mixing several cultures, questions in several languages, and three tasks
of increasing difficulty (Extraction@Culture, Conflict@Culture, Generation@Culture). Here: a deterministic Pillow
generator of three-panel strips over eight fictional cultures with exact answers (:class:`ComicGenerator`), the
harness that scores any ``VLMBackend`` on them (:class:`C3BHarness`, chrF for the generation task), an adapter for a
released item file (:func:`load_official`) and a small trained backend (:class:`TinyCNNBackend`).

Example
-------
>>> from iclr26.generative.c3b import C3BHarness, ComicGenerator
>>> from iclr26.lab.vision import RandomBackend
>>> items = ComicGenerator(panel_size=64).split(10, seed=0)
>>> report = C3BHarness(RandomBackend(seed=0).fit(items), items).run()
>>> sorted(report.per_task)
['Conflict@Culture', 'Extraction@Culture', 'Generation@Culture']
"""

from iclr26.generative.c3b.benchmark import (
    TASKS,
    C3BHarness,
    C3BReport,
    bootstrap_mean,
    load_official,
    parse_option,
)
from iclr26.generative.c3b.chrf import char_ngrams, chrf, chrf_reference
from iclr26.generative.c3b.comics import (
    GAP,
    ComicGenerator,
    Scene,
    answer_from_scene,
    conflicts,
    downsize_strip,
    split_panels,
)
from iclr26.generative.c3b.cultures import (
    CHARACTERS,
    CULTURES,
    LANGUAGES,
    NONE_WORD,
    QUESTIONS,
    Culture,
    check_language,
    greeting_reference,
)
from iclr26.generative.c3b.tinycnn import OPTION_TOKENS, TinyCNN, TinyCNNBackend, option_token, template_id

__all__ = [
    "CHARACTERS",
    "CULTURES",
    "GAP",
    "LANGUAGES",
    "NONE_WORD",
    "OPTION_TOKENS",
    "QUESTIONS",
    "TASKS",
    "C3BHarness",
    "C3BReport",
    "ComicGenerator",
    "Culture",
    "Scene",
    "TinyCNN",
    "TinyCNNBackend",
    "answer_from_scene",
    "bootstrap_mean",
    "char_ngrams",
    "check_language",
    "chrf",
    "chrf_reference",
    "conflicts",
    "downsize_strip",
    "greeting_reference",
    "load_official",
    "option_token",
    "parse_option",
    "split_panels",
    "template_id",
]
