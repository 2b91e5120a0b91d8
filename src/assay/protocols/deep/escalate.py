"""Phase 3: alternative query formulations for a direction that needs a retry.

Three formulations of the direction's missing sub-question, each from a different angle:
a synonym (its asked words in other words), a negation (what would contradict it), and a
domain-specific one (the word reference sources use for what it asks). With a model, one
typed call writes them; without one (or when its answer is unusable) code derives them
from the sub-question's names and asked words, and the synonyms of
``engines/extractive/data/question_lexicon.json``.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pydantic import BaseModel, Field

from assay.budget import Budget
from assay.engines.extractive.asking import clip, read_question
from assay.engines.extractive.keywords import key_phrase
from assay.engines.extractive.subquestions import noun_phrases
from assay.models import Model, typed_call
from assay.models.fallback import Step, Unusable
from assay.models.usage import UsageMeter
from assay.text import raw_words


class Alternatives(BaseModel):
    synonym: str = Field(min_length=3, max_length=200)
    negation: str = Field(min_length=3, max_length=200)
    domain_specific: str = Field(min_length=3, max_length=200)


def code_alternatives(question: str, direction: str, tried: list[str]) -> list[str]:
    """Synonym, negation and domain-specific rephrasings of the direction's sub-question
    ``question`` ("When was X founded?"), not tried yet in the run: its names with its
    asked words in other words ("X established"), what would contradict it ("X founded
    disputed"), and the word reference sources use for what it asks ("X founded year").
    Never the direction's name or a phrase such as "not true": each query is the missing
    sub-question, rephrased."""
    del direction  # the sub-question says what is missing; a direction's name is a label
    shape = read_question(question)
    names = noun_phrases(question) or list(shape.entities) or [clip(key_phrase(question))]
    about = clip(" and ".join(names[:2]))
    lexicon = _lexicon()
    skip = {*lexicon["comparing"], *lexicon["frame"], *(w.lower() for w in raw_words(about))}
    asked = [w for w in raw_words(shape.asked) if w.lower() not in skip]
    swapped = [lexicon["synonyms"].get(w.lower(), [w])[0] for w in asked]
    words = " ".join(asked)
    domain = lexicon["domain_words"].get(shape.kind, "overview")
    other = " ".join(swapped)
    candidates = [
        [f"{about} {other}", f"{about} {words} {domain}", about, f"{about} facts",
         f"{about} information"],
        [f"{about} {words} disputed", f"{about} {words} correction", f"{about} controversy",
         f"{about} myths"],
        [f"{about} {words} {domain}", f"{about} {other} {domain}", f"{about} {domain}",
         f"{about} encyclopedia", f"{about} reference"],
    ]  # fmt: skip
    candidates = [[clip(" ".join(q.split())) for q in options] for options in candidates]
    seen = {q.casefold() for q in tried}
    chosen = []
    for options in candidates:
        fresh = [q for q in options if q.casefold() not in seen]
        query = fresh[0] if fresh else f"{options[0]} {len(seen)}"
        chosen.append(query)
        seen.add(query.casefold())
    return chosen


def _lexicon() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files("assay.engines.extractive")
        .joinpath("data/question_lexicon.json")
        .read_text()
    )
    return data


SYSTEM = """A research direction found too little. Write three NEW web search queries for
it: synonym (the same subject in other words), negation (what would contradict or refute
it), domain_specific (the wording an official or scholarly source would use). JSON only:
{"synonym": ..., "negation": ..., "domain_specific": ...}."""


async def alternative_queries(
    topic: str,
    direction: str,
    tried: list[str],
    *,
    model: Model | None = None,
    budget: Budget | None = None,
    meter: UsageMeter | None = None,
) -> list[str]:
    """Three alternative formulations not tried yet (synonym, negation, domain-specific)."""

    async def by_model(model: Model) -> list[str]:
        result = await typed_call(
            model,
            system=SYSTEM,
            prompt=f"TOPIC: {topic}\nDIRECTION: {direction}\nTRIED: {'; '.join(tried)}",
            output=Alternatives,
            output_name="Alternatives",
            timeout=120.0,
            max_tokens=300,
            budget=budget,
            meter=meter,
            temperature=0.0,
        )
        out = result.output
        queries = [" ".join(q.split()) for q in (out.synonym, out.negation, out.domain_specific)]
        if len({q.casefold() for q in queries} - {t.casefold() for t in tried}) < 3:
            raise Unusable("the model's three queries were not all new")
        return queries

    async def by_rules() -> list[str]:
        return code_alternatives(topic, direction, tried)

    step = Step.of("deep.alternative_queries", model, by_model, by_rules)
    return (await step.run()).value
