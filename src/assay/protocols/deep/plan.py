"""Phase 1: the research directions, each with its queries, acceptance criteria and file.

Directions come from the question: without a model, its distinct angles (angles.py: each
side of a comparison, the question as asked, each entity, time, mechanism, disagreement,
as the question's kind calls for); with a model, one typed call drafts the sub-questions,
shown the entities and the asked words. Each direction keeps the
sub-question its facts' relevance is measured against. Either way there are never more
than ``max_directions`` (≤ 6): extra angles are grouped with their neighbours, and never
fewer than 3 when the cap allows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from assay.budget import Budget
from assay.engines.extractive.asking import clip, read_question
from assay.engines.extractive.planner import is_date_sensitive
from assay.models import Model, typed_call
from assay.models.fallback import Step
from assay.models.output import QUERY_CHARS, written
from assay.models.usage import UsageMeter
from assay.protocols.deep.angles import Angle, code_angles
from assay.store.paths import slugify
from assay.text import content_words

MAX_DIRECTIONS = 6
MIN_DIRECTIONS = 3
MAX_QUERIES = 5
MIN_AUTHORITY = 2


@dataclass(frozen=True)
class Criteria:
    """What makes a source acceptable for one direction."""

    source_types: str
    min_authority: int = MIN_AUTHORITY
    min_year: int | None = None

    def render(self) -> str:
        when = f"published {self.min_year}+" if self.min_year else "any date, newer preferred"
        return (
            f"{self.source_types}; authority ≥ {self.min_authority}/5 "
            f"(official/scholarly 5, reference 4, news 3, forums/blogs 2); {when}"
        )


@dataclass(frozen=True)
class Direction:
    number: int
    name: str
    description: str
    queries: tuple[str, ...]
    acceptance: Criteria
    output_file: Path
    question: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number, "name": self.name, "description": self.description,
            "queries": list(self.queries), "source_types": self.acceptance.source_types,
            "min_authority": self.acceptance.min_authority, "min_year": self.acceptance.min_year,
            "output_file": self.output_file.name, "question": self.question,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any], tmp_dir: Path) -> Direction:
        criteria = Criteria(
            str(data["source_types"]), int(data["min_authority"]), data.get("min_year")
        )
        return cls(
            int(data["number"]), str(data["name"]), str(data["description"]),
            tuple(data["queries"]), criteria, tmp_dir / str(data["output_file"]),
            str(data.get("question", "")),
        )  # fmt: skip


def _unique(queries: list[str]) -> tuple[str, ...]:
    return tuple(list(dict.fromkeys(q for q in queries if q))[:MAX_QUERIES])


def group_angles(angles: list[Angle], limit: int) -> list[Angle]:
    """At most ``limit`` angles: contiguous neighbours merged, sizes as even as possible."""
    limit = max(1, min(limit, MAX_DIRECTIONS))
    if len(angles) <= limit:
        return angles
    size, extra = divmod(len(angles), limit)
    groups, start = [], 0
    for index in range(limit):
        end = start + size + (1 if index < extra else 0)
        groups.append(angles[start:end])
        start = end
    return [_merge(group) for group in groups]


def _merge(group: list[Angle]) -> Angle:
    if len(group) == 1:
        return group[0]
    broad = [a.queries[0] for a in group][:2]
    narrow = [a.queries[1] for a in group if len(a.queries) > 1][:2]
    negation = [group[0].queries[-1]]
    queries = tuple(dict.fromkeys([*broad, *narrow, *negation]))[:MAX_QUERIES]
    return Angle(
        " / ".join(a.name for a in group),
        "; ".join(a.description for a in group),
        queries,
        "; ".join(dict.fromkeys(a.source_types for a in group)),
        " ".join(dict.fromkeys(a.question for a in group)),
    )


class DirectionDraft(BaseModel):
    direction: str = Field(min_length=5, max_length=300)
    queries: Annotated[
        list[str],
        Field(min_length=3, max_length=MAX_QUERIES),
        written(QUERY_CHARS, (3, MAX_QUERIES)),
    ]
    source_types: str = Field(min_length=3, max_length=200)


class PlanDraft(BaseModel):
    directions: list[DirectionDraft] = Field(min_length=1, max_length=12)


SYSTEM = """You plan deep research on a QUESTION. Split it into 3 to 6 non-overlapping
sub-questions that together answer it: one about each ENTITY it names and what it ASKS,
and one that checks the answer. For each: direction (the sub-question itself, a short
question ending with "?", such as "When was the Harbour Gazette first published?"),
queries (3 to 5 short web search queries using the entities' names), source_types (what
sources are acceptable). Answer with JSON only:
{"directions": [{"direction": ..., "queries": [...], "source_types": ...}]}."""


async def model_angles(
    topic: str, model: Model, *, budget: Budget | None, meter: UsageMeter | None
) -> list[Angle]:
    shape = read_question(topic)
    result = await typed_call(
        model,
        system=SYSTEM,
        prompt=f"QUESTION: {shape.text}\nENTITIES: {'; '.join(shape.entities) or 'none'}\n"
        f"ASKS: {shape.asked or shape.kind}",
        output=PlanDraft,
        output_name="Plan",
        timeout=120.0,
        max_tokens=900,
        budget=budget,
        meter=meter,
        temperature=0.0,
    )
    angles = []
    for draft in result.output.directions:
        grounded = (named(q, shape.entities, draft.direction) for q in draft.queries if q.strip())
        queries = tuple(dict.fromkeys(clip(q) for q in grounded))
        if len(queries) >= 3:
            name = clip(draft.direction.rstrip(". "), 300)
            angles.append(Angle(name, name, queries[:MAX_QUERIES], draft.source_types, name))
    return angles


def named(query: str, entities: tuple[str, ...], direction: str) -> str:
    """``query`` as it is when it names one of the question's entities, else with the
    entity its direction names (or the question's first) added: the small model's "What is
    a ferryman?" for "If Osric is a ferryman Vell is what?" found nothing about either, six
    queries in a row."""
    words = set(content_words(query))
    if not entities or any(set(content_words(e)) & words for e in entities):
        return query
    about = next((e for e in entities if set(content_words(e)) & set(content_words(direction))),
                 entities[0])  # fmt: skip
    return f"{query.rstrip(' ?.')} {about}"


async def plan_directions(
    topic: str,
    tmp_dir: Path,
    *,
    max_directions: int = MAX_DIRECTIONS,
    model: Model | None = None,
    budget: Budget | None = None,
    meter: UsageMeter | None = None,
    today: dt.date | None = None,
) -> tuple[list[Direction], list[str]]:
    """The directions and any notes (e.g. a model plan that was unusable)."""
    today = today or dt.datetime.now(dt.UTC).date()
    notes: list[str] = []

    async def by_model(model: Model) -> list[Angle]:
        return await model_angles(topic, model, budget=budget, meter=meter)

    async def by_rules() -> list[Angle]:
        return []  # the code angles below complete any plan, an empty one too

    # A plan by code beats no run: the directions are then derived from the topic.
    planned = await Step.of("deep.plan", model, by_model, by_rules).run()
    angles = list(planned.value)
    if planned.failure is not None:
        notes.append(f"the model gave no valid plan ({planned.failure.reason[:120]})")
    coded = code_angles(topic)
    wanted = min(MIN_DIRECTIONS, max_directions)
    for angle in coded:  # a short model plan is completed by the question's own directions
        if len(angles) >= wanted:
            break
        angles.append(angle)
    if len(angles) > max_directions:
        notes.append(f"{len(angles)} angles grouped into {max_directions} directions")
    grouped = group_angles(angles, max_directions)
    min_year = today.year - 3 if is_date_sensitive(topic) else None
    directions = []
    for number, angle in enumerate(grouped, start=1):
        slug = slugify(angle.name, max_length=40, fallback="direction")
        directions.append(
            Direction(
                number,
                angle.name,
                angle.description[0].upper() + angle.description[1:],
                angle.queries,
                Criteria(angle.source_types, min_year=min_year),
                tmp_dir / f"{number:02d}-{slug}.md",
                angle.question,
            )
        )
    return directions, notes


def render_plan(directions: list[Direction]) -> str:
    """The complete plan, in the spec's shape, every query included."""
    lines = ["Plan:", ""]
    for d in directions:
        lines.append(f"Direction {d.number}: {d.description}")
        lines.append("Queries:")
        lines += [f'  - "{q}"' for q in d.queries]
        lines.append(f"Acceptance: {d.acceptance.render()}")
        lines.append(f"Output: {d.output_file}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def bridge_direction(topic: str, entity: str, number: int, like: Direction) -> Direction:
    """A direction on a name an earlier direction found (the next hop of the question),
    with the acceptance criteria of the direction it takes the place of."""
    shape = read_question(topic)
    subject = clip(f"{entity} {shape.asked}".strip())
    queries = _unique([subject, clip(entity), clip(f"what is {entity}")])
    slug = slugify(entity, max_length=40, fallback="bridge")
    return Direction(
        number, f"Next hop: {clip(entity, 80)}",
        f"What sources say about {clip(entity, 200)}, which an earlier direction tied to the "
        f"question ({clip(shape.asked or shape.text, 200)})",
        queries, like.acceptance, like.output_file.with_name(f"{number:02d}-{slug}.md"), subject,
    )  # fmt: skip
