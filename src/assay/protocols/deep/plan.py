"""Phase 1: the research directions, each with its queries, acceptance criteria and file.

Without a model the directions are derived from the topic by code: a fixed list of
research angles (background, mechanisms, current data, actors, standards, comparisons,
criticism, outlook), each with a broad, a narrow and a negation/criticism query built on
the topic's key phrase (``expand_queries``'s planner). With a model, one typed call drafts
the directions. Either way there are never more than ``max_directions`` (≤ 6): extra
angles are grouped with their neighbours (the list is ordered so neighbours are related),
and never fewer than 3 when the cap allows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from assay.budget import Budget
from assay.engines.extractive.planner import is_date_sensitive, key_phrase
from assay.models import InvalidOutput, Model, ModelTimeout, typed_call
from assay.models.usage import UsageMeter
from assay.store.paths import slugify

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
class Angle:
    """One research angle: a description and its broad, narrow and negation queries."""

    name: str
    description: str
    queries: tuple[str, ...]
    source_types: str


@dataclass(frozen=True)
class Direction:
    number: int
    name: str
    description: str
    queries: tuple[str, ...]
    acceptance: Criteria
    output_file: Path


_CODE_ANGLES = (
    ("Definitions and background", "what {t} is, its definitions and background",
     ("{k}", "{k} definition history", "{k} misconceptions"),
     "encyclopedias, official documentation, scholarly sources"),
    ("Causes and mechanisms", "how {t} works: its causes and mechanisms",
     ("how {k} works", "{k} causes mechanisms", "{k} unexplained open questions"),
     "scholarly and technical sources, official documentation"),
    ("Current state and data", "the current state of {t}, with facts and figures",
     ("{k} facts figures", "{k} statistics {y}", "{k} disputed figures"),
     "official statistics, surveys, analyst reports"),
    ("Key actors and sources", "who the main actors, institutions and sources on {t} are",
     ("{k} organisations experts", "{k} official report", "{k} unreliable claims"),
     "official sites of the institutions, established news"),
    ("Rules and standards", "the rules, standards and regulation that apply to {t}",
     ("{k} regulation standards", "{k} official guidelines", "{k} rules not enforced"),
     "official and standards-body sources"),
    ("Comparisons and alternatives", "how {t} compares with its alternatives",
     ("{k} compared alternatives", "{k} versus", "{k} no better than"),
     "reviews, scholarly comparisons, analyst reports"),
    ("Criticism and limitations", "criticism, risks and limitations of {t}",
     ("{k} criticism", "{k} risks limitations problems", "{k} benefits defence"),
     "scholarly critiques, official reviews, established news"),
    ("Outlook", "the outlook and open questions for {t}",
     ("{k} future outlook", "{k} forecast {y1}", "{k} uncertainty unknowns"),
     "analyst reports, official plans, scholarly sources"),
)  # fmt: skip


def code_angles(topic: str, year: int) -> list[Angle]:
    key = key_phrase(topic)
    fill = {"t": topic.rstrip("?.! "), "k": key, "y": str(year), "y1": str(year + 1)}
    return [
        Angle(name, desc.format(**fill), tuple(q.format(**fill) for q in queries), types)
        for name, desc, queries, types in _CODE_ANGLES
    ]


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
    )


class DirectionDraft(BaseModel):
    direction: str = Field(min_length=5, max_length=300)
    queries: list[str] = Field(min_length=3, max_length=MAX_QUERIES)
    source_types: str = Field(min_length=3, max_length=200)


class PlanDraft(BaseModel):
    directions: list[DirectionDraft] = Field(min_length=1, max_length=12)


SYSTEM = """You plan deep research. Decompose the TOPIC into 3 to 6 non-overlapping research
directions. For each: direction (one sentence), queries (3 to 5 web search queries: one
broad, one narrow, one looking for criticism or negation), source_types (what sources are
acceptable). Answer with JSON only: {"directions": [{"direction", "queries", "source_types"}]}."""


async def model_angles(
    topic: str, model: Model, *, budget: Budget | None, meter: UsageMeter | None
) -> list[Angle]:
    result = await typed_call(
        model,
        system=SYSTEM,
        prompt=f"TOPIC: {topic}",
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
        queries = tuple(dict.fromkeys(" ".join(q.split()) for q in draft.queries if q.strip()))
        if len(queries) >= 3:
            name = draft.direction.rstrip(". ")
            angles.append(Angle(name, name, queries[:MAX_QUERIES], draft.source_types))
    return angles


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
    angles: list[Angle] = []
    if model is not None:
        try:
            angles = await model_angles(topic, model, budget=budget, meter=meter)
        except (InvalidOutput, ModelTimeout) as exc:
            # A plan by code beats no run: the directions are then derived from the topic.
            notes.append(f"the model gave no valid plan ({exc.message.splitlines()[0][:120]})")
    coded = code_angles(topic, today.year)
    wanted = min(MIN_DIRECTIONS, max_directions)
    for angle in coded:  # a short model plan is completed by code angles
        if len(angles) >= wanted:
            break
        angles.append(angle)
    if not model:
        angles = coded
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
