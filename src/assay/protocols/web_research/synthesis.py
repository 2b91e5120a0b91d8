"""Across sources: common themes, conflicting information, and the confidence they earn.

Themes come from a model when one is configured (``model_themes``: a typed call whose
theme summaries must cite a finding in every sentence and use no vague attribution — a
reply that breaks either rule is fed back for a bounded retry) and otherwise from the
extractive engine (``extractive_themes``, themes.py: the phrases, names and entity/slot
groups the findings of several sources share, never a lone word).

Conflicts are only ever between statements about one subject and one slot
(``claims.conflict``, each statement read with the title of its page: two aircraft of one
series, or two bands of one city, share all but their names): pairs of claims from
different sources that fill the same attribute with incompatible values, or say nearly the
same thing with opposite negation; and claims the verification engine found contradicted
by a quote about their own subject (a refutation quoting another subject's page is none).
Confidence follows from the verification statuses alone (``confidence``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from assay.answers import Answer
from assay.budget import Budget
from assay.claims.conflict import different_subjects, read, reading_conflict, same_subject
from assay.claims.engine import extracted_from
from assay.claims.normalize import numbers_in
from assay.models import Model, typed_call
from assay.models.output import written
from assay.models.usage import UsageMeter
from assay.protocols.web_research import themes
from assay.protocols.web_research.antipatterns import sentence_problems, split_claim_sentences
from assay.protocols.web_research.results import (
    MIN_SOURCES,
    Confidence,
    Conflict,
    Skipped,
    SourceFindings,
    Theme,
)
from assay.store.claims import ClaimRecord
from assay.text import content_words, words

MAX_THEMES = themes.MAX_THEMES
CLAIM_ID_CHARS = 24
MAX_THEME_CLAIMS = 40
"""What a model may write in a theme's list of finding ids (the ids are checked after)."""
MAX_CONFLICTS = 10
"""Pairs of disagreeing claims flagged at most (each claim in one pair at most)."""
OTHER = themes.OTHER
CLAIM_REF = re.compile(r"\[(claim_\d+(?:\s*,\s*claim_\d+)*)\]")
_NEGATIONS = frozenset(["not", "no", "never", "none", "nor", "neither", "without", "cannot"])


@dataclass
class Synthesis:
    """Everything the renderers need, decided before any text is written."""

    topic: str
    findings: list[SourceFindings]
    claims: dict[str, ClaimRecord]
    themes: list[Theme]
    conflicts: list[Conflict]
    confidence: Confidence
    written_by: str
    generated: str
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    answer: Answer | None = None  # the short answer the outputs open with

    @property
    def counted(self) -> int:
        """The sources that count as sources: a page cut at the size cap never does."""
        return sum(1 for f in self.findings if not f.truncated)

    def urls_of(self, claim_id: str) -> list[str]:
        """The sources to cite for a claim: those that made it a key point and those whose
        quotes support it, in source order."""
        claim = self.claims[claim_id]
        supporting = {e.source_id for e in claim.evidence if e.stance == "supports"}
        return [
            f.url for f in self.findings if claim_id in f.claim_ids or f.record.id in supporting
        ]


def confidence(statuses: Sequence[str], sources: int) -> Confidence:
    """high: ≥3 sources, no claim contradicted and at least half verified (two independent
    origins); medium: ≥3 sources and at least half verified or weak (one origin);
    low: anything less, including fewer than 3 sources or no claim."""
    total = len(statuses)
    verified = sum(s == "verified" for s in statuses)
    supported = verified + sum(s == "weak" for s in statuses)
    if sources < MIN_SOURCES or not total:
        return "low"
    if "contradicted" not in statuses and 2 * verified >= total:
        return "high"
    return "medium" if 2 * supported >= total else "low"


def extractive_themes(synthesis: Synthesis) -> list[Theme]:
    """The common themes without a model (themes.py: phrases or entity/slot groups two or
    more sources share, never a lone word), then "Other findings"."""
    records = {f.record.id: f.record for f in synthesis.findings}
    titles = {c: extracted_from(claim, records) for c, claim in synthesis.claims.items()}
    sources = {c: set(synthesis.urls_of(c)) for c in synthesis.claims}
    found = themes.extractive_themes(synthesis.topic, synthesis.claims, sources, titles)
    return [Theme(name, ids) for name, ids in found]


SYSTEM = """You group research FINDINGS about a TOPIC into common themes. Answer with JSON only.
- themes: 1 to 5 themes. name: 2 to 6 words. claims: the ids of the findings in the theme.
- summary: 1 or 2 sentences on what the theme's findings say. End every sentence with the
  ids it rests on, before the full stop: "The tower is 41 metres tall [claim_002]."
- Write only what the findings say. Never write vague attributions such as "some say",
  "many believe" or "experts claim"."""


class ThemeDraft(BaseModel):
    name: str = Field(min_length=2, max_length=80)
    claims: Annotated[
        list[str], Field(min_length=1), written(CLAIM_ID_CHARS, (1, MAX_THEME_CLAIMS))
    ]
    summary: str = Field(min_length=3, max_length=800)


class ThemesReply(BaseModel):
    themes: list[ThemeDraft] = Field(min_length=1, max_length=MAX_THEMES)


def summary_problems(summary: str, known: set[str]) -> list[str]:
    """What is wrong with a model's theme summary, as feedback the model can act on."""
    errors = []
    for sentence in split_claim_sentences(summary):
        cited = [i.strip() for m in CLAIM_REF.finditer(sentence) for i in m.group(1).split(",")]
        for problem in sentence_problems(sentence, attributed=lambda s: bool(CLAIM_REF.search(s))):
            errors.append(f"{problem.message} (sentence: {problem.sentence[:80]!r})")
        errors += [f"{c} is not one of the FINDINGS" for c in cited if c not in known]
    return errors


def _reply_type(known: set[str]) -> type[ThemesReply]:
    class CheckedThemes(ThemesReply):
        @model_validator(mode="after")
        def _rules(self) -> CheckedThemes:
            errors = []
            for number, theme in enumerate(self.themes, start=1):
                unknown = [c for c in theme.claims if c not in known]
                if unknown:
                    errors.append(f"theme {number}: unknown claim ids {', '.join(unknown)}")
                errors += [f"theme {number}: {e}" for e in summary_problems(theme.summary, known)]
            if errors:
                raise ValueError("; ".join(errors))
            return self

    return CheckedThemes


async def model_themes(
    model: Model,
    synthesis: Synthesis,
    *,
    budget: Budget | None = None,
    meter: UsageMeter | None = None,
    timeout: float = 120.0,  # noqa: ASYNC109 - the typed call's deadline
    retries: int = 2,
) -> list[Theme]:
    """Themes named, grouped and summarised by a model; claims it left out go to "Other"."""
    lines = [
        f"{claim_id} ({len(synthesis.urls_of(claim_id))} sources): {claim.text}"
        for claim_id, claim in synthesis.claims.items()
    ]
    result = await typed_call(
        model,
        system=SYSTEM,
        prompt=f"TOPIC: {synthesis.topic}\n\nFINDINGS:\n" + "\n".join(lines),
        output=_reply_type(set(synthesis.claims)),
        output_name="Themes",
        timeout=timeout,
        max_tokens=900,
        retries=retries,
        budget=budget,
        meter=meter,
        temperature=0.0,
    )
    themes: list[Theme] = []
    placed: set[str] = set()
    for draft in result.output.themes:
        members = tuple(dict.fromkeys(c for c in draft.claims if c not in placed))
        if members:
            placed.update(members)
            themes.append(
                Theme(" ".join(draft.name.split()), members, " ".join(draft.summary.split()))
            )
    left = tuple(c for c in synthesis.claims if c not in placed)
    return themes + ([Theme(OTHER, left)] if left else [])


def _negated(text: str) -> bool:
    return sum(w in _NEGATIONS or w.endswith("n't") for w in words(text)) % 2 == 1


def _refutations(synthesis: Synthesis, claim: ClaimRecord) -> list[str]:
    """The sources whose quotes refute ``claim`` about its own subject (a quote read with
    the title of its page; one about another subject refutes nothing)."""
    records = {f.record.id: f.record for f in synthesis.findings}
    own = read(claim.text, extracted_from(claim, records))
    return [
        e.source_id
        for e in claim.evidence
        if e.stance == "refutes"
        and not different_subjects(
            own, read(e.quote, (records[e.source_id].title or "") if e.source_id in records else "")
        )
    ]


def _refuted(synthesis: Synthesis, claim: ClaimRecord) -> str:
    url = {f.record.id: f.url for f in synthesis.findings}
    refuting = sorted({url.get(i, i) for i in _refutations(synthesis, claim)})
    supported = ", ".join(
        sorted(
            {url.get(e.source_id, e.source_id) for e in claim.evidence if e.stance == "supports"}
        )
    )
    return f"{claim.id} is supported by {supported or 'no source'} and refuted by " + ", ".join(
        refuting
    )


def _pair_detail(synthesis: Synthesis, first: ClaimRecord, second: ClaimRecord) -> str | None:
    """How two nearly identical claims disagree: one subject's slot filled with
    incompatible values (``claims.conflict``), or opposite negation about one subject;
    None when they do not."""
    a, b = set(content_words(first.text)), set(content_words(second.text))
    if len(a & b) < 3 or 2 * len(a & b) < len(a | b):
        return None
    records = {f.record.id: f.record for f in synthesis.findings}
    left = read(first.text, extracted_from(first, records))
    right = read(second.text, extracted_from(second, records))
    if not same_subject(left, right):
        return None
    found = reading_conflict(left, right)
    numbers_a, numbers_b = numbers_in(first.text), numbers_in(second.text)
    if found is not None and numbers_a and numbers_b:
        shown = [", ".join(sorted(n)) for n in (numbers_a, numbers_b)]
        return f"the numbers differ: {shown[0]} against {shown[1]}"
    if found is not None:
        return f"the {found.kind} differs: {found.left} against {found.right}"
    if _negated(first.text) != _negated(second.text):
        return "one states what the other denies"
    return None


def find_conflicts(synthesis: Synthesis) -> list[Conflict]:
    """Pairs of claims from different sources that disagree on a number or a negation
    while sharing most of their content words (each claim in one pair at most, ten pairs
    at most), then each contradicted claim not already in such a pair; a contradicted
    claim's refuting sources are named in the detail."""
    claims: Mapping[str, ClaimRecord] = synthesis.claims
    found: list[Conflict] = []
    paired: set[str] = set()
    for first, second in itertools.combinations(claims.values(), 2):
        if len(found) >= MAX_CONFLICTS or first.id in paired or second.id in paired:
            continue
        if set(synthesis.urls_of(first.id)) == set(synthesis.urls_of(second.id)):
            continue
        detail = _pair_detail(synthesis, first, second)
        if detail is not None:
            paired.update((first.id, second.id))
            refuted = [
                _refuted(synthesis, c)
                for c in (first, second)
                if c.status == "contradicted" and _refutations(synthesis, c)
            ]
            found.append(Conflict((first.id, second.id), "; ".join([detail, *refuted])))
    for claim in claims.values():
        if (
            claim.status == "contradicted"
            and claim.id not in paired
            and _refutations(synthesis, claim)
        ):
            found.append(Conflict((claim.id,), _refuted(synthesis, claim)))
    return found
