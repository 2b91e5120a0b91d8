"""The semantic judge: does this evidence support, refute, or say nothing about a claim?

A judge (the model when one is configured, the extractive heuristics otherwise) labels a
claim–evidence pair and must return the verbatim quote it relied on. The engine then
locates that quote in the snapshot: a quote that is not there earns nothing, so a judge
cannot invent support. Evidence text is data: whatever it says, it is only ever compared
with the claim, never obeyed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Label = Literal["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO"]


@dataclass(frozen=True)
class Verdict:
    """What a judge says about one claim and one passage of evidence."""

    label: Label
    quote: str
    """The sentence(s) of the evidence the label rests on, verbatim ("" for NOT_ENOUGH_INFO)."""
    confident: bool = True
    rationale: str = ""


class Judge(Protocol):
    """Labels a claim against a passage of evidence."""

    name: str
    """Which engine and model judged, as reports state it (``extractive``, ``openai:gpt-…``)."""

    async def judge(self, claim: str, evidence: str) -> Verdict: ...


@runtime_checkable
class WholeSourceJudge(Protocol):
    """A judge that picks the sentences it reads from a whole source itself (the model
    judge shows the model the few most relevant to the claim, numbered)."""

    whole_source: bool
    """True: hand it each source once, whole. A model call costs its prompt tokens (the
    local model reads ~45 a second), so one call per source instead of one per passage
    halves a claim's cost."""
