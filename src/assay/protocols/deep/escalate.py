"""Phase 3: alternative query formulations for a direction that needs a retry.

Three formulations, each from a different angle: a synonym (the direction's subject in
other words), a negation (what would contradict it), and a domain-specific one (the
vocabulary of official and scholarly sources). With a model, one typed call writes them;
without one (or when its answer is unusable) code derives them from the question's
entities and asked words.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from assay.budget import Budget
from assay.engines.extractive.asking import clip, read_question
from assay.engines.extractive.planner import key_phrase
from assay.models import InvalidOutput, Model, ModelTimeout, typed_call
from assay.models.usage import UsageMeter


class Alternatives(BaseModel):
    synonym: str = Field(min_length=3, max_length=200)
    negation: str = Field(min_length=3, max_length=200)
    domain_specific: str = Field(min_length=3, max_length=200)


def code_alternatives(topic: str, direction: str, tried: list[str]) -> list[str]:
    """Synonym, negation and domain-specific formulations not tried yet in the run, built
    from the question's entities and asked words (the direction's when it names its own)."""
    shape = read_question(topic)
    key = clip(key_phrase(topic))
    entity = next((e for e in shape.entities if e.casefold() in direction.casefold()), None)
    subject = entity or (shape.entities[0] if shape.entities else key)
    asked = shape.asked
    candidates = [
        [clip(f"{subject} {asked} facts".strip()), clip(f"about {subject}"), clip(subject)],
        [clip(f"{subject} {asked} not true".strip()), clip(f"{subject} disputed"),
         clip(f"{key} myths")],
        [clip(f"{subject} {asked} official record".strip()), clip(f"{subject} encyclopedia"),
         clip(f"{key} study")],
    ]  # fmt: skip
    seen = {q.casefold() for q in tried}
    chosen = []
    for options in candidates:
        fresh = [q for q in options if q.casefold() not in seen]
        query = fresh[0] if fresh else f"{options[0]} {len(seen)}"
        chosen.append(query)
        seen.add(query.casefold())
    return chosen


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
    if model is not None:
        try:
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
        except (InvalidOutput, ModelTimeout):
            pass
        else:
            out = result.output
            queries = [
                " ".join(q.split()) for q in (out.synonym, out.negation, out.domain_specific)
            ]
            if len({q.casefold() for q in queries} - {t.casefold() for t in tried}) == 3:
                return queries
    return code_alternatives(topic, direction, tried)
