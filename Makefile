# The two commands of the README: `make demo` and `make test`. Each creates .venv when it is missing.
# torch: when the venv has none, `pip install torch==$(TORCH_VERSION)` (set TORCH_SPEC to choose another build,
# e.g. TORCH_SPEC=torch to let pip pick); a torch already importable in the venv (a GPU build) is left alone.

VENV ?= .venv
PYTHON ?= python3
TORCH_VERSION ?= 2.13.0
TORCH_SPEC ?= torch==$(TORCH_VERSION)
OUT ?= iclr26-results
LINT_PATHS := $(wildcard src tests benchmarks)
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: demo test lint format install install-dev clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.torch: | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install "$(TORCH_SPEC)"
	touch $@

$(VENV)/.installed: pyproject.toml $(VENV)/.torch
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(VENV)/.torch
	$(PIP) install -e ".[dev,ray]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

demo: $(VENV)/.installed
	$(VENV)/bin/iclr26 reproduce esp --budget quick --out $(OUT)
	$(VENV)/bin/iclr26 report --out $(OUT)
	@echo "Open the report: $(OUT)/report.html"

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check --fix $(LINT_PATHS)
	$(VENV)/bin/ruff format $(LINT_PATHS)

test: lint
	$(VENV)/bin/python -m pytest -n 2 --dist loadfile

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build src/*.egg-info
