"""Test-wide settings: headless matplotlib, one torch thread per xdist worker, an isolated cache directory."""

import os

import matplotlib

matplotlib.use("Agg")

if os.environ.get("PYTEST_XDIST_WORKER"):
    import torch

    torch.set_num_threads(1)
