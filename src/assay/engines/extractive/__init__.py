"""The extractive engine: plan, pick and judge with deterministic text heuristics (and, in
the judge, the bundled sentence-embedding model).

It is the default when no model is configured, so assay runs with no keys and no network.
``expand_queries``/``research_questions`` plan, ``pick_claims`` (``claims.picker``) chooses
claim sentences from a source, and ``ExtractiveJudge`` labels claim–evidence pairs; all
share ``assay.text``'s sentence splitter, stop words and stemmer.
"""

from assay.claims.picker import Picked, pick_claims
from assay.engines.extractive.judge import ExtractiveJudge, Thresholds
from assay.engines.extractive.planner import expand_queries, research_questions

__all__ = [
    "ExtractiveJudge",
    "Picked",
    "Thresholds",
    "expand_queries",
    "pick_claims",
    "research_questions",
]
