"""Where the suite's shared files are, for a test at any depth under tests/."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
"""tests/ itself: data/ (inputs), golden/ (expected outputs) and the helper modules."""
ROOT = TESTS.parent
"""The checkout: pyproject.toml, docs/, benchmarks/."""
