# mixbatch: two commands on a fresh machine.
#   make run   the conformance suite against the embedded reference server, then a report
#   make test  every test tier that fits in ten minutes (lint, types, unit, spec, suite self-test, docs)
# Each target installs what it needs from the project's own files: uv (when missing) and the
# locked environment.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
UV := $(PYTHON) -m uv
VENV := .venv
PY := $(VENV)/bin/python
REPORT_DIR ?= reports/latest

.PHONY: run test deep bench docs docs-build lint typecheck unit env clean

env: $(VENV)/.synced

$(VENV)/.synced: pyproject.toml uv.lock .python-version
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet --disable-pip-version-check uv
	$(UV) sync --locked --quiet
	@touch $@

run: env
	$(PY) -m mixbatch conformance --tier smoke --report $(REPORT_DIR)

lint: env
	$(VENV)/bin/ruff check reference-impl conformance tests bench tools
	$(VENV)/bin/ruff format --check reference-impl conformance tests bench tools

typecheck: env
	$(VENV)/bin/mypy

# pytest exits 5 when it collected nothing: tools/pytest-strict turns that into a failure.
unit: env
	$(PY) tools/pytest_strict.py -q

test: lint typecheck unit

deep: env
	$(PY) tools/pytest_strict.py -q -m deep --mixbatch-tier deep

bench: env
	$(PY) -m bench

docs: env
	$(VENV)/bin/mkdocs serve -a 127.0.0.1:8000

clean:
	rm -rf $(VENV) site reports .mypy_cache .ruff_cache
