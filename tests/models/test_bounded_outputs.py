"""Every output a model writes is bounded in its schema (models/output.py ``unbounded``).

A reply is decoded by its JSON schema (constrained output), so a text or list the schema
leaves open lets a small model write on until its tokens run out: the local model once
ran a search query on for three attempts in a row. Each model-facing output of the
product is listed here; a new one belongs in the list."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from assay.answers.model_step import ModelAnswer
from assay.claims.compare import Comparison
from assay.claims.model_extract import ClaimList, PageReply
from assay.claims.model_judge import JudgeReply
from assay.models.output import QUERY_CHARS, unbounded, written
from assay.protocols.deep.escalate import Alternatives
from assay.protocols.deep.hop import NextHop
from assay.protocols.deep.plan import PlanDraft
from assay.protocols.research.actions import RequestFullResearch, WebSearch, WritePlan
from assay.protocols.research.prose import Prose
from assay.protocols.synth.agents import Arrangement, QueryPlan
from assay.protocols.synth.contract import Phase1Reply, Phase2Reply
from assay.protocols.web_research.keypoints import KeyPointsReply
from assay.protocols.web_research.synthesis import ThemesReply
from assay.report.prose import DraftProse

OUTPUTS: list[type[BaseModel]] = [
    ModelAnswer,
    Comparison,
    ClaimList,
    PageReply,
    JudgeReply,
    Alternatives,
    NextHop,
    PlanDraft,
    RequestFullResearch,
    WebSearch,
    WritePlan,
    Prose,
    Arrangement,
    QueryPlan,
    Phase1Reply,
    Phase2Reply,
    KeyPointsReply,
    ThemesReply,
    DraftProse,
]


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda o: o.__name__)
def test_every_text_and_list_a_model_writes_has_an_upper_bound(output: type[BaseModel]) -> None:
    assert unbounded(output.model_json_schema()) == []


def test_an_open_text_or_list_is_found() -> None:
    class Open(BaseModel):
        note: str
        tags: list[int]

    assert unbounded(Open.model_json_schema()) == ["Open.note", "Open.tags"]


def test_the_written_bound_is_the_schemas_not_the_validations() -> None:
    class Queries(BaseModel):
        queries: Annotated[list[str], written(QUERY_CHARS, (1, 2))]

    schema: dict[str, Any] = Queries.model_json_schema()["properties"]["queries"]
    assert schema["maxItems"] == 2 and schema["items"]["maxLength"] == QUERY_CHARS
    long = "a query written by code from a long question " * 3
    assert Queries(queries=[long, long, long]).queries[0] == long
