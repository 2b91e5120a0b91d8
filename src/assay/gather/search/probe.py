"""The probe that tells a working search tool from a broken one.

A tool is probed with a neutral query that any working engine answers (a common word, not
the run's topic): a provider that answers it — even with no result for an unusual topic —
works, and "no results for the topic" is a research outcome (gaps, insufficient data),
never "no search method". Only a tool that fails (an error, no answer in time) is broken.
"""

from __future__ import annotations

PROBE_QUERY = "history"
"""Neutral: a common word that every general index (the web, a lab, a local index) holds."""
