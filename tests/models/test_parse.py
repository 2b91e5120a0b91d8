"""Tolerant JSON extraction and output types (schemas, envelopes, validation feedback)."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, TypeAdapter

from assay.models.output import OutputInvalid, OutputType
from assay.models.parse import JSONNotFound, extract_json, remove_trailing_commas


class Answer(BaseModel):
    """A city and how many live there."""

    city: str
    population: int


class WebSearch(BaseModel):
    kind: Literal["web_search"] = "web_search"
    queries: list[str] = Field(min_length=1)


class ReadUrl(BaseModel):
    kind: Literal["read_url"] = "read_url"
    url: str


class Finish(BaseModel):
    kind: Literal["finish"] = "finish"
    answer: str


ACTION: TypeAdapter[WebSearch | ReadUrl | Finish] = TypeAdapter(
    Annotated[WebSearch | ReadUrl | Finish, Field(discriminator="kind")]
)

OBJECT = {"city": "Paris", "population": 2}


@pytest.mark.parametrize(
    "text",
    [
        '{"city": "Paris", "population": 2}',
        '  \n{"city": "Paris", "population": 2}\n',
        '```json\n{"city": "Paris", "population": 2}\n```',
        '```\n{"city": "Paris", "population": 2}\n```',
        'Sure! Here it is:\n```json\n{"city": "Paris", "population": 2}\n```\nAnything else?',
        'Here is the JSON: {"city": "Paris", "population": 2} -- hope it helps',
        '```json\n{"city": "Paris", "population": 2,}\n```',
        '{"city": "Paris", "population": 2,}',
        '{\n  "city": "Paris",\n  "population": 2,\n}\n',
        'Use braces like {this}. Answer: {"city": "Paris", "population": 2}',
    ],
)
def test_extract_json_finds_the_object(text: str) -> None:
    assert extract_json(text) == OBJECT


def test_trailing_commas_inside_strings_are_kept() -> None:
    text = '{"city": "a,}", "list": [1, 2, ], "q": "x\\",]"}'
    assert remove_trailing_commas(text) == '{"city": "a,}", "list": [1, 2 ], "q": "x\\",]"}'
    assert extract_json(text) == {"city": "a,}", "list": [1, 2], "q": 'x",]'}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("I cannot help with that.", "no JSON object"),
        ('{"city": "Paris", "population": }', "not valid JSON"),
    ],
)
def test_extract_json_says_why_not(text: str, why: str) -> None:
    with pytest.raises(JSONNotFound, match=why):
        extract_json(text)


def test_output_type_of_a_model_is_an_object_schema() -> None:
    spec = OutputType.of(Answer)
    assert spec.schema.name == "Answer"
    assert spec.schema.enveloped is False
    assert spec.schema.json_schema["required"] == ["city", "population"]
    assert spec.schema.description == "A city and how many live there."
    assert spec.parse('```json\n{"city": "Rome", "population": 3}\n```') == Answer(
        city="Rome", population=3
    )
    assert '"title"' not in spec.instructions()


def test_output_type_of_a_union_travels_in_an_envelope() -> None:
    spec = OutputType.of(ACTION, "Action")
    schema = spec.schema.json_schema
    assert spec.schema.name == "Action"
    assert spec.schema.enveloped is True
    assert schema["type"] == "object"
    assert schema["required"] == ["result"]
    assert set(schema["$defs"]) == {"WebSearch", "ReadUrl", "Finish"}
    assert spec.parse('{"result": {"kind": "read_url", "url": "http://a.test/"}}') == ReadUrl(
        url="http://a.test/"
    )
    # a small model that forgets the envelope is still understood
    assert spec.parse('{"kind": "finish", "answer": "42"}') == Finish(answer="42")


def test_validation_errors_become_feedback() -> None:
    spec = OutputType.of(Answer)
    with pytest.raises(OutputInvalid) as caught:
        spec.parse('{"city": "Paris", "population": "many"}')
    assert "population" in caught.value.feedback
    assert "valid integer" in caught.value.feedback
    with pytest.raises(OutputInvalid, match="no JSON object"):
        spec.parse("Paris, about two million.")


def test_union_feedback_names_the_bad_action() -> None:
    spec = OutputType.of(ACTION)
    with pytest.raises(OutputInvalid) as caught:
        spec.parse('{"result": {"kind": "web_search", "queries": []}}')
    assert "queries" in caught.value.feedback
    with pytest.raises(OutputInvalid) as caught:
        spec.parse('{"result": {"kind": "dance"}}')
    assert "kind" in caught.value.feedback or "tag" in caught.value.feedback


def test_a_reply_that_echoes_the_schema_shape_is_understood() -> None:
    # what the local 1.5B model wrote when shown a full pydantic schema
    echo = (
        '{"properties": {"city": "Paris", "population": 2}, '
        '"required": ["city", "population"], "type": "object", "title": "Answer"}'
    )
    assert OutputType.of(Answer).parse(echo) == Answer(city="Paris", population=2)
    with pytest.raises(OutputInvalid):
        OutputType.of(Answer).parse('{"properties": {"city": "Paris"}, "type": "object"}')
