"""Test-wide settings: headless matplotlib, one torch thread per xdist worker, an isolated cache directory."""

import json
import os

import matplotlib
import pytest

matplotlib.use("Agg")

if os.environ.get("PYTEST_XDIST_WORKER"):
    import torch

    torch.set_num_threads(1)


@pytest.fixture
def planned_slug(monkeypatch):
    """The slug of a paper whose status is ``planned``: a real one while any remains, else the catalog's last entry
    reported as planned through a stand-in catalog (so the planned-paper paths stay tested once all are in)."""
    from iclr26 import catalog

    real = [p for p in catalog.load_catalog() if p.status == "planned"]
    if real:
        yield real[0].slug
        return
    entries = [p.to_dict() for p in catalog.load_catalog()]
    entries[-1]["status"] = "planned"
    text = json.dumps(entries)
    monkeypatch.setattr(catalog, "_catalog_text", lambda: text)
    catalog.load_catalog.cache_clear()
    yield entries[-1]["slug"]
    monkeypatch.undo()
    catalog.load_catalog.cache_clear()
