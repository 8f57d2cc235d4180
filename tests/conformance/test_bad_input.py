"""Every paper's components reject bad input with a clear error that names the argument.

Each reproduced or implemented paper has a file ``bad_inputs/<slug with _>.py`` defining ``CASES``: a list of
``(call, exception type, words)`` where ``call`` is a zero-argument callable that must raise that exception
with every one of ``words`` in its message (the argument's name and the problem).
"""

import importlib
import pkgutil

import pytest

from iclr26.catalog import load_catalog
from tests.conformance import bad_inputs

MODULES = {m.name for m in pkgutil.iter_modules(bad_inputs.__path__)}
PAPERS = [p for p in load_catalog() if p.status != "planned"]
CASES = [
    pytest.param(call, exc, words, id=f"{name}-{i}")
    for name in sorted(MODULES)
    for i, (call, exc, words) in enumerate(
        importlib.import_module(f"tests.conformance.bad_inputs.{name}").CASES
    )
]


@pytest.mark.parametrize("paper", PAPERS, ids=lambda p: p.slug)
def test_every_paper_has_bad_input_cases(paper):
    name = paper.slug.replace("-", "_")
    assert name in MODULES, f"add tests/conformance/bad_inputs/{name}.py with CASES for {paper.slug}"
    cases = importlib.import_module(f"tests.conformance.bad_inputs.{name}").CASES
    assert len(cases) >= 3, f"{paper.slug}: at least 3 bad-input cases"


@pytest.mark.parametrize(("call", "exc", "words"), CASES)
def test_bad_input_raises_clear_error(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"error message {message!r} should mention {word!r}"
