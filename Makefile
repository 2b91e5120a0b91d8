# One entry point for the checks; .ci/run calls `make check`.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install lint typecheck test integration check docs

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

# `test`: the in-process suite (pytest's default markers). `integration`: the tests that
# drive Chromium, redis-server and workers, a network namespace, mypy or whole runs in a
# subprocess, and the replayed benchmark runs (markers browser, queue, slow).
test:
	$(PY) -m pytest

integration:
	$(PY) -m pytest -m '(browser or queue or slow) and not localllm'

docs:
	$(PY) -m assay.docsgen docs/events.md
	$(PY) -m assay.docsgen docs/api.md

check: install lint typecheck test integration
