# One entry point for the checks; .ci/run calls `make check`.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install lint typecheck test check docs

$(PY):
	python3 -m venv $(VENV)

install: $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'

lint:
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

typecheck:
	$(VENV)/bin/mypy

test:
	$(PY) -m pytest

docs:
	$(PY) -m assay.docsgen docs/events.md
	$(PY) -m assay.docsgen docs/api.md

check: install lint typecheck test
