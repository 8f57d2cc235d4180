# The two commands of the README: `make demo` and `make test`. Each creates .venv when it is missing.
# torch: when the venv has none, `pip install torch==$(TORCH_VERSION)` (set TORCH_SPEC to choose another build,
# e.g. TORCH_SPEC=torch to let pip pick); a torch already importable in the venv (a GPU build) is left alone.
# Every other package comes at the exact version of $(LOCK) (`make lock` regenerates it from what pip resolves
# today); `make test-latest` runs the suite against today's releases on purpose, in its own venv.

VENV ?= .venv
PYTHON ?= python3
TORCH_VERSION ?= 2.13.0
TORCH_SPEC ?= torch==$(TORCH_VERSION)
OUT ?= iclr26-results
LOCK ?= constraints.txt
LINT_PATHS := $(wildcard src tests benchmarks)
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: demo test test-latest lock reference lint format install install-dev clean bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.torch: | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install "$(TORCH_SPEC)"
	touch $@

$(VENV)/.installed: pyproject.toml $(LOCK) $(VENV)/.torch
	$(PIP) install -c $(LOCK) -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(LOCK) $(VENV)/.torch
	$(PIP) install -c $(LOCK) -e ".[dev,ray,compare]"
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

# The lock: a throw-away venv resolves the lower bounds of pyproject.toml afresh; torch and the CUDA wheels stay
# out of it (TORCH_SPEC decides them).
lock:
	rm -rf .venv-lock
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet --upgrade pip
	.venv-lock/bin/python -m pip install --quiet "$(TORCH_SPEC)"
	.venv-lock/bin/python -m pip install --quiet -e ".[dev,ray,compare]"
	{ echo "# Exact versions that \`make test\` and \`make demo\` install with \`pip install -c\` (CPU)."; \
	  echo "# Regenerate with \`make lock\`; torch is pinned by the Makefile's TORCH_SPEC so that a GPU build stays untouched."; \
	  .venv-lock/bin/python -m pip freeze --exclude-editable | grep -viE '^(torch|triton|nvidia-)'; } > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf .venv-lock

# The shipped reference results (quick budget), rerun from the code as it is, then the README's catalog table.
# SLUGS="a b" limits it to some papers; JOBS sets the worker processes.
REF_DIR := src/iclr26/reference_results
JOBS ?= 2
reference: $(VENV)/.installed
	$(VENV)/bin/iclr26 reproduce $(if $(SLUGS),$(SLUGS),--all) --budget quick --rerun --jobs $(JOBS) --out $(REF_DIR)
	$(PY) -m iclr26.harness.reference --thin

# Every script under benchmarks/ at its small setting (under 15 minutes on 2 cores), each figure a ratio against
# the user's alternative measured in the same run: benchmarks/RESULTS.md. ONLY="a b" runs some scripts.
bench: $(VENV)/.installed-dev
	$(PY) benchmarks/run_all.py $(if $(ONLY),--only $(ONLY),)

# Drift on purpose: the suite against whatever pip resolves today, in a venv of its own.
test-latest:
	rm -rf .venv-latest
	$(MAKE) VENV=.venv-latest LOCK=/dev/null test

clean:
	rm -rf $(VENV) .venv-latest .venv-lock .pytest_cache .ruff_cache build src/*.egg-info
